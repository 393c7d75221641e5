"""``officegym serve --workers N``: N worker processes on one port, one per core by default, kept running.

One Python process serves on one core (the event loop, uvicorn's protocol code and the env share the GIL), so
a server that is to use a machine runs one process per core. The supervisor here:

- checks the env and the extras once, so a bad id or bad ``--env-kwargs`` is one error line before anything
  starts, and holds the port (bound with ``SO_REUSEPORT``, not listening) so ``--port 0`` names one port for
  every worker;
- spawns the workers (``server_worker.py``), waits until every one accepts, then prints the one start line;
- restarts a worker that dies (its sessions are lost; their clients see their connection close, or for a
  stateless ``/mcp`` session a 503 naming the worker), and on SIGINT or SIGTERM stops every worker gracefully.

Limits hold per worker: with N workers the server holds up to N x ``--max-sessions`` sessions, and one client
up to N x ``--max-sessions-per-client``. A session never moves between workers.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any, Final

from .server_limits import ServerLimits
from .server_uvicorn import base_url, bind, describe
from .server_worker import WorkerPlan, shared_port_socket, worker_main

MAX_WORKERS: Final = 256
STARTUP_TIMEOUT_S: Final = 600.0
"""How long the workers may take to import OpenEnv and build their apps (seconds on an idle machine)."""
STOP_TIMEOUT_S: Final = 30.0


def default_workers() -> int:
    """One worker per core this process may run on."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def check_workers(workers: int, name: str = "--workers") -> int:
    """``workers``, or a ``ValueError`` that names where it came from (the option, or a container's variable)."""
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"{name} must be between 1 and {MAX_WORKERS}, got {workers}")
    return workers


@dataclass
class Supervisor:
    """The running workers of one server, by index."""

    plan: WorkerPlan
    say: Callable[[str], None]
    workers: dict[int, BaseProcess] = field(default_factory=dict)
    stopping: bool = False

    def start(self, index: int) -> tuple[int, int]:
        """Start worker ``index`` and wait until it accepts; returns (index, pid)."""
        context = multiprocessing.get_context("spawn")
        theirs, ours = context.Pipe(duplex=False)
        arguments = (self.plan, index, ours, os.getpid())
        process = context.Process(target=worker_main, args=arguments, name=f"officegym-serve-{index}")
        process.start()
        ours.close()
        self.workers[index] = process
        return self.await_ready(index, theirs, process)

    def await_ready(self, index: int, pipe: Connection, process: BaseProcess) -> tuple[int, int]:
        ready = wait([pipe, process.sentinel], timeout=STARTUP_TIMEOUT_S)
        if pipe in ready:
            try:
                answer: tuple[int, int] = pipe.recv()
                return answer
            except EOFError:
                pass
        process.kill()
        raise RuntimeError(f"worker {index} of the server did not start (see its messages above)")

    def supervise(self) -> None:
        """Until ``stop``: restart every worker that exits."""
        while not self.stopping:
            sentinels: dict[Any, int] = {process.sentinel: index for index, process in self.workers.items()}
            for sentinel in wait(list(sentinels)):
                index = sentinels[sentinel]
                if self.stopping:
                    return
                code = self.workers[index].exitcode
                self.say(f"officegym serve: worker {index} exited (code {code}); starting it again")
                self.start(index)

    def stop(self) -> None:
        """SIGTERM to every worker (uvicorn closes each session's env), then SIGKILL to any still running."""
        self.stopping = True
        for process in self.workers.values():
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for process in self.workers.values():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()


def serve_workers(
    env_id: str,
    *,
    workers: int,
    host: str,
    port: int,
    env_kwargs: Mapping[str, Any] | None,
    max_sessions: int,
    limits: ServerLimits,
    log_level: str,
    announce: Callable[[str], None],
) -> None:
    """Serve ``env_id`` from ``workers`` processes until SIGINT or SIGTERM (``openenv_server.serve`` has
    checked ``workers`` and the exposure of ``host``)."""
    from .openenv import openenv_types, require
    from .openenv_session import make_env

    openenv_types()  # the extra is checked here, where a missing one is one line, not in every worker
    require("uvicorn")
    make_env(env_id, env_kwargs).close()
    held = hold_port(host, port)
    directory = tempfile.mkdtemp(prefix="officegym-serve-")  # mode 0700: only this user reaches the sockets
    plan = WorkerPlan(
        env_id, dict(env_kwargs or {}), host, held.getsockname()[1], max_sessions, limits, log_level, directory
    )
    supervisor = Supervisor(plan, say=lambda line: print(line, file=sys.stderr, flush=True))
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        for index in range(workers):
            supervisor.start(index)
        url = base_url(host, plan.port)
        announce(describe(env_id, url, max_sessions, limits) + f", {workers} workers")
        supervisor.supervise()
    except KeyboardInterrupt:
        pass
    finally:
        supervisor.stop()
        signal.signal(signal.SIGTERM, previous)
        held.close()
        shutil.rmtree(directory, ignore_errors=True)


def hold_port(host: str, port: int) -> Any:
    """The supervisor's claim on the port (``--port 0``: the one the system picks, for every worker).

    The port is first bound without ``SO_REUSEPORT`` (``server_uvicorn.bind``): a port in use, by anything,
    is an error here, where a ``SO_REUSEPORT`` bind alone would quietly share the port of another server
    this user runs on it."""
    probe = bind(host, port)
    port = probe.getsockname()[1]
    probe.close()
    try:
        return shared_port_socket(host, port, listen=False)
    except OSError as error:
        raise OSError(f"cannot listen on {base_url(host, port)}: {error.strerror or error}") from error


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
