"""``officegym/InvoiceApproval-v2``: v1's accounts-payable clerk with listers that cannot skip and captures that
validate."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

from ...core import Tool
from ...core.assets import asset_path, read_text
from ...core.catalogue import Catalogue
from ...core.demo import Demo
from ...core.tool_env import PolicyFactory
from ..v1.env import InvoiceApprovalV1Env
from .bundle import load_bundle
from .tools import TOOLS


@cache
def policy_text() -> str:
    return read_text(asset_path("invoice_approval", "v2", "policy.md"))


class InvoiceApprovalV2Env(InvoiceApprovalV1Env):
    """A German accounts-payable clerk decides supplier invoices and credit notes against a written policy.

    ## Description
    Alpenwerk Maschinenbau GmbH (Munich) receives documents from German and EU suppliers. Each episode is one
    work order: a list of documents, or an inbox to clear, decided as a named approver. Reverse charge and
    intra-EU acquisitions, credit notes matched to the invoices they correct, goods receipts and a three-way
    match, documents that the books captured wrongly or not at all (the document wins; the agent fixes the
    capture), paged listings, and internal IDs that follow capture, not arrival. The tools apply no policy.
    Every episode gets a private in-memory copy of the company's SQLite books. The company, work orders, rules
    and grading are InvoiceApproval-v1's; two v1 findings are fixed. A listing's ``next_cursor`` is refused
    once a decision moved documents into or out of that listing (v1 paged on and skipped them): list again
    from the first page. ``capture_invoice`` takes invoice dates only as ``YYYY-MM-DD`` within the window the
    policy states (not after the document's received date, at most 366 days before it), PO numbers only as
    10 digits starting with 45 (or empty), and numbers only as printed text; anything else is an ``Error:``
    that writes nothing. Use v2 for new work; v1 stays as released, for results already reported on it.

    ## Action Space
    ``officegym.spaces.ToolCall``: one tool call ``{"name": str, "arguments": dict}``. Tools: list_invoices,
    get_invoice, get_document, capture_invoice, search_suppliers, get_supplier, get_purchase_order,
    list_goods_receipts, list_approvers, whoami, approve_invoice, reject_invoice, hold_invoice,
    escalate_invoice; plus the reserved ``finish``.

    ## Observation Space
    ``officegym.spaces.AnyText``: the work order, then each tool's result (JSON, a document's text, a
    confirmation) or a text starting with ``Error: `` that changed nothing.

    ## Rewards
    As v1: 0 until the last step; then 1.0 if the final books equal the reference solver's, else 0.0.

    ## Starting State
    The shipped company (seed 42, v1's) with one of the selected tasks (or ``options={"task_id": ...}``).

    ## Episode End
    ``finish`` terminates; ``max_turns`` (default 600) truncates. Both are graded.

    ## Arguments
    As v1: ``task_ids``, ``tier`` ("single", "batch", "long", "hard"), ``max_turns``, ``render_mode``,
    ``company_seed``, ``tasks_path``, ``company_scale``.

    ## Examples
    >>> import gymnasium as gym, officegym
    >>> env = gym.make("officegym/InvoiceApproval-v2", tier="single")
    >>> obs, info = env.reset(seed=0)
    >>> vec = gym.make_vec("officegym/InvoiceApproval-v2", num_envs=2, vectorization_mode="sync")
    """

    TOOLS: ClassVar[tuple[Tool, ...]] = TOOLS
    DEMO: ClassVar[Demo] = Demo("batch-1", ("solver_v2", "oracle", "random"))
    load_company = staticmethod(load_bundle)

    def system_prompt(self) -> str:
        return policy_text()

    def action_catalogue(self, horizon: int) -> Catalogue:
        """v1's slot catalogue, restarting a listing whose cursor v2 refused (``catalogue.py``; long and hard
        tasks need ``InvoiceCatalogueV2(env, slots=28)``)."""
        from .catalogue import InvoiceCatalogueV2

        return InvoiceCatalogueV2(self, horizon=horizon)

    @classmethod
    def split_sources(cls, split: str, count: int) -> list[dict[str, Any]]:
        """Train on generated companies that share nothing memorable with the shipped one (v1's train companies,
        ``splits.py``), evaluate on the shipped one."""
        if split == "train":
            from .splits import train_company_seeds

            return [{"company_seed": seed} for seed in train_company_seeds(count)]
        return super(InvoiceApprovalV1Env, cls).split_sources(split, count)

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        from .baselines import BASELINES

        return BASELINES
