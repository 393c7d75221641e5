"""officegym chat transcripts in the shape Hugging Face chat templates render correctly.

``ChatWrapper`` (and every results file of ``officegym eval``) stores transcripts as the OpenAI API sends them:
tool-call ``arguments`` as a JSON *string*, ``content: None`` on a turn that only calls tools, the model's
reasoning under ``reasoning_content``. Chat templates of open models (TRL ships a collection in
``trl/chat_templates/``) expect something else, and most fail silently rather than loudly on the OpenAI form:

- ``arguments`` must be an object. Templates that write ``arguments | tojson`` (Qwen2.5, Llama 3.1/3.2,
  gpt-oss) turn a string into a JSON string of escaped JSON, a different text from what the model is trained to
  emit; templates that write key/value pairs (Qwen3.5+, GLM, Nemotron, LFM2, Gemma 4) fail or wrap it again.
- ``content`` must be a string: ``None`` renders as "None"/"null" or breaks string concatenation.
- reasoning is read as ``reasoning_content`` by most templates and as ``thinking`` by gpt-oss and LFM2.5.
- Mistral's v3-family templates refuse a tool-call id that is not exactly 9 characters (mistral-common's
  validator: 9 ASCII letters and digits). ``ChatWrapper``'s own ids are, but it keeps the ids a model gave, and
  OpenAI-style ids (``call_...``, vLLM's ``chatcmpl-tool-...``) are not.

:func:`to_hf_messages` converts a transcript; :func:`template_options` reads from a template's source the four
things that differ between templates (which reasoning field it reads, whether it pastes ``arguments`` into a
string, whether it takes one tool call per assistant turn, whether it checks the ids' length), so that
``to_hf_messages(messages, **template_options(tokenizer.chat_template))`` fits any of them. Nothing here
imports an optional package: the conversion is plain data.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from ..wrappers.chat import UNPARSED_ARGUMENTS, fresh_call_id, is_short_call_id

__all__ = ["REASONING_FIELDS", "TemplateOptions", "template_options", "to_hf_messages"]

REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")
"""Where transcripts keep the model's reasoning (officegym writes the first); read in this order."""

_THINKING_READ = re.compile(r"""message\s*(\.thinking\b|\[\s*['"]thinking['"]\s*\]|\.get\(\s*['"]thinking['"])""")
_THINKING_TEST = re.compile(r"""['"]thinking['"]\s+in\s+message\b""")
_ARGUMENTS_CONCATENATED = re.compile(r"""\+\s*[\w.\[\]'"]*\barguments\b['"]?\]?\s*\+""")
_FIRST_CALL = re.compile(r"""tool_calls\s*\[\s*0\s*\]""")
_CALL_LOOP = re.compile(r"""for\s+\w+\s+in\s+message\s*(\.tool_calls|\[\s*['"]tool_calls['"]\s*\])""")
_ID_LENGTH_CHECK = re.compile(r"""(\.id|_id|\[\s*['"](tool_call_)?id['"]\s*\])\s*\|\s*length\s*(!=|==)\s*9\b""")


class TemplateOptions(TypedDict):
    """The keyword arguments of :func:`to_hf_messages` that depend on the chat template."""

    reasoning_key: str | None
    arguments_as_text: bool
    one_call_per_message: bool
    short_call_ids: bool


def template_options(chat_template: str) -> TemplateOptions:
    """What ``chat_template`` (its Jinja source) needs, read from the source without rendering it.

    - ``reasoning_key``: ``"reasoning_content"`` if the template reads it, else ``"thinking"`` if it reads that
      off the message, else None (the template shows no reasoning, so it is dropped).
    - ``arguments_as_text``: the template concatenates ``arguments`` into a string with ``+`` (the original
      DeepSeek-V3 template), which only works on the JSON text.
    - ``one_call_per_message``: the template reads only ``tool_calls[0]`` of an assistant turn: Llama 3.1 and
      3.2 refuse a turn with more calls, gpt-oss silently renders the first one only.
    - ``short_call_ids``: the template checks that an id (``tool_call.id``, ``tool_call_id``) has length 9, as
      Mistral's v3-family templates do before they raise "Tool call IDs should be alphanumeric strings with
      length 9!".
    """
    if "reasoning_content" in chat_template:
        reasoning_key: str | None = "reasoning_content"
    elif _THINKING_READ.search(chat_template) or _THINKING_TEST.search(chat_template):
        reasoning_key = "thinking"
    else:
        reasoning_key = None
    return {
        "reasoning_key": reasoning_key,
        "arguments_as_text": bool(_ARGUMENTS_CONCATENATED.search(chat_template)),
        "one_call_per_message": bool(_FIRST_CALL.search(chat_template)) and not _CALL_LOOP.search(chat_template),
        "short_call_ids": bool(_ID_LENGTH_CHECK.search(chat_template)),
    }


