"""Checks over many v2 deals that no single deal can show: no surface feature of a row may tell a gap from a met
row, and the decisions keep their mix.

A feature's tell is what flagging rows by it alone can earn of the gap component: the best, over the feature's
values, of (gaps - half the met rows) among the rows with that value, over all gaps (the grader's own sum, so a
value where fewer than a third of the rows are gaps earns nothing). Every feature's tell must stay under
``TELL_BOUND``. The features are the plan's choices (where the value is written, how, promises, rumours, the
questionnaire's answer kind) and what a cheap reader measures in the text (the answer's length, the share of the
bar's words a sentence repeats, how many documents name the row).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

TELL_BOUND: Final = 0.05
DECISION_SHARES: Final = {"go": (0.04, 0.17), "conditional-go": (0.33, 0.57), "no-go": (0.33, 0.57)}
MIN_DEALS: Final = 100
"""Set checks on fewer deals measure noise; smaller sets are not checked."""
WORD: Final = re.compile(r"[a-z0-9][a-z0-9.\-]*")
STOP: Final = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "or",
        "and",
        "to",
        "for",
        "in",
        "on",
        "at",
        "by",
        "be",
        "is",
        "are",
        "our",
        "we",
        "your",
        "their",
        "its",
        "it",
        "this",
        "that",
        "with",
        "as",
        "no",
        "more",
        "than",
        "least",
        "most",
        "than",
        "any",
        "every",
        "each",
        "from",
        "per",
    ]
)
Row = Mapping[str, Any]
Feature = Callable[[Row], object]


def rows(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One entry per matrix row: its annotation, its bar, and the texts a cheap reader would measure."""
    found = []
    for record in records:
        docs = [d for d in record["documents"] if d["kind"] != "requirements_matrix"]
        questionnaire = next(d["text"] for d in record["documents"] if d["kind"] == "questionnaire")
        for code, requirement in enumerate(record["requirements"], start=1):
            note = record["annotations"][requirement["id"]]
            found.append({**note, "id": requirement["id"], "bar_text": requirement["pass_bar"], "docs": docs,
                          "answer": _answer(questionnaire, code)})  # fmt: skip
    return found


def _answer(questionnaire: str, code: int) -> str:
    for line in questionnaire.splitlines():
        if line.startswith((f"{code}. ", f"Q{code} (")):
            return line
    return ""


def words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


def overlap(row: Row) -> float:
    """The largest share of the bar's content words that one sentence of the deal's other documents repeats."""
    bar = words(row["bar_text"])
    sentences = [s for d in row["docs"] for s in re.split(r"(?<=[.!?])\s+|\n+", d["text"])]
    return max((len(bar & words(s)) / max(1, len(bar)) for s in sentences), default=0.0)


def mentions(row: Row) -> int:
    """How many of the deal's other documents share two content words with the bar."""
    bar = words(row["bar_text"])
    return sum(len(bar & words(d["text"])) >= 2 for d in row["docs"])


FEATURES: Final[Mapping[str, Feature]] = {
    "place": lambda r: r["place"],
    "mechanism": lambda r: r["mechanism"],
    "promise": lambda r: r["promise"],
    "has_promise": lambda r: r["promise"] != "none",
    "rumour": lambda r: r["rumour"],
    "claim": lambda r: r["id"],
    "answer_words": lambda r: len(r["answer"].split()) // 4,
    "bar_overlap": lambda r: round(overlap(r), 1),
    "documents_naming_it": mentions,
}


def tell(entries: Sequence[Row], feature: Feature) -> float:
    """What flagging by the feature's best value earns of the gap component (0 when no value earns anything)."""
    gaps = sum(bool(r["gap"]) for r in entries)
    by_value: dict[object, list[int]] = {}
    for r in entries:
        counts = by_value.setdefault(feature(r), [0, 0])
        counts[0 if r["gap"] else 1] += 1
    best = max((g - 0.5 * m for g, m in by_value.values()), default=0.0)
    return max(0.0, best) / max(1, gaps)


def tells(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    entries = rows(records)
    return {name: round(tell(entries, feature), 4) for name, feature in FEATURES.items()}


def decision_shares(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    counts = Counter(str(r["decision"]) for r in records)
    return {d: counts[d] / max(1, len(records)) for d in DECISION_SHARES}


def set_problems(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every set-level problem of ``records`` (none for fewer than ``MIN_DEALS``)."""
    if len(records) < MIN_DEALS:
        return []
    problems = [f"feature {name!r} tells gaps apart: {value:.3f} > {TELL_BOUND}"
                for name, value in tells(records).items() if value > TELL_BOUND]  # fmt: skip
    for decision, share in decision_shares(records).items():
        low, high = DECISION_SHARES[decision]
        if not low <= share <= high:
            problems.append(f"decision {decision!r} share {share:.2f} outside {low}-{high}")
    return problems
