"""Running an evaluation: every (task, rollout) episode, concurrently, into a resumable JSONL file.

Episodes run in threads: an LLM episode waits on the network almost all the time, so threads give the
concurrency without processes, and each episode gets its own env (``gym.make`` costs a fraction of a
millisecond) so no env is ever shared. Only the main thread writes the file, one line per finished episode.

Resuming is running the same command again: episodes already in the file are skipped, except those that
failed on infrastructure, which run again (they were never scored). A file written with other settings is
refused rather than mixed. An infrastructure error is retried ``episode_retries`` times on a fresh env before
it is recorded as ``has_error``; a fatal one (bad key, unknown model) stops the run. Before the first episode,
``preflight`` (the policy's check that its endpoint answers) ends a run that could not reach its model at once.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
from rich.console import Console

from ..policies.chat import redact
from .episode import EpisodeRun
from .jobs import ChatPolicyFactory, EvalPlan, TurnReporter, deliver, play
from .live import PROGRESS_EVERY, LiveView
from .lock import results_lock
from .options import RANGES, check_episode_count
from .records import (
    Job,
    RecordWriter,
    check_resumable,
    describe_lines,
    episode_seed,
    read_records,
    read_records_with_lines,
)
from .summary import summarize

RESERVED_ENV_KWARGS = ("task_ids", "tier", "render_mode")


@dataclass(frozen=True)
class EvalOutcome:
    path: Path
    summary_path: Path
    summary: dict[str, Any]
    ran: int
    skipped: int
    unreadable_lines: int


def plan_task_ids(
    env_id: str, env_kwargs: dict[str, Any], task_ids: list[str] | None, tier: str | None, limit: int | None
) -> list[str]:
    """The tasks to run, in the env's order: ``task_ids`` and ``tier`` as the env selects them, first ``limit``."""
    reserved = [k for k in env_kwargs if k in RESERVED_ENV_KWARGS]
    if reserved:
        raise ValueError(f"--env-kwargs must not set {', '.join(reserved)}; use --task-ids and --tier")
    RANGES["-n/--num-tasks"].check(limit)
    env = gym.make(env_id, task_ids=task_ids or None, tier=tier, **env_kwargs)
    selected = list(env.unwrapped.task_ids)  # type: ignore[attr-defined]
    env.close()
    return selected[:limit] if limit else selected


def results_path(output: Path, env_id: str, policy: str, model: str | None, source: str | None = None) -> Path:
    """``output`` itself if it names a ``.jsonl`` file, else ``output/<Env>__<policy>[-<model>][__<source>].jsonl``
    (the source of ``--split``/``--rows``: one file per company or deal range, since task ids repeat)."""
    if output.suffix == ".jsonl":
        return output
    name = env_id.split("/")[-1] + "__" + (f"{policy}-{model}" if model else policy)
    name += f"__{source}" if source else ""
    return output / (re.sub(r"[^A-Za-z0-9._-]+", "-", name) + ".jsonl")


def summary_path(path: Path) -> Path:
    return path.with_name(path.stem + ".summary.json")


def run_eval(
    plan: EvalPlan,
    make_policy: ChatPolicyFactory,
    console: Console,
    *,
    live: bool = True,
    progress_every: float = PROGRESS_EVERY,
    preflight: Callable[[], None] | None = None,
    warn: Callable[[str], None] | None = None,
) -> EvalOutcome:
    """Run the plan's missing episodes, append their records, write and return the summary. ``preflight`` runs
    once before the first episode (not when nothing is left to run); ``warn`` hears about unreadable lines;
    ``progress_every``: seconds between plain progress lines when ``console`` is not a terminal (0: none)."""
    _check_plan(plan)
    if plan.backend == "processes":
        from .process_backend import check_sendable

        check_sendable(make_policy)  # before anything is written
    config = plan.config()
    _, pending = _jobs(plan, config, warn)
    if pending and preflight is not None:
        preflight()  # before the lock: a refused key or URL leaves nothing behind
    with results_lock(plan.output):
        return _run_locked(plan, make_policy, console, live, config, progress_every)


