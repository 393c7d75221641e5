"""Per-step progress of an InvoiceApproval episode, measured against the task's gold books.

The grade looks only at the final books. These measures apply the grader's own comparison
(:func:`grading.compare`) to the books as they stand after any step, so a learner, a shaping potential or a
dashboard sees, at every step, the grade the episode would get if it ended now, and how far from it the books
are. Using the grader itself (not a second implementation) means the measures can never disagree with the
final grade: on the last step they equal ``info["grade"]``.

The books are read as the grader reads them, from the episode's changes (``book_changes.py``), and most steps
are reads that change nothing. So the book-derived part is cached per episode and recomputed only when
SQLite's ``total_changes`` counter moves (any write, even one rolled back, moves it; reads never do).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from ...core.episode_stats import EpisodeStats
from .episode import Books
from .grading import GradedBooks, compare

PROGRESS_KEYS: Final[tuple[str, ...]] = (
    "turns",
    "invalid_calls",
    "scope_size",
    "invoices_decided",
    "decided_correctly",
    "decided_wrongly",
    "collateral_changes",
    "po_mismatches",
    "ledger_mismatches",
    "reward",
)


def book_measures(books: GradedBooks, gold: GradedBooks, scope: Sequence[str]) -> dict[str, float]:
    """The book-derived measures (every key of :data:`PROGRESS_KEYS` but the two counters of calls).

    ``invoices_decided`` counts work-order invoices no longer ``received``; ``decided_correctly`` those of them
    whose status, reason code and assignee equal the gold books. Decisions are final, so ``decided_wrongly``
    never decreases. ``collateral_changes``, ``po_mismatches`` and ``ledger_mismatches`` are the grader's
    distances from the gold books: PO and ledger mismatches start at what the gold path still has to post and
    fall as correct approvals are made. ``reward`` is the grade if the episode ended now (1.0 or 0.0).
    """
    grade = compare(books, gold, scope)
    decided = [iid for iid in scope if books.invoices[iid][0] != "received"]
    correct = sum(1 for iid in decided if books.invoices[iid] == gold.invoices[iid])
    return {
        "scope_size": float(len(scope)),
        "invoices_decided": float(len(decided)),
        "decided_correctly": float(correct),
        "decided_wrongly": float(len(decided) - correct),
        "collateral_changes": float(grade.diagnostics["collateral_changes"]),
        "po_mismatches": float(grade.diagnostics["po_mismatches"]),
        "ledger_mismatches": float(grade.diagnostics["ledger_mismatches"]),
        "reward": grade.reward,
    }


class InvoiceProgress:
    """The progress of one episode (of any version); the book-derived part is recomputed only after the books
    changed."""

    def __init__(self, episode: Books, states: Callable[[], tuple[GradedBooks, GradedBooks, Sequence[str]]]) -> None:
        """``states`` gives the final books, the gold books and the scope as the grader compares them."""
        self.episode = episode
        self._states = states
        self._changes = -1
        self._books: dict[str, float] = {}

    def measures(self, stats: EpisodeStats) -> dict[str, float]:
        """Every key of :data:`PROGRESS_KEYS`, in that order."""
        changes = self.episode.conn.total_changes
        if changes != self._changes:
            self._books = book_measures(*self._states())
            self._changes = changes
        counters = {"turns": float(stats.turns), "invalid_calls": float(stats.invalid_calls)}
        return {key: counters[key] if key in counters else self._books[key] for key in PROGRESS_KEYS}


def invoice_potential(measures: Mapping[str, float]) -> float:
    """The shaping potential ``Phi(s) = (decided_correctly - decided_wrongly - collateral_changes) / scope_size``.

    A correct decision raises Phi by 1/n, a wrong one (including on an invoice outside the work order) lowers
    it by 1/n; reads change nothing. With the terminal potential 0, the credit of a correct decision is paid at
    the decision and handed back at the end, where the grade pays it for real; so the all-or-nothing grade gets
    a signal per invoice, and a wrong decision is felt when it is made.
    """
    net = measures["decided_correctly"] - measures["decided_wrongly"] - measures["collateral_changes"]
    return net / max(1.0, measures["scope_size"])
