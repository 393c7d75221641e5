"""The README's SB3 stack (``officegym.wrappers.sb3_env``) as SB3 users see it: what ``MaskablePPO`` logs.

SB3 logs ``rollout/ep_rew_mean`` only with its ``Monitor`` in the stack and ``rollout/success_rate`` only from
``info["is_success"]`` on episode ends; both used to be missing. The training test runs the README's snippet
at a few hundred steps with SB3's logger writing CSV into ``tmp_path`` and reads that file back.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from officegym.envs.core.catalogue import Internal
from officegym.wrappers import SuccessInfo, sb3_env
from officegym.wrappers.sb3 import SUCCESS_KEY, graded_success

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.logger import configure  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
README_KWARGS: dict[str, Any] = {"tier": "single", "max_turns": 20}


def make() -> gym.Env[Any, Any]:
    """The README's ``make``, as the snippet must become."""
    return sb3_env(INVOICE, **README_KWARGS)


def play(env: gym.Env[Any, Any], task_id: str, actions: list[Any]) -> list[dict[str, Any]]:
    """Every step's info along ``actions`` (tool calls or catalogue entries, then ``finish`` if they do not end
    the episode)."""
    env.reset(seed=0, options={"task_id": task_id})
    index_of = env.get_wrapper_attr("index_of")
    infos = []
    for action in [*actions, {"name": "finish", "arguments": {}}]:
        index = int(action) if isinstance(action, _Index) else index_of(action)
        assert index is not None, action
        _, _, terminated, truncated, info = env.step(index)
        infos.append(info)
        if terminated or truncated:
            return infos
    raise AssertionError("the episode did not end")


def gold_path(env: gym.Env[Any, Any], task_id: str) -> list[Any]:
    """The task's gold path as catalogue entries: VendorReview's submission is the flags of its gaps (adapter
    entries) followed by the canned submission of its decision."""
    inner: Any = env.unwrapped
    actions: list[Any] = list(inner.gold_actions(task_id))
    if actions[-1]["name"] != "submit_recommendation":
        return actions
    submission = actions.pop()["arguments"]
    labels = env.get_wrapper_attr("catalogue").labels
    submit = labels.index(f"submit {submission['decision']}")
    flags = [Internal("flag", gap) for gap in submission["gap_ids"]]
    return [*actions, *flags, _Index(submit)]


class _Index(int):
    """A catalogue index given directly (``index_of`` knows calls and internal entries, not labels)."""


# ----------------------------------------------------------------- the flag
@pytest.mark.parametrize("env_id", [INVOICE, VENDOR])
def test_a_gold_path_ends_with_is_success_and_the_env_return(env_id: str) -> None:
    kwargs: dict[str, Any] = {"tier": "single"} if env_id == INVOICE else {}
    env = sb3_env(env_id, max_turns=40, **kwargs)
    inner: Any = env.unwrapped
    task_id = inner.task_ids[0]
    infos = play(env, task_id, gold_path(env, task_id))
    assert all(SUCCESS_KEY not in info for info in infos[:-1])
    last = infos[-1]
    assert last[SUCCESS_KEY] is True and last["grade"]["reward"] == 1.0
    assert last["episode"]["r"] == 1.0 and last["episode"]["is_success"] is True  # the env's return, not shaped
    assert last["episode"]["l"] == len(infos)


def test_a_wrong_decision_ends_without_success() -> None:
    env = sb3_env(INVOICE, **README_KWARGS)
    inner: Any = env.unwrapped
    task = inner.bundle.tasks["single-1"]
    wrong = task.wrong_actions[0]["actions"]
    last = play(env, "single-1", wrong)[-1]
    assert last["grade"]["reward"] < 1.0 and last[SUCCESS_KEY] is False
    assert last["episode"]["r"] == last["grade"]["reward"]


