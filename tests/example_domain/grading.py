"""Grading by final state: 1.0 iff exactly the right receipts were reimbursed. Progress applies the same grader
to the episode as it stands, so the two never disagree (on the last step ``progress()["reward"]`` is the grade)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from officegym.envs.core import Grade
from officegym.envs.core.episode_stats import EpisodeStats

from .episode import PettyCashEpisode


def grade_episode(ctx: PettyCashEpisode, stats: EpisodeStats) -> Grade:
    """The grade, with the receipts paid, missed and wrongly paid as diagnostics."""
    paid, target = ctx.paid(), ctx.task.reimburse
    reward = 1.0 if paid == target else 0.0
    checks = {"paid": sorted(paid), "missed": sorted(target - paid), "wrongly_paid": sorted(paid - target)}
    return Grade(
        reward, {"state_matches": reward}, {**checks, "closed": ctx.closed_note is not None, **stats.as_diagnostics()}
    )


def progress(ctx: PettyCashEpisode, stats: EpisodeStats) -> dict[str, float]:
    """Floats under stable keys: counters first, ``reward`` (the grade the episode would get now) last."""
    paid, target = ctx.paid(), ctx.task.reimburse
    return {
        "turns": float(stats.turns),
        "invalid_calls": float(stats.invalid_calls),
        "target": float(len(target)),
        "paid_correctly": float(len(paid & target)),
        "paid_wrongly": float(len(paid - target)),
        "reward": grade_episode(ctx, stats).reward,
    }


def potential(measures: Mapping[str, float]) -> float:
    """Net correct payments per expected one, clipped to [-1, 1] (bounded by the final reward's size)."""
    net = (measures["paid_correctly"] - measures["paid_wrongly"]) / max(1.0, measures["target"])
    return max(-1.0, min(1.0, net))


def failure_report(ctx: PettyCashEpisode) -> list[dict[str, Any]]:
    """One row per receipt whose payment differs from the answer; empty exactly when the grade is 1.0."""
    paid, target = ctx.paid(), ctx.task.reimburse
    return [
        {
            "kind": "receipt",
            "record": rid,
            "field": "paid",
            "expected": "reimbursed" if rid in target else "not reimbursed",
            "actual": "reimbursed" if rid in paid else "not reimbursed",
            "rule": "",
        }
        for rid in sorted(paid ^ target)
    ]
