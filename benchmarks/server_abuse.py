"""A well-behaved client's step latency on ``officegym serve`` while another client abuses it (issue 27).

``python -m benchmarks.server_abuse`` starts ``officegym serve officegym/InvoiceApproval-v0 --workers 1`` (one
event loop that both clients share; default limits: 64 KiB messages, 10 s header timeout, each client's budget of
message bytes and new sessions) as a subprocess,
then measures one well-behaved WebSocket client stepping the gold path of a task over and over: alone, then
while an abuser in another process, from another loopback address (another client to the server), does one
thing issue 27 found (each a scenario):

- ``oversize``: 7.5 MB frames, the size the issue measured (refused with close 1009 before being read), the
  abuser reconnecting after each;
- ``near_limit``: frames just under the message limit, valid JSON steps (the worst a client may still send);
- ``slow_headers``: 300 connections that never finish their request headers (closed after 10 s);
- ``idle_sessions``: 60 sessions opened and left idle (they hold slots until reaped, not the event loop);
- ``churn``: WebSocket connections opened and closed as fast as the abuser can (each one a session and an env).

The issue's target is the well-behaved client's p99 within 1.5x of its unloaded p99; every scenario's ratio is
written to ``benchmarks/results/server_abuse.json`` with the verdict, each against a baseline measured just
before it (the machine's other load drifts; its load average at the start is recorded). Every loop is
bounded in count and time, and every address is loopback.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import socket
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.openenv_load import _await_url, _stop
from officegym.integrations.server_limits import (
    DEFAULT_CLIENT_BYTES_PER_S,
    DEFAULT_CLIENT_SESSIONS_PER_S,
    DEFAULT_MAX_BODY_BYTES,
)

ENV_ID = "officegym/InvoiceApproval-v0"
ABUSER = "127.0.0.2"
"""The abuser's peer address (all of 127/8 is loopback): the measured client is 127.0.0.1."""
RESULTS = Path(__file__).parent / "results" / "server_abuse.json"
GUARD_S = 600.0
MAX_ABUSE_S = 120.0
TARGET_RATIO = 1.5
WARM_S = 3.0
"""Seconds of abuse before the measuring starts: the abuser has spent the burst of its budget (64 new sessions:
what a trainer opening all its sessions at once is allowed) and the refusals of its oversize frames have been
charged (they arrive about a second late)."""
PIN = True
"""Set by ``--no-pin``: everything on every CPU, as the first committed run measured."""


def abuser_ws(base: str) -> Any:
    """A WebSocket from the abuser's address."""
    from websockets.sync.client import connect

    return connect(ws_url(base), open_timeout=GUARD_S, max_size=None, source_address=(ABUSER, 0))


def start_server(limit: int) -> tuple[Any, str]:
    import subprocess
    import tempfile

    command = [sys.executable, "-m", "officegym.cli", "serve", ENV_ID, "--port", "0", "--host", "127.0.0.1"]
    command += ["--max-body-bytes", str(limit), "--workers", "1"]  # one event loop, shared by both clients
    log = Path(tempfile.mkdtemp()) / "stderr.txt"
    with log.open("w") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
    pin(process.pid, 0)
    return process, _await_url(process, log)


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://", 1) + "/ws"


# --------------------------------------------------------------------------- the well-behaved client
def measure(base: str, steps: int) -> list[float]:
    """Milliseconds per step of ``steps`` steps of gold episodes, reset between them (resets not counted)."""
    import gymnasium as gym
    from websockets.sync.client import connect

    import officegym  # noqa: F401 - registers the env ids

    env = gym.make(ENV_ID)
    task_id = env.unwrapped.task_ids[0]  # type: ignore[attr-defined]
    gold = list(env.unwrapped.gold_actions(task_id))  # type: ignore[attr-defined]
    env.close()
    times: list[float] = []
    with connect(ws_url(base), open_timeout=GUARD_S, max_size=None) as ws:
        while len(times) < steps:
            ws.send(json.dumps({"type": "reset", "data": {"task_id": task_id, "seed": 0}}))
            json.loads(ws.recv(timeout=GUARD_S))
            for call in gold:
                started = time.perf_counter()
                ws.send(json.dumps({"type": "step", "data": call}))
                reply = json.loads(ws.recv(timeout=GUARD_S))
                times.append((time.perf_counter() - started) * 1000)
                assert reply["type"] == "observation", reply
    return times[:steps]


# --------------------------------------------------------------------------- the abuser (another process)
def oversize(base: str, stop: Any) -> int:
    from websockets.exceptions import ConnectionClosed

    frame, sent = "A" * 7_500_000, 0
    while not stop.is_set():
        try:
            with abuser_ws(base) as ws:
                ws.send(frame)
                ws.recv(timeout=GUARD_S)
        except (ConnectionClosed, OSError):
            pass
        sent += 1
    return sent


