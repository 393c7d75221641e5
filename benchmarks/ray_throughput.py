"""Ray scaling: whole-episode workers at 1/2/4 actors, warm, on a fixed workload of oracle episodes.

``python -m benchmarks.ray_throughput`` (needs the ``ray`` extra). The workload is both domains' full task
sets, several rounds; actor start-up is excluded (each pool plays a warm-up batch first). Results are checked
to be identical to the local backend.
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

from officegym.evaluation.ray_backend import EpisodeSpec, RayEpisodePool, init_ray, run_local

TASKS = {
    "officegym/InvoiceApproval-v0": [
        f"{tier}-{n}"
        for tier, count in (("single", 20), ("batch", 20), ("long", 10), ("hard", 10))
        for n in range(1, count + 1)
    ]
}


def workload(rounds: int) -> list[EpisodeSpec]:
    from officegym.envs.vendor_review.v0.tasks import scenarios

    tasks = {**TASKS, "officegym/VendorReview-v0": sorted(scenarios())}
    return [
        EpisodeSpec(env_id, task, seed, "oracle")
        for seed in range(rounds)
        for env_id, ids in tasks.items()
        for task in ids
    ]


def run(rounds: int = 8, workers: tuple[int, ...] = (1, 2, 4), repeats: int = 3) -> dict[str, Any]:
    """Episodes/s per worker count, ``repeats`` times in alternating order, as medians with the spread of the
    per-repeat figures and of the ratio to one worker, and the machine's load average around the run: on a
    shared 2-core machine the second worker scales only when the second core is free, and the spread says so."""
    specs = workload(rounds)
    start = time.perf_counter()
    local = run_local(specs)
    local_rate = round(len(specs) / (time.perf_counter() - start), 1)
    load_before = os.getloadavg()
    init_ray(num_cpus=max(workers))
    rates: dict[int, list[float]] = {n: [] for n in workers}
    for _ in range(repeats):
        for n in workers:
            rates[n].append(_timed(n, specs, local))
    import ray

    ray.shutdown()
    one = rates[min(workers)]
    rows: list[dict[str, Any]] = [{"backend": "local", "workers": 1, "episodes_per_s": local_rate}]
    for n in workers:
        ratios = [rate / base for rate, base in zip(rates[n], one, strict=True)]
        rows.append(
            {
                "backend": "ray",
                "workers": n,
                "episodes_per_s": round(statistics.median(rates[n]), 1),
                "episodes_per_s_range": [round(min(rates[n]), 1), round(max(rates[n]), 1)],
                "vs_one_ray_worker": round(statistics.median(ratios), 2),
                "vs_one_ray_worker_range": [round(min(ratios), 2), round(max(ratios), 2)],
            }
        )
    rows[0]["vs_one_ray_worker"] = round(local_rate / statistics.median(one), 2)
    return {
        "episodes": len(specs),
        "repeats": repeats,
        "rows": rows,
        "load_average_1_5_15": {
            "before": [round(x, 2) for x in load_before],
            "after": [round(x, 2) for x in os.getloadavg()],
        },
    }


def _timed(workers: int, specs: list[EpisodeSpec], expected: list[dict[str, Any]]) -> float:
    """Episodes/s of one warm pool of ``workers`` actors on the whole workload (start-up excluded)."""
    with RayEpisodePool(workers) as pool:
        pool.map(specs[: 4 * workers])
        start = time.perf_counter()
        results = pool.map(specs)
        seconds = time.perf_counter() - start
    assert results == expected, "the Ray backend must reproduce the local results"
    return len(specs) / seconds


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