def _run_locked(
    plan: EvalPlan,
    make_policy: ChatPolicyFactory,
    console: Console,
    live: bool,
    config: dict[str, Any],
    progress_every: float = PROGRESS_EVERY,
) -> EvalOutcome:
    """The run, owning the results file: what is left to run is read again under the lock, so two evals
    started together never both run an episode."""
    jobs, pending = _jobs(plan, config, None)
    title = f"{plan.env_id} · {config['model'] or config['policy']}"
    view = LiveView(
        console, title, len(pending), threshold=plan.pass_threshold, enabled=live, progress_every=progress_every
    )
    _run_pending(plan, pending, make_policy, config, view)
    records, bad = read_records(plan.output)
    summary = summarize(records, plan.pass_threshold)
    path = summary_path(plan.output)
    document = {"results": str(plan.output), "config": config, "summary": summary, "tools": _tools(plan)}
    path.write_text(redact(json.dumps(document, indent=2, ensure_ascii=False)) + "\n", encoding="utf-8")
    return EvalOutcome(plan.output, path, summary, len(pending), len(jobs) - len(pending), bad)


def _jobs(plan: EvalPlan, config: dict[str, Any], warn: Callable[[str], None] | None) -> tuple[list[Job], list[Job]]:
    """Every job of the plan, and those the results file does not hold yet (or holds as errors). A line that
    cannot be read (cut by a crash, not UTF-8) is skipped with a warning: its episode simply runs again."""
    fresh = plan.restart or not plan.output.exists()
    existing, bad = ([], []) if fresh else read_records_with_lines(plan.output)
    if bad and warn is not None:
        warn(
            f"warning: skipped {len(bad)} unreadable line(s) in {plan.output} ({describe_lines(bad)}: torn, not "
            "UTF-8 or not an episode record); those episodes run again"
        )
    check_resumable(existing, config, plan.output)
    done = {r["key"] for r in existing if not r.get("has_error")}
    jobs = [Job(t, r, episode_seed(plan.base_seed, t, r)) for t in plan.task_ids for r in range(plan.rollouts)]
    return jobs, [job for job in jobs if job.key not in done]


def _run_pending(
    plan: EvalPlan, pending: list[Job], make_policy: ChatPolicyFactory, config: dict[str, Any], view: LiveView
) -> None:
    """Play the pending jobs into the results file, the live view hearing every turn and every record."""
    writer = RecordWriter(plan.output, restart=plan.restart)

    def keep(record: dict[str, Any]) -> None:
        writer.write(record)
        view.add(record)

    def turn(job: Job, run: EpisodeRun) -> None:
        view.turn(job.key, run)

    try:
        with view:
            _run_jobs(plan, pending, make_policy, config, keep, turn)
    finally:
        writer.close()


def _check_plan(plan: EvalPlan) -> None:
    """Every number of the plan within its range (``options.py``), and no more episodes than a run can hold:
    checked before a single job is planned, so ``-r 1000000000000`` is an error line, not a full memory."""
    RANGES["-r/--rollouts"].check(plan.rollouts)
    RANGES["-c/--concurrency"].check(plan.concurrency)
    RANGES["--episode-retries"].check(plan.episode_retries)
    RANGES["--pass-threshold"].check(plan.pass_threshold)
    if not plan.task_ids:
        raise ValueError("no task selected")
    check_episode_count(len(plan.task_ids), plan.rollouts)


def _run_jobs(
    plan: EvalPlan,
    jobs: list[Job],
    make_policy: ChatPolicyFactory,
    config: dict[str, Any],
    on_record: Callable[[dict[str, Any]], None],
    on_turn: TurnReporter | None = None,
) -> None:
    """Run the jobs ``plan.concurrency`` at a time. On a fatal error or Ctrl-C the episodes not started are
    dropped and those in flight stop at their next turn (they are run again on resume). Ray workers play
    whole episodes in other processes, so only the local backend reports turns as they happen."""
    if plan.backend == "ray":
        from .ray_backend import run_jobs_on_ray

        run_jobs_on_ray(plan, jobs, make_policy, config, on_record)
        return
    if plan.backend == "processes":
        from .process_backend import run_jobs_in_processes

        run_jobs_in_processes(plan, jobs, make_policy, config, on_record)
        return
    if plan.backend != "local":
        raise ValueError(f"unknown backend {plan.backend!r}; choose local, processes or ray")
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=plan.concurrency, thread_name_prefix="officegym-eval")
    futures: list[Future[dict[str, Any] | None]] = [
        pool.submit(play, plan, job, make_policy, config, stop, on_turn) for job in jobs
    ]
    try:
        deliver(futures, on_record)
    finally:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)


def _tools(plan: EvalPlan) -> list[dict[str, Any]]:
    env = gym.make(plan.env_id, task_ids=plan.task_ids[:1], **plan.env_kwargs)
    _, info = env.reset(options={"task_id": plan.task_ids[0]})
    env.close()
    return list(info.get("tools", []))
