"""Companies on demand (issue 26): a generated company's ready time, a task's first grading, InvoiceApproval-v1's
``get_document`` and a whole v1 episode, each beside its floor or target, in one run.

``python -m benchmarks.companies [--quick]`` writes ``benchmarks/results/companies.json``. Every figure that
depends on the on-disk company cache runs in a fresh interpreter with its own ``OFFICEGYM_CACHE_DIR`` (a temp
folder, or ``""`` for the cache off), so the user's cache is neither used nor touched, and a process's own
in-memory caches never warm another figure:

- **ready**: ``env = Env(company_seed=7)`` and its first ``reset()`` (imports excluded, reported apart): cold
  (generation, with the cache on and empty: what the first process on a machine pays) against cached (the next
  processes), against the 0.5 s target;
- **first grading**: the first ``_grade_episode`` of a process, on the longest task's finished gold path, for the
  shipped company: with the cache (gold deltas stored) and without it (the gold path replayed), against the
  warm grading measured after it in the same process and the 2 ms target;
- **get_document** against the bare ``SELECT body`` on the same connection, and against rendering the stored
  JSON on every call (what it did before);
- **train seeds**: v1's train-seed search with its first company, cold and from the cache;
- **whole v1 episodes**: every gold path of the shipped v1 company played through ``env.step`` (reset, the
  steps, the grade at ``finish``) against the same SQL statements, recorded on the way through the episode's
  connection (``Recorder``: every ``execute`` and ``executemany``) and replayed bare (``execute`` + ``fetchall``,
  ``executemany``) on a connection holding the same books; interleaved rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from .timing import sample_us, summary

SEED = 7  # a generated company both versions can build at scale 1 (the scale benchmark's seed)
READY_TARGET_S = 0.5
COLD_GRADE_TARGET_MS = 2.0
EPISODE_TARGET_RATIO = 2.0
RESULTS = Path(__file__).with_name("results")
ENVS = {
    "v0": "officegym.envs.invoice_approval.v0.env:InvoiceApprovalEnv",
    "v1": "officegym.envs.invoice_approval.v1.env:InvoiceApprovalV1Env",
}
HANG_GUARD_S = 3600  # a generation on a loaded machine can take minutes; this only stops a hung child


def env_class(version: str) -> Any:
    module, name = ENVS[version].split(":")
    return getattr(__import__(module, fromlist=[name]), name)


def in_child(function: str, cache_dir: str, *args: Any) -> Any:
    """``function(*args)`` of this module in a fresh interpreter with ``OFFICEGYM_CACHE_DIR=cache_dir``."""
    code = f"import json; from benchmarks.companies import {function}; print(json.dumps({function}(*{args!r})))"
    env = {**os.environ, "OFFICEGYM_CACHE_DIR": cache_dir}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, timeout=HANG_GUARD_S
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def ready_once(version: str, seed: int) -> dict[str, float]:
    """In a fresh process: import time, then the env on a generated company and its first reset."""
    start = time.perf_counter()
    cls = env_class(version)
    imported = time.perf_counter()
    env = cls(company_seed=seed)
    env.reset(options={"task_id": sorted(env.bundle.tasks)[0]})
    ready = time.perf_counter()
    env.close()
    return {"import_s": round(imported - start, 3), "ready_s": round(ready - imported, 4)}


def ready(version: str, processes: int) -> dict[str, Any]:
    """Cold (an empty cache: generate and store) once, then ``processes`` fresh processes on the filled cache."""
    with tempfile.TemporaryDirectory(prefix="officegym-bench-cache-") as folder:
        cold = in_child("ready_once", folder, version, SEED)
        cached = [in_child("ready_once", folder, version, SEED)["ready_s"] for _ in range(processes)]
    median = statistics.median(cached)
    return {
        "seed": SEED,
        "scale": 1,
        "cold_s": cold["ready_s"],
        "cached_s": round(median, 4),
        "cached_s_each": cached,
        "import_s": cold["import_s"],
        "target_s": READY_TARGET_S,
        "cached_vs_target": round(median / READY_TARGET_S, 3),
        "cold_vs_cached": round(cold["ready_s"] / median, 1),
    }


def train_seeds_once(count: int) -> dict[str, Any]:
    """In a fresh process: v1's train-seed search (``splits.train_company_seeds``) and the first train company."""
    from officegym.envs.invoice_approval.v1.bundle import load_bundle
    from officegym.envs.invoice_approval.v1.splits import train_company_seeds

    start = time.perf_counter()
    seeds = train_company_seeds(count)
    load_bundle(seeds[0])
    return {"seeds": seeds, "s": round(time.perf_counter() - start, 3)}


