"""The Ray backend plays whole episodes on actors and reproduces the local backend exactly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from officegym.evaluation.ray_backend import EpisodeSpec, RayEpisodePool, init_ray, run_local, run_ray

# The ray extra pins gymnasium 1.2.2, so `make test` runs these in their own venv (.venv-ray); elsewhere they skip
ray = pytest.importorskip("ray", reason="needs the ray extra: `make test` runs these in .venv-ray")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    init_ray(num_cpus=2)
    yield
    ray.shutdown()


def _specs() -> list[EpisodeSpec]:
    invoice = [
        EpisodeSpec("officegym/InvoiceApproval-v0", f"single-{n}", n, policy)
        for n in range(1, 7)
        for policy in ("solver", "random")
    ]
    vendor = [
        EpisodeSpec("officegym/VendorReview-v0", task, seed, policy)
        for seed, task in enumerate(["vr-easy-01", "vr-hard-01", "vr-medium-07"])
        for policy in ("oracle", "paranoid", "random")
    ]
    return invoice + vendor


def test_ray_results_equal_local_results(local_ray: None) -> None:
    specs = _specs()
    local = run_local(specs)
    assert run_ray(specs, num_workers=2) == local
    assert [r["task_id"] for r in local] == [s.task_id for s in specs]
    assert sum(r["reward"] for r in local if r["task_id"].startswith("single")) == 6.0  # the solver's six


def test_a_pool_stays_warm_across_batches(local_ray: None) -> None:
    specs = _specs()[:6]
    with RayEpisodePool(2) as pool:
        first, second = pool.map(specs), pool.map(specs)
    assert first == second == run_local(specs)


def test_env_kwargs_reach_the_workers(local_ray: None) -> None:
    spec = EpisodeSpec(
        "officegym/InvoiceApproval-v0", "single-1", 0, "random", {"task_ids": ["single-1"], "max_turns": 12}
    )
    (result,) = run_ray([spec], num_workers=1)
    assert result["turns"] <= 12


def _records(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {r["key"]: {k: v for k, v in r.items() if k not in ("started_at", "timing")} for r in rows}


@pytest.mark.parametrize(
    "env_id, policy, tasks",
    [
        ("officegym/InvoiceApproval-v0", "solver", "single-1,batch-2"),
        ("officegym/VendorReview-v0", "random", "vr-easy-01,vr-hard-01"),
    ],
)
def test_eval_with_the_ray_backend_matches_the_local_backend(
    local_ray: None, tmp_path: Path, env_id: str, policy: str, tasks: str
) -> None:
    from officegym.cli import main

    common = ["eval", env_id, "--policy", policy, "--task-ids", tasks, "-r", "2", "-c", "2", "-q"]
    assert main([*common, "-o", str(tmp_path / "local")]) == 0
    assert main([*common, "-o", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    name = f"{env_id.split('/')[1]}__{policy}.jsonl"
    local, remote = _records(tmp_path / "local" / name), _records(tmp_path / "ray" / name)
    assert len(local) == 4 and local == remote


def test_the_rllib_example_trains(tmp_path: Path) -> None:
    """RLlib PPO with two env runners on the SB3 adapter's spaces: one training iteration end to end."""
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "examples.rllib_ppo",
            "--iterations",
            "1",
            "--env-runners",
            "2",
            "--envs-per-runner",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).parents[2],
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "iteration 1: return" in out.stdout
