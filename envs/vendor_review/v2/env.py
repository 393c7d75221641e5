"""``officegym/VendorReview-v2``: the review where a requirement's label follows from values against the bar."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ...core import Tool
from ...core.demo import Demo
from ...core.tool_env import PolicyFactory
from ..shared.deal_env import DealEnv, Deals
from .tasks import DEALS, TEST_SEEDS, generated_id
from .tools import TOOLS


class VendorReviewV2Env(DealEnv):
    """A procurement analyst checks a SaaS vendor's stated values against the buyer's pass bars.

    ## Description
    Each requirement of the 7-11 row matrix is a condition on a value: a recovery objective, a notification
    window, an availability target, a retention or deletion period, a test or rotation interval, a minimum TLS
    version (``assets/vendor_review/v2/claims.json``). The buyer's bar is drawn per deal, so the same vendor
    sentence meets one buyer's bar and misses another's. The value in force may be stated once, per deployment
    option (the order form names the buyer's), or restated later (the most recent statement counts); vendor
    promises of better values sit in the signed order form or an unsigned draft, and count as a remediation
    only when signed, dated and reaching the bar. Gaps and met rows share every surface feature: where the value
    is written, promises, rumours, vague lines and pointers come at the same rates for both.

    ## Action Space
    ``officegym.spaces.ToolCall``: ``search_docs(query)``, ``read_doc(doc_id)``, ``ask_it_channel(question)``,
    ``submit_recommendation(decision, gap_ids, rationale)``, or ``finish``.

    ## Observation Space
    ``officegym.spaces.AnyText``: the review request with the list of documents, then each tool's result or
    ``Error: ...``.

    ## Rewards
    As v1: ``0.7 reward_gaps + 0.2 reward_decision + 0.1 reward_process`` at the end, 0 before.

    ## Starting State
    ``split="test"`` (default): the 20 hand-written deals (documents, vendors and phrasing of their own) and 200
    deals from held-out seeds, written in sentence frames, nouns, value forms, vendors and buyers that no training
    deal uses: it measures reading, not memory of the training deals.
    ``split="train"``: deals of seeds ``first_seed`` to ``first_seed + deals - 1`` (all below 900,000). Drawn
    with the env's seeded RNG unless ``options={"task_id": ...}`` names one.

    ## Episode End
    A valid ``submit_recommendation`` or ``finish`` terminates; ``max_turns`` (default 24) truncates.

    ## Arguments
    ``split``, ``first_seed``, ``deals`` (train only), ``task_ids``, ``tier`` (``"easy"``, ``"medium"``,
    ``"hard"``), ``max_turns``, ``render_mode``.

    ## Examples
    >>> import gymnasium as gym, officegym
    >>> env = gym.make("officegym/VendorReview-v2", split="train", deals=1000)
    >>> obs, info = env.reset(seed=0)
    """

    TOOLS: ClassVar[tuple[Tool, ...]] = TOOLS
    DEALS: ClassVar[Deals] = DEALS
    DEMO: ClassVar[Demo] = Demo(
        generated_id(TEST_SEEDS[0]),
        ("oracle", "reader", "paranoid", "lazy", "flag_all", "fixed_go", "fixed_conditional", "fixed_no_go", "random"),
    )

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        from .baselines import BASELINES

        return BASELINES
