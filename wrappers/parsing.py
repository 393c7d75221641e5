"""Turning an assistant message into tool calls, whatever way the model wrote them.

Models call tools in several dialects. Servers with a tool parser return OpenAI ``tool_calls``; models served
without one write the calls into the text: a bare JSON object, JSON in a code fence, or Hermes/Qwen
``<tool_call>...</tool_call>`` tags, sometimes several per message, sometimes after a ``<think>`` block. One
parser that accepts all of them lets the same environment score every model on its work and not on its
server's configuration.

Output that tries to call a tool but cannot be read becomes a :class:`CallError` with a ``kind`` (for the
diagnostics) and a sentence for the model; parsing never raises. A message that does not try to call a tool
at all (plain prose) parses to no calls, which the chat wrapper reads as ``finish``.

What counts as trying: a ``<tool_call>`` tag; a code fence labelled ``json`` (or unlabelled) whose body starts
with ``{`` or ``[``; a message whose whole text is JSON; a JSON object with ``name`` and ``arguments`` inside
prose. A JSON summary written as a final answer therefore reads as a malformed call; the error's hint tells
the model that a reply without a tool call finishes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

FORMAT_HINT = (
    "Call a tool through the tools API, or write each call as one JSON object "
    '{"name": "<tool>", "arguments": {...}} inside <tool_call></tool_call> tags. '
    "To finish, reply without any tool call."
)

ERROR_KINDS = ("invalid_json", "unclosed_tag", "empty_call", "not_an_object", "missing_name", "invalid_arguments")

NATIVE, HERMES, FENCED, BARE, NONE = "tool_calls", "hermes", "fenced_json", "bare_json", "none"

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL)
_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"```([\w-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_FENCE_LANGS = ("", "json", "jsonc", "tool_call", "tool_calls", "tool_code")
_PREFIXES = ("[TOOL_CALLS]", "<|python_tag|>")
_MAX_SCAN = 64
_CLIP = 300


@dataclass(frozen=True)
class ParsedCall:
    """One readable tool call. ``call_id`` is the id the model gave (native tool calls only)."""

    name: str
    arguments: dict[str, Any]
    call_id: str | None = None
    raw_arguments: str | None = None

    def as_action(self) -> dict[str, Any]:
        """The env action ``{"name", "arguments"}``."""
        return {"name": self.name, "arguments": self.arguments}


@dataclass(frozen=True)
class CallError:
    """A tool call the model tried to make but that cannot be read; ``kind`` is one of ``ERROR_KINDS``."""

    kind: str
    detail: str
    raw: str
    call_id: str | None = None
    name: str | None = None

    def message(self) -> str:
        """The ``Error: ...`` text the model reads, with the hint on the expected format."""
        return f"Error: {self.detail}. {FORMAT_HINT}"


@dataclass(frozen=True)
class ParsedMessage:
    """An assistant message read as tool calls.

    ``items`` keeps calls and errors in the order the model wrote them. ``content`` is the prose left once the
    calls written into the text are taken out (``None`` if nothing is left); ``reasoning`` is the message's
    ``reasoning_content`` (or ``reasoning``), else the text of a leading ``<think>`` block; ``text`` is the
    message text that was parsed (without that block).
    """

    format: str
    items: list[ParsedCall | CallError] = field(default_factory=list)
    content: str | None = None
    reasoning: str | None = None
    text: str = ""

    @property
    def calls(self) -> list[ParsedCall]:
        return [item for item in self.items if isinstance(item, ParsedCall)]

    @property
    def errors(self) -> list[CallError]:
        return [item for item in self.items if isinstance(item, CallError)]


def parse_assistant_message(message: Mapping[str, Any] | str | None) -> ParsedMessage:
    """Read an OpenAI assistant message (or its bare text) as tool calls. Never raises."""
    if not isinstance(message, Mapping):
        message = {"content": message}
    reasoning = _text_or_none(message.get("reasoning_content")) or _text_or_none(message.get("reasoning"))
    text = _content_text(message.get("content"))
    thought, text = _split_think(text)
    reasoning = reasoning or thought
    native = message.get("tool_calls")
    if isinstance(native, list) and native:
        items = [_native_call(entry, index) for index, entry in enumerate(native)]
        return ParsedMessage(NATIVE, items, text or None, reasoning, text)
    parsed = parse_text(text)
    return ParsedMessage(parsed.format, parsed.items, parsed.content, reasoning, text)


def parse_text(text: str) -> ParsedMessage:
    """Read tool calls written into text: Hermes tags, JSON code fences, a bare JSON message, or a call-shaped
    JSON object inside prose, tried in that order. Prose with none of them parses to no calls."""
    for prefix in _PREFIXES:
        if text.lstrip().startswith(prefix):
            text = text.lstrip()[len(prefix) :]
    if "<tool_call>" in text:
        return _from_tags(text)
    fences = [m for m in _FENCE.finditer(text) if _json_fence(m)]
    if fences:
        return _from_fences(text, fences)
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        items = _calls_from_json(stripped, stripped)
        return ParsedMessage(BARE, items, None)
    embedded, rest = _embedded_calls(text)
    if embedded:
        return ParsedMessage(BARE, list(embedded), rest or None)
    return ParsedMessage(NONE, [], stripped or None)


# --------------------------------------------------------------------------- native OpenAI tool_calls
def _native_call(entry: Any, index: int) -> ParsedCall | CallError:
    if not isinstance(entry, Mapping):
        return CallError("not_an_object", f"tool call {index + 1} is not an object", _clip(entry))
    given = entry.get("id")
    call_id = given if isinstance(given, str) and given else None
    function = entry.get("function")
    if not isinstance(function, Mapping):
        return CallError("not_an_object", f"tool call {index + 1} has no function object", _clip(entry), call_id)
    name = function.get("name")
    if not isinstance(name, str) or not name.strip():
        return CallError("missing_name", f"tool call {index + 1} has no function name", _clip(function), call_id)
    raw = function.get("arguments")
    arguments, problem = _decode_arguments(raw, name)
    if problem:
        kind = "invalid_json" if isinstance(raw, str) and arguments is None else "invalid_arguments"
        return CallError(kind, problem, _clip(raw), call_id, name)
    raw_text = raw if isinstance(raw, str) and raw.strip() else json.dumps(arguments, ensure_ascii=False)
    return ParsedCall(name, arguments or {}, call_id, raw_text)


def _decode_arguments(raw: Any, name: str) -> tuple[dict[str, Any] | None, str | None]:
    """Arguments as a dict; a JSON string is decoded, empty means none. Returns (arguments, problem)."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if isinstance(raw, str):
        raw, problem = _loads(raw)
        if problem:
            return None, f"the arguments of '{name[:60]}' are not valid JSON ({problem})"
    if not isinstance(raw, dict):
        return {}, f"the arguments of '{name[:60]}' must be a JSON object, got {_json_type(raw)}"
    return raw, None


