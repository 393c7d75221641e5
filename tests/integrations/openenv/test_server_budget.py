"""Issue 27, the server: one client sending frames just under the size limit, or reconnecting after every
refused oversize frame, took the event loop from every other client (their p99 step latency 9.4x and 5.0x).
Now each peer address has a budget of message bytes and of new sessions (``server_budget.py``): a client over
it is held back and still served, and another client is not held at all.

The budget's arithmetic is tested with a fake clock; the server tests check behaviour only (what was held,
what every client was answered), never how long anything took: the latency is measured by
``benchmarks/server_abuse.py``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from officegym.integrations.server_budget import FREE_BYTES, ClientBudgets, TokenBucket, message_size
from officegym.integrations.server_limits import ServerLimits


class FakeClock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# --------------------------------------------------------------------------- the token bucket
def test_a_bucket_starts_full_and_holds_back_only_what_goes_into_debt() -> None:
    bucket = TokenBucket.full(rate=100.0, burst=300.0, now=0.0)
    assert bucket.charge(200, now=0.0) == 0.0  # within the burst
    assert bucket.charge(150, now=0.0) == pytest.approx(0.5)  # 50 in debt at 100 a second
    assert bucket.wait(now=0.25) == pytest.approx(0.25)  # the debt is paid off as time passes
    assert bucket.wait(now=0.5) == 0.0


def test_a_bucket_refills_at_its_rate_up_to_its_burst_and_never_from_a_clock_going_back() -> None:
    bucket = TokenBucket.full(rate=10.0, burst=50.0, now=0.0)
    bucket.charge(50, now=0.0)
    bucket.refill(now=2.0)
    assert bucket.level == pytest.approx(20.0)
    bucket.refill(now=1.0)  # a clock that went back adds nothing
    assert bucket.level == pytest.approx(20.0)
    assert bucket.is_full(now=100.0) and bucket.level == 50.0


# --------------------------------------------------------------------------- the budgets of every client
LIMITS = ServerLimits(max_body_bytes=16 * 1024, client_bytes_per_s=32 * 1024, client_sessions_per_s=4.0)


def budgets_with_clock(limits: ServerLimits = LIMITS) -> tuple[ClientBudgets, FakeClock]:
    clock = FakeClock()
    return ClientBudgets(limits, clock=clock), clock


def test_ordinary_messages_are_free_and_never_held_even_in_debt() -> None:
    budgets, _ = budgets_with_clock()
    assert all(budgets.message_delay("a", FREE_BYTES) == 0.0 for _ in range(10_000))
    assert budgets.bytes == {}  # nothing charged: no bucket made
    budgets.oversize("a")
    budgets.oversize("a")  # now deep in debt
    assert budgets.message_delay("a", 200) == 0.0


def test_large_messages_are_charged_beyond_the_free_bytes_and_held_once_over_the_burst() -> None:
    budgets, clock = budgets_with_clock()
    big = FREE_BYTES + 8 * 1024  # charged 8 KiB
    delays = [budgets.message_delay("a", big) for _ in range(5)]
    assert delays[:4] == [0.0] * 4  # the 32 KiB burst
    assert delays[4] == pytest.approx(0.25)  # 8 KiB in debt at 32 KiB a second
    clock.advance(0.25)
    assert budgets.message_delay("a", FREE_BYTES + 1) == pytest.approx(1 / (32 * 1024))


def test_an_http_body_in_chunks_is_charged_once_beyond_its_free_bytes() -> None:
    budgets, _ = budgets_with_clock()
    chunks, before = [8000, 8000, 8000], 0
    for size in chunks:
        budgets.message_delay("a", size, before=before)
        before += size
    assert budgets.bytes["a"].level == pytest.approx(32 * 1024 - (24000 - FREE_BYTES))


def test_one_clients_debt_is_its_own() -> None:
    budgets, _ = budgets_with_clock()
    budgets.oversize("a")
    budgets.oversize("a")
    assert budgets.message_delay("a", FREE_BYTES + 1024) > 0
    assert budgets.message_delay("b", FREE_BYTES + 1024) == 0.0
    assert budgets.session_delay("b") == 0.0


def test_a_refused_oversize_message_costs_a_full_bucket_and_the_next_session_waits_for_it() -> None:
    budgets, clock = budgets_with_clock()
    budgets.oversize("a")
    assert budgets.session_delay("a") == 0.0  # the bucket was full: it is now empty, not in debt
    budgets.oversize("a")
    assert budgets.session_delay("a") == pytest.approx(1.0)  # one burst (32 KiB) at 32 KiB a second
    clock.advance(1.0)
    assert budgets.session_delay("a") == 0.0


def test_new_sessions_burst_to_the_per_client_cap_then_come_at_the_rate() -> None:
    limits = ServerLimits(max_sessions_per_client=6, client_sessions_per_s=2.0)
    budgets, clock = budgets_with_clock(limits)
    delays = [budgets.session_delay("a") for _ in range(8)]
    assert delays[:6] == [0.0] * 6
    assert delays[6:] == [pytest.approx(0.5), pytest.approx(1.0)]
    clock.advance(1.0)
    assert budgets.session_delay("a") == pytest.approx(0.5)


def test_a_client_with_as_many_connections_held_as_it_may_hold_sessions_is_refused_one_more() -> None:
    limits = ServerLimits(max_sessions_per_client=2, client_sessions_per_s=1.0)
    budgets, _ = budgets_with_clock(limits)

    async def three_connections() -> list[float | None]:
        for _ in range(2):
            budgets.session_delay("a")  # the burst
        first, second = budgets.session_delay("a"), budgets.session_delay("a")
        assert first and second
        held = [asyncio.create_task(budgets.hold("a", delay)) for delay in (first, second)]
        await asyncio.sleep(0)  # both are waiting now
        third = budgets.session_delay("a")
        for task in held:
            task.cancel()
        await asyncio.gather(*held, return_exceptions=True)
        return [first, second, third]

    assert asyncio.run(three_connections())[2] is None
    assert budgets.refused["a"] == 1 and budgets.held["a"] == 2 and budgets.waiting == {}


def test_full_buckets_are_forgotten_so_the_table_stays_small() -> None:
    budgets, clock = budgets_with_clock()
    for number in range(100):
        budgets.message_delay(f"10.0.0.{number}", FREE_BYTES + 1024)
    clock.advance(10.0)
    budgets.message_delay("busy", FREE_BYTES + 64 * 1024)
    budgets.prune()
    assert list(budgets.bytes) == ["busy"]


def test_a_message_is_measured_in_utf8_bytes() -> None:
    assert message_size({"type": "websocket.receive", "text": "abc"}) == 3
    assert message_size({"type": "websocket.receive", "text": "\u00e9\u20ac"}) == 5
    assert message_size({"type": "websocket.receive", "bytes": b"\x00" * 7}) == 7


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"client_bytes_per_s": 1000}, "--client-bytes-per-s must be at least 1024"),
        ({"client_bytes_per_s": 2048.5}, "--client-bytes-per-s must be a whole number"),
        ({"client_bytes_per_s": True}, "--client-bytes-per-s must be a whole number"),
        ({"client_sessions_per_s": 0}, "--client-sessions-per-s must be a positive number"),
        ({"client_sessions_per_s": float("nan")}, "--client-sessions-per-s must be a positive number"),
    ],
)
def test_bad_budgets_are_refused_with_the_option_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ServerLimits(**options)
