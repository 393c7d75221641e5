"""A v1 company and its tasks, loaded once per process: the shipped one (seed 42, scale 1) or a generated one.

Tasks carry the fingerprint of the company they were made for; a mismatch is refused. Gold final states are
replayed once per task and cached. A generated company and every company's gold deltas also go through the
on-disk cache (``shared/company_cache.py``, ``shared/gold_cache.py``), so the next process finds them built.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.assets import asset_path
from ..shared.book_changes import BookDelta, GoldDeltas
from ..shared.bundle import check_companies, read_tasks, verify_seed_bytes
from ..shared.company_cache import Company, generated_company
from ..shared.gold_cache import prefetch_gold, tasks_source
from ..shared.tasks import Task
from .db import ASSET_DIR, CANONICAL_SEED, episode_template, fingerprint, shipped_fingerprint, shipped_seed_bytes
from .document_cache import DocumentCache
from .grading import BookState, book_state
from .sandbox import replay

if TYPE_CHECKING:  # the generator is offline work, imported only when a company is generated
    from .authoring.model import V1World

TASKS_FILE = "v1/tasks.jsonl"
VERSION = "v1"
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
    _gold_stored: dict[str, str] = field(default_factory=dict)
    documents: DocumentCache = field(default_factory=DocumentCache)
    """The company's documents parsed and rendered once, shared by the episodes of every env on it."""

    def read_books(self, conn: sqlite3.Connection) -> BookState:
        return book_state(conn)

    replay_path = staticmethod(replay)


def load_bundle(company_seed: int = CANONICAL_SEED, tasks_path: str | None = None, company_scale: int = 1) -> Bundle:
    return _load(company_seed, tasks_path, company_scale)


@cache
def _load(company_seed: int, tasks_path: str | None, company_scale: int) -> Bundle:
    shipped, template = company_seed == CANONICAL_SEED and company_scale == 1, None
    if shipped:
        seed_bytes, print_ = shipped_seed_bytes(), shipped_fingerprint()
        verify_seed_bytes(seed_bytes, print_, fingerprint, GENERATOR)
        tasks = read_tasks(Path(tasks_path) if tasks_path else asset_path(ASSET_DIR, TASKS_FILE), GENERATOR)
    elif tasks_path:  # a generated company with tasks of the user's own
        seed_bytes, print_, _world = _generated_books(company_seed, company_scale)
        tasks = read_tasks(Path(tasks_path), GENERATOR)
    else:
        company = _generated_company(company_seed, company_scale)
        seed_bytes, print_, tasks, template = company.seed_bytes, company.fingerprint, company.tasks, company.template
    check_companies(tasks, print_, company_seed, company_scale)
    template = episode_template(seed_bytes) if template is None else template
    bundle = Bundle(company_seed, seed_bytes, template, print_, {t.id: t for t in tasks}, company_scale)
    prefetch_gold(bundle, VERSION, tasks_source("shipped" if shipped else "generated", tasks_path))
    return bundle


def _generated_books(company_seed: int, company_scale: int) -> tuple[bytes, str, V1World]:
    """Offline work at run time, only for a company that is not shipped: its world and seed database."""
    from .authoring.seed_db import build_seed_db
    from .authoring.world import generate_world

    world = generate_world(company_seed, company_scale)
    conn = build_seed_db(world)
    seed_bytes, print_ = conn.serialize(), fingerprint(conn)
    conn.close()
    return seed_bytes, print_, world


def _generated_company(company_seed: int, company_scale: int) -> Company:
    """A generated company with its tasks, from the on-disk cache when another process built it before
    (``shared/company_cache.py``). A company the task builder refuses raises its RuntimeError, cached too."""

    def build() -> Company | str:
        from .authoring.task_builder import generate_tasks

        seed_bytes, print_, world = _generated_books(company_seed, company_scale)
        try:
            tasks = generate_tasks(world)
        except RuntimeError as error:
            return str(error)
        return Company(seed_bytes, print_, tasks, episode_template(seed_bytes))

    company = generated_company(VERSION, company_seed, company_scale, build)
    if isinstance(company, str):
        raise RuntimeError(company)
    return company
