"""InvoiceApproval-v2's gold deltas through the on-disk cache: a task's first grading from a warm cache gives
exactly the grade a process without the cache gives (gold and wrong paths), without replaying a gold path, and
v2's entry is its own (keyed by v2 and both versions' code), never v1's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from officegym.envs.invoice_approval.shared import cache
from officegym.envs.invoice_approval.shared.book_changes import delta_to_json
from officegym.envs.invoice_approval.shared.cache import entry_path, read_entry
from officegym.envs.invoice_approval.shared.db import CANONICAL_SEED
from officegym.envs.invoice_approval.shared.gold_cache import gold_key
from officegym.envs.invoice_approval.v1 import bundle as v1_bundle
from officegym.envs.invoice_approval.v2 import bundle as v2_bundle
from officegym.envs.invoice_approval.v2.env import InvoiceApprovalV2Env

FINISH = {"name": "finish", "arguments": {}}


def fresh_bundle() -> v2_bundle.Bundle:
    """The shipped company as a new process loads it (the process-wide ``functools.cache`` bypassed)."""
    return v2_bundle._load.__wrapped__(CANONICAL_SEED, None, 1)


def grades(bundle: v2_bundle.Bundle, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Every shipped task's grade on its gold path and on its first wrong path, each that task's first grading
    on ``bundle``."""
    monkeypatch.setattr(InvoiceApprovalV2Env, "load_company", staticmethod(lambda *_: bundle))
    env = InvoiceApprovalV2Env(max_turns=10**6)
    out: dict[str, Any] = {}
    for task_id, task in sorted(bundle.tasks.items()):
        out[f"{task_id} gold"] = episode_grade(env, task_id, task.gold_actions)
        if task.wrong_actions:
            out[f"{task_id} wrong"] = episode_grade(env, task_id, task.wrong_actions[0]["actions"])
    env.close()
    return out


def episode_grade(env: InvoiceApprovalV2Env, task_id: str, actions: list[dict[str, Any]]) -> str:
    env.reset(options={"task_id": task_id})
    reward, info = 0.0, dict[str, Any]()
    for action in [*actions, FINISH]:
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return json.dumps({"reward": reward, "grade": info.get("grade")}, sort_keys=True, default=str)


def test_a_warm_cache_grades_as_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV_VAR, "")
    uncached = fresh_bundle()
    assert not uncached._gold_stored
    expected = grades(uncached, monkeypatch)

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    fresh_bundle()  # fills the cache: every gold path replayed once, through v2's tools
    warm = fresh_bundle()  # another process's first load: reads the entry
    assert sorted(warm._gold_stored) == sorted(warm.tasks)
    assert grades(warm, monkeypatch) == expected
    assert not warm._gold, "a first grading replayed a gold path despite the warm cache"


def test_v2_has_its_own_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """v2's deltas are stored under a key of their own (v2, and v1's code digest beside v2's), v1's under v1's
    unchanged key; each entry holds what its own version's replays give."""
    root = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_VAR, str(root))
    v2 = fresh_bundle()
    v1 = v1_bundle._load.__wrapped__(CANONICAL_SEED, None, 1)
    v1_key = gold_key("v1", v1.fingerprint, "shipped")
    v2_key = gold_key("v2", v2.fingerprint, "shipped", ("v1",))
    assert v1.fingerprint == v2.fingerprint and v1_key != v2_key
    assert v1_key.startswith("v1 gold ") and " v1 code=" in v2_key
    stored = {key: read_entry(entry_path(root, key), key) for key in (v1_key, v2_key)}
    assert all(stored.values()), "both versions' entries are in the cache"
    for bundle, key in ((v1, v1_key), (v2, v2_key)):
        bundle._gold_delta.clear()
        bundle._gold_stored.clear()  # so that every delta below is replayed, not decoded from the entry
        replayed = {task_id: delta_to_json(bundle.gold_delta(task_id)) for task_id in sorted(bundle.tasks)}
        assert json.loads(stored[key] or b"{}") == replayed
