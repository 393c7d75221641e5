"""officegym.make_vec: async works without extra arguments, SAME_STEP autoreset carries the grade."""

from __future__ import annotations

from typing import Any

import pytest

import officegym

FINISH = {"name": "finish", "arguments": {}}


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "env_id, task", [("officegym/InvoiceApproval-v0", "single-1"), ("officegym/VendorReview-v0", "vr-easy-01")]
)
def test_autoreset_same_step_carries_the_grade(mode: str, env_id: str, task: str) -> None:
    envs: Any = officegym.make_vec(env_id, num_envs=2, vectorization_mode=mode)
    observations, _ = envs.reset(seed=0, options={"task_id": task})
    assert all(isinstance(o, str) and o for o in observations)
    observations, _, terminated, _, infos = envs.step((FINISH, FINISH))
    assert terminated.all()
    assert infos["final_info"]["grade"]["reward"].tolist() == [0.0, 0.0]
    assert all(isinstance(o, str) and o for o in observations)  # already the next episodes' openings
    assert infos["final_obs"][0].startswith("Episode finished")
    envs.close()


def test_vector_kwargs_override_the_defaults() -> None:
    from gymnasium.vector import AutoresetMode

    envs: Any = officegym.make_vec(
        "officegym/VendorReview-v0", num_envs=1, vector_kwargs={"autoreset_mode": AutoresetMode.NEXT_STEP}
    )
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    envs.close()
