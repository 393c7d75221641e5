"""``officegym/InvoiceApproval-v1``: the Gymnasium face of the v1 accounts-payable domain."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, ClassVar, Final

from ...core import Tool
from ...core.assets import asset_path, read_text
from ...core.catalogue import Catalogue
from ...core.demo import Demo
from ...core.tool_env import PolicyFactory
from ..shared.book_changes import BookDelta
from ..shared.connections import open_books
from ..shared.env_base import InvoiceToolEnv
from ..shared.tasks import TIERS, Task
from .bundle import Bundle, load_bundle
from .db import CANONICAL_SEED
from .episode import V1Episode
from .grading import BookState, book_delta, failure_report
from .progress import potential
from .sandbox import open_episode
from .tools import TOOLS

DEFAULT_MAX_TURNS = 600
ID_PATTERNS: Final = {
    "invoice_id": re.compile(r"ER-\d{4}-\d{5}"),
    "supplier_id": re.compile(r"K-\d{5}"),
    "po_number": re.compile(r"\b45\d{8}\b"),
    "approver_id": re.compile(r"AP-\d{3}"),
    "inbox": re.compile(r"PE-\d{3}"),
}


@cache
def policy_text() -> str:
    return read_text(asset_path("invoice_approval", "v1", "policy.md"))


class InvoiceApprovalV1Env(InvoiceToolEnv[V1Episode]):
    """A German accounts-payable clerk decides supplier invoices and credit notes against a written policy.

    ## Description
    Alpenwerk Maschinenbau GmbH (Munich) receives documents from German and EU suppliers. Each episode is one
    work order: a list of documents, or an inbox to clear, decided as a named approver. Beyond v0: reverse
    charge and intra-EU acquisitions, credit notes matched to the invoices they correct, goods receipts and a
    three-way match, documents that the books captured wrongly or not at all (the document wins; the agent
    fixes the capture), paged listings, and internal IDs that follow capture, not arrival. The tools apply no
    policy. Every episode gets a private in-memory copy of the company's SQLite books.

    ## Action Space
    ``officegym.spaces.ToolCall``: one tool call ``{"name": str, "arguments": dict}``. Tools: list_invoices,
    get_invoice, get_document, capture_invoice, search_suppliers, get_supplier, get_purchase_order,
    list_goods_receipts, list_approvers, whoami, approve_invoice, reject_invoice, hold_invoice,
    escalate_invoice; plus the reserved ``finish``.

    ## Observation Space
    ``officegym.spaces.AnyText``: the work order, then each tool's result (JSON, a document's text, a
    confirmation) or a text starting with ``Error: `` that changed nothing.

    ## Rewards
    0 until the last step; then 1.0 if the final books equal the reference solver's (status, reason code,
    assignee, captured fields and credited amount of every document; PO invoiced nets, status and line
    quantities; the ledger as a multiset), else 0.0. Diagnostics in ``info["grade"]``.

    ## Starting State
    The shipped company (seed 42) with one of the selected tasks (or ``options={"task_id": ...}``).

    ## Episode End
    ``finish`` terminates; ``max_turns`` (default 600) truncates. Both are graded.

    ## Arguments
    ``task_ids``, ``tier`` ("single", "batch", "long", "hard"), ``max_turns``, ``render_mode``,
    ``company_seed`` (42 is shipped; others are generated with fresh tasks), ``tasks_path``, ``company_scale``
    (1-100: suppliers, POs, receipts and documents times this factor; any scale but 1 is generated).

    ## Examples
    >>> import gymnasium as gym, officegym
    >>> env = gym.make("officegym/InvoiceApproval-v1", tier="single")
    >>> obs, info = env.reset(seed=0)
    """

    TOOLS: ClassVar[tuple[Tool, ...]] = TOOLS
    TIERS: ClassVar[tuple[str, ...]] = TIERS
    DEMO: ClassVar[Demo] = Demo("batch-1", ("solver_v1", "oracle", "random"))
    ID_PATTERNS: ClassVar[Mapping[str, re.Pattern[str]]] = ID_PATTERNS
    TASK_EXAMPLES: ClassVar[str] = "'single-1', 'batch-3', 'long-2'"
    BOOKS_SCHEMA: ClassVar[str] = "invoice_approval-v1"
    load_company = staticmethod(load_bundle)

    def __init__(
        self,
        task_ids: Sequence[str] | None = None,
        tier: str | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        render_mode: str | None = None,
        company_seed: int = CANONICAL_SEED,
        tasks_path: str | None = None,
        company_scale: int = 1,
        **unknown: Any,
    ) -> None:
        self.bundle: Bundle = self._open_company(
            task_ids, tier, max_turns, render_mode, company_seed, tasks_path, company_scale, unknown
        )

    def system_prompt(self) -> str:
        return policy_text()

    def _open_episode(self, task: Task, books: sqlite3.Connection, actor: dict[str, Any] | None) -> V1Episode:
        episode = open_episode(self.bundle.template, task.actor, task.id, books, actor)
        episode.documents = self.bundle.documents  # parsed and rendered once per company, not per call
        return episode

    def _load_episode(self, state: dict[str, Any]) -> V1Episode:
        books = open_books(state["books"], self.BOOKS_SCHEMA)
        return V1Episode(books, dict(state["actor"]), state["task_id"], documents=self.bundle.documents)

    def _book_delta(self, conn: sqlite3.Connection) -> BookDelta:
        return book_delta(conn)

    def _report(self, final: BookState, gold: BookState, scope: Sequence[str]) -> list[dict[str, Any]]:
        return failure_report(final, gold, scope)

    def shaping_potential(self, measures: Mapping[str, float]) -> float:
        return potential(measures)

    def action_catalogue(self, horizon: int) -> Catalogue:
        """The slot-based catalogue of ``catalogue.py`` (10 slots: single and batch tasks; long and hard tasks
        need ``InvoiceCatalogueV1(env, slots=28)``)."""
        from .catalogue import InvoiceCatalogueV1

        return InvoiceCatalogueV1(self, horizon=horizon)

    @classmethod
    def split_sources(cls, split: str, count: int) -> list[dict[str, Any]]:
        """Train on generated companies that share nothing memorable with the shipped one (``splits.py``),
        evaluate on the shipped one."""
        if split == "train":
            from .splits import train_company_seeds

            return [{"company_seed": seed} for seed in train_company_seeds(count)]
        return super().split_sources(split, count)

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        from .baselines import BASELINES

        return BASELINES
