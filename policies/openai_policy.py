"""``OpenAIPolicy``: any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, SGLang, ...) as a chat policy.

It sends the chat wrapper's transcript and tools with the official ``openai`` client and returns the
assistant message. What it adds to a bare client call is what an evaluation needs to stay honest:

- The API key is read from the environment variable named by ``api_key_var`` when the policy is built, and
  lives only inside the client: it is not in the settings, the repr, the results or any message (it is
  registered with :func:`~officegym.policies.chat.register_secret`, and error texts pass ``redact_text``,
  because servers and proxies quote request headers back in their errors). An endpoint on this machine
  (localhost, 127.x, ::1) needs no key: a placeholder is sent when none is set.
- The endpoint is ``base_url``, else ``OPENAI_BASE_URL``, else OpenAI's, and the settings record the one used.
  :meth:`OpenAIPolicy.preflight` asks it once before the first episode, so a wrong URL or key ends the run
  at once with what to check instead of being retried like a hiccup.
- Rate limits (429), server errors (5xx), timeouts, dropped connections and 200 replies that are not the
  documented shape (not JSON, no ``choices``: one warning line each, see ``openai_wire``) are retried with jittered
  exponential backoff (a delay drawn from ``[d/2, d]`` with ``d = backoff * 2**attempt`` capped at
  ``max_backoff``, so concurrent episodes do not retry in lockstep; or the server's ``Retry-After``); the
  client's own retries are off so that every attempt is counted. When the retries run out,
  :class:`InfrastructureError` tells the runner the episode is not the model's fault: it is recorded as
  ``has_error`` and run again, not scored. A bad key or an unknown model (401/403/404) is ``fatal``: every
  episode would fail the same way.
- A transcript that outgrows the context window raises :class:`ContextLengthExceeded`; a 400 or 422 once the
  transcript holds the model's own output raises :class:`ModelOutputRejected` (the server cannot read back
  what the model wrote, and would refuse every retry). Both end the episode there, scored as it stands.
- Requests go through the client's documented ``post`` with the body as built here: the typed ``create``
  walks every message against its TypedDicts before sending, which costs ~70 ms of CPU (under the GIL) per
  request on a 120-message transcript; the wire format is the same.
- ``api="auto"`` uses chat completions until the server refuses tools there and points to ``/v1/responses``
  (OpenAI's reasoning models do), then switches to the Responses API for the rest of the run;
  ``api="responses"`` uses it from the start.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import openai

from .chat import (
    ContextLengthExceeded,
    InfrastructureError,
    ModelOutputRejected,
    Reply,
    redact_text,
    register_secret,
)
from .openai_wire import (
    MalformedReply,
    chat_messages,
    chat_reply,
    reply_object,
    responses_input,
    responses_reply,
    responses_tools,
)

log = logging.getLogger(__name__)

APIS = ("auto", "chat", "responses")
PLACEHOLDER_KEY = "EMPTY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
PREFLIGHT_TIMEOUT = 5.0
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
_OUTPUT_STATUS = (400, 422)


class EndpointUnusable(ValueError):
    """The preflight found that no episode can reach the model: a wrong URL, a server that is not running, a
    refused key. A ``ValueError``, so the command line prints it as ``Error: ...`` and exits with code 2."""


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
        """Raise ``ValueError`` naming the first bad setting: every number within its stated range
        (``evaluation/options.py``: NaN and infinity are refused, never read as a cap), ``extra_body`` a small,
        shallow JSON object."""
        from ..evaluation.options import RANGES, json_problem

        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError("--model must name the model to evaluate")
        if self.api not in APIS:
            raise ValueError(f"--api must be one of {', '.join(APIS)}, got {self.api!r}")
        numbers = {
            "--temperature": self.temperature,
            "--max-tokens": self.max_tokens,
            "--timeout": self.timeout,
            "--max-retries": self.max_retries,
            "--backoff": self.backoff,
            "--max-backoff": self.max_backoff,
        }
        for flag, value in numbers.items():
            RANGES[flag].check(value)
        if self.extra_body is not None:
            try:
                text = json.dumps(self.extra_body, ensure_ascii=False)
            except (TypeError, ValueError, RecursionError) as error:
                raise ValueError(f"--extra-body must be a JSON object ({type(error).__name__})") from None
            problem = json_problem(text, "--extra-body")
            if problem:
                raise ValueError(problem)

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


def resolve_base_url(base_url: str | None) -> str:
    """The endpoint requests go to: ``--base-url``, else ``OPENAI_BASE_URL`` (as the ``openai`` client reads
    it), else OpenAI's. Resolved here so that the record names the URL actually used, not ``None``."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL


