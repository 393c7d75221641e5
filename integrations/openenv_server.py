"""Running the OpenEnv app (``integrations/openenv.py``) with uvicorn: ``officegym serve`` and, for tests and
notebooks, ``running_server`` (a server on a background thread that is always shut down).

The listening socket is bound here, before uvicorn starts, so ``--port 0`` can print the port the system chose
and a port in use is a one-line error instead of a log trace.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import gymnasium as gym

from .openenv import DEFAULT_MAX_SESSIONS, create_app, require

STARTUP_TIMEOUT_S = 60.0
GRACEFUL_SHUTDOWN_S = 5


def base_url(host: str, port: int) -> str:
    """``http://host:port``, with brackets for an IPv6 address."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket; ``port=0`` takes any free port (read it from ``getsockname``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=2048)
    except OSError as error:
        raise OSError(f"cannot listen on {base_url(host, port)}: {error.strerror or error}") from error


def _server(app: Any, log_level: str, own_logging: bool) -> Any:
    """A uvicorn server for ``app``. In-process servers keep uvicorn away from the host's logging setup."""
    uvicorn = require("uvicorn")
    options: dict[str, Any] = {"log_level": log_level, "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_S}
    if not own_logging:
        options["log_config"] = None
    return uvicorn.Server(uvicorn.Config(app, **options))


def serve(
    env_id: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    env_kwargs: Mapping[str, Any] | None = None,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    session_timeout: float | None = None,
    log_level: str = "warning",
    announce: Callable[[str], None] = print,
) -> None:
    """Serve ``env_id`` until SIGINT or SIGTERM (uvicorn's graceful shutdown closes every session's env).
    ``announce`` gets one line with the bound address once the port is open."""
    app = create_app(env_id, env_kwargs=env_kwargs, max_sessions=max_sessions, session_timeout=session_timeout)
    server = _server(app, log_level, own_logging=True)
    sock = bind(host, port)
    url = base_url(host, sock.getsockname()[1])
    ws = url.replace("http://", "ws://", 1)
    announce(f"officegym serve: {env_id} on {url} (OpenEnv WebSocket {ws}/ws, up to {max_sessions} sessions)")
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


@contextmanager
def running_server(env_id: str, *, host: str = "127.0.0.1", port: int = 0, **app_options: Any) -> Iterator[str]:
    """Serve ``env_id`` on a background thread of this process; yields the base URL and always shuts the
    server down (and with it every open session) on exit. ``app_options`` go to ``create_app``."""
    app = create_app(env_id, **app_options)
    server = _server(app, "warning", own_logging=False)
    sock = bind(host, port)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=f"openenv {env_id}", daemon=True)
    thread.start()
    try:
        _wait_started(server, thread)
        yield base_url(host, sock.getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(timeout=GRACEFUL_SHUTDOWN_S + 10)
        sock.close()
    if thread.is_alive():  # after the block, so an error inside it is not masked
        raise RuntimeError(f"the OpenEnv server for {env_id} did not shut down")


def _wait_started(server: Any, thread: threading.Thread) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the OpenEnv server did not start (see the log above)")
        time.sleep(0.01)


# --------------------------------------------------------------------------- officegym serve
def serve_command(args: argparse.Namespace) -> int:
    """``officegym serve``: bad input (an unknown id, bad env arguments, a port in use, a missing extra) is one
    ``Error: ...`` line on stderr and exit code 2."""
    try:
        options = _serve_options(args)
        serve(args.env_id, **options, announce=lambda line: print(line, flush=True))
    except (ValueError, OSError, ImportError, gym.error.Error) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2
    return 0


def _serve_options(args: argparse.Namespace) -> dict[str, Any]:
    """The command line checked and turned into ``serve``'s keyword arguments."""
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be between 0 and 65535, got {args.port}")
    if args.max_sessions < 1:
        raise ValueError(f"--max-sessions must be at least 1, got {args.max_sessions}")
    if args.session_timeout is not None and not args.session_timeout > 0:
        raise ValueError(f"--session-timeout must be a positive number of seconds, got {args.session_timeout}")
    return {
        "host": args.host,
        "port": args.port,
        "env_kwargs": _env_kwargs(args.env_kwargs),
        "max_sessions": args.max_sessions,
        "session_timeout": args.session_timeout,
        "log_level": args.log_level,
    }


def _env_kwargs(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"--env-kwargs is not valid JSON ({error.msg})") from error
    if not isinstance(value, dict):
        raise ValueError(f"--env-kwargs must be a JSON object, got {type(value).__name__}")
    return value
