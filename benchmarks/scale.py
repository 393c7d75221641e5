"""InvoiceApproval cost against company size: ``company_scale`` 1, 10 and 100 of one generated company.

``python -m benchmarks.scale`` writes ``benchmarks/results/scale.json`` and ``scale.png``. Each scale runs in its
own process, so that memory per env is not hidden by what an earlier, bigger company freed, and one scale's
caches cannot warm another's. Per scale: generation (world alone, and world + seed DB + 60 tasks), reset (after a
reset and after the longest gold episode) beside a bare ``deserialize`` of the same books, the
read tools ``get_invoice`` / ``list_invoices`` / ``search_suppliers``, one write (``approve_invoice``), grading
the longest task cold (gold state not yet cached) and warm, whole gold episodes per second, memory per env.
Seed 7 is used because the shipped seed 42 is only shipped at scale 1 (and not every seed's plan fits its PO
budget: some seeds refuse to generate at any scale).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from officegym.envs.invoice_approval.v0.authoring.world import generate_world
from officegym.envs.invoice_approval.v0.bundle import load_bundle
from officegym.envs.invoice_approval.v0.env import InvoiceApprovalEnv

from .invoice_latency import gold_replay_s, grading_us
from .throughput import rss_mb
from .timing import sample_us, summary

SEED = 7
SCALES = (1, 10, 100)
RESULTS = Path(__file__).with_name("results")
READS: dict[str, dict[str, Any]] = {
    "get_invoice": {"invoice_id": "ER-2026-00100"},
    "list_invoices": {"status": "received", "limit": 50},
    "search_suppliers": {"query": "gmbh"},
}
MEMORY_ENVS = 16


def generation_s(scale: int) -> dict[str, float]:
    """The world alone, then the whole bundle (world again, seed DB, 60 tasks with gold and wrong paths)."""
    start = time.perf_counter()
    generate_world(SEED, scale)
    world_s = time.perf_counter() - start
    start = time.perf_counter()
    bundle = load_bundle(SEED, None, scale)
    return {
        "world_s": round(world_s, 2),
        "bundle_s": round(time.perf_counter() - start, 2),
        "seed_db_mb": round(len(bundle.seed_bytes) / 2**20, 2),
    }


def step_p50s(env: InvoiceApprovalEnv, repeats: int) -> dict[str, Any]:
    """Reset beside a bare ``deserialize`` of the same template into a used connection (the copy a reset made
    before it rolled back instead; interleaved rounds): right after another reset, and right after the longest
    task's whole gold path (a rollback costs what the episode wrote). Then each read tool in one long episode
    (every read a real ``env.step``)."""
    spare = sqlite3.connect(":memory:")
    spare.deserialize(env.bundle.template)
    spare.execute("SELECT count(*) FROM invoices").fetchone()
    resets: list[np.ndarray] = []
    bare: list[np.ndarray] = []
    for _ in range(10):
        resets.append(sample_us(lambda: env.reset(options={"task_id": "batch-1"}), repeats // 10))
        bare.append(sample_us(lambda: spare.deserialize(env.bundle.template), repeats // 10))
    out: dict[str, Any] = {"reset": summary(np.concatenate(resets)), "bare_deserialize": summary(np.concatenate(bare))}
    out["reset_vs_bare_deserialize"] = round(out["reset"]["p50_us"] / out["bare_deserialize"]["p50_us"], 2)
    out["reset_after_episode"] = reset_after_episode_us(env, repeats // 10)
    out["reset_after_episode_vs_bare_deserialize"] = round(
        out["reset_after_episode"]["p50_us"] / out["bare_deserialize"]["p50_us"], 2
    )
    spare.close()
    for name, arguments in READS.items():
        out[name] = summary(sample_us(_stepper(env, {"name": name, "arguments": arguments}), repeats))
    return out


def reset_after_episode_us(env: InvoiceApprovalEnv, repeats: int) -> dict[str, Any]:
    """The reset that follows the longest task's whole gold path (its writes are what the reset rolls back)."""
    tasks = env.bundle.tasks
    longest = max(sorted(tasks), key=lambda task_id: len(tasks[task_id].gold_actions))
    samples: list[float] = []
    env.reset(options={"task_id": longest})
    for _ in range(repeats):
        for action in tasks[longest].gold_actions:
            env.step(action)
        start = time.perf_counter_ns()
        env.reset(options={"task_id": longest})
        samples.append((time.perf_counter_ns() - start) / 1000)
    return {**summary(np.array(samples)), "task": longest}


def _stepper(env: InvoiceApprovalEnv, action: dict[str, Any]) -> Callable[[], object]:
    return lambda: env.step(action)


