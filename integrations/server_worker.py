"""One worker process of ``officegym serve --workers N``: the same guarded app as a single-process server, on
the shared port, plus a Unix socket on which the other workers forward the stateless ``/mcp`` calls of this
worker's sessions (``server_routing.py``).

A worker is started by ``server_workers.py`` with the ``spawn`` method (no state of the supervisor is
inherited: each worker imports and builds everything itself, as a fresh ``officegym serve`` would). It binds
its own listening socket with ``SO_REUSEPORT``, so the kernel spreads new connections over the workers' accept
queues; no process sits in front of them, and a worker's steps never cross a process boundary.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from .server_limits import ServerLimits
from .server_routing import ForwardedPeer, SessionRouter, socket_path, worker_prefix
from .server_uvicorn import settle_heap, uvicorn_server

READY_POLL_S = 0.01
WATCH_S = 1.0
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class WorkerPlan:
    """Everything a worker needs to serve (picklable: it crosses into a spawned process)."""

    env_id: str
    env_kwargs: dict[str, Any] | None
    host: str
    port: int
    max_sessions: int
    limits: ServerLimits
    log_level: str
    directory: str
    """The supervisor's private directory (mode 0700) holding every worker's Unix socket."""


def shared_port_socket(host: str, port: int, *, listen: bool = True) -> socket.socket:
    """A TCP socket on ``host:port`` with ``SO_REUSEPORT``: every worker binds one, and the kernel balances
    new connections across the listening ones. ``listen=False`` only holds the port (the supervisor's)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        if listen:
            sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def unix_socket(path: Path) -> socket.socket:
    """The listening Unix socket the other workers forward to."""
    path.unlink(missing_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.listen(2048)
    return sock


def worker_app(plan: WorkerPlan, index: int) -> Any:
    """``create_app``'s app with this worker's session-id prefix, the router just inside the body limit (so
    only checked requests are forwarded) and ``ForwardedPeer`` outermost."""
    from starlette.middleware import Middleware

    from .openenv import create_app
    from .server_body import BodyLimit

    app = create_app(plan.env_id, env_kwargs=plan.env_kwargs, max_sessions=plan.max_sessions, limits=plan.limits)
    app.state.officegym_server.session_prefix = worker_prefix(index)
    layers: list[Any] = [layer.cls for layer in app.user_middleware]  # outermost first
    router = Middleware(SessionRouter, index=index, directory=Path(plan.directory))
    app.user_middleware.insert(layers.index(BodyLimit) + 1, router)
    app.add_middleware(ForwardedPeer, index=index)
    return app


def worker_main(plan: WorkerPlan, index: int, ready: Connection, supervisor: int) -> None:
    """A worker process: serve until SIGTERM or SIGINT (uvicorn's graceful shutdown), telling the supervisor
    on ``ready`` once both sockets accept, and ending with the supervisor (``die_with``)."""
    die_with(supervisor)
    app = worker_app(plan, index)
    sockets = [shared_port_socket(plan.host, plan.port), unix_socket(socket_path(Path(plan.directory), index))]
    server = uvicorn_server(app, plan.log_level, own_logging=True, limits=plan.limits, max_sessions=plan.max_sessions)
    threading.Thread(target=_report_ready, args=(server, ready, index), daemon=True).start()
    threading.Thread(target=_watch, args=(server, supervisor), daemon=True).start()
    settle_heap()
    try:
        server.run(sockets=sockets)
    finally:
        for sock in sockets:
            sock.close()


def _report_ready(server: Any, ready: Connection, index: int) -> None:
    while not server.started and not server.should_exit:
        time.sleep(READY_POLL_S)
    if server.started:
        ready.send((index, os.getpid()))
    ready.close()


def die_with(supervisor: int) -> None:
    """A worker must not outlive its supervisor (killed with SIGKILL, it cannot stop its workers, which would
    keep the port and their sessions for good): on Linux the kernel sends this process SIGTERM when the
    supervisor dies (``PR_SET_PDEATHSIG``); ``_watch`` covers the rest."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != supervisor:  # it died before the line above ran
        os._exit(0)


def _watch(server: Any, supervisor: int) -> None:
    """Stop serving (gracefully) once the supervisor is gone: this process then has another parent."""
    while not server.should_exit:
        if os.getppid() != supervisor:
            server.should_exit = True
            return
        time.sleep(WATCH_S)
