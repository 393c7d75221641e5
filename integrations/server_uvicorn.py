"""The uvicorn side of ``officegym serve``, shared by the single-process server (``openenv_server.py``) and each
worker of ``serve --workers N`` (``server_worker.py``): the listening socket, the uvicorn server with the limits
of ``server_http.uvicorn_options``, and the one start line scripts read the URL from.
"""

from __future__ import annotations

import gc
import socket
from typing import Any, Final

from .openenv import require
from .server_http import uvicorn_options
from .server_limits import ServerLimits

GRACEFUL_SHUTDOWN_S: Final = 5


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


def uvicorn_server(app: Any, log_level: str, own_logging: bool, limits: ServerLimits, max_sessions: int) -> Any:
    """A uvicorn server for ``app`` with the limits of ``server_http.uvicorn_options``. In-process servers keep
    uvicorn away from the host's logging setup."""
    uvicorn = require("uvicorn")
    options: dict[str, Any] = {"log_level": log_level, "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_S}
    options.update(uvicorn_options(limits, max_sessions))
    if not own_logging:
        options["log_config"] = None
    return uvicorn.Server(uvicorn.Config(app, **options))


def describe(env_id: str, url: str, max_sessions: int, limits: ServerLimits) -> str:
    """The line ``officegym serve`` prints once its port accepts (scripts read the URL from it)."""
    ws = url.replace("http://", "ws://", 1)
    guard = "token required" if limits.token else "loopback clients only, no token"
    return (
        f"officegym serve: {env_id} on {url} (OpenEnv WebSocket {ws}/ws, MCP {url}/mcp, "
        f"up to {max_sessions} sessions, {guard})"
    )


def settle_heap() -> None:
    """Move everything made so far (OpenEnv's, FastMCP's and Gradio's modules, the app: about 250,000
    objects) out of the garbage collector's sight before serving (``gc.freeze``). They live as long as the
    process, and every full collection would walk them again while sessions step; with them frozen a full
    collection sees only what sessions made. Measured at 64 InvoiceApproval-v0 sessions on one worker:
    about 16 % less server CPU per step (``benchmarks/server_workers.py``)."""
    gc.freeze()
