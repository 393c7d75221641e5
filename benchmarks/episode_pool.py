"""The process-per-core episode pool against one process, side by side in one run, as ratios.

``python -m benchmarks.episode_pool`` (``make bench`` runs it). The workload is oracle and random episodes of
both domains' shipped tasks, several rounds. Each repeat times, in alternating order, one process playing the
workload in its own loop (``run_local``, the floor) and a warm ``ProcessEpisodePool`` of 1 and 2 workers
(start-up excluded: each worker plays one episode of every task as it starts, as the one process has before its
clock starts), and checks the pool's results are identical to one process.
The ``eval`` section times ``officegym eval --backend local`` against ``--backend processes`` on the same
scripted run, start-up included (what a user waits for).

The load average is recorded around the run: on a shared 2-core machine a second worker scales only when the
second core is free, and the spread of the per-repeat ratios says how often it was.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from officegym.evaluation.process_backend import ProcessEpisodePool
from officegym.evaluation.ray_backend import EpisodeSpec, run_local

RESULTS = Path(__file__).parent / "results" / "episode_pool.json"
ENVS = ("officegym/InvoiceApproval-v0", "officegym/InvoiceApproval-v1", "officegym/VendorReview-v2")


def workload(rounds: int) -> list[EpisodeSpec]:
    import gymnasium as gym

    import officegym  # noqa: F401

    specs: list[EpisodeSpec] = []
    for env_id in ENVS:
        env = gym.make(env_id)
        tasks = list(env.unwrapped.task_ids)  # type: ignore[attr-defined]
        env.close()
        specs += [
            EpisodeSpec(env_id, task, seed, policy)
            for seed in range(rounds)
            for policy in ("oracle", "random")
            for task in tasks
        ]
    return specs


def _pool_rate(workers: int, specs: list[EpisodeSpec], expected: list[dict[str, Any]]) -> float:
    # one oracle episode per task: every worker makes every env and grades every task once before the clock
    warmup = list({(spec.env_id, spec.task_id): spec for spec in specs if spec.policy == "oracle"}.values())
    with ProcessEpisodePool(workers, warmup=warmup) as pool:
        pool.map(specs[: 8 * workers])  # every worker started (the executor starts them on demand)
        start = time.perf_counter()
        results = pool.map(specs)
        seconds = time.perf_counter() - start
    assert results == expected, "the pool must reproduce one process's results"
    return len(specs) / seconds


def _local_rate(specs: list[EpisodeSpec]) -> float:
    start = time.perf_counter()
    run_local(specs)
    return len(specs) / (time.perf_counter() - start)


def _spread(values: list[float], digits: int = 2) -> dict[str, Any]:
    return {
        "median": round(statistics.median(values), digits),
        "range": [round(min(values), digits), round(max(values), digits)],
    }


def pool_section(rounds: int, repeats: int) -> dict[str, Any]:
    specs = workload(rounds)
    expected = run_local(specs)  # also warms this process's envs, as the pool's warm-up does
    rates: dict[str, list[float]] = {"one_process": [], "pool_1": [], "pool_2": []}
    for _ in range(repeats):
        rates["one_process"].append(_local_rate(specs))
        rates["pool_1"].append(_pool_rate(1, specs, expected))
        rates["pool_2"].append(_pool_rate(2, specs, expected))
    ratio = [two / one for two, one in zip(rates["pool_2"], rates["one_process"], strict=True)]
    return {
        "episodes": len(specs),
        "repeats": repeats,
        "episodes_per_s": {name: _spread(values, 1) for name, values in rates.items()},
        "pool_2_vs_one_process": _spread(ratio),
        "pool_1_vs_one_process": _spread(
            [one_w / one for one_w, one in zip(rates["pool_1"], rates["one_process"], strict=True)]
        ),
        "target_pool_2_vs_one_process": 1.8,
    }


def eval_section(rollouts: int) -> dict[str, Any]:
    from officegym.cli import main

    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for backend in ("local", "processes"):
            out = Path(folder) / f"{backend}.jsonl"
            start = time.perf_counter()
            options = ["--policy", "random", "-r", str(rollouts), "-q", "--backend", backend, "-c", "2"]
            code = main(["eval", "officegym/InvoiceApproval-v1", *options, "-o", str(out)])
            seconds[backend] = time.perf_counter() - start
            assert code == 0
    return {
        "run": f"officegym eval officegym/InvoiceApproval-v1 --policy random -r {rollouts} -c 2",
        "seconds": {name: round(value, 2) for name, value in seconds.items()},
        "processes_vs_local_speedup": round(seconds["local"] / seconds["processes"], 2),
    }


def run(rounds: int = 3, repeats: int = 3, rollouts: int = 5) -> dict[str, Any]:
    before = os.getloadavg()
    result: dict[str, Any] = {"pool": pool_section(rounds, repeats), "eval": eval_section(rollouts)}
    result["load_average_1_5_15"] = {
        "before": [round(x, 2) for x in before],
        "after": [round(x, 2) for x in os.getloadavg()],
    }
    result["cpus"] = os.cpu_count()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round, one repeat (a smoke run)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = run(1, 1, 2) if args.quick else run()
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
