"""``officegym/VendorReview-v1``: v0's review on larger deals, with generated training deals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ...core import Tool
from ...core.demo import Demo
from ...core.tool_env import PolicyFactory
from ..shared.deal_env import DealEnv, Deals
from .tasks import DEALS, TEST_SEEDS, generated_id
from .tools import TOOLS


class VendorReviewV1Env(DealEnv):
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
    DEALS: ClassVar[Deals] = DEALS
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

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        from .baselines import BASELINES

        return BASELINES
