"""OpenAIPolicy through the real ``openai`` client against the loopback server: requests, keys, retries,
timeouts, fatal errors, context overflow, rejected model output, the preflight, secrets in error texts, and
the Responses API."""

from __future__ import annotations

import json
import random
import re
import socket
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

from officegym.policies.chat import (
    REDACTED,
    ContextLengthExceeded,
    InfrastructureError,
    ModelOutputRejected,
    redact,
    redact_text,
    register_secret,
)
from officegym.policies.openai_policy import (
    DEFAULT_BASE_URL,
    PLACEHOLDER_KEY,
    EndpointUnusable,
    OpenAIPolicy,
    OpenAISettings,
    is_local,
    read_api_key,
)
from officegym.wrappers import ChatWrapper

from ..fake_openai_server import MAX_DELAY, FakeOpenAIServer, ScriptBook, error, native, oracle_book, slow, text

ENV_ID = "officegym/InvoiceApproval-v0"
TASK = "single-1"
SECRET = "sk-test-0123456789-never-written"


@pytest.fixture(scope="module")
def book() -> ScriptBook:
    return oracle_book(ENV_ID, [TASK])


@pytest.fixture()
def server(book: ScriptBook) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(book) as running:
        yield running


@pytest.fixture()
def chat() -> ChatWrapper:
    wrapper = ChatWrapper(gym.make(ENV_ID, task_ids=[TASK]))
    wrapper.reset(seed=0, options={"task_id": TASK})
    return wrapper


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def policy(server: FakeOpenAIServer, sleeps: Sleeps | None = None, *, seed: int = 0, **settings: Any) -> OpenAIPolicy:
    options: dict[str, Any] = {
        "model": "fake-model",
        "base_url": server.base_url,
        "backoff": 0.01,
        "api_key_var": "OFFICEGYM_TEST_UNSET_KEY",
        **settings,
    }
    sleep = sleeps if sleeps is not None else Sleeps()
    return OpenAIPolicy(OpenAISettings(**options), sleep=sleep, rng=random.Random(seed))


def refused_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def spoken(chat: ChatWrapper) -> list[dict[str, Any]]:
    """The transcript after one assistant turn."""
    chat.step({"name": "whoami", "arguments": {}})
    return chat.messages


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
    assert chat.messages[2]["tool_calls"][0]["id"] == "call00100" and chat.messages[3]["tool_call_id"] == "call00100"


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


def test_a_missing_key_is_an_error_unless_the_server_is_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OFFICEGYM_TEST_UNSET_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(
        ValueError, match=f"OFFICEGYM_TEST_UNSET_KEY is not set: export the API key for {DEFAULT_BASE_URL}"
    ):
        read_api_key(OpenAISettings(model="m", api_key_var="OFFICEGYM_TEST_UNSET_KEY"))
    remote = OpenAISettings(model="m", base_url="https://llm.example.com/v1", api_key_var="OFFICEGYM_TEST_UNSET_KEY")
    with pytest.raises(ValueError, match=re.escape("https://llm.example.com/v1")):
        read_api_key(remote)
    for url in ("http://127.0.0.1:9/v1", "http://localhost:8000/v1", "http://[::1]:8080/v1", "http://127.3.2.1/v1"):
        local = OpenAISettings(model="m", base_url=url, api_key_var="OFFICEGYM_TEST_UNSET_KEY")
        assert read_api_key(local) == PLACEHOLDER_KEY


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:8000/v1", True),
        ("http://LOCALHOST/v1", True),
        ("http://127.0.0.1:9/v1", True),
        ("http://127.255.0.7/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://10.0.0.5:8000/v1", False),
        ("http://localhost.example.com/v1", False),
        ("https://api.openai.com/v1", False),
        ("not a url", False),
    ],
)
def test_what_counts_as_a_local_endpoint(url: str, local: bool) -> None:
    assert is_local(url) is local


