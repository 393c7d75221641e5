"""Load test of ``officegym serve``: many OpenEnv sessions at once, each a full gold episode, checked step by step.

``python -m benchmarks.openenv_load`` starts one server per env id as a subprocess (``officegym serve ENV_ID
--port 0``, the real command, with its default of one worker per core) and drives them with OpenEnv's own
async client (``GenericEnvClient``) from this process, over loopback:

- **distinct**: every round opens one session per task of every registered env id at once (556 sessions on the
  six ids of InvoiceApproval and VendorReview v0-v2, so every session plays a different task). Each session
  connects and resets, then waits at a barrier until every session has reset, so all of them are open
  together; then all play their gold path (and ``finish``) interleaved.
- **crowd**: one InvoiceApproval server holds 4 sessions per task (240 at once, different seeds), the case
  where sessions sharing anything would collide on the same invoices.
- **single**: one session playing tasks one after another: the latency without load, for comparison.

Every observation (text, reward, done, grade, info) must equal what a local env answers for the same task,
seed and actions, which is how cross-talk between sessions would show; every episode must be graded 1.0.
Writes ``benchmarks/results/openenv_load.json``: sessions, episodes, steps/s, step latency p50/p95/p99 and
errors. The test suite runs one distinct round (``tests/integrations/openenv/test_openenv_load.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import officegym
from officegym.envs.core.actions import FINISH_ACTION

RESULT = Path(__file__).parent / "results" / "openenv_load.json"
INVOICE = "officegym/InvoiceApproval-v0"
STARTUP_TIMEOUT_S = 180.0  # importing OpenEnv (Gradio, FastMCP) takes seconds, more on a busy machine
MESSAGE_TIMEOUT_S = 120.0


# --------------------------------------------------------------------------- what each session plays
@dataclass(frozen=True)
class Job:
    """One session's episode: its server, task, seed and the actions it sends (gold path, then finish)."""

    env_id: str
    task_id: str
    seed: int
    actions: tuple[dict[str, Any], ...]


def plan(env_ids: Sequence[str], copies: int = 1) -> list[Job]:
    """``copies`` sessions for every task of every env, each copy with its own seed."""
    jobs = []
    for env_id in env_ids:
        env = gym.make(env_id)
        for index, task_id in enumerate(env.unwrapped.task_ids):  # type: ignore[attr-defined]
            path = (*env.unwrapped.gold_actions(task_id), FINISH_ACTION)  # type: ignore[attr-defined]
            jobs += [Job(env_id, task_id, 1000 * copy + index, path) for copy in range(copies)]
        env.close()
    return jobs


def record(text: Any, reward: Any, done: Any, truncated: Any, grade: Any, info: Any) -> dict[str, Any]:
    """One observation in the form both sides are compared in (JSON, as it travels)."""
    fields = {"text": text, "reward": reward, "done": done, "truncated": truncated, "grade": grade, "info": info}
    return dict(json.loads(json.dumps(fields)))


def local_replay(job: Job) -> list[dict[str, Any]]:
    """What a local env answers to the job's reset and actions: the reference for the remote session."""
    env = gym.make(job.env_id)
    text, info = env.reset(seed=job.seed, options={"task_id": job.task_id})
    records = [record(text, None, False, False, None, info)]
    for action in job.actions:
        text, reward, terminated, truncated, info = env.step(action)
        rest = {key: value for key, value in info.items() if key != "grade"}
        records.append(record(text, float(reward), terminated or truncated, truncated, info.get("grade"), rest))
        if terminated or truncated:
            break
    env.close()
    return records


# --------------------------------------------------------------------------- one session
@dataclass
class Session:
    """What one remote session saw, and how long each step took."""

    job: Job
    records: list[dict[str, Any]] = field(default_factory=list)
    reset_ms: float = 0.0
    step_ms: list[float] = field(default_factory=list)
    released: float = 0.0
    finished: float = 0.0
    error: str | None = None


def remote_record(result: Any) -> dict[str, Any]:
    """A ``StepResult`` of ``GenericEnvClient`` (the observation is the server's dict) as a comparable record."""
    obs = result.observation
    return record(obs["text"], result.reward, result.done, obs["truncated"], obs["grade"], obs["info"])


