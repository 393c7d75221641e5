"""Soak of ``officegym serve``: clients that mix hostile frames into real episodes, and a server that must answer
every frame, keep every session and grade every episode as a local env would (issue 27).

``python -m benchmarks.server_soak [--episodes N] [--clients K]`` starts ``officegym serve`` for InvoiceApproval-v0
and VendorReview-v2 (subprocesses, loopback, 1 MiB messages). Each client thread plays gold paths of random
tasks over a WebSocket and, before a random share of the steps, sends one hostile frame: JSON that is not a
message (``null``, a number, an array), JSON nested 100,000 deep, binary frames, unknown message types, malformed
tool calls (unknown tools, wrong argument types, a lone surrogate, a 5,000-digit number) and, rarely, a frame
over the message limit. What must hold, and is counted:

- every hostile frame but the oversize one gets a reply (an error, or an ``Error:`` observation for a malformed
  tool call), and the session goes on: no other close, no lost reply;
- an oversize frame closes that connection with 1009 and nothing else (the client opens a new one and starts the
  episode again);
- every episode played to its end scores 1.0, as its gold path does in a local env;
- the servers stay up and log no traceback.

Seeded (``--seed``): the same run sends the same frames. Results: ``benchmarks/results/server_soak.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.openenv_load import _await_url, _stop

ENV_IDS = ("officegym/InvoiceApproval-v0", "officegym/VendorReview-v2")
RESULTS = Path(__file__).parent / "results" / "server_soak.json"
GUARD_S = 600.0
HOSTILE_SHARE = 0.35
OVERSIZE_SHARE = 0.01
MAX_BODY_BYTES = 1024 * 1024
CLIENT_BYTES_PER_S = 64 * 1024 * 1024
"""The servers take messages of up to 1 MiB (the default is 64 KiB) with a byte budget to match, so that the
100,000-deep JSON below reaches the frame guard instead of the size limit."""

NOT_MESSAGES: list[str | bytes] = [
    "null",
    "5",
    '"text"',
    "[1, 2]",
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 100_000 + "1" + "}" * 100_000,
    b'{"type": "step", "data": {}}',
    b"\x00\xff" * 10,
    '{"type": "dance"}',
    "{not json",
]
"""Frames that are not a valid message: each gets an error reply and leaves the episode as it was."""

BAD_CALLS: list[dict[str, Any]] = [
    {"name": "no_such_tool", "arguments": {}},
    {"name": "finish", "arguments": {"unexpected": 1}},
    {"name": 7, "arguments": {}},
    {"name": "finish", "arguments": "not an object"},
    {"name": "\udcff", "arguments": {}},
    {"name": "x" * 100_000, "arguments": {}},
]
"""Step messages with malformed tool calls: each is an ``Error:`` observation that changes nothing."""

LAST: dict[int, str] = {}
HUGE_NUMBER = '{"type": "step", "data": {"name": "finish", "arguments": {"n": ' + "9" * 5000 + "}}}"


@dataclass
class Tally:
    """What the clients saw; ``problems`` must stay empty."""

    episodes: int = 0
    graded_full: int = 0
    steps: int = 0
    hostile: Counter[str] = field(default_factory=Counter)
    oversize_closed: int = 0
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **counts: int) -> None:
        with self.lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text[:300])


def start(env_id: str) -> tuple[subprocess.Popen[str], str, Path]:
    log = Path(tempfile.mkdtemp()) / "stderr.txt"
    command = [sys.executable, "-m", "officegym.cli", "serve", env_id, "--port", "0", "--host", "127.0.0.1"]
    command += ["--max-body-bytes", str(MAX_BODY_BYTES), "--client-bytes-per-s", str(CLIENT_BYTES_PER_S)]
    with log.open("w") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
    return process, _await_url(process, log), log


def gold_paths(env_id: str) -> dict[str, list[dict[str, Any]]]:
    import gymnasium as gym

    import officegym  # noqa: F401

    env = gym.make(env_id)
    inner: Any = env.unwrapped
    paths = {task: [*inner.gold_actions(task), {"name": "finish", "arguments": {}}] for task in inner.task_ids}
    env.close()
    return paths


def hostile_frame(rng: random.Random) -> tuple[str, str | bytes]:
    """A kind (for the tally) and the frame."""
    roll = rng.random()
    if roll < 0.5:
        index = rng.randrange(len(NOT_MESSAGES))
        return f"not_a_message_{index}", NOT_MESSAGES[index]
    if roll < 0.9:
        index = rng.randrange(len(BAD_CALLS))
        return f"bad_call_{index}", json.dumps({"type": "step", "data": BAD_CALLS[index]})
    return "huge_number", HUGE_NUMBER


def play_episode(ws: Any, rng: random.Random, task: str, path: list[dict[str, Any]], tally: Tally) -> None:
    """One gold episode with hostile frames in between; raises ``ConnectionClosed`` on an oversize close."""
    reply = ask(ws, json.dumps({"type": "reset", "data": {"task_id": task, "seed": rng.randrange(1000)}}))
    if reply.get("type") != "observation":
        tally.problem(f"reset {task}: {reply}")
        return
    for call in path:
        if rng.random() < OVERSIZE_SHARE:
            LAST[threading.get_ident()] = "oversize"
            ws.send("A" * (MAX_BODY_BYTES + 1))
            ws.recv(timeout=GUARD_S)  # the server closes with 1009: this raises ConnectionClosed
            tally.problem("an oversize frame was answered instead of closing the connection")
        if rng.random() < HOSTILE_SHARE:
            kind, frame = hostile_frame(rng)
            answer = ask(ws, frame)
            if not _refused(answer):
                tally.problem(f"{kind} was not refused: {str(answer)[:200]}")
            with tally.lock:
                tally.hostile[kind] += 1
        reply = ask(ws, json.dumps({"type": "step", "data": call}))
        tally.add(steps=1)
        if reply.get("type") != "observation":
            tally.problem(f"{task}: a gold step got {str(reply)[:200]}")
            return
        if reply["data"].get("done"):
            break
    tally.add(episodes=1, graded_full=int(reply["data"].get("reward") == 1.0))
    if reply["data"].get("reward") != 1.0:
        tally.problem(f"{task}: the gold path scored {reply['data'].get('reward')}")


def _refused(answer: dict[str, Any]) -> bool:
    """An error reply, or an ``Error:`` observation (a malformed tool call is the env's to answer)."""
    if answer.get("type") == "error":
        return True
    observation = answer.get("data", {}).get("observation", {})
    return answer.get("type") == "observation" and str(observation.get("text", "")).startswith("Error: ")


def ask(ws: Any, frame: str | bytes) -> dict[str, Any]:
    LAST[threading.get_ident()] = frame[:80] if isinstance(frame, str) else repr(frame[:80])
    ws.send(frame)
    reply: dict[str, Any] = json.loads(ws.recv(timeout=GUARD_S))
    return reply


def client(base: str, paths: dict[str, list[dict[str, Any]]], episodes: int, seed: int, tally: Tally) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    rng, tasks, done = random.Random(seed), sorted(paths), 0
    url = base.replace("http://", "ws://", 1) + "/ws"
    while done < episodes:
        with connect(url, open_timeout=GUARD_S, close_timeout=GUARD_S, max_size=None) as ws:
            try:
                while done < episodes:
                    task = rng.choice(tasks)
                    play_episode(ws, rng, task, paths[task], tally)
                    done += 1
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
                if code == 1009:
                    tally.add(oversize_closed=1)
                else:
                    last = LAST.get(threading.get_ident(), "")
                    tally.problem(f"the server closed a session unasked: {code} {closed.rcvd} after {last!r}")
                done += 1  # the episode cut by the close counts as played, not graded


def soak(env_id: str, episodes: int, clients: int, seed: int) -> dict[str, Any]:
    process, base, log = start(env_id)
    paths, tally = gold_paths(env_id), Tally()
    try:
        threads = [
            threading.Thread(target=client, args=(base, paths, episodes, seed * 1000 + n, tally))
            for n in range(clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(GUARD_S * 4)
        alive = process.poll() is None
    finally:
        _stop(process)
    tracebacks = log.read_text(encoding="utf-8", errors="replace").count("Traceback")
    return {
        "clients": clients,
        "episodes_played": tally.episodes,
        "episodes_graded_1_0": tally.graded_full,
        "gold_steps": tally.steps,
        "hostile_frames": sum(tally.hostile.values()),
        "hostile_by_kind": dict(sorted(tally.hostile.items())),
        "oversize_closes_1009": tally.oversize_closed,
        "server_alive_at_end": alive,
        "server_tracebacks": tracebacks,
        "problems": tally.problems[:20],
        "problem_count": len(tally.problems),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=150, help="episodes per client and env")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    results = {env_id: soak(env_id, args.episodes, args.clients, args.seed) for env_id in ENV_IDS}
    report = {"seed": args.seed, "episodes_per_client": args.episodes, "results": results}
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    clean = all(
        r["problem_count"] == 0 and r["server_alive_at_end"] and not r["server_tracebacks"] for r in results.values()
    )
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