def to_hf_messages(
    messages: Iterable[Mapping[str, Any]],
    *,
    reasoning_key: str | None = "reasoning_content",
    arguments_as_text: bool = False,
    one_call_per_message: bool = False,
    short_call_ids: bool = False,
) -> list[dict[str, Any]]:
    """A copy of ``messages`` (OpenAI chat format) that Hugging Face chat templates render as intended.

    - Tool-call ``arguments`` become objects (a dict). Text that is not a JSON object (a broken call kept by
      ``ChatWrapper``) becomes ``{"_unparsed_arguments": text}``, the wrapper's own convention, so the raw text
      stays visible. ``arguments_as_text=True`` writes the object back as JSON text instead.
    - ``content: None`` (or missing) becomes ``""``; other keys that are None are dropped, as are empty
      ``tool_calls`` lists (templates test for the key, not for its length).
    - Reasoning (``reasoning_content``, ``reasoning`` or ``thinking``) moves to ``reasoning_key``; None drops it.
    - ``tool`` messages get the ``name`` of the call they answer (matched by ``tool_call_id``), which several
      templates print and gpt-oss needs.
    - ``one_call_per_message=True`` splits an assistant turn with several calls into one turn per call, each
      followed by its result (``ChatWrapper`` runs the calls in order, one env step each, so this is the same
      episode). Content and reasoning stay on the first of them.
    - ``short_call_ids=True`` gives every tool call whose id is not 9 ASCII letters and digits (or that has none)
      a new id of ``ChatWrapper``'s kind (``call`` + 5 base-36 digits, from the turn and the call's index), and
      the ``tool`` messages that answer it the same; ids that already fit are kept, and no new id repeats one.

    The input is not modified.
    """
    messages = list(messages)
    renamer = _CallIdRenamer(messages) if short_call_ids else None
    names: dict[str, str] = {}
    converted: list[dict[str, Any]] = []
    for message in messages:
        out = _convert(message, reasoning_key, arguments_as_text)
        if renamer is not None:
            renamer.rename(out)
        for call in out.get("tool_calls", ()):
            if (
                isinstance(call, Mapping)
                and isinstance(call.get("id"), str)
                and isinstance(call.get("function"), Mapping)
            ):
                names[call["id"]] = str(call["function"].get("name", ""))
        if out.get("role") == "tool" and "name" not in out and out.get("tool_call_id") in names:
            out["name"] = names[out["tool_call_id"]]
        converted.append(out)
    return _one_call_per_message(converted) if one_call_per_message else converted


def _convert(message: Mapping[str, Any], reasoning_key: str | None, arguments_as_text: bool) -> dict[str, Any]:
    out = {key: value for key, value in message.items() if value is not None and key not in REASONING_FIELDS}
    out["content"] = "" if message.get("content") is None else message["content"]
    reasoning = next((message[key] for key in REASONING_FIELDS if message.get(key)), None)
    if reasoning is not None and reasoning_key is not None:
        out[reasoning_key] = reasoning
    calls = out.pop("tool_calls", None)
    if isinstance(calls, list) and calls:
        out["tool_calls"] = [_call(call, arguments_as_text) for call in calls]
    return out


def _call(call: Any, arguments_as_text: bool) -> Any:
    """One tool call with its arguments as an object (or canonical JSON text). Anything that is not a call in
    OpenAI's shape passes unchanged: the template decides what to make of it."""
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping):
        return call
    arguments = arguments_object(function.get("arguments"))
    value: Any = json.dumps(arguments, ensure_ascii=False) if arguments_as_text else arguments
    return {**call, "type": call.get("type") or "function", "function": {**function, "arguments": value}}


def arguments_object(arguments: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict: a mapping is copied, JSON text of an object is decoded, nothing becomes
    ``{}``, and anything else is kept as ``{"_unparsed_arguments": <the text>}``."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except ValueError:
            return {UNPARSED_ARGUMENTS: arguments}
        return decoded if isinstance(decoded, dict) else {UNPARSED_ARGUMENTS: arguments}
    return {UNPARSED_ARGUMENTS: json.dumps(arguments, ensure_ascii=False, default=repr)}


class _CallIdRenamer:
    """Rewrites the ids a length-checking template refuses, consistently in the calls and in the ``tool``
    messages that answer them (a ``tool`` message answers the latest call with its id)."""

    def __init__(self, messages: list[Mapping[str, Any]]) -> None:
        self.used: set[str] = {
            call["id"]
            for message in messages
            for call in message.get("tool_calls") or ()
            if isinstance(call, Mapping) and is_short_call_id(call.get("id"))
        }
        self.renamed: dict[str, str] = {}
        self.turn = 0

    def rename(self, message: dict[str, Any]) -> None:
        answered = message.get("tool_call_id")
        if message.get("role") == "tool" and isinstance(answered, str) and answered in self.renamed:
            message["tool_call_id"] = self.renamed[answered]
        calls = message.get("tool_calls")
        if not calls:
            return
        self.turn += 1
        message["tool_calls"] = [self._call(call, k) for k, call in enumerate(calls)]

    def _call(self, call: Any, k: int) -> Any:
        if not isinstance(call, Mapping) or is_short_call_id(call.get("id")):
            return call
        new = fresh_call_id(self.turn, k, self.used)
        if isinstance(call.get("id"), str):
            self.renamed[call["id"]] = new
        return {**call, "id": new}


def _one_call_per_message(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Interleave each multi-call assistant turn with the tool messages that follow it, by position."""
    out: list[dict[str, Any]] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        calls = message.get("tool_calls", [])
        index += 1
        if message.get("role") != "assistant" or len(calls) < 2:
            out.append(message)
            continue
        results: list[dict[str, Any]] = []
        while index < len(messages) and messages[index].get("role") == "tool" and len(results) < len(calls):
            results.append(messages[index])
            index += 1
        for k, call in enumerate(calls):
            turn: dict[str, Any] = dict(message) if k == 0 else {"role": "assistant", "content": ""}
            turn["tool_calls"] = [call]
            out.append(turn)
            out.extend(results[k : k + 1])
    return out
