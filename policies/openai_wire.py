"""The transcript on the wire: chat messages to the request shapes of the two OpenAI APIs, and back.

The chat wrapper keeps the transcript in chat-completions form. Chat completions gets it nearly as is (only
the standard keys, so strict servers accept it); the Responses API, which reasoning models need when chat
completions refuses tools, gets the same conversation as input items (``function_call`` and
``function_call_output`` paired by ``call_id``), the system prompt as ``instructions`` and the tools in its
flat function format. Replies of both come back as one chat-completions assistant message.

Replies are read from the raw JSON text, not through the ``openai`` client's models, because those are built
without validation: a tool call without a ``function`` object came out as an object without the attribute and
was dropped, so the turn read as "finish". Here a reply that is not the documented shape at all (not JSON, no
``choices``, no ``message``, wrong types) raises :class:`MalformedReply`, a server fault the policy retries,
and a reply whose tool calls alone are broken keeps every call: a broken one reaches the chat wrapper in a
form its parser refuses, so the model reads an ``Error:`` tool result and the record counts a parse error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_WIRE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
_CLIP = 200
_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")


class MalformedReply(ValueError):
    """A 200 reply that is not the documented shape; the message says what was wrong, clipped to one line."""


def chat_messages(messages: list[dict[str, Any]], keep_reasoning: bool) -> list[dict[str, Any]]:
    """The transcript with only the keys chat servers accept. ``reasoning_content`` is sent back only when
    asked for (servers of thinking models that call tools want it; others refuse unknown keys)."""
    out = []
    for message in messages:
        wire = {k: message[k] for k in _WIRE_KEYS if k in message}
        if keep_reasoning and message.get("reasoning_content"):
            wire["reasoning_content"] = message["reasoning_content"]
        out.append(wire)
    return out


# --------------------------------------------------------------------------- reading a reply
def reply_object(text: str) -> dict[str, Any]:
    """The reply body as a JSON object, or :class:`MalformedReply` saying what it is instead."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise MalformedReply("the reply is JSON nested too deep to read") from None
    except ValueError as error:
        raise MalformedReply(f"the reply is not JSON ({error}): {clip(text)}") from None
    if not isinstance(value, dict):
        raise MalformedReply(f"the reply is not a JSON object but {_kind(value)}: {clip(text)}")
    return value


def chat_reply(body: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int], str | None]:
    """``(assistant message, usage, finish reason)`` of a chat-completions reply body."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        shown = "has no choices" if choices is None else f"has choices {clip(choices)}, not a non-empty list"
        raise MalformedReply(f"the reply {shown}: {clip(body)}")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, Mapping) else None
    if not isinstance(message, Mapping):
        raise MalformedReply(f"the reply's first choice has no message object: {clip(choice)}")
    finish = choice.get("finish_reason")
    return chat_reply_message(message), chat_usage(body.get("usage")), finish if isinstance(finish, str) else None


def chat_reply_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A chat-completions ``message`` object as the transcript's assistant message."""
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        raise MalformedReply(f"the reply's message content is {_kind(content)}, not text: {clip(content)}")
    out: dict[str, Any] = {"role": "assistant", "content": content}
    calls = message.get("tool_calls")
    if calls is not None and calls != []:
        if not isinstance(calls, list):
            calls = [f"tool_calls must be a list of calls, got {_kind(calls)}: {clip(calls)}"]
        out["tool_calls"] = [_wire_call(call, k) for k, call in enumerate(calls)]
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        out["reasoning_content"] = reasoning
    return out


def _wire_call(call: Any, index: int) -> Any:
    """One native tool call as the wrapper reads it: a well-formed one in canonical form; one the wrapper's
    parser already refuses (no ``function`` object, no name) as sent, keeping its id; one it would accept
    although the wire format forbids it (``type`` not ``function``, ``arguments`` not a string) as a text
    saying what is wrong, which the parser refuses as "not an object" and the transcript keeps."""
    if not isinstance(call, Mapping):
        return call
    function = call.get("function")
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        return dict(call)
    kind = call.get("type", "function")
    arguments = function.get("arguments")
    if kind != "function":
        return f"tool call {index + 1} has type {clip(kind)}, not 'function'"
    if arguments is not None and not isinstance(arguments, str):
        return (
            f"the arguments of tool call {index + 1} must be a JSON string, got {_kind(arguments)}: {clip(arguments)}"
        )
    given = call.get("id")
    return {
        "id": given if isinstance(given, str) and given else None,
        "type": "function",
        "function": {"name": function["name"], "arguments": arguments},
    }


