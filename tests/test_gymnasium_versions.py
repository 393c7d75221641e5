"""What differs between the Gymnasium versions users get: ``pip install officegym`` resolves the newest (1.4 when
this was written), the ray extra pins RLlib's (1.2.2). ``make test`` runs this file on both.

- ``gym.make`` of an officegym id has no ``PassiveEnvChecker`` (see ``registration.register_env``: on 1.4 a
  refused first reset made the checked env unusable; ``tests/contract/test_reset_options.py`` plays it).
- A plain ``gym.make_vec(id, n, vectorization_mode="async")`` keeps Gymnasium's ``shared_memory=True``, which
  cannot hold text: it fails in ``make_vec``, before a worker starts, naming both fixes.
- Vector envs hand ``reset(options=...)`` to every env, less the ``reset_mask`` they read themselves, so an env
  that refuses unknown option keys still resets under a mask.
"""

from __future__ import annotations

import multiprocessing
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import officegym
from officegym.envs.core.arguments import ArgumentError

INVOICE = "officegym/InvoiceApproval-v0"


@pytest.mark.parametrize("env_id", officegym.ENV_IDS)
def test_make_adds_no_passive_env_checker(env_id: str) -> None:
    env = gym.make(env_id)
    assert "PassiveEnvChecker" not in str(env) and "OrderEnforcing" in str(env)
    assert env.spec is not None and env.spec.disable_env_checker
    env.close()


def test_the_checker_can_still_be_asked_for() -> None:
    env = gym.make(INVOICE, disable_env_checker=False)
    assert "PassiveEnvChecker" in str(env)
    env.reset(seed=0, options={"task_id": "single-1"})
    env.close()


def test_a_plain_async_make_vec_fails_at_once_naming_the_fixes() -> None:
    before = multiprocessing.active_children()
    with pytest.raises(ArgumentError) as refused:
        gym.make_vec(INVOICE, num_envs=2, vectorization_mode="async")
    message = str(refused.value)
    assert "\n" not in message and "shared memory" in message
    assert "officegym.make_vec(env_id, num_envs, vectorization_mode='async')" in message
    assert "vector_kwargs={'shared_memory': False}" in message
    assert multiprocessing.active_children() == before  # refused before any worker started


def test_a_masked_vector_reset_reaches_the_envs_without_the_mask() -> None:
    envs: Any = gym.make_vec(INVOICE, num_envs=2, vectorization_mode="sync")
    _, infos = envs.reset(seed=0, options={"task_id": "single-2"})
    assert infos["task_id"].tolist() == ["single-2", "single-2"]
    mask = np.array([False, True])
    _, infos = envs.reset(options={"task_id": "batch-1", "reset_mask": mask})
    assert infos["task_id"][1] == "batch-1" and not infos["_task_id"][0]
    envs.close()


def test_a_vector_reset_with_a_mistyped_option_names_the_key() -> None:
    envs: Any = gym.make_vec(INVOICE, num_envs=2, vectorization_mode="sync")
    with pytest.raises(ValueError, match=r"unknown reset option 'taskid' \(did you mean 'task_id'\?\)"):
        envs.reset(seed=0, options={"taskid": "single-2"})
    envs.close()
