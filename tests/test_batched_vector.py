"""The batched vector mode: results identical to the sync vector env, SAME_STEP autoreset, errors surfacing in the
caller, and no worker process left behind (after close, garbage collection or interpreter exit)."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import psutil
import pytest
from gymnasium.error import ResetNeeded

import officegym
from officegym.envs.core.arguments import ArgumentError
from officegym.vector.batched import worker_slices

FINISH = {"name": "finish", "arguments": {}}
# Short episodes (12 turns at most, easy tasks), so that terminations and truncations both happen in the run.
CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "officegym/InvoiceApproval-v0": (
        {"tier": "single", "max_turns": 12},
        {"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00100"}},
    ),
    "officegym/VendorReview-v0": (
        {"tier": "easy", "max_turns": 12},
        {"name": "read_doc", "arguments": {"doc_id": "questionnaire"}},
    ),
}


def assert_same(expected: Any, actual: Any, where: str = "") -> None:
    """Equal values, the same key order, and for arrays the same dtype and shape."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), where
        for key in expected:
            assert_same(expected[key], actual[key], f"{where}.{key}")
    elif isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), where
        assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape), where
        assert_same(expected.tolist(), actual.tolist(), where)
    elif isinstance(expected, list | tuple):
        assert type(actual) is type(expected) and len(actual) == len(expected), where
        for number, (e, a) in enumerate(zip(expected, actual, strict=True)):
            assert_same(e, a, f"{where}[{number}]")
    else:
        assert type(actual) is type(expected) and actual == expected, where


EXIT_HANG_GUARD_S = 600


def worker_pids(envs: Any) -> list[int]:
    pids = [process.pid for process in envs.processes]
    assert pids and all(pid is not None for pid in pids)
    return pids