# --------------------------------------------------------------------------- calls written into text
def _from_tags(text: str) -> ParsedMessage:
    items: list[ParsedCall | CallError] = []
    for match in _TAG.finditer(text):
        body = _unfence(match.group(1).strip())
        closed = match.group(0).endswith("</tool_call>")
        if not body:
            items.append(CallError("empty_call", "a <tool_call> tag is empty", match.group(0)))
            continue
        found = _calls_from_json(body, match.group(0))
        if not closed and any(isinstance(i, CallError) and i.kind == "invalid_json" for i in found):
            found = [
                CallError(
                    "unclosed_tag",
                    "a <tool_call> tag is not closed and its JSON is cut off (was the reply truncated?)",
                    _clip(match.group(0)),
                )
            ]
        items.extend(found)
    rest = _TAG.sub("", text).strip()
    return ParsedMessage(HERMES, items, rest or None)


def _json_fence(match: re.Match[str]) -> bool:
    return match.group(1).lower() in _FENCE_LANGS and match.group(2).lstrip().startswith(("{", "["))


def _from_fences(text: str, fences: list[re.Match[str]]) -> ParsedMessage:
    items: list[ParsedCall | CallError] = []
    for match in fences:
        items.extend(_calls_from_json(match.group(2).strip(), match.group(0)))
    rest = text
    for match in fences:
        rest = rest.replace(match.group(0), "", 1)
    return ParsedMessage(FENCED, items, rest.strip() or None)


