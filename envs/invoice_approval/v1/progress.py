"""Per-step progress of a v1 episode against the gold books: the grader's own comparison on the books as they
stand (recomputed only when SQLite's change counter moves), and the shaping potential."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...core.episode_stats import EpisodeStats
from .episode import V1Episode
from .grading import BookState, book_state, compare

PROGRESS_KEYS = (
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


def book_measures(books: BookState, gold: BookState, scope: Sequence[str]) -> dict[str, float]:
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


class V1Progress:
    def __init__(self, episode: V1Episode, gold: BookState, scope: Sequence[str]) -> None:
        self.episode = episode
        self._gold, self._scope = gold, tuple(scope)
        self._changes = -1
        self._books: dict[str, float] = {}

    def measures(self, stats: EpisodeStats) -> dict[str, float]:
        changes = self.episode.conn.total_changes
        if changes != self._changes:
            self._books = book_measures(book_state(self.episode.conn), self._gold, self._scope)
            self._changes = changes
        counters = {"turns": float(stats.turns), "invalid_calls": float(stats.invalid_calls)}
        return {key: counters[key] if key in counters else self._books[key] for key in PROGRESS_KEYS}


def potential(measures: Mapping[str, float]) -> float:
    """Phi = (decided correctly - decided wrongly - collateral) / scope size, as in v0."""
    net = measures["decided_correctly"] - measures["decided_wrongly"] - measures["collateral_changes"]
    return max(-1.0, min(1.0, net / max(1.0, measures["scope_size"])))