def train_seeds(processes: int) -> dict[str, Any]:
    """The first v1 train company found (its search rejects two seeds first): cold, then from the cache."""
    with tempfile.TemporaryDirectory(prefix="officegym-bench-cache-") as folder:
        cold = in_child("train_seeds_once", folder, 1)
        cached = [in_child("train_seeds_once", folder, 1)["s"] for _ in range(processes)]
    median = statistics.median(cached)
    return {
        "seeds": cold["seeds"],
        "cold_s": cold["s"],
        "cached_s": round(median, 3),
        "cached_s_each": cached,
        "cold_vs_cached": round(cold["s"] / median, 1),
    }


def first_grading_once(version: str, repeats: int) -> dict[str, Any]:
    """In a fresh process: the shipped company, the longest task's gold path played, then its first grading
    (the process's first) and ``repeats`` warm ones."""
    env = env_class(version)(max_turns=10**6)
    tasks = env.bundle.tasks
    longest = max(sorted(tasks), key=lambda task_id: len(tasks[task_id].gold_actions))
    env.reset(options={"task_id": longest})
    for action in tasks[longest].gold_actions:
        env.step(action)
    ctx = env.episode
    start = time.perf_counter_ns()
    env._grade_episode(ctx)
    first_us = (time.perf_counter_ns() - start) / 1000
    warm = summary(sample_us(lambda: env._grade_episode(ctx), repeats))
    return {"task": longest, "first_us": round(first_us, 1), "warm": warm}


def first_grading(version: str, processes: int, repeats: int) -> dict[str, Any]:
    """The first grading with the cache warm (a process after the one that filled it) and with it off."""
    with tempfile.TemporaryDirectory(prefix="officegym-bench-cache-") as folder:
        in_child("first_grading_once", folder, version, 10)  # fills the cache
        cached = [in_child("first_grading_once", folder, version, repeats) for _ in range(processes)]
    replayed = [in_child("first_grading_once", "", version, repeats) for _ in range(processes)]
    cold_cached = statistics.median(r["first_us"] for r in cached)
    cold_replayed = statistics.median(r["first_us"] for r in replayed)
    warm = statistics.median(r["warm"]["p50_us"] for r in cached)
    return {
        "task": cached[0]["task"],
        "first_cached_us": round(cold_cached, 1),
        "first_replayed_us": round(cold_replayed, 1),
        "warm_p50_us": round(warm, 1),
        "first_cached_vs_warm": round(cold_cached / warm, 2),
        "first_replayed_vs_warm": round(cold_replayed / warm, 2),
        "target_ms": COLD_GRADE_TARGET_MS,
        "first_cached_vs_target": round(cold_cached / 1000 / COLD_GRADE_TARGET_MS, 3),
        "first_cached_us_each": [r["first_us"] for r in cached],
        "first_replayed_us_each": [r["first_us"] for r in replayed],
    }


def get_document_us(repeats: int) -> dict[str, Any]:
    """``get_document`` steps over every document of the shipped v1 company, against the bare ``SELECT body``
    on the env's own connection and against that SELECT plus rendering the stored JSON (the tool before)."""
    from officegym.envs.invoice_approval.v1.document_json import document_from_json
    from officegym.envs.invoice_approval.v1.document_text import render_text

    env = env_class("v1")(max_turns=10**9)
    env.reset(options={"task_id": sorted(env.bundle.tasks)[0]})
    conn = env.episode.conn
    ids = [row[0] for row in conn.execute("SELECT invoice_id FROM documents ORDER BY invoice_id")]
    turn = iter(range(10**9))

    def step() -> None:
        env.step({"name": "get_document", "arguments": {"invoice_id": ids[next(turn) % len(ids)]}})

    def select() -> Any:
        return conn.execute("SELECT body FROM documents WHERE invoice_id = ?", (ids[next(turn) % len(ids)],)).fetchone()

    def rendered() -> str:
        return render_text(document_from_json(select()[0]))

    for _ in ids:  # one pass first: the company's rendered texts are cached from then on
        step()
    tool, bare, before = (summary(sample_us(fn, repeats)) for fn in (step, select, rendered))
    return {
        "documents": len(ids),
        "get_document": tool,
        "bare_select": bare,
        "select_and_render": before,
        "get_document_vs_bare_select": round(tool["p50_us"] / bare["p50_us"], 2),
        "select_and_render_vs_bare_select": round(before["p50_us"] / bare["p50_us"], 2),
    }


