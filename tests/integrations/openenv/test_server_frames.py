"""Issue 27, the server: a frame of JSON ``null``, a bare number, JSON nested 100,000 deep or any binary frame
used to end the session and its episode (OpenEnv's handler). Each now gets an error reply, and the next valid
step continues the same episode, to the same observations a local env gives."""

from __future__ import annotations

import json
from collections.abc import Iterator

import gymnasium as gym
import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from officegym.integrations.server_limits import ServerLimits

from .conftest import gold_path, one_task_per_tier
from .server_clients import ask, raw_ws, reset, step, text_of

ENV_ID = "officegym/InvoiceApproval-v0"
LIMITS = ServerLimits(max_body_bytes=1024 * 1024, client_bytes_per_s=8 * 1024 * 1024)
"""The deepest frames here are 600 KB (JSON nested 100,000 deep, the issue's case): the server takes messages
of up to 1 MiB (the default is 64 KiB), with a byte budget to match, so that they reach the frame guard."""
BAD_FRAMES = [
    pytest.param("null", id="null"),
    pytest.param("5", id="number"),
    pytest.param('"text"', id="string"),
    pytest.param("[1, 2]", id="array"),
    pytest.param("[" * 100_000 + "]" * 100_000, id="nested-100000"),
    pytest.param('{"a":' * 100_000 + "1" + "}" * 100_000, id="nested-objects-100000"),
    pytest.param(b'{"type": "step", "data": {}}', id="binary-json"),
    pytest.param(b"\x00\xff" * 10, id="binary"),
    pytest.param(
        '{"type": "step", "data": {"name": "finish", "arguments": {"n": ' + "9" * 5000 + "}}}", id="digits-5000"
    ),
]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    from officegym.integrations.openenv_server import running_server

    with running_server(ENV_ID, limits=LIMITS) as base:
        yield base


def local_texts(task_id: str, calls: list[dict[str, object]]) -> list[str]:
    env = gym.make(ENV_ID)
    texts = [env.reset(seed=0, options={"task_id": task_id})[0]]
    texts += [env.step(call)[0] for call in calls]
    env.close()
    return texts


@pytest.mark.parametrize("frame", BAD_FRAMES)
def test_a_bad_frame_gets_an_error_and_the_episode_goes_on(url: str, frame: str | bytes) -> None:
    task_id = one_task_per_tier(ENV_ID)[0]
    gold = gold_path(ENV_ID, task_id)
    with raw_ws(url) as ws:
        texts = [text_of(reset(ws, task_id))]
        texts.append(text_of(step(ws, gold[0])))
        error = ask(ws, frame)
        assert error["type"] == "error" and error["data"]["message"].startswith("Error: "), error
        assert len(json.dumps(error)) < 1000  # the reply names the problem, it does not echo the frame
        replies = [step(ws, call) for call in gold[1:]]
    texts += [text_of(reply) for reply in replies]
    assert texts == local_texts(task_id, gold[: len(texts) - 1])
    assert replies[-1]["data"]["done"] is True and replies[-1]["data"]["reward"] == 1.0


@pytest.mark.parametrize("frame", BAD_FRAMES)
def test_a_bad_frame_on_the_mcp_websocket_gets_a_json_rpc_error_and_the_session_goes_on(
    url: str, frame: str | bytes
) -> None:
    with raw_ws(url, "/mcp") as ws:
        before = ask(ws, {"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": 1})
        error = ask(ws, frame)
        after = ask(ws, {"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": 2})
    assert error["error"]["message"].startswith("Error: ") and error["id"] is None
    assert after["result"] == before["result"] and after["id"] == 2


def test_a_frame_openenv_already_answered_still_gets_its_answer(url: str) -> None:
    """Invalid JSON and an unknown message type were never fatal: OpenEnv's own replies are kept."""
    with raw_ws(url) as ws:
        assert ask(ws, "{not json")["data"]["code"] == "INVALID_JSON"
        assert ask(ws, {"type": "dance"})["data"]["code"] == "UNKNOWN_TYPE"
        assert text_of(reset(ws, one_task_per_tier(ENV_ID)[0]))
