"""The scripted paths every VendorReview version plays: the gold path, and the ``paranoid`` and ``lazy`` paths
that vary it.

Each is a fixed path per deal (read some documents, then submit); a version's ``baselines.py`` serves them, and
its own, as policies played by ``policies.ScriptedPolicy``. They measure what a shortcut is worth: flagging
everything (paranoid) or reading nothing and saying go (lazy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from ...core.actions import Action
from .scenario import Scenario


def gold_path(scenario: Scenario) -> list[Action]:
    """Read every core document, then submit the authored answer."""
    return review_path(scenario, list(scenario.gap_ids), scenario.decision, scenario.core_documents)


def review_path(scenario: Scenario, gap_ids: list[str], decision: str, read: Sequence[str]) -> list[Action]:
    """Read the given documents in order, then submit ``decision`` with ``gap_ids``."""
    rationale = (
        "; ".join(f"{f.id}: {f.explanation}" for f in scenario.planted_gaps if f.id in gap_ids)
        or "Every requirement of the matrix is met by the current file."
    )
    reads = [{"name": "read_doc", "arguments": {"doc_id": doc_id}} for doc_id in read]
    return [
        *reads,
        {
            "name": "submit_recommendation",
            "arguments": {"decision": decision, "gap_ids": sorted(gap_ids), "rationale": rationale[:4000]},
        },
    ]


def paranoid_path(scenario: Scenario) -> list[Action]:
    """Reads the core documents, flags every planted gap and every distractor, and keeps the right decision:
    it measures what over-flagging alone costs (``reward_gaps`` loses half a find per distractor)."""
    flagged = sorted({*scenario.gap_ids, *(d.id for d in scenario.distractors)})
    return review_path(scenario, flagged, scenario.decision, scenario.core_documents)


def lazy_path(scenario: Scenario) -> list[Action]:
    """Reads only the requirements matrix and says go."""
    matrix = next(d.id for d in scenario.documents if d.kind == "requirements_matrix")
    return [
        {"name": "read_doc", "arguments": {"doc_id": matrix}},
        {
            "name": "submit_recommendation",
            "arguments": {"decision": "go", "gap_ids": [], "rationale": "The matrix looks standard."},
        },
    ]


def flag_all_path(scenario: Scenario) -> list[Action]:
    """Reads the matrix, flags every requirement, says no-go."""
    matrix = next(d.id for d in scenario.documents if d.kind == "requirements_matrix")
    return review_path(scenario, [r.id for r in scenario.requirements], "no-go", [matrix])


def fixed_path(decision: str) -> Callable[[Scenario], list[Action]]:
    """Reads every core document, flags nothing and always gives ``decision``: the best a policy that does not
    read for meaning can do with one fixed answer (full process credit, and the gap component on go deals)."""

    def path(scenario: Scenario) -> list[Action]:
        return review_path(scenario, [], decision, scenario.core_documents)

    return path


FIXED_DECISIONS: Final = {"fixed_go": "go", "fixed_conditional": "conditional-go", "fixed_no_go": "no-go"}
"""The fixed-decision policies by name."""
