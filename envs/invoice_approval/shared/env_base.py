"""What the envs of every InvoiceApproval version do alike, so that each version's env holds only what is its own.

Both versions run each episode on a private copy of a company's books, grade by comparing the final books with
the gold books (``grading.compare``) and measure progress with the grader itself (``progress.py``). A version
says how it opens and loads an episode, how it reads its change logs (``_book_delta``) and how its failure
report words the books (``_report``); its constructor checks its arguments with ``env_arguments.py``.
"""

from __future__ import annotations

import sqlite3
from abc import abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, ClassVar, Protocol, TypeVar

from ...core import Action, Grade, Tool, ToolEnv
from .book_changes import BookDelta, graded_states
from .connections import give_back, take_spare
from .db import CANONICAL_SEED
from .env_arguments import check_arguments, select_tasks
from .episode import Books, committed_bytes, restart_books, savepoint
from .grading import GradedBooks, compare
from .progress import InvoiceProgress
from .tasks import Task

E = TypeVar("E", bound=Books)
GradedStates = tuple[GradedBooks, GradedBooks, Sequence[str]]


class Company(Protocol):
    """What these methods need of a version's bundle: its tasks by ID, the template's graded books and each
    task's gold delta (``book_changes.GoldDeltas``)."""

    @property
    def tasks(self) -> dict[str, Task]: ...

    @property
    def template_state(self) -> Any: ...

    @property
    def template(self) -> bytes: ...

    def gold_delta(self, task_id: str) -> BookDelta: ...


class InvoiceToolEnv(ToolEnv[E]):
    """The version-independent part of an InvoiceApproval env (see the module docstring)."""

    bundle: Company
    _selected: list[str]
    _progress: InvoiceProgress | None = None  # built on the first progress() of an episode

    @abstractmethod
    def _open_episode(self, task: Task, books: sqlite3.Connection, actor: dict[str, Any] | None) -> E:
        """The version's episode on ``books`` (already the template, under the episode's transaction), acting
        as ``task.actor`` (``actor``: that approver's row as an earlier episode read it, or None)."""

    def _start_episode(self, task_id: str) -> tuple[E, str, dict[str, Any]]:
        """The books back to the template (``restart_books``: a rollback of the last episode where it can), the
        acting approver's row read once per env, and the task's work order."""
        task = self.bundle.tasks[task_id]
        spare = take_spare(self.BOOKS_SCHEMA) if self._ctx is None else None
        episode = self._open_episode(
            task, restart_books(self.bundle.template, self._ctx, spare), self._actors.get(task.actor)
        )
        episode.base = self.bundle.template  # its books are the template under this episode's transaction
        if task.actor not in self._actors:
            self._actors[task.actor] = dict(episode.actor)
        return episode, task.work_order, {"tier": task.tier}

    @abstractmethod
    def _book_delta(self, conn: sqlite3.Connection) -> BookDelta:
        """What the episode changed in the graded books (the version's reader of its change logs)."""

    def _graded_states(self, ctx: E) -> GradedStates:
        """The final and gold books where they can differ, and the scope (``book_changes.py``): what grading,
        the failure report and progress compare, at a cost that follows the episode's changes."""
        task = self.bundle.tasks[ctx.task_id]
        final, gold = graded_states(
            self._book_delta(ctx.conn), self.bundle.gold_delta(task.id), self.bundle.template_state, task.scope
        )
        return final, gold, task.scope

    @abstractmethod
    def _report(self, final: Any, gold: Any, scope: Sequence[str]) -> list[dict[str, Any]]:
        """The version's ``grading.failure_report``."""

    TASK_EXAMPLES: ClassVar[str]  # task ids an error message shows as examples
    BOOKS_SCHEMA: ClassVar[str]  # the version's database schema: spare connections are kept per schema
    load_company: Callable[..., Any]  # the version's load_bundle(company_seed, tasks_path, company_scale)

    def _open_company(
        self,
        task_ids: Sequence[str] | None,
        tier: str | None,
        max_turns: int,
        render_mode: str | None,
        company_seed: int,
        tasks_path: str | None,
        company_scale: int,
        unknown: dict[str, Any],
    ) -> Any:
        """The constructor's work, the same in every version: check the arguments, load the company, select the
        tasks (refusing a ``max_turns`` below a selected gold path), then the base env. Returns the bundle."""
        checked = check_arguments(
            type(self).__name__,
            unknown,
            max_turns=max_turns,
            company_seed=company_seed,
            company_scale=company_scale,
            tasks_path=tasks_path,
            canonical_seed=CANONICAL_SEED,
        )
        bundle = self.load_company(checked.company_seed, checked.tasks_path, checked.company_scale)
        self.bundle = bundle
        self._selected = select_tasks(bundle.tasks, task_ids, tier, self.TASK_EXAMPLES, checked.max_turns)
        self._actors: dict[str, dict[str, Any]] = {}  # approver rows read by earlier episodes (``acting``)
        ToolEnv.__init__(self, max_turns=checked.max_turns, render_mode=render_mode)
        return bundle

    def _task_ids(self) -> Sequence[str]:
        return self._selected

    def task_tier(self, task_id: str) -> str:
        return self.bundle.tasks[task_id].tier

    def gold_actions(self, task_id: str) -> list[Action]:
        return list(self.bundle.tasks[task_id].gold_actions)

    def _save_episode(self, ctx: E) -> dict[str, Any]:
        return {
            "books": committed_bytes(ctx),
            "actor": dict(ctx.actor),
            "task_id": ctx.task_id,
        }

    def _atomic(self, ctx: E, tool: Tool) -> AbstractContextManager[None]:
        """Writes run inside a savepoint (``episode.savepoint``): a failed one leaves the books as they were."""
        return savepoint(ctx)

    def _grade_episode(self, ctx: E) -> Grade:
        grade = compare(*self._graded_states(ctx))
        return Grade(grade.reward, grade.components, {**grade.diagnostics, **self.stats.as_diagnostics()})

    def progress(self) -> dict[str, float]:
        """Progress of the current episode against the task's gold books, computed from the episode state
        (see ``progress.py``): the grade's components as they stand now, for diagnostics and reward shaping.
        Reading it changes nothing."""
        if self._ctx is None:
            raise RuntimeError("progress() needs an episode: call reset() first")
        if self._progress is None or self._progress.episode is not self._ctx:
            episode = self._ctx
            self._progress = InvoiceProgress(episode, lambda: self._graded_states(episode))
        return self._progress.measures(self.stats)

    def failure_report(self) -> list[dict[str, Any]]:
        if self._ctx is None:
            raise RuntimeError("failure_report() needs an episode: call reset() first")
        return self._report(*self._graded_states(self._ctx))

    def close(self) -> None:
        if self._ctx is not None:
            give_back(self._ctx.conn, self.BOOKS_SCHEMA)
        super().close()
