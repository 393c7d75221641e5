"""The benchmark figures the manual quotes are the committed results': re-running a benchmark without updating
the page that quotes it fails here, with the figure the page should now show.

``FIGURES`` is an explicit table: the page, the results file under ``benchmarks/results/``, how the page writes
the figure (a ``str.format`` text with enough words around the number that it cannot match by chance) and the
JSON paths of the numbers it fills in. A path is dotted keys; ``[3]`` is a list index and ``[key=value,...]``
the list item whose fields have those values (so a reordered list still finds its row), ``[*]`` every item or
value (the values are summed); `` / 1000`` after a path divides (a result in µs quoted in ms). Pages are
compared with their whitespace collapsed, so a figure may wrap across lines. No benchmark runs here: only
committed files are read. The server's own tables (``server.md``) are left to the server work that re-runs them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


@dataclass(frozen=True)
class Figure:
    doc: str
    result: str
    shown: str
    paths: tuple[str, ...]

    def expected(self) -> str:
        return self.shown.format(*(value(self.result, path) for path in self.paths))


LLM = "docs/training-llm.md"
PERF = "docs/performance.md"
GUARANTEES = "docs/guarantees.md"
DISTINCT, CROWD = "phases[phase=distinct]", "phases[phase=crowd]"
IA, VR = "InvoiceApproval.officegym/InvoiceApproval", "VendorReview.officegym/VendorReview"
GRADING = "invoice_latency.grading_longest_task"
ASYNC_8 = "throughput.vector[mode=async,num_envs=8,env={}-v0]"
BATCHED_64 = "vector[num_envs=64,env={}-v0]"

FIGURES: tuple[Figure, ...] = (
    # serve --workers (performance.md, server_workers.json)
    Figure(PERF, "server_workers.json", "**2 workers against 1: {:.2f}×** (rounds", ("ratios.env_2_workers_vs_1",)),
    Figure(
        PERF,
        "server_workers.json",
        "InvoiceApproval-v0 against the no-op: {:.2f}× with 1 worker, {:.2f}× with 2** (rounds",
        ("ratios.env_vs_noop_1_worker", "ratios.env_vs_noop_2_workers"),
    ),
    Figure(
        PERF,
        "server_workers.json",
        "**the replay against the no-op {:.2f}× and {:.2f}×** (what the app pays",
        ("ratios.replay_vs_noop_1_worker", "ratios.replay_vs_noop_2_workers"),
    ),
    Figure(
        PERF,
        "server_workers.json",
        "**v0 against its replay {:.2f}× and {:.2f}×** (v0's own work",
        ("ratios.env_vs_replay_1_worker", "ratios.env_vs_replay_2_workers"),
    ),
    # Ray Serve scale-out (scale-out.md, ray_serve_scale.json)
    Figure(
        "docs/scale-out.md",
        "ray_serve_scale.json",
        "6 gold episodes each, {:,} steps)",
        ("phases[phase=plain_server].steps",),
    ),
    Figure(
        "docs/scale-out.md",
        "ray_serve_scale.json",
        "load average {:.1f} at the start",
        ("machine.load_average_at_start[0]",),
    ),
    Figure(
        "docs/scale-out.md",
        "ray_serve_scale.json",
        "| one `officegym serve` | {:,.0f} | 1.00 | | Ray Serve, 1 replica | {:,.0f} | {:.2f} | "
        "| Ray Serve, 2 replicas (2 nodes) | {:,.0f} | {:.2f} |",
        (
            "phases[phase=plain_server].steps_per_s",
            "phases[phase=ray_serve_1_replica].steps_per_s",
            "ratios.one_replica_over_plain_server",
            "phases[phase=ray_serve_2_replica].steps_per_s",
            "ratios.two_replicas_over_plain_server",
        ),
    ),
    Figure(
        "docs/scale-out.md",
        "ray_serve_scale.json",
        "second replica gains nothing ({:.2f}x)",
        ("ratios.two_replicas_over_one",),
    ),
    # the OpenEnv server under load (training-llm.md)
    Figure(LLM, "openenv_load.json", "{} concurrent sessions", (f"{DISTINCT}.concurrent_sessions",)),
    Figure(LLM, "openenv_load.json", "{} rounds: all {} graded 1.0", (f"{DISTINCT}.rounds", f"{DISTINCT}.episodes")),
    Figure(
        LLM,
        "openenv_load.json",
        "{} errors, {:,.0f} steps/s, step latency p50 {:.1f} ms, p99 {:.1f} ms",
        (
            f"{DISTINCT}.errors",
            f"{DISTINCT}.steps_per_s",
            f"{DISTINCT}.step_latency_ms.p50",
            f"{DISTINCT}.step_latency_ms.p99",
        ),
    ),
    Figure(
        LLM,
        "openenv_load.json",
        "{} concurrent sessions on one InvoiceApproval server: {:,.0f} steps/s, p50 {:.1f} ms",
        (f"{CROWD}.concurrent_sessions", f"{CROWD}.steps_per_s", f"{CROWD}.step_latency_ms.p50"),
    ),
    # one env (performance.md, bench.json)
    Figure(
        PERF,
        "bench.json",
        "transaction) | {} µs | {} µs |",
        ("invoice_latency.reset.p50_us", "invoice_latency.reset.p95_us"),
    ),
    Figure(
        PERF,
        "bench.json",
        "warm / cold | {} µs / {:.2f} ms | {} µs / {:.2f} ms |",
        (
            f"{GRADING}.warm.p50_us",
            f"{GRADING}.cold.p50_us / 1000",
            f"{GRADING}.warm.p95_us",
            f"{GRADING}.cold.p95_us / 1000",
        ),
    ),
    Figure(
        PERF,
        "bench.json",
        "({:,} steps) | {} s cold, {} s warm |",
        tuple(f"invoice_latency.gold_replay_60_tasks.{key}" for key in ("steps", "cold_s", "warm_s")),
    ),
    Figure(
        PERF,
        "bench.json",
        "InvoiceApproval {:,} episodes/s ({:,} steps/s), VendorReview {:,} episodes/s ({:,} steps/s)",
        tuple(
            f"throughput.oracle_episodes.officegym/{env}-v0.{key}"
            for env in ("InvoiceApproval", "VendorReview")
            for key in ("episodes_per_s", "steps_per_s")
        ),
    ),
    Figure(
        PERF,
        "bench.json",
        "an InvoiceApproval step costs {}× the no-op's (rounds from {} to {}×) and a VendorReview step {}× ({} to {}×)",
        tuple(
            f"{ASYNC_8.format(env)}.{key}"
            for env in ("InvoiceApproval", "VendorReview")
            for key in ("cost_vs_noop", "cost_range[0]", "cost_range[1]")
        ),
    ),
    # company size (performance.md, scale.json: one row per size, 1x / 10x / 100x)
    Figure(
        PERF,
        "scale.json",
        "| grading long-1, cold / warm p50 | {:.2f} / {:.2f} ms | {:.2f} / {:.2f} ms | {:.2f} / {:.2f} ms |",
        tuple(f"[{n}].grading_longest_task.{kind}.p50_us / 1000" for n in range(3) for kind in ("cold", "warm")),
    ),
    # companies on demand (performance.md, companies.json)
    Figure(
        PERF,
        "companies.json",
        "from the cache | {:.2f} / {:.2f} ms | {} / {} × the warm grading measured after it ({:.2f} / {:.2f} ms)",
        (
            "first_grading_v0.first_cached_us / 1000",
            "first_grading_v1.first_cached_us / 1000",
            "first_grading_v0.first_cached_vs_warm",
            "first_grading_v1.first_cached_vs_warm",
            "first_grading_v0.warm_p50_us / 1000",
            "first_grading_v1.warm_p50_us / 1000",
        ),
    ),
    Figure(
        PERF,
        "companies.json",
        "(the gold path replayed) | {:.0f} / {:.0f} ms | {:.0f} / {:.0f} × warm |",
        (
            "first_grading_v0.first_replayed_us / 1000",
            "first_grading_v1.first_replayed_us / 1000",
            "first_grading_v0.first_replayed_vs_warm",
            "first_grading_v1.first_replayed_vs_warm",
        ),
    ),
    # the process pool (performance.md, episode_pool.json)
    Figure(
        PERF,
        "episode_pool.json",
        "({:,} episodes, {} repeats, load average {:.1f} before and {:.1f} after",
        ("pool.episodes", "pool.repeats", "load_average_1_5_15.before[0]", "load_average_1_5_15.after[0]"),
    ),
    Figure(
        PERF,
        "episode_pool.json",
        "one process {:,.0f} episodes/s; a pool of 1 worker {:,.0f} ({}×); 2 workers {:,.0f} (**{}×** one process, "
        "range {}-{}×",
        (
            "pool.episodes_per_s.one_process.median",
            "pool.episodes_per_s.pool_1.median",
            "pool.pool_1_vs_one_process.median",
            "pool.episodes_per_s.pool_2.median",
            "pool.pool_2_vs_one_process.median",
            "pool.pool_2_vs_one_process.range[0]",
            "pool.pool_2_vs_one_process.range[1]",
        ),
    ),
    Figure(
        PERF,
        "episode_pool.json",
        "took {:.1f} s on `--backend local` and {:.1f} s on `--backend processes` ({}×)",
        ("eval.seconds.local", "eval.seconds.processes", "eval.processes_vs_local_speedup"),
    ),
    # Ray (performance.md, bench.json)
    Figure(
        PERF,
        "bench.json",
        "1 worker {:,} episodes/s, 2 workers {:,} ({}×, range {}-{}×), 4 workers {:,} ({}×, on 2 cores); the local "
        "backend in one process {:,}",
        (
            "ray.rows[backend=ray,workers=1].episodes_per_s",
            "ray.rows[backend=ray,workers=2].episodes_per_s",
            "ray.rows[backend=ray,workers=2].vs_one_ray_worker",
            "ray.rows[backend=ray,workers=2].vs_one_ray_worker_range[0]",
            "ray.rows[backend=ray,workers=2].vs_one_ray_worker_range[1]",
            "ray.rows[backend=ray,workers=4].episodes_per_s",
            "ray.rows[backend=ray,workers=4].vs_one_ray_worker",
            "ray.rows[backend=local].episodes_per_s",
        ),
    ),
    # batched vector envs (performance.md, batched.json)
    Figure(
        PERF,
        "batched.json",
        "{:,} (InvoiceApproval) and {:,} (VendorReview) env-steps/s, **{}× and {}× the sync vector env** (rounds "
        "{}-{}× and {}-{}×) and {:.1f}× and {:.1f}× async",
        tuple(f"{BATCHED_64.format(env)}.batched_steps_per_s" for env in ("InvoiceApproval", "VendorReview"))
        + tuple(f"{BATCHED_64.format(env)}.batched_vs_sync" for env in ("InvoiceApproval", "VendorReview"))
        + tuple(
            f"{BATCHED_64.format(env)}.batched_vs_sync_range[{n}]"
            for env in ("InvoiceApproval", "VendorReview")
            for n in (0, 1)
        )
        + tuple(f"{BATCHED_64.format(env)}.batched_vs_async" for env in ("InvoiceApproval", "VendorReview")),
    ),
    Figure(
        PERF,
        "batched.json",
        "Whole gold episodes on two hosts run {}× and {}× one plain process",
        ("episodes[env=InvoiceApproval-v0].batched_vs_plain", "episodes[env=VendorReview-v0].batched_vs_plain"),
    ),
    # the server soak (guarantees.md, server_soak.json)
    Figure(
        GUARANTEES,
        "server_soak.json",
        "({} to their end, {} cut by a frame over the limit) through {} clients per server on InvoiceApproval-v0 and "
        "VendorReview-v2 with {:,} hostile frames",
        (
            "results[*].episodes_played",
            "results[*].oversize_closes_1009",
            "results.officegym/InvoiceApproval-v0.clients",
            "results[*].hostile_frames",
        ),
    ),
    # the soak (guarantees.md)
    Figure(
        GUARANTEES,
        "soak.json",
        "has {} crashes and {} problems over {:,} episodes",
        ("crashes", "problems", "runs[*].episodes"),
    ),
)


def _versions_row(label: str, call: str) -> Figure:
    """A row of the versions table: each domain's v0, then v1 and v2 each with its ratio to v0."""
    paths: list[str] = []
    for domain in (IA, VR):
        paths += [f"{domain}-v0.{call}.p50_us"]
        for number in (1, 2):
            paths += [f"{domain}-v{number}.{call}.p50_us", f"{domain.split('.')[0]}.v{number}_vs_v0.{call}"]
    cells = " | ".join(["{} µs", "{} µs ({}×)", "{} µs ({}×)"] * 2)
    return Figure(PERF, "versions.json", f"| {label} | {cells} |", tuple(paths))


