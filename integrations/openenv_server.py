"""Running the OpenEnv app (``integrations/openenv.py``) with uvicorn: ``officegym serve``, for tests and
notebooks ``running_server`` (a server on a background thread that is always shut down), and for a container
or a Hugging Face Space ``SpaceConfig`` + ``space_main`` (what ``integrations/openenv_space/server/app.py``
runs: the same app, configured by ``OFFICEGYM_*`` environment variables instead of a command line).

The listening socket is bound here, before uvicorn starts, so ``--port 0`` can print the port the system chose
and a port in use is a one-line error instead of a log trace.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from .openenv import DEFAULT_MAX_SESSIONS, create_app
from .openenv_session import parse_env_kwargs
from .server_limits import ServerLimits, token_from
from .server_uvicorn import GRACEFUL_SHUTDOWN_S, base_url, bind, describe, settle_heap, uvicorn_server
from .server_workers import check_workers, default_workers, serve_workers

if TYPE_CHECKING:
    from fastapi import FastAPI

STARTUP_TIMEOUT_S = 60.0


def serve(
    env_id: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    env_kwargs: Mapping[str, Any] | None = None,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    limits: ServerLimits | None = None,
    log_level: str = "warning",
    announce: Callable[[str], None] = print,
    workers: int = 1,
) -> None:
    """Serve ``env_id`` until SIGINT or SIGTERM (uvicorn's graceful shutdown closes every session's env).
    ``announce`` gets one line with the bound address once the port is open. Beyond loopback, ``limits``
    must hold a token (``ServerLimits.check_exposure``), checked before anything is made. ``workers`` above 1
    serves from that many processes on the one port (``server_workers.py``; limits hold per worker)."""
    limits = limits or ServerLimits()
    limits.check_exposure(host)
    if check_workers(workers) > 1:
        serve_workers(
            env_id,
            workers=workers,
            host=host,
            port=port,
            env_kwargs=env_kwargs,
            max_sessions=max_sessions,
            limits=limits,
            log_level=log_level,
            announce=announce,
        )
        return
    app = create_app(env_id, env_kwargs=env_kwargs, max_sessions=max_sessions, limits=limits)
    run_app(
        app,
        env_id,
        host=host,
        port=port,
        max_sessions=max_sessions,
        limits=limits,
        log_level=log_level,
        announce=announce,
    )


def run_app(
    app: Any,
    env_id: str,
    *,
    host: str,
    port: int,
    max_sessions: int,
    limits: ServerLimits,
    log_level: str = "warning",
    announce: Callable[[str], None] = print,
) -> None:
    """Run an app of ``create_app`` (made with the same ``limits``) until SIGINT or SIGTERM (``serve``, and a
    Space's ``server/app.py``)."""
    limits.check_exposure(host)
    sock = bind(host, port)  # first: a port in use is an error before uvicorn configures the process's logging
    try:
        server = uvicorn_server(app, log_level, own_logging=True, limits=limits, max_sessions=max_sessions)
        announce(describe(env_id, base_url(host, sock.getsockname()[1]), max_sessions, limits))
        settle_heap()
        server.run(sockets=[sock])
    finally:
        sock.close()


@contextmanager
def running_server(env_id: str, *, host: str = "127.0.0.1", port: int = 0, **app_options: Any) -> Iterator[str]:
    """Serve ``env_id`` on a background thread of this process; yields the base URL and always shuts the
    server down (and with it every open session) on exit. ``app_options`` go to ``create_app``."""
    limits = app_options.get("limits") or ServerLimits()
    limits.check_exposure(host)
    app = create_app(env_id, **app_options)
    max_sessions = app_options.get("max_sessions", DEFAULT_MAX_SESSIONS)
    server = uvicorn_server(app, "warning", own_logging=False, limits=limits, max_sessions=max_sessions)
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
    limits = ServerLimits(
        idle_timeout=args.idle_timeout,
        max_sessions_per_client=args.max_sessions_per_client,
        max_body_bytes=args.max_body_bytes,
        header_timeout=args.header_timeout,
        client_bytes_per_s=args.client_bytes_per_s,
        client_sessions_per_s=args.client_sessions_per_s,
        token=token_from(args.token),
    )
    limits.check_exposure(args.host)
    return {
        "host": args.host,
        "port": args.port,
        "env_kwargs": parse_env_kwargs(args.env_kwargs),
        "max_sessions": args.max_sessions,
        "limits": limits,
        "log_level": args.log_level,
        "workers": default_workers() if args.workers is None else args.workers,  # checked by serve()
    }


# --------------------------------------------------------------------------- a container or a Space
SPACE_DEFAULT_ENV_ID = "officegym/InvoiceApproval-v1"
SPACE_DEFAULT_MAX_SESSIONS = 64
SPACE_DEFAULT_WORKERS = 1
"""One process, not one per core as ``officegym serve``: a Space's free tier has 2 shared vCPUs, and a container
is often given a share of its host's cores that ``default_workers`` cannot see."""


@dataclass(frozen=True)
class SpaceConfig:
    """What a container or a Hugging Face Space serves, from environment variables (a Dockerfile's ``ENV``, a
    Space's variables), since neither has a command line to pass ``officegym serve``'s options on:
    ``OFFICEGYM_ENV_ID``, ``OFFICEGYM_ENV_KWARGS`` (a JSON object), ``OFFICEGYM_MAX_SESSIONS`` (per worker),
    ``OFFICEGYM_SESSION_TIMEOUT`` (idle seconds before a session is reaped; unset: ``officegym serve``'s
    default), ``OFFICEGYM_SERVE_TOKEN`` (required on every interface, as a container binds) and
    ``OFFICEGYM_WORKERS`` (``officegym serve --workers``; unset: ``SPACE_DEFAULT_WORKERS``)."""

    env_id: str
    env_kwargs: dict[str, Any]
    max_sessions: int
    session_timeout: float | None
    token: str | None = None
    workers: int = SPACE_DEFAULT_WORKERS

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> SpaceConfig:
        env_id = environ.get("OFFICEGYM_ENV_ID", SPACE_DEFAULT_ENV_ID)
        kwargs = parse_env_kwargs(environ.get("OFFICEGYM_ENV_KWARGS"), "OFFICEGYM_ENV_KWARGS")
        sessions = _number(environ, "OFFICEGYM_MAX_SESSIONS", int, SPACE_DEFAULT_MAX_SESSIONS)
        timeout = _number(environ, "OFFICEGYM_SESSION_TIMEOUT", float, None)
        workers = check_workers(_number(environ, "OFFICEGYM_WORKERS", int, SPACE_DEFAULT_WORKERS), "OFFICEGYM_WORKERS")
        if sessions < 1:
            raise ValueError(f"OFFICEGYM_MAX_SESSIONS must be at least 1, got {sessions}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"OFFICEGYM_SESSION_TIMEOUT must be a positive number of seconds, got {timeout}")
        return cls(env_id, kwargs, sessions, timeout, token_from(None, environ), workers)

    @property
    def limits(self) -> ServerLimits:
        """``officegym serve``'s limits, with this configuration's idle timeout and token."""
        if self.session_timeout is None:
            return ServerLimits(token=self.token)
        return ServerLimits(idle_timeout=self.session_timeout, token=self.token)

    def app(self) -> FastAPI:
        """The app, made now: a bad env id or bad env arguments fail at start-up with the env's message. Without
        a token it serves loopback peers only, even when uvicorn binds every interface."""
        return create_app(self.env_id, env_kwargs=self.env_kwargs, max_sessions=self.max_sessions, limits=self.limits)


def _number(environ: Mapping[str, str], name: str, kind: Callable[[str], Any], default: Any) -> Any:
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{name} must be {'an integer' if kind is int else 'a number'}, got {text!r}") from None


def container_exit(error: ValueError) -> SystemExit:
    """A bad setting of a container as one line in its log, not a traceback."""
    return SystemExit(f"Error: {error} (a container: set the variable in its environment)")


def space_main(app: Any, config: SpaceConfig, argv: list[str] | None = None) -> None:
    """``main()`` of a Space's ``server/app.py``: serve on ``--host`` (default every interface, as a container
    needs) and ``--port`` (default 8000, the port ``openenv.yaml`` declares). One worker serves ``app``, the one
    ``server/app.py`` made at import; more are ``officegym serve --workers``'s supervisor and spawned workers,
    each of which makes its own app from ``config`` (an app cannot cross into another process)."""
    parser = argparse.ArgumentParser(description=f"serve {config.env_id} over OpenEnv")
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    try:
        config.limits.check_exposure(args.host)
    except ValueError as error:
        raise container_exit(error) from None
    if config.workers > 1:
        _serve_space_workers(config, args.host, args.port)
        return
    run_app(
        app,
        config.env_id,
        host=args.host,
        port=args.port,
        max_sessions=config.max_sessions,
        limits=config.limits,
        log_level="info",
    )


def _serve_space_workers(config: SpaceConfig, host: str, port: int) -> None:
    """``serve`` with ``config.workers`` workers. Its start line is flushed: the supervisor's stdout is not
    the workers', and a log read from a file (a test's, a container's without ``PYTHONUNBUFFERED``) would
    otherwise hold it back until the supervisor ends."""
    serve(
        config.env_id,
        host=host,
        port=port,
        env_kwargs=config.env_kwargs,
        max_sessions=config.max_sessions,
        limits=config.limits,
        log_level="info",
        announce=lambda line: print(line, flush=True),
        workers=config.workers,
    )
