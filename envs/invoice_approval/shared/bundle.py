"""What every version's company loading shares: tasks read from JSONL, refused when made for another company,
and a seed file checked against its recorded fingerprint before anything is built on it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from .db import connect_bytes
from .tasks import Task, task_from_dict


def read_tasks(path: Path, generator: str) -> list[Task]:
    """Tasks from a JSONL file; a corrupt line is reported with its line number and the version's ``generator``
    module to rerun."""
    tasks = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            tasks.append(task_from_dict(json.loads(line)))
        except (ValueError, TypeError) as error:
            raise ValueError(
                f"{path}:{number}: not a valid task record ({error}); regenerate the file with `python -m {generator}`"
            ) from error
    if not tasks:
        raise ValueError(f"tasks_path {str(path)!r} holds no tasks; pass a tasks .jsonl file made for this company")
    return tasks


def check_companies(tasks: Sequence[Task], print_: str, company_seed: int, company_scale: int) -> None:
    """Refuse tasks made for another company (their fingerprint is not this company's), in every version."""
    for task in tasks:
        if task.seed_fingerprint != print_:
            raise ValueError(
                f"task {task.id!r} was made for another company (fingerprint "
                f"{task.seed_fingerprint[:12]}..., this company is {print_[:12]}... from seed "
                f"{company_seed}{scale_note(company_scale)}); pass the company_seed its tasks were generated from"
            )


def scale_note(company_scale: int) -> str:
    """The scale in the mismatch message only when it is not the default, so scale-1 messages stay as they were."""
    return "" if company_scale == 1 else f" at company_scale {company_scale}"


def verify_seed_bytes(
    seed_bytes: bytes,
    expected: str,
    fingerprint_of: Callable[[sqlite3.Connection], str],
    generator: str,
) -> None:
    """Refuse a seed file that is not a database, or whose content does not match its recorded fingerprint
    (``fingerprint_of`` and the ``generator`` module to rerun are the version's)."""
    try:
        conn = connect_bytes(seed_bytes)
        actual = fingerprint_of(conn)
        conn.close()
    except sqlite3.DatabaseError as error:
        raise ValueError(
            f"the seed database is damaged ({error}); regenerate assets with `python -m {generator}`"
        ) from error
    if actual != expected:
        raise ValueError(
            f"seed database fingerprint {actual[:12]}... does not match {expected[:12]}...; "
            f"regenerate assets with `python -m {generator}`"
        )
