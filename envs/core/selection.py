"""Selecting an env's tasks by ``task_ids`` and ``tier``: one rule for every domain, with errors that name the fix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import arguments


def select_task_ids(
    tiers_by_id: Mapping[str, str], task_ids: Any, tier: Any, tiers: Sequence[str], noun: str, example: str
) -> list[str]:
    """The selected IDs: ``task_ids`` in the given order (all known ones, in their order, if None), kept when
    their tier is ``tier`` (any tier if None). ``noun`` and ``example`` make the error messages domain-specific."""
    tier = arguments.tier(tier, tiers)
    ids = arguments.task_ids(task_ids)
    unknown = [t for t in ids or [] if t not in tiers_by_id]
    if unknown:
        raise arguments.ArgumentError(
            f"unknown {noun} id(s) {unknown}; ids look like {example} ({len(tiers_by_id)} {noun}s)"
        )
    candidates = list(tiers_by_id) if ids is None else ids
    selected = [t for t in candidates if tier is None or tiers_by_id[t] == tier]
    if not selected:
        raise arguments.ArgumentError(f"no {noun} matches task_ids={ids} and tier={tier!r}")
    return selected
