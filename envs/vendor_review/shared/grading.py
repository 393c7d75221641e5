"""The deterministic grade of a vendor review (no LLM judge).

| component        | weight | logic                                                                        |
|------------------|--------|------------------------------------------------------------------------------|
| reward_gaps      | 0.7    | max(0, (hits - 0.5 false_flags) / planted); zero-gap deals: max(0, 1 - 0.5 false_flags) |
| reward_decision  | 0.2    | exact match with the authored decision                                       |
| reward_process   | 0.1    | 1.0 only if every core document was read (read_doc) before submitting        |

An episode that ends without a submission scores 0 on every component.
"""

from __future__ import annotations

from typing import Any

from ...core import Grade
from .episode import VendorEpisode

WEIGHTS = {"reward_gaps": 0.7, "reward_decision": 0.2, "reward_process": 0.1}


def gap_score(flagged: set[str], planted: set[str]) -> tuple[float, int, int, int]:
    """(score, hits, missed, false_flags) of a flagged set against the planted gaps."""
    hits, false_flags = len(flagged & planted), len(flagged - planted)
    score = max(0.0, (hits - 0.5 * false_flags) / len(planted)) if planted else max(0.0, 1.0 - 0.5 * false_flags)
    return score, hits, len(planted - flagged), false_flags


def grade_review(episode: VendorEpisode) -> Grade:
    scenario = episode.scenario
    planted = set(scenario.gap_ids)
    core = set(scenario.core_documents)
    diagnostics: dict[str, Any] = {
        "submitted": episode.submission is not None,
        "core_docs_read": len(core & set(episode.docs_read)),
        "core_docs": len(core),
        "docs_read": len(set(episode.docs_read)),
        "searches": episode.searches,
        "questions": episode.questions,
    }
    if episode.submission is None:
        components = dict.fromkeys(WEIGHTS, 0.0)
        return Grade(0.0, components, {**diagnostics, "hits": 0, "missed": len(planted), "false_flags": 0})
    flagged = set(episode.submission["gap_ids"])
    gaps, hits, missed, false_flags = gap_score(flagged, planted)
    components = {
        "reward_gaps": gaps,
        "reward_decision": 1.0 if episode.submission["decision"] == scenario.decision else 0.0,
        "reward_process": 1.0 if core <= set(episode.submission["docs_read_before"]) else 0.0,
    }
    reward = round(sum(WEIGHTS[k] * v for k, v in components.items()), 6)
    return Grade(reward, components, {**diagnostics, "hits": hits, "missed": missed, "false_flags": false_flags})


def failure_report(episode: VendorEpisode) -> list[dict[str, Any]]:
    """Every way the review falls short of the answer key, one row each, in the format of every officegym
    failure report (``{"kind", "record", "field", "expected", "actual", "rule"}``, all strings): a missing
    submission (``no submission``), then each ``missed gap`` and each ``false flag`` by requirement ID (the rule
    is the requirement's priority and pass bar), a ``wrong decision``, and each core document not read before
    submitting (``unread document``). Empty exactly when the grade is full marks."""
    scenario = episode.scenario
    submission = episode.submission
    unmet = ", ".join(scenario.gap_ids) or "none"
    decision_rule = f"the decision rule (unmet requirements: {unmet})"
    if submission is None:
        return [_row("no submission", "recommendation", "decision", scenario.decision, "none submitted", decision_rule)]
    planted, flagged = set(scenario.gap_ids), set(submission["gap_ids"])
    bars = {req.id: f"{req.priority}: {req.pass_bar}" for req in scenario.requirements}
    rows = [
        _row("missed gap", rid, "flagged", "flagged as a gap", "not flagged", bars.get(rid, ""))
        for rid in sorted(planted - flagged)
    ]
    rows += [
        _row(
            "false flag",
            rid,
            "flagged",
            "not flagged (it is met)",
            "flagged as a gap",
            bars.get(rid, "not in the matrix"),
        )
        for rid in sorted(flagged - planted)
    ]
    if submission["decision"] != scenario.decision:
        actual = str(submission["decision"])
        rows.append(_row("wrong decision", "recommendation", "decision", scenario.decision, actual, decision_rule))
    read = set(submission["docs_read_before"])
    rows += [
        _row("unread document", doc, "read before submitting", "read", "not read", "read every core document first")
        for doc in sorted(scenario.core_documents)
        if doc not in read
    ]
    return rows


def _row(kind: str, record: str, field: str, expected: str, actual: str, rule: str) -> dict[str, Any]:
    return {"kind": kind, "record": record, "field": field, "expected": expected, "actual": actual, "rule": rule}
