"""What a model server's 200 reply may get wrong, and what the harness makes of it.

Two kinds of wrong. A reply whose *tool calls* are broken (no ``function`` object, ``function`` not an object,
``arguments`` not a string, no name, ``type`` not ``function``, ``tool_calls`` not a list) was once dropped call
by call, so the turn read as "finish" and the episode scored 0 with no parse error: now every broken call is a
parse error the model reads as an ``Error:`` tool result, and the episode goes on. A reply that is not the
documented shape at all (not JSON, no ``choices``, ``choices`` empty, no ``message``, wrong types) once printed a
traceback per attempt: now it is one warning line per request naming what was wrong, retried, and in the end an
infrastructure error (``has_error``, never scored), like a 5xx.
"""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from officegym.cli import main
from officegym.evaluation.records import read_records
from officegym.policies.chat import InfrastructureError
from officegym.policies.openai_policy import OpenAIPolicy, OpenAISettings
from officegym.wrappers import ChatWrapper

from ..fake_openai_server import Canned, FakeOpenAIServer, oracle_book

ENV_ID = "officegym/InvoiceApproval-v0"
TASK = "single-1"
WHOAMI = {"name": "whoami", "arguments": "{}"}


def reply(message: dict[str, Any]) -> Canned:
    """A 200 chat-completions reply carrying ``message``."""
    return Canned(200, {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]})


def calls(*entries: Any) -> Canned:
    return reply({"role": "assistant", "content": None, "tool_calls": list(entries)})


BROKEN_CALLS: list[tuple[str, Canned]] = [
    ("no function object", calls({"id": "c1", "type": "function"})),
    ("function is null", calls({"id": "c1", "type": "function", "function": None})),
    ("function is a string", calls({"id": "c1", "type": "function", "function": "whoami"})),
    ("function is a list", calls({"id": "c1", "type": "function", "function": [WHOAMI]})),
    ("arguments an object", calls({"id": "c1", "type": "function", "function": {"name": "whoami", "arguments": {}}})),
    ("arguments a number", calls({"id": "c1", "type": "function", "function": {"name": "whoami", "arguments": 3}})),
    ("arguments a list", calls({"id": "c1", "type": "function", "function": {"name": "whoami", "arguments": []}})),
    ("no name", calls({"id": "c1", "type": "function", "function": {"arguments": "{}"}})),
    ("name a number", calls({"id": "c1", "type": "function", "function": {"name": 7, "arguments": "{}"}})),
    ("name empty", calls({"id": "c1", "type": "function", "function": {"name": " ", "arguments": "{}"}})),
    ("type custom", calls({"id": "c1", "type": "custom", "function": WHOAMI})),
    ("type null", calls({"id": "c1", "type": None, "function": WHOAMI})),
    ("call a string", calls("whoami")),
    ("call a number", calls(5)),
    ("call null", calls(None)),
    ("tool_calls an object", reply({"role": "assistant", "content": None, "tool_calls": {"function": WHOAMI}})),
    ("tool_calls a string", reply({"role": "assistant", "content": None, "tool_calls": "whoami"})),
    ("tool_calls a number", reply({"role": "assistant", "content": None, "tool_calls": 1})),
]

MALFORMED_REPLIES: list[tuple[str, Canned, str]] = [  # (case, the 200 reply, what the line must say)
    ("not JSON", Canned(raw=b"<html>busy</html>"), "the reply is not JSON"),
    ("empty body", Canned(raw=b""), "the reply is not JSON"),
    ("cut JSON", Canned(raw=b'{"choices": [{"message": '), "the reply is not JSON"),
    ("JSON list", Canned(raw=b"[1, 2]"), "the reply is not a JSON object but a list"),
    ("JSON null", Canned(raw=b"null"), "the reply is not a JSON object but null"),
    ("JSON number", Canned(raw=b"42"), "the reply is not a JSON object but a number"),
    ("deep JSON", Canned(raw=b"[" * 100_000), "nested too deep"),
    ("no choices", Canned(200, {"id": "x"}), "the reply has no choices"),
    ("choices empty", Canned(200, {"choices": []}), "not a non-empty list"),
    ("choices an object", Canned(200, {"choices": {"message": {}}}), "not a non-empty list"),
    ("choice a string", Canned(200, {"choices": ["hi"]}), "has no message object"),
    ("message missing", Canned(200, {"choices": [{"index": 0}]}), "has no message object"),
    ("message a string", Canned(200, {"choices": [{"message": "hi"}]}), "has no message object"),
    ("content a number", reply({"role": "assistant", "content": 5}), "content is a number, not text"),
    ("content an object", reply({"role": "assistant", "content": {"a": 1}}), "content is an object, not text"),
]


@pytest.fixture()
def chat() -> ChatWrapper:
    wrapper = ChatWrapper(gym.make(ENV_ID, task_ids=[TASK]))
    wrapper.reset(seed=0, options={"task_id": TASK})
    return wrapper


def policy(server: FakeOpenAIServer, **settings: Any) -> OpenAIPolicy:
    options: dict[str, Any] = {"model": "fake-model", "base_url": server.base_url, "backoff": 0.0, **settings}
    return OpenAIPolicy(OpenAISettings(**options), sleep=lambda _: None, rng=random.Random(0))


