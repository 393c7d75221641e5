"""The transcript on the wire: chat messages to the request shapes of the two OpenAI APIs, and back.

The chat wrapper keeps the transcript in chat-completions form. Chat completions gets it nearly as is (only
the standard keys, so strict servers accept it); the Responses API, which reasoning models need when chat
completions refuses tools, gets the same conversation as input items (``function_call`` and
``function_call_output`` paired by ``call_id``), the system prompt as ``instructions`` and the tools in its
flat function format. Replies of both come back as one chat-completions assistant message.
"""

from __future__ import annotations

from typing import Any

_WIRE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")


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


def chat_reply_message(message: Any) -> dict[str, Any]:
    """A chat-completions ``message`` object as the transcript's assistant message."""
    out: dict[str, Any] = {"role": "assistant", "content": message.content}
    calls = []
    for call in message.tool_calls or []:
        function = getattr(call, "function", None)
        if function is not None:
            calls.append(
                {
                    "id": getattr(call, "id", None) or None,
                    "type": "function",
                    "function": {"name": function.name, "arguments": function.arguments},
                }
            )
    if calls:
        out["tool_calls"] = calls
    extra = message.model_extra or {}
    reasoning = extra.get("reasoning_content") or extra.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        out["reasoning_content"] = reasoning
    return out


def chat_usage(usage: Any) -> dict[str, int]:
    if usage is None:
        return {}
    details = getattr(usage, "completion_tokens_details", None)
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    return {
        "prompt_tokens": int(usage.prompt_tokens or 0),
        "completion_tokens": int(usage.completion_tokens or 0),
        "reasoning_tokens": int(getattr(details, "reasoning_tokens", 0) or 0),
        "cached_tokens": int(getattr(prompt_details, "cached_tokens", 0) or 0),
    }


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


def responses_reply_message(response: Any) -> dict[str, Any]:
    """A Responses API result as one assistant message: its text, function calls and reasoning summary."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    thoughts: list[str] = []
    for item in response.output or []:
        kind = getattr(item, "type", None)
        if kind == "message":
            texts.extend(part.text for part in item.content or [] if getattr(part, "type", "") == "output_text")
        elif kind == "function_call":
            calls.append(
                {"id": item.call_id, "type": "function", "function": {"name": item.name, "arguments": item.arguments}}
            )
        elif kind == "reasoning":
            thoughts.extend(part.text for part in getattr(item, "summary", None) or [])
    out: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        out["tool_calls"] = calls
    if thoughts:
        out["reasoning_content"] = "\n".join(thoughts)
    return out


def responses_usage(usage: Any) -> dict[str, int]:
    if usage is None:
        return {}
    details = getattr(usage, "output_tokens_details", None)
    input_details = getattr(usage, "input_tokens_details", None)
    return {
        "prompt_tokens": int(usage.input_tokens or 0),
        "completion_tokens": int(usage.output_tokens or 0),
        "reasoning_tokens": int(getattr(details, "reasoning_tokens", 0) or 0),
        "cached_tokens": int(getattr(input_details, "cached_tokens", 0) or 0),
    }