Statement = tuple[str, Any, bool]  # SQL text, parameters (a list of rows for executemany), executemany or not


class Recorder:
    """The episode's connection, recording every ``execute`` and ``executemany`` (its SQL text and parameters)
    on the way through. (Until 2026-12-02 it recorded ``execute`` only, so the floor left out the ledger lines
    an approval inserts with ``executemany``; the env paid for them and the floor did not.)"""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.calls: list[Statement] = []

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        self.calls.append((sql, params, False))
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        rows = list(rows)
        self.calls.append((sql, rows, True))
        return self.conn.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def record_sql(env: Any, task_id: str) -> list[Statement]:
    """Every statement (SQL and parameters) one whole gold episode executes on the env's connection: the reset,
    the steps and the grade (a trigger's statements run inside the one that fires it)."""
    env.reset(options={"task_id": task_id})
    conn = env.episode.conn
    recorder = Recorder(conn)
    env.episode.conn = recorder
    try:
        play(env, task_id)
    finally:
        env.episode.conn = conn
    if env._ctx is not None and env._ctx.conn is recorder:
        env._ctx.conn = conn
    return recorder.calls


def play(env: Any, task_id: str) -> None:
    env.reset(options={"task_id": task_id})
    for action in env.bundle.tasks[task_id].gold_actions:
        env.step(action)
    env.step({"name": "finish", "arguments": {}})


def replay_bare(conn: sqlite3.Connection, episodes: list[list[Statement]]) -> None:
    for statements in episodes:
        for sql, params, many in statements:
            if many:
                conn.executemany(sql, params)
            else:
                conn.execute(sql, params).fetchall()


def whole_episodes(rounds: int) -> dict[str, Any]:
    """All shipped v1 gold episodes through the env against their SQL replayed bare, in interleaved rounds."""
    env = env_class("v1")(max_turns=10**6)
    task_ids = sorted(env.bundle.tasks)
    for task_id in task_ids:  # warm: gold deltas, rendered documents, prepared statements
        play(env, task_id)
    episodes = [record_sql(env, task_id) for task_id in task_ids]
    from officegym.envs.invoice_approval.shared.db import connect_bytes

    # the env's own kind of connection (until 2026-12-02 a plain one: without the foreign-key checks every
    # write of the env's connection makes)
    spare = connect_bytes(env.bundle.template)
    spare.execute("BEGIN")  # every recorded episode starts by rolling the previous one back
    replay_bare(spare, episodes)
    env_s, bare_s = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        for task_id in task_ids:
            play(env, task_id)
        env_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        replay_bare(spare, episodes)
        bare_s.append(time.perf_counter() - start)
    ratios = np.array(env_s) / np.array(bare_s)
    return {
        "episodes": len(task_ids),
        "statements": sum(len(e) for e in episodes),
        "of_them_executemany": sum(many for e in episodes for _, _, many in e),
        "env_s": round(statistics.median(env_s), 4),
        "bare_sql_s": round(statistics.median(bare_s), 4),
        "env_vs_bare_sql": round(float(np.median(ratios)), 2),
        "env_vs_bare_sql_range": [round(float(ratios.min()), 2), round(float(ratios.max()), 2)],
        "target_ratio": EPISODE_TARGET_RATIO,
        "rounds": rounds,
    }


def steps_figures(repeats: int, rounds: int) -> dict[str, Any]:
    """The two in-process figures, for one child."""
    return {"get_document": get_document_us(repeats), "whole_v1_episodes": whole_episodes(rounds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer processes and repeats (a smoke run)")
    args = parser.parse_args()
    processes, repeats, rounds = (1, 300, 3) if args.quick else (3, 2000, 10)
    load = os.getloadavg()
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "loadavg_1_5_15_at_start": load}}
    for version in ENVS:
        results[f"ready_{version}"] = ready(version, processes)
        print(f"ready {version}: {results[f'ready_{version}']}", flush=True)
        results[f"first_grading_{version}"] = first_grading(version, processes, repeats)
        print(f"first grading {version}: {results[f'first_grading_{version}']}", flush=True)
    results["train_seeds_v1"] = train_seeds(processes)
    print(f"train seeds v1: {results['train_seeds_v1']}", flush=True)
    with tempfile.TemporaryDirectory(prefix="officegym-bench-cache-") as folder:
        results.update(in_child("steps_figures", folder, repeats, rounds))
    results["machine"]["loadavg_1_5_15_at_end"] = os.getloadavg()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "companies.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in results.items() if k.startswith(("get_", "whole"))}, indent=1))


if __name__ == "__main__":
    main()
