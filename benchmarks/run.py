"""``make bench``: run the benchmarks, write ``benchmarks/results/`` and print summary tables.

``python -m benchmarks.run [--quick]``: InvoiceApproval latency per tool against the bare SQLite+JSON floor;
both envs' vector-env scaling against a no-op text env, oracle episode throughput, memory per env, reset and
grading time; step time inside async workers next to a hot loop; Ray whole-episode workers at 1/2/4 actors
when the ``ray`` extra is installed. Every figure is also given as a ratio against a reference measured in
the same run: compare ratios across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy
from rich.console import Console
from rich.table import Table

from . import invoice_latency, throughput, worker_step
from .plot import scaling_plot

RESULTS = Path(__file__).parent / "results"


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "gymnasium": gymnasium.__version__,
        "numpy": numpy.__version__,
        "sqlite": sqlite3.sqlite_version,
    }


def latency_table(result: dict[str, Any]) -> Table:
    out = Table(title="InvoiceApproval-v0 latency (µs)")
    for column in ("what", "p50", "p95", "x floor"):
        out.add_column(column, justify="right" if column != "what" else "left")
    out.add_row("reset", str(result["reset"]["p50_us"]), str(result["reset"]["p95_us"]), "")
    fresh = result["reset_new_connection"]
    out.add_row("reset with a new connection (not used)", str(fresh["p50_us"]), str(fresh["p95_us"]), "")
    for name, stats in result["read_tools"].items():
        out.add_row(
            f"step {name}",
            str(stats["p50_us"]),
            str(stats["p95_us"]),
            f"{result['read_tool_over_floor_p50'][name]:.1f}",
        )
    after = result["read_after_write"]
    out.add_row(
        "step get_invoice, first read after a write",
        str(after["p50_us"]),
        str(after["p95_us"]),
        f"{after['p50_us'] / result['floors_sqlite_json']['point']['p50_us']:.1f}",
    )
    for name, stats in result["write_tools"].items():
        out.add_row(f"step {name}", str(stats["p50_us"]), str(stats["p95_us"]), "")
    for name, stats in result["floors_sqlite_json"].items():
        out.add_row(f"floor {name}: bare query + json.dumps", str(stats["p50_us"]), str(stats["p95_us"]), "1.0")
    grading = result["grading_longest_task"]
    out.add_row(
        f"grade {grading['task']} ({grading['scope']} invoices)", str(grading["p50_us"]), str(grading["p95_us"]), ""
    )
    replay = result["gold_replay_60_tasks"]
    out.add_row(
        f"gold replay + grading, 60 tasks, {replay['steps']} steps (s)",
        f"cold {replay['cold_s']}",
        f"warm {replay['warm_s']}",
        "",
    )
    return out


def vector_table(rows: list[dict[str, Any]]) -> Table:
    out = Table(title="vector envs: env-steps/s (cost per step vs the no-op text env)")
    for column in ("env", "mode", "1", "2", "4", "8"):
        out.add_column(column, justify="left" if column in ("env", "mode") else "right")
    for env in sorted({r["env"] for r in rows}):
        for mode in ("sync", "async"):
            cells = {
                r["num_envs"]: f"{r['steps_per_s']:,} ({r['cost_vs_noop']}x)"
                for r in rows
                if r["env"] == env and r["mode"] == mode
            }
            out.add_row(env, mode, *(cells.get(n, "-") for n in (1, 2, 4, 8)))
    return out


def ray_rows(quick: bool) -> dict[str, Any] | None:
    """Ray scaling in a child process (Ray's daemons must not share this process's timings)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return None
    rounds = "2" if quick else "8"
    code = f"import json; from benchmarks import ray_throughput as r; print(json.dumps(r.run(rounds={rounds})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    parsed: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return parsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run; writes nothing)")
    args = parser.parse_args(argv)
    console = Console()
    parts: dict[str, Callable[[], Any]] = {
        "machine": machine,
        "invoice_latency": lambda: invoice_latency.run(quick=args.quick),
        "throughput": lambda: throughput.run(quick=args.quick),
        "worker_step": lambda: worker_step.run(quick=args.quick),
        "ray": lambda: ray_rows(args.quick),
    }
    result: dict[str, Any] = {}
    started = time.perf_counter()
    for index, (name, run) in enumerate(parts.items(), start=1):
        # the whole run takes minutes: say where it is, on stderr so the tables on stdout stay clean
        print(
            f"bench {index}/{len(parts)}: {name} ({time.perf_counter() - started:.0f} s so far)",
            file=sys.stderr,
            flush=True,
        )
        result[name] = run()
    if not args.quick:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "bench.json").write_text(json.dumps(result, indent=2) + "\n")
        scaling_plot(result["throughput"]["vector"], RESULTS / "scaling.png")
    console.print(latency_table(result["invoice_latency"]))
    console.print(vector_table(result["throughput"]["vector"]))
    console.print_json(json.dumps({k: v for k, v in result["throughput"].items() if k != "vector"}))
    console.print_json(json.dumps({"step time (µs): hot loop vs inside 8 async workers": result["worker_step"]}))
    if result["ray"]:
        console.print_json(json.dumps(result["ray"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
