"""``OpenAIPolicy``: any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, SGLang, ...) as a chat policy.

It sends the chat wrapper's transcript and tools with the official ``openai`` client and returns the
assistant message. What it adds to a bare client call is what an evaluation needs to stay honest:

- The API key is read from the environment variable named by ``api_key_var`` when the policy is built, and
  lives only inside the client: it is not in the settings, the repr, the results or any message.
- Rate limits (429), server errors (5xx), timeouts and dropped connections are retried with exponential
  backoff (``backoff * 2**attempt``, capped, or the server's ``Retry-After``); the client's own retries are
  off so that every attempt is counted. When the retries run out, :class:`InfrastructureError` tells the
  runner the episode is not the model's fault: it is recorded as ``has_error`` and run again, not scored.
  A bad key or an unknown model (401/403/404) is ``fatal``: every episode would fail the same way.
- A transcript that outgrows the context window raises :class:`ContextLengthExceeded`: the episode ends
  there and is scored.
- Requests go through the client's documented ``post`` with the body as built here: the typed ``create``
  walks every message against its TypedDicts before sending, which costs ~70 ms of CPU (under the GIL) per
  request on a 120-message transcript; the wire format is the same.
- ``api="auto"`` uses chat completions until the server refuses tools there and points to ``/v1/responses``
  (OpenAI's reasoning models do), then switches to the Responses API for the rest of the run;
  ``api="responses"`` uses it from the start.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from .chat import ContextLengthExceeded, InfrastructureError, Reply
from .openai_wire import (
    chat_messages,
    chat_reply_message,
    chat_usage,
    responses_input,
    responses_reply_message,
    responses_tools,
    responses_usage,
)

APIS = ("auto", "chat", "responses")
PLACEHOLDER_KEY = "EMPTY"
_CONTEXT_MARKERS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "prompt is too long",
    "too many tokens",
    "reduce the length",
)
_FATAL_STATUS = (401, 403, 404)


@dataclass(frozen=True)
class OpenAISettings:
    """How to reach the model and how to sample it. Holds the key's variable name, never the key."""

    model: str
    base_url: str | None = None
    api_key_var: str = "OPENAI_API_KEY"
    api: str = "auto"
    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    timeout: float = 120.0
    max_retries: int = 6
    backoff: float = 1.0
    max_backoff: float = 60.0
    keep_reasoning: bool = False
    extra_body: dict[str, Any] | None = None

    def check(self) -> None:
        """Raise ``ValueError`` naming the first bad setting."""
        problems = [
            (not self.model.strip(), "--model must name the model to evaluate"),
            (self.api not in APIS, f"--api must be one of {', '.join(APIS)}, got {self.api!r}"),
            (self.temperature is not None and not 0 <= self.temperature <= 2, "--temperature must be in [0, 2]"),
            (self.max_tokens is not None and self.max_tokens < 1, "--max-tokens must be at least 1"),
            (not (self.timeout > 0 and math.isfinite(self.timeout)), "--timeout must be a positive number of seconds"),
            (self.max_retries < 0, "--max-retries must be 0 or more"),
            (self.backoff < 0 or self.max_backoff < 0, "backoff delays must be 0 or more"),
        ]
        for bad, message in problems:
            if bad:
                raise ValueError(message)

    def sampling(self) -> dict[str, Any]:
        """What shapes the model's answers (a resumed run must keep these)."""
        return {
            "api": self.api,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "reasoning_effort": self.reasoning_effort,
            "keep_reasoning": self.keep_reasoning,
            "extra_body": self.extra_body,
        }

    def endpoint(self) -> dict[str, Any]:
        """Where and how patiently the model is asked (the key's variable name, not the key)."""
        return {
            "base_url": self.base_url,
            "api_key_var": self.api_key_var,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "backoff": self.backoff,
            "max_backoff": self.max_backoff,
        }


def read_api_key(settings: OpenAISettings) -> str:
    """The key from ``settings.api_key_var``. Local servers (a ``base_url`` is given) need none."""
    key = os.environ.get(settings.api_key_var, "")
    if key:
        return key
    if settings.base_url:
        return PLACEHOLDER_KEY
    raise ValueError(
        f"the environment variable {settings.api_key_var} is not set: export your API key in it, or "
        "name another variable with --api-key-var (a local server given by --base-url needs none)"
    )


