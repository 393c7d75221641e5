"""What ``officegym serve`` protects itself with: the limits no client can lift and the token.

The defaults are chosen so that one client cannot lock the server (issue 27): sessions idle ``idle_timeout``
seconds are closed (a client that vanished without closing frees its slot), one peer address holds at most
``max_sessions_per_client`` sessions (sessions made over stateless HTTP ``/mcp`` count too), an HTTP body or a
WebSocket message is at most ``max_body_bytes`` (refused before it is parsed), and a connection that has not
sent its request headers within ``header_timeout`` seconds is closed. Beyond those hard limits, each peer
address has a budget (``server_budget.py``): ``client_bytes_per_s`` of message bytes beyond the first 16 KiB
of each message, and ``client_sessions_per_s`` new sessions (burst: ``max_sessions_per_client``); a client over
it is held back, not refused, so it slows only itself. A trainer with more parallel sessions from one machine
raises ``--max-sessions-per-client``; one that pauses longer between steps raises ``--idle-timeout``.

The token guards everything but ``GET /health``: it is required as soon as the server listens beyond loopback,
because then anyone on the network can reach it (``check_exposure``).
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

TOKEN_VARIABLE: Final = "OFFICEGYM_SERVE_TOKEN"
DEFAULT_IDLE_TIMEOUT_S: Final = 600.0
DEFAULT_MAX_SESSIONS_PER_CLIENT: Final = 64
DEFAULT_MAX_BODY_BYTES: Final = 64 * 1024
"""The largest legitimate message is 9,834 bytes (a reset carrying a whole InvoiceApproval-v1 task row, system
prompt included; the largest gold-path tool call of any released env is 1,079 bytes); a message of 1 MiB cost
the event loop every session shares about 10 ms to parse (``benchmarks/server_abuse.py``), one of 64 KiB
under 1 ms."""
DEFAULT_CLIENT_BYTES_PER_S: Final = 256 * 1024
DEFAULT_CLIENT_SESSIONS_PER_S: Final = 2.0
DEFAULT_HEADER_TIMEOUT_S: Final = 10.0
MIN_TOKEN_CHARS: Final = 16
MAX_MESSAGE_CHARS: Final = 80
"""How much of a client's value an error message or a log line repeats."""
LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.", "ip6-localhost"})


def clip(value: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``repr`` of a client's value, cut to ``limit`` characters: an error names the value without echoing
    megabytes of it into a reply or a log."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def clip_text(text: str, limit: int = 4 * MAX_MESSAGE_CHARS) -> str:
    """A message cut to ``limit`` characters (a message may quote a value that ``clip`` did not see)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) names this machine only."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServerLimits:
    """The server's limits and its token (``None``: no token, which only a loopback server may run with)."""

    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S
    max_sessions_per_client: int = DEFAULT_MAX_SESSIONS_PER_CLIENT
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    header_timeout: float = DEFAULT_HEADER_TIMEOUT_S
    client_bytes_per_s: int = DEFAULT_CLIENT_BYTES_PER_S
    client_sessions_per_s: float = DEFAULT_CLIENT_SESSIONS_PER_S
    token: str | None = None

    def __post_init__(self) -> None:
        _positive("--idle-timeout", self.idle_timeout)
        _positive("--header-timeout", self.header_timeout)
        if isinstance(self.max_sessions_per_client, bool) or self.max_sessions_per_client < 1:
            raise ValueError(f"--max-sessions-per-client must be at least 1, got {self.max_sessions_per_client}")
        if isinstance(self.max_body_bytes, bool) or self.max_body_bytes < 1024:
            raise ValueError(f"--max-body-bytes must be at least 1024, got {self.max_body_bytes}")
        if not isinstance(self.client_bytes_per_s, int) or isinstance(self.client_bytes_per_s, bool):
            raise ValueError(f"--client-bytes-per-s must be a whole number of bytes, got {self.client_bytes_per_s}")
        if self.client_bytes_per_s < 1024:
            raise ValueError(f"--client-bytes-per-s must be at least 1024, got {self.client_bytes_per_s}")
        _positive("--client-sessions-per-s", self.client_sessions_per_s, "number")
        if self.token is not None and (len(self.token) < MIN_TOKEN_CHARS or not self.token.isprintable()):
            raise ValueError(
                f"--token must be at least {MIN_TOKEN_CHARS} printable characters (e.g. the output of "
                "python -c 'import secrets; print(secrets.token_urlsafe())')"
            )

    def check_exposure(self, host: str) -> None:
        """Refuse to listen beyond loopback without a token: everything the server does would be open to the
        network."""
        if self.token is None and not is_loopback(host):
            raise ValueError(
                f"--host {host} serves beyond loopback, so it needs a token: pass --token or set {TOKEN_VARIABLE}"
            )

    def session_cap(self, max_sessions: int) -> int:
        """The per-client cap in force (never more than the server's own)."""
        return min(self.max_sessions_per_client, max_sessions)


def token_from(explicit: str | None, environ: Mapping[str, str] = os.environ) -> str | None:
    """The token: the command line's, else ``OFFICEGYM_SERVE_TOKEN``'s, else none (blank counts as none)."""
    for value in (explicit, environ.get(TOKEN_VARIABLE)):
        if value is not None and value.strip():
            return value.strip()
    return None


def _positive(option: str, value: float, what: str = "number of seconds") -> None:
    if isinstance(value, bool) or not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise ValueError(f"{option} must be a positive {what}, got {value}")


SERVE_DESCRIPTION: Final = f"""\
Serves one env id over the OpenEnv protocol. What is exposed: a WebSocket at /ws (one session and env per
connection: reset, step, state), MCP JSON-RPC at /mcp (HTTP POST and WebSocket; HTTP sessions via
openenv/session/create), stateless POST /reset and /step, GET /state, /schema, /metadata, /health, /docs.
Anyone who reaches the port can play the env, read its tasks and hold sessions.

How it is protected: by default it listens on 127.0.0.1 and, without a token, serves loopback peers and
loopback Host names only. Browser pages are refused unless their Origin is loopback or the server itself.
--host beyond loopback needs --token (or {TOKEN_VARIABLE}); every request but GET /health must then send
"Authorization: Bearer TOKEN" (officegym's OfficeGymClient / OfficeGymToolClient take token=; OpenEnv's plain
clients send no header). No client can lock it: sessions idle --idle-timeout seconds are closed, one peer
address holds at most --max-sessions-per-client sessions, bodies and WebSocket messages over --max-body-bytes
are refused before parsing (413 / close 1009), connections that do not finish their request headers within
--header-timeout seconds are closed (a body that takes longer gets a 408), and a malformed frame gets an error
reply without ending its session. Every peer address shares the event loop fairly: message bytes beyond 16 KiB
a message over --client-bytes-per-s, and new sessions over --client-sessions-per-s, are held back (only that
client waits; a message over the size limit costs it a second of its byte budget).
With --workers N (default: one per core) N processes share the port, each session staying on one; every
limit holds per worker.
There is no TLS: beyond a trusted network, put it behind an HTTPS proxy."""
