"""The batched vector mode against sync and async, and whole gold episodes on two workers against one process.

``python -m benchmarks.batched [--quick]`` writes ``benchmarks/results/batched.json``.

- Env-steps/s of ``sync``, ``async`` and ``batched`` (default ``envs_per_worker``: one worker per core) at 8, 16
  and 64 envs, both envs, one read-tool call per step (``throughput.READ_ACTION``): every round times the three
  modes in alternating order, so a slow patch of the shared machine hits all of them; rates and the ratios
  batched/sync and batched/async are medians over the rounds (ratios taken per round).
- Whole gold episodes per second: one plain process playing the oracle's paths task after task, against a
  batched vector env on two hosts (this process and one worker) whose sub-envs play the same paths for whatever
  task the autoreset drew; and, as the ceiling's measure, one host's envs stepped in this process exactly as the
  batched mode steps its own slice, with no second process. Twice that rate is what two hosts would reach if
  feeding the second cost nothing: the vector machinery (autoreset, Gymnasium's per-key info arrays for every
  finished episode's grade) and the many interleaved envs' colder caches are paid on every host.

Targets (issue 16): at 64 envs, batched >= 1.5x sync env-steps/s; whole episodes on two cores >= 1.5x one process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from officegym.vector.batched_infos import vector_info

from .throughput import ENV_KWARGS, TASK, open_vector, steps_per_s

RESULTS = Path(__file__).parent / "results"
MODES = ("sync", "async", "batched")
SIZES = (8, 16, 64)
FINISH = {"name": "finish", "arguments": {}}
EPISODE_ENVS = 32  # 2 workers x 16 envs: enough envs per round trip to amortize it


def vector_rows(env_id: str, num_envs: int, seconds: float, rounds: int) -> dict[str, Any]:
    """The three modes side by side at one size (see the module docstring)."""
    envs = {mode: open_vector(env_id, mode, num_envs) for mode in MODES}
    rates: dict[str, list[float]] = {mode: [] for mode in MODES}
    for round_number in range(rounds):
        order = MODES if round_number % 2 == 0 else MODES[::-1]
        for mode in order:
            rates[mode].append(steps_per_s(envs[mode], env_id, seconds))
    for vector_env in envs.values():
        vector_env.close()
    row: dict[str, Any] = {"env": env_id.split("/")[1], "num_envs": num_envs}
    row.update({f"{mode}_steps_per_s": round(statistics.median(rates[mode])) for mode in MODES})
    for other in ("sync", "async"):
        ratios = [b / o for b, o in zip(rates["batched"], rates[other], strict=True)]
        row[f"batched_vs_{other}"] = round(statistics.median(ratios), 2)
        row[f"batched_vs_{other}_range"] = [round(min(ratios), 2), round(max(ratios), 2)]
    return row


def gold_paths(env_id: str) -> dict[str, list[dict[str, Any]]]:
    """Each task's oracle path, checked to end its episode (InvoiceApproval's gold path ends with ``finish``
    added here, as the oracle plays it)."""
    env: Any = gym.make(env_id, **ENV_KWARGS[env_id])
    paths = {}
    for task_id in env.unwrapped.task_ids:
        path = list(env.unwrapped.gold_actions(task_id))
        env.reset(options={"task_id": task_id})
        done = False
        for action in path:
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        if not done:
            path.append(FINISH)
            assert env.step(FINISH)[2], f"{task_id}: the gold path plus finish does not end the episode"
        paths[task_id] = path
    env.close()
    return paths


class PlainRunner:
    """One env in this process, playing the gold paths task after task."""

    def __init__(self, env_id: str, paths: dict[str, list[dict[str, Any]]]) -> None:
        self.env = gym.make(env_id)
        self.paths = paths
        self.tasks = list(paths)
        self.next_task = 0

    def run(self, seconds: float) -> tuple[int, int]:
        episodes, steps, start = 0, 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            task_id = self.tasks[self.next_task % len(self.tasks)]
            self.next_task += 1
            self.env.reset(options={"task_id": task_id})
            for action in self.paths[task_id]:
                self.env.step(action)
            episodes, steps = episodes + 1, steps + len(self.paths[task_id])
        return episodes, steps


class OneHost:
    """One host's envs stepped in this process exactly as the batched mode steps its own slice (``_Host``, then
    the vector info from their infos), with no second process: what a host costs per env-step."""

    def __init__(self, env_id: str, num_envs: int) -> None:
        from officegym.vector.batched import _Host

        self.num_envs = num_envs
        self.host = _Host(gym.spec(env_id), {}, num_envs)

    def reset(self, seed: int) -> tuple[list[Any], dict[str, Any]]:
        obs, calls = self.host.reset([seed + i for i in range(self.num_envs)], None, None)
        return obs, vector_info(calls, self.num_envs)

    def step(self, actions: Any) -> tuple[Any, ...]:
        obs, rewards, terminated, truncated, calls = self.host.step(list(actions))
        ended = (np.array(terminated, dtype=np.bool_), np.array(truncated, dtype=np.bool_))
        return obs, np.array(rewards), *ended, vector_info(calls, self.num_envs)

    def close(self) -> None:
        self.host.close()


class VectorRunner:
    """Sub-envs that each play the gold path of the task their (auto)reset drew: a batched vector env on two
    hosts (this process and one worker) of ``EPISODE_ENVS // 2`` envs each, or one such host alone
    (``OneHost``: the ceiling's measure)."""

    def __init__(self, env_id: str, paths: dict[str, list[dict[str, Any]]], one_host: bool = False) -> None:
        import officegym

        self.paths = paths
        self.num_envs = EPISODE_ENVS // 2 if one_host else EPISODE_ENVS
        self.envs: Any = (
            OneHost(env_id, self.num_envs)
            if one_host
            else officegym.make_vec(
                env_id, EPISODE_ENVS, vectorization_mode="batched", envs_per_worker=EPISODE_ENVS // 2
            )
        )
        _, infos = self.envs.reset(seed=0)
        self.tasks = list(infos["task_id"])
        self.position = [0] * self.num_envs

    def run(self, seconds: float) -> tuple[int, int]:
        episodes, steps, start = 0, 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            actions = tuple(self.paths[task][pos] for task, pos in zip(self.tasks, self.position, strict=True))
            _, _, terminated, truncated, infos = self.envs.step(actions)
            steps += self.num_envs
            for i, ended in enumerate(terminated | truncated):
                if ended:
                    episodes += 1
                    self.tasks[i], self.position[i] = infos["task_id"][i], 0
                else:
                    self.position[i] += 1
        return episodes, steps


def episode_rows(env_id: str, seconds: float, rounds: int) -> dict[str, Any]:
    """Plain, batched and one host alone, in alternating order every round. The ceiling is twice the one-host
    rate over the plain one: what two hosts would reach if feeding the second cost nothing."""
    paths = gold_paths(env_id)
    runners: dict[str, Any] = {
        "plain": PlainRunner(env_id, paths),
        "batched": VectorRunner(env_id, paths),
        "one_host": VectorRunner(env_id, paths, one_host=True),
    }
    runners["batched"].run(0.2)  # warm-up
    runners["one_host"].run(0.2)
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in runners}
    for round_number in range(rounds):
        for name in list(runners) if round_number % 2 == 0 else list(runners)[::-1]:
            start = time.perf_counter()
            episodes, steps = runners[name].run(seconds)
            elapsed = time.perf_counter() - start
            rates[name].append((episodes / elapsed, steps / elapsed))
    runners["batched"].envs.close()
    runners["one_host"].envs.close()
    ratios = [b[0] / p[0] for b, p in zip(rates["batched"], rates["plain"], strict=True)]
    one_host = [h[0] / p[0] for h, p in zip(rates["one_host"], rates["plain"], strict=True)]
    row: dict[str, Any] = {"env": env_id.split("/")[1], "batched_envs": EPISODE_ENVS, "batched_hosts": 2}
    for name, values in rates.items():
        row[f"{name}_episodes_per_s"] = round(statistics.median(v[0] for v in values), 1)
        row[f"{name}_steps_per_s"] = round(statistics.median(v[1] for v in values))
    row["batched_vs_plain"] = round(statistics.median(ratios), 2)
    row["batched_vs_plain_range"] = [round(min(ratios), 2), round(max(ratios), 2)]
    row["one_host_vs_plain"] = round(statistics.median(one_host), 2)
    row["two_core_ceiling_vs_plain"] = round(2 * statistics.median(one_host), 2)
    return row


