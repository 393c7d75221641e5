"""Issue 27, "Vector envs": an action that cannot be pickled, sent to one slot of an async or batched vector env.

Before the fix ``step()`` raised, the slots that had already been sent the step answered every later step with
the previous step's reply, ``reset()`` raised and the async env's ``close()`` hung. Now that slot answers the
``Error: ...`` a single env gives for the same action (reward 0, not terminated, nothing changed), every slot's
next reply is its own, and reset and close keep working, through ``gym.make_vec`` as well as
``officegym.make_vec``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import pytest

import officegym
from benchmarks.vector_lockstep import BadReduce, BadStr, deep, unsendable_actions

INVOICE = "officegym/InvoiceApproval-v0"
LIST = {"name": "list_invoices", "arguments": {}}
HANG_GUARD_S = 600.0
ANSWERED_BY_A_TOOL = {"unpicklable str name", "unpicklable str argument"}  # the env reads a str subclass as text

BUILDERS: dict[str, Callable[[], Any]] = {
    "gym.make_vec async": lambda: gym.make_vec(
        INVOICE, num_envs=2, vectorization_mode="async", vector_kwargs={"shared_memory": False}
    ),
    "officegym async": lambda: officegym.make_vec(INVOICE, 2, "async"),
    "batched": lambda: officegym.make_vec(INVOICE, 3, "batched", envs_per_worker=1),
}


@pytest.fixture(scope="module", params=list(BUILDERS))
def vector(request: pytest.FixtureRequest) -> Iterator[Any]:
    envs = BUILDERS[request.param]()
    try:
        yield envs
    finally:
        envs.close()


def references(count: int, seed: int) -> list[Any]:
    """Single envs seeded as the vector env seeds its slots (slot ``i`` gets ``seed + i``)."""
    singles = [gym.make(INVOICE) for _ in range(count)]
    for i, env in enumerate(singles):
        env.reset(seed=seed + i)
    return singles


@pytest.mark.parametrize("label", list(unsendable_actions()))
def test_an_unsendable_action_gets_that_slots_error_and_every_next_reply_is_its_own(vector: Any, label: str) -> None:
    bad = unsendable_actions()[label]
    count = vector.num_envs
    vector.reset(seed=7)
    singles = references(count, 7)
    try:
        for slot in range(count):
            actions = [LIST] * count
            actions[slot] = bad
            observations, rewards, terminated, truncated, _ = vector.step(tuple(actions))
            expected = [env.step(action)[0] for env, action in zip(singles, actions, strict=True)]
            assert list(observations) == expected
            assert observations[slot].startswith("Error: ") or label in ANSWERED_BY_A_TOOL
            assert rewards.tolist() == [0.0] * count and not terminated.any() and not truncated.any()
            follow = tuple({"name": "get_invoice", "arguments": {"invoice_id": f"X-{slot}-{i}"}} for i in range(count))
            observations, *_ = vector.step(follow)
            assert list(observations) == [env.step(a)[0] for env, a in zip(singles, follow, strict=True)]
    finally:
        for env in singles:
            env.close()


def test_reset_and_close_keep_working_after_unsendable_actions() -> None:
    for build in BUILDERS.values():
        envs = build()
        try:
            envs.reset(seed=0)
            for bad in unsendable_actions().values():
                envs.step(tuple([bad] * envs.num_envs))
            observations, _ = envs.reset(seed=0)
            assert all(isinstance(o, str) and not o.startswith("Error") for o in observations)
        finally:
            closing = threading.Thread(target=envs.close, daemon=True)
            closing.start()
            closing.join(HANG_GUARD_S)  # a hang guard, not a timing assertion
        assert not closing.is_alive(), "close() hung"
        assert all(not process.is_alive() for process in envs.processes)


def test_a_wrong_number_of_actions_sends_nothing() -> None:
    envs = officegym.make_vec(INVOICE, 2, "async")
    try:
        envs.reset(seed=0)
        for actions in [(LIST,), (LIST, LIST, LIST), LIST]:
            with pytest.raises((ValueError, TypeError), match="takes"):
                envs.step(actions)
        observations, *_ = envs.step((LIST, LIST))
        singles = references(2, 0)
        assert list(observations) == [env.step(LIST)[0] for env in singles]
    finally:
        envs.close()


def test_batched_refuses_unsendable_reset_options_and_stays_usable() -> None:
    envs = officegym.make_vec(INVOICE, 2, "batched", envs_per_worker=1, vector_kwargs={"parent_slice": False})
    try:
        envs.reset(seed=0)
        with pytest.raises(TypeError, match="cannot be sent to a batched worker"):
            envs.reset(seed=0, options={"task_id": BadReduce()})
        observations, *_ = envs.step((LIST, LIST))
        assert list(observations) == [env.step(LIST)[0] for env in references(2, 0)]
    finally:
        envs.close()


def test_the_hostile_values_really_do_not_pickle() -> None:
    """Guards the test data: each value in ``unsendable_actions`` must fail to pickle, or the tests above
    would pass without exercising the fix."""
    import pickle

    for label, action in unsendable_actions().items():
        if label == "huge int":
            continue
        with pytest.raises(Exception):  # noqa: B017  (each kind fails in its own way)
            pickle.loads(pickle.dumps(action))
    assert str(BadStr("x")) and deep(3) == [[[[]]]]
