"""Throughput and scale of both envs: vector envs at 1/2/4/8 envs against a no-op text env, oracle episodes,
memory per env instance, reset and grading time.

Every vector figure is a ratio against the no-op env measured side by side (interleaved rounds, medians)
with the same vector machinery, so what remains is officegym's own cost per step.
"""

from __future__ import annotations

import gc
import json
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import officegym
from officegym.policies import run_episode
from officegym.policies.registry import make_policy

from . import noop_env  # noqa: F401  (registers the no-op env)
from .timing import sample_us, summary

READ_ACTION = {
    "officegym/InvoiceApproval-v0": {"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00100"}},
    "officegym/VendorReview-v0": {"name": "read_doc", "arguments": {"doc_id": "questionnaire"}},
    "officegym-bench/Noop-v0": {"name": "noop", "arguments": {}},
}
TASK = {"officegym/InvoiceApproval-v0": "batch-1", "officegym/VendorReview-v0": "vr-easy-01"}
ENV_KWARGS: dict[str, dict[str, Any]] = {
    "officegym/InvoiceApproval-v0": {"max_turns": 10**9},
    "officegym/VendorReview-v0": {"max_turns": 10**9},
    "officegym-bench/Noop-v0": {},
}


NOOP = "officegym-bench/Noop-v0"


def open_vector(env_id: str, mode: str, num_envs: int) -> Any:
    """A vector env on one long episode per sub-env, warmed up."""
    envs = officegym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **ENV_KWARGS[env_id])
    envs.reset(seed=0, options={"task_id": TASK[env_id]} if env_id in TASK else None)
    actions = (READ_ACTION[env_id],) * num_envs
    for _ in range(20):
        envs.step(actions)
    return envs


def steps_per_s(envs: Any, env_id: str, seconds: float) -> float:
    """Env-steps per second of one read action repeated in every sub-env, for about ``seconds``."""
    num_envs: int = envs.num_envs
    actions = (READ_ACTION[env_id],) * num_envs
    batches, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(50):
            envs.step(actions)
        batches += 50
    return batches * num_envs / (time.perf_counter() - start)


def vector_rows(mode: str, num_envs: int, seconds: float, rounds: int) -> list[dict[str, Any]]:
    """Both envs against the no-op env at one size, measured side by side: every round times each of the
    three for ``seconds``, in alternating order, so a slow patch of a shared machine hits both sides of a
    ratio. Rates and ratios are the medians over the rounds; ``cost_range`` is the spread of the per-round
    ratios."""
    ids = [NOOP, *TASK]
    envs = {env_id: open_vector(env_id, mode, num_envs) for env_id in ids}
    rates: dict[str, list[float]] = {env_id: [] for env_id in ids}
    ratios: dict[str, list[float]] = {env_id: [] for env_id in TASK}
    for round_number in range(rounds):
        order = ids if round_number % 2 == 0 else ids[::-1]  # ABC, CBA, ...: a drifting machine cancels out
        rate = {env_id: steps_per_s(envs[env_id], env_id, seconds) for env_id in order}
        for env_id in ids:
            rates[env_id].append(rate[env_id])
        for env_id in TASK:
            ratios[env_id].append(rate[NOOP] / rate[env_id])
    for vector_env in envs.values():
        vector_env.close()
    return [
        {
            "env": env_id.split("/")[1],
            "mode": mode,
            "num_envs": num_envs,
            "steps_per_s": round(statistics.median(rates[env_id])),
            "noop_steps_per_s": round(statistics.median(rates[NOOP])),
            "cost_vs_noop": round(statistics.median(ratios[env_id]), 2),
            "cost_range": [round(min(ratios[env_id]), 2), round(max(ratios[env_id]), 2)],
        }
        for env_id in TASK
    ]


def vector_table(seconds: float, rounds: int) -> list[dict[str, Any]]:
    return [row for mode in ("sync", "async") for n in (1, 2, 4, 8) for row in vector_rows(mode, n, seconds, rounds)]


