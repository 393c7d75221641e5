"""The run summary: mean reward per tier, pass@k and pass^k, errors, tokens, stop reasons.

``pass@k`` is the chance that at least one of k rollouts of a task passes, ``pass^k`` (tau-bench's measure of
reliability) the chance that all k pass. Both use the unbiased estimators over a task's n scored rollouts
with c passes, ``1 - C(n-c, k)/C(n, k)`` and ``C(c, k)/C(n, k)``, averaged over the tasks that have at least
k rollouts. An episode passes when its reward reaches ``threshold`` (1.0 by default: InvoiceApproval grades
pass/fail, VendorReview gives partial credit). Episodes with infrastructure errors are counted apart and
never scored.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from math import comb
from typing import Any

from rich.table import Table

TIER_ORDER = ("single", "easy", "batch", "medium", "long", "hard")


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
    per_task: dict[str, list[bool]] = defaultdict(list)
    for record in records:
        per_task[record["task_id"]].append(float(record["reward"]) >= threshold)
    k_max = max((len(v) for v in per_task.values()), default=0)
    at_k: dict[str, float] = {}
    hat_k: dict[str, float] = {}
    for k in range(1, k_max + 1):
        eligible = [(len(v), sum(v)) for v in per_task.values() if len(v) >= k]
        at_k[str(k)] = sum(pass_at_k(n, c, k) for n, c in eligible) / len(eligible)
        hat_k[str(k)] = sum(pass_hat_k(n, c, k) for n, c in eligible) / len(eligible)
    rewards = [float(r["reward"]) for r in records]
    return {
        "episodes": len(records),
        "mean_reward": sum(rewards) / len(rewards) if rewards else None,
        "pass_at_k": at_k,
        "pass_hat_k": hat_k,
    }


def tier_rank(tier: str) -> tuple[int, str]:
    return (TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER), tier)


def summary_table(summary: dict[str, Any], title: str) -> Table:
    """Per tier and overall: episodes, mean reward, pass@1, pass@k and pass^k at the largest k."""
    k = max((int(x) for x in summary.get("pass_at_k", {})), default=1)
    table = Table(title=title)
    columns = ["tier", "episodes", "mean reward", "pass@1"] + ([f"pass@{k}", f"pass^{k}"] if k > 1 else [])
    for column in columns:
        table.add_column(column, justify="left" if column == "tier" else "right")
    for name, scores in [*summary.get("tiers", {}).items(), ("all", summary)]:
        table.add_row(name or "-", *_cells(scores, k), style="bold" if name == "all" else None)
    return table


def _cells(scores: dict[str, Any], k: int) -> list[str]:
    def fmt(value: Any) -> str:
        return "-" if value is None else f"{value:.3f}"

    cells = [str(scores.get("episodes", 0)), fmt(scores.get("mean_reward")), fmt(scores["pass_at_k"].get("1"))]
    if k > 1:
        cells += [fmt(scores["pass_at_k"].get(str(k))), fmt(scores["pass_hat_k"].get(str(k)))]
    return cells