def _calls_from_json(body: str, raw: str) -> list[ParsedCall | CallError]:
    """One JSON value holding a call object or a list of them."""
    value, problem = _loads(body)
    if problem:
        return [CallError("invalid_json", f"the tool call is not valid JSON ({problem})", _clip(raw))]
    values = value if isinstance(value, list) else [value]
    if not values:
        return [CallError("empty_call", "the tool call list is empty", _clip(raw))]
    return [_call_from_object(v, raw) for v in values]


def _call_from_object(value: Any, raw: str) -> ParsedCall | CallError:
    if not isinstance(value, dict):
        return CallError("not_an_object", f"a tool call must be a JSON object, got {_json_type(value)}", _clip(raw))
    if isinstance(value.get("function"), dict):  # the OpenAI shape {"type": "function", "function": {...}}
        value = value["function"]
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        return CallError("missing_name", 'the tool call has no "name" (a non-empty string)', _clip(raw))
    raw_args = value.get("arguments", value.get("parameters"))
    arguments, problem = _decode_arguments(raw_args, name)
    if problem or arguments is None:
        return CallError("invalid_arguments", problem or "invalid arguments", _clip(raw), name=name)
    return ParsedCall(name, arguments, None, json.dumps(arguments, ensure_ascii=False))


def _embedded_calls(text: str) -> tuple[list[ParsedCall], str]:
    """Call-shaped JSON objects (``name`` and ``arguments``/``parameters``) inside prose, and the prose left."""
    decoder = json.JSONDecoder()
    calls: list[ParsedCall] = []
    rest, position, scanned = [], 0, 0
    while scanned < _MAX_SCAN and (start := text.find("{", position)) >= 0:
        scanned += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            rest.append(text[position : start + 1])
            position = start + 1
            continue
        call = _call_from_object(value, text[start:end]) if _call_shaped(value) else None
        if isinstance(call, ParsedCall):
            calls.append(call)
            rest.append(text[position:start])
        else:
            rest.append(text[position:end])
        position = end
    rest.append(text[position:])
    return calls, "".join(rest).strip()


def _call_shaped(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and ("arguments" in value or "parameters" in value)
    )


# --------------------------------------------------------------------------- small helpers
def _loads(text: str) -> tuple[Any, str | None]:
    """``json.loads`` that reports instead of raising (deep nesting included)."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        return None, f"{error.msg} at line {error.lineno} column {error.colno}"
    except (ValueError, RecursionError) as error:
        return None, type(error).__name__


def _split_think(text: str) -> tuple[str | None, str]:
    """Take a ``<think>...</think>`` block out of the text, so calls drafted while thinking are not run."""
    if "</think>" in text and "<think>" not in text:  # the opening tag was part of the prompt template
        thought, _, rest = text.partition("</think>")
        return thought.strip() or None, rest.strip()
    match = _THINK.search(text)
    if match is None:
        return None, text
    return match.group(1).strip() or None, (text[: match.start()] + text[match.end() :]).strip()


def _unfence(body: str) -> str:
    match = _FENCE.fullmatch(body)
    return match.group(2).strip() if match else body


def _content_text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _json_type(value: Any) -> str:
    names = {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def _clip(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= _CLIP else text[:_CLIP] + "..."