def approve_us(env: InvoiceApprovalEnv, repeats: int) -> dict[str, float]:
    """``approve_invoice`` on received invoices, a fresh episode whenever a batch of them is used up."""
    samples: list[float] = []
    while len(samples) < repeats:
        env.reset(options={"task_id": "batch-1"})
        assert env.episode is not None
        rows = env.episode.conn.execute(
            "SELECT invoice_id FROM invoices WHERE status = 'received' ORDER BY invoice_id LIMIT ?",
            (min(100, repeats - len(samples)),),
        )
        for (invoice_id,) in rows.fetchall():
            start = time.perf_counter_ns()
            env.step({"name": "approve_invoice", "arguments": {"invoice_id": invoice_id}})
            samples.append((time.perf_counter_ns() - start) / 1000)
    return summary(np.array(samples))


def memory_per_env(scale: int) -> dict[str, float]:
    """RSS growth when ``MEMORY_ENVS`` more envs each hold a live episode (the bundle is already loaded)."""
    gc.collect()
    before = rss_mb()
    envs = [InvoiceApprovalEnv(company_seed=SEED, company_scale=scale) for _ in range(MEMORY_ENVS)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    gc.collect()
    growth = rss_mb() - before
    for env in envs:
        env.close()
    return {"envs": MEMORY_ENVS, "per_env_kb": round(growth * 1024 / MEMORY_ENVS, 1)}


def measure(scale: int, repeats: int) -> dict[str, Any]:
    """Every figure for one scale, in this process (run it in a fresh one)."""
    generation = generation_s(scale)
    kwargs: dict[str, Any] = {"company_seed": SEED, "company_scale": scale}
    grading = grading_us(repeats // 10, kwargs)  # first: its cold samples are the process's first gradings
    env = InvoiceApprovalEnv(max_turns=10**9, **kwargs)
    steps = step_p50s(env, repeats)
    approve = approve_us(InvoiceApprovalEnv(max_turns=10_000, **kwargs), repeats // 10)
    replay = gold_replay_s(InvoiceApprovalEnv(**kwargs))
    bundle = load_bundle(SEED, None, scale)
    return {
        "scale": scale,
        "seed": SEED,
        "suppliers": 60 * scale,
        "invoices": 200 * scale,
        "generation": generation,
        **steps,
        "approve_invoice": approve,
        "grading_longest_task": grading,
        "gold_replay_60_tasks": {**replay, "episodes_per_s_warm": round(len(bundle.tasks) / replay["warm_s"], 1)},
        "memory": {**memory_per_env(scale), "rss_mb": round(rss_mb(), 1)},
    }


def run_scale(scale: int, repeats: int) -> dict[str, Any]:
    """``measure`` in a fresh interpreter; returns its JSON."""
    code = f"import json; from benchmarks.scale import measure; print(json.dumps(measure({scale}, {repeats})))"
    env = {**os.environ, "OFFICEGYM_CACHE_DIR": ""}  # generation and cold grading as built, not from the cache
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """Per-call costs (µs) and per-company costs (generation s, memory per env) against the invoice count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["invoices"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    calls = {name: [r[name]["p50_us"] for r in rows] for name in ("reset", *READS, "approve_invoice")}
    calls["reset after the longest episode"] = [r["reset_after_episode"]["p50_us"] for r in rows]
    calls["bare deserialize (reference)"] = [r["bare_deserialize"]["p50_us"] for r in rows]
    calls["grading cold"] = [r["grading_longest_task"]["cold"]["p50_us"] for r in rows]
    calls["grading warm"] = [r["grading_longest_task"]["warm"]["p50_us"] for r in rows]
    for name, values in calls.items():
        left.plot(sizes, values, marker="o", label=name)
    left.set_ylabel("p50 per call (µs)")
    right.plot(sizes, [r["generation"]["bundle_s"] for r in rows], marker="o", label="generation, world + tasks (s)")
    right.plot(sizes, [r["memory"]["per_env_kb"] / 1024 for r in rows], marker="o", label="memory per env (MB)")
    right.plot(
        sizes, [r["gold_replay_60_tasks"]["episodes_per_s_warm"] for r in rows], marker="o", label="gold episodes/s"
    )
    for ax, title in ((left, "one call"), (right, "one company")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("invoices in the company (company_scale 1, 10, 100)")
        ax.set_title(f"InvoiceApproval, {title}, seed {SEED}, 2 CPU cores")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    parser.add_argument("--scales", type=int, nargs="+", default=list(SCALES))
    args = parser.parse_args()
    repeats = 200 if args.quick else 1000
    rows = []
    for scale in args.scales:
        start = time.perf_counter()
        rows.append(run_scale(scale, repeats))
        print(f"scale {scale}: {time.perf_counter() - start:.1f} s", flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    plot(rows, RESULTS / "scale.png")


if __name__ == "__main__":
    main()