async def play(url: str, job: Job, barrier: asyncio.Barrier) -> Session:
    """Connect and reset, wait until every session has, then play the job to the end of the episode. Every
    session reaches the barrier once, failed or not, so one failure cannot hang the others."""
    from openenv.core.generic_client import GenericEnvClient

    session = Session(job)
    client = GenericEnvClient(base_url=url, message_timeout_s=MESSAGE_TIMEOUT_S)
    try:
        await _reset(client, session)
    except Exception as error:
        session.error = f"reset: {type(error).__name__}: {error}"
    await barrier.wait()
    session.released = time.perf_counter()
    try:
        if session.error is None:
            await _steps(client, session)
    except Exception as error:
        session.error = f"step {len(session.step_ms) + 1}: {type(error).__name__}: {error}"
    finally:
        session.finished = time.perf_counter()
        await client.close()
    return session


async def _reset(client: Any, session: Session) -> None:
    start = time.perf_counter()
    await client.connect()
    result = await client.reset(task_id=session.job.task_id, seed=session.job.seed)
    session.reset_ms = (time.perf_counter() - start) * 1000
    session.records.append(remote_record(result))


async def _steps(client: Any, session: Session) -> None:
    for action in session.job.actions:
        start = time.perf_counter()
        result = await client.step(action)
        session.step_ms.append((time.perf_counter() - start) * 1000)
        session.records.append(remote_record(result))
        if result.done:
            return


# --------------------------------------------------------------------------- a round of sessions
def problems(session: Session, expected: list[dict[str, Any]]) -> list[str]:
    """Everything wrong with one session: an error, an observation unlike the local env's, a grade below 1.0."""
    where = f"{session.job.env_id} {session.job.task_id} seed {session.job.seed}"
    if session.error is not None:
        return [f"{where}: {session.error}"]
    found = []
    if len(session.records) != len(expected):
        found.append(f"{where}: {len(session.records)} observations, the local env gave {len(expected)}")
    for index, (remote, local) in enumerate(zip(session.records, expected, strict=False)):
        differing = sorted(key for key in local if remote.get(key) != local[key])
        if differing:
            found.append(f"{where}: observation {index} differs from the local env's in {', '.join(differing)}")
            break
    grade = session.records[-1]["grade"] if session.records else None
    if grade is None or grade.get("reward") != 1.0:
        found.append(f"{where}: graded {grade and grade.get('reward')}, not 1.0")
    return found


async def _gather(urls: Mapping[str, str], jobs: Sequence[Job]) -> list[Session]:
    barrier = asyncio.Barrier(len(jobs))
    return list(await asyncio.gather(*(play(urls[job.env_id], job, barrier) for job in jobs)))


def run_round(urls: Mapping[str, str], jobs: Sequence[Job]) -> dict[str, Any]:
    """All ``jobs`` as concurrent sessions against the servers at ``urls`` (by env id), checked against local
    replays. Returns the round's figures, with ``problems`` listing every failed session."""
    sessions = asyncio.run(_gather(urls, jobs))
    found = [problem for session in sessions for problem in problems(session, local_replay(session.job))]
    step_ms = [ms for session in sessions for ms in session.step_ms]
    wall = max(s.finished for s in sessions) - min(s.released for s in sessions)
    graded = sum(1 for s in sessions if s.records and (s.records[-1]["grade"] or {}).get("reward") == 1.0)
    return {
        "sessions": len(sessions),
        "episodes_graded_1": graded,
        "steps": len(step_ms),
        "seconds": wall,
        "step_ms": step_ms,
        "reset_ms": [s.reset_ms for s in sessions if s.error is None],
        "errors": sum(1 for s in sessions if s.error is not None),
        "problems": found,
    }


# --------------------------------------------------------------------------- servers as subprocesses
@dataclass(frozen=True)
class Fleet:
    """The running servers: base URLs by env id, and where each writes its stderr (uvicorn's log)."""

    urls: dict[str, str]
    logs: dict[str, Path]

    def log_errors(self) -> list[str]:
        """Lines the servers logged at error level or with a traceback so far (none in a clean run)."""
        lines = [line for log in self.logs.values() for line in log.read_text().splitlines()]
        return [line for line in lines if "ERROR" in line or line.startswith("Traceback")]


@contextmanager
def servers(env_ids: Sequence[str], max_sessions: int = 256) -> Iterator[Fleet]:
    """``officegym serve`` for each env id on a free loopback port (started together, so their imports
    overlap); always terminates every server on exit, also when startup fails."""
    with ExitStack() as stack:
        started = {env_id: stack.enter_context(_server_process(env_id, max_sessions)) for env_id in env_ids}
        urls = {env_id: _await_url(*started[env_id]) for env_id in env_ids}
        yield Fleet(urls, {env_id: log for env_id, (_, log) in started.items()})


