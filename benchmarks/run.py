"""``make bench``: run the benchmarks, write ``benchmarks/results/*.json`` and print a summary table.

``python -m benchmarks.run [--quick]``. Results carry the machine they ran on; compare ratios, not raw µs,
across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from . import invoice_latency

RESULTS = Path(__file__).parent / "results"


def machine() -> dict[str, Any]:
    import sqlite3

    import gymnasium
    import numpy

    return {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
            "gymnasium": gymnasium.__version__, "numpy": numpy.__version__, "sqlite": sqlite3.sqlite_version}


def table(result: dict[str, Any]) -> Table:
    out = Table(title="InvoiceApproval-v0 latency (µs)")
    for column in ("what", "p50", "p95", "x floor"):
        out.add_column(column, justify="right" if column != "what" else "left")
    floor = result["floor_sqlite_json"]["p50_us"]
    out.add_row("reset", str(result["reset"]["p50_us"]), str(result["reset"]["p95_us"]), "")
    for name, stats in result["read_tools"].items():
        out.add_row(f"step {name}", str(stats["p50_us"]), str(stats["p95_us"]), f"{stats['p50_us'] / floor:.1f}")
    for name, stats in result["write_tools"].items():
        out.add_row(f"step {name}", str(stats["p50_us"]), str(stats["p95_us"]), "")
    out.add_row("floor: SQLite point query + json.dumps", str(floor), str(result["floor_sqlite_json"]["p95_us"]), "1.0")
    grading = result["grading_longest_task"]
    out.add_row(f"grade {grading['task']} ({grading['scope']} invoices)", str(grading["p50_us"]),
                str(grading["p95_us"]), "")
    replay = result["gold_replay_60_tasks"]
    out.add_row(f"gold replay + grading, 60 tasks, {replay['steps']} steps (s)", f"cold {replay['cold_s']}",
                f"warm {replay['warm_s']}", "")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run, not for the record)")
    args = parser.parse_args(argv)
    result = {"machine": machine(), "invoice_latency": invoice_latency.run(quick=args.quick)}
    RESULTS.mkdir(exist_ok=True)
    if not args.quick:
        (RESULTS / "invoice_latency.json").write_text(json.dumps(result, indent=2) + "\n")
    Console().print(table(result["invoice_latency"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
