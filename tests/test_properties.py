"""Adversarial property tests: any action sequence, on any env (v0 and v1), never raises out of ``step``, answers
invalid calls with ``Error: ...``, and keeps the books' invariants after every step."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officegym.envs.invoice_approval.invariants import check_invariants
from officegym.envs.invoice_approval.v1.invariants import check_invariants as check_v1_invariants

from .strategies import INVOICE_READS, INVOICE_WRITES, MALFORMED, V1_INVOICE_CALLS, VENDOR_CALLS

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
INVOICE_ENV = gym.make("officegym/InvoiceApproval-v0", max_turns=10_000)
VENDOR_ENV = gym.make("officegym/VendorReview-v0", max_turns=10_000)
INVOICE_V1_ENV = gym.make("officegym/InvoiceApproval-v1", max_turns=10_000)
VENDOR_V1_ENV = gym.make("officegym/VendorReview-v1", max_turns=10_000)


def _is_valid(env: Any, action: Any) -> bool:
    return bool(env.unwrapped.action_space.contains(action))


@SETTINGS
@given(
    task=st.sampled_from(["single-1", "batch-2", "long-3", "hard-4"]),
    actions=st.lists(st.one_of(INVOICE_WRITES, INVOICE_READS, MALFORMED), min_size=1, max_size=25),
)
def test_invoice_env_survives_anything_and_keeps_its_books(task: str, actions: list[Any]) -> None:
    env = INVOICE_ENV
    env.reset(seed=0, options={"task_id": task})
    inner: Any = env.unwrapped
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(observation, str) and reward == 0.0 and not truncated
        if not _is_valid(env, action):
            assert observation.startswith("Error: "), (action, observation[:200])
        assert info["is_error"] == observation.startswith("Error: ")
        if terminated:
            return
        assert check_invariants(inner.episode, inner.bundle.template) == []


@SETTINGS
@given(actions=st.lists(st.one_of(VENDOR_CALLS, MALFORMED), min_size=1, max_size=15))
def test_vendor_env_survives_anything(actions: list[Any]) -> None:
    env = VENDOR_ENV
    env.reset(seed=0, options={"task_id": "vr-hard-01"})
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(observation, str) and 0.0 <= float(reward) <= 1.0 and not truncated
        if not _is_valid(env, action):
            assert observation.startswith("Error: "), (action, observation[:200])
        if terminated:
            assert info["grade"]["submitted"] is (action.get("name") == "submit_recommendation")
            return
        assert reward == 0.0


@SETTINGS
@given(
    task=st.sampled_from(["single-1", "batch-2", "long-3", "hard-4"]),
    actions=st.lists(st.one_of(V1_INVOICE_CALLS, MALFORMED), min_size=1, max_size=25),
)
def test_invoice_v1_env_survives_anything_and_keeps_its_books(task: str, actions: list[Any]) -> None:
    """v1's captures, pages, documents and decisions, valid or not, in any order: never an exception, every
    invalid call an ``Error:``, and the v1 books' invariants after every step."""
    env = INVOICE_V1_ENV
    env.reset(seed=0, options={"task_id": task})
    inner: Any = env.unwrapped
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(observation, str) and reward == 0.0 and not truncated
        if not _is_valid(env, action):
            assert observation.startswith("Error: "), (action, observation[:200])
        assert info["is_error"] == observation.startswith("Error: ")
        if terminated:
            return
        assert check_v1_invariants(inner.episode.conn, inner.bundle.template) == []


@SETTINGS
@given(actions=st.lists(st.one_of(VENDOR_CALLS, MALFORMED), min_size=1, max_size=15))
def test_vendor_v1_env_survives_anything(actions: list[Any]) -> None:
    env = VENDOR_V1_ENV
    env.reset(seed=0, options={"task_id": "vr1-hard-01"})
    for action in actions:
        observation, reward, terminated, truncated, _ = env.step(action)
        assert isinstance(observation, str) and 0.0 <= float(reward) <= 1.0 and not truncated
        if not _is_valid(env, action):
            assert observation.startswith("Error: "), (action, observation[:200])
        if terminated:
            return
        assert reward == 0.0
