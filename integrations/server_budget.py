"""Fair sharing of the event loop: every client has a budget of message bytes and of new sessions (issue 27).

Every session's reset and step runs on one event loop (``openenv.py`` says why), so what one client makes the
server do, every other client waits for. Two things cost that loop time in proportion to what a client sends,
not to what the env needs: parsing a large message (about 10 ms per MiB: OpenEnv's JSON parse and action model,
officegym's frame screen) and opening a session (a WebSocket handshake, a session and its env; a client that
sends a refused oversize frame and reconnects does it over and over). Measured by
``benchmarks/server_abuse.py``: a client sending frames just under the old 1 MiB limit pushed another client's
p99 step latency to 9.4x, one reconnecting after every refused 7.5 MB frame to 5.0x.

So each peer address (the key of the per-client session cap) has two token buckets:

- **message bytes**: every WebSocket message and HTTP body is charged its size beyond ``FREE_BYTES`` (every
  legitimate message is free, and the per-message cost of a step is shared fairly by the event loop itself,
  one message per connection at a time). A message over the limit (refused with close 1009 before it is
  read) is charged a full bucket.
- **new sessions**: every WebSocket connection and every stateless ``POST /reset`` or ``/step`` (each makes an
  env) takes one; the burst is at least ``--max-sessions-per-client``, so a trainer opening all its sessions at
  once is not held.

A client over budget is not refused: its next message or connection is held back (an ``await`` before it is
handed to the app) until the bucket has refilled, so it slows only itself. The bucket may go into debt by one
charge, so a message larger than the burst still passes, later. The one refusal: a client that already has
``max_sessions_per_client`` connections held waiting gets HTTP 429 for one more (held connections would
otherwise pile up). Buckets that are full are forgotten (a full bucket and a new one behave alike), so the
table stays as small as the set of clients that spent something recently.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from .server_access import send_error
from .server_connections import peer_host
from .server_limits import ServerLimits

FREE_BYTES: Final = 16 * 1024
"""Bytes of each message that cost nothing: more than the largest legitimate message (a reset that carries a
whole task row, system prompt included: 9,834 bytes for InvoiceApproval-v1; the largest gold-path tool call of
any released env is 1,079 bytes). Parsing 16 KiB costs the loop about 0.2 ms, less than a step."""
PRUNE_EVERY: Final = 1024
"""Forget full buckets whenever this many clients have been added since the last time."""
ENV_PATHS: Final = frozenset({"/reset", "/step"})
"""Stateless HTTP paths that make an env per request (a new session, for the budget)."""
OVERSIZE_CLOSE: Final = 1009


@dataclass
class TokenBucket:
    """``rate`` tokens a second up to ``burst``; a charge may leave it in debt, which is then waited out."""

    rate: float
    burst: float
    level: float
    stamp: float

    @classmethod
    def full(cls, rate: float, burst: float, now: float) -> TokenBucket:
        return cls(rate, burst, burst, now)

    def refill(self, now: float) -> None:
        self.level = min(self.burst, self.level + max(0.0, now - self.stamp) * self.rate)
        self.stamp = max(self.stamp, now)

    def wait(self, now: float) -> float:
        """Seconds until the bucket is out of debt (0: it is not in debt)."""
        self.refill(now)
        return max(0.0, -self.level) / self.rate

    def charge(self, cost: float, now: float) -> float:
        """Take ``cost`` tokens; the seconds to hold the charged message back (0: within budget)."""
        self.refill(now)
        self.level -= cost
        return self.wait(now)

    def is_full(self, now: float) -> bool:
        self.refill(now)
        return self.level >= self.burst


def message_size(message: MutableMapping[str, Any]) -> int:
    """Bytes of a ``websocket.receive`` message (UTF-8 of its text, counted only when it is not ASCII)."""
    text = message.get("text")
    if isinstance(text, str):
        return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    data = message.get("bytes")
    return len(data) if isinstance(data, bytes | bytearray) else 0


class ClientBudgets:
    """The two buckets of every client (see the module docstring); ``clock`` is injectable for tests.

    ``held`` counts, per client, the messages and connections that were held back; ``refused`` the
    connections refused because too many were already held.
    """

    def __init__(self, limits: ServerLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits, self.clock = limits, clock
        self.byte_burst = float(max(limits.client_bytes_per_s, limits.max_body_bytes))
        self.session_burst = float(max(limits.max_sessions_per_client, limits.client_sessions_per_s))
        self.bytes: dict[str, TokenBucket] = {}
        self.sessions: dict[str, TokenBucket] = {}
        self.waiting: Counter[str] = Counter()
        self.held: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self._added = 0

    def _bucket(self, table: dict[str, TokenBucket], host: str, rate: float, burst: float) -> TokenBucket:
        bucket = table.get(host)
        if bucket is None:
            self._added += 1
            if self._added >= PRUNE_EVERY:
                self.prune()
            bucket = table[host] = TokenBucket.full(rate, burst, self.clock())
        return bucket

    def byte_bucket(self, host: str) -> TokenBucket:
        return self._bucket(self.bytes, host, float(self.limits.client_bytes_per_s), self.byte_burst)

    def session_bucket(self, host: str) -> TokenBucket:
        return self._bucket(self.sessions, host, float(self.limits.client_sessions_per_s), self.session_burst)

    def message_delay(self, host: str, size: int, before: int = 0) -> float:
        """Seconds to hold back ``size`` bytes of a message from ``host`` that had sent ``before`` bytes already
        (an HTTP body comes in chunks), charged now. What stays within the message's first ``FREE_BYTES`` is
        never held, even while the client is in debt: it costs the loop what any step does."""
        cost = max(0, before + size - FREE_BYTES) - max(0, before - FREE_BYTES)
        if cost == 0:
            return 0.0
        return self.byte_bucket(host).charge(cost, self.clock())

    def oversize(self, host: str) -> None:
        """A message over ``--max-body-bytes`` was refused: it costs the client a full bucket."""
        self.byte_bucket(host).charge(self.byte_burst, self.clock())

    def session_delay(self, host: str) -> float | None:
        """Seconds to hold back a new session of ``host`` (charged now; it also waits out the client's byte
        debt), or None to refuse it: the client already has as many held as it may hold sessions."""
        if self.waiting[host] >= self.limits.max_sessions_per_client:
            self.refused[host] += 1
            return None
        now = self.clock()
        delay = self.session_bucket(host).charge(1.0, now)
        debt = self.bytes.get(host)
        return max(delay, debt.wait(now) if debt is not None else 0.0)

    async def hold(self, host: str, delay: float) -> None:
        """Wait ``delay`` seconds (counted as held, and as waiting while it lasts)."""
        if delay <= 0:
            return
        self.held[host] += 1
        self.waiting[host] += 1
        try:
            await asyncio.sleep(delay)
        finally:
            self.waiting[host] -= 1
            if not self.waiting[host]:
                del self.waiting[host]

    def prune(self) -> None:
        """Forget the buckets that are full (they behave as a new one would)."""
        now = self.clock()
        for table in (self.bytes, self.sessions):
            for host in [host for host, bucket in table.items() if bucket.is_full(now)]:
                del table[host]
        self._added = 0


def too_many_waiting(limits: ServerLimits) -> str:
    return (
        f"this client already has {limits.max_sessions_per_client} connections waiting for its budget of "
        f"{limits.client_sessions_per_s:g} new sessions a second; retry later (see --client-sessions-per-s)"
    )


class BudgetGuard:
    """ASGI middleware: holds back what a client sends beyond its budgets (``ClientBudgets``).

    A WebSocket waits before it is accepted (its session is not made yet), then each incoming message waits
    before it reaches the app; a close with 1009 (a message over the limit, refused by uvicorn) charges the
    client a full byte bucket. An HTTP request to a path that makes an env waits before it is served; every
    body chunk waits before the app reads it (bodies were read and size-checked by ``BodyLimit`` already).
    """

    def __init__(self, app: Any, budgets: ClientBudgets) -> None:
        self.app, self.budgets = app, budgets

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = peer_host(scope)
        if scope["type"] == "websocket" or scope.get("path") in ENV_PATHS:
            delay = self.budgets.session_delay(host)
            if delay is None:
                await refuse(scope, send, too_many_waiting(self.budgets.limits))
                return
            await self.budgets.hold(host, delay)
        await self.app(scope, self.metered(host, receive), send)

    def metered(self, host: str, receive: Any) -> Any:
        """``receive`` that charges each message and holds it back while the client is over budget."""
        budgets, body = self.budgets, [0]

        async def metered_receive() -> MutableMapping[str, Any]:
            message: MutableMapping[str, Any] = await receive()
            kind = message["type"]
            if kind == "websocket.receive":
                await budgets.hold(host, budgets.message_delay(host, message_size(message)))
            elif kind == "http.request":
                size = len(message.get("body", b""))
                await budgets.hold(host, budgets.message_delay(host, size, before=body[0]))
                body[0] += size
            elif kind == "websocket.disconnect" and message.get("code") == OVERSIZE_CLOSE:
                budgets.oversize(host)
            return message

        return metered_receive


async def refuse(scope: MutableMapping[str, Any], send: Any, problem: str) -> None:
    """HTTP 429 with a one-line ``Error:`` (a WebSocket gets it as the handshake's response)."""
    if scope["type"] == "http":
        await send_error(send, 429, problem)
        return
    body = json.dumps({"detail": f"Error: {problem}"}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "websocket.http.response.start", "status": 429, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})