def is_local(url: str) -> bool:
    """Whether ``url`` points at this machine (localhost, 127.0.0.0/8, ::1): servers there need no key."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_api_key(settings: OpenAISettings) -> str:
    """The key from ``settings.api_key_var``; a placeholder for an endpoint on this machine when none is set."""
    key = os.environ.get(settings.api_key_var, "")
    if key:
        return key
    url = resolve_base_url(settings.base_url)
    if is_local(url):
        return PLACEHOLDER_KEY
    raise ValueError(
        f"the environment variable {settings.api_key_var} is not set: export the API key for {url} in it, "
        "or name another variable with --api-key-var (a server that needs no key: set the variable to any "
        "value, e.g. EMPTY; servers on localhost need none)"
    )


class OpenAIPolicy:
    """Answers the transcript with one request (plus retries) to an OpenAI-compatible endpoint."""

    name = "openai"

    def __reduce__(self) -> tuple[type[OpenAIPolicy], tuple[OpenAISettings]]:
        """Pickled (for Ray workers) as its settings only: the worker builds its own client and reads the key
        from the named environment variable itself, so the key is never serialized."""
        return (OpenAIPolicy, (self.settings,))

    def __init__(
        self,
        settings: OpenAISettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        """``sleep`` and ``rng`` (the backoff jitter) are injectable for tests; by default the jitter is
        unseeded, since its purpose is that concurrent episodes do not retry at the same instants."""
        settings.check()
        self.settings = replace(settings, base_url=resolve_base_url(settings.base_url))
        self.model: str | None = settings.model
        self.use_responses = settings.api == "responses"
        self._sleep = sleep
        self._rng = rng or random.Random()
        key = read_api_key(self.settings)
        register_secret(key)
        self._client = openai.OpenAI(
            api_key=key, base_url=self.settings.base_url, timeout=settings.timeout, max_retries=0
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
                problem: openai.APIError | MalformedReply = error
            except MalformedReply as error:
                problem = error
                log.warning(
                    "the model server sent a malformed reply (request %d): %s", requests, redact_text(str(error))
                )
            except openai.APIStatusError as error:
                if self._switch_to_responses(error):
                    continue
                _raise_if_final(error, _model_spoke(messages) and not _points_to_responses(error))
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
        return chat_reply(self._post("/chat/completions", body))

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
        return responses_reply(self._post("/responses", body))

    def _post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        """The reply body as a JSON object, read here and not by the client's unvalidated models (see
        ``openai_wire``): a 200 that is not the documented shape raises :class:`MalformedReply`."""
        import httpx  # the openai client's own HTTP library, installed with it (not a dependency of its own)

        raw = self._client.post(route, cast_to=httpx.Response, body=body)
        return reply_object(raw.text)

    # ----------------------------------------------------------------- errors
    def _switch_to_responses(self, error: openai.APIStatusError) -> bool:
        """Chat completions refused tools for this model and points to the Responses API: use that."""
        if _points_to_responses(error) and not self.use_responses and self.settings.api == "auto":
            self.use_responses = True
            return True
        return False

    def _delay(self, attempt: int, error: openai.APIError | MalformedReply) -> float:
        """The server's ``Retry-After`` (capped), else a draw from ``[d/2, d]``, ``d`` the capped exponential
        delay: half of it guarantees the back-off, the random half spreads concurrent episodes apart."""
        retry_after = _retry_after(error)
        if retry_after is not None:
            return min(self.settings.max_backoff, retry_after)
        ceiling = min(self.settings.max_backoff, self.settings.backoff * 2.0**attempt)
        return ceiling * (0.5 + 0.5 * self._rng.random())

    # ----------------------------------------------------------------- preflight
    def preflight(self) -> None:
        """One cheap request before the first episode: ``GET /models``, the same route for chat completions and
        the Responses API, no tokens spent. A refused connection, an unknown host, no answer within
        ``PREFLIGHT_TIMEOUT`` s, a refused key (401/403) or no such API (404) raise :class:`EndpointUnusable`
        naming the URL and what to check. Anything else (429, 5xx) means a server is there: episodes retry."""
        url = str(self.settings.base_url)
        timeout = min(self.settings.timeout, PREFLIGHT_TIMEOUT)
        try:
            self._client.get("/models", cast_to=str, options={"timeout": timeout})
        except openai.APITimeoutError:
            raise EndpointUnusable(
                f"the model endpoint {url} did not answer within {timeout:g} s: check --base-url (or "
                "OPENAI_BASE_URL) and that the server is up and reachable from here"
            ) from None
        except openai.APIConnectionError as error:
            raise EndpointUnusable(
                f"cannot connect to the model endpoint {url} ({_connection_problem(error)}): check --base-url "
                "(or OPENAI_BASE_URL) and that the server is running and listening there"
            ) from None
        except openai.APIStatusError as error:
            self._judge_preflight(error, url, timeout)

    def _judge_preflight(self, error: openai.APIStatusError, url: str, timeout: float) -> None:
        """401 refuses the key. A 403 or 404 may concern ``/models`` alone (a key without the scope to list
        models, a server without the route), so the model's own route decides those."""
        found = self._probe_model_route(timeout) if error.status_code in (403, 404) else error
        status = 200 if found is None else found.status_code
        if found is not None and status in (401, 403):
            raise EndpointUnusable(
                f"the model endpoint {url} refused the API key from {self.settings.api_key_var} ({_describe(found)}): "
                "check the key, or name the variable that holds it with --api-key-var"
            ) from None
        if status == 404:
            raise EndpointUnusable(
                f"the model endpoint {url} has no OpenAI-compatible API (HTTP 404 for {self._route()}): "
                "check --base-url (OpenAI-compatible servers usually end it in /v1) and --model"
            ) from None

    def _probe_model_route(self, timeout: float) -> openai.APIStatusError | None:
        """The error of a request with only the model in its body, ``None`` if there is none to judge: a real
        route refuses the body (400/422), a missing one is a 404 (so is, on vLLM, an unknown model)."""
        try:
            self._client.post(
                self._route(), cast_to=str, body={"model": self.settings.model}, options={"timeout": timeout}
            )
        except openai.APIStatusError as error:
            return error
        except openai.APIConnectionError:
            return None  # the server answered a moment ago: episodes will retry this
        return None

    def _route(self) -> str:
        return "/responses" if self.use_responses else "/chat/completions"


