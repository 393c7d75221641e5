"""Issue 27, the server: ``POST /reset`` with an unknown ``task_id``, an unknown field or a 20 MB ``task_id``
answered 500 and wrote the whole value into the log. Every bad request now gets a 4xx with a short message
(a client's value is clipped to 80 characters), and nothing it sent reaches the log unclipped; a body over
``--max-body-bytes`` is refused (413) before it is parsed."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from officegym.integrations.server_limits import ServerLimits

from .conftest import one_task_per_tier
from .server_clients import http, mcp

ENV_ID = "officegym/VendorReview-v0"
LIMIT = 64 * 1024
LONG = "T" * 5000


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    from officegym.integrations.openenv_server import running_server

    with running_server(ENV_ID, limits=ServerLimits(max_body_bytes=LIMIT)) as base:
        yield base


@pytest.mark.parametrize(
    ("body", "status", "names"),
    [
        ({"task_id": "no-such-task"}, 400, "unknown task_id 'no-such-task'"),
        ({"task_id": LONG}, 400, "unknown task_id"),
        ({"tsk_id": "x"}, 400, "unknown reset parameter(s): tsk_id"),
        ({LONG: 1}, 400, "unknown reset parameter(s): TTT"),
        ({"seed": -1}, 422, "greater than or equal to 0"),
        ({"task_id": 5}, 400, "task_id must be a string"),
        ({"env_id": LONG}, 400, "this server serves officegym/VendorReview-v0"),
        ({"env_kwargs": {"tier": LONG}}, 400, "tier"),
    ],
)
def test_a_bad_reset_is_a_4xx_with_a_short_message(
    url: str, body: dict[str, object], status: int, names: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG), http(url) as client:
        answer = client.post("/reset", json=body)
    assert answer.status_code == status, answer.text
    detail = answer.json()["detail"]
    if status == 422:  # OpenEnv's own model refused it: pydantic's errors, without the input
        assert names in detail[0]["msg"] and "input" not in detail[0], detail
    else:
        assert detail.startswith("Error: ") and names in detail and len(detail) <= 500, detail
    assert all(len(record.getMessage()) < 1000 for record in caplog.records)


def test_a_bad_step_body_is_a_422_without_the_value(url: str) -> None:
    with http(url) as client:
        answer = client.post("/step", json={"action": LONG})
    assert answer.status_code == 422
    assert LONG[:200] not in answer.text and len(answer.text) < 2000


@pytest.mark.parametrize("path", ["/reset", "/step", "/mcp"])
def test_a_body_over_the_limit_is_413_before_it_is_parsed(url: str, path: str) -> None:
    body = b'{"task_id": "' + b"x" * LIMIT + b'"}'
    with http(url) as client:
        declared = client.post(path, content=body, headers={"content-type": "application/json"})
        chunked = client.post(path, content=iter([body[:1000], body[1000:]]))
    for answer in (declared, chunked):
        assert answer.status_code == 413, answer.text
        assert "--max-body-bytes" in answer.json()["detail"] and len(answer.text) < 500


def test_a_good_request_after_bad_ones_is_served(url: str) -> None:
    task_id = one_task_per_tier(ENV_ID)[0]
    with http(url) as client:
        assert client.post("/reset", json={"task_id": "nope"}).status_code == 400
        answer = client.post("/reset", json={"task_id": task_id, "seed": 0})
        tools = mcp(client, "tools/list")
    assert answer.status_code == 200 and answer.json()["observation"]["text"]
    assert tools["result"]["tools"][-1]["name"] == "finish"