def assert_gone(pids: list[int]) -> None:
    """Every worker has exited (waited for: a worker told to stop may still be on its way out on a busy machine;
    the wait is a hang guard, not a time limit)."""
    alive = [child for child in psutil.Process().children(recursive=True) if child.pid in pids]
    _, still = psutil.wait_procs(alive, timeout=EXIT_HANG_GUARD_S)
    assert not still
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def random_actions(rng: np.random.Generator, envs: Any, read: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """Mostly a read (episodes run on), sometimes a random tool call (often finish or submit: episodes end)."""
    sampled = envs.action_space.sample()
    return tuple(read if rng.random() < 0.7 else action for action in sampled)


@pytest.mark.parametrize(("parent_slice", "spin_us"), [(True, 200), (False, 0)])
@pytest.mark.parametrize("env_id", list(CASES))
def test_identical_to_sync(env_id: str, parent_slice: bool, spin_us: int) -> None:
    """Both ways of hosting the first slice, and both ways of waiting (polling first, sleeping at once)."""
    env_kwargs, read = CASES[env_id]
    sync: Any = officegym.make_vec(env_id, num_envs=5, **env_kwargs)
    batched: Any = officegym.make_vec(
        env_id,
        num_envs=5,
        vectorization_mode="batched",
        envs_per_worker=2,
        vector_kwargs={"parent_slice": parent_slice, "spin_us": spin_us},
        **env_kwargs,
    )
    assert len(batched.processes) == (2 if parent_slice else 3)  # 2 + 2 + 1 envs, the first 2 here or in a worker
    assert_same(sync.reset(seed=3), batched.reset(seed=3))
    assert batched.get_attr("np_random_seed") == sync.get_attr("np_random_seed") == (3, 4, 5, 6, 7)
    sync.action_space.seed(0)
    rng = np.random.default_rng(0)
    ended = {"terminated": 0, "truncated": 0}
    for step in range(300):
        if step == 150:
            assert_same(sync.reset(seed=11), batched.reset(seed=11))
        if step == 200:
            mask = np.array([True, False, False, True, False])
            assert_same(
                sync.reset(seed=5, options={"reset_mask": mask}), batched.reset(seed=5, options={"reset_mask": mask})
            )
        actions = random_actions(rng, sync, read)
        expected, actual = sync.step(actions), batched.step(list(actions))
        assert_same(expected, actual, f"step {step}")
        ended["terminated"] += int(expected[2].sum())
        ended["truncated"] += int(expected[3].sum())
    assert ended["terminated"] > 10 and ended["truncated"] > 0, ended
    sync.close()
    batched.close()


def test_autoreset_same_step_carries_the_final_obs_and_grade() -> None:
    envs: Any = officegym.make_vec("officegym/InvoiceApproval-v0", num_envs=3, vectorization_mode="batched")
    assert envs.metadata["autoreset_mode"].value == "SameStep"
    observations, _ = envs.reset(seed=0, options={"task_id": "single-1"})
    observations, rewards, terminated, _, infos = envs.step((FINISH, FINISH, FINISH))
    assert terminated.all() and rewards.tolist() == [0.0, 0.0, 0.0]
    assert infos["final_info"]["grade"]["reward"].tolist() == [0.0, 0.0, 0.0]
    assert all(final.startswith("Episode finished") for final in infos["final_obs"])
    assert all(isinstance(o, str) and not o.startswith("Episode finished") for o in observations)
    assert set(infos["task_id"]) <= set(envs.get_attr("task_ids")[0])  # already the next episodes' openings
    envs.close()


@pytest.mark.parametrize(
    ("parent_slice", "where"),
    [(False, "raised in batched worker 0 (envs 0 to 1)"), (True, "raised in the parent's own envs (envs 0 to 1)")],
)
def test_an_error_surfaces_in_env_order_and_closes_the_vector_env(parent_slice: bool, where: str) -> None:
    """Every slice fails here (step before reset); the first slice's error is raised, wherever it ran."""
    envs: Any = officegym.make_vec(
        "officegym/VendorReview-v0",
        num_envs=4,
        vectorization_mode="batched",
        envs_per_worker=2,
        vector_kwargs={"parent_slice": parent_slice},
    )
    pids = worker_pids(envs)
    with pytest.raises(ResetNeeded) as raised:
        envs.step((FINISH,) * 4)  # the sub-envs' order enforcement: step before reset
    assert where in "\n".join(raised.value.__notes__)
    assert envs.closed
    assert_gone(pids)


def test_an_error_in_a_worker_behind_a_healthy_parent_slice_surfaces() -> None:
    """Only the worker's envs fail (never reset); the parent's slice steps fine, the worker's error is raised."""
    envs: Any = officegym.make_vec(
        "officegym/VendorReview-v0", num_envs=4, vectorization_mode="batched", envs_per_worker=2
    )
    envs.reset(seed=0, options={"reset_mask": np.array([True, True, False, False])})
    pids = worker_pids(envs)
    with pytest.raises(ResetNeeded) as raised:
        envs.step((FINISH,) * 4)
    assert "raised in batched worker 0 (envs 2 to 3)" in "\n".join(raised.value.__notes__)
    assert envs.closed
    assert_gone(pids)


def test_an_error_while_making_the_envs_surfaces() -> None:
    with pytest.raises(ArgumentError, match="max_turns"):
        officegym.make_vec("officegym/InvoiceApproval-v0", num_envs=2, vectorization_mode="batched", max_turns=1)


def test_close_and_garbage_collection_leave_no_process() -> None:
    envs: Any = officegym.make_vec(
        "officegym/VendorReview-v0", num_envs=4, vectorization_mode="batched", envs_per_worker=2
    )
    pids = worker_pids(envs)
    envs.close()
    assert_gone(pids)
    envs = officegym.make_vec("officegym/VendorReview-v0", num_envs=2, vectorization_mode="batched", envs_per_worker=1)
    pids = worker_pids(envs)
    del envs
    gc.collect()
    assert_gone(pids)


def test_interpreter_exit_leaves_no_process() -> None:
    script = textwrap.dedent(
        """
        import officegym
        if __name__ == "__main__":
            envs = officegym.make_vec(
                "officegym/VendorReview-v0", 4, "batched", envs_per_worker=2, vector_kwargs={"parent_slice": False}
            )
            envs.reset(seed=0)
            print(*[process.pid for process in envs.processes])
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True)
    pids = [int(pid) for pid in out.stdout.split()]
    assert len(pids) == 2
    assert all(not psutil.pid_exists(pid) for pid in pids)


def test_worker_slices_and_arguments() -> None:
    assert worker_slices(5, 2) == [range(0, 2), range(2, 4), range(4, 5)]
    assert worker_slices(64, 32) == [range(0, 32), range(32, 64)]
    env_id = "officegym/VendorReview-v0"
    with pytest.raises(ArgumentError, match="envs_per_worker"):
        officegym.make_vec(env_id, num_envs=2, vectorization_mode="batched", envs_per_worker=0)
    with pytest.raises(ArgumentError, match="only to vectorization_mode='batched'"):
        officegym.make_vec(env_id, num_envs=2, envs_per_worker=2)
    with pytest.raises(ArgumentError, match="context"):
        officegym.make_vec(env_id, num_envs=2, vectorization_mode="batched", vector_kwargs={"context": "fork"})
    with pytest.raises(ArgumentError, match="only 'context', 'parent_slice' and 'spin_us'"):
        officegym.make_vec(env_id, num_envs=2, vectorization_mode="batched", vector_kwargs={"shared_memory": True})
    with pytest.raises(ArgumentError, match="parent_slice must be True or False"):
        officegym.make_vec(env_id, num_envs=2, vectorization_mode="batched", vector_kwargs={"parent_slice": "yes"})
    for spin in (-1, 100_001, 2.5, "200", True):
        with pytest.raises(ArgumentError, match="spin_us"):
            officegym.make_vec(env_id, num_envs=2, vectorization_mode="batched", vector_kwargs={"spin_us": spin})