def test_openai_base_url_is_honoured_and_recorded(
    server: FakeOpenAIServer, chat: ChatWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.delenv("OFFICEGYM_TEST_UNSET_KEY", raising=False)
    agent = OpenAIPolicy(OpenAISettings(model="fake-model", api_key_var="OFFICEGYM_TEST_UNSET_KEY"))
    assert agent.describe()["endpoint"]["base_url"] == server.base_url
    assert agent.respond(chat.messages, chat.tools).message["tool_calls"]
    assert server.seen[-1].authorization == f"Bearer {PLACEHOLDER_KEY}"
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert policy(server).describe()["endpoint"]["base_url"] == server.base_url  # --base-url wins


# --------------------------------------------------------------------------- preflight
def test_the_preflight_asks_the_models_route_and_spends_no_tokens(server: FakeOpenAIServer) -> None:
    policy(server).preflight()
    assert [p.path for p in server.probes] == ["/v1/models"] and server.seen == []


def test_the_preflight_names_a_refused_url_at_once() -> None:
    url = f"http://127.0.0.1:{refused_port()}/v1"
    sleeps = Sleeps()
    settings = OpenAISettings(model="m", base_url=url, api_key_var="OFFICEGYM_TEST_UNSET_KEY")
    with pytest.raises(EndpointUnusable) as failed:
        OpenAIPolicy(settings, sleep=sleeps).preflight()
    assert f"cannot connect to the model endpoint {url}" in str(failed.value) and "--base-url" in str(failed.value)
    assert sleeps == []  # not retried like a hiccup


def test_the_preflight_names_an_unknown_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """No DNS in tests: the resolver is made to fail for the one name, as it does for a mistyped host."""
    resolve = socket.getaddrinfo

    def unknown(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "no-such-host.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    monkeypatch.setenv("OFFICEGYM_TEST_KEY", SECRET)
    settings = OpenAISettings(model="m", base_url="http://no-such-host.invalid/v1", api_key_var="OFFICEGYM_TEST_KEY")
    with pytest.raises(EndpointUnusable, match="Name or service not known") as failed:
        OpenAIPolicy(settings, sleep=Sleeps()).preflight()
    assert "cannot connect to the model endpoint http://no-such-host.invalid/v1" in str(failed.value)


def test_the_preflight_refuses_a_url_without_the_api(server: FakeOpenAIServer) -> None:
    wrong = server.base_url.removesuffix("/v1") + "/api"
    with pytest.raises(EndpointUnusable, match=f"{wrong} has no OpenAI-compatible API \\(HTTP 404"):
        policy(server, base_url=wrong).preflight()


@pytest.mark.parametrize("status", [403, 404])
def test_the_preflight_asks_the_model_route_when_only_listing_models_fails(book: ScriptBook, status: int) -> None:
    """A key without the scope to list models (403) or a server without the route (404) can still serve."""
    with FakeOpenAIServer(book, models_status=status) as server:
        policy(server).preflight()
        assert [s.path for s in server.seen] == ["/v1/chat/completions"]
        assert server.seen[0].body == {"model": "fake-model"}  # no messages: nothing is generated


def test_the_preflight_names_a_refused_key(book: ScriptBook, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OFFICEGYM_TEST_KEY", "sk-wrong-but-long-enough")
    with FakeOpenAIServer(book, api_key=SECRET, echo_headers=True) as server, pytest.raises(EndpointUnusable) as failed:
        url = server.base_url
        policy(server, api_key_var="OFFICEGYM_TEST_KEY").preflight()
    message = str(failed.value)
    assert "refused the API key from OFFICEGYM_TEST_KEY (HTTP 401" in message and url in message
    assert "sk-wrong-but-long-enough" not in message and f"Bearer {REDACTED}" in message


# --------------------------------------------------------------------------- secrets
def test_error_texts_never_carry_the_key_even_when_the_server_echoes_it(
    book: ScriptBook, chat: ChatWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFICEGYM_TEST_KEY", SECRET)
    with FakeOpenAIServer(book, api_key=SECRET, echo_headers=True) as server:
        agent = policy(server, api_key_var="OFFICEGYM_TEST_KEY", max_retries=1)
        server.fail_next(*[error(502, "bad gateway")] * 2)
        with pytest.raises(InfrastructureError) as failed:
            agent.respond(chat.messages, chat.tools)
        server.fail_next(error(400, "cannot parse the transcript"))
        with pytest.raises(ModelOutputRejected) as rejected:
            agent.respond(spoken(chat), chat.tools)
    for message in (str(failed.value), str(rejected.value)):
        assert SECRET not in message and f"Bearer {REDACTED}" in message and "request headers" in message


def test_redaction_of_registered_secrets_and_quoted_headers() -> None:
    register_secret("sk-registered-0123456789")
    register_secret("EMPTY")  # a placeholder, not a secret: ordinary text keeps the word
    assert redact('{"error": "key sk-registered-0123456789 refused"}') == f'{{"error": "key {REDACTED} refused"}}'
    assert redact("EMPTY seats") == "EMPTY seats"
    quoted = {
        "Authorization: Bearer abc.def-123 and more": f"Authorization: Bearer {REDACTED} and more",
        '{"authorization": "Basic dXNlcjpwYXNz"}': f'{{"authorization": "Basic {REDACTED}"}}',
        "x-api-key=short1 next": f"x-api-key={REDACTED} next",
        "proxy said bearer tok_42": f"proxy said bearer {REDACTED}",
        "Authorization required": "Authorization required",
    }
    for original, expected in quoted.items():
        assert redact_text(original) == expected and redact_text(expected) == expected


def test_429_and_500_are_retried_with_jittered_exponential_backoff(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    server.fail_next(error(429, "Rate limit reached"), error(500, "boom"), error(503, "overloaded"))
    sleeps = Sleeps()
    reply = policy(server, sleeps, seed=7).respond(chat.messages, chat.tools)
    assert reply.message["tool_calls"] and (reply.requests, reply.retries) == (4, 3)
    draws = random.Random(7)
    assert sleeps == [d * (0.5 + 0.5 * draws.random()) for d in (0.01, 0.02, 0.04)]
    assert all(d / 2 <= slept <= d for slept, d in zip(sleeps, (0.01, 0.02, 0.04), strict=True))
    assert len(server.seen) == 4


def test_the_jitter_is_seeded_capped_and_spreads_concurrent_episodes(
    server: FakeOpenAIServer, chat: ChatWrapper
) -> None:
    def delays(seed: int) -> Sleeps:
        server.fail_next(*[error(503, "overloaded")] * 6)
        sleeps = Sleeps()
        policy(server, sleeps, seed=seed, backoff=1.0, max_backoff=4.0).respond(chat.messages, chat.tools)
        return sleeps

    first, again, other = delays(1), delays(1), delays(2)
    assert first == again and first != other
    ceilings = [1.0, 2.0, 4.0, 4.0, 4.0, 4.0]
    assert all(c / 2 <= slept <= c for slept, c in zip(first, ceilings, strict=True))


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
    server.fail_next(slow(MAX_DELAY))  # five times the client timeout; a plain answer from this local server takes ms
    sleeps = Sleeps()
    reply = policy(server, sleeps, timeout=MAX_DELAY / 5).respond(chat.messages, chat.tools)
    assert reply.retries >= 1 and reply.message["tool_calls"] and 0.005 <= sleeps[0] <= 0.01


def test_an_unreachable_server_is_an_infrastructure_error(chat: ChatWrapper) -> None:
    settings = OpenAISettings(
        model="m",
        base_url=f"http://127.0.0.1:{refused_port()}/v1",
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


@pytest.mark.parametrize("status", [400, 422])
def test_a_400_or_422_once_the_model_spoke_is_the_models_failure(
    server: FakeOpenAIServer, chat: ChatWrapper, status: int
) -> None:
    """A server that cannot read back what the model wrote refuses every retry of the same transcript: the
    episode ends as the model's failure instead of an unscored infrastructure error."""
    server.fail_next(error(status, "tool_calls[0].id: invalid format"))
    with pytest.raises(ModelOutputRejected, match=f"HTTP {status}: tool_calls"):
        policy(server).respond(spoken(chat), chat.tools)
    assert len(server.seen) == 1


def test_auth_and_url_errors_stay_fatal_after_the_model_spoke(server: FakeOpenAIServer, chat: ChatWrapper) -> None:
    messages = spoken(chat)
    for status in (401, 403, 404):
        server.fail_next(error(status, "nope"))
        with pytest.raises(InfrastructureError) as failed:
            policy(server).respond(messages, chat.tools)
        assert failed.value.fatal


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
