"""The run summary: mean reward per tier, pass@k and pass^k, errors, tokens, stop reasons.

``pass@k`` is the chance that at least one of k rollouts of a task passes, ``pass^k`` (tau-bench's measure of
reliability) the chance that all k pass. Both use the unbiased estimators over a task's n scored rollouts
with c passes, ``1 - C(n-c, k)/C(n, k)`` and ``C(c, k)/C(n, k)``, averaged over the tasks that have at least
k rollouts. An episode passes when its reward reaches ``threshold`` (1.0 by default: InvoiceApproval grades
pass/fail, VendorReview gives partial credit). Episodes with infrastructure errors are counted apart and
never scored.

**Error bars**, so that two runs on the same tasks can be compared. The sampled unit is the task (the
rollouts of one task are correlated: a model that fails a task tends to fail it every time), so:

- ``mean_reward_se``: the cluster-robust standard error of the mean reward over episodes, clusters = tasks
  (Miller 2024, "Adding Error Bars to Evals"), ``sqrt(T/(T-1) * sum_t (sum_i (x_ti - mean))**2) / n`` for n
  episodes in T tasks; with one rollout per task it is the plain ``s / sqrt(n)``.
- ``pass_at_k_se``: the standard error of the mean of the per-task estimates, ``s / sqrt(T)``.
- ``*_ci95``: the normal-approximation 95 % interval ``mean ± 1.96 SE``, clipped to [0, 1]; ``None`` with
  fewer than two tasks. It is deterministic (no bootstrap). It is too narrow with few tasks and has zero width
  when every task scores alike (all 0 or all 1); for two models on the same tasks, a paired comparison of
  per-task scores is sharper than overlapping intervals.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from math import comb, sqrt
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table

TIER_ORDER = ("single", "easy", "batch", "medium", "long", "hard")
Z95 = 1.959964
UNBOUNDED = 100_000


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of ``k`` rollouts drawn from ``n`` (``c`` passing) passes."""
    if not 0 < k <= n:
        raise ValueError(f"k must be in 1..n, got k={k}, n={n}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that all ``k`` rollouts drawn from ``n`` (``c`` passing) pass."""
    if not 0 < k <= n:
        raise ValueError(f"k must be in 1..n, got k={k}, n={n}")
    return comb(c, k) / comb(n, k)


def summarize(records: list[dict[str, Any]], threshold: float = 1.0) -> dict[str, Any]:
    """The summary of a run's records (the last record of each episode)."""
    scored = [r for r in records if not r.get("has_error")]
    tiers: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in scored:
        tiers[str(record.get("tier") or "")].append(record)
    usage: Counter[str] = Counter()
    for record in scored:
        usage.update(record.get("usage") or {})
    return {
        "episodes": len(scored),
        "errors": len(records) - len(scored),
        "tasks": len({r["task_id"] for r in scored}),
        "pass_threshold": threshold,
        **_scores(scored, threshold),
        "tiers": {tier: _scores(tiers[tier], threshold) for tier in sorted(tiers, key=tier_rank)},
        "stop_reasons": dict(Counter(r.get("stop_reason") for r in scored)),
        "parse_errors": sum((r.get("chat") or {}).get("parse_errors", 0) for r in scored),
        "usage": dict(usage),
    }


def _scores(records: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    rewards: dict[str, list[float]] = defaultdict(list)
    for record in records:
        rewards[record["task_id"]].append(float(record["reward"]))
    passes = {task: [r >= threshold for r in values] for task, values in rewards.items()}
    k_max = max((len(v) for v in passes.values()), default=0)
    at_k: dict[str, float] = {}
    hat_k: dict[str, float] = {}
    at_k_se: dict[str, float | None] = {}
    at_k_ci: dict[str, list[float] | None] = {}
    for k in range(1, k_max + 1):
        eligible = [(len(v), sum(v)) for v in passes.values() if len(v) >= k]
        estimates = [pass_at_k(n, c, k) for n, c in eligible]
        at_k[str(k)] = sum(estimates) / len(estimates)
        hat_k[str(k)] = sum(pass_hat_k(n, c, k) for n, c in eligible) / len(eligible)
        at_k_se[str(k)] = mean_se(estimates)
        at_k_ci[str(k)] = ci95(at_k[str(k)], at_k_se[str(k)])
    mean = _mean([x for values in rewards.values() for x in values])
    se = clustered_se(list(rewards.values()))
    return {
        "episodes": len(records),
        "mean_reward": mean,
        "mean_reward_se": se,
        "mean_reward_ci95": ci95(mean, se),
        "pass_at_k": at_k,
        "pass_at_k_se": at_k_se,
        "pass_at_k_ci95": at_k_ci,
        "pass_hat_k": hat_k,
    }


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def mean_se(values: list[float]) -> float | None:
    """The standard error of the mean of ``values`` (sample standard deviation over ``sqrt(n)``)."""
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    variance = sum((x - mean) ** 2 for x in values) / (len(values) - 1)
    return sqrt(variance / len(values))


def clustered_se(clusters: list[list[float]]) -> float | None:
    """The cluster-robust standard error of the mean of all values, one cluster per task (see the module
    docstring); ``None`` with fewer than two clusters."""
    n, t = sum(len(c) for c in clusters), len(clusters)
    if t < 2:
        return None
    mean = sum(sum(c) for c in clusters) / n
    spread = sum(sum(x - mean for x in c) ** 2 for c in clusters)
    return sqrt(t / (t - 1) * spread) / n


def ci95(mean: float | None, se: float | None) -> list[float] | None:
    """The normal-approximation 95 % interval ``mean ± 1.96 se``, clipped to the reward range [0, 1]."""
    if mean is None or se is None:
        return None
    return [max(0.0, mean - Z95 * se), min(1.0, mean + Z95 * se)]


def tier_rank(tier: str) -> tuple[int, str]:
    return (TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER), tier)


def summary_table(summary: dict[str, Any], title: str) -> Fitting:
    """Per tier and overall: episodes, mean reward and pass@1 each with its 95 % interval, pass@k and pass^k at
    the largest k. Drawn on one line per row where the screen is wide enough, else with each interval under its
    value, so that 80 columns show every number and header whole."""
    k = _largest_k(summary)
    rows = [(name or "-", scores) for name, scores in [*summary.get("tiers", {}).items(), ("all", summary)]]
    return Fitting([_score_table(title, "tier", rows, k, stacked) for stacked in (False, True)])


def comparison_table(summaries: list[tuple[str, dict[str, Any]]], title: str = "side by side") -> Fitting:
    """One row per results file: episodes, mean reward and pass@1 each with its 95 % interval, pass@k and pass^k
    at the largest k that every file has (the same k for all, or the rows would not compare), errors, tokens.
    For comparing models (or settings) on the same tasks. Where the screen is narrow, intervals go under their
    values, errors over tokens, and a long file name folds onto more lines (a name, unlike a number, reads
    fine folded)."""
    k = min((_largest_k(summary) for _, summary in summaries), default=1)
    return Fitting([_score_table(title, "results", summaries, k, stacked, extra=True) for stacked in (False, True)])


class Fitting:
    """The first of several layouts of one table that fits the width it is drawn at (the last one if none
    does). A table that only shrinks its columns cuts numbers to ``0.000-0…``; choosing between layouts keeps
    every number whole and the wide layout where there is room."""

    def __init__(self, layouts: list[Table]) -> None:
        self.layouts = layouts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        unbounded = options.update(max_width=UNBOUNDED)  # a layout's natural width, not clipped to the screen
        for layout in self.layouts[:-1]:
            if Measurement.get(console, unbounded, layout).maximum <= options.max_width:
                yield layout
                return
        yield self.layouts[-1]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.layouts[-1])


