"""The Ray backend plays whole episodes on actors and reproduces the local backend exactly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import ray

from officegym.evaluation.ray_backend import EpisodeSpec, RayEpisodePool, init_ray, run_local, run_ray


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    init_ray(num_cpus=2)
    yield
    ray.shutdown()


def _specs() -> list[EpisodeSpec]:
    invoice = [EpisodeSpec("officegym/InvoiceApproval-v0", f"single-{n}", n, policy)
               for n in range(1, 7) for policy in ("solver", "random")]
    vendor = [EpisodeSpec("officegym/VendorReview-v0", task, seed, policy)
              for seed, task in enumerate(["vr-easy-01", "vr-hard-01", "vr-medium-07"])
              for policy in ("oracle", "paranoid", "random")]
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
    spec = EpisodeSpec("officegym/InvoiceApproval-v0", "single-1", 0, "random",
                       {"task_ids": ["single-1"], "max_turns": 12})
    (result,) = run_ray([spec], num_workers=1)
    assert result["turns"] <= 12
