"""The ``officegym`` command: run scripted policies on the shipped tasks, evaluate LLMs, audit results.

``officegym demo`` is the main job: it renders one episode in the terminal, then plays the oracle and the
random policy on every shipped task of every environment and prints a score table. No network, no key.
``officegym eval`` evaluates a policy (an LLM behind any OpenAI-compatible endpoint, or a scripted one) into
a resumable JSONL file; ``officegym show`` renders stored episodes; ``officegym replay`` re-executes them and
checks that their grades reproduce.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
from rich.console import Console
from rich.table import Table

from . import ENV_IDS
from .envs.core.demo import Demo
from .envs.core.rendering import ShowSteps
from .evaluation.options import OneLineParser, seed_number
from .policies import EpisodeResult, run_episode
from .policies.registry import make_policy, policies_for, policy_names
from .registration import env_class


def _task_ids(env: gym.Env[Any, Any]) -> list[str]:
    return list(env.unwrapped.task_ids)  # type: ignore[attr-defined]


def _demo(env_id: str) -> Demo:
    demo: Demo | None = env_class(env_id).DEMO
    if demo is None:
        raise ValueError(f"{env_id} has no demo")
    return demo


def _tier_order(env_ids: Sequence[str]) -> list[str]:
    """Every tier of the given envs, each env's easiest first (the score table's column order)."""
    order: dict[str, None] = {}
    for env_id in env_ids:
        order.update(dict.fromkeys(env_class(env_id).TIERS))
    return list(order)


def evaluate(
    env_id: str, policy_name: str, task_ids: Sequence[str] | None = None, seed: int = 0, **env_kwargs: Any
) -> list[EpisodeResult]:
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
    known = _tier_order(sorted({env_id for env_id, _ in rows}))
    seen = {r.tier for results in rows.values() for r in results}
    tiers = sorted(seen, key=lambda t: (known.index(t) if t in known else len(known), t))
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


def demo(console: Console, render: bool = True) -> int:
    if render:
        for env_id in ENV_IDS:
            demo_ = _demo(env_id)
            policy, task_id = demo_.policies[0], demo_.task_id
            console.rule(f"{env_id}: {policy} on {task_id}")
            env = ShowSteps(gym.make(env_id), console)
            run_episode(env, make_policy(policy, env), task_id=task_id, seed=0)
            env.close()
    for env_id in ENV_IDS:
        rows = {(env_id, policy): evaluate(env_id, policy) for policy in _demo(env_id).policies}
        console.print(score_table(f"{env_id}: scripted policies on every shipped task (mean reward)", rows))
    return 0


def run(
    console: Console,
    env_id: str,
    policy: str,
    task_ids: list[str] | None,
    seed: int,
    render: bool,
    *,
    full: bool = False,
) -> int:
    """Play ``policy`` on the tasks; ``render`` shows every step (``full``: JSON results unclipped too)."""
    offered = policies_for(env_id)
    if policy not in offered:
        players = [other for other in ENV_IDS if policy in policies_for(other)]
        known = f"the {policy} policy plays {', '.join(players)} only" if players else f"unknown policy {policy!r}"
        raise ValueError(f"{known}; {env_id} takes --policy {', '.join(offered)}")
    env: gym.Env[Any, Any] = gym.make(env_id)
    if render or full:
        env = ShowSteps(env, console, full=full)
    results = []
    for index, task_id in enumerate(task_ids or _task_ids(env)):
        results.append(run_episode(env, make_policy(policy, env, seed + index), task_id=task_id, seed=seed + index))
    env.close()
    console.print(score_table(f"{policy} on {env_id}", {(env_id, policy): results}))
    return 0


def _policies_help() -> str:
    """``run --help``'s list of the policies each env takes (from the registry)."""
    lines = ["policies by environment (default: oracle, which replays each task's gold path):"]
    for env_id in sorted(ENV_IDS):
        lines += textwrap.wrap(
            ", ".join(policies_for(env_id)), 100, initial_indent=f"  {env_id:30}", subsequent_indent=" " * 32
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = OneLineParser(  # one-line errors, for every command
        prog="officegym", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo_p = sub.add_parser("demo", help="render one episode, then score scripted policies on every task")
    demo_p.add_argument("--no-render", action="store_true", help="only print the score table")
    run_p = sub.add_parser(
        "run",
        help="play a scripted policy on an environment's tasks",
        epilog=_policies_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run_p.add_argument("env_id", choices=sorted(ENV_IDS))
    run_p.add_argument(
        "--policy",
        default="oracle",
        metavar="POLICY",
        help="a scripted policy of the env, listed below (default: oracle)",
    )
    run_p.add_argument("--task-id", action="append", dest="task_ids", help="a task to play (repeatable)")
    run_p.add_argument("--seed", type=seed_number, default=0)
    run_p.add_argument("--render", action="store_true", help="print every step with rich")
    run_p.add_argument(
        "--full", action="store_true", help="print every step, long JSON results unclipped (implies --render)"
    )
    add_eval_parser(sub)
    add_show_parsers(sub)
    add_serve_parser(sub)
    add_report_parser(sub)
    return parser


def add_serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .integrations import server_limits as limits

    serve = sub.add_parser(
        "serve",
        help="serve an env over the OpenEnv protocol: WebSocket sessions, MCP tools at /mcp (needs the openenv extra)",
        description=limits.SERVE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("env_id", choices=sorted(ENV_IDS))
    serve.add_argument("--port", type=int, default=8000, help="TCP port (0: any free port, printed at start)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    serve.add_argument(
        "--max-sessions", type=int, default=256, help="concurrent sessions per worker, each with its own env"
    )
    serve.add_argument(
        "--workers",
        type=int,
        help="server processes sharing the port, each session pinned to one (default: one per core)",
    )
    serve.add_argument(
        "--idle-timeout",
        "--session-timeout",
        type=float,
        default=limits.DEFAULT_IDLE_TIMEOUT_S,
        help="close sessions with no reset, step or MCP call for this many seconds (default: %(default)g)",
    )
    serve.add_argument(
        "--max-sessions-per-client",
        type=int,
        default=limits.DEFAULT_MAX_SESSIONS_PER_CLIENT,
        help="sessions one peer address may hold, WebSocket and HTTP /mcp alike (default: %(default)s)",
    )
    serve.add_argument(
        "--max-body-bytes",
        type=int,
        default=limits.DEFAULT_MAX_BODY_BYTES,
        help="largest HTTP body and WebSocket message, refused before parsing (default: %(default)s)",
    )
    serve.add_argument(
        "--header-timeout",
        type=float,
        default=limits.DEFAULT_HEADER_TIMEOUT_S,
        help="seconds a connection has to send its request headers, and then its body (default: %(default)g)",
    )
    serve.add_argument(
        "--client-bytes-per-s",
        type=int,
        default=limits.DEFAULT_CLIENT_BYTES_PER_S,
        help="message bytes beyond 16 KiB a message one peer address may send per second; more is held back, "
        "slowing only that client (default: %(default)s)",
    )
    serve.add_argument(
        "--client-sessions-per-s",
        type=float,
        default=limits.DEFAULT_CLIENT_SESSIONS_PER_S,
        help="new sessions (WebSockets, stateless POST /reset and /step) one peer address may open per second "
        "after a burst of --max-sessions-per-client; more are held back (default: %(default)g)",
    )
    serve.add_argument(
        "--token",
        help=f"bearer token every request but GET /health must send (default: ${limits.TOKEN_VARIABLE}); "
        "required with a --host beyond loopback",
    )
    serve.add_argument(
        "--env-kwargs",
        help='JSON object of env arguments of the server\'s own world, e.g. \'{"tier": "single"}\' (a reset that '
        "carries a task row plays the row's world instead)",
    )
    serve.add_argument("--log-level", choices=["critical", "error", "warning", "info", "debug"], default="warning")


def add_eval_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "eval",
        help="evaluate a policy (an LLM or a scripted one) into a resumable JSONL file",
        description="Runs every selected task R times, C episodes at a time, and appends one JSON "
        "line per episode to the results file; run the same command again to resume.",
    )
    p.add_argument("env_id", choices=sorted(ENV_IDS))
    p.add_argument(
        "--policy",
        choices=[*sorted(policy_names()), "openai"],
        default="openai",
        help="openai (default: an LLM behind an OpenAI-compatible endpoint) or a scripted policy",
    )
    _model_options(p.add_argument_group("model (--policy openai)"))
    _episode_options(p.add_argument_group("episodes"))
    out = p.add_argument_group("output")
    out.add_argument("-o", "--output", default="results", help="directory (or .jsonl file) for the results")
    out.add_argument("--restart", action="store_true", help="replace the results file instead of resuming it")
    out.add_argument("-q", "--quiet", action="store_true", help="no live progress view")
    out.add_argument(
        "--progress-every",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="when the output is not a terminal (a pipe, a log, CI): a plain progress line every SECONDS and at "
        "the end (default 10; 0: none)",
    )


def _model_options(llm: argparse._ArgumentGroup) -> None:
    llm.add_argument("-m", "--model", help="the model name the endpoint serves")
    llm.add_argument("-b", "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    llm.add_argument(
        "-k",
        "--api-key-var",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (the key is never written anywhere)",
    )
    llm.add_argument(
        "--api",
        choices=["auto", "chat", "responses"],
        default="auto",
        help="chat completions, the Responses API, or auto (switch when chat refuses tools)",
    )
    llm.add_argument("-T", "--temperature", type=float)
    llm.add_argument("-t", "--max-tokens", type=int, help="maximum tokens per model reply")
    llm.add_argument("--reasoning-effort", help="for reasoning models: low, medium, high, ...")
    llm.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
    llm.add_argument("--max-retries", type=int, default=6, help="retries per request on 429/5xx/timeouts")
    llm.add_argument(
        "--backoff",
        type=float,
        default=1.0,
        help="first retry delay in seconds (jittered: half to all of it), doubled each time",
    )
    llm.add_argument("--max-backoff", type=float, default=60.0, help="longest retry delay in seconds")
    llm.add_argument(
        "--keep-reasoning",
        action="store_true",
        help="send reasoning_content back to the server (thinking models that call tools)",
    )
    llm.add_argument("--extra-body", help="JSON object merged into each request, e.g. vLLM sampling options")


def _episode_options(run: argparse._ArgumentGroup) -> None:
    run.add_argument("-n", "--num-tasks", type=int, help="run the first N selected tasks (default: all)")
    run.add_argument("-r", "--rollouts", type=int, default=1, help="episodes per task (for pass@k and pass^k)")
    run.add_argument("-c", "--concurrency", type=int, default=4, help="episodes at a time")
    run.add_argument("--task-ids", action="append", help="comma-separated task ids (repeatable)")
    run.add_argument("--tier", help="only tasks of this tier")
    run.add_argument("--max-turns", type=int, help="tool calls per episode before it is cut off")
    run.add_argument("--env-kwargs", help="JSON object of further env arguments, e.g. '{\"company_seed\": 7}'")
    run.add_argument(
        "--split",
        choices=["train", "test"],
        help="play a task source of this split (default: the env's own tasks, which are the test split)",
    )
    run.add_argument(
        "--source", type=int, default=0, help="with --split: which of the split's task sources (default 0)"
    )
    run.add_argument(
        "--rows", type=Path, help="a JSONL file of task rows (officegym.splits.task_rows) of one world to play"
    )
    run.add_argument("--offer-finish", action="store_true", help="offer the model a finish tool")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument(
        "--backend",
        choices=["local", "processes", "ray"],
        default="local",
        help="local: threads in this process (LLM episodes wait on the network); processes: one worker process "
        "per core, each playing whole scripted episodes; ray: Ray tasks that each play whole episodes (the ray extra)",
    )
    run.add_argument("--address", help="with --backend ray: a Ray cluster address (default: start Ray locally)")
    run.add_argument(
        "--episode-retries",
        type=int,
        default=2,
        help="re-runs of an episode after an infrastructure error before it is recorded as one",
    )
    run.add_argument("--pass-threshold", type=float, default=1.0, help="reward that counts as a pass")


def add_report_parser(sub: argparse._SubParsersAction[Any]) -> None:
    from .evaluation.report import add_report_arguments

    report = sub.add_parser(
        "report",
        help="write one self-contained HTML file of results files: tables, charts, every transcript",
        description="Writes one HTML file (no server, nothing fetched) with the runs side by side, per-tier and "
        "per-task tables, pass@k, charts, and every episode's transcript and failure report, filterable.",
    )
    add_report_arguments(report)


def add_show_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .evaluation.commands import add_show_arguments

    show = sub.add_parser("show", help="render stored episodes of results files, or compare several")
    add_show_arguments(show)
    replay = sub.add_parser("replay", help="re-execute stored episodes and check their grades reproduce")
    replay.add_argument("results", help="a results .jsonl file written by officegym eval")
    replay.add_argument("--episode", help="an index, a key (task#rollout) or a task id (default: all)")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console()
    if args.command in ("eval", "show", "replay", "report"):
        return evaluation_verb(args, console)
    if args.command == "serve":
        from .integrations.openenv_server import serve_command

        return serve_command(args)
    try:
        if args.command == "demo":
            return demo(console, render=not args.no_render)
        return run(console, args.env_id, args.policy, args.task_ids, args.seed, args.render, full=args.full)
    except (ValueError, gym.error.Error) as error:
        console.print(f"Error: {error}", markup=False, highlight=False, soft_wrap=True)  # one line, whole
        return 2


def evaluation_verb(args: argparse.Namespace, console: Console) -> int:
    """``eval``, ``show`` and ``replay``; bad input is an ``Error: ...`` line on stderr and exit code 2."""
    from .evaluation.commands import eval_command, replay_command, show_command
    from .policies.chat import InfrastructureError

    errors = Console(stderr=True)
    verbs = {"eval": eval_command, "show": show_command, "replay": replay_command}
    verbs["report"] = _report_command
    try:
        return verbs[args.command](args, console, errors)
    except (ValueError, OSError, gym.error.Error) as error:
        errors.print(f"Error: {error}", markup=False, highlight=False, soft_wrap=True)  # one line, never wrapped
        return 2
    except InfrastructureError as error:  # fatal: a bad key or an unknown model would fail every episode
        errors.print(
            f"Error: the model endpoint refused the run ({error}). Finished episodes are kept: fix the "
            "cause and run the same command again",
            markup=False,
            highlight=False,
        )
        return 2
    except KeyboardInterrupt:
        errors.print("interrupted: run the same command again to resume", markup=False)
        return 130


def _report_command(args: argparse.Namespace, console: Console, errors: Console) -> int:
    from .evaluation.report import report_command

    return report_command(args, console, errors)


if __name__ == "__main__":
    sys.exit(main())
