"""A v1 company and its tasks, loaded once per process: the shipped one (seed 42, scale 1) or a generated one.

Tasks carry the fingerprint of the company they were made for; a mismatch is refused. Gold final states are
replayed once per task and cached.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ...core.assets import asset_path
from ..shared.book_changes import BookDelta, GoldDeltas
from ..shared.bundle import check_companies, read_tasks, verify_seed_bytes
from ..shared.tasks import Task
from .db import ASSET_DIR, CANONICAL_SEED, episode_template, fingerprint, shipped_fingerprint, shipped_seed_bytes
from .grading import BookState, book_state
from .sandbox import replay

TASKS_FILE = "v1/tasks.jsonl"
GENERATOR = "officegym.envs.invoice_approval.v1.authoring.generate"
"""The module that regenerates v1's shipped company and tasks (named in the errors that ask for it)."""


@dataclass
class Bundle(GoldDeltas[BookState]):
    """v0's ``Bundle`` without its record snapshot (v1 has no record view): gold states are replayed as in v0,
    and the grader compares the episode's changes with each gold path's (``grading.book_delta``)."""

    company_seed: int
    seed_bytes: bytes
    template: bytes
    fingerprint: str
    tasks: dict[str, Task]
    company_scale: int = 1
    _gold: dict[str, BookState] = field(default_factory=dict)
    _gold_delta: dict[str, BookDelta] = field(default_factory=dict)

    def read_books(self, conn: sqlite3.Connection) -> BookState:
        return book_state(conn)

    replay_path = staticmethod(replay)


def load_bundle(company_seed: int = CANONICAL_SEED, tasks_path: str | None = None, company_scale: int = 1) -> Bundle:
    return _load(company_seed, tasks_path, company_scale)


@cache
def _load(company_seed: int, tasks_path: str | None, company_scale: int) -> Bundle:
    if company_seed == CANONICAL_SEED and company_scale == 1:
        seed_bytes, print_ = shipped_seed_bytes(), shipped_fingerprint()
        verify_seed_bytes(seed_bytes, print_, fingerprint, GENERATOR)
        tasks = read_tasks(Path(tasks_path) if tasks_path else asset_path(ASSET_DIR, TASKS_FILE), GENERATOR)
    else:
        from .authoring.seed_db import build_seed_db
        from .authoring.task_builder import generate_tasks
        from .authoring.world import generate_world

        world = generate_world(company_seed, company_scale)
        conn = build_seed_db(world)
        seed_bytes, print_ = conn.serialize(), fingerprint(conn)
        conn.close()
        tasks = read_tasks(Path(tasks_path), GENERATOR) if tasks_path else generate_tasks(world)
    check_companies(tasks, print_, company_seed, company_scale)
    return Bundle(
        company_seed, seed_bytes, episode_template(seed_bytes), print_, {t.id: t for t in tasks}, company_scale
    )
