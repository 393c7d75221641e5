"""Selecting an env's tasks by ``task_ids`` and ``tier``: one rule for every domain, with errors that name the fix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def select_task_ids(
    tiers_by_id: Mapping[str, str],
    task_ids: Sequence[str] | str | None,
    tier: str | None,
    tiers: Sequence[str],
    noun: str,
    example: str,
) -> list[str]:
    """The selected IDs: ``task_ids`` in the given order (all known ones, in their order, if None), kept when
    their tier is ``tier`` (any tier if None). ``noun`` and ``example`` make the error messages domain-specific."""
    if tier is not None and tier not in tiers:
        raise ValueError(f"unknown tier {tier!r}; choose one of {', '.join(tiers)}")
    if isinstance(task_ids, str):
        task_ids = [task_ids]
    unknown = [t for t in task_ids or [] if t not in tiers_by_id]
    if unknown:
        raise ValueError(f"unknown {noun} id(s) {unknown}; ids look like {example} ({len(tiers_by_id)} {noun}s)")
    candidates = list(tiers_by_id) if task_ids is None else list(task_ids)
    selected = [t for t in candidates if tier is None or tiers_by_id[t] == tier]
    if not selected:
        raise ValueError(f"no {noun} matches task_ids={task_ids} and tier={tier!r}")
    return selected
