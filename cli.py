"""The ``officegym`` command: run scripted policies on the shipped tasks and show the result.

``officegym demo`` is the main job: it renders one episode in the terminal, then plays the oracle and the
random policy on every shipped task of every environment and prints a score table. No network, no key.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
from rich.console import Console
from rich.table import Table

from . import ENV_IDS
from .policies import EpisodeResult, run_episode
from .policies.catalog import POLICIES, make_policy

DEMO_POLICIES: dict[str, tuple[str, ...]] = {"officegym/InvoiceApproval-v0": ("solver", "oracle", "random"),
                                             "officegym/VendorReview-v0": ("oracle", "paranoid", "lazy", "random")}
DEMO_EPISODE = {"officegym/InvoiceApproval-v0": "batch-3", "officegym/VendorReview-v0": "vr-hard-01"}


def _task_ids(env: gym.Env[Any, Any]) -> list[str]:
    return list(env.unwrapped._task_ids())  # type: ignore[attr-defined]


def evaluate(env_id: str, policy_name: str, task_ids: Sequence[str] | None = None, seed: int = 0,
             **env_kwargs: Any) -> list[EpisodeResult]:
    """Play ``policy_name`` once on each task (all tasks of the env if none are named)."""
    env = gym.make(env_id, **env_kwargs)
    results = []
    for index, task_id in enumerate(task_ids or _task_ids(env)):
        policy = make_policy(policy_name, env, seed + index)
        results.append(run_episode(env, policy, task_id=task_id, seed=seed + index))
    env.close()
    return results


def score_table(title: str, rows: dict[tuple[str, str], list[EpisodeResult]]) -> Table:
    """Mean reward per policy and tier, plus the overall mean."""
    tiers = sorted({r.tier for results in rows.values() for r in results}, key=_tier_order)
    table = Table(title=title)
    for column in ("policy", *tiers, "all", "episodes"):
        table.add_column(column, justify="left" if column == "policy" else "right", no_wrap=True, min_width=6)
    for (_env_id, policy), results in rows.items():
        by_tier: dict[str, list[float]] = defaultdict(list)
        for result in results:
            by_tier[result.tier].append(result.reward)
        cells = [f"{sum(v) / len(v):.3f}" if (v := by_tier.get(t)) else "-" for t in tiers]
        mean = sum(r.reward for r in results) / len(results)
        table.add_row(policy, *cells, f"{mean:.3f}", str(len(results)))
    return table


def _tier_order(tier: str) -> tuple[int, str]:
    order = ["single", "easy", "batch", "medium", "long", "hard"]
    return (order.index(tier) if tier in order else len(order), tier)


def demo(console: Console, render: bool = True) -> int:
    if render:
        for env_id, task_id in DEMO_EPISODE.items():
            policy = DEMO_POLICIES[env_id][0]
            console.rule(f"{env_id}: {policy} on {task_id}")
            env = gym.make(env_id, render_mode="human")
            run_episode(env, make_policy(policy, env), task_id=task_id, seed=0)
            env.close()
    for env_id in ENV_IDS:
        rows = {(env_id, policy): evaluate(env_id, policy) for policy in DEMO_POLICIES[env_id]}
        console.print(score_table(f"{env_id}: scripted policies on every shipped task (mean reward)", rows))
    return 0


def run(console: Console, env_id: str, policy: str, task_ids: list[str] | None, seed: int,
        render: bool) -> int:
    env = gym.make(env_id, render_mode="human" if render else None)
    results = []
    for index, task_id in enumerate(task_ids or _task_ids(env)):
        results.append(run_episode(env, make_policy(policy, env, seed + index), task_id=task_id, seed=seed + index))
    env.close()
    console.print(score_table(f"{policy} on {env_id}", {(env_id, policy): results}))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="officegym", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    demo_p = sub.add_parser("demo", help="render one episode, then score scripted policies on every task")
    demo_p.add_argument("--no-render", action="store_true", help="only print the score table")
    run_p = sub.add_parser("run", help="play a scripted policy on an environment's tasks")
    run_p.add_argument("env_id", choices=sorted(ENV_IDS))
    run_p.add_argument("--policy", choices=sorted(POLICIES), default="oracle")
    run_p.add_argument("--task-id", action="append", dest="task_ids", help="a task to play (repeatable)")
    run_p.add_argument("--seed", type=int, default=0)
    run_p.add_argument("--render", action="store_true", help="print every step with rich")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console()
    try:
        if args.command == "demo":
            return demo(console, render=not args.no_render)
        return run(console, args.env_id, args.policy, args.task_ids, args.seed, args.render)
    except (ValueError, gym.error.Error) as error:
        console.print(f"[red]error:[/red] {error}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