def run(quick: bool = False) -> dict[str, Any]:
    seconds, rounds = (0.15, 1) if quick else (0.3, 5)
    vector = [vector_rows(env_id, n, seconds, rounds) for env_id in TASK for n in SIZES]
    episodes = [episode_rows(env_id, 2 * seconds, rounds) for env_id in TASK]
    at_64 = [row["batched_vs_sync"] for row in vector if row["num_envs"] == 64]
    return {
        "cpus": os.cpu_count(),
        "vector": vector,
        "episodes": episodes,
        "targets": {
            "batched_vs_sync_at_64_envs_ge_1.5": {"values": at_64, "met": all(r >= 1.5 for r in at_64)},
            "episodes_vs_plain_ge_1.5": {
                "values": [row["batched_vs_plain"] for row in episodes],
                "met": all(row["batched_vs_plain"] >= 1.5 for row in episodes),
            },
        },
    }


def print_tables(result: dict[str, Any]) -> None:
    print("| env | envs | sync | async | batched | batched/sync | batched/async |")
    print("|---|---|---|---|---|---|---|")
    for r in result["vector"]:
        print(
            f"| {r['env']} | {r['num_envs']} | {r['sync_steps_per_s']:,} | {r['async_steps_per_s']:,} | "
            f"{r['batched_steps_per_s']:,} | {r['batched_vs_sync']}x {r['batched_vs_sync_range']} | "
            f"{r['batched_vs_async']}x {r['batched_vs_async_range']} |"
        )
    print(
        "\n| env | plain episodes/s (steps/s) | batched, 2 hosts (steps/s) | batched/plain | "
        "one host alone / plain | two-core ceiling |"
    )
    print("|---|---|---|---|---|---|")
    for r in result["episodes"]:
        print(
            f"| {r['env']} | {r['plain_episodes_per_s']:,} ({r['plain_steps_per_s']:,}) | "
            f"{r['batched_episodes_per_s']:,} ({r['batched_steps_per_s']:,}) | "
            f"{r['batched_vs_plain']}x {r['batched_vs_plain_range']} | {r['one_host_vs_plain']}x | "
            f"{r['two_core_ceiling_vs_plain']}x |"
        )
    print("\ntargets:", json.dumps(result["targets"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="one short round (a smoke run, not for the README)")
    args = parser.parse_args()
    result = run(quick=args.quick)
    if not args.quick:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "batched.json").write_text(json.dumps(result, indent=2) + "\n")
    print_tables(result)


if __name__ == "__main__":
    main()
