"""Per-step progress of a v1 episode against the gold books: v0's measures and their cache (``..progress``) on
v1's books, and the shaping potential."""

from __future__ import annotations

from collections.abc import Mapping

from ..shared.progress import invoice_potential


def potential(measures: Mapping[str, float]) -> float:
    """v0's Phi bounded to [-1, 1], so that collateral changes cannot push it below -1 (v0 keeps its unbounded
    Phi: its shaped rewards are frozen)."""
    return max(-1.0, min(1.0, invoice_potential(measures)))
