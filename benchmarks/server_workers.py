"""``officegym serve --workers N`` against its floor (issue 26): steps/s at 64 sessions, 1 and 2 workers, beside
a no-op env behind the same app.

``python -m benchmarks.server_workers`` starts each server as a subprocess (``serve(..., workers=N)``, what
``officegym serve --workers N`` runs) for three envs: ``officegym/InvoiceApproval-v0``, the no-op tool env of
``benchmarks/noop_tool_env.py`` (one tool that does nothing: what the app, the protocol and officegym's dispatch
cost on their own) and between them the replay of ``benchmarks/replay_tool_env.py`` (v0's calls and v0's replies,
byte for byte, without v0's work: what v0's bigger messages cost the app). 64 WebSocket sessions then play for a
fixed time: InvoiceApproval and replay sessions v0's gold paths (a reset, every step, again), no-op sessions the
same number of no-op steps per reset.

The client is as lean as a client can be in Python, so the cores go to the servers: one process, one thread,
raw sockets and a ``selectors`` loop, every frame built before the clock starts (the mask key is zero, which
the protocol allows), replies read into one preallocated buffer (``recv_into``: a ``recv`` of a large size
allocates that size on every call, which had this client's system time at twice the rest of its work) and
counted by their frame headers, not parsed. Its own CPU time per step is
recorded beside the servers'. Every configuration runs ``--rounds`` times, interleaved; each round's ratios
come from its own back-to-back runs, and the median of those ratios is the headline (the machine's other load
drifts between rounds, so a ratio of medians taken from different rounds would mix loads).

Targets (issue 26): per worker, the env's steps/s at least 0.8x the no-op's at 64 sessions; 2 workers at least
1.7x one worker. The replay splits the first ratio into the app's part (replay against no-op) and the env's
(v0 against replay): the product of the two. Before the servers, ``session_step`` plays the same messages into
64 sessions in one process without a server (each env's own CPU per message), so the server's CPU per step
can be set against the env's. Writes ``benchmarks/results/server_workers.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import selectors
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULT = Path(__file__).parent / "results" / "server_workers.json"
INVOICE = "officegym/InvoiceApproval-v0"
NOOP = "benchmarks.noop_tool_env:officegym-bench/NoopTool-v0"
REPLAY = "benchmarks.replay_tool_env:officegym-bench/ReplayInvoice-v0"
ENVS = (INVOICE, REPLAY, NOOP)
SESSIONS = 64
GUARD_S = 600.0


# --------------------------------------------------------------------------- frames, built before the clock
def frame(payload: dict[str, Any]) -> bytes:
    """A masked client text frame with mask key 0 (so the masked payload is the payload)."""
    data = json.dumps(payload).encode()
    size = len(data)
    if size < 126:
        head = bytes([0x81, 0x80 | size])
    elif size < 65536:
        head = bytes([0x81, 0x80 | 126]) + size.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + size.to_bytes(8, "big")
    return head + b"\0\0\0\0" + data


def messages(env_id: str) -> list[list[dict[str, Any]]]:
    """Per task, the messages of one episode: a reset, then each step of its gold path (the no-op env: as many
    no-op steps, so every env is stepped as often per reset; the replay env: InvoiceApproval-v0's own, since its
    tasks and tools are v0's)."""
    import gymnasium as gym

    import officegym  # noqa: F401  (registers the envs)
    from officegym.envs.core.actions import FINISH_ACTION

    env = gym.make(INVOICE)
    inner: Any = env.unwrapped
    paths = [(task, [*inner.gold_actions(task), FINISH_ACTION]) for task in inner.task_ids]
    env.close()
    if env_id == NOOP:
        noop = {"type": "step", "data": {"name": "noop", "arguments": {}}}
        return [[{"type": "reset", "data": {}}] + [noop] * len(path) for _, path in paths]
    return [
        [{"type": "reset", "data": {"task_id": task, "seed": 0}}] + [{"type": "step", "data": call} for call in path]
        for task, path in paths
    ]


def episodes(workload: list[list[dict[str, Any]]]) -> list[list[bytes]]:
    """A workload of ``messages`` as the client's frames."""
    return [[frame(message) for message in episode] for episode in workload]


# --------------------------------------------------------------------------- the client
@dataclass
class Session:
    """One WebSocket: its episode's frames, where it is in them, and what it has read."""

    sock: socket.socket
    frames: list[bytes]
    at: int = 0
    buffer: bytearray = field(default_factory=bytearray)
    sent_at: float = 0.0

    def send_next(self) -> None:
        self.sock.sendall(self.frames[self.at])
        self.sent_at = time.perf_counter()

    def replies(self) -> int:
        """Complete frames in the buffer, removed from it."""
        count = 0
        while len(self.buffer) >= 2:
            size, start = self.buffer[1] & 0x7F, 2
            if size == 126:
                size, start = int.from_bytes(self.buffer[2:4], "big"), 4
            elif size == 127:
                size, start = int.from_bytes(self.buffer[2:10], "big"), 10
            if len(self.buffer) < start + size:
                break
            del self.buffer[: start + size]
            count += 1
        return count


def connect(host: str, port: int, frames: list[bytes]) -> Session:
    sock = socket.create_connection((host, port), timeout=GUARD_S)
    request = (
        f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: b2ZmaWNlZ3ltLWJlbmNoIQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("the server closed the handshake")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(head.split(b"\r\n", 1)[0].decode())
    session = Session(sock, frames)
    session.buffer += head.split(b"\r\n\r\n", 1)[1]
    sock.setblocking(False)
    return session


def drive(
    host: str, port: int, plans: Sequence[list[bytes]], warmup_s: float, measure_s: float, server_cpu: Any
) -> dict[str, Any]:
    """Play the sessions for ``warmup_s`` then ``measure_s`` seconds; steps answered, their latencies, and the
    CPU time of this client and of the server (``server_cpu()``) over the counted seconds."""
    sessions = [connect(host, port, plans[index % len(plans)]) for index in range(SESSIONS)]
    chooser = selectors.DefaultSelector()
    for session in sessions:
        chooser.register(session.sock, selectors.EVENT_READ, session)
        session.send_next()
    start = time.perf_counter()
    measuring_from, until = start + warmup_s, start + warmup_s + measure_s
    steps, latencies, counting = 0, [], False
    cpu_before = server_before = counted_from = 0.0
    now = start
    inbox = memoryview(bytearray(1 << 16))
    while now < until:
        for key, _ in chooser.select(timeout=GUARD_S):
            session = key.data
            got = session.sock.recv_into(inbox)
            if not got:
                raise ConnectionError("a session was closed by the server")
            session.buffer += inbox[:got]
            if not session.replies():
                continue
            now = time.perf_counter()
            if not counting and now >= measuring_from:
                counting, counted_from = True, now
                cpu_before, server_before = time.process_time(), server_cpu()
            if counting and session.at > 0:
                steps += 1
                latencies.append(now - session.sent_at)
            session.at = (session.at + 1) % len(session.frames)
            session.send_next()
    client_cpu, server_spent = time.process_time() - cpu_before, server_cpu() - server_before
    for session in sessions:
        session.sock.close()
    latencies.sort()
    return {
        "steps": steps,
        "steps_per_s": round(steps / (now - counted_from), 1),
        "p50_ms": round(1000 * latencies[len(latencies) // 2], 3),
        "p99_ms": round(1000 * latencies[int(len(latencies) * 0.99)], 3),
        "client_cpu_us_per_step": round(1e6 * client_cpu / max(steps, 1), 1),
        "server_cpu_us_per_step": round(1e6 * server_spent / max(steps, 1), 1),
    }


# --------------------------------------------------------------------------- the servers
def start_server(env_id: str, workers: int) -> tuple[subprocess.Popen[str], str, int]:
    code = (
        "import sys; from officegym.integrations.openenv_server import serve; "
        f"serve({env_id!r}, port=0, workers={workers}, announce=lambda line: print(line, flush=True))"
    )
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline() if process.stdout else ""
    if " on http://" not in line:
        process.kill()
        raise RuntimeError(f"the server for {env_id} did not start: {line!r}")
    address = line.split(" on http://", 1)[1].split(" ", 1)[0]
    host, port = address.rsplit(":", 1)
    return process, host, int(port)


def server_cpu_s(process: subprocess.Popen[str]) -> float:
    """CPU seconds of the server and all its workers so far (``/proc``: user + system, of live children too)."""
    pids = [process.pid, *children(process.pid)]
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found + [grandchild for child in found for grandchild in children(child)]


def measure(
    env_id: str, workers: int, plans: Sequence[list[bytes]], warmup_s: float, measure_s: float
) -> dict[str, Any]:
    process, host, port = start_server(env_id, workers)
    try:
        return drive(host, port, plans, warmup_s, measure_s, lambda: server_cpu_s(process))
    finally:
        process.terminate()
        process.wait(timeout=GUARD_S)


# --------------------------------------------------------------------------- the run
def run(rounds: int, warmup_s: float, measure_s: float) -> dict[str, Any]:
    from .session_step import us_per_message

    workload = {env_id: messages(env_id) for env_id in ENVS}
    alone = {env_id: us_per_message(env_id, workload[env_id]) for env_id in ENVS}
    plans = {env_id: episodes(workload[env_id]) for env_id in ENVS}
    configs = [(env_id, workers) for workers in (1, 2) for env_id in ENVS]
    runs: dict[str, list[dict[str, Any]]] = {f"{env_id} x{workers}": [] for env_id, workers in configs}
    for _ in range(rounds):
        for env_id, workers in configs:
            runs[f"{env_id} x{workers}"].append(measure(env_id, workers, plans[env_id], warmup_s, measure_s))
    median = {name: _median(results) for name, results in runs.items()}
    by_round = [
        ratios({name: results[index]["steps_per_s"] for name, results in runs.items()}) for index in range(rounds)
    ]
    headline = {key: round(statistics.median(entry[key] for entry in by_round), 3) for key in by_round[0]}
    return {
        "ratios": headline,
        "ratios_by_round": by_round,
        "median": median,
        "sessions_without_server_us_per_message": alone,
        "rounds": runs,
    }


def ratios(rate: dict[str, float]) -> dict[str, float]:
    """The targets' ratios of one round's steps/s (each round's configurations run back to back), and the two
    parts of the first one: the app's (v0's messages replayed against the no-op's) and the env's own work (v0
    against its replay)."""
    found = {}
    for workers in (1, 2):
        plural = "worker" if workers == 1 else "workers"
        env, replay, noop = (rate[f"{env_id} x{workers}"] for env_id in ENVS)
        found[f"env_vs_noop_{workers}_{plural}"] = round(env / noop, 3)
        found[f"replay_vs_noop_{workers}_{plural}"] = round(replay / noop, 3)
        found[f"env_vs_replay_{workers}_{plural}"] = round(env / replay, 3)
    for env_id, name in ((INVOICE, "env"), (REPLAY, "replay"), (NOOP, "noop")):
        found[f"{name}_2_workers_vs_1"] = round(rate[f"{env_id} x2"] / rate[f"{env_id} x1"], 3)
    return found


def _median(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {key: statistics.median(result[key] for result in results) for key in results[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds played before counting")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds counted per configuration")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    result = run(args.rounds, args.warmup, args.seconds)
    result = {
        "what": __doc__.split("\n\n")[0],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_average_at_start": load},
        "setup": f"{SESSIONS} WebSocket sessions from one lean client process on the same machine; loopback",
        "targets": {"env_vs_noop_per_worker": 0.8, "env_2_workers_vs_1": 1.7},
        **result,
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({"ratios": result["ratios"], "ratios_by_round": result["ratios_by_round"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