@contextmanager
def _server_process(env_id: str, max_sessions: int) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    command = [sys.executable, "-m", "officegym.cli", "serve", env_id, "--port", "0", "--host", "127.0.0.1"]
    command += ["--max-sessions", str(max_sessions), "--max-sessions-per-client", str(max_sessions)]  # one client
    command += ["--client-sessions-per-s", str(max_sessions)]  # its rounds open every session again, each second
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "stderr.txt"
        with log.open("w") as stderr:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
        try:
            yield process, log
        finally:
            _stop(process)


def _await_url(process: subprocess.Popen[str], log: Path) -> str:
    """The base URL from the server's first line (``officegym serve: ID on http://HOST:PORT ...``)."""
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.append(process.stdout.readline() if process.stdout else ""), daemon=True
    )
    reader.start()
    reader.join(STARTUP_TIMEOUT_S)
    words = lines[0].split() if lines else []
    if "on" not in words:
        raise RuntimeError(f"the server did not start: {log.read_text()[-2000:] or 'no output'}")
    return words[words.index("on") + 1]


def _stop(process: subprocess.Popen[str]) -> None:
    """SIGTERM (uvicorn's graceful shutdown), then SIGKILL if it does not end in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout:
        process.stdout.close()


# --------------------------------------------------------------------------- the benchmark
DEFINITIONS = {
    "steps_per_s": "step messages answered per second, from the barrier's release to the last answer of a round",
    "step_latency_ms": "one step as a client sees it, send to answer, queueing behind the other sessions included",
    "reset_latency_ms": "connecting plus the reset, while every other session of the round connects too",
    "errors": "sessions that raised (connection, server error, timeout); failed_sessions adds wrong observations "
    "and grades below 1.0",
}


def percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    array = np.asarray(values)
    found = {f"p{q}": round(float(np.percentile(array, q)), 2) for q in (50, 95, 99)}
    return {**found, "max": round(float(array.max()), 2)}


def summarise(name: str, rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """One phase's rounds as the figures the result file reports."""
    steps = sum(r["steps"] for r in rounds)
    seconds = sum(r["seconds"] for r in rounds)
    found = [problem for r in rounds for problem in r["problems"]]
    return {
        "phase": name,
        "rounds": len(rounds),
        "concurrent_sessions": rounds[0]["sessions"],
        "episodes": sum(r["sessions"] for r in rounds),
        "episodes_graded_1": sum(r["episodes_graded_1"] for r in rounds),
        "steps": steps,
        "steps_per_s": round(steps / seconds, 1),
        "episodes_per_s": round(sum(r["sessions"] for r in rounds) / seconds, 2),
        "step_latency_ms": percentiles([ms for r in rounds for ms in r["step_ms"]]),
        "reset_latency_ms": percentiles([ms for r in rounds for ms in r["reset_ms"]]),
        "errors": sum(r["errors"] for r in rounds),
        "failed_sessions": len(found),
        "problems": found[:10],
    }


def run(rounds: int = 3) -> dict[str, Any]:
    """The three phases against fresh servers; see the module docstring."""
    env_ids, setting = list(officegym.ENV_IDS), machine()
    distinct, crowd = plan(env_ids), plan([INVOICE], copies=4)
    with servers(env_ids, max_sessions=len(crowd)) as fleet:
        run_round(fleet.urls, distinct[:8])  # warm-up: first connections, imports, caches
        phases = [
            summarise("distinct", [run_round(fleet.urls, distinct) for _ in range(rounds)]),
            summarise("crowd", [run_round(fleet.urls, crowd) for _ in range(max(1, rounds // 2))]),
            summarise("single", [run_round(fleet.urls, [job]) for job in distinct[::8]]),
        ]
        logged = fleet.log_errors()
    return {
        "what": __doc__.split("\n\n")[0] if __doc__ else "",
        "machine": setting,
        "definitions": DEFINITIONS,
        "phases": phases,
        "server_log_errors": len(logged),
        "server_log_samples": logged[:5],
    }


def machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "openenv_core": version("openenv-core"),
        "uvicorn": version("uvicorn"),
        "websockets": version("websockets"),
        "setup": "one officegym serve subprocess per env id; all clients in one asyncio process; loopback",
        "load_average_at_start": [round(load, 2) for load in os.getloadavg()],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the distinct phase (default 3)")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    report = run(args.rounds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for phase in report["phases"]:
        print(json.dumps({k: v for k, v in phase.items() if k != "problems"}))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
