"""``vf-eval`` on officegym envs against a loopback OpenAI-compatible server that plays each task's gold path.

This is the whole path a user runs: ``python -m officegym.integrations.verifiers ENV_ID ...`` (vf-eval's own
``main`` with the taskset made importable) in a subprocess; verifiers starts its interception server, the
eval's MCP tool server process and the harness; every model call goes through the interception to the fake
server (``tests/fake_openai_server.py``: one gold tool call per answer, keyed by the task's opening, and the
API key checked), every tool call over MCP's HTTP to the rollout's own env. The rewards are read from the run's
``traces.jsonl``.

Both envs run at once (two evals, two rollouts each), bounded by a timeout; afterwards no tool server may be
left running. verifiers 0.4.0 leaves one port file per tool server in ``/tmp`` (``vf-port-*``); the test
removes the ones created while it ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed: pip install 'officegym[verifiers]'")

import officegym  # noqa: F401  (registers the env ids the fake server's scripts are made from)

from ...fake_openai_server import FakeOpenAIServer, oracle_book

TASKS = {
    "officegym/InvoiceApproval-v0": ["single-1", "batch-3"],
    "officegym/VendorReview-v0": ["vr-easy-01", "vr-hard-01"],
}
KEY_VARIABLE, KEY = "OFFICEGYM_TEST_MODEL_KEY", "test-key-123"
TIMEOUT = 900.0  # a guard against a hang, not a speed check: a busy 2-core CI machine once took over 55 s
SERVER_MODULE = "officegym.integrations.verifiers_toolset"


def vf_eval(env_id: str, base_url: str, out: Path, home: Path) -> subprocess.Popen[str]:
    """Start the eval: gold tasks only, no upload, no dashboard, results under ``out``, verifiers' runtime
    directories under ``home``."""
    command = [
        sys.executable,
        "-m",
        "officegym.integrations.verifiers",
        env_id,
        "-m",
        "fake-model",
        "--client.base-url",
        base_url,
        "--client.api-key-var",
        KEY_VARIABLE,
        "--select.include.ids",
        *TASKS[env_id],
        "--no-push",
        "--no-rich",
        "-o",
        str(out),
        "--run.name",
        "gold",
    ]
    env = {**os.environ, KEY_VARIABLE: KEY, "HOME": str(home)}
    return subprocess.Popen(command, cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def traces(out: Path) -> list[dict[str, Any]]:
    lines = (out / "gold" / "traces.jsonl").read_text().splitlines()
    return [trace for line in lines for trace in json.loads(line)["traces"]]


def leftover_servers(home: Path) -> list[int]:
    """Tool server processes still alive whose working directory is under ``home`` (this test's runtimes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if SERVER_MODULE in command and cwd.startswith(str(home)):
            found.append(int(entry.name))
    return found


def port_files() -> set[Path]:
    return set(Path("/tmp").glob("vf-port-*"))


@pytest.fixture()
def stray_port_files() -> Any:
    before = port_files()
    yield
    for path in port_files() - before:
        path.unlink(missing_ok=True)


@pytest.mark.usefixtures("stray_port_files")
def test_vf_eval_scores_the_gold_paths_full_marks(tmp_path: Path) -> None:
    runs: dict[str, tuple[FakeOpenAIServer, subprocess.Popen[str], Path]] = {}
    outputs: dict[str, tuple[str, str]] = {}
    with ExitStack() as stack:
        for k, (env_id, task_ids) in enumerate(TASKS.items()):
            server = stack.enter_context(FakeOpenAIServer(oracle_book(env_id, task_ids), api_key=KEY, lifetime=90))
            home = tmp_path / f"run{k}"
            home.mkdir()
            runs[env_id] = (server, vf_eval(env_id, server.base_url, home / "out", home), home)
        deadline = time.monotonic() + TIMEOUT
        for env_id, (_, process, _) in runs.items():
            try:
                outputs[env_id] = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
            finally:
                if process.poll() is None:
                    process.kill()
                    process.communicate()
    for env_id, (server, process, home) in runs.items():
        assert process.returncode == 0, outputs[env_id][1][-4000:]
        check_run(env_id, server, home)
        assert leftover_servers(home) == []


def check_run(env_id: str, server: FakeOpenAIServer, home: Path) -> None:
    """Every task scored 1.0 by its grade; the model saw the env's tools; the key reached the endpoint."""
    found = traces(home / "out")
    rewards = {t["task"]["data"]["task_id"]: t["rewards"]["grade"]["score"] for t in found}
    assert rewards == dict.fromkeys(TASKS[env_id], 1.0)
    assert all(t["ok"] and not t.get("errors") for t in found)
    assert all(t["info"]["officegym"]["grade"]["reward"] == 1.0 for t in found)
    tool_env: Any = gym.make(env_id).unwrapped
    offered = {tool["function"]["name"] for tool in server.seen[0].body["tools"]}
    assert offered == {schema["function"]["name"] for schema in tool_env.tool_schemas}
    assert {seen.authorization for seen in server.seen} == {f"Bearer {KEY}"}
    gold_steps = sum(len(tool_env.gold_actions(task_id)) for task_id in TASKS[env_id])
    assert len(server.seen) <= gold_steps + len(TASKS[env_id])  # one request per gold call, at most one more
