"""The Gymnasium contract of InvoiceApproval-v0: checkers, registration, vector envs, rendering, limits."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from officegym.envs.invoice_approval.v0.env import InvoiceApprovalEnv

ENV_ID = "officegym/InvoiceApproval-v0"
FINISH = {"name": "finish", "arguments": {}}


def test_gymnasium_check_env_passes() -> None:
    env = gym.make(ENV_ID, tier="single", disable_env_checker=True)
    check_env(env.unwrapped, skip_render_check=False)
    env.close()


def test_make_from_a_fresh_process_with_the_module_prefix() -> None:
    code = (
        "import gymnasium as gym; env = gym.make('officegym:officegym/InvoiceApproval-v0');"
        "obs, info = env.reset(seed=1); print(info['task_id'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip()


def test_reset_info_and_spaces(invoice_env: Any) -> None:
    observation, info = invoice_env.reset(seed=3)
    assert set(info) >= {"system_prompt", "tools", "task_id", "tier"}
    assert "Normalise a number" in info["system_prompt"]
    assert [t["function"]["name"] for t in info["tools"]] == [
        "list_invoices",
        "get_invoice",
        "search_suppliers",
        "get_supplier",
        "get_purchase_order",
        "list_approvers",
        "whoami",
        "approve_invoice",
        "reject_invoice",
        "hold_invoice",
        "escalate_invoice",
    ]
    assert invoice_env.observation_space.contains(observation)
    assert invoice_env.action_space.contains(FINISH)
    assert all(invoice_env.action_space.contains(invoice_env.action_space.sample()) for _ in range(100))


def test_seeded_reset_is_deterministic() -> None:
    a, b = gym.make(ENV_ID), gym.make(ENV_ID)
    first = [a.reset(seed=s)[1]["task_id"] for s in range(10)]
    assert first == [b.reset(seed=s)[1]["task_id"] for s in range(10)]
    assert len(set(first)) > 3


def test_selection_by_tier_and_ids() -> None:
    env = gym.make(ENV_ID, tier="hard")
    assert all(env.reset(seed=s)[1]["tier"] == "hard" for s in range(5))
    env = gym.make(ENV_ID, task_ids=["single-3", "batch-2"])
    assert {env.reset(seed=s)[1]["task_id"] for s in range(20)} == {"single-3", "batch-2"}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"task_ids": ["single-99"]}, "unknown task id"),
        ({"tier": "medium"}, "unknown tier"),
        ({"tier": "long", "max_turns": 20}, "below the gold path"),
        ({"task_ids": ["single-1"], "tier": "hard"}, "no task matches"),
        ({"render_mode": "rgb_array"}, "render_mode"),
    ],
)
def test_constructor_errors_name_the_fix(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        InvoiceApprovalEnv(**kwargs)


def test_unknown_task_in_reset_options(invoice_env: Any) -> None:
    with pytest.raises(ValueError, match="unknown task_id"):
        invoice_env.reset(options={"task_id": "nope"})


def test_truncation_is_graded_on_the_final_state() -> None:
    env = gym.make(ENV_ID, task_ids=["single-1"], max_turns=10)
    env.reset(seed=0)
    gold = InvoiceApprovalEnv(task_ids=["single-1"]).gold_actions("single-1")
    assert len(gold) == 10
    for action in gold[:-1]:
        assert env.step(action)[3] is False
    _, reward, terminated, truncated, info = env.step(gold[-1])
    assert (reward, terminated, truncated) == (1.0, False, True)
    assert info["grade"]["turns"] == 10


def test_step_after_the_end_is_an_error_not_a_crash(invoice_env: Any) -> None:
    invoice_env.reset(seed=0)
    invoice_env.step(FINISH)
    observation, reward, terminated, _, _ = invoice_env.step({"name": "whoami", "arguments": {}})
    assert observation.startswith("Error: ") and reward == 0.0 and terminated


def test_grade_diagnostics_count_tools_and_errors(invoice_env: Any) -> None:
    invoice_env.reset(seed=0, options={"task_id": "single-2"})
    invoice_env.step({"name": "whoami", "arguments": {}})
    invoice_env.step({"name": "whoami", "arguments": {"x": 1}})
    invoice_env.step({"name": "nope", "arguments": {}})
    info = invoice_env.step(FINISH)[4]
    grade = info["grade"]
    assert grade["tool_calls"] == {"whoami": 2} and grade["invalid_calls"] == 2 and grade["turns"] == 4
    assert grade["reward"] == 0.0 and grade["scope_correct"] == 0.0 and grade["collateral_changes"] == 0


def test_render_modes() -> None:
    env = gym.make(ENV_ID, render_mode="ansi", task_ids=["single-1"])
    env.reset(seed=0)
    env.step({"name": "whoami", "arguments": {}})
    env.step(FINISH)
    text = str(env.render())
    assert "whoami" in text and "[grade]" in text and "reward=0.0" in text


def test_human_render_prints_with_rich(capsys: Any) -> None:
    env = gym.make(ENV_ID, render_mode="human", task_ids=["single-1"])
    env.reset(seed=0)
    env.step({"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00019"}})
    env.step(FINISH)
    out = capsys.readouterr().out
    assert "work order" in out and "get_invoice" in out and "state_matches" in out


@pytest.mark.parametrize("mode, kwargs", [("sync", {}), ("async", {"shared_memory": False})])
def test_vector_envs_step_and_grade(mode: str, kwargs: dict[str, Any]) -> None:
    envs = gym.make_vec(
        ENV_ID, num_envs=2, vectorization_mode=mode, vector_kwargs=kwargs, task_ids=["single-1", "single-2"]
    )
    observations, infos = envs.reset(seed=0, options={"task_id": "single-1"})
    assert isinstance(observations, tuple) and all(isinstance(o, str) for o in observations)
    observations, rewards, terminated, _, infos = envs.step(({"name": "whoami", "arguments": {}},) * 2)
    assert all(json.loads(o)["approver_id"].startswith("AP-") for o in observations)
    observations, rewards, terminated, _, infos = envs.step((FINISH, FINISH))
    assert terminated.all() and np.array_equal(rewards, [0.0, 0.0])
    assert list(infos["grade"]["state_matches"]) == [0.0, 0.0]
    envs.close()


def test_no_tool_output_leaks_hidden_columns(bundle: Any) -> None:
    env = InvoiceApprovalEnv(max_turns=1000)
    env.reset(seed=0)
    hidden = {"trap", "intended", "design_actor"}
    outputs = [
        env.step({"name": "list_invoices", "arguments": {"status": s, "limit": 200}})[0]
        for s in ("received", "approved", "rejected")
    ]
    for number in range(1, 201):
        outputs.append(env.step({"name": "get_invoice", "arguments": {"invoice_id": f"ER-2026-{number:05d}"}})[0])
    for text in outputs:
        data = json.loads(text)
        rows = data.get("invoices", [data])
        assert all(not hidden & set(row) for row in rows)
        for marker in ("duplicate_of_approved", "reject:", "escalate:", "budget_chain"):
            assert marker not in text
    env.close()


def test_a_company_seed_whose_tasks_cannot_be_built_says_so_and_what_to_do() -> None:
    """A few generated companies have a batch the task builder refuses; the user gets the seed, the reason and
    the fix, as a RuntimeError subclass the training split uses to skip such seeds."""
    from officegym.envs.invoice_approval.v0.bundle import UnusableCompany

    with pytest.raises(UnusableCompany, match=r"company_seed=100003 generates a company whose tasks cannot be built"):
        gym.make("officegym/InvoiceApproval-v0", company_seed=100003)
