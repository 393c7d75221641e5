"""A generated v2 deal's choices, drawn from one seed: split, tier, decision, buyer, vendor, plan, matrix, values.

Every random choice comes from ``random.Random(seed)`` in a fixed order over ordered sequences (never a set, a
``hash()`` or the clock). A row's label is drawn first; the buyer's bar and the vendor's value are then drawn
around each other so that neither alone says which side of the bar the row is on, and everything else about a
row (where its value is written, whether it has a promise, a rumour, per-plan values or a superseded statement)
is drawn at the same rates for gaps and for met rows. Which row is a gap follows from the values alone.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Final

from .claims import Claim, Split, claims

TEST_SEED_START: Final = 900_000
"""Seeds from here on are written with the test split's phrasings, nouns, value forms and names."""
TIER_WEIGHTS: Final = {"easy": 3, "medium": 4, "hard": 3}
ROWS: Final = {"easy": 7, "medium": 9, "hard": 11}
DECISION_WEIGHTS: Final = {"go": 10, "conditional-go": 45, "no-go": 45}
GAP_RATE: Final = 0.28
"""Below a third: flagging rows blindly loses more to false flags (half a find each) than it finds."""
MUST_RATE: Final = 0.6
MECHANISMS: Final = ("plain", "plans", "superseded")
MECHANISM_WEIGHTS: Final = {"easy": (70, 15, 15), "medium": (50, 25, 25), "hard": (30, 35, 35)}
"""How a row's value is written: once; per plan (the order form names the buyer's plan); or restated later
(the newest dated statement is the one in force)."""
PLACES: Final = ("questionnaire", "architecture", "admin_guide", "dpa", "trust_center")
PROMISE_RATE: Final = 0.3
SIGNED_RATE: Final = 0.6
PROMISE_MEETS_RATE: Final = 0.75
RUMOUR_RATE: Final = 0.3
DISCREDIT_RATE: Final = 0.5
VAGUE_RATE: Final = 0.35
POINTER_RATE: Final = 0.5
MAX_ATTEMPTS: Final = 400
FIRST_DAY: Final = dt.date(2026, 1, 5)
DAYS_SPAN: Final = 540


@dataclass(frozen=True)
class RowPlan:
    """One matrix row: the claim, its priority, the bar and the vendor's value in force, and how it is written."""

    claim: Claim
    priority: str
    noun: str
    bar: float
    value: float
    mechanism: str
    other: float  # the other plan's value ("plans"), the superseded value ("superseded"), else = value
    place: str
    old_place: str
    pointer: bool
    vague_place: str  # "" for none
    promise: str  # "none", "signed" or "draft"
    promised: float
    due: dt.date | None
    rumour: str  # "none", "raised" or "discredited"
    rumoured: float

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def is_gap(self) -> bool:
        return not self.claim.meets(self.value, self.bar)

    @property
    def committed(self) -> bool:
        """A remediation commitment: a gap with a signed, dated promise whose value meets the bar."""
        return self.is_gap and self.promise == "signed" and self.claim.meets(self.promised, self.bar)


@dataclass(frozen=True)
class DealPlan:
    """Everything ``compose.py`` needs to write the deal."""

    seed: int
    split: Split
    tier: str
    date: dt.date
    rows: tuple[RowPlan, ...]
    bought: int  # index of the buyer's plan among the vendor's two
    old_date: dt.date
    new_date: dt.date

    @property
    def decision(self) -> str:
        return decision_of(self.rows)


def decision_of(rows: tuple[RowPlan, ...]) -> str:
    """The system prompt's rule: no gap is go; a MUST gap without a signed commitment is no-go; else conditional."""
    gaps = [row for row in rows if row.is_gap]
    if not gaps:
        return "go"
    return "no-go" if any(row.priority == "MUST" and not row.committed for row in gaps) else "conditional-go"


def split_of(seed: int) -> Split:
    return "test" if seed >= TEST_SEED_START else "train"


def tier_of_seed(seed: int) -> str:
    """The tier, the first draw of the plan (cheap, for tier selection)."""
    return _weighted(random.Random(seed), TIER_WEIGHTS)


