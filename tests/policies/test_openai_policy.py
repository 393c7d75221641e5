"""OpenAIPolicy through the real ``openai`` client against the loopback server: requests, keys, retries,
timeouts, fatal errors, context overflow, and the Responses API."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

from officegym.policies.chat import ContextLengthExceeded, InfrastructureError
from officegym.policies.openai_policy import PLACEHOLDER_KEY, OpenAIPolicy, OpenAISettings, read_api_key
from officegym.wrappers import ChatWrapper

from ..fake_openai_server import FakeOpenAIServer, ScriptBook, error, native, oracle_book, slow, text

ENV_ID = "officegym/InvoiceApproval-v0"
TASK = "single-1"
SECRET = "sk-test-0123456789-never-written"


@pytest.fixture(scope="module")
def book() -> ScriptBook:
    return oracle_book(ENV_ID, [TASK])


@pytest.fixture()
def server(book: ScriptBook) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(book, lifetime=60) as running:
        yield running


@pytest.fixture()
def chat() -> ChatWrapper:
    wrapper = ChatWrapper(gym.make(ENV_ID, task_ids=[TASK]))
    wrapper.reset(seed=0, options={"task_id": TASK})
    return wrapper


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def policy(server: FakeOpenAIServer, sleeps: Sleeps | None = None, **settings: Any) -> OpenAIPolicy:
    options: dict[str, Any] = {
        "model": "fake-model",
        "base_url": server.base_url,
        "backoff": 0.01,
        "api_key_var": "OFFICEGYM_TEST_UNSET_KEY",
        **settings,
    }
    return OpenAIPolicy(OpenAISettings(**options), sleep=sleeps if sleeps is not None else Sleeps())


def test_chat_request_carries_transcript_tools_and_sampling(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    chat.messages[1]["reasoning_content"] = "not for the wire"
    reply = policy(server, temperature=0.3, max_tokens=256, extra_body={"top_k": 20}).respond(chat.messages, chat.tools)
    body = server.seen[-1].body
    assert server.seen[-1].path == "/v1/chat/completions" and body["model"] == "fake-model"
    assert body["messages"] == [{"role": m["role"], "content": m["content"]} for m in chat.messages]
    assert body["tools"] == chat.tools
    assert (body["temperature"], body["max_tokens"], body["top_k"]) == (0.3, 256, 20)
    assert "reasoning_effort" not in body
    assert reply.message["tool_calls"][0]["function"] == {"name": "whoami", "arguments": "{}"}
    assert reply.message["tool_calls"][0]["id"] == "srv_0_0"
    assert reply.usage["prompt_tokens"] > 0 and reply.usage["completion_tokens"] > 0
    assert (reply.requests, reply.retries, reply.finish_reason) == (1, 0, "tool_calls")


def test_reasoning_is_sent_back_only_when_asked(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    chat.messages.append({"role": "assistant", "content": "x", "reasoning_content": "thought"})
    policy(server, keep_reasoning=True).respond(chat.messages, chat.tools)
    assert server.seen[-1].body["messages"][-1] == {"role": "assistant", "content": "x", "reasoning_content": "thought"}


def test_reasoning_and_missing_ids_from_the_server_are_kept_for_the_wrapper(chat: ChatWrapper) -> None:
    opening = chat.messages[1]["content"]
    message = native({"name": "whoami", "arguments": {}}, ids=False) | {"reasoning_content": "who am I?"}
    with FakeOpenAIServer(ScriptBook({opening: [message]})) as server:
        reply = policy(server).respond(chat.messages, chat.tools)
    assert reply.message["reasoning_content"] == "who am I?" and reply.message["tool_calls"][0]["id"] is None
    chat.step(reply.message)
    assert chat.messages[2]["tool_calls"][0]["id"] == "call_1_0" and chat.messages[3]["tool_call_id"] == "call_1_0"


def test_the_key_comes_from_the_named_variable_and_is_never_shown(
    book: ScriptBook, chat: ChatWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFICEGYM_TEST_KEY", SECRET)
    with FakeOpenAIServer(book, api_key=SECRET) as server:
        agent = policy(server, api_key_var="OFFICEGYM_TEST_KEY")
        reply = agent.respond(chat.messages, chat.tools)
        assert server.seen[-1].authorization == f"Bearer {SECRET}" and reply.message["tool_calls"]
        shown = repr(agent) + json.dumps(agent.describe()) + repr(agent.settings) + json.dumps(reply.message)
        assert SECRET not in shown and "OFFICEGYM_TEST_KEY" in shown
        monkeypatch.setenv("OFFICEGYM_TEST_KEY", "sk-wrong")
        with pytest.raises(InfrastructureError) as refused:
            policy(server, api_key_var="OFFICEGYM_TEST_KEY").respond(chat.messages, chat.tools)
    assert refused.value.fatal and "HTTP 401" in str(refused.value) and "sk-wrong" not in str(refused.value)


def test_a_missing_key_is_an_error_unless_a_local_server_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OFFICEGYM_TEST_UNSET_KEY", raising=False)
    with pytest.raises(ValueError, match="OFFICEGYM_TEST_UNSET_KEY is not set"):
        read_api_key(OpenAISettings(model="m", api_key_var="OFFICEGYM_TEST_UNSET_KEY"))
    local = OpenAISettings(model="m", base_url="http://127.0.0.1:9/v1", api_key_var="OFFICEGYM_TEST_UNSET_KEY")
    assert read_api_key(local) == PLACEHOLDER_KEY


def test_429_and_500_are_retried_with_exponential_backoff(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    server.fail_next(error(429, "Rate limit reached"), error(500, "boom"), error(503, "overloaded"))
    sleeps = Sleeps()
    reply = policy(server, sleeps).respond(chat.messages, chat.tools)
    assert reply.message["tool_calls"] and (reply.requests, reply.retries) == (4, 3)
    assert sleeps == [0.01, 0.02, 0.04]
    assert len(server.seen) == 4


def test_retry_after_is_honoured_and_capped(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    server.fail_next(error(429, "slow down", {"Retry-After": "0.25"}), error(429, "slow down", {"Retry-After": "90"}))
    sleeps = Sleeps()
    policy(server, sleeps, max_backoff=2.0).respond(chat.messages, chat.tools)
    assert sleeps == [0.25, 2.0]


def test_retries_run_out_into_an_infrastructure_error(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    server.fail_next(*[error(502, "bad gateway")] * 3)
    with pytest.raises(InfrastructureError) as failed:
        policy(server, max_retries=2).respond(chat.messages, chat.tools)
    assert not failed.value.fatal and "gave up after 3 request(s): HTTP 502: bad gateway" in str(failed.value)


def test_a_slow_answer_times_out_and_is_retried(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    server.fail_next(slow(2.0))
    sleeps = Sleeps()
    reply = policy(server, sleeps, timeout=0.5).respond(chat.messages, chat.tools)
    assert reply.retries >= 1 and reply.message["tool_calls"] and sleeps[0] == 0.01


def test_an_unreachable_server_is_an_infrastructure_error(chat: ChatWrapper) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = OpenAISettings(
        model="m",
        base_url=f"http://127.0.0.1:{port}/v1",
        max_retries=1,
        backoff=0.0,
        api_key_var="OFFICEGYM_TEST_UNSET_KEY",
    )
    with pytest.raises(InfrastructureError, match="gave up after 2 request"):
        OpenAIPolicy(settings, sleep=Sleeps()).respond(chat.messages, chat.tools)


@pytest.mark.parametrize(("status", "fatal"), [(401, True), (403, True), (404, True), (400, False), (422, False)])
def test_answers_that_retrying_cannot_change_are_not_retried(
    server: FakeOpenAIServer, chat: ChatWrapper, status: int, fatal: bool
) -> None:
    server.fail_next(error(status, "no such model: fake-model"))
    with pytest.raises(InfrastructureError) as failed:
        policy(server).respond(chat.messages, chat.tools)
    assert failed.value.fatal == fatal and f"HTTP {status}" in str(failed.value) and len(server.seen) == 1


def test_a_full_context_ends_the_episode_instead_of_failing_it(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    server.fail_next(error(400, "This model's maximum context length is 8192 tokens."))
    with pytest.raises(ContextLengthExceeded, match="maximum context length"):
        policy(server).respond(chat.messages, chat.tools)


def test_responses_api_round_trip(book: ScriptBook, chat: ChatWrapper) -> None:
    opening = chat.messages[1]["content"]
    scripted = [native({"name": "whoami", "arguments": {}}), text("All decided.", reasoning="the books are right")]
    with FakeOpenAIServer(ScriptBook({opening: scripted})) as server:
        agent = policy(server, api="responses", max_tokens=100, reasoning_effort="low")
        chat.step(agent.respond(chat.messages, chat.tools).message)
        reply = agent.respond(chat.messages, chat.tools)
    body = server.seen[-1].body
    assert server.paths() == ["/v1/responses", "/v1/responses"]
    assert body["instructions"] == chat.messages[0]["content"] and body["store"] is False
    result = chat.messages[3]["content"]
    assert body["input"] == [
        {"role": "user", "content": opening},
        {"type": "function_call", "call_id": "srv_0_0", "name": "whoami", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "srv_0_0", "output": result},
    ]
    assert body["tools"][0] == {
        "type": "function",
        "name": chat.tools[0]["function"]["name"],
        "description": chat.tools[0]["function"]["description"],
        "parameters": chat.tools[0]["function"]["parameters"],
    }
    assert (body["max_output_tokens"], body["reasoning"]) == (100, {"effort": "low"})
    assert reply.message == {"role": "assistant", "content": "All decided.", "reasoning_content": "the books are right"}
    assert reply.usage["reasoning_tokens"] == 3 and reply.finish_reason == "stop"


def test_auto_moves_to_the_responses_api_when_chat_refuses_tools(book: ScriptBook, chat: ChatWrapper) -> None:
    with FakeOpenAIServer(book, refuse_chat_tools=True) as server:
        agent = policy(server)
        first = agent.respond(chat.messages, chat.tools)
        chat.step(first.message)
        agent.respond(chat.messages, chat.tools)
        assert server.paths() == ["/v1/chat/completions", "/v1/responses", "/v1/responses"]
        assert first.retries == 0 and agent.use_responses
        with pytest.raises(InfrastructureError, match="/v1/responses"):
            policy(server, api="chat").respond(chat.messages, chat.tools)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"model": " "}, "--model must name"),
        ({"api": "grpc"}, "--api must be one of"),
        ({"temperature": 3.0}, "--temperature"),
        ({"max_tokens": 0}, "--max-tokens"),
        ({"timeout": 0.0}, "--timeout"),
        ({"timeout": float("inf")}, "--timeout"),
        ({"max_retries": -1}, "--max-retries"),
        ({"backoff": -1.0}, "backoff"),
    ],
)
def test_bad_settings_are_refused(change: dict[str, Any], message: str) -> None:
    settings = OpenAISettings(**{"model": "m", "base_url": "http://127.0.0.1:9/v1", **change})
    with pytest.raises(ValueError, match=message):
        OpenAIPolicy(settings)
