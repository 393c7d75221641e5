"""The MCP tool surface: OpenEnv's own ``MCPToolClient`` lists every tool of every env (made from the env's
schemas) and plays gold paths to reward 1.0; a refused call is the env's own ``Error: ...`` text, never an
exception; ``/mcp`` answers MCP JSON-RPC, statelessly and inside a ``/ws`` session.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from benchmarks.openenv_load import Job, local_replay
from officegym.envs.core.actions import FINISH_SCHEMA

from .conftest import ENV_IDS, HANG_GUARD, gold_path, one_task_per_tier

# OpenEnv 0.3 reads FastMCP 4's renamed Tool.inputSchema (openenv_types filters it; pytest resets filters per test)
pytestmark = pytest.mark.filterwarnings("ignore:Accessing `Tool.inputSchema` is deprecated")
CASES = [(env_id, task_id) for env_id in ENV_IDS for task_id in one_task_per_tier(env_id)[:3]]


def env_tools(env_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(name, description, input schema) of every tool the env offers an LLM, then ``finish``."""
    env = gym.make(env_id)
    schemas = [*env.unwrapped.tool_schemas, FINISH_SCHEMA]  # type: ignore[attr-defined]
    env.close()
    return [(s["function"]["name"], s["function"]["description"], s["function"]["parameters"]) for s in schemas]


def local_texts(env_id: str, task_id: str, calls: list[dict[str, Any]]) -> list[str]:
    """What a local env answers to ``calls`` (a reset on ``task_id`` first)."""
    return [record["text"] for record in local_replay(Job(env_id, task_id, 0, tuple(calls)))[1:]]


