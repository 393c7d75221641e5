"""VendorReview-v2's requirements as claims with values: what each requirement measures, in which unit, which
way is better, and how a value is written in each split.

A row's label follows from values alone: the vendor's value against the buyer's bar, in the claim's direction
(``max``: at most the bar; ``min``: at least). The same vendor sentence meets one buyer's bar and misses
another's. The two splits write values in different forms (train: digits in the claim's unit; test: number
words, other units, downtime per month), so a model that learned which tokens mean "good enough" on training
deals has to read the test deals' values to compare them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from functools import cache
from typing import Final, Literal

from ...core.assets import asset_path, read_json

Split = Literal["train", "test"]
WORDS: Final = {
    1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    10: "ten", 12: "twelve", 14: "fourteen", 15: "fifteen", 18: "eighteen", 20: "twenty", 24: "twenty-four",
    30: "thirty", 36: "thirty-six", 45: "forty-five", 48: "forty-eight", 60: "sixty", 72: "seventy-two",
    90: "ninety", 96: "ninety-six", 120: "one hundred and twenty", 168: "one hundred and sixty-eight",
    180: "one hundred and eighty", 365: "three hundred and sixty-five", 730: "seven hundred and thirty",
}  # fmt: skip
MINUTES_PER_MONTH: Final = Decimal(43_800)
"""A month of 730 hours (8,760 / 12), the usual basis for converting an availability target into downtime."""


@dataclass(frozen=True)
class Claim:
    """One requirement of the v2 matrix: the quantity it measures and how the documents name it."""

    id: str
    unit: str
    direction: Literal["max", "min"]
    levels: tuple[float, ...]
    nouns: dict[str, tuple[str, ...]]
    keywords: tuple[str, ...]

    def meets(self, value: float, bar: float) -> bool:
        """True when ``value`` satisfies the bar: at most it (``max``) or at least it (``min``)."""
        return value <= bar if self.direction == "max" else value >= bar


@cache
def claims() -> tuple[Claim, ...]:
    """Every claim of ``assets/vendor_review/v2/claims.json``, in file order."""
    data = read_json(asset_path("vendor_review", "v2", "claims.json"))
    return tuple(
        Claim(
            c["id"],
            c["unit"],
            c["direction"],
            tuple(float(level) for level in c["levels"]),
            {split: tuple(names) for split, names in c["nouns"].items()},
            tuple(c["keywords"]),
        )
        for c in data["claims"]
    )


def claim(claim_id: str) -> Claim:
    return next(c for c in claims() if c.id == claim_id)


def render(unit: str, value: float, split: Split, rng: random.Random, *, bar: bool = False) -> str:
    """``value`` (in ``unit``) as the documents of ``split`` write it; ``rng`` picks among a split's forms. A bar
    (``bar=True``) writes an availability as a percentage in both splits."""
    if unit == "percent":
        return _percent(value, "train" if split == "train" else "bar" if bar else "test", rng)
    if unit == "tls":
        return f"TLS {value:.1f}" if split == "train" else f"TLSv{value:.1f}"
    return _duration(unit, value, split, rng)


def _duration(unit: str, value: float, split: Split, rng: random.Random) -> str:
    minutes = value * 60 if unit == "hours" else None
    if split == "train":
        if minutes is not None and value < 1:
            return f"{int(minutes)} minutes"
        return _plural(int(value), unit[:-1], str(int(value)))
    forms = _test_forms(unit, value)
    return forms[rng.randrange(len(forms))]


def _test_forms(unit: str, value: float) -> list[str]:
    """The test split's ways of writing a duration: number words, and exact conversions to other units."""
    if unit == "hours" and value < 1:
        return ["a quarter of an hour" if value == 0.25 else "half an hour"]
    n = int(value)
    forms = [_plural(n, unit[:-1], WORDS[n])] if n in WORDS else []
    if unit == "hours" and n % 24 == 0:
        forms.append(_plural(n // 24, "day", WORDS[n // 24]))
    if unit == "hours" and n <= 4:
        forms.append(f"{n * 60} minutes")
    if unit == "days" and n % 7 == 0:
        forms.append(_plural(n // 7, "week", WORDS.get(n // 7, str(n // 7))))
    if unit == "months" and n % 12 == 0:
        forms.append(_plural(n // 12, "year", WORDS[n // 12]))
    return forms or [_plural(n, unit[:-1], str(n))]


def _plural(n: int, singular: str, number: str) -> str:
    return f"{number} {singular}" if n == 1 else f"{number} {singular}s"


def _percent(value: float, form: str, rng: random.Random) -> str:
    """Train: ``99.9%``. Test: ``99.9 per cent`` (a test bar always) or the monthly downtime it allows, rounded
    down to a whole minute (so the written value is never worse than the percentage it stands for)."""
    if form == "train":
        return f"{value:g}%"
    if form == "bar" or rng.random() < 0.5:
        return f"{value:g} per cent"
    downtime = (MINUTES_PER_MONTH * (Decimal(100) - Decimal(str(value))) / 100).to_integral_value(ROUND_FLOOR)
    return f"no more than {int(downtime)} minutes of downtime a month"