def _vector_row(env: str, mode: str) -> Figure:
    """A row of the vector table: env-steps/s at 1, 2, 4 and 8 envs, each with its cost beside the no-op's."""
    rows = [f"throughput.vector[mode={mode},num_envs={n},env={env}]" for n in (1, 2, 4, 8)]
    paths = tuple(f"{row}.{key}" for row in rows for key in ("steps_per_s", "cost_vs_noop"))
    return Figure(PERF, "bench.json", f"| {env} | {mode} | " + " | ".join(["{:,} ({}×)"] * 4) + " |", paths)


def _noop_row(mode: str) -> Figure:
    rows = [f"throughput.vector[mode={mode},num_envs={n},env=InvoiceApproval-v0]" for n in (1, 2, 4, 8)]
    return Figure(
        PERF,
        "bench.json",
        f"| no-op text env (floor) | {mode} | " + " | ".join(["{:,}"] * 4) + " |",
        tuple(f"{row}.noop_steps_per_s" for row in rows),
    )


VECTOR = (
    *(_vector_row(env, mode) for mode in ("sync", "async") for env in ("InvoiceApproval-v0", "VendorReview-v0")),
    *(_noop_row(mode) for mode in ("sync", "async")),
)

VERSIONS = (
    _versions_row("reset", "reset"),
    _versions_row("one read step (`get_invoice` / `read_doc`)", "read"),
    _versions_row("grading the longest task (warm)", "grading"),
    _versions_row("fork and close, mid-path", "fork"),
    Figure(
        PERF,
        "versions.json",
        "| oracle episodes/s, every shipped task | {:,} | {:,} | {:,} | {:,} | {:,} | {:,} |",
        tuple(f"{domain}-v{number}.episodes_per_s" for domain in (IA, VR) for number in range(3)),
    ),
)