@pytest.mark.parametrize(("case", "canned"), BROKEN_CALLS, ids=[case for case, _ in BROKEN_CALLS])
def test_a_broken_native_call_is_a_parse_error_the_model_reads(chat: ChatWrapper, case: str, canned: Canned) -> None:
    with FakeOpenAIServer() as server:
        server.fail_next(canned)
        answer = policy(server).respond(chat.messages, chat.tools)
    observation, _, terminated, truncated, info = chat.step(answer.message)
    assert not (terminated or truncated) and chat.stop_reason is None, case  # never silently a finish
    assert info["chat"]["parse_errors"] == 1 and observation.startswith("Error: "), case
    assert [m["role"] for m in info["new_messages"]] == ["assistant", "tool"]
    assert info["new_messages"][1]["content"].startswith("Error: ")
    json.dumps(chat.messages)  # the transcript is still valid to send back
    for call in chat.messages[-2]["tool_calls"]:
        assert isinstance(call["function"]["arguments"], str) and isinstance(call["function"]["name"], str)


def test_broken_calls_beside_good_ones_keep_their_places(chat: ChatWrapper) -> None:
    good = {"id": "c0", "type": "function", "function": WHOAMI}
    with FakeOpenAIServer() as server:
        server.fail_next(calls(good, {"id": "c1", "type": "function"}, good | {"id": "c2"}))
        answer = policy(server).respond(chat.messages, chat.tools)
    _, _, _, _, info = chat.step(answer.message)
    assert info["chat"]["parse_errors"] == 1 and info["chat"]["tool_calls"] == 3
    results = [m["content"] for m in info["new_messages"] if m["role"] == "tool"]
    assert [r.startswith("Error: ") for r in results] == [False, True, False]
    assert [m["tool_call_id"] for m in info["new_messages"][1:]] == ["c0", "c1", "c2"]


@pytest.mark.parametrize(("case", "canned", "said"), MALFORMED_REPLIES, ids=[c for c, _, _ in MALFORMED_REPLIES])
def test_a_malformed_reply_is_retried_with_one_line_then_an_infrastructure_error(
    chat: ChatWrapper, caplog: pytest.LogCaptureFixture, case: str, canned: Canned, said: str
) -> None:
    with FakeOpenAIServer() as server:
        server.fail_next(canned, canned)
        with caplog.at_level(logging.WARNING), pytest.raises(InfrastructureError) as failed:
            policy(server, max_retries=1).respond(chat.messages, chat.tools)
    assert not failed.value.fatal and "gave up after 2 request(s): malformed reply: " in str(failed.value)
    assert said in str(failed.value) and len(str(failed.value)) <= 500
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and all(
        said in line and "\n" not in line and r.exc_info is None for line, r in zip(lines, caplog.records, strict=True)
    )


def test_a_malformed_reply_then_a_good_one_costs_a_retry_only(chat: ChatWrapper) -> None:
    with FakeOpenAIServer(oracle_book(ENV_ID, [TASK])) as server:
        server.fail_next(Canned(raw=b"not json"))
        answer = policy(server).respond(chat.messages, chat.tools)
    assert answer.retries == 1 and answer.requests == 2 and answer.message["tool_calls"]


def test_the_responses_api_reads_broken_calls_and_bad_bodies_the_same_way(chat: ChatWrapper) -> None:
    broken = Canned(200, {"status": "completed", "output": [{"type": "function_call", "call_id": "f1"}]})
    with FakeOpenAIServer() as server:
        server.fail_next(broken, Canned(200, {"output": "nope"}), Canned(raw=b"[]"))
        agent = policy(server, api="responses", max_retries=1)
        answer = agent.respond(chat.messages, chat.tools)
        with pytest.raises(InfrastructureError, match="not a JSON object but a list") as failed:
            agent.respond(chat.messages, chat.tools)
    assert server.paths() == ["/v1/responses"] * 3 and "failed" not in str(failed.value)
    _, _, terminated, _, info = chat.step(answer.message)
    assert not terminated and info["chat"]["parse_errors"] == 1


def test_eval_records_a_malformed_server_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(oracle_book(ENV_ID, [TASK])) as server:
        server.fail_next(*[Canned(200, {"choices": []})] * 4)
        argv = ["eval", ENV_ID, "-m", "fake-model", "-b", server.base_url, "--task-ids", TASK, "-q"]
        argv += ["-o", str(tmp_path / "r.jsonl"), "--backoff", "0", "--max-retries", "1", "--episode-retries", "1"]
        assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "1 episode(s) failed on infrastructure" in err
    (record,) = read_records(tmp_path / "r.jsonl")[0]
    assert record["has_error"] and "the reply has choices [], not a non-empty list" in record["error"]


def test_an_eval_with_a_broken_call_counts_it_and_still_scores_the_work(tmp_path: Path) -> None:
    """The finding end to end: a call without a ``function`` object, then the gold path. Once the episode
    ended there as a finish scoring 0; now it is one parse error and full marks."""
    book = oracle_book(ENV_ID, [TASK])
    broken = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]}
    book.scripts = {opening: [broken, *script] for opening, script in book.scripts.items()}
    with FakeOpenAIServer(book) as server:
        argv = ["eval", ENV_ID, "-m", "fake-model", "-b", server.base_url, "--task-ids", TASK, "-q"]
        assert main([*argv, "-o", str(tmp_path / "r.jsonl")]) == 0
    (record,) = read_records(tmp_path / "r.jsonl")[0]
    assert record["reward"] == 1.0 and record["turns"] > 1
    assert record["chat"]["parse_errors"] == 1 and record["chat"]["parse_error_kinds"] == {"not_an_object": 1}
    assert record["grade"]["invalid_calls"] == 1