def mcp_post(url: str, method: str, params: dict[str, Any] | None = None) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    request = urllib.request.Request(f"{url}/mcp", json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
        return json.loads(response.read())


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_mcp_tool_client_lists_every_tool_with_the_envs_description_and_schema(
    urls: dict[str, str], env_id: str
) -> None:
    from openenv.core.mcp_client import MCPToolClient

    with MCPToolClient(base_url=urls[env_id], message_timeout_s=HANG_GUARD).sync() as client:
        tools = client.list_tools()
    assert [(tool.name, tool.description, tool.input_schema) for tool in tools] == env_tools(env_id)


@pytest.mark.parametrize(("env_id", "task_id"), CASES)
def test_the_mcp_tool_client_plays_a_gold_path_to_full_marks(urls: dict[str, str], env_id: str, task_id: str) -> None:
    from openenv.core.env_server.mcp_types import CallToolAction
    from openenv.core.mcp_client import MCPToolClient

    job = Job(env_id, task_id, 0, tuple(gold_path(env_id, task_id)))
    expected = local_replay(job)[1:]
    results = []
    with MCPToolClient(base_url=urls[env_id], message_timeout_s=HANG_GUARD).sync() as client:
        client.reset(task_id=task_id, seed=0)
        for call in job.actions:
            results.append(client.step(CallToolAction(tool_name=call["name"], arguments=call["arguments"])))
            if results[-1].done:
                break
    assert [result.observation.result["data"] for result in results] == [record["text"] for record in expected]
    assert [result.reward for result in results] == [record["reward"] for record in expected]
    assert results[-1].done is True and results[-1].reward == 1.0
    assert all(result.observation.error is None for result in results)


def test_call_tool_answers_the_envs_text_and_a_refused_call_is_its_error_text(urls: dict[str, str]) -> None:
    """``MCPToolClient.call_tool`` returns what a local env observes, word for word: bad calls too (an unknown
    tool, an unknown or huge argument), as text the agent reads, and the episode goes on to full marks."""
    from openenv.core.mcp_client import MCPToolClient

    env_id = ENV_IDS[0]
    task_id = one_task_per_tier(env_id)[0]
    path = gold_path(env_id, task_id)
    tool = path[0]["name"]
    bad = [{"name": "no_such_tool", "arguments": {"x": 1}}, {"name": tool, "arguments": {"zzz": 1}}]
    bad.append({"name": tool, "arguments": {"a": 10**200}})
    calls = [*bad, *path]
    expected = local_texts(env_id, task_id, calls)
    with MCPToolClient(base_url=urls[env_id], message_timeout_s=HANG_GUARD).sync() as client:
        client.reset(task_id=task_id)
        texts = [client.call_tool(call["name"], **call["arguments"]) for call in calls[: len(expected)]]
        steps = client.state().step_count
    assert texts == expected
    assert all(text.startswith("Error: ") for text in texts[: len(bad)])
    assert steps == len(expected)


def test_malformed_call_tool_actions_are_judged_by_the_env(urls: dict[str, str]) -> None:
    """A ``call_tool`` that is not a valid ``CallToolAction`` (a number for a name, arguments that are not an
    object, an extra key) reaches the env as the call it stands for, and its answer is the env's."""
    from openenv.core.generic_client import GenericEnvClient

    env_id = ENV_IDS[0]
    task_id = one_task_per_tier(env_id)[0]
    tool = gold_path(env_id, task_id)[0]["name"]
    payloads = [
        {"type": "call_tool", "tool_name": 5, "arguments": {}},
        {"type": "call_tool", "tool_name": tool, "arguments": "not json"},
        {"type": "call_tool", "tool_name": tool, "arguments": {}, "extra": 1},
        {"type": "call_tool", "arguments": {}},
    ]
    calls = [{"name": 5, "arguments": {}}, {"name": tool, "arguments": "not json"}]
    calls += [{"name": tool, "arguments": {}, "extra": 1}, {"arguments": {}}]
    with GenericEnvClient(base_url=urls[env_id], message_timeout_s=HANG_GUARD).sync() as client:
        client.reset(task_id=task_id)
        answers = [client.step(payload).observation for payload in payloads]
    assert [answer["text"] for answer in answers] == local_texts(env_id, task_id, calls)
    assert all(answer["text"].startswith("Error: ") and answer["info"]["is_error"] for answer in answers)
    assert all(answer["result"]["data"] == answer["text"] and answer["error"] is None for answer in answers)


def test_officegyms_tool_client_keeps_the_work_order_and_the_grade(urls: dict[str, str]) -> None:
    """OpenEnv's ``MCPToolClient`` keeps only ``done`` and ``reward`` of a reset; ``OfficeGymToolClient`` keeps
    the opening and the info, and the grade of the last tool call."""
    from openenv.core.env_server.mcp_types import CallToolAction

    from officegym.integrations.openenv import OfficeGymObservation, OfficeGymToolClient, OfficeGymToolObservation

    env_id = ENV_IDS[-1]
    task_id = one_task_per_tier(env_id)[0]
    expected = local_replay(Job(env_id, task_id, 0, tuple(gold_path(env_id, task_id))))
    with OfficeGymToolClient(base_url=urls[env_id], message_timeout_s=HANG_GUARD).sync() as client:
        opening = client.reset(task_id=task_id, seed=0).observation
        assert [tool.name for tool in client.list_tools()][-1] == "finish"
        for call in gold_path(env_id, task_id):
            result = client.step(CallToolAction(tool_name=call["name"], arguments=call["arguments"]))
            if result.done:
                break
    assert isinstance(opening, OfficeGymObservation) and opening.text == expected[0]["text"]
    assert opening.info["task_id"] == task_id and opening.info["system_prompt"]
    assert isinstance(result.observation, OfficeGymToolObservation)
    assert result.observation.grade == expected[-1]["grade"] and result.observation.grade["reward"] == 1.0


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_http_mcp_answers_tools_list_and_tools_call(urls: dict[str, str], env_id: str) -> None:
    """``POST /mcp`` is stateless (a fresh env per request, as OpenEnv defines it): it lists the tools, and a
    tool call there has no episode to act on, which the env says as a tool result."""
    listed = mcp_post(urls[env_id], "tools/list")["result"]["tools"]
    assert [(tool["name"], tool["description"], tool["input_schema"]) for tool in listed] == env_tools(env_id)
    called = mcp_post(urls[env_id], "tools/call", {"name": listed[0]["name"], "arguments": {}})["result"]
    assert called["data"].startswith("Error: no episode has started") and called["is_error"] is False
    assert called["meta"]["officegym"]["info"]["is_error"] is True
    assert mcp_post(urls[env_id], "no/such/method")["error"]["code"] == -32601


def test_mcp_messages_inside_a_websocket_session_play_its_episode(urls: dict[str, str]) -> None:
    """OpenEnv's ``/ws`` also carries MCP JSON-RPC (``{"type": "mcp"}``): after a reset on the same socket, the
    tools act on the session's episode, and the last call's meta carries the grade."""
    from websockets.sync.client import connect

    env_id = ENV_IDS[1]
    task_id = one_task_per_tier(env_id)[-1]
    path = gold_path(env_id, task_id)
    expected = local_replay(Job(env_id, task_id, 0, tuple(path)))[1:]
    answers = []
    with connect(urls[env_id].replace("http://", "ws://") + "/ws", open_timeout=HANG_GUARD) as ws:
        ws.send(json.dumps({"type": "reset", "data": {"task_id": task_id}}))
        assert json.loads(ws.recv(timeout=HANG_GUARD))["type"] == "observation"
        for index, call in enumerate(path[: len(expected)]):
            params = {"name": call["name"], "arguments": call["arguments"]}
            rpc = {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": params}
            ws.send(json.dumps({"type": "mcp", "data": rpc}))
            answers.append(json.loads(ws.recv(timeout=HANG_GUARD))["data"]["result"])
    assert [answer["data"] for answer in answers] == [record["text"] for record in expected]
    assert answers[-1]["meta"]["officegym"]["grade"] == expected[-1]["grade"]
    assert answers[-1]["meta"]["officegym"]["reward"] == 1.0
