"""The trainer extras work from an installed wheel, outside the checkout: TRL's bridge plays a train row to full
marks, ``officegym serve`` answers OpenEnv's own client, and the Stable-Baselines3 stack learns a few steps.

``test_wheel.py`` installs the wheel in a fresh venv with its base dependencies and resolves every extra (a dry
run). Installing the trainer stacks for real in a fresh venv would download gigabytes (torch, transformers) on
every run, so here the wheel goes into a fresh venv with ``--no-deps``, and the extras' packages come from the
test venv through a path file: officegym itself is the wheel's (each script asserts it), the packages are the ones
the extras pin, and each extra's ``Requires-Dist`` lines, read from the installed wheel's metadata, must be met by
what the overlay sees. Subprocess timeouts are hang guards, never limits.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from .test_wheel import HANG_GUARD, ROOT, clean_env, run

EXTRAS = ("trl", "openenv", "sb3")
"""The trainer extras played here (``llm`` and ``verifiers`` run from a real install in ``test_wheel.py`` and
``tests/integrations/verifiers``)."""

REQUIREMENTS = """
import json, sys
from importlib.metadata import PackageNotFoundError, requires, version
from packaging.requirements import Requirement

extra, unmet = sys.argv[1], []
for line in requires("officegym") or []:
    requirement = Requirement(line)
    if requirement.marker is None or not requirement.marker.evaluate({"extra": extra}):
        continue
    try:
        found = version(requirement.name)
    except PackageNotFoundError:
        unmet.append(f"{requirement} (not installed)")
        continue
    if not requirement.specifier.contains(found, prereleases=True):
        unmet.append(f"{requirement} (found {found})")
print(json.dumps(unmet))
"""
"""Every ``Requires-Dist`` of the installed officegym that ``extra`` brings, with the ones the overlay misses."""

WHERE = "import officegym; print(officegym.__file__)"

TRL = """
import gymnasium as gym
import officegym
from officegym.integrations.trl import environment_factory, grade_metrics, make_dataset, source_rewards

env_id = "officegym/VendorReview-v2"
rows = make_dataset(env_id, split="train", sources=1)
row = rows[0]
assert row["split"] == "train", row
factory = environment_factory(env_id)
environment = factory()
environment.reset(**row)
assert environment.opening == row["prompt"][-1]["content"], environment.opening  # the row's world, not another
probe = gym.make(env_id, **__import__("json").loads(row["env_kwargs"]))
for action in probe.unwrapped.gold_actions(row["task_id"]):
    getattr(environment, action["name"])(**action["arguments"])
assert environment.get_reward() == 1.0, environment.grade
logged = [metric(environments=[environment]) for metric in grade_metrics(env_id) + source_rewards(rows)]
assert logged and all(values and values[0] is not None for values in logged), logged
print("trl ok", len(rows), "rows;", len(logged), "logged metrics;", officegym.__file__)
"""
"""The README's TRL line, minus the trainer: a train row's world built by the factory, played to 1.0 through
the tool methods TRL calls, and the zero-weight metrics that log the grade's components and the row's source."""

OPENENV = """
import subprocess, sys
from openenv.core.generic_client import GenericEnvClient

server = subprocess.Popen(
    [sys.argv[1], "serve", "officegym/InvoiceApproval-v0", "--port", "0"],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
)
try:
    line = ""
    while "http://" not in line:
        line = server.stdout.readline()
        assert line, "the server exited before printing its address"
    url = "http://" + line.split("http://", 1)[1].split()[0].rstrip(".,")
    with GenericEnvClient(base_url=url).sync() as client:
        opened = client.reset(task_id="single-1", seed=0)
        answered = client.step({"name": "whoami", "arguments": {}})
    assert opened.observation["text"] and answered.observation["text"], answered
    assert not answered.observation["text"].startswith("Error"), answered.observation["text"]
    print("openenv ok", url)
finally:
    server.terminate()
    server.wait(timeout=600)
"""
"""``officegym serve`` from the wheel's console script, reset and stepped by OpenEnv's own generic client."""

SB3 = """
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv
from officegym.wrappers.sb3 import sb3_env

torch.set_num_threads(1)
make = lambda: sb3_env("officegym/InvoiceApproval-v0", tier="single", max_turns=20)
model = MaskablePPO("MlpPolicy", DummyVecEnv([make] * 2), n_steps=32, batch_size=32, n_epochs=1, seed=0)
model.learn(total_timesteps=64)
episodes = sum(len(env.get_wrapper_attr("get_episode_rewards")()) for env in model.env.envs)
assert model.num_timesteps >= 64, model.num_timesteps
print("sb3 ok", model.num_timesteps, "steps;", episodes, "episodes")
"""
"""The README's SB3 line, short: ``sb3_env`` under ``MaskablePPO`` for 64 steps (masks reach the learner)."""


@pytest.fixture(scope="module")
def overlay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv holding only the wheel (``--no-deps``), which sees the test venv's packages through a path
    file: a plain path line, so the test venv's own path files (its editable officegym) are never run."""
    root = tmp_path_factory.mktemp("extras")
    out = root / "dist"
    run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)], cwd=root)
    (wheel,) = sorted(out.glob("*.whl"))
    venv = root / "overlay"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=root)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "--no-input", "--quiet"]
    run([*pip, "install", "--no-deps", "--no-compile", str(wheel)], cwd=root)
    site = Path(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
            timeout=HANG_GUARD,
        ).stdout.strip()
    )
    (site / "zz_test_venv_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    yield venv


def overlay_run(venv: Path, script: str, *arguments: str) -> str:
    """``script`` in the overlay's python from a folder outside the checkout; its last line."""
    work = venv.parent / "work"
    work.mkdir(exist_ok=True)
    output = run([str(venv / "bin" / "python"), "-c", script, *arguments], cwd=work, env=clean_env(COLUMNS="120"))
    return output.strip().splitlines()[-1]


def test_officegym_comes_from_the_wheel(overlay: Path) -> None:
    assert Path(overlay_run(overlay, WHERE)).is_relative_to(overlay)


@pytest.mark.parametrize("extra", EXTRAS)
def test_each_extra_is_met_and_plays_from_the_wheel(overlay: Path, extra: str) -> None:
    unmet = json.loads(overlay_run(overlay, REQUIREMENTS, extra))
    assert unmet == [], f"the test venv does not hold what officegym[{extra}] requires: {unmet}"
    if extra == "trl":
        line = overlay_run(overlay, TRL)
        assert line.startswith("trl ok") and str(overlay) in line, line
    elif extra == "openenv":
        assert overlay_run(overlay, OPENENV, str(overlay / "bin" / "officegym")).startswith("openenv ok")
    else:
        assert overlay_run(overlay, SB3).startswith("sb3 ok")
