"""A reset rolls back the episode's transaction instead of copying the company again, and the books it leaves
are the template's, exactly, whatever the previous episode did (``episode.restart_books``)."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.invoice_approval.shared.db import connect_bytes

from ...conftest import dump, episode_conn

VERSIONS = ("officegym/InvoiceApproval-v0", "officegym/InvoiceApproval-v1")


def _env(env_id: str) -> Any:
    env: Any = gym.make(env_id, max_turns=1000)
    env.reset(options={"task_id": _longest(env)})
    return env


def _longest(env: Any) -> str:
    tasks = env.unwrapped.bundle.tasks
    longest: str = max(sorted(tasks), key=lambda task_id: len(tasks[task_id].gold_actions))
    return longest


def _play_gold(env: Any) -> None:
    for action in env.unwrapped.bundle.tasks[env.unwrapped.episode.task_id].gold_actions:
        env.step(action)


def _template_dump(env: Any) -> list[tuple[Any, ...]]:
    return dump(connect_bytes(env.unwrapped.bundle.template))


@pytest.mark.parametrize("env_id", VERSIONS)
def test_a_reset_after_a_whole_episode_restores_the_template_on_the_same_connection(env_id: str) -> None:
    env = _env(env_id)
    conn = episode_conn(env)
    _play_gold(env)
    assert dump(conn) != _template_dump(env)  # the episode wrote
    env.reset(options={"task_id": _longest(env)})
    assert episode_conn(env) is conn  # rolled back, not replaced
    assert conn.in_transaction and env.unwrapped.episode.base is env.unwrapped.bundle.template
    assert dump(conn) == _template_dump(env)
    _play_gold(env)
    assert env.unwrapped.failure_report() == []  # the second episode plays as the first


@pytest.mark.parametrize("env_id", VERSIONS)
def test_raw_sql_planted_in_an_episode_is_gone_after_the_reset(env_id: str) -> None:
    env = _env(env_id)
    conn = episode_conn(env)
    conn.execute("PRAGMA defer_foreign_keys=ON")
    conn.execute("DELETE FROM ledger")
    conn.execute("UPDATE invoices SET status = 'approved'")
    env.reset(options={"task_id": _longest(env)})
    assert dump(episode_conn(env)) == _template_dump(env)


@pytest.mark.parametrize("env_id", VERSIONS)
def test_saving_an_episode_commits_it_so_the_next_reset_copies_the_template_again(env_id: str) -> None:
    """``serialize`` sees only committed pages: a fork must hold the episode's writes, so saving commits them,
    and a connection whose committed books are no longer the template is overwritten at the next reset."""
    env = _env(env_id)
    _play_gold(env)
    fork = env.unwrapped.fork()
    assert fork.failure_report() == [] and env.unwrapped.failure_report() == []
    assert env.unwrapped.episode.base is None
    restored = pickle.loads(pickle.dumps(env.unwrapped))
    assert restored.failure_report() == []
    env.reset(options={"task_id": _longest(env)})
    assert dump(episode_conn(env)) == _template_dump(env)
    assert env.unwrapped.episode.base is env.unwrapped.bundle.template
    assert fork.failure_report() == []  # the fork keeps its own books
    fork.close()
    restored.close()


@pytest.mark.parametrize("env_id", VERSIONS)
def test_a_transaction_ended_by_someone_else_falls_back_to_a_copy(env_id: str) -> None:
    env = _env(env_id)
    conn = episode_conn(env)
    conn.execute("UPDATE invoices SET status = 'rejected'")
    conn.execute("COMMIT")  # the template's copy now holds a change that no rollback can undo
    env.reset(options={"task_id": _longest(env)})
    assert dump(episode_conn(env)) == _template_dump(env)


@pytest.mark.parametrize("env_id", VERSIONS)
def test_a_closed_envs_connection_goes_back_rolled_back(env_id: str) -> None:
    env = _env(env_id)
    conn = episode_conn(env)
    _play_gold(env)
    env.close()
    assert not conn.in_transaction
    other = _env(env_id)
    assert dump(episode_conn(other)) == _template_dump(other)