class OpenAIPolicy:
    """Answers the transcript with one request (plus retries) to an OpenAI-compatible endpoint."""

    name = "openai"

    def __reduce__(self) -> tuple[type[OpenAIPolicy], tuple[OpenAISettings]]:
        """Pickled (for Ray workers) as its settings only: the worker builds its own client and reads the key
        from the named environment variable itself, so the key is never serialized."""
        return (OpenAIPolicy, (self.settings,))

    def __init__(self, settings: OpenAISettings, *, sleep: Callable[[float], None] = time.sleep) -> None:
        settings.check()
        self.settings = settings
        self.model: str | None = settings.model
        self.use_responses = settings.api == "responses"
        self._sleep = sleep
        self._client = openai.OpenAI(
            api_key=read_api_key(settings), base_url=settings.base_url, timeout=settings.timeout, max_retries=0
        )

    def __repr__(self) -> str:
        s = self.settings
        return f"OpenAIPolicy(model={s.model!r}, base_url={s.base_url!r}, api_key_var={s.api_key_var!r})"

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Nothing to reset: every request carries the whole transcript."""

    def describe(self) -> dict[str, Any]:
        return {
            "policy": self.name,
            "model": self.settings.model,
            "sampling": self.settings.sampling(),
            "endpoint": self.settings.endpoint(),
        }

    def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        started = time.perf_counter()
        attempt = 0
        requests = 0
        while True:
            requests += 1
            try:
                message, usage, finish = self._request(messages, tools)
                return Reply(message, usage, requests, attempt, time.perf_counter() - started, finish)
            except (openai.APITimeoutError, openai.APIConnectionError) as error:
                problem: openai.APIError = error
            except openai.APIStatusError as error:
                if self._switch_to_responses(error):
                    continue
                _raise_if_final(error)
                problem = error
            if attempt >= self.settings.max_retries:
                raise InfrastructureError(f"gave up after {requests} request(s): {_describe(problem)}")
            self._sleep(self._delay(attempt, problem))
            attempt += 1

    # ----------------------------------------------------------------- requests
    def _request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], dict[str, int], str | None]:
        if self.use_responses:
            return self._responses_request(messages, tools)
        s = self.settings
        optional = {
            "tools": tools or None,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "reasoning_effort": s.reasoning_effort,
        }
        body = {
            "model": s.model,
            "messages": chat_messages(messages, s.keep_reasoning),
            **{k: v for k, v in optional.items() if v is not None},
            **(s.extra_body or {}),
        }
        completion = self._client.post("/chat/completions", cast_to=ChatCompletion, body=body)
        if not completion.choices:
            raise InfrastructureError("the server answered without a choice")
        choice = completion.choices[0]
        return chat_reply_message(choice.message), chat_usage(completion.usage), choice.finish_reason

    def _responses_request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], dict[str, int], str | None]:
        s = self.settings
        instructions, items = responses_input(messages)
        optional = {
            "instructions": instructions,
            "tools": responses_tools(tools) or None,
            "temperature": s.temperature,
            "max_output_tokens": s.max_tokens,
            "reasoning": {"effort": s.reasoning_effort} if s.reasoning_effort else None,
        }
        body = {
            "model": s.model,
            "input": items,
            "store": False,
            **{k: v for k, v in optional.items() if v is not None},
            **(s.extra_body or {}),
        }
        response = self._client.post("/responses", cast_to=Response, body=body)
        if response.error is not None:
            raise InfrastructureError(f"the response failed: {response.error.message}")
        finish = "length" if response.status == "incomplete" else "stop"
        return responses_reply_message(response), responses_usage(response.usage), finish

    # ----------------------------------------------------------------- errors
    def _switch_to_responses(self, error: openai.APIStatusError) -> bool:
        """Chat completions refused tools for this model and points to the Responses API: use that."""
        text = _describe(error).lower()
        refuses = error.status_code == 400 and "responses" in text and not self.use_responses
        if refuses and self.settings.api == "auto":
            self.use_responses = True
            return True
        return False

    def _delay(self, attempt: int, error: openai.APIError) -> float:
        retry_after = _retry_after(error)
        delay = retry_after if retry_after is not None else self.settings.backoff * 2**attempt
        return min(self.settings.max_backoff, delay)


def _raise_if_final(error: openai.APIStatusError) -> None:
    """Raise for answers that retrying cannot change; return for 408, 409, 429 and 5xx."""
    status = error.status_code
    if status in (408, 409, 429) or status >= 500:
        return
    text = _describe(error)
    if status in (400, 413) and any(marker in text.lower() for marker in _CONTEXT_MARKERS):
        raise ContextLengthExceeded(text)
    raise InfrastructureError(text, fatal=status in _FATAL_STATUS)


def _retry_after(error: openai.APIError) -> float | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        try:
            seconds = float(value) * scale if value is not None else None
        except ValueError:
            seconds = None
        if seconds is not None and math.isfinite(seconds) and seconds >= 0:
            return seconds
    return None


def _describe(error: openai.APIError) -> str:
    status = getattr(error, "status_code", None)
    prefix = f"HTTP {status}: " if status is not None else f"{type(error).__name__}: "
    body = error.body
    detail = body.get("message") if isinstance(body, dict) else None
    return prefix + str(detail or error.message)[:500]
