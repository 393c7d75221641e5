"""``officegym/VendorReview-v1``: v0's review on larger deals, with generated training deals."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from ...core import Action, Grade, Tool, ToolEnv, arguments
from ...core.catalogue import Catalogue
from ...core.demo import Demo
from ...core.selection import select_task_ids
from ...core.tool_env import PolicyFactory
from ..env import opening_message
from ..episode import VendorEpisode
from ..grading import failure_report, grade_review
from ..progress import vendor_potential, vendor_progress
from ..scenario import ID_PATTERNS, TIERS, Scenario
from .deals import (
    TEST_SEED_START,
    TEST_SEEDS,
    document_index,
    generated_id,
    scenario_of,
    system_prompt_text,
    test_task_ids,
    tier_of,
    train_task_ids,
)
from .tools import TOOLS

DEFAULT_MAX_TURNS: Final = 24
SPLITS: Final = ("test", "train")
MAX_TRAIN_DEALS: Final = 100_000
TRAIN_SOURCE_DEALS: Final = 200
"""Deals per training source of ``split_sources`` (source k starts at seed k * 200)."""


class VendorReviewV1Env(ToolEnv[VendorEpisode]):
    """A procurement analyst audits a SaaS vendor's documents against a 13-15 row requirements matrix.

    ## Description
    As VendorReview-v0, on larger deals: 13-15 requirements (MUST or SHOULD, each with the buyer's pass bar),
    0-5 of them unmet, and a deal file of 6-11 documents. Requirements can be met plainly or only in another
    document (an administration guide, the SOC 2 report, the DPA, a later update), or met beside a dated
    promise for an extra; unmet ones are hidden by silence, hedges or contradictions between documents, some
    with a signed, dated remediation commitment in the order form and some with a promise in an unsigned
    draft, which does not count. Colleagues raise rumours about met and unmet requirements alike.

    ## Action Space
    ``officegym.spaces.ToolCall``: ``search_docs(query)``, ``read_doc(doc_id)``, ``ask_it_channel(question)``,
    ``submit_recommendation(decision, gap_ids, rationale)``, or ``finish``.

    ## Observation Space
    ``officegym.spaces.AnyText``: the review request with the list of documents, then each tool's result or
    ``Error: ...``.

    ## Rewards
    As v0: ``0.7 reward_gaps + 0.2 reward_decision + 0.1 reward_process`` at the end, 0 before; the process
    component needs every document but the IT thread read before submitting.

    ## Starting State
    ``split="test"`` (default): the hand-written v1 deals and 20 generated deals from held-out seeds.
    ``split="train"``: generated deals of seeds ``first_seed`` to ``first_seed + deals - 1`` (all below
    900,000). Drawn with the env's seeded RNG unless ``options={"task_id": ...}`` names one.

    ## Episode End
    A valid ``submit_recommendation`` or ``finish`` terminates; ``max_turns`` (default 24) truncates.

    ## Arguments
    ``split``, ``first_seed``, ``deals`` (train only), ``task_ids``, ``tier`` (``"easy"``, ``"medium"``,
    ``"hard"``), ``max_turns``, ``render_mode``.

    ## Examples
    >>> import gymnasium as gym, officegym
    >>> env = gym.make("officegym/VendorReview-v1", split="train", deals=1000)
    >>> obs, info = env.reset(seed=0)
    """

    TOOLS: ClassVar[tuple[Tool, ...]] = TOOLS
    TIERS: ClassVar[tuple[str, ...]] = TIERS
    DEMO: ClassVar[Demo] = Demo(
        generated_id(TEST_SEEDS[0]),
        (
            "oracle",
            "paranoid",
            "lazy",
            "negation",
            "flag_all",
            "search_hits",
            "dated_promises",
            "fixed_go",
            "fixed_conditional",
            "fixed_no_go",
            "random",
        ),
    )
    ID_PATTERNS: ClassVar[Mapping[str, re.Pattern[str]]] = ID_PATTERNS

    def __init__(
        self,
        split: str = "test",
        first_seed: int = 0,
        deals: int = 1000,
        task_ids: Sequence[str] | None = None,
        tier: str | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        render_mode: str | None = None,
        **unknown: Any,
    ) -> None:
        names = ("split", "first_seed", "deals", "task_ids", "tier", "max_turns", "render_mode")
        arguments.unknown_arguments(type(self).__name__, unknown, names)
        candidates = _split_ids(split, first_seed, deals)
        tiers = {task_id: tier_of(task_id) for task_id in candidates}
        self._selected = select_task_ids(tiers, task_ids, tier, TIERS, "deal", "'vr1-gen-900000'")
        super().__init__(max_turns=max_turns, render_mode=render_mode)

    def _task_ids(self) -> Sequence[str]:
        return self._selected

    def task_tier(self, task_id: str) -> str:
        return tier_of(task_id)

    def system_prompt(self) -> str:
        return system_prompt_text()

    def scenario(self, task_id: str) -> Scenario:
        return scenario_of(task_id)

    def _start_episode(self, task_id: str) -> tuple[VendorEpisode, str, dict[str, Any]]:
        scenario = scenario_of(task_id)
        return VendorEpisode(scenario, document_index(task_id)), opening_message(scenario), {"tier": scenario.tier}

    def _grade_episode(self, ctx: VendorEpisode) -> Grade:
        grade = grade_review(ctx)
        return Grade(grade.reward, grade.components, {**grade.diagnostics, **self.stats.as_diagnostics()})

    def progress(self) -> dict[str, float]:
        """The grade's components as they stand now plus the process counters (v0's ``progress.py``)."""
        if self._ctx is None:
            raise RuntimeError("progress() needs an episode: call reset() first")
        return vendor_progress(self._ctx, self.stats)

    def _save_episode(self, ctx: VendorEpisode) -> dict[str, Any]:
        return {
            "scenario": ctx.scenario.id,
            "docs_read": list(ctx.docs_read),
            "searches": ctx.searches,
            "questions": ctx.questions,
            "submission": copy.deepcopy(ctx.submission),
        }

    def _load_episode(self, state: dict[str, Any]) -> VendorEpisode:
        deal_id = state["scenario"]
        return VendorEpisode(
            scenario_of(deal_id),
            document_index(deal_id),
            dict.fromkeys(state["docs_read"]),
            state["searches"],
            state["questions"],
            copy.deepcopy(state["submission"]),
        )

    def gold_actions(self, task_id: str) -> list[Action]:
        """Read every document but the thread, then submit the answer key."""
        from ..baselines import gold_path

        return gold_path(scenario_of(task_id))

    def failure_report(self) -> list[dict[str, Any]]:
        if self._ctx is None:
            raise RuntimeError("failure_report() needs an episode: call reset() first")
        return failure_report(self._ctx)

    def shaping_potential(self, measures: Mapping[str, float]) -> float:
        return vendor_potential(measures)

    def action_catalogue(self, horizon: int) -> Catalogue:
        from ..catalogue import VendorCatalogue

        return VendorCatalogue(scenario_of, horizon=horizon)

    @classmethod
    def split_sources(cls, split: str, count: int) -> list[dict[str, Any]]:
        """Train on generated deals (sources of 200 seeds each); evaluate on the test split (hand-written deals
        and held-out seeds), which no training source reaches."""
        if split == "train":
            last = min(count, TEST_SEED_START // TRAIN_SOURCE_DEALS)
            return [
                {"split": "train", "first_seed": k * TRAIN_SOURCE_DEALS, "deals": TRAIN_SOURCE_DEALS}
                for k in range(last)
            ]
        return super().split_sources(split, count)

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        from .baselines import BASELINES

        return BASELINES


def _split_ids(split: Any, first_seed: Any, deals: Any) -> list[str]:
    """The candidate task ids of a split, with one-line errors that name the fix."""
    if split not in SPLITS:
        raise arguments.ArgumentError(f"split must be 'test' or 'train', got {split!r}")
    if split == "test":
        return test_task_ids()
    deals = arguments.whole_number("deals", deals, minimum=1, maximum=MAX_TRAIN_DEALS, example=1000)
    first_seed = arguments.whole_number("first_seed", first_seed, minimum=0, maximum=TEST_SEED_START - 1, example=0)
    if first_seed + deals > TEST_SEED_START:
        raise arguments.ArgumentError(
            f"first_seed + deals must stay below {TEST_SEED_START:,} (held-out seeds), got {first_seed + deals:,}"
        )
    return train_task_ids(first_seed, deals)
