"""Issue 27, configuration: every bad vector setting fails at construction, in one line that names the fix.

``tests/test_configuration.py`` covers ``num_envs`` 0, ``"2"`` and ``2.0`` and two bad modes; this adds the rest
of what the attack tried: ``shared_memory=True`` (it once failed later, in the workers, with ``KeyError('!')``),
``num_envs`` -1, 2.5, ``10**12`` and ``True``, and every kind of wrong ``vector_kwargs``, for each mode.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import pytest

import officegym

INVOICE = "officegym/InvoiceApproval-v0"


def og(**kwargs: Any) -> Callable[[], Any]:
    return lambda: officegym.make_vec(INVOICE, **{"num_envs": 2, **kwargs})


CASES: list[tuple[str, Callable[[], Any], str]] = [
    (
        "async shared_memory True",
        og(vectorization_mode="async", vector_kwargs={"shared_memory": True}),
        "vector_kwargs['shared_memory'] must be False",
    ),
    (
        "async shared_memory text",
        og(vectorization_mode="async", vector_kwargs={"shared_memory": "no"}),
        "it must be True or False, and only False works",
    ),
    (
        "gym.make_vec shared_memory True",
        lambda: gym.make_vec(INVOICE, num_envs=2, vectorization_mode="async", vector_kwargs={"shared_memory": True}),
        "vector_kwargs={'shared_memory': False}",
    ),
    ("num_envs -1", og(num_envs=-1), "num_envs must be between 1 and 4,096, got -1"),
    ("num_envs 2.5", og(num_envs=2.5), "num_envs must be a whole number such as 8, got 2.5"),
    ("num_envs 10**12", og(num_envs=10**12), "num_envs must be between 1 and 4,096"),
    ("num_envs True", og(num_envs=True), "num_envs must be a whole number"),
    ("mode unknown", og(vectorization_mode="vector_entry_point"), "vectorization_mode must be 'sync', 'async'"),
    (
        "sync unknown key",
        og(vector_kwargs={"shared_memory": False}),
        "vector_kwargs for vectorization_mode='sync' takes only copy, observation_mode, autoreset_mode",
    ),
    (
        "async unknown key",
        og(vectorization_mode="async", vector_kwargs={"num_workers": 2}),
        "vector_kwargs for vectorization_mode='async' takes only shared_memory, copy, context",
    ),
    (
        "batched unknown key",
        og(vectorization_mode="batched", vector_kwargs={"shared_memory": False}),
        "takes only 'context', 'parent_slice' and 'spin_us'",
    ),
    ("sync not a dict", og(vector_kwargs=[("copy", False)]), "vector_kwargs must be a dict"),
    (
        "async not a dict",
        og(vectorization_mode="async", vector_kwargs="shared_memory=False"),
        "vector_kwargs must be a dict",
    ),
    ("batched not a dict", og(vectorization_mode="batched", vector_kwargs=["spawn"]), "vector_kwargs must be a dict"),
    ("copy text", og(vector_kwargs={"copy": "yes"}), "vector_kwargs['copy'] must be True or False"),
    (
        "daemon number",
        og(vectorization_mode="async", vector_kwargs={"daemon": 1}),
        "vector_kwargs['daemon'] must be True or False",
    ),
    (
        "context unknown",
        og(vectorization_mode="async", vector_kwargs={"context": "threads"}),
        "vector_kwargs['context'] must be None or one of",
    ),
    (
        "autoreset text",
        og(vector_kwargs={"autoreset_mode": "same"}),
        "vector_kwargs['autoreset_mode'] must be a gymnasium.vector.AutoresetMode",
    ),
    (
        "batched context fork",
        og(vectorization_mode="batched", vector_kwargs={"context": "fork"}),
        "context must be 'spawn' or 'forkserver'",
    ),
    (
        "envs_per_worker with async",
        og(vectorization_mode="async", envs_per_worker=2),
        "envs_per_worker applies only to vectorization_mode='batched'",
    ),
]


@pytest.mark.parametrize(("label", "build", "message"), CASES, ids=[label for label, _, _ in CASES])
def test_a_bad_vector_setting_fails_at_construction_in_one_line(
    label: str, build: Callable[[], Any], message: str
) -> None:
    before = {process.pid for process in multiprocessing.active_children()}
    with pytest.raises(ValueError) as caught:
        build()
    text = str(caught.value)
    assert message in text, text
    assert "\n" not in text
    started = {process.pid for process in multiprocessing.active_children()} - before
    assert not started  # failed before any worker process was started


def test_good_vector_kwargs_still_pass_through() -> None:
    from gymnasium.vector import AutoresetMode

    envs: Any = officegym.make_vec(
        INVOICE, 2, "async", vector_kwargs={"shared_memory": False, "copy": False, "autoreset_mode": "NextStep"}
    )
    try:
        assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    finally:
        envs.close()