def _points_to_responses(error: openai.APIStatusError) -> bool:
    """A 400 that refuses chat completions for this model and names the Responses API (about the endpoint,
    never about what the model wrote)."""
    return error.status_code == 400 and "responses" in _describe(error).lower()


def _model_spoke(messages: list[dict[str, Any]]) -> bool:
    return any(message.get("role") == "assistant" for message in messages)


def _raise_if_final(error: openai.APIStatusError, model_spoke: bool) -> None:
    """Raise for answers that retrying cannot change; return for 408, 409, 429 and 5xx. A 400 or 422 once the
    model has spoken refuses what it wrote (a 400 before that is the request's own fault, e.g. a bad
    ``--extra-body``, and an infrastructure error)."""
    status = error.status_code
    if status in (408, 409, 429) or status >= 500:
        return
    text = _describe(error)
    if status in (400, 413) and any(marker in text.lower() for marker in _CONTEXT_MARKERS):
        raise ContextLengthExceeded(text)
    if status in _OUTPUT_STATUS and model_spoke:
        raise ModelOutputRejected(text)
    raise InfrastructureError(text, fatal=status in _FATAL_STATUS)


def _connection_problem(error: openai.APIConnectionError) -> str:
    """What the socket said (connection refused, name not known, ...): the client's own text is generic."""
    cause = error.__cause__
    while cause is not None and cause.__cause__ is not None and not str(cause):
        cause = cause.__cause__
    return redact_text(str(cause or error.message))[:200]


def _retry_after(error: openai.APIError | MalformedReply) -> float | None:
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


def _describe(error: openai.APIError | MalformedReply) -> str:
    if isinstance(error, MalformedReply):
        return redact_text(f"malformed reply: {error}")[:500]
    status = getattr(error, "status_code", None)
    prefix = f"HTTP {status}: " if status is not None else f"{type(error).__name__}: "
    body = error.body
    detail = body.get("message") if isinstance(body, dict) else None
    return redact_text(prefix + str(detail or error.message))[:500]  # redacted whole: a cut key would survive