def near_limit(base: str, stop: Any, limit: int) -> int:
    from websockets.exceptions import ConnectionClosed

    frame = json.dumps({"type": "step", "data": {"name": "get_invoice", "arguments": {"x": "A" * (limit - 4096)}}})
    sent = 0
    with abuser_ws(base) as ws:
        while not stop.is_set():
            try:
                ws.send(frame)
                ws.recv(timeout=GUARD_S)
            except ConnectionClosed:
                break
            sent += 1
    return sent


def slow_headers(base: str, stop: Any) -> int:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    opened: list[socket.socket] = []
    while not stop.is_set():
        if len([s for s in opened if s.fileno() != -1]) < 300:
            sock = socket.create_connection((host, int(port)), timeout=GUARD_S, source_address=(ABUSER, 0))
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            opened.append(sock)
        else:
            time.sleep(0.01)
    for sock in opened:
        sock.close()
    return len(opened)


def idle_sessions(base: str, stop: Any, ready: Any) -> int:
    sockets = [abuser_ws(base) for _ in range(60)]
    ready.set()  # measured once all are open: an idle session must cost nothing
    stop.wait(MAX_ABUSE_S)
    for ws in sockets:
        ws.close()
    return len(sockets)


def churn(base: str, stop: Any) -> int:
    opened = 0
    while not stop.is_set():
        with abuser_ws(base):
            opened += 1
    return opened


SCENARIOS: dict[str, Callable[..., int]] = {
    "oversize": oversize,
    "near_limit": near_limit,
    "slow_headers": slow_headers,
    "idle_sessions": idle_sessions,
    "churn": churn,
}


def pin(pid: int, cpu: int) -> None:
    """Keep ``pid`` on one CPU (where the OS allows it): the server and the measured client share CPU 0 in the
    baseline and under abuse alike, and the abuser has CPU 1 to itself, so what the ratio measures is the work
    the server does for the abuser, not the abuser's own CPU (masking 7.5 MB frames) taking the client's core."""
    if PIN and hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > cpu:
        os.sched_setaffinity(pid, {cpu})


def abuse(name: str, base: str, stop: Any, started: Any, count: Any, limit: int) -> None:
    pin(0, 1)
    if name == "idle_sessions":
        count.value = idle_sessions(base, stop, started)
        return
    started.set()
    count.value = near_limit(base, stop, limit) if name == "near_limit" else SCENARIOS[name](base, stop)


# --------------------------------------------------------------------------- the run
def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def summary(times: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(times, 50), 3),
        "p99_ms": round(percentile(times, 99), 3),
        "max_ms": round(max(times), 3),
    }


def scenario(name: str, base: str, steps: int, limit: int) -> dict[str, Any]:
    """The client alone, then under the abuse: on a shared machine the load of other work drifts, so each
    scenario's ratio is to the baseline measured just before it."""
    baseline = summary(measure(base, steps))
    context = multiprocessing.get_context("spawn")
    stop, started, count = context.Event(), context.Event(), context.Value("i", 0)
    process = context.Process(target=abuse, args=(name, base, stop, started, count, limit), daemon=True)
    process.start()
    started.wait(GUARD_S)
    time.sleep(WARM_S)  # the abuse is under way, past the burst of its budget
    try:
        times = measure(base, steps)
    finally:
        stop.set()
        process.join(GUARD_S)
    loaded = summary(times)
    ratio = loaded["p99_ms"] / baseline["p99_ms"]
    return {
        "baseline": baseline,
        "under_abuse": loaded,
        "abuser_actions": int(count.value),
        "p99_ratio": round(ratio, 2),
        "within_target": ratio <= TARGET_RATIO,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500, help="measured steps per scenario")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES, help="the server's limit")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the server, client and abuser to CPUs")
    args = parser.parse_args(argv)
    global PIN
    PIN = not args.no_pin
    pin(0, 0)
    process, base = start_server(args.max_body_bytes)
    try:
        measure(base, 50)  # warm-up
        results: dict[str, Any] = {}
        for name in SCENARIOS:
            results[name] = scenario(name, base, args.steps, args.max_body_bytes)
            print(name, results[name], flush=True)
    finally:
        _stop(process)
    report = {
        "setup": f"officegym serve {ENV_ID} subprocess; client (127.0.0.1) and abuser ({ABUSER}) in two more "
        "processes; loopback; one server worker (--workers 1: one event loop for both); "
        + ("server and client pinned to CPU 0, abuser to CPU 1" if PIN else "not pinned"),
        "max_body_bytes": args.max_body_bytes,
        "client_bytes_per_s": DEFAULT_CLIENT_BYTES_PER_S,
        "client_sessions_per_s": DEFAULT_CLIENT_SESSIONS_PER_S,
        "machine": {
            "cpus": multiprocessing.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_start": list(os.getloadavg()),
        },
        "steps_per_scenario": args.steps,
        "target": f"well-behaved p99 within {TARGET_RATIO}x of unloaded p99",
        "results": results,
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
