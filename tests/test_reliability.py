"""Determinism across processes, isolation between episodes and workers, leaks, and clear errors."""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.invoice_approval.v0.bundle import load_bundle, read_tasks
from officegym.envs.vendor_review.v0.env import VendorReviewEnv
from officegym.envs.vendor_review.v0.tasks import scenarios

from .conftest import dump, episode_conn

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"


def _episode_fingerprint(env_id: str, task_id: str, actions: list[Any]) -> str:
    """Run one episode in this process; hash its observations, grade and (InvoiceApproval) final books."""
    import officegym  # noqa: F401  (spawned processes start empty)

    env = gym.make(env_id, max_turns=1000)
    observations = [env.reset(seed=5, options={"task_id": task_id})[0]]
    info: dict[str, Any] = {}
    for action in [*actions, {"name": "finish", "arguments": {}}]:
        observation, _, terminated, _, info = env.step(action)
        observations.append(observation)
        if terminated:
            break
    digest = hashlib.sha256(json.dumps([observations, info.get("grade")], sort_keys=True).encode())
    if env_id == INVOICE:
        digest.update(repr(dump(episode_conn(env))).encode())
    return digest.hexdigest()


def _cases() -> list[tuple[str, str, list[Any]]]:
    bundle = load_bundle()
    vendor_path = [
        {"name": "search_docs", "arguments": {"query": "offline cache"}},
        {"name": "ask_it_channel", "arguments": {"question": "pilot feedback?"}},
        *VendorReviewEnv().gold_actions("vr-hard-01"),
    ]
    wrong = bundle.tasks["hard-2"].wrong_actions[0]["actions"]
    return [
        (INVOICE, "hard-2", bundle.tasks["hard-2"].gold_actions),
        (INVOICE, "hard-2", wrong),
        (VENDOR, "vr-hard-01", vendor_path),
    ]


def test_same_task_and_actions_are_byte_identical_in_spawned_processes() -> None:
    cases = _cases()
    here = [_episode_fingerprint(*case) for case in cases]
    with mp.get_context("spawn").Pool(2) as pool:
        there = pool.starmap(_episode_fingerprint, cases)
    assert here == there


def test_two_episodes_in_one_process_never_see_each_others_writes() -> None:
    a, b = gym.make(INVOICE), gym.make(INVOICE)
    a.reset(seed=0, options={"task_id": "single-1"})
    b.reset(seed=0, options={"task_id": "single-1"})
    before = dump(episode_conn(b))
    iid = load_bundle().tasks["single-1"].scope[0]
    assert a.step({"name": "approve_invoice", "arguments": {"invoice_id": iid}})[0].startswith("Approved")
    assert dump(episode_conn(b)) == before
    a.reset(seed=0, options={"task_id": "single-1"})
    assert dump(episode_conn(a)) == before  # a reset gives a fresh copy, not the previous episode's books


@pytest.mark.filterwarnings("ignore::UserWarning")  # gymnasium logs the worker's error before re-raising it
def test_async_workers_are_isolated_and_errors_surface_clearly() -> None:
    envs = gym.make_vec(INVOICE, num_envs=2, vectorization_mode="async", vector_kwargs={"shared_memory": False})
    envs.reset(seed=0, options={"task_id": "single-1"})
    iid = load_bundle().tasks["single-1"].scope[0]
    approve = {"name": "approve_invoice", "arguments": {"invoice_id": iid}}
    observations, *_ = envs.step((approve, approve))
    assert all(o.startswith("Approved") for o in observations)  # each worker has its own books
    with pytest.raises(ValueError, match="unknown task_id"):
        envs.reset(options={"task_id": "no-such-task"})
    workers = list(getattr(envs.unwrapped, "processes"))  # noqa: B009  (AsyncVectorEnv's, untyped in VectorEnv)
    envs.close()
    # Only this env's workers: another test's batched workers may still be on their way out under xdist.
    assert not any(worker.is_alive() for worker in workers)


def test_step_info_before_the_end_carries_nothing_graded() -> None:
    for env_id, task in ((INVOICE, "batch-1"), (VENDOR, "vr-easy-01")):
        env = gym.make(env_id)
        _, info = env.reset(options={"task_id": task})
        assert set(info) == {"system_prompt", "tools", "task_id", "tier"}
        *_, step_info = env.step(
            {
                "name": "read_doc" if env_id == VENDOR else "whoami",
                "arguments": {"doc_id": "questionnaire"} if env_id == VENDOR else {},
            }
        )
        assert set(step_info) == {"turn", "is_error"}


def test_vendor_tool_outputs_never_contain_the_answer_key() -> None:
    env = gym.make(VENDOR, max_turns=1000)
    for scenario in scenarios().values():
        env.reset(options={"task_id": scenario.id})
        texts = [env.step({"name": "read_doc", "arguments": {"doc_id": d.id}})[0] for d in scenario.documents]
        texts += [
            env.step({"name": "ask_it_channel", "arguments": {"question": " ".join(r.keywords)}})[0]
            for r in scenario.it_channel.routes
        ]
        texts.append(env.step({"name": "search_docs", "arguments": {"query": "requirement unmet gap"}})[0])
        blob = "\n".join(texts)
        for finding in (*scenario.planted_gaps, *scenario.distractors):
            assert finding.explanation not in blob
        assert '"planted_gaps"' not in blob and '"distractors"' not in blob


def test_a_corrupt_tasks_file_is_refused_with_the_fix(tmp_path: Path) -> None:
    broken = tmp_path / "tasks.jsonl"
    broken.write_text('{"id": "single-1"}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"tasks.jsonl:1: not a valid task record.*generate"):
        read_tasks(broken)


def test_cli_errors_are_clear() -> None:
    unknown_env = subprocess.run(
        [sys.executable, "-m", "officegym.cli", "run", "officegym/Nope-v0"], capture_output=True, text=True
    )
    assert unknown_env.returncode == 2 and "invalid choice" in unknown_env.stderr
    unknown_task = subprocess.run(
        [sys.executable, "-m", "officegym.cli", "run", INVOICE, "--task-id", "single-99"],
        capture_output=True,
        text=True,
    )
    assert unknown_task.returncode == 2 and "unknown task_id" in unknown_task.stdout
    wrong_policy = subprocess.run(
        [sys.executable, "-m", "officegym.cli", "run", VENDOR, "--policy", "solver"], capture_output=True, text=True
    )
    assert wrong_policy.returncode == 2 and "InvoiceApproval-v0 only" in wrong_policy.stdout


def test_unknown_env_id_from_gymnasium() -> None:
    with pytest.raises(gym.error.Error):
        gym.make("officegym/Nope-v0")


def test_a_damaged_or_foreign_seed_database_is_refused_with_the_fix() -> None:
    from officegym.envs.invoice_approval.v0.bundle import verify_seed_bytes
    from officegym.envs.invoice_approval.v0.db import shipped_fingerprint, shipped_seed_bytes

    seed = shipped_seed_bytes()
    verify_seed_bytes(seed, shipped_fingerprint())
    with pytest.raises(ValueError, match=r"damaged.*generate"):
        verify_seed_bytes(b"not a database" * 100, shipped_fingerprint())
    with pytest.raises(ValueError, match=r"does not match.*generate"):
        verify_seed_bytes(seed, "0" * 64)
