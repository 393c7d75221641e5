"""The process-per-core episode pool: results identical to one process, for the pool and for ``officegym eval
--backend processes``; what cannot go to a worker is refused before anything runs. (Its speed is measured in
``benchmarks/episode_pool.py``, never here.)"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from officegym.cli import main
from officegym.evaluation.process_backend import ProcessEpisodePool, check_sendable, default_workers
from officegym.evaluation.ray_backend import EpisodeSpec, run_local
from officegym.evaluation.scripted_factory import ScriptedPolicyFactory
from officegym.policies.chat import InfrastructureError

TIMED = ("started_at", "timing")
"""Record fields that say when and how long, the only ones allowed to differ between backends."""


def specs() -> list[EpisodeSpec]:
    """Both domains, several policies and seeds, and a generated company (its env is built in the worker)."""
    out = [
        EpisodeSpec("officegym/InvoiceApproval-v0", task, seed, policy)
        for task in ("single-1", "batch-1")
        for policy in ("oracle", "random")
        for seed in (0, 1)
    ]
    out += [EpisodeSpec("officegym/VendorReview-v2", "vr2-easy-01", seed, "random") for seed in (0, 3)]
    out += [EpisodeSpec("officegym/InvoiceApproval-v0", "single-2", 5, "oracle", {"company_seed": 7})]
    return out


def test_the_pool_plays_what_one_process_plays_in_spec_order_and_stays_warm() -> None:
    batch = specs()
    local = run_local(batch)
    with ProcessEpisodePool(2, warmup=batch[-1:]) as pool:  # a warm-up episode changes no later result
        first, again = pool.map(batch), pool.map(list(reversed(batch)))
    assert first == local
    assert again == list(reversed(local))  # the same workers, their envs warm, still exact


def test_a_closed_pool_and_bad_sizes_are_refused_clearly() -> None:
    pool = ProcessEpisodePool(1)
    pool.close()
    with pytest.raises(RuntimeError, match="the pool is closed"):
        pool.map(specs()[:1])
    for bad in (0, -1, 2.5, True, "2"):
        with pytest.raises(ValueError, match="num_workers must be a whole number of at least 1"):
            ProcessEpisodePool(bad)  # type: ignore[arg-type]
    with pytest.raises((ImportError, AttributeError)):
        ProcessEpisodePool(1, runner="officegym.no_such_module:play")
    assert default_workers() >= 1


def comparable(path: Path) -> dict[str, dict[str, Any]]:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {r["key"]: {k: v for k, v in r.items() if k not in TIMED} for r in records}


@pytest.mark.parametrize("policy", ["oracle", "random"])
def test_eval_on_processes_writes_the_records_the_local_backend_writes(tmp_path: Path, policy: str) -> None:
    runs = {}
    for backend in ("local", "processes"):
        out = tmp_path / f"{backend}.jsonl"
        arguments = ["eval", "officegym/InvoiceApproval-v0", "--policy", policy, "-r", "2", "-n", "6", "-q"]
        assert main([*arguments, "--backend", backend, "-c", "2", "-o", str(out)]) == 0
        runs[backend] = comparable(out)
    assert len(runs["local"]) == 12
    assert runs["processes"] == runs["local"]


def test_an_llm_policy_is_refused_on_processes_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "llm.jsonl"
    arguments = ["eval", "officegym/VendorReview-v0", "--policy", "openai", "--model", "m", "-q", "-o", str(out)]
    code = main([*arguments, "-b", "http://127.0.0.1:9/v1", "--backend", "processes"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: --backend processes runs scripted policies") and err.count("\n") == 1
    assert not out.exists()


def test_factories_and_fatal_errors_cross_the_process_boundary_whole() -> None:
    check_sendable(ScriptedPolicyFactory("oracle"))
    with pytest.raises(ValueError, match="use --backend local for LLMs"):
        check_sendable(lambda env, seed: None)  # type: ignore[arg-type,return-value]
    error = pickle.loads(pickle.dumps(InfrastructureError("bad key", fatal=True)))
    assert isinstance(error, InfrastructureError) and error.fatal and str(error) == "bad key"
