"""Companies, gold deltas and seed searches through the on-disk cache: what the cache serves is exactly what a
fresh build gives (seed bytes, episode template, tasks, each task's gold delta), a refused company stays refused,
and a seed search runs once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from officegym.envs.invoice_approval.shared import cache
from officegym.envs.invoice_approval.shared.book_changes import delta_from_json, state_delta
from officegym.envs.invoice_approval.shared.cache import cached, entry_path
from officegym.envs.invoice_approval.shared.company_cache import (
    Company,
    cached_seeds,
    encode_company,
    generated_company,
    version_digest,
)
from officegym.envs.invoice_approval.v0 import bundle as v0_bundle
from officegym.envs.invoice_approval.v0.db import episode_template
from officegym.envs.invoice_approval.v1 import bundle as v1_bundle

GENERATED_SEED = 7  # v0's generated company at scale 1 (the scale benchmark's seed)


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    return tmp_path / "cache"


def company_key(version: str, seed: int) -> str:
    return f"{version} company seed={seed} scale=1 code={version_digest(version)}"


def test_a_cached_company_equals_a_fresh_one(root: Path) -> None:
    """One generation: the fresh build is stored by hand, then the loader must give back exactly it."""
    seed_bytes, print_, world = v0_bundle._generated_books(GENERATED_SEED, 1)
    from officegym.envs.invoice_approval.v0.authoring.task_builder import generate_tasks

    fresh = Company(seed_bytes, print_, generate_tasks(world), episode_template(seed_bytes))
    cached(company_key("v0", GENERATED_SEED), lambda: encode_company(fresh))
    loaded = v0_bundle._load_bundle.__wrapped__(GENERATED_SEED, None, 1)
    assert loaded.seed_bytes == fresh.seed_bytes
    assert loaded.template == fresh.template
    assert loaded.fingerprint == fresh.fingerprint
    assert list(loaded.tasks.values()) == fresh.tasks


def test_a_refusal_is_cached_and_raised_as_before(root: Path) -> None:
    """A refused company's entry raises the version's error with the builder's message, without a build."""
    cached(company_key("v0", 43), lambda: encode_company("batch-16: only 2 wrong paths differ from gold"))
    with pytest.raises(v0_bundle.UnusableCompany, match=r"company_seed=43 .*\(batch-16: only 2 wrong paths"):
        v0_bundle._load_bundle.__wrapped__(43, None, 1)
    cached(company_key("v1", 43), lambda: encode_company("refused for a test"))
    with pytest.raises(RuntimeError, match=r"^refused for a test$"):
        v1_bundle._load.__wrapped__(43, None, 1)


def test_a_build_error_is_not_cached(root: Path) -> None:
    def broken() -> Company | str:
        raise ValueError("not a company")

    with pytest.raises(ValueError, match="not a company"):
        generated_company("v0", 1, 1, broken)
    assert not entry_path(root, company_key("v0", 1)).exists()


@pytest.mark.parametrize("module", [v0_bundle, v1_bundle], ids=["v0", "v1"])
def test_stored_gold_deltas_equal_the_replayed_ones(root: Path, module: Any) -> None:
    """The shipped company's gold deltas: stored on the first load, read back on the second, and equal (as
    tuples, in the same order) to the deltas each gold path's replay gives."""
    load = module._load_bundle if module is v0_bundle else module._load
    first = load.__wrapped__(42, None, 1)
    second = load.__wrapped__(42, None, 1)
    assert sorted(second._gold_stored) == sorted(first.tasks)
    assert second._gold == {}  # nothing replayed: every delta came from the cache
    for task_id in sorted(first.tasks):
        replayed = state_delta(first.gold_state(task_id), first.template_state)
        stored = delta_from_json(second._gold_stored[task_id])
        assert stored == replayed, task_id
        assert list(stored.invoices.items()) == list(replayed.invoices.items())
        assert list(stored.ledger.items()) == list(replayed.ledger.items())
    assert second._gold == {}


def test_without_the_cache_gold_paths_replay_on_first_grading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV_VAR, "")
    bundle = v0_bundle._load_bundle.__wrapped__(42, None, 1)
    assert bundle._gold_stored == {}
    bundle.gold_delta("batch-1")
    assert list(bundle._gold) == ["batch-1"]


def test_a_seed_search_runs_once(root: Path) -> None:
    calls: list[int] = []

    def search() -> list[int]:
        calls.append(1)
        return [200_001, 200_004]

    assert cached_seeds("v1", "test count=2", search) == [200_001, 200_004]
    assert cached_seeds("v1", "test count=2", search) == [200_001, 200_004]
    assert len(calls) == 1
