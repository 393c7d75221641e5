"""The v1 discrete action catalogue (``v1/catalogue.py``) through ``DiscreteToolCalls``: both env checkers pass,
every gold path is expressible and scores 1.0, masks mean what they say, an inbox work order fills its slots."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import officegym  # noqa: F401
from officegym.envs.invoice_approval.v1.bundle import load_bundle
from officegym.envs.invoice_approval.v1.catalogue import InvoiceCatalogueV1
from officegym.envs.invoice_approval.v1.env import InvoiceApprovalV1Env
from officegym.wrappers.discrete import DiscreteToolCalls

ENV_ID = "officegym/InvoiceApproval-v1"


def adapter(**kwargs: Any) -> DiscreteToolCalls:
    return DiscreteToolCalls(gym.make(ENV_ID, **{"tier": "single", "max_turns": 60, **kwargs}))


def inner(env: gym.Env[Any, Any]) -> InvoiceApprovalV1Env:
    found = env.unwrapped
    assert isinstance(found, InvoiceApprovalV1Env)
    return found


def replay_gold(env: DiscreteToolCalls, task_id: str) -> float:
    """Play the task's gold path by catalogue index (each call must be an unmasked entry), then finish."""
    env.reset(options={"task_id": task_id})
    for action in inner(env).gold_actions(task_id):
        index = env.index_of(action)
        assert index is not None, (task_id, action)
        *_, info = env.step(index)
        assert not info["is_error"] or action["name"] == "get_purchase_order", info["text"]  # the po_unknown trap
    *_, reward, terminated, _, _ = env.step(env.catalogue.labels.index("finish"))
    assert terminated
    return float(reward)


def test_both_env_checkers_pass() -> None:
    env = adapter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's note that the checked env is wrapped: it is, on purpose
        gymnasium_check_env(env, skip_render_check=True)
    sb3_check_env(env, warn=False)


def test_the_catalogue_is_fixed_and_its_labels_unique() -> None:
    env = adapter()
    approvers = 16
    assert len(env.catalogue.labels) == 4 + 10 * (23 + approvers) == len(set(env.catalogue.labels))
    assert env.observation_space.shape == (3 * 256 + 5 + 10 * 9,)
    assert env.catalogue.labels[:4] == ("finish", "whoami", "list_approvers", "list_inbox")
    assert "slot 0: hold CREDIT_ORIGINAL_OPEN" in env.catalogue.labels  # v1's codes, not only v0's


def test_every_single_and_batch_gold_path_is_expressible_and_scores_one() -> None:
    tasks = [t.id for t in load_bundle().tasks.values() if t.tier in ("single", "batch")]
    env = adapter(tier=None, task_ids=tasks, max_turns=200)
    assert all(replay_gold(env, task_id) == 1.0 for task_id in tasks)


def test_long_and_hard_gold_paths_fit_a_catalogue_with_28_slots() -> None:
    tasks = [t.id for t in load_bundle().tasks.values() if t.tier in ("long", "hard")]
    made = gym.make(ENV_ID, task_ids=tasks)
    env = DiscreteToolCalls(made, catalogue=InvoiceCatalogueV1(inner(made), slots=28))
    assert max(len(load_bundle().tasks[t].scope) for t in tasks) <= 28
    assert all(replay_gold(env, task_id) == 1.0 for task_id in tasks)


def test_an_inbox_work_order_fills_its_slots_from_the_listing_page_by_page() -> None:
    task = next(t for t in load_bundle().tasks.values() if t.tier == "long")
    made = gym.make(ENV_ID, task_ids=[task.id])
    env = DiscreteToolCalls(made, catalogue=InvoiceCatalogueV1(inner(made), slots=28))
    env.reset(options={"task_id": task.id})
    labels, listing = env.catalogue.labels, env.catalogue.labels.index("list_inbox")
    assert not env.action_masks()[labels.index("slot 0: read_invoice")]  # nothing listed yet
    pages = 0
    while env.action_masks()[listing]:
        *_, info = env.step(listing)
        assert not info["is_error"]
        pages += 1
    assert pages >= 2
    read = [env.catalogue.resolve(labels.index(f"slot {k}: read_invoice")) for k in range(len(task.scope))]
    assert [r["arguments"]["invoice_id"] for r in read if isinstance(r, dict)] == sorted(task.scope)


@pytest.mark.parametrize("tier", ["single", "batch"])
def test_unmasked_actions_fail_only_where_the_episode_has_not_shown_why(tier: str) -> None:
    """Masks use only what the episode has shown, so two errors stay possible: the PO a document names may not
    exist (a trap to find), and approving blind a document that was never captured."""
    env = adapter(tier=tier)
    for seed in range(15):
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        for _ in range(60):
            mask = env.action_masks()
            assert mask.dtype == bool and mask[0]  # finish: always allowed
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            if info["is_error"]:
                label, text = info["action_label"], info["text"]
                assert (label.endswith("read_po") and "not found" in text) or (
                    label.endswith("approve") and "not captured" in text
                ), text
            if terminated or truncated:
                break


def test_masked_actions_at_the_start_still_run_and_answer_with_an_error() -> None:
    env = adapter(max_turns=1000)
    env.reset(seed=1)
    for index in np.flatnonzero(~env.action_masks()):
        _, reward, terminated, _, info = env.step(int(index))
        assert info["is_error"] and info["text"].startswith("Error: ") and reward == 0.0 and not terminated


def test_reads_captures_and_decisions_are_masked_once_done() -> None:
    task = next(
        t
        for t in load_bundle().tasks.values()
        if t.tier == "single" and not any(a["name"] == "capture_invoice" for a in t.gold_actions)
    )
    env = adapter()
    env.reset(options={"task_id": task.id})
    labels = env.catalogue.labels

    def allowed(verb: str) -> bool:
        return bool(env.action_masks()[labels.index(f"slot 0: {verb}")])

    assert allowed("read_invoice") and not allowed("read_supplier") and not allowed("capture")
    env.step(labels.index("slot 0: read_invoice"))
    env.step(labels.index("slot 0: read_document"))
    assert not allowed("read_invoice") and not allowed("read_document") and allowed("read_supplier")
    assert not allowed("capture")  # the record already equals the document
    env.step(labels.index("slot 0: hold SUPPLIER_BLOCKED"))
    assert not any(allowed(v) for v in ("approve", "reject VAT_ERROR", "hold PO_EXCEEDED", "escalate target"))
