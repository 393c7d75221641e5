"""A company and its tasks, loaded once per process: the shipped canonical one, or one generated from a seed.

Every env instance of the same company shares one ``Bundle``: the seed bytes, the episode template (hidden
columns dropped), the fingerprint, the tasks, and each task's gold final state (computed on first use).
Tasks carry the fingerprint of the company they were made for; a mismatch is refused with a clear error.
``company_scale`` multiplies the company's size (``authoring/world.py``); only seed 42 at scale 1 is shipped.
A generated company and every company's gold deltas also go through the on-disk cache
(``shared/company_cache.py``, ``shared/gold_cache.py``), so the next process finds them built.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path

from ...core.assets import asset_path
from ..shared import bundle as shared_bundle
from ..shared.book_changes import BookDelta, GoldDeltas
from ..shared.bundle import check_companies, scale_note
from ..shared.company_cache import Company, generated_company
from ..shared.db import CANONICAL_SEED
from ..shared.entities import World
from ..shared.gold_cache import prefetch_gold, tasks_source
from ..shared.tasks import Task
from .db import ASSET_DIR, episode_template, fingerprint, shipped_fingerprint, shipped_seed_bytes
from .grading import BookState, book_state
from .read_model import Snapshot, snapshot
from .sandbox import replay

TASKS_FILE = "tasks.jsonl"
VERSION = "v0"
GENERATOR = "officegym.envs.invoice_approval.v0.authoring.generate"
"""The module that regenerates v0's shipped company and tasks (named in the errors that ask for it)."""


@dataclass
class Bundle(GoldDeltas[BookState]):
    company_seed: int
    seed_bytes: bytes
    template: bytes
    fingerprint: str
    tasks: dict[str, Task]
    company_scale: int = 1
    _gold: dict[str, BookState] = field(default_factory=dict)
    _gold_delta: dict[str, BookDelta] = field(default_factory=dict)
    _gold_stored: dict[str, str] = field(default_factory=dict)

    @cached_property
    def records(self) -> Snapshot:
        """The template's records as the tools show them (``read_model.snapshot``), held here so that a reset
        finds them without looking the template's bytes up: a lookup compares the whole template whenever the
        cache holds an equal template that is another ``bytes`` object (21 µs at 10x)."""
        return snapshot(self.template)

    def read_books(self, conn: sqlite3.Connection) -> BookState:
        return book_state(conn)

    replay_path = staticmethod(replay)


def read_tasks(path: Path) -> list[Task]:
    """Tasks from a JSONL file; a corrupt line is reported with its line number."""
    return shared_bundle.read_tasks(path, GENERATOR)


def load_bundle(company_seed: int = CANONICAL_SEED, tasks_path: str | None = None, company_scale: int = 1) -> Bundle:
    """The canonical company from assets, or a company generated from ``company_seed`` and ``company_scale``
    with fresh tasks. One cache entry per company whichever way it is asked for: ``load_bundle()`` and
    ``load_bundle(42, None, 1)`` are the same bundle (and so share its cached gold states), which a
    ``functools.cache`` on this signature would not give."""
    return _load_bundle(company_seed, tasks_path, company_scale)


@cache
def _load_bundle(company_seed: int, tasks_path: str | None, company_scale: int) -> Bundle:
    shipped, template = company_seed == CANONICAL_SEED and company_scale == 1, None
    if shipped:
        seed_bytes, print_ = shipped_seed_bytes(), shipped_fingerprint()
        verify_seed_bytes(seed_bytes, print_)  # once per process (~8 ms): a damaged asset fails loudly here
        tasks = read_tasks(Path(tasks_path) if tasks_path else asset_path(*ASSET_DIR, TASKS_FILE))
    elif tasks_path:  # a generated company with tasks of the user's own
        seed_bytes, print_, _world = _generated_books(company_seed, company_scale)
        tasks = read_tasks(Path(tasks_path))
    else:
        company = _generated_company(company_seed, company_scale)
        seed_bytes, print_, tasks, template = company.seed_bytes, company.fingerprint, company.tasks, company.template
    check_companies(tasks, print_, company_seed, company_scale)
    template = episode_template(seed_bytes) if template is None else template
    bundle = Bundle(company_seed, seed_bytes, template, print_, {t.id: t for t in tasks}, company_scale)
    prefetch_gold(bundle, VERSION, tasks_source("shipped" if shipped else "generated", tasks_path))
    return bundle


def _generated_books(company_seed: int, company_scale: int) -> tuple[bytes, str, World]:
    """Offline work at run time, only for a company that is not shipped: its world and seed database."""
    from .authoring.seed_db import build_seed_db
    from .authoring.world import UnbuildablePlan, generate_world

    try:
        world = generate_world(company_seed, company_scale)
    except UnbuildablePlan as error:  # a seed whose plan does not fit: as unusable as a refused batch
        raise _unusable(company_seed, company_scale, str(error)) from error
    conn = build_seed_db(world)
    seed_bytes, print_ = conn.serialize(), fingerprint(conn)
    conn.close()
    return seed_bytes, print_, world


def _generated_company(company_seed: int, company_scale: int) -> Company:
    """A generated company with its tasks, from the on-disk cache when another process built it before
    (``shared/company_cache.py``); a company whose tasks cannot be built is refused, from the cache too."""

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
        raise _unusable(company_seed, company_scale, company) from RuntimeError(company)
    return company


class UnusableCompany(RuntimeError):
    """A generated company whose tasks the builder refuses (a few seeds give a batch with too few distinct wrong
    paths; the builder refuses them rather than ship a weaker task), or whose plan needs more purchase orders
    than the company holds (``authoring.world.UnbuildablePlan``). Users pick another seed."""


def _unusable(company_seed: int, company_scale: int, error: str) -> UnusableCompany:
    return UnusableCompany(
        f"company_seed={company_seed}{scale_note(company_scale)} generates a company whose tasks cannot be "
        f"built ({error}); use another seed, e.g. one of InvoiceApprovalEnv.split_sources('train', n)"
    )


def verify_seed_bytes(seed_bytes: bytes, expected: str) -> None:
    """Refuse a seed file that is not a database, or whose content does not match its recorded fingerprint."""
    shared_bundle.verify_seed_bytes(seed_bytes, expected, fingerprint, GENERATOR)