def plan_deal(seed: int) -> DealPlan:
    rng = random.Random(seed)
    tier = _weighted(rng, TIER_WEIGHTS)
    decision = _weighted(rng, DECISION_WEIGHTS)
    split = split_of(seed)
    date = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS_SPAN))
    bought = rng.randrange(2)
    rows: tuple[RowPlan, ...] = ()
    for _ in range(MAX_ATTEMPTS):
        rows = tuple(_row(rng, c, tier, split, date) for c in _matrix(rng, tier))
        if decision_of(rows) == decision:
            break
    old_date = date - dt.timedelta(days=rng.randint(120, 400))
    new_date = date - dt.timedelta(days=rng.randint(5, 60))
    return DealPlan(seed, split, tier, date, rows, bought, old_date, new_date)


def _weighted(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _matrix(rng: random.Random, tier: str) -> list[Claim]:
    """The tier's number of claims, in the file's order."""
    chosen = rng.sample(range(len(claims())), ROWS[tier])
    return [claims()[i] for i in sorted(chosen)]


def _row(rng: random.Random, c: Claim, tier: str, split: Split, date: dt.date) -> RowPlan:
    gap = rng.random() < GAP_RATE
    priority = "MUST" if rng.random() < MUST_RATE else "SHOULD"
    noun = rng.choice(c.nouns[split])
    n = len(c.levels)
    bar = rng.randint(1, n - 2)  # in goodness order: 0 is the worst level, n - 1 the best
    value = _step(rng, bar, (-2, -1) if gap else (0, 1, 2), n)
    mechanism = rng.choices(MECHANISMS, weights=MECHANISM_WEIGHTS[tier])[0]
    other = _other(rng, mechanism, value, n)
    promise = "none"
    promised, due = value, None
    if rng.random() < PROMISE_RATE:
        promise = "signed" if rng.random() < SIGNED_RATE else "draft"
        promised = _promised(rng, gap, value, bar, n)
        due = date + dt.timedelta(days=rng.randint(30, 200))
    rumour, rumoured = "none", value
    if rng.random() < RUMOUR_RATE:
        rumour = "discredited" if rng.random() < DISCREDIT_RATE else "raised"
        rumoured = rng.randrange(n)
    level = LevelOf(c)
    return RowPlan(
        claim=c,
        priority=priority,
        noun=noun,
        bar=level(bar),
        value=level(value),
        mechanism=mechanism,
        other=level(other),
        place=rng.choice(PLACES),
        old_place=rng.choice(PLACES),
        pointer=rng.random() < POINTER_RATE,
        vague_place=rng.choice(PLACES) if rng.random() < VAGUE_RATE else "",
        promise=promise,
        promised=level(promised),
        due=due,
        rumour=rumour,
        rumoured=level(rumoured),
    )


@dataclass(frozen=True)
class LevelOf:
    """Goodness index -> the claim's value (levels are stored ascending; for ``max`` claims lower is better)."""

    claim: Claim

    def __call__(self, goodness: int) -> float:
        levels = self.claim.levels
        return levels[goodness] if self.claim.direction == "min" else levels[len(levels) - 1 - goodness]


def _step(rng: random.Random, start: int, offsets: tuple[int, ...], n: int) -> int:
    """``start`` moved by one of ``offsets`` that stays within the levels (offsets are tried in a seeded order)."""
    for offset in rng.sample(offsets, len(offsets)):
        if 0 <= start + offset < n:
            return start + offset
    return start


def _other(rng: random.Random, mechanism: str, value: int, n: int) -> int:
    """The other plan's value (one or two levels away, either way) or the superseded value (any other level)."""
    if mechanism == "plans":
        return _step(rng, value, (-2, -1, 1, 2), n)
    if mechanism == "superseded":
        return rng.choice([level for level in range(n) if level != value])
    return value


def _promised(rng: random.Random, gap: bool, value: int, bar: int, n: int) -> int:
    """A gap's promise reaches the bar most of the time; a met row's promise is an improvement (or the same)."""
    if not gap:
        return _step(rng, value, (1,), n)
    if rng.random() < PROMISE_MEETS_RATE or bar - value < 2:
        return _step(rng, bar, (0, 1), n)
    return rng.randint(value + 1, bar - 1)
