"""``vf-eval`` on officegym envs against a loopback OpenAI-compatible server that plays each task's gold path.

This is the whole path a user runs without a Hub package: ``python -m officegym.integrations.verifiers ENV_ID``
(vf-eval's own ``main`` on the taskset id ``verifiers-officegym``, made importable first) in a subprocess;
verifiers starts its interception server, the eval's MCP tool server process and the harness; every model call
goes through the interception to the fake server (``tests/fake_openai_server.py``: one gold tool call per
answer, keyed by the task's opening, and the API key checked), every tool call over MCP's HTTP to the
rollout's own episode. The rewards are read from the run's ``traces.jsonl``.

Both envs run at once (two evals, two rollouts each), bounded by the hang guard; afterwards no tool server may
be left running. The installed-wheel path with a Hub package id is ``test_verifiers_wheel.py``.
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
from .conftest import HANG_GUARD, leftover_servers

TASKS = {
    "officegym/InvoiceApproval-v0": ["single-1", "batch-3"],
    "officegym/VendorReview-v0": ["vr-easy-01", "vr-hard-01"],
}
KEY_VARIABLE, KEY = "OFFICEGYM_TEST_MODEL_KEY", "test-key-123"


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


@pytest.mark.usefixtures("stray_port_files")
def test_vf_eval_scores_the_gold_paths_full_marks(tmp_path: Path) -> None:
    runs: dict[str, tuple[FakeOpenAIServer, subprocess.Popen[str], Path]] = {}
    outputs: dict[str, tuple[str, str]] = {}
    with ExitStack() as stack:
        for k, (env_id, task_ids) in enumerate(TASKS.items()):
            book = oracle_book(env_id, task_ids)
            server = stack.enter_context(FakeOpenAIServer(book, api_key=KEY, lifetime=HANG_GUARD))
            home = tmp_path / f"run{k}"
            home.mkdir()
            runs[env_id] = (server, vf_eval(env_id, server.base_url, home / "out", home), home)
        deadline = time.monotonic() + HANG_GUARD
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
