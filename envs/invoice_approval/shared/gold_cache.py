"""Every task's gold delta through the on-disk cache, so that a task's first grading in a process costs about
what every later one does.

Why: grading compares the episode's changes with what the task's gold path changes (``book_changes.py``), and
the gold path's changes were found by replaying it, once per task and process: 5-20 ms for a long task at 1x,
150 ms at 100x, paid on the first episode of every task in every process. Stored per company (keyed by its
fingerprint, where its tasks came from and the code digest), they are read and decoded in one go when the company
loads. With the cache off, nothing changes: each gold path is replayed on its first grading.

A version that plays another version's company through its own tools (v2 on v1's) keys its gold deltas by its
own name and by the digest of both versions' code (``builds_on``): its deltas come from its own replays, and a
change to either version's code must not serve deltas the other code found.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .book_changes import GoldDeltas, delta_to_json
from .cache import cache_root, cached
from .company_cache import version_digest


def tasks_source(kind: str, tasks_path: str | None) -> str:
    """Where a company's tasks came from, for the key: ``kind`` (shipped or generated: the code digest covers
    them) or the sha256 of the user's own tasks file."""
    if tasks_path is None:
        return kind
    return f"file sha256={hashlib.sha256(Path(tasks_path).read_bytes()).hexdigest()}"


def gold_key(version: str, fingerprint: str, source: str, builds_on: tuple[str, ...] = ()) -> str:
    """The cache key of a company's gold deltas in ``version``; ``builds_on`` names the versions whose code
    it also runs (their digests join the key; without them the key is what it always was)."""
    code = "".join(f" {other} code={version_digest(other)}" for other in builds_on)
    return f"{version} gold fingerprint={fingerprint} tasks={source} code={version_digest(version)}{code}"


def prefetch_gold(bundle: Any, version: str, source: str, builds_on: tuple[str, ...] = ()) -> None:
    """Give ``bundle`` (a ``GoldDeltas`` bundle with ``fingerprint``) its stored gold deltas, replaying every
    gold path once on a miss, and read its template books now rather than at the first grading."""
    if cache_root() is None:
        return
    key = gold_key(version, bundle.fingerprint, source, builds_on)
    bundle._gold_stored.update(json.loads(cached(key, lambda: encode_deltas(bundle))))
    for task_id in bundle._gold_stored:  # decoded now (well under a millisecond each), not at a first grading
        bundle.gold_delta(task_id)
    _ = bundle.template_state


def encode_deltas(bundle: GoldDeltas[Any]) -> bytes:
    """Every task's gold delta (a replay each), as ``task ID -> delta JSON`` (``book_changes.delta_to_json``)."""
    deltas = {task_id: delta_to_json(bundle.gold_delta(task_id)) for task_id in sorted(bundle.tasks)}
    return json.dumps(deltas, ensure_ascii=False).encode()