@cache
def result(name: str) -> Any:
    return json.loads((RESULTS / name).read_text())


def value(name: str, path: str) -> Any:
    """The number at ``path`` in the results file ``name`` (see the module docstring for the path syntax)."""
    dotted, _, divisor = path.partition(" / ")
    nodes = [result(name)]
    for key, selector in re.findall(r"([^.\[\]]+)|\[([^\]]+)\]", dotted):
        nodes = [child for node in nodes for child in _step(node, key, selector, path)]
    total = nodes[0] if len(nodes) == 1 else sum(nodes)
    return total / float(divisor) if divisor else total


def _step(node: Any, key: str, selector: str, path: str) -> list[Any]:
    if key:
        return [node[key]]
    if selector == "*":
        return list(node.values() if isinstance(node, dict) else node)
    if selector.isdigit():
        return [node[int(selector)]]
    wanted = dict(pair.split("=", 1) for pair in selector.split(","))
    found = [item for item in node if all(str(item.get(k)) == v for k, v in wanted.items())]
    assert len(found) == 1, f"{path}: [{selector}] matches {len(found)} items, not one"
    return found


@cache
def page(doc: str) -> str:
    return " ".join((ROOT / doc).read_text().split())


ALL = FIGURES + VECTOR + VERSIONS


@pytest.mark.parametrize(
    "figure", ALL, ids=[f"{Path(f.doc).stem}-{Path(f.result).stem}-{n}" for n, f in enumerate(ALL)]
)
def test_the_page_quotes_the_committed_result(figure: Figure) -> None:
    expected = figure.expected()
    assert expected in page(figure.doc), (
        f"{figure.doc} should say {expected!r} (benchmarks/results/{figure.result}); update the page to the "
        "committed result"
    )


def test_every_results_file_named_here_exists() -> None:
    for figure in ALL:
        assert (RESULTS / figure.result).is_file(), f"benchmarks/results/{figure.result} is missing"
