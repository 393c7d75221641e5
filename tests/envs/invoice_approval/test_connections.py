"""Spare connections: a closed env's connection serves the next episode, and nothing of the old books survives."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from officegym.envs.invoice_approval import connections
from officegym.envs.invoice_approval.env import InvoiceApprovalEnv

INVOICE = "officegym/InvoiceApproval-v0"


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
    assert conn in connections._spare
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
    assert len(connections._spare) == connections.MAX_SPARE
