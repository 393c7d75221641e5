"""Adversarial property tests: any action sequence, on any env (v0 and v1), never raises out of ``step``, answers
invalid calls with ``Error: ...``, and keeps the books' invariants after every step."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officegym.envs.invoice_approval.v0.invariants import check_invariants
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
    _play_invoice(INVOICE_ENV, task, actions, lambda inner: check_invariants(inner.episode, inner.bundle.template))


def _play_invoice(env: Any, task: str, actions: list[Any], problems: Any) -> None:
    """Every step: a string, no reward before the end, ``Error:`` for an invalid call (and only then flagged as
    one), and no violated invariant (``problems(inner env)`` lists them)."""
    env.reset(seed=0, options={"task_id": task})
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(observation, str) and reward == 0.0 and not truncated
        if not _is_valid(env, action):
            assert observation.startswith("Error: "), (action, observation[:200])
        assert info["is_error"] == observation.startswith("Error: ")
        if terminated:
            return
        assert problems(env.unwrapped) == []


@SETTINGS
@given(actions=st.lists(st.one_of(VENDOR_CALLS, MALFORMED), min_size=1, max_size=15))
def test_vendor_env_survives_anything(actions: list[Any]) -> None:
    _play_vendor(VENDOR_ENV, "vr-hard-01", actions)


def _play_vendor(env: Any, task: str, actions: list[Any]) -> None:
    """Every step: a string, a reward only at the end (a grade in 0..1, for a submission or a ``finish``), and
    ``Error:`` for an invalid call."""
    env.reset(seed=0, options={"task_id": task})
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
    _play_invoice(
        INVOICE_V1_ENV, task, actions, lambda inner: check_v1_invariants(inner.episode.conn, inner.bundle.template)
    )


@SETTINGS
@given(actions=st.lists(st.one_of(VENDOR_CALLS, MALFORMED), min_size=1, max_size=15))
def test_vendor_v1_env_survives_anything(actions: list[Any]) -> None:
    _play_vendor(VENDOR_V1_ENV, "vr1-hard-01", actions)
