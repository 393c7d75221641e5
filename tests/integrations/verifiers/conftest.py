"""Shared by the verifiers tests: an in-process rollout over real MCP, the Hub packages, subprocess hygiene.

``Rollout`` drives the real ``OfficeGymToolset`` registered on a real ``MCPServer`` through MCP's in-memory
client, so the tool catalogue and the results are what a model sees over HTTP. verifiers' state channel is
replaced by the rollout's trace (``_pull_state`` hands the server the trace's state object, opened by the
task's own ``setup``), which the toolset fills exactly as it fills a rollout's state. The subprocess tests
(``vf-eval``, ``vf-validate``) share the hang guard, the check that no tool server outlives its eval, and the
clean-up of the port files verifiers 0.4.0 leaves in ``/tmp``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed: pip install 'officegym[verifiers]'")

import verifiers.v1 as vf
from mcp import Client
from mcp.server.mcpserver import MCPServer

from officegym.integrations import verifiers as ogv

HANG_GUARD = 900.0
"""Seconds a subprocess may run: a guard against a hang, not a speed check (a busy 2-core CI machine once took
over 55 s for a two-task eval)."""
ROOT = Path(__file__).resolve().parents[3]
HUB = ROOT / "integrations" / "hub"
SERVER_MODULE = "officegym.integrations.verifiers_toolset"


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def gold(env_id: str, task_id: str, env_kwargs: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    env: Any = gym.make(env_id, **(env_kwargs or {})).unwrapped
    return list(env.gold_actions(task_id))


class Rollout:
    """One rollout of a task: its trace (whose state the task's ``setup`` opens), the eval's tool server reached
    over in-memory MCP, and the task's scoring. Several rollouts may share one tool server, as in an eval."""

    def __init__(self, task: Any, toolset: Any = None) -> None:
        self.task = task
        self.toolset = toolset if toolset is not None else ogv.OfficeGymToolset(vf.SharedToolsetConfig())
        self.trace = vf.Trace(
            task=vf.TraceTask(type="OfficeGymTask", data=task.data, key=task.key, hash=task.hash),
            agent=vf.AgentInfo(config=vf.AgentConfig()),
            state=ogv.OfficeGymState(),
        )
        run(task.setup(self.trace, None))

    @property
    def state(self) -> Any:
        return self.trace.state

    async def _client(self, work: Any) -> Any:
        async def pull() -> Any:
            return self.trace.state

        self.toolset._pull_state = pull  # this rollout's state stands in for verifiers' state channel
        mcp = MCPServer("officegym-test")
        self.toolset.register(mcp)
        async with Client(mcp) as client:
            return await work(client)

    def play(self, actions: list[dict[str, Any]]) -> list[Any]:
        async def work(client: Any) -> list[Any]:
            return [await client.call_tool(action["name"], action["arguments"]) for action in actions]

        return list(run(self._client(work)))

    def tools(self) -> list[Any]:
        async def work(client: Any) -> list[Any]:
            return list((await client.list_tools()).tools)

        return list(run(self._client(work)))

    def score(self) -> Any:
        run(self.task.score(self.trace))
        return self.trace


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
def stray_port_files() -> Iterator[None]:
    """verifiers 0.4.0 leaves one port file per tool server in ``/tmp``: remove those made while a test ran."""
    before = port_files()
    yield
    for path in port_files() - before:
        path.unlink(missing_ok=True)
