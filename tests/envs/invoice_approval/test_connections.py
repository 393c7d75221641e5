"""Spare connections: a closed env's connection serves the next episode, and nothing of the old books survives."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from officegym.envs.invoice_approval.shared import connections
from officegym.envs.invoice_approval.v0.env import InvoiceApprovalEnv

INVOICE = "officegym/InvoiceApproval-v0"
SCHEMA = InvoiceApprovalEnv.BOOKS_SCHEMA


def inner(env: gym.Env[Any, Any]) -> InvoiceApprovalEnv:
    found: InvoiceApprovalEnv = env.unwrapped  # type: ignore[assignment]
    return found


def test_a_closed_envs_connection_serves_the_next_env_with_fresh_books() -> None:
    first = gym.make(INVOICE, tier="single")
    first.reset(options={"task_id": "single-1"})
    gold = inner(first).gold_actions("single-1")
    for action in gold:
        first.step(action)
    conn = inner(first).episode.conn  # type: ignore[union-attr]
    first.close()
    assert conn in connections._spare[SCHEMA]
    second = gym.make(INVOICE, tier="single")
    second.reset(options={"task_id": "single-1"})
    assert inner(second).episode.conn is conn  # type: ignore[union-attr]
    assert inner(second).failure_report() != []  # the decision made in the closed env is gone
    for action in gold:
        second.step(action)
    assert inner(second).failure_report() == []
    second.close()


def test_forks_take_spares_and_stay_independent() -> None:
    env = gym.make(INVOICE, tier="single")
    env.reset(options={"task_id": "single-3"})
    gold = inner(env).gold_actions("single-3")
    spare = gym.make(INVOICE, tier="single")
    spare.reset(options={"task_id": "single-1"})
    spare.close()
    fork = inner(env).fork()
    for action in gold:
        fork.step(action)
    assert fork.failure_report() == [] and inner(env).failure_report() != []


def test_the_stock_of_spares_is_bounded() -> None:
    envs = [gym.make(INVOICE, tier="single") for _ in range(connections.MAX_SPARE + 5)]
    for env in envs:
        env.reset(options={"task_id": "single-1"})
    for env in envs:
        env.close()
    assert len(connections._spare[SCHEMA]) == connections.MAX_SPARE


def test_spares_never_cross_versions() -> None:
    """A connection keeps the statements it prepared, and ``deserialize`` does not expire them: books of another
    schema with the same schema cookie would be read through the old statements. A v0 connection must not
    serve v1 (this sequence read a v1 fork through v0's statements: "database disk image is malformed")."""
    import pickle

    for env_id in ("officegym/InvoiceApproval-v0", "officegym/InvoiceApproval-v1"):
        env: Any = gym.make(env_id, max_turns=1000)
        tasks = env.unwrapped.bundle.tasks
        longest = max(sorted(tasks), key=lambda task_id: len(tasks[task_id].gold_actions))
        env.reset(options={"task_id": longest})
        for action in tasks[longest].gold_actions:
            env.step(action)
        fork = env.unwrapped.fork()
        assert fork.failure_report() == []
        restored = pickle.loads(pickle.dumps(env.unwrapped))
        assert restored.failure_report() == []
        restored.close()
        env.reset(options={"task_id": longest})
        fork.close()
        env.close()
    assert set(connections._spare) >= {"invoice_approval-v0", "invoice_approval-v1"}
    v0, v1 = (set(map(id, connections._spare[s])) for s in ("invoice_approval-v0", "invoice_approval-v1"))
    assert not v0 & v1
