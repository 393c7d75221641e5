"""Which world an evaluation plays: a split's task source (``--split``/``--source``) or a file of task rows
(``--rows``), turned into the env arguments and task ids of one ``EvalPlan``.

A row names its world (``officegym.splits``): env id, the env arguments that pick its company or deals, and the
task. Task ids repeat across companies, so an eval of train rows must make the row's company, not the shipped
one; and since a results file is keyed by task id, one run plays one world (the rows of several companies are
several runs, one file each, named after the source).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..envs.core.arguments import ArgumentError
from ..registration import env_class
from ..splits import canonical_kwargs, row_world, source_label, split_name

MAX_SOURCE = 100
"""Task sources an eval can name: finding InvoiceApproval's k-th train company generates the k before it."""


@dataclass(frozen=True)
class EvalWorld:
    """The env arguments and tasks of one eval run, and the source label its results file is named after."""

    env_kwargs: dict[str, Any]
    task_ids: list[str] | None
    source: str | None


def eval_world(
    env_id: str,
    env_kwargs: dict[str, Any],
    task_ids: list[str] | None,
    *,
    split: str | None = None,
    source: int = 0,
    rows: Path | None = None,
) -> EvalWorld:
    """The world of ``--split``/``--source`` or ``--rows`` (neither: the env's own arguments, as before)."""
    if rows is not None:
        if split is not None:
            raise ArgumentError("--rows and --split both pick the tasks; give one")
        return _rows_world(env_id, env_kwargs, task_ids, rows)
    if split is None:
        return EvalWorld(env_kwargs, task_ids, None)
    if not 0 <= source < MAX_SOURCE:
        raise ArgumentError(f"--source must be between 0 and {MAX_SOURCE - 1}, got {source}")
    sources = env_class(env_id).split_sources(split_name(split), source + 1)
    if source >= len(sources):
        raise ArgumentError(f"--source must be between 0 and {len(sources) - 1} for the {split} split, got {source}")
    picked = sources[source]
    clash = sorted(key for key in env_kwargs if key in picked)
    if clash:
        raise ArgumentError(f"--env-kwargs must not set {', '.join(clash)} with --split: the split picks them")
    return EvalWorld({**picked, **env_kwargs}, task_ids, source_label(picked))


def _rows_world(env_id: str, env_kwargs: dict[str, Any], task_ids: list[str] | None, path: Path) -> EvalWorld:
    if task_ids:
        raise ArgumentError("--rows and --task-ids both pick the tasks; give one")
    worlds = [row_world(row) for row in read_rows(path)]
    if not worlds:
        raise ArgumentError(f"--rows {path}: no rows")
    others = sorted({w.env_id for w in worlds if w.env_id != env_id})
    if others:
        raise ArgumentError(f"--rows {path}: rows of {', '.join(others)}, this eval is of {env_id}")
    kinds = sorted({canonical_kwargs(w.env_kwargs) for w in worlds})
    if len(kinds) > 1:
        raise ArgumentError(
            f"--rows {path}: rows of {len(kinds)} worlds ({', '.join(kinds[:3])}); a results file holds one "
            "world (task ids repeat across companies): split the rows by env_kwargs and run one eval each"
        )
    kwargs = worlds[0].env_kwargs
    clash = sorted(key for key in env_kwargs if key in kwargs and env_kwargs[key] != kwargs[key])
    if clash:
        raise ArgumentError(f"--env-kwargs sets {', '.join(clash)} otherwise than the rows do")
    ids = list(dict.fromkeys(w.task_id for w in worlds))
    return EvalWorld({**kwargs, **env_kwargs}, ids, source_label(kwargs))


def read_rows(path: Path) -> list[Any]:
    """The rows of a JSONL file (one ``task_rows`` row per line; blank lines skipped), with the line number of
    the first line that is not a JSON object."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ArgumentError(f"--rows {path}: cannot read it ({error})") from None
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except (ValueError, RecursionError):
            raise ArgumentError(f"--rows {path}:{number}: not a JSON row") from None
    return rows