def chat_usage(usage: Any) -> dict[str, int]:
    """Token counts of a chat-completions reply; a count that is missing or not a whole number is 0."""
    if not isinstance(usage, Mapping):
        return {}
    details = usage.get("completion_tokens_details")
    prompt_details = usage.get("prompt_tokens_details")
    return dict(
        zip(
            _USAGE_KEYS,
            (
                _count(usage, "prompt_tokens"),
                _count(usage, "completion_tokens"),
                _count(details, "reasoning_tokens"),
                _count(prompt_details, "cached_tokens"),
            ),
            strict=True,
        )
    )


# --------------------------------------------------------------------------- Responses API
def responses_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat-completions tool schemas in the Responses API's flat form."""
    out = []
    for tool in tools:
        function = tool.get("function", tool)
        out.append(
            {
                "type": "function",
                "name": function["name"],
                "description": function.get("description", ""),
                "parameters": function.get("parameters", {"type": "object", "properties": {}}),
            }
        )
    return out


def responses_input(messages: list[dict[str, Any]]) -> tuple[str | None, list[dict[str, Any]]]:
    """``(instructions, input items)`` for the Responses API from the chat transcript."""
    instructions = None
    items: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            instructions = str(message.get("content") or "")
        elif role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.get("tool_call_id"),
                    "output": str(message.get("content") or ""),
                }
            )
        elif role == "assistant":
            items.extend(_assistant_items(message))
        else:
            items.append({"role": role, "content": str(message.get("content") or "")})
    return instructions, items


def _assistant_items(message: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if message.get("content"):
        items.append({"role": "assistant", "content": str(message["content"])})
    for call in message.get("tool_calls") or []:
        function = call.get("function", {})
        items.append(
            {
                "type": "function_call",
                "call_id": call.get("id"),
                "name": function.get("name", ""),
                "arguments": function.get("arguments") or "{}",
            }
        )
    return items


def responses_reply(body: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int], str | None]:
    """``(assistant message, usage, finish reason)`` of a Responses API reply body."""
    error = body.get("error")
    if error is not None:
        detail = error.get("message") if isinstance(error, Mapping) else error
        raise MalformedReply(f"the response failed: {clip(detail)}")
    output = body.get("output")
    if not isinstance(output, list):
        raise MalformedReply(f"the response has no output list: {clip(body)}")
    finish = "length" if body.get("status") == "incomplete" else "stop"
    return responses_reply_message(output), responses_usage(body.get("usage")), finish


def responses_reply_message(output: list[Any]) -> dict[str, Any]:
    """The output items of a response as one assistant message: its text, function calls, reasoning summary.
    A function call without a string name and arguments becomes a call the wrapper refuses (see ``_wire_call``)."""
    texts: list[str] = []
    calls: list[Any] = []
    thoughts: list[str] = []
    for item in output:
        kind = item.get("type") if isinstance(item, Mapping) else None
        if kind == "message":
            texts.extend(_texts(item.get("content"), "output_text"))
        elif kind == "function_call":
            calls.append(_responses_call(item, len(calls)))
        elif kind == "reasoning":
            thoughts.extend(_texts(item.get("summary"), None))
    out: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        out["tool_calls"] = calls
    if thoughts:
        out["reasoning_content"] = "\n".join(thoughts)
    return out


def _responses_call(item: Mapping[str, Any], index: int) -> Any:
    name, arguments, call_id = item.get("name"), item.get("arguments"), item.get("call_id")
    if not isinstance(name, str) or not isinstance(arguments, str):
        return f"function call {index + 1} needs a string name and string arguments, got {clip(item)}"
    return {
        "id": call_id if isinstance(call_id, str) and call_id else None,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _texts(parts: Any, kind: str | None) -> list[str]:
    """The ``text`` of each part (of type ``kind``, if given) of a list of content parts."""
    if not isinstance(parts, list):
        return []
    found = [p.get("text") for p in parts if isinstance(p, Mapping) and (kind is None or p.get("type") == kind)]
    return [text for text in found if isinstance(text, str)]


def responses_usage(usage: Any) -> dict[str, int]:
    """Token counts of a Responses API reply, under the chat-completions names."""
    if not isinstance(usage, Mapping):
        return {}
    return dict(
        zip(
            _USAGE_KEYS,
            (
                _count(usage, "input_tokens"),
                _count(usage, "output_tokens"),
                _count(usage.get("output_tokens_details"), "reasoning_tokens"),
                _count(usage.get("input_tokens_details"), "cached_tokens"),
            ),
            strict=True,
        )
    )


# --------------------------------------------------------------------------- small helpers
def _count(mapping: Any, key: str) -> int:
    value = mapping.get(key) if isinstance(mapping, Mapping) else None
    return value if type(value) is int and value >= 0 else 0


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else type(value).__name__)


def clip(value: Any) -> str:
    """A value shown on one line of at most ``_CLIP`` characters, whatever it is (deep, huge, not UTF-8)."""
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=True)
    except (ValueError, TypeError, RecursionError):
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    text = text if len(text) <= _CLIP else text[: _CLIP - 3] + "..."
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
