"""Steps/s of ``officegym serve`` on Ray Serve through 1 and 2 replicas, beside one plain server, in one run.

``.venv-ray/bin/python -m benchmarks.ray_serve_scale`` starts a local Ray cluster like the test's (a head with
no CPUs holding Serve's controller and one HTTP proxy, two one-CPU worker nodes), deploys InvoiceApproval-v0
with 1 replica, then with 2 (one per worker node); before the cluster starts, the same env is served by one
plain ``officegym serve`` subprocess (no Ray, no proxy). Each phase plays the same load: ``--sessions``
WebSocket sessions at once, each playing ``--episodes`` gold episodes one after another, all from one asyncio
client in this process. Every episode must be graded 1.0 (counted
as a problem otherwise). Writes ``benchmarks/results/ray_serve_scale.json``: steps/s per phase and the ratios.

On one machine everything (client, proxy, replicas, Ray's own daemons) shares the same cores, so this measures
the cost of the proxy hop and whether a second replica helps at all on the machine, not the scale-out a cluster of
real machines gives; the JSON says how many cores it ran on and the load average at the start.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import time
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from benchmarks.openenv_load import INVOICE, Job, plan, servers

RESULT = Path(__file__).parent / "results" / "ray_serve_scale.json"
MESSAGE_TIMEOUT_S = 600.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def play_session(url: str, jobs: Sequence[Job], counts: dict[str, int]) -> None:
    """One WebSocket session playing ``jobs`` one after another (a reset per episode)."""
    from websockets.asyncio.client import connect

    async with connect(url.replace("http://", "ws://", 1) + "/ws", open_timeout=MESSAGE_TIMEOUT_S) as ws:

        async def ask(message: dict[str, Any]) -> dict[str, Any]:
            await ws.send(json.dumps(message))
            reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), MESSAGE_TIMEOUT_S))
            return reply

        for job in jobs:
            await ask({"type": "reset", "data": {"task_id": job.task_id, "seed": job.seed}})
            reply: dict[str, Any] = {}
            for action in job.actions:
                reply = await ask({"type": "step", "data": action})
                counts["steps"] += 1
                if reply.get("data", {}).get("done"):
                    break
            counts["episodes"] += 1
            counts["problems"] += int(reply.get("data", {}).get("reward") != 1.0)
        await ws.send(json.dumps({"type": "close"}))


def load(url: str, sessions: int, episodes: int) -> dict[str, Any]:
    """``sessions`` concurrent sessions of ``episodes`` gold episodes each; steps/s over the whole phase."""
    jobs = plan([INVOICE])
    work = [[jobs[(s * episodes + e) % len(jobs)] for e in range(episodes)] for s in range(sessions)]
    counts = {"steps": 0, "episodes": 0, "problems": 0}

    async def everything() -> None:
        await asyncio.gather(*(play_session(url, mine, counts) for mine in work))

    start = time.perf_counter()
    asyncio.run(everything())
    elapsed = time.perf_counter() - start
    return {**counts, "seconds": round(elapsed, 2), "steps_per_s": round(counts["steps"] / elapsed, 1)}


def phase(name: str, url: str, sessions: int, episodes: int) -> dict[str, Any]:
    load(url, min(sessions, 4), 2)  # warm: every replica's first episodes (imports, first grading) untimed
    result = {"phase": name, "sessions": sessions, **load(url, sessions, episodes)}
    print(json.dumps(result), flush=True)
    return result


def on_ray(sessions: int, episodes: int) -> list[dict[str, Any]]:
    import ray
    from ray import serve
    from ray.cluster_utils import Cluster

    from officegym.integrations.ray_serve import deploy

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes(timeout=MESSAGE_TIMEOUT_S)
    ray.init(address=cluster.address, log_to_driver=False)
    port = free_port()
    results = []
    try:
        for replicas in (1, 2):
            url = deploy(INVOICE, replicas=replicas, port=port, proxy_location="HeadOnly", max_replicas_per_node=1)
            results.append(phase(f"ray_serve_{replicas}_replica", url, sessions, episodes))
    finally:
        serve.shutdown()
        ray.shutdown()
        cluster.shutdown()
    return results


def plain(sessions: int, episodes: int) -> dict[str, Any]:
    """The same load on one ``officegym serve`` subprocess (a server on a thread of this process would share
    the client's interpreter lock)."""
    with servers([INVOICE]) as fleet:
        return phase("plain_server", fleet.urls[INVOICE], sessions, episodes)


def ratios(phases: list[dict[str, Any]]) -> dict[str, float]:
    by: dict[str, float] = {p["phase"]: p["steps_per_s"] for p in phases}

    def two(a: str, b: str) -> float:
        return round(by[a] / by[b], 2)

    return {
        "two_replicas_over_one": two("ray_serve_2_replica", "ray_serve_1_replica"),
        "one_replica_over_plain_server": two("ray_serve_1_replica", "plain_server"),
        "two_replicas_over_plain_server": two("ray_serve_2_replica", "plain_server"),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--episodes", type=int, default=6, help="gold episodes per session")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    machine = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "ray": version("ray"),
        "openenv_core": version("openenv-core"),
        "load_average_at_start": [round(value, 2) for value in os.getloadavg()],
        "setup": "local Ray cluster (head: 0 CPUs, controller + one HTTP proxy; 2 workers of 1 CPU) and the "
        "client in one process, all on this machine's cores; loopback",
    }
    phases = [plain(args.sessions, args.episodes), *on_ray(args.sessions, args.episodes)]
    report = {"benchmark": "ray_serve_scale", "machine": machine, "phases": phases, "ratios": ratios(phases)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["ratios"]))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
