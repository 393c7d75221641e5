"""``officegym/VendorReview-v0``: the Gymnasium face of the vendor-review domain."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar

from ..core import Grade, Tool, ToolEnv
from ..core.selection import select_task_ids
from .episode import VendorEpisode
from .grading import grade_review
from .progress import vendor_progress
from .scenario import TIERS, Scenario, assets_dir, load_all_scenarios
from .search import DocumentIndex
from .tools import TOOLS

DEFAULT_MAX_TURNS = 20


@cache
def system_prompt_text() -> str:
    return (assets_dir() / "system_prompt.md").read_text(encoding="utf-8")


@cache
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_all_scenarios()}


@cache
def document_index(scenario_id: str) -> DocumentIndex:
    return DocumentIndex.build(scenarios()[scenario_id].documents)


def opening_message(scenario: Scenario) -> str:
    """The review request, followed by the list of documents in the deal file (IDs for ``read_doc``)."""
    listing = "\n".join(f"- {d.id}: {d.title}" for d in scenario.documents)
    return f"{scenario.request}\n\nDocuments in this deal file:\n{listing}"


class VendorReviewEnv(ToolEnv[VendorEpisode]):
    """A procurement analyst audits a SaaS vendor's documents against the buyer's requirements matrix.

    ## Description
    Each episode is one hand-written vendor deal: a requirements matrix (IDs, MUST/SHOULD, pass bars) and a
    deal file (security questionnaire, SOC 2 excerpt, internal IT thread, and sometimes an order form, DPA,
    admin guide, ...). Vendor prose hedges, presents roadmap as capability and contradicts itself across
    documents; some requirements that look unmet are satisfied somewhere in the file. The agent searches and
    reads the documents, may ask the internal IT channel, and submits go / conditional-go / no-go with the ID
    of every unmet requirement.

    ## Action Space
    ``officegym.spaces.ToolCall``: one of ``search_docs(query)``, ``read_doc(doc_id)``,
    ``ask_it_channel(question)``, ``submit_recommendation(decision, gap_ids, rationale)``, or ``finish``.

    ## Observation Space
    ``officegym.spaces.AnyText``: the review request with the list of documents after ``reset``; then each
    tool's result, or a text starting with ``Error: `` that changed nothing.

    ## Rewards
    0 until the episode ends, then ``0.7 reward_gaps + 0.2 reward_decision + 0.1 reward_process``:
    ``reward_gaps = max(0, (hits - 0.5 false_flags) / planted)`` (zero-gap deals ``max(0, 1 - 0.5 false_flags)``),
    ``reward_decision`` exact match, ``reward_process`` 1.0 if every core document was read before submitting.
    No submission scores 0. ``info["grade"]`` adds ``submitted``, ``hits``, ``missed``, ``false_flags``,
    ``core_docs_read``, ``searches``, ``questions``, ``tool_calls``, ``invalid_calls``, ``turns``.

    ## Starting State
    One of the 20 scenarios (6 easy, 9 medium, 5 hard), drawn with the env's seeded RNG from the selected ones
    unless ``options={"task_id": "vr-hard-03"}`` names one.

    ## Episode End
    - Termination: a valid ``submit_recommendation`` (malformed ones are ``Error:`` and the review goes on),
      or ``finish`` (scores 0: nothing was submitted).
    - Truncation: ``max_turns`` steps (default 20), graded like ``finish`` unless a submission was made.

    ## Arguments
    ``task_ids`` (scenario IDs), ``tier`` (``"easy"``, ``"medium"``, ``"hard"``), ``max_turns``, ``render_mode``
    (``"ansi"`` or ``"human"``).

    ## Examples
    >>> import gymnasium as gym, officegym
    >>> env = gym.make("officegym/VendorReview-v0", tier="hard")
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step({"name": "read_doc",
    ...                                                      "arguments": {"doc_id": "requirements-matrix"}})
    >>> envs = gym.make_vec("officegym/VendorReview-v0", num_envs=4, vectorization_mode="async",
    ...                     vector_kwargs={"shared_memory": False})
    """

    TOOLS: ClassVar[tuple[Tool, ...]] = TOOLS

    def __init__(self, task_ids: Sequence[str] | None = None, tier: str | None = None,
                 max_turns: int = DEFAULT_MAX_TURNS, render_mode: str | None = None) -> None:
        self.task_list = select_scenarios(task_ids, tier)
        super().__init__(max_turns=max_turns, render_mode=render_mode)

    def _task_ids(self) -> Sequence[str]:
        return self.task_list

    def system_prompt(self) -> str:
        return system_prompt_text()

    def _start_episode(self, task_id: str) -> tuple[VendorEpisode, str, dict[str, Any]]:
        scenario = scenarios()[task_id]
        episode = VendorEpisode(scenario, document_index(task_id))
        return episode, opening_message(scenario), {"tier": scenario.tier}

    def _grade_episode(self, ctx: VendorEpisode) -> Grade:
        grade = grade_review(ctx)
        return Grade(grade.reward, grade.components, {**grade.diagnostics, **self.stats.as_diagnostics()})

    def progress(self) -> dict[str, float]:
        """Progress of the current episode, computed from the episode state (see ``progress.py``): the grade's
        components as they stand now plus the process counters, for diagnostics and reward shaping. Reading
        it changes nothing."""
        if self._ctx is None:
            raise RuntimeError("progress() needs an episode: call reset() first")
        return vendor_progress(self._ctx, self.stats)

    def scenario(self, task_id: str) -> Scenario:
        return scenarios()[task_id]

    def gold_actions(self, task_id: str) -> list[dict[str, Any]]:
        """Read every core document, then submit the authored answer."""
        scenario = scenarios()[task_id]
        return review_path(scenario, list(scenario.gap_ids), scenario.decision, scenario.core_documents)


def review_path(scenario: Scenario, gap_ids: list[str], decision: str, read: Sequence[str]) -> list[dict[str, Any]]:
    """Read the given documents in order, then submit ``decision`` with ``gap_ids``."""
    rationale = "; ".join(f"{f.id}: {f.explanation}" for f in scenario.planted_gaps if f.id in gap_ids) or \
        "Every requirement of the matrix is met by the current file."
    reads = [{"name": "read_doc", "arguments": {"doc_id": doc_id}} for doc_id in read]
    return [*reads, {"name": "submit_recommendation",
                     "arguments": {"decision": decision, "gap_ids": sorted(gap_ids), "rationale": rationale[:4000]}}]


def paranoid_path(scenario: Scenario) -> list[dict[str, Any]]:
    """Reads the core documents, flags every planted gap and every distractor, and keeps the right decision:
    it measures what over-flagging alone costs (``reward_gaps`` loses half a find per distractor)."""
    flagged = sorted({*scenario.gap_ids, *(d.id for d in scenario.distractors)})
    return review_path(scenario, flagged, scenario.decision, scenario.core_documents)


def lazy_path(scenario: Scenario) -> list[dict[str, Any]]:
    """Reads only the requirements matrix and says go."""
    matrix = next(d.id for d in scenario.documents if d.kind == "requirements_matrix")
    return [{"name": "read_doc", "arguments": {"doc_id": matrix}},
            {"name": "submit_recommendation", "arguments": {"decision": "go", "gap_ids": [],
                                                             "rationale": "The matrix looks standard."}}]


def select_scenarios(task_ids: Sequence[str] | None, tier: str | None) -> list[str]:
    """The selected scenario IDs in ID order (or the given order)."""
    tiers = {scenario_id: scenario.tier for scenario_id, scenario in scenarios().items()}
    return select_task_ids(tiers, task_ids, tier, TIERS, "scenario", "'vr-easy-01'")
