"""VendorReview's own scripted policies, and the gold path they vary: ``paranoid`` and ``lazy``.

Each is a fixed path per deal (read some documents, then submit), played by ``policies.ScriptedPolicy``. They
measure what a shortcut is worth: flagging everything (paranoid) or reading nothing and saying go (lazy).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...policies.scripted import ScriptedPolicy
from ..core.actions import Action
from ..core.tool_env import PolicyFactory
from .scenario import Scenario
from .tasks import scenarios


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


BASELINES: Mapping[str, PolicyFactory] = {
    "paranoid": lambda env, seed: ScriptedPolicy("paranoid", lambda task_id: paranoid_path(scenarios()[task_id])),
    "lazy": lambda env, seed: ScriptedPolicy("lazy", lambda task_id: lazy_path(scenarios()[task_id])),
}
