"""``vf-eval PACKAGE_ID`` finds the environment when officegym is a wheel, not a checkout, beside its Hub package.

The checkout (a copy, so no build output lands in the working tree) and the Hub package of VendorReview-v2 are
built into wheels (``pip wheel --no-deps --no-build-isolation``: offline, with this venv's setuptools), and
both are installed with ``--no-deps`` into a fresh venv in ``tmp_path``. That venv reuses this venv's
site-packages for the heavy dependencies (verifiers, MCP, gymnasium, ...) through a ``.pth`` line naming it: a
plain path, so the checkout's editable-install hook in there is never run and ``import officegym`` can only find
the wheel's copy. Then verifiers' own ``vf-eval`` script runs on that interpreter, outside the checkout, with
nothing on ``PYTHONPATH``: it resolves ``officegym-vendor-review-v2`` to the installed module, plays two tasks of
the train split (200 generated deals) against the loopback OpenAI-compatible server answering each task's gold
path, and every rollout is scored 1.0 with the row's split and source in its trace. Subprocess limits are hang
guards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed: pip install 'officegym[verifiers]'")

from officegym.integrations import verifiers as ogv
from officegym.splits import make_env, task_rows

from ...fake_openai_server import FakeOpenAIServer, ScriptBook, native
from .conftest import HANG_GUARD, HUB, ROOT, leftover_servers

ENV_ID = "officegym/VendorReview-v2"
SPLIT, TASK_IDS = "train", ["vr2-gen-000000", "vr2-gen-000007"]
KEY_VARIABLE, KEY = "OFFICEGYM_TEST_MODEL_KEY", "test-key-wheel"
NOT_BUILT = shutil.ignore_patterns(
    ".venv*", ".git", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", ".hypothesis"
)
LEAKS = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment without what would let the checkout or this venv leak into the fresh one."""
    env = {key: value for key, value in os.environ.items() if key not in LEAKS}
    return env | {"HOME": str(home)} | extra


def run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{(done.stdout + done.stderr)[-6000:]}"
    return done.stdout


def wheel_of(source: Path, out: Path, home: Path) -> Path:
    """A copy of ``source`` built into a wheel under ``out`` (the copy keeps build output out of ``source``)."""
    copy = out / "src" / source.name
    shutil.copytree(source, copy, ignore=NOT_BUILT)
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(out)]
    before = set(out.glob("*.whl"))
    run([*pip, str(copy)], cwd=out, env=clean_env(home))
    (built,) = set(out.glob("*.whl")) - before
    return built


def fresh_venv(path: Path, wheels: list[Path], home: Path) -> Path:
    """A venv with only ``wheels`` installed, reading every other package from this venv's site-packages."""
    run([sys.executable, "-m", "venv", "--without-pip", str(path)], cwd=home, env=clean_env(home))
    python = path / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index"]
    run([*install, *map(str, wheels)], cwd=home, env=clean_env(home))
    site = Path(
        run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], home, clean_env(home)
        ).strip()
    )
    (site / "officegym_test_heavy_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def gold_book(rows: list[dict[str, Any]]) -> ScriptBook:
    """Each row's gold path, one native tool call per answer, keyed by the row's opening."""
    scripts = {}
    for row in rows:
        env: Any = make_env(row)
        gold = env.unwrapped.gold_actions(row["task_id"])
        env.close()
        opening = next(message["content"] for message in row["prompt"] if message["role"] == "user")
        scripts[opening] = [native(action, turn=turn) for turn, action in enumerate(gold)]
    return ScriptBook(scripts)


@pytest.mark.usefixtures("stray_port_files")
def test_vf_eval_finds_the_hub_package_beside_officegym_installed_as_a_wheel(tmp_path: Path) -> None:
    home, wheels = tmp_path / "home", tmp_path / "wheels"
    home.mkdir()
    wheels.mkdir()
    package = ogv.package_id(ENV_ID)
    built = [wheel_of(ROOT, wheels, home), wheel_of(HUB / ogv.package_module(ENV_ID), wheels, home)]
    python = fresh_venv(tmp_path / "venv", built, home)

    where = "import json, officegym, {0}; print(json.dumps([officegym.__file__, {0}.__file__]))"
    found = json.loads(run([str(python), "-c", where.format(ogv.package_module(ENV_ID))], home, clean_env(home)))
    assert all(Path(path).is_relative_to(tmp_path / "venv") for path in found), found

    rows = [row for row in task_rows(ENV_ID, SPLIT, sources=1) if row["task_id"] in TASK_IDS]
    out = home / "out"
    with FakeOpenAIServer(gold_book(rows), api_key=KEY, lifetime=HANG_GUARD) as server:
        command = [
            str(python),
            str(Path(sys.executable).parent / "vf-eval"),
            package,
            "-m",
            "fake-model",
            "--client.base-url",
            server.base_url,
            "--client.api-key-var",
            KEY_VARIABLE,
            "--env.taskset.split",
            SPLIT,
            "--env.taskset.sources",
            "1",
            "--select.include.ids",
            *TASK_IDS,
            "--no-push",
            "--no-rich",
            "-o",
            str(out),
            "--run.name",
            "wheel",
        ]
        run(command, cwd=home, env=clean_env(home, **{KEY_VARIABLE: KEY}))
    lines = (out / "wheel" / "traces.jsonl").read_text().splitlines()
    traces = [trace for line in lines for trace in json.loads(line)["traces"]]
    assert {t["task"]["data"]["task_id"]: t["rewards"]["grade"]["score"] for t in traces} == dict.fromkeys(
        TASK_IDS, 1.0
    )
    assert all(t["ok"] and not t.get("errors") for t in traces)
    assert {(t["info"]["officegym"]["split"], t["info"]["officegym"]["source"]) for t in traces} == {
        (SPLIT, "deals 0-199")
    }
    assert leftover_servers(home) == []
