"""``officegym/InvoiceApproval-v0``: the Gymnasium face of the accounts-payable domain."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, ClassVar

from ...core import Tool
from ...core.assets import asset_path, read_text
from ...core.catalogue import Catalogue
from ...core.demo import Demo
from ...core.tool_env import PolicyFactory
from ..shared.book_changes import BookDelta, book_delta
from ..shared.connections import open_books
from ..shared.db import CANONICAL_SEED
from ..shared.entities import ID_PATTERNS
from ..shared.env_base import InvoiceToolEnv
from ..shared.progress import invoice_potential
from ..shared.tasks import TIERS, Task
from .bundle import Bundle, load_bundle
from .episode import InvoiceEpisode
from .grading import BookState, failure_report
from .read_model import RecordView
from .sandbox import open_episode
from .tools import TOOLS

DEFAULT_MAX_TURNS = 200


@cache
def policy_text() -> str:
    return read_text(asset_path("invoice_approval", "v0", "policy.md"))


class InvoiceApprovalEnv(InvoiceToolEnv[InvoiceEpisode]):
    """A German accounts-payable clerk decides supplier invoices against a one-page policy.

    ## Description
    Alpenwerk Maschinenbau GmbH, a fictional Munich machine builder, receives supplier invoices. Each episode
    is one work order: a list of received invoices to decide, acting as a named approver. The agent reads
    the books with tools (invoices, suppliers, purchase orders, approvers) and decides each invoice:
    approve, reject or hold with a reason code, or escalate to another approver. The policy (the system
    prompt, ``info["system_prompt"]``) fixes the rules: blocked suppliers, duplicates, purchase orders and
    their budgets, VAT to the cent, approval limits and escalation. Every episode gets a private in-memory
    copy of the company's SQLite books.

    ## Action Space
    ``officegym.spaces.ToolCall``: one tool call ``{"name": str, "arguments": dict}`` (or its JSON text).
    Tools: list_invoices, get_invoice, search_suppliers, get_supplier, get_purchase_order, list_approvers,
    whoami, approve_invoice, reject_invoice, hold_invoice, escalate_invoice; plus the reserved ``finish``.
    ``info["tools"]`` has their OpenAI function schemas (``finish`` is not among them).

    ## Observation Space
    ``officegym.spaces.AnyText``: after ``reset`` the work order; after each step the tool's result (JSON
    text for reads, a confirmation for writes), or a text starting with ``Error: `` that changed nothing.

    ## Rewards
    0 on every step but the last. The last step carries the grade: 1.0 if the final books equal the books
    the reference solver leaves (status, reason code and assignee of every invoice, PO invoiced amounts and
    status, the ledger as a multiset), else 0.0. ``info["grade"]`` holds ``state_matches`` and diagnostics:
    ``scope_correct``, ``collateral_changes``, ``po_mismatches``, ``ledger_mismatches``, ``tool_calls``,
    ``invalid_calls``, ``turns``.

    ## Starting State
    The canonical company (seed 42: 60 suppliers, 150 POs, 200 invoices) with one of the selected tasks,
    drawn with the env's seeded RNG unless ``options={"task_id": ...}`` names one.

    ## Episode End
    - Termination: the ``finish`` action.
    - Truncation: ``max_turns`` steps (default 200; at least the longest selected gold path).
    Both are graded on the final state. Stepping after the end returns an ``Error:`` text.

    ## Arguments
    - ``task_ids``: tasks to draw from (default: all, or all of ``tier``).
    - ``tier``: ``"single"``, ``"batch"``, ``"long"`` or ``"hard"``.
    - ``max_turns``: truncation limit (default 200).
    - ``render_mode``: ``"ansi"`` or ``"human"``.
    - ``company_seed``: 42 for the shipped company; any other seed generates a company and fresh tasks.
    - ``tasks_path``: a JSONL task file made for the selected company.
    - ``company_scale``: 1 to 100 (default 1): suppliers, POs and invoices times this factor; any scale but 1
      generates the company, also for seed 42.

    ## Examples
    >>> import gymnasium as gym, officegym
    >>> env = gym.make("officegym/InvoiceApproval-v0", tier="single")
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step({"name": "whoami", "arguments": {}})
    >>> envs = gym.make_vec("officegym/InvoiceApproval-v0", num_envs=4, vectorization_mode="sync")
    """

    TOOLS: ClassVar[tuple[Tool, ...]] = TOOLS
    TIERS: ClassVar[tuple[str, ...]] = TIERS
    DEMO: ClassVar[Demo] = Demo("batch-3", ("solver", "oracle", "random"))
    ID_PATTERNS: ClassVar[Mapping[str, re.Pattern[str]]] = ID_PATTERNS
    TASK_EXAMPLES: ClassVar[str] = "'single-1', 'batch-3', 'long-2', 'hard-10'"
    BOOKS_SCHEMA: ClassVar[str] = "invoice_approval-v0"
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

    def _open_episode(self, task: Task, books: sqlite3.Connection, actor: dict[str, Any] | None) -> InvoiceEpisode:
        return open_episode(self.bundle.template, task.actor, task.id, books, self.bundle.records, actor)

    def _load_episode(self, state: dict[str, Any]) -> InvoiceEpisode:
        """The books from their bytes in a new connection; records served from the company's shared snapshot
        plus whatever the episode's change log names (never a snapshot of the copy: that would cost a full
        read of the books and grow the per-company cache with every fork)."""
        conn = open_books(state["books"], self.BOOKS_SCHEMA)
        view = RecordView(conn, self.bundle.records).fork(conn)
        return InvoiceEpisode(conn, dict(state["actor"]), state["task_id"], view)

    def _book_delta(self, conn: sqlite3.Connection) -> BookDelta:
        return book_delta(conn)

    def _report(self, final: BookState, gold: BookState, scope: Sequence[str]) -> list[dict[str, Any]]:
        return failure_report(final, gold, scope)

    def shaping_potential(self, measures: Mapping[str, float]) -> float:
        return invoice_potential(measures)

    def action_catalogue(self, horizon: int) -> Catalogue:
        from .catalogue import InvoiceCatalogue

        return InvoiceCatalogue(self, horizon=horizon)

    @classmethod
    def split_sources(cls, split: str, count: int) -> list[dict[str, Any]]:
        """Train on companies generated from other seeds that share nothing memorable with the shipped company;
        evaluate on the shipped one (``splits.py``)."""
        if split == "train":
            from .splits import train_company_seeds

            return [{"company_seed": seed} for seed in train_company_seeds(count)]
        return super().split_sources(split, count)

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        from .baselines import BASELINES

        return BASELINES