def oracle_episodes(env_id: str, rounds: int) -> dict[str, float]:
    env = gym.make(env_id)
    task_ids = list(env.unwrapped.task_ids)  # type: ignore[attr-defined]
    policy = make_policy("oracle", env)
    steps, start = 0, time.perf_counter()
    for _ in range(rounds):
        for task_id in task_ids:
            steps += run_episode(env, policy, task_id=task_id).turns
    seconds = time.perf_counter() - start
    return {"episodes_per_s": round(rounds * len(task_ids) / seconds, 1), "steps_per_s": round(steps / seconds)}


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def memory_per_env(env_id: str, count: int = 64) -> dict[str, float]:
    """Measured in a fresh process, so that memory freed by earlier benchmarks cannot hide the growth."""
    code = (
        "import json; from benchmarks.throughput import memory_in_this_process as m; "
        f"print(json.dumps(m({env_id!r}, {count})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def memory_in_this_process(env_id: str, count: int) -> dict[str, float]:
    """RSS growth when ``count`` envs each hold a live episode, after one warm env loaded the shared assets."""
    warm = gym.make(env_id)
    warm.reset(seed=0)
    gc.collect()
    before = rss_mb()
    envs = [gym.make(env_id) for _ in range(count)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    gc.collect()
    growth = rss_mb() - before
    return {"envs": count, "rss_growth_mb": round(growth, 1), "per_env_kb": round(growth * 1024 / count, 1)}


def grading_us(env_id: str, repeats: int) -> dict[str, Any]:
    env = gym.make(env_id)
    inner: Any = env.unwrapped
    longest = max(inner.task_ids, key=lambda t: len(inner.gold_actions(t)))
    env.reset(options={"task_id": longest})
    path = inner.gold_actions(longest)
    for action in path[:-1] if env_id.endswith("VendorReview-v0") else path:  # a submission would end it
        env.step(action)
    ctx = inner.episode
    return {"task": longest, **summary(sample_us(lambda: inner._grade_episode(ctx), repeats))}


def reset_us(env_id: str, repeats: int) -> dict[str, float]:
    env = gym.make(env_id)
    return summary(sample_us(lambda: env.reset(options={"task_id": TASK[env_id]}), repeats))


def fork_vs_reset_us(env_id: str, repeats: int) -> dict[str, Any]:
    """``fork()`` from the middle of a gold path, beside the resets it is compared with: a reset of a running env
    (which reuses its connection) and a reset of a fresh env. ``fork`` keeps every fork (no spare connection to
    reuse); ``fork_and_close`` is the tree-search pattern (fork, explore, discard), where a discarded fork's
    connection serves the next. Target: a fork costs at most twice a reset. Interleaved, so the machine's noise
    hits all of them alike.

    For a domain on SQLite, ``new_connection_floor`` is what any kept copy costs at least, done bare: a new
    connection, ``deserialize`` of the books into fresh memory, and the first statement (which parses the
    schema), each kept alive like the forks. A reset reuses its connection and memory, so it pays none of it."""
    env: Any = gym.make(env_id, max_turns=10_000).unwrapped
    task = TASK[env_id]
    gold = env.gold_actions(task)
    env.reset(options={"task_id": task})
    for action in gold[: len(gold) // 2]:
        env.step(action)
    running = gym.make(env_id)
    samples: dict[str, list[np.ndarray]] = {"fork": [], "fork_and_close": [], "reset": [], "reset_fresh_env": []}
    kept: list[Any] = []
    template: bytes | None = getattr(getattr(env, "bundle", None), "template", None)
    if template is not None:
        samples["new_connection_floor"] = []
    for _ in range(max(1, repeats // 50)):
        if template is not None:
            samples["new_connection_floor"].append(sample_us(lambda: kept.append(_bare_copy(template)), 50))
        samples["fork"].append(sample_us(lambda: kept.append(env.fork()), 50))
        samples["fork_and_close"].append(sample_us(lambda: env.fork().close(), 50))
        samples["reset"].append(sample_us(lambda: running.reset(options={"task_id": task}), 50))
        samples["reset_fresh_env"].append(sample_us(lambda: gym.make(env_id).reset(options={"task_id": task}), 50))
    rows: dict[str, Any] = {name: summary(np.concatenate(values)) for name, values in samples.items()}
    rows["fork_vs_reset"] = round(rows["fork"]["p50_us"] / rows["reset"]["p50_us"], 2)
    rows["fork_vs_fresh_reset"] = round(rows["fork"]["p50_us"] / rows["reset_fresh_env"]["p50_us"], 2)
    rows["fork_and_close_vs_reset"] = round(rows["fork_and_close"]["p50_us"] / rows["reset"]["p50_us"], 2)
    if template is not None:
        rows["fork_vs_new_connection_floor"] = round(rows["fork"]["p50_us"] / rows["new_connection_floor"]["p50_us"], 2)
    for fork in kept:
        fork.close()
    return rows


def _bare_copy(blob: bytes) -> sqlite3.Connection:
    """A kept, private copy of a database, bare: the least a forked SQLite episode can cost."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.deserialize(blob)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()
    return conn


def run(quick: bool = False) -> dict[str, Any]:
    seconds, repeats, rounds = (0.2, 200, 1) if quick else (0.4, 3000, 5)
    return {
        "vector": vector_table(seconds, rounds=1 if quick else 12),
        "oracle_episodes": {env_id: oracle_episodes(env_id, rounds) for env_id in TASK},
        "memory": {env_id: memory_per_env(env_id) for env_id in TASK},
        "grading": {env_id: grading_us(env_id, repeats // 10) for env_id in TASK},
        "reset": {env_id: reset_us(env_id, repeats) for env_id in TASK},
        "fork": {env_id: fork_vs_reset_us(env_id, repeats // 10) for env_id in TASK},
    }
