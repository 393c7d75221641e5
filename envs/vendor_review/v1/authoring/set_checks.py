"""Checks over many v1 deals for the tells the v0 audit found: signals that tell a gap from a distractor
without reading. For gaps and for distractors alike, the share with a dated promise, with a rumour in the IT
thread and, among rumoured ones, with the rumour discredited must agree within ``TOLERANCE``; drafts and signed
commitments must both occur, as must decoy promises in signed and in draft documents; and an answer's length
in the questionnaire must not tell whether it is met (``length_tell``); and the decisions must keep the mix of
``DECISION_SHARES``, so that no fixed answer earns the decision component on most deals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from ..library import GAP_MODES, load_library

TOLERANCE: Final = 0.08
MIN_SHARE: Final = 0.05
LENGTH_TELL: Final = 0.2
"""The most gap reward that flagging questionnaire answers by their length alone may earn."""
DECISION_SHARES: Final = {"go": (0.04, 0.12), "conditional-go": (0.38, 0.56), "no-go": (0.38, 0.56)}
"""The share of each decision a set of generated deals must keep (the plan draws 8 / 46 / 46 %). Go stays low on
purpose: on a go deal flagging nothing earns the gap component too, so a policy that always says go without
flagging scores about ``0.1 + 0.9 * go_share`` and one that always gives another answer ``0.1 + 0.2 * share
+ 0.7 * go_share``; these bounds keep every such policy under 0.30 (``tests/envs/vendor_review/v1/test_env.py``)."""
QUESTIONNAIRE: Final = "security-questionnaire"
MAX_WORDS: Final = 90


@dataclass(frozen=True)
class Rates:
    """Shares of one group of requirements (gaps or distractors) over a set of deals."""

    count: int
    promised: float
    rumoured: float
    discredited: float  # among the rumoured


def _rates(notes: Sequence[Mapping[str, str]]) -> Rates:
    count = max(1, len(notes))
    rumoured = [n for n in notes if n["rumour"] != "none"]
    return Rates(
        len(notes),
        sum(n["promise"] != "none" for n in notes) / count,
        len(rumoured) / count,
        sum(n["rumour"] == "discredited" for n in rumoured) / max(1, len(rumoured)),
    )


def group_rates(records: Sequence[Mapping[str, Any]]) -> tuple[Rates, Rates]:
    """(gaps, distractors) rates over the records' annotations."""
    notes = [note for record in records for note in record["annotations"].values()]
    gaps = [n for n in notes if n["mode"] in GAP_MODES]
    distractors = [n for n in notes if n["mode"] in ("hidden", "decoy")]
    return _rates(gaps), _rates(distractors)


def answer_lengths(record: Mapping[str, Any]) -> dict[str, int]:
    """Words of each requirement's questionnaire line (0 when it has none)."""
    text = next((d["text"] for d in record["documents"] if d["id"] == QUESTIONNAIRE), "")
    lines = text.splitlines()
    codes = {item.id: item.code for item in load_library().items}
    lengths = {}
    for req in record["requirements"]:
        line = next((line for line in lines if line.startswith(codes[req["id"]] + " ")), "")
        lengths[req["id"]] = len(line.split())
    return lengths


def length_tell(records: Sequence[Mapping[str, Any]]) -> float:
    """The best mean gap reward (``grading.gap_score``) of a policy that flags the answers whose length falls in
    one window: how much an answer's length says about the requirement being unmet."""
    rows = [(answer_lengths(r), {g["id"] for g in r["planted_gaps"]}) for r in records]
    width = max((len(lengths) for lengths, _ in rows), default=0)
    lengths = np.full((len(rows), width), -1)
    gaps = np.zeros((len(rows), width), dtype=bool)
    for row, (by_id, planted) in enumerate(rows):
        for column, (req_id, words) in enumerate(by_id.items()):
            lengths[row, column], gaps[row, column] = words, req_id in planted
    planted_count = gaps.sum(axis=1)
    best = 0.0
    for low in range(0, MAX_WORDS, 2):
        for high in range(low, MAX_WORDS, 2):
            flagged = (lengths >= low) & (lengths <= high)
            hits, false_flags = (flagged & gaps).sum(axis=1), (flagged & ~gaps).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                found = np.where(planted_count > 0, (hits - 0.5 * false_flags) / planted_count, 1 - 0.5 * false_flags)
            best = max(best, float(np.clip(found, 0.0, None).mean()) if len(rows) else 0.0)
    return best


def decision_shares(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The share of each decision among the records."""
    count = max(1, len(records))
    return {decision: sum(r["decision"] == decision for r in records) / count for decision in DECISION_SHARES}


def set_problems_v1(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every tell found in the set, one sentence each; empty means none."""
    gaps, distractors = group_rates(records)
    problems = []
    for decision, share in decision_shares(records).items():
        low, high = DECISION_SHARES[decision]
        if not low <= share <= high:
            problems.append(f"set: {share:.2f} of the deals are {decision} (expected {low:.2f}-{high:.2f})")
    for name in ("promised", "rumoured", "discredited"):
        g, d = getattr(gaps, name), getattr(distractors, name)
        if abs(g - d) > TOLERANCE:
            problems.append(f"set: {name} rate {g:.2f} for gaps but {d:.2f} for distractors (tolerance {TOLERANCE})")
    notes = [note for record in records for note in record["annotations"].values()]
    for mode, promise in (("signed", "signed"), ("draft", "draft"), ("decoy", "signed"), ("decoy", "draft")):
        share = sum(n["mode"] == mode and n["promise"] == promise for n in notes) / max(1, len(notes))
        if share < MIN_SHARE / 5:
            problems.append(f"set: almost no {mode} requirements with a {promise} promise ({share:.3f})")
    tell = length_tell(records)
    if tell > LENGTH_TELL:
        problems.append(
            f"set: flagging answers by length alone earns {tell:.2f} of the gap reward (at most {LENGTH_TELL})"
        )
    return problems
