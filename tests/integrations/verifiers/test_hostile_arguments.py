"""Tool arguments no env step can carry, through the verifiers bridge: the env's ``Error:``, and the rollout goes on.

A tool call whose arguments hold a 5,000-digit number, nesting 5,000 deep or a lone surrogate once raised in the
harness (``json.loads`` refuses the number, the nesting exhausts the stack, the surrogate cannot be encoded for
MCP) and ended the rollout with ``HarnessError``, reward 0 and no grade. Each is now answered as the env answers
it, on both sides of MCP: by the harness before the call leaves (``run_tool_call``) and by the tool server if
one arrives anyway (``play_call``); the rollout plays on to its grade.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed: pip install 'officegym[verifiers]'")

from officegym.integrations import verifiers as ogv
from officegym.integrations import verifiers_toolset as server

from .conftest import Rollout, gold, run

ENV_ID, TASK = "officegym/InvoiceApproval-v0", "single-1"
DIGITS = "9" * 5000
DEEP = "[" * 5000 + "]" * 5000

HOSTILE_TEXTS: list[tuple[str, str, str]] = [  # (case, the arguments as the model wrote them, the env's words)
    ("5,000 digits", '{"invoice_id": ' + DIGITS + "}", "more than 100 digits"),
    ("5,000 deep", '{"invoice_id": ' + DEEP + "}", "nested more than 64 levels deep"),
    ("lone surrogate", '{"invoice_id": "\\ud800"}', "not valid Unicode"),
    ("surrogate key", '{"\\udfff": 1}', "not valid Unicode"),
    ("200 digits", '{"invoice_id": ' + "7" * 200 + "}", "more than 100 digits"),
    ("70 deep", '{"invoice_id": ' + "[" * 70 + "]" * 70 + "}", "nested more than 64 levels deep"),
]


def call(arguments: str, name: str = "get_invoice") -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}


async def never(name: str, arguments: Any) -> Any:
    raise AssertionError("a call the env refuses must not travel to the tool server")


@pytest.mark.parametrize(("case", "text", "said"), HOSTILE_TEXTS, ids=[c for c, _, _ in HOSTILE_TEXTS])
def test_the_harness_answers_what_the_env_refuses_before_it_leaves(case: str, text: str, said: str) -> None:
    answer = run(ogv.run_tool_call(call(text), never))
    assert answer.startswith("Error: ") and said in answer, case
    answer.encode("utf-8")  # the answer itself can be sent back to the model


@pytest.mark.parametrize("name", ["get_\ud800", "\udfff"])
def test_a_tool_name_that_is_not_unicode_is_refused_too(name: str) -> None:
    assert "not valid Unicode" in run(ogv.run_tool_call(call("{}", name), never))


@pytest.mark.parametrize(
    ("case", "arguments"),
    [
        ("huge int", {"invoice_id": int("8" * 4000)}),
        ("deep list", {"invoice_id": json.loads("[" * 900 + "]" * 900)}),
        ("surrogate value", {"invoice_id": "\ud800"}),
        ("surrogate key", {"\udfff": "x"}),
    ],
)
def test_the_tool_server_answers_them_too_and_records_nothing(case: str, arguments: dict[str, Any]) -> None:
    rollout = Rollout(next(iter(ogv.taskset(ENV_ID).include(ids=[TASK]))))
    text, is_error = server.play_call(rollout.toolset.sessions, rollout.state, "get_invoice", arguments)
    assert is_error and text.startswith("Error: the action "), case
    assert rollout.state.actions == [] and rollout.state.digests == []
    json.dumps(rollout.state.model_dump(mode="json"))  # the state still syncs


class _Message:
    def __init__(self, message: dict[str, Any]) -> None:
        self.message = message

    def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
        return dict(self.message)


class _Completion:
    def __init__(self, message: dict[str, Any]) -> None:
        self.choices = [type("Choice", (), {"message": _Message(message)})()]


class ScriptedClient:
    """Stands in for the model behind verifiers' interception: answers each request with the next message."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.script = list(messages)
        self.chat = type("Chat", (), {"completions": self})()

    async def create(self, **_: Any) -> _Completion:
        return _Completion(self.script.pop(0) if self.script else {"role": "assistant", "content": "Done."})


def test_a_rollout_with_hostile_calls_plays_on_and_is_graded() -> None:
    rollout = Rollout(next(iter(ogv.taskset(ENV_ID).include(ids=[TASK]))))
    hostile = {"role": "assistant", "content": None, "tool_calls": [call(text) for _, text, _ in HOSTILE_TEXTS]}
    path = gold(ENV_ID, TASK)
    good = [
        {"role": "assistant", "content": None, "tool_calls": [call(json.dumps(a["arguments"]), a["name"])]}
        for a in path
    ]
    messages: list[dict[str, Any]] = [{"role": "user", "content": rollout.task.data.prompt_text}]

    async def call_tool(name: str, arguments: Any) -> Any:
        async def work(client: Any) -> Any:
            result = await client.call_tool(name, arguments)
            return result.content[0].text

        return await rollout._client(work)

    run(ogv.chat(ScriptedClient([hostile, *good]), "m", rollout.trace, messages, [], call_tool))
    answers = [m["content"] for m in messages if m.get("role") == "tool"]
    assert all(a.startswith("Error: ") for a in answers[: len(HOSTILE_TEXTS)])
    trace = rollout.score()
    assert trace.rewards["grade"].score == 1.0 and trace.info["officegym"]["grade"]["reward"] == 1.0
    assert len(rollout.state.actions) == len(path)  # the refused calls never reached the env
