"""Ray scaling: whole-episode workers at 1/2/4 actors, warm, on a fixed workload of oracle episodes.

``python -m benchmarks.ray_throughput`` (needs the ``ray`` extra). The workload is both domains' full task
sets, several rounds; actor start-up is excluded (each pool plays a warm-up batch first). Results are checked
to be identical to the local backend.
"""

from __future__ import annotations

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
    from officegym.envs.vendor_review.tasks import scenarios

    tasks = {**TASKS, "officegym/VendorReview-v0": sorted(scenarios())}
    return [
        EpisodeSpec(env_id, task, seed, "oracle")
        for seed in range(rounds)
        for env_id, ids in tasks.items()
        for task in ids
    ]


def run(rounds: int = 8, workers: tuple[int, ...] = (1, 2, 4)) -> dict[str, Any]:
    specs = workload(rounds)
    start = time.perf_counter()
    local = run_local(specs)
    rows: list[dict[str, Any]] = [
        {"backend": "local", "workers": 1, "episodes_per_s": round(len(specs) / (time.perf_counter() - start), 1)}
    ]
    init_ray(num_cpus=max(workers))
    for n in workers:
        with RayEpisodePool(n) as pool:
            pool.map(specs[: 4 * n])
            start = time.perf_counter()
            results = pool.map(specs)
            seconds = time.perf_counter() - start
        assert results == local, "the Ray backend must reproduce the local results"
        rows.append({"backend": "ray", "workers": n, "episodes_per_s": round(len(specs) / seconds, 1)})
    import ray

    ray.shutdown()
    one = next(r["episodes_per_s"] for r in rows if r["backend"] == "ray" and r["workers"] == 1)
    for row in rows:
        row["vs_one_ray_worker"] = round(row["episodes_per_s"] / one, 2)
    return {"episodes": len(specs), "rows": rows}


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
