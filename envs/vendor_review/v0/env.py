"""``officegym/VendorReview-v0``: the Gymnasium face of the vendor-review domain."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...core import Action, Grade, Tool, ToolEnv, arguments
from ...core.catalogue import Catalogue
from ...core.demo import Demo
from ...core.selection import select_task_ids
from ...core.tool_env import PolicyFactory
from ..shared.env import opening_message
from ..shared.episode import VendorEpisode
from ..shared.progress import vendor_potential, vendor_progress
from ..shared.scenario import ID_PATTERNS, TIERS, Scenario
from .grading import failure_report, grade_review
from .tasks import document_index, scenarios, system_prompt_text
from .tools import TOOLS

DEFAULT_MAX_TURNS = 20


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
    TIERS: ClassVar[tuple[str, ...]] = TIERS
    DEMO: ClassVar[Demo] = Demo("vr-hard-01", ("oracle", "paranoid", "lazy", "random"))
    ID_PATTERNS: ClassVar[Mapping[str, re.Pattern[str]]] = ID_PATTERNS

    def __init__(
        self,
        task_ids: Sequence[str] | None = None,
        tier: str | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        render_mode: str | None = None,
        **unknown: Any,
    ) -> None:
        arguments.unknown_arguments(type(self).__name__, unknown, ("task_ids", "tier", "max_turns", "render_mode"))
        tiers = {scenario_id: scenario.tier for scenario_id, scenario in scenarios().items()}
        self._selected = select_task_ids(tiers, task_ids, tier, TIERS, "scenario", "'vr-easy-01'")
        super().__init__(max_turns=max_turns, render_mode=render_mode)

    def _task_ids(self) -> Sequence[str]:
        return self._selected

    def task_tier(self, task_id: str) -> str:
        return scenarios()[task_id].tier

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
        """Progress of the current episode, computed from the episode state (see ``shared/progress.py``): the grade's
        components as they stand now plus the process counters, for diagnostics and reward shaping. Reading
        it changes nothing."""
        if self._ctx is None:
            raise RuntimeError("progress() needs an episode: call reset() first")
        return vendor_progress(self._ctx, self.stats)

    def scenario(self, task_id: str) -> Scenario:
        return scenarios()[task_id]

    def _save_episode(self, ctx: VendorEpisode) -> dict[str, Any]:
        return ctx.saved()

    def _load_episode(self, state: dict[str, Any]) -> VendorEpisode:
        return VendorEpisode.restored(state, lambda deal_id: scenarios()[deal_id], document_index)

    def gold_actions(self, task_id: str) -> list[Action]:
        """Read every core document, then submit the authored answer."""
        from ..shared.baselines import gold_path

        return gold_path(scenarios()[task_id])

    def failure_report(self) -> list[dict[str, Any]]:
        if self._ctx is None:
            raise RuntimeError("failure_report() needs an episode: call reset() first")
        return failure_report(self._ctx)

    def shaping_potential(self, measures: Mapping[str, float]) -> float:
        return vendor_potential(measures)

    def action_catalogue(self, horizon: int) -> Catalogue:
        from .catalogue import VendorCatalogue

        return VendorCatalogue(self.scenario, horizon=horizon)

    @classmethod
    def split_sources(cls, split: str, count: int) -> list[dict[str, Any]]:
        """The 20 hand-written deals are for evaluation only: there is no generator of training deals yet."""
        if split == "train":
            raise arguments.ArgumentError(
                "VendorReview's 20 hand-written deals are for evaluation only: there is no generator of training "
                "deals yet, and training on the deals it is evaluated on would measure memory; use split='test'"
            )
        return super().split_sources(split, count)

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        from .baselines import BASELINES

        return BASELINES
