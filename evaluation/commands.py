"""What the ``eval``, ``show`` and ``replay`` verbs of the ``officegym`` command do (``cli.py`` parses).

Each returns the exit code: 0 when all went well, 1 when the run finished but something needs attention
(episodes with infrastructure errors, a replay that did not reproduce), 2 for bad input (raised as
``ValueError`` and printed as ``Error: ...`` by the CLI), an endpoint that cannot be reached included.
:func:`add_show_arguments` declares ``show``'s options next to the code that reads them.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
from rich.console import Console

from ..policies.chat import ScriptedChatPolicy
from ..policies.registry import make_policy
from .jobs import ChatPolicyFactory, EvalPlan
from .live import PROGRESS_EVERY
from .options import check_eval_numbers, json_problem
from .records import describe_lines, read_records_with_lines
from .replay import replay_record, replay_table
from .rows import eval_world
from .runner import plan_task_ids, results_path, run_eval
from .scripted_factory import ScriptedPolicyFactory
from .show import select_records, show_episode, show_list, show_side_by_side
from .summary import summary_table

if TYPE_CHECKING:  # the openai package is the llm extra: imported only when an LLM is evaluated
    from ..policies.openai_policy import OpenAIPolicy


def eval_command(args: argparse.Namespace, console: Console, errors: Console) -> int:
    check_eval_numbers(args)  # every number in its range before anything runs (options.py)
    progress_every = float(getattr(args, "progress_every", PROGRESS_EVERY))
    if not progress_every >= 0:  # NaN too
        raise ValueError(f"--progress-every must be 0 (no progress lines) or more seconds, got {progress_every:g}")
    env_kwargs = json_object(args.env_kwargs, "--env-kwargs")
    if args.max_turns is not None:
        env_kwargs["max_turns"] = args.max_turns
    world = eval_world(
        args.env_id, env_kwargs, split_ids(args.task_ids), split=args.split, source=args.source, rows=args.rows
    )
    env_kwargs = world.env_kwargs
    tasks = plan_task_ids(args.env_id, env_kwargs, world.task_ids, args.tier, args.num_tasks)
    info, factory, preflight = build_policy(args, env_kwargs)
    output = results_path(Path(args.output), args.env_id, info["policy"], info.get("model"), world.source)
    plan = EvalPlan(
        args.env_id,
        tasks,
        info,
        output,
        rollouts=args.rollouts,
        concurrency=args.concurrency,
        base_seed=args.seed,
        env_kwargs=env_kwargs,
        episode_retries=args.episode_retries,
        offer_finish=args.offer_finish,
        pass_threshold=args.pass_threshold,
        restart=args.restart,
        backend=args.backend,
        ray_address=args.address,
    )

    def warn(text: str) -> None:
        errors.print(text, markup=False, highlight=False, soft_wrap=True)  # a path stays whole, to copy

    outcome = run_eval(
        plan, factory, console, live=not args.quiet, progress_every=progress_every, preflight=preflight, warn=warn
    )
    if not outcome.ran:  # a finished run asked again: say so, then show its table as a fresh run would
        console.print(f"all {outcome.skipped} episodes already done (--restart runs them again)")
    console.print(summary_table(outcome.summary, f"{args.env_id} · {info.get('model') or info['policy']}"))
    console.print(f"results: {outcome.path} ({outcome.ran} episode(s) run, {outcome.skipped} already there)")
    console.print(f"summary: {outcome.summary_path}")
    failed = outcome.summary["errors"]
    if failed:
        errors.print(
            f"Error: {failed} episode(s) failed on infrastructure and were not scored "
            "(see `officegym show`); run the same command again to retry them",
            markup=False,
        )
        return 1
    return 0


def build_policy(
    args: argparse.Namespace, env_kwargs: dict[str, Any]
) -> tuple[dict[str, Any], ChatPolicyFactory, Callable[[], None] | None]:
    """The policy's description, a factory giving each episode its policy, and the check to run before the
    first episode (an LLM's endpoint must answer; scripted policies need none)."""
    if args.policy != "openai":
        probe = gym.make(args.env_id, **env_kwargs)
        try:  # a policy unsuitable for this env says so before anything runs
            scripted = ScriptedChatPolicy(make_policy(args.policy, probe))
        finally:
            probe.close()
        name = args.policy
        return scripted.describe(), ScriptedPolicyFactory(name), None
    policy = openai_policy(args)
    return policy.describe(), lambda env, seed: policy, policy.preflight


def openai_policy(args: argparse.Namespace) -> OpenAIPolicy:
    if not args.model:
        raise ValueError("--model is required with --policy openai (e.g. --model gpt-4.1-mini)")
    try:
        from ..policies import openai_policy as llm
    except ImportError as error:
        raise ValueError(
            f"the openai policy needs the openai package ({error}): pip install 'officegym[llm]'"
        ) from error
    settings = llm.OpenAISettings(
        model=args.model,
        base_url=args.base_url,
        api_key_var=args.api_key_var,
        api=args.api,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        reasoning_effort=args.reasoning_effort,
        timeout=args.timeout,
        max_retries=args.max_retries,
        backoff=args.backoff,
        max_backoff=args.max_backoff,
        keep_reasoning=args.keep_reasoning,
        extra_body=json_object(args.extra_body, "--extra-body") or None,
    )
    return llm.OpenAIPolicy(settings)


def add_show_arguments(show: argparse.ArgumentParser) -> None:
    """The options of ``officegym show`` (the CLI's parser calls this)."""
    show.add_argument("results", nargs="+", help="results .jsonl file(s); several: one summary row each")
    show.add_argument("--episode", help="an index from the list, a key (task#rollout) or a task id")
    show.add_argument("--full", action="store_true", help="do not clip long messages")
    show.add_argument("--pass-threshold", type=float, default=1.0, help="reward that counts as a pass")
    show.add_argument("--failed", action="store_true", help="list only episodes that did not pass (errors too)")
    show.add_argument("--tier", help="only episodes of this tier (list and summary)")


def show_command(args: argparse.Namespace, console: Console, errors: Console) -> int:
    paths = [Path(p) for p in ([args.results] if isinstance(args.results, str) else args.results)]
    tier, failed = getattr(args, "tier", None), bool(getattr(args, "failed", False))
    if len(paths) > 1:
        if args.episode is not None:
            raise ValueError("--episode shows one episode of one results file: give a single file")
        files = [(str(path), load(path, errors)) for path in paths]
        if failed:
            for name, records in files:
                show_list(console, records, args.pass_threshold, tier=tier, failed=True, source=name)
        show_side_by_side(console, files, args.pass_threshold, tier=tier)
        return 0
    records = load(paths[0], errors)
    if args.episode is None:
        show_list(console, records, args.pass_threshold, tier=tier, failed=failed)
        return 0
    for record in select_records(records, args.episode):
        show_episode(console, record, full=args.full)
    return 0


def replay_command(args: argparse.Namespace, console: Console, errors: Console) -> int:
    records = [r for r in select_records(load(Path(args.results), errors), args.episode) if not r.get("has_error")]
    if not records:
        raise ValueError("nothing to replay: the selected episodes all failed on infrastructure")
    results = [replay_record(record) for record in records]
    console.print(replay_table(results))
    different = [r.key for r in results if not r.grade_matches]
    if different:
        errors.print(
            f"Error: {len(different)} of {len(results)} episode(s) did not reproduce their stored grade: "
            f"{', '.join(different[:10])}",
            markup=False,
        )
        return 1
    if not all(r.transcript_matches for r in results):  # else the table's "all N match" said it
        console.print(f"all {len(results)} episode(s) reproduce their stored grade")
    return 0


def load(path: Path, errors: Console) -> list[dict[str, Any]]:
    if not path.is_file():
        raise ValueError(f"no results file at {path}")
    records, bad = read_records_with_lines(path)
    if bad:
        errors.print(
            f"warning: skipped {len(bad)} unreadable line(s) in {path} ({describe_lines(bad)}: torn, not UTF-8 "
            "or not an episode record)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if not records:
        raise ValueError(f"{path} holds no episode records")
    return records


def split_ids(values: list[str] | None) -> list[str] | None:
    """``--task-ids a,b --task-ids c`` as ``[a, b, c]``."""
    if not values:
        return None
    return [t.strip() for value in values for t in value.split(",") if t.strip()]


def json_object(text: str | None, flag: str) -> dict[str, Any]:
    if not text:
        return {}
    problem = json_problem(text, flag)  # not JSON, not an object, too large or too deep (options.py)
    if problem:
        raise ValueError(problem)
    value: dict[str, Any] = json.loads(text)
    return value
