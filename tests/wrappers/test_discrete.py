"""DiscreteToolCalls: both env checkers pass, every reference path is expressible in the catalogue, masks mean
what they say, features are the same in every process, and MaskablePPO trains on it end to end."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.vec_env import DummyVecEnv

from officegym.envs.core.catalogue import Internal
from officegym.envs.invoice_approval.v0.bundle import load_bundle
from officegym.envs.invoice_approval.v0.catalogue import InvoiceCatalogue
from officegym.envs.vendor_review.v0.tasks import scenarios
from officegym.wrappers.diagnostics import ProgressDiagnostics
from officegym.wrappers.discrete import DiscreteToolCalls
from officegym.wrappers.features import HashedBagOfWords, bucket, tokens
from officegym.wrappers.shaping import PotentialShaping

from ..conftest import action_count, tool_env

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def invoice_adapter(**kwargs: Any) -> DiscreteToolCalls:
    return DiscreteToolCalls(gym.make(INVOICE, **{"tier": "single", "max_turns": 20, **kwargs}))


def vendor_adapter(**kwargs: Any) -> DiscreteToolCalls:
    return DiscreteToolCalls(gym.make(VENDOR), **kwargs)


ADAPTERS = {"invoice": invoice_adapter, "vendor": vendor_adapter}


# ---------------------------------------------------------------------------------------- checkers and spaces
@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_both_env_checkers_pass(name: str) -> None:
    env = ADAPTERS[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's note that the checked env is wrapped: it is, on purpose
        gymnasium_check_env(env, skip_render_check=True)
    sb3_check_env(env, warn=False)


def test_spaces_are_fixed_and_small() -> None:
    env = invoice_adapter()
    assert action_count(env) == 3 + 10 * 32 == len(set(env.catalogue.labels))
    assert env.observation_space.shape == (3 * 256 + 4 + 10 * 6,)
    assert action_count(vendor_adapter()) == 1 + 12 + 4 * 24 + 3
    observation, _ = env.reset(seed=0)
    assert observation.dtype == np.float32 and env.observation_space.contains(observation)
    assert len(json.dumps(env.catalogue.labels)) < 20_000


def test_work_order_slots_follow_the_listed_order_and_empty_slots_are_masked() -> None:
    env = invoice_adapter(tier="batch", max_turns=200)
    task = load_bundle().tasks["batch-1"]
    env.reset(options={"task_id": "batch-1"})
    labels, mask = env.catalogue.labels, env.action_masks()
    for slot, invoice_id in enumerate(task.scope):
        read = labels.index(f"slot {slot}: read_invoice")
        call = env.catalogue.resolve(read)
        assert mask[read] and isinstance(call, dict) and call["arguments"] == {"invoice_id": invoice_id}
    assert not any(mask[i] for i, label in enumerate(labels) if label.startswith(f"slot {len(task.scope)}:"))


# ---------------------------------------------------------------------------------------- reference paths
def replay_invoice_gold(env: DiscreteToolCalls, task_id: str) -> float:
    env.reset(options={"task_id": task_id})
    for action in tool_env(env).gold_actions(task_id):
        index = env.index_of(action)
        assert index is not None, (task_id, action)
        _, _, _, _, info = env.step(index)
        assert not info["is_error"] or action["name"] == "get_purchase_order", info["text"]  # the po_unknown trap
    *_, reward, terminated, _, _ = env.step(env.catalogue.labels.index("finish"))
    assert terminated
    return float(reward)


def test_every_single_and_batch_gold_path_is_expressible_and_scores_one() -> None:
    env = invoice_adapter(
        tier=None, task_ids=[t.id for t in load_bundle().tasks.values() if t.tier in ("single", "batch")], max_turns=200
    )
    assert all(replay_invoice_gold(env, task_id) == 1.0 for task_id in tool_env(env).task_ids)


def test_long_and_hard_tasks_fit_a_catalogue_with_23_slots() -> None:
    inner = gym.make(INVOICE, task_ids=["long-1", "hard-1"])
    env = DiscreteToolCalls(inner, catalogue=InvoiceCatalogue(tool_env(inner), slots=23))
    assert action_count(env) == 3 + 23 * 32
    assert replay_invoice_gold(env, "long-1") == replay_invoice_gold(env, "hard-1") == 1.0


@pytest.mark.parametrize("scenario_id", sorted(scenarios()))
def test_every_vendor_answer_key_is_expressible_and_scores_one(scenario_id: str) -> None:
    env = vendor_adapter()
    scenario = scenarios()[scenario_id]
    env.reset(options={"task_id": scenario_id})
    steps = [env.index_of(a) for a in tool_env(env).gold_actions(scenario_id)[:-1]]
    for index in steps:
        assert index is not None
        env.step(index)
    for gap in scenario.gap_ids:
        flag = env.index_of(Internal("flag", gap))
        assert flag is not None
        _, reward, terminated, _, info = env.step(flag)
        assert (reward, terminated, info["tool_call"]) == (0.0, False, None)  # a flag is not a tool call
    *_, reward, terminated, _, info = env.step(env.catalogue.labels.index(f"submit {scenario.decision}"))
    assert terminated and reward == 1.0
    assert sorted(info["tool_call"]["arguments"]["gap_ids"]) == sorted(scenario.gap_ids)


# ---------------------------------------------------------------------------------------- masks
@SETTINGS
@given(name=st.sampled_from(sorted(ADAPTERS)), seed=st.integers(0, 10_000))
def test_unmasked_actions_never_fail_except_reading_a_po_that_does_not_exist(name: str, seed: int) -> None:
    """Masks use only what the episode has shown, so one error stays possible: the PO an invoice names may
    not exist (that is a trap the agent has to find)."""
    env = ADAPTERS[name]()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(30):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (action_count(env),) and mask[0]  # finish: always allowed
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if info["is_error"]:
            assert info["action_label"].endswith("read_po") and "not found" in info["text"], info["text"]
        if terminated or truncated:
            break


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_masked_actions_still_run_and_answer_with_an_error(name: str) -> None:
    env = ADAPTERS[name](max_turns=1000) if name == "invoice" else vendor_adapter(max_steps=1000)
    env.reset(seed=1)
    for index in np.flatnonzero(~env.action_masks()):
        _, reward, terminated, _, info = env.step(int(index))
        assert info["is_error"] and info["text"].startswith("Error: ") and reward == 0.0 and not terminated


def test_reads_and_decisions_are_masked_once_done() -> None:
    env = invoice_adapter()
    env.reset(options={"task_id": "single-9"})
    labels = env.catalogue.labels
    read, supplier, approve = (labels.index(f"slot 0: {v}") for v in ("read_invoice", "read_supplier", "approve"))
    assert env.action_masks()[read] and not env.action_masks()[supplier]  # the supplier is known after the read
    env.step(read)
    assert not env.action_masks()[read] and env.action_masks()[supplier]
    env.step(approve)
    assert not any(
        env.action_masks()[labels.index(f"slot 0: {v}")] for v in ("approve", "reject VAT_ERROR", "escalate target")
    )


def test_the_adapter_step_limit_ends_endless_flagging_with_a_graded_finish() -> None:
    env = vendor_adapter(max_steps=6)
    env.reset(options={"task_id": "vr-hard-01"})
    flag, unflag = (env.catalogue.labels.index(f"{v} REQ-OFFLINE") for v in ("flag", "unflag"))
    results = [env.step(flag if n % 2 == 0 else unflag) for n in range(6)]
    assert [r[3] for r in results] == [False] * 5 + [True] and not results[-1][2]  # truncated, not terminated
    assert results[-1][4]["grade"]["submitted"] is False and results[-1][1] == 0.0 and results[-1][4]["step_limit"]
    assert tool_env(env).stats.turns == 1  # only the finish took an env turn


# ---------------------------------------------------------------------------------------- features
def test_tokens_and_hashed_features() -> None:
    assert tokens('{"is_blocked": true, "po_number": null}') == [
        "is",
        "blocked",
        "true",
        "po",
        "number",
        "null",
        "is_blocked=true",
        "po_number=null",
    ]
    assert bucket("invoice", 256) == 68  # crc32("invoice") % 256: fixed by the algorithm, not by the process
    vector = HashedBagOfWords(8).encode("a b a")
    assert vector.sum() == len({bucket("a", 8), bucket("b", 8)}) and set(vector.tolist()) <= {0.0, 1.0}


def test_features_are_the_same_in_a_fresh_process_with_another_hash_seed() -> None:
    script = (
        "import gymnasium as gym, officegym, json;"
        "from officegym.wrappers.discrete import DiscreteToolCalls;"
        "e = DiscreteToolCalls(gym.make('officegym/InvoiceApproval-v0', tier='single', max_turns=20));"
        "o, _ = e.reset(options={'task_id': 'single-3'}); o, *_ = e.step(3);"
        "print(json.dumps(o.tolist()))"
    )
    other = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
        timeout=600,
    )
    env = invoice_adapter()
    env.reset(options={"task_id": "single-3"})
    here, *_ = env.step(3)
    assert json.loads(other.stdout) == here.tolist()


def test_memory_keeps_what_the_last_output_forgets() -> None:
    env = invoice_adapter()
    env.reset(options={"task_id": "single-1"})
    after_read, *_ = env.step(env.catalogue.labels.index("slot 0: read_invoice"))
    after_whoami, *_ = env.step(env.catalogue.labels.index("whoami"))
    last, memory = slice(256, 512), slice(512, 768)
    assert np.all(after_whoami[memory] >= after_read[last]) and not np.array_equal(after_whoami[last], after_read[last])


# ---------------------------------------------------------------------------------------- training
def test_a_short_maskable_ppo_run_completes_on_the_full_stack() -> None:
    torch.set_num_threads(1)

    def make() -> gym.Env[Any, Any]:
        env: gym.Env[Any, Any] = PotentialShaping(ProgressDiagnostics(invoice_adapter()), gamma=0.99)
        return env

    venv = DummyVecEnv([make, make])
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=256,
        batch_size=128,
        n_epochs=2,
        seed=0,
        gamma=0.99,
        policy_kwargs={"net_arch": [32]},
        device="cpu",
    )
    model.learn(total_timesteps=2048, progress_bar=True)  # the extras bring what SB3's progress bar needs
    assert model.num_timesteps >= 2048
    env = invoice_adapter()
    observation, _ = env.reset(seed=0)
    for _ in range(5):
        action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(action)]
        observation, _, terminated, truncated, _ = env.step(int(action))
        if terminated or truncated:
            break
