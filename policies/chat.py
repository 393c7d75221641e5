"""The interface the evaluation runner drives: a policy that answers a chat transcript with an assistant message.

Every policy is evaluated the same way, through :class:`~officegym.wrappers.ChatWrapper`, so every result
file has the same transcript and every episode can be shown and replayed. LLM policies answer from the
messages; the scripted policies (oracle, random, solver, ...) act on observations and are adapted here by
turning each action into an assistant message with one tool call.

A policy signals trouble by raising: :class:`InfrastructureError` when the serving side failed (the episode is
not the model's fault, so it is recorded as ``has_error`` and run again, never scored), and two exceptions
that end the episode where it stands and score it, as any agent that cannot go on would be:
:class:`ContextLengthExceeded` when the conversation no longer fits the model, :class:`ModelOutputRejected`
when the server refuses the transcript because of what the model wrote in it.

Credentials never reach a file or the terminal: a policy registers its key with :func:`register_secret`, and
everything recorded or printed passes :func:`redact` (error texts also :func:`redact_text`, which removes
``Authorization`` and ``Bearer`` values that a server's error message may quote back).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..envs.core.actions import FINISH
from .base import Policy

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")


class InfrastructureError(Exception):
    """The model could not be reached or answered garbage after retries. ``fatal`` errors (a bad key, an
    unknown model) would fail every episode, so the runner stops instead of burning through the tasks."""

    def __init__(self, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with ``fatal`` (an exception pickles its ``args`` only): a fatal error raised in a worker
        process must still stop the run."""
        return (_infrastructure_error, (str(self), self.fatal))


def _infrastructure_error(message: str, fatal: bool) -> InfrastructureError:
    return InfrastructureError(message, fatal=fatal)


class ContextLengthExceeded(Exception):
    """The transcript no longer fits the model's context window."""


class ModelOutputRejected(Exception):
    """The server refused the request because of the model's own earlier output (HTTP 400/422 once the
    transcript holds an assistant turn: a call or an id the server cannot read back). Retrying sends the
    same transcript, so the episode ends there as the model's failure (stop reason ``rejected_output``)."""


# --------------------------------------------------------------------------- secrets
REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8
_secrets: frozenset[str] = frozenset()
_TOKEN = r"(?!\[REDACTED\]|(?:bearer|basic|token)\s)[^\s\"',;:={}\[\]]+"  # a value, not a scheme or redacted
_SEPARATOR = r"""(["']?\s*[:=]\s*["']?)"""
_HEADER = re.compile(
    r"(?i)\b(authorization|proxy-authorization|x-api-key|api-key)"
    + _SEPARATOR
    + r"((?:bearer|basic|token)\s+)?"
    + _TOKEN
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)" + _TOKEN)


def register_secret(value: str) -> None:
    """Remember a credential so that :func:`redact` removes it wherever it turns up. Values shorter than
    ``MIN_SECRET_LENGTH`` (placeholders such as ``EMPTY``) are not secrets, and replacing them would shred
    ordinary text. The set is replaced, never changed in place, so threads read it without a lock."""
    global _secrets
    if len(value) >= MIN_SECRET_LENGTH:
        _secrets = _secrets | {value, json.dumps(value, ensure_ascii=False)[1:-1]}


def redact(text: str) -> str:
    """``text`` without any registered secret (also in its JSON-escaped form, so a serialized line can be
    redacted as a whole). A plain substring test first: nearly every text holds none."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_text(text: str) -> str:
    """An error text without secrets and without the values of ``Authorization``/``Bearer``/API-key headers
    that a server or proxy quoted back. Only for error texts: a transcript may say "authorization" in prose."""
    text = _HEADER.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{REDACTED}", text)
    return redact(_BEARER.sub(lambda m: f"{m.group(1)}{REDACTED}", text))


@dataclass(frozen=True)
class Reply:
    """One assistant turn: the message, its token usage, and what it took to get it."""

    message: dict[str, Any]
    usage: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    retries: int = 0
    latency_s: float = 0.0
    finish_reason: str | None = None


class ChatPolicy(Protocol):
    """Answers a transcript. ``reset`` gets the opening observation and the chat wrapper's reset info."""

    name: str
    model: str | None

    def reset(self, observation: str, info: dict[str, Any]) -> None: ...

    def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply: ...

    def describe(self) -> dict[str, Any]:
        """``policy``, ``model``, ``sampling`` (what shapes the answers) and ``endpoint`` (where they come
        from): recorded with every episode, so never a secret."""
        ...


class ScriptedChatPolicy:
    """A scripted :class:`~officegym.policies.base.Policy` in chat form: each action becomes an assistant
    message with one tool call (its id is left to the wrapper), ``finish`` a message without one."""

    model: str | None = None

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.name = policy.name

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self.policy.reset(observation, info)

    def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        action = self.policy.act(str(messages[-1].get("content") or ""))
        if action.get("name") == FINISH:
            return Reply({"role": "assistant", "content": "Done."})
        arguments = json.dumps(action.get("arguments", {}), ensure_ascii=False)
        call = {"type": "function", "function": {"name": action.get("name"), "arguments": arguments}}
        return Reply({"role": "assistant", "content": None, "tool_calls": [call]})

    def describe(self) -> dict[str, Any]:
        return {"policy": self.name, "model": None, "sampling": {}, "endpoint": {}}


def add_usage(total: dict[str, int], usage: dict[str, int]) -> None:
    """Sum token counts key by key."""
    for key, value in usage.items():
        total[key] = total.get(key, 0) + int(value)