def _score_table(
    title: str, label: str, rows: list[tuple[str, dict[str, Any]]], k: int, stacked: bool, *, extra: bool = False
) -> Table:
    """The table of ``rows`` (name, scores). ``stacked``: two lines per row, each secondary figure (an interval,
    pass^k, tokens) under its primary one. ``extra``: the errors and tokens columns of a comparison."""
    table = Table(title=title)
    table.add_column(label, overflow="fold", no_wrap=not (stacked and extra))
    headers = ["episodes", *(("mean reward\n95% CI", "pass@1\n95% CI") if stacked else _WIDE_HEADERS)]
    if k > 1:
        headers += [f"pass@{k}\npass^{k}"] if stacked else [f"pass@{k}", f"pass^{k}"]
    if extra:
        headers += ["errors\ntokens"] if stacked else ["errors", "tokens"]
    for header in headers:
        table.add_column(header, justify="right", no_wrap=True)
    for name, scores in rows:
        cells = [str(scores.get("episodes", 0)), *_score_cells(scores, stacked)]
        if k > 1:
            cells += _pair(_fmt(scores["pass_at_k"].get(str(k))), _fmt(scores["pass_hat_k"].get(str(k))), stacked)
        if extra:
            cells += _pair(str(scores.get("errors", 0)), f"{_tokens(scores):,}", stacked)
        table.add_row(name, *cells, style="bold" if name == "all" and not extra else None)
    return table


_WIDE_HEADERS = ("mean reward [95% CI]", "pass@1 [95% CI]")


def _score_cells(scores: dict[str, Any], stacked: bool) -> list[str]:
    """Mean reward and pass@1, each with its interval after it (or under it)."""
    joint = "\n" if stacked else " "
    pass_ci = (scores.get("pass_at_k_ci95") or {}).get("1")
    return [
        f"{_fmt(scores.get('mean_reward'))}{joint}{_interval(scores.get('mean_reward_ci95'))}".rstrip(),
        f"{_fmt(scores['pass_at_k'].get('1'))}{joint}{_interval(pass_ci)}".rstrip(),
    ]


def _pair(first: str, second: str, stacked: bool) -> list[str]:
    return [f"{first}\n{second}"] if stacked else [first, second]


def _tokens(summary: dict[str, Any]) -> int:
    usage = summary.get("usage") or {}
    return int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))


def _largest_k(summary: dict[str, Any]) -> int:
    return max((int(x) for x in summary.get("pass_at_k", {})), default=1)


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}"


def _interval(value: Any) -> str:
    """``[low, high]``; nothing where there is no interval (fewer than two tasks)."""
    return "" if not value else f"[{value[0]:.3f}, {value[1]:.3f}]"