def test_the_adapter_step_limit_is_graded_and_flagged() -> None:
    """``DiscreteToolCalls`` ends endless flagging with ``finish`` (truncated): that end is flagged too."""
    env = sb3_env(VENDOR, gamma=None, max_steps=3)
    env.reset(seed=0)
    labels = env.get_wrapper_attr("catalogue").labels
    flag = next(k for k, label in enumerate(labels) if label.startswith("flag"))
    unflag = next(k for k, label in enumerate(labels) if label.startswith("unflag"))
    infos = [env.step(action)[4] for action in (flag, unflag, flag)]
    assert infos[-1]["step_limit"] is True and infos[-1][SUCCESS_KEY] is False
    assert all(SUCCESS_KEY not in info for info in infos[:-1])


def test_success_is_full_marks_of_the_grade() -> None:
    assert graded_success({"grade": {"reward": 1.0}}) and graded_success({"grade": {"reward": 1.0 - 1e-12}})
    assert not graded_success({"grade": {"reward": 0.99}})
    assert not graded_success({}) and not graded_success({"grade": None}) and not graded_success({"grade": {}})


def test_the_stack_passes_sb3s_checker_and_reaches_the_mask() -> None:
    env = make()
    check_env(env)
    env.reset(seed=0)
    assert env.get_wrapper_attr("action_masks")().dtype == np.bool_
    assert isinstance(env.unwrapped, gym.Env)
    layers = []
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        layers.append(type(layer).__name__)
        layer = layer.env
    assert layers[:5] == ["PotentialShaping", "Monitor", "SuccessInfo", "ProgressDiagnostics", "DiscreteToolCalls"]
    assert type(sb3_env(INVOICE, gamma=None, **README_KWARGS)).__name__ == "Monitor"


def test_monitor_file_records_success_per_episode(tmp_path: Path) -> None:
    env = sb3_env(INVOICE, monitor_file=str(tmp_path / "run"), **README_KWARGS)
    inner: Any = env.unwrapped
    play(env, "single-1", inner.gold_actions("single-1"))
    env.close()
    rows = list(csv.DictReader((tmp_path / "run.monitor.csv").read_text().splitlines()[1:]))
    assert [(row["r"], row["is_success"]) for row in rows] == [("1.0", "True")]


def test_success_info_alone_wraps_any_env() -> None:
    env: gym.Env[Any, Any] = Monitor(SuccessInfo(gym.make(INVOICE, **README_KWARGS)), info_keywords=(SUCCESS_KEY,))
    env.reset(seed=0, options={"task_id": "single-1"})
    *_, info = env.step({"name": "finish", "arguments": {}})
    assert info[SUCCESS_KEY] is False and info["episode"]["is_success"] is False


# ----------------------------------------------------------------- what SB3 logs
def test_maskable_ppo_logs_episode_reward_and_success_rate(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        DummyVecEnv([make] * 2),
        gamma=0.99,
        learning_rate=1e-3,
        n_steps=64,
        batch_size=64,
        n_epochs=2,
        seed=0,
        device="cpu",
    )
    model.set_logger(configure(str(tmp_path), ["csv"]))
    model.learn(total_timesteps=384)
    rows = list(csv.DictReader((tmp_path / "progress.csv").read_text().splitlines()))
    assert len(rows) == 3 and {"rollout/ep_rew_mean", "rollout/ep_len_mean", "rollout/success_rate"} <= set(rows[0])
    rewards = [float(row["rollout/ep_rew_mean"]) for row in rows]
    success = [float(row["rollout/success_rate"]) for row in rows]
    assert all(0.0 <= value <= 1.0 for value in rewards + success)
    assert model.ep_success_buffer is not None and len(model.ep_success_buffer) > 0
    assert model.ep_info_buffer is not None
    finished = list(model.ep_info_buffer)
    assert success[-1] == pytest.approx(np.mean([info["is_success"] for info in finished]))
    assert rewards[-1] == pytest.approx(np.mean([info["r"] for info in finished]))


def test_officegym_imports_no_sb3() -> None:
    code = (
        "import sys, officegym, officegym.wrappers; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('stable_baselines3', 'sb3_contrib', 'torch')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    assert out.stdout.strip() == "[]"


def test_without_sb3_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.monitor", None)
    with pytest.raises(ImportError, match=r"pip install 'officegym\[sb3\]'"):
        make()
