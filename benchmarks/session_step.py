"""What a server worker's envs cost without the server: the messages ``server_workers`` sends, played in one
process straight into the sessions a worker holds (``OfficeSession``: the env and officegym's session, no app,
no protocol, no sockets), 64 sessions in turn as the server takes them.

Beside the server's CPU per step this separates the two ways the env costs a worker: its own work, measured
here, and what that work does to everything around it (the server's extra CPU per step beyond this figure;
most likely the app's code and the env's evicting each other from the CPU's caches and branch predictors, so
each runs slower between the other's calls than in a loop of its own: a worker holding 32 sessions costs less
per step than one holding 64). CPU time (``process_time``), so other load on the machine
costs little here; reported in µs per message (resets and steps alike, as the server counts them).
"""

from __future__ import annotations

import time
from typing import Any

from .server_workers import SESSIONS, messages


def us_per_message(
    env_id: str, plans: list[list[dict[str, Any]]] | None = None, rounds: int = 6, sessions: int = SESSIONS
) -> float:
    """µs of CPU per message over ``rounds`` passes in which every session plays one episode of ``plans``
    (default ``messages(env_id)``), the sessions' messages interleaved (after one pass that is not counted)."""
    from officegym.integrations.openenv_session import OfficeSession

    plans = messages(env_id) if plans is None else plans
    held = [OfficeSession(env_id) for _ in range(sessions)]
    try:
        _play(held, plans, 0)
        start, count = time.process_time(), 0
        for round_ in range(1, rounds + 1):
            count += _play(held, plans, round_)
        return round(1e6 * (time.process_time() - start) / count, 2)
    finally:
        for session in held:
            session.close()


def _play(held: list[Any], plans: list[list[dict[str, Any]]], round_: int) -> int:
    """One episode per session (each round a different task per session), steps taken in turn across them."""
    episodes = [plans[(index + round_ * len(held)) % len(plans)] for index in range(len(held))]
    for session, episode in zip(held, episodes, strict=True):
        session.reset(**episode[0]["data"])
    for at in range(1, max(len(episode) for episode in episodes)):
        for session, episode in zip(held, episodes, strict=True):
            if at < len(episode):
                session.step(episode[at]["data"])
    return sum(len(episode) for episode in episodes)
