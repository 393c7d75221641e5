"""``ChatWrapper``: an officegym episode as an OpenAI chat transcript, with an assistant message as the action.

LLM agents see an episode as chat: a system message (the policy), the opening user message (the work order),
then assistant turns that call tools and ``tool`` messages that answer them. The wrapper keeps that transcript
in ``wrapper.messages`` (and in ``info["messages"]``) while staying a plain Gymnasium wrapper: observations are
still the env's text, rewards and the grade are unchanged, and a ``ToolCall`` dict is still a valid action.

An action may be an assistant message (a dict, an ``openai`` message object, or its text). Its tool calls
run in order, one env step each, and each result becomes a ``tool`` message with the matching
``tool_call_id``; a message without a tool call is ``finish``. Calls written into the text (Hermes tags,
JSON) are parsed (:mod:`officegym.wrappers.parsing`) and recorded as ordinary ``tool_calls`` with ids of their
own, so the transcript is valid to send back to any OpenAI-compatible server, and so are the ids a model
leaves out. ``reasoning_content`` is kept on the assistant message.

Tool-call ids. An id the wrapper makes is ``call`` + the turn in 3 base-36 digits + the call's index in 2
(``call00100`` is turn 1's first call): exactly 9 ASCII letters and digits, which Mistral's v3-family templates
and mistral-common's validator require (``^[a-zA-Z0-9]{9}$``) and every other chat template accepts; the same in
every run; unique within the episode (an id already taken moves on to the next free one). An id the model gave
is kept, and is not normalised, because the transcript is a record of what the model said: an
OpenAI-compatible server matches each ``tool_call_id`` to the id it issued, and a server for a Mistral-family
model issues 9-character ids itself, so a model's own transcript already fits its own template. A repeated id
is replaced in the model's own style: a 9-alphanumeric one by a wrapper id, any other by ``call_<turn>_<k>``,
which is what the wrapper always wrote (released v0 chat transcripts are pinned with such ids by
``tests/frozen/``). Ids only need rewriting when a transcript meets a template of another family (a Qwen
transcript as SFT data for a Mistral model): ``officegym.integrations.hf_messages.to_hf_messages`` does it,
with ``short_call_ids=True``, which ``template_options`` sets for templates that check the id's length.

Output that tries to call a tool but cannot be read costs one env step (the env counts it as an invalid
call) and answers with an ``Error: ...`` observation that shows the expected format. A broken native call has
an id, so its error is its ``tool`` message; a message whose written calls cannot be read has no id to answer,
and a ``tool`` message without one is refused by chat servers, so that error comes back as a ``user``
message and nothing in the broken message runs.

The transcript is always valid to send back. A broken native call's arguments are recorded as the JSON object
``{"_unparsed_arguments": "<what the model sent>"}``: servers that re-parse replayed arguments (vLLM answers
HTTP 400 to arguments that are not JSON, to every later request of the episode) accept it, the raw text stays
in the transcript, and ``step`` unwraps it again, so a stored transcript replays to the same error.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, SupportsFloat

import gymnasium as gym

from ..envs.core.actions import FINISH, FINISH_SCHEMA
from .parsing import FORMAT_HINT, NATIVE, CallError, ParsedCall, ParsedMessage, parse_assistant_message

FINISH_ACTION: dict[str, Any] = {"name": FINISH, "arguments": {}}
UNPARSED_KEY = "unparsed_output"
UNPARSED_ARGUMENTS = "_unparsed_arguments"
_WRAPPED_PREFIX = json.dumps({UNPARSED_ARGUMENTS: ""})[:-3]  # '{"_unparsed_arguments": ' as json.dumps writes it
STEP_SEPARATOR = "\n\n"

StepResult = tuple[str, SupportsFloat, bool, bool, dict[str, Any]]


@dataclass
class ChatStats:
    """Per-episode counters of how the model talked, reported in ``info["chat"]``."""

    assistant_turns: int = 0
    tool_calls: int = 0
    parse_errors: int = 0
    skipped_calls: int = 0
    reasoning_turns: int = 0
    formats: Counter[str] = field(default_factory=Counter)
    parse_error_kinds: Counter[str] = field(default_factory=Counter)

    def count(self, parsed: ParsedMessage) -> None:
        self.assistant_turns += 1
        self.formats[parsed.format] += 1
        self.parse_errors += len(parsed.errors)
        self.parse_error_kinds.update(error.kind for error in parsed.errors)
        self.reasoning_turns += parsed.reasoning is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "assistant_turns": self.assistant_turns,
            "tool_calls": self.tool_calls,
            "parse_errors": self.parse_errors,
            "parse_error_kinds": dict(sorted(self.parse_error_kinds.items())),
            "skipped_calls": self.skipped_calls,
            "reasoning_turns": self.reasoning_turns,
            "formats": dict(sorted(self.formats.items())),
        }


class ChatWrapper(gym.Wrapper[str, Any, str, Any], gym.utils.RecordConstructorArgs):
    """Keeps the episode as OpenAI chat messages and accepts an assistant message as the action.

    ``offer_finish=True`` adds the reserved ``finish`` tool to ``tools`` (by default a reply without a tool
    call finishes, as in any chat). After the episode ends, ``stop_reason`` is ``"finish"``,
    ``"terminal_tool"`` (a domain tool such as ``submit_recommendation`` ended it) or ``"max_turns"``.
    ``calls`` logs every call the model tried: turn, id, name, arguments, its ``parse_error`` kind if it could
    not be read, and whether it ``failed`` (unreadable, or the tool answered ``Error: ...``).
    """

    def __init__(self, env: gym.Env[str, Any], *, offer_finish: bool = False) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, offer_finish=offer_finish)  # env.spec can rebuild it
        gym.Wrapper.__init__(self, env)
        self.offer_finish = offer_finish
        self._clear()

    def _clear(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.stats = ChatStats()
        self.turn = 0
        self.stop_reason: str | None = None
        self.grade: dict[str, Any] | None = None
        self._used_ids: set[str] = set()

    # ----------------------------------------------------------------- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self._clear()
        self.tools = [*info.get("tools", []), *([FINISH_SCHEMA] if self.offer_finish else [])]
        self.messages = [
            {"role": "system", "content": info.get("system_prompt", "")},
            {"role": "user", "content": observation},
        ]
        return observation, {**info, "tools": self.tools, "messages": list(self.messages), "chat": self.stats.as_dict()}

    def step(self, action: Any) -> StepResult:
        if self.stop_reason is not None or not self.messages:
            return self.env.step(FINISH_ACTION)  # the env answers that the episode is over
        self.turn += 1
        start = len(self.messages)
        message = _unwrap_unparsed(assistant_message(action))
        parsed = parse_assistant_message(message) if message is not None else _unreadable(action)
        self.stats.count(parsed)
        if not parsed.items:
            results = [self._finish(parsed)]
        elif parsed.format != NATIVE and parsed.errors:
            results = [self._reject(parsed)]
        else:
            results = self._run_calls(parsed, message)
        return self._combine(results, start)

    def end(self, reason: str) -> StepResult:
        """End a running episode without an assistant message (the model can no longer answer, e.g. its
        context is full): ``finish`` is sent to the env, the episode is graded, ``stop_reason`` is ``reason``."""
        if self.stop_reason is not None or not self.messages:
            return self.env.step(FINISH_ACTION)
        result = self._env_step(FINISH_ACTION)
        self.stop_reason = reason
        return self._combine([result], len(self.messages))

    # ----------------------------------------------------------------- the three kinds of turn
    def _finish(self, parsed: ParsedMessage) -> StepResult:
        self.messages.append(self._assistant(parsed, None))
        return self._env_step(FINISH_ACTION)

    def _reject(self, parsed: ParsedMessage) -> StepResult:
        """Written calls that cannot be read: one invalid env step, the error as a user message."""
        self.messages.append(self._assistant(parsed, None))
        details = "; ".join(error.detail for error in parsed.errors)
        text = f"Error: {details}. Nothing in that message was run. {FORMAT_HINT}"
        self._log(None, None, {}, parsed.errors[0].kind)
        _, reward, terminated, truncated, info = self._env_step({UNPARSED_KEY: parsed.text[:300]})
        self.messages.append({"role": "user", "content": text})
        return text, reward, terminated, truncated, info

    def _run_calls(self, parsed: ParsedMessage, message: Mapping[str, Any] | None) -> list[StepResult]:
        ids = [self._call_id(item.call_id, k) for k, item in enumerate(parsed.items)]
        self.messages.append(self._assistant(parsed, ids, message))
        results = []
        for call_id, item in zip(ids, parsed.items, strict=True):
            if self.stop_reason is not None:
                self.stats.skipped_calls += 1
                self._tool_message(call_id, "Error: not run: the episode had already ended.")
                continue
            result = self._run_one(call_id, item)
            self._tool_message(call_id, result[0])
            results.append(result)
        return results

    def _run_one(self, call_id: str, item: ParsedCall | CallError) -> StepResult:
        if isinstance(item, CallError):
            self._log(call_id, item.name, {}, item.kind)
            _, reward, terminated, truncated, info = self._env_step({UNPARSED_KEY: item.raw})
            return item.message(), reward, terminated, truncated, info
        self._log(call_id, item.name, item.arguments, None)
        result = self._env_step(item.as_action())
        self.calls[-1]["failed"] = bool(result[4].get("is_error"))
        return result

    # ----------------------------------------------------------------- helpers
    def _env_step(self, action: dict[str, Any]) -> StepResult:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if action is not FINISH_ACTION:
            self.stats.tool_calls += 1
        if terminated or truncated:
            self.grade = info.get("grade")
            name = action.get("name")
            self.stop_reason = (
                "max_turns" if truncated and not terminated else ("finish" if name == FINISH else "terminal_tool")
            )
        return observation, reward, terminated, truncated, info

    def _combine(self, results: list[StepResult], start: int) -> StepResult:
        observation = STEP_SEPARATOR.join(r[0] for r in results)
        reward = sum(float(r[1]) for r in results)
        _, _, terminated, truncated, info = results[-1]
        info = {
            **info,
            "new_messages": self.messages[start:],
            "messages": list(self.messages),
            "chat": self.stats.as_dict(),
        }
        if self.stop_reason is not None:
            info["stop_reason"] = self.stop_reason
        return observation, reward, terminated, truncated, info

    def _call_id(self, given: str | None, k: int) -> str:
        """The id of call ``k`` of this turn: the model's if it gave a new one, else one of ours (module
        docstring: "Tool-call ids")."""
        if given and given not in self._used_ids:
            call_id = given
        elif given and not is_short_call_id(given):
            call_id = f"call_{self.turn}_{k}"
            while call_id in self._used_ids:
                call_id += "_"
        else:
            return fresh_call_id(self.turn, k, self._used_ids)
        self._used_ids.add(call_id)
        return call_id

    def _assistant(
        self, parsed: ParsedMessage, ids: list[str] | None, original: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The assistant message as recorded: prose, tool calls with ids, reasoning."""
        out: dict[str, Any] = {"role": "assistant", "content": parsed.content}
        if ids is not None:
            native = original.get("tool_calls") if original is not None and parsed.format == NATIVE else None
            out["tool_calls"] = [
                _tool_call_entry(call_id, item, native[k] if native else None)
                for k, (call_id, item) in enumerate(zip(ids, parsed.items, strict=True))
            ]
        elif parsed.errors:
            out["content"] = parsed.text
        if parsed.reasoning is not None:
            out["reasoning_content"] = parsed.reasoning
        return out

    def _tool_message(self, call_id: str, content: str) -> None:
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": content})

    def _log(self, call_id: str | None, name: str | None, arguments: dict[str, Any], error: str | None) -> None:
        self.calls.append(
            {
                "turn": self.turn,
                "id": call_id,
                "name": name,
                "arguments": arguments,
                "parse_error": error,
                "failed": error is not None,
            }
        )


_ID_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_ID_SPACE = len(_ID_DIGITS) ** 5
_SHORT_ID = re.compile(r"[A-Za-z0-9]{9}")


def is_short_call_id(value: Any) -> bool:
    """Whether ``value`` is a tool-call id Mistral's templates accept: exactly 9 ASCII letters and digits."""
    return isinstance(value, str) and _SHORT_ID.fullmatch(value) is not None


def short_call_id(number: int) -> str:
    """``call`` + ``number`` (modulo 36**5) in 5 base-36 digits: 9 alphanumerics."""
    number %= _ID_SPACE
    digits = ""
    for _ in range(5):
        number, digit = divmod(number, len(_ID_DIGITS))
        digits = _ID_DIGITS[digit] + digits
    return "call" + digits


def fresh_call_id(turn: int, k: int, used: set[str]) -> str:
    """The first free id from ``short_call_id(turn * 36**2 + k)`` on (``call`` + turn in 3 base-36 digits + k in
    2 while they fit), added to ``used``. Deterministic, and it always ends: ``used`` is smaller than the space."""
    number = turn * len(_ID_DIGITS) ** 2 + k
    while short_call_id(number) in used:
        number += 1
    call_id = short_call_id(number)
    used.add(call_id)
    return call_id


def assistant_message(action: Any) -> dict[str, Any] | None:
    """The action as an assistant message dict, or ``None`` if it cannot be one.

    Accepts a message dict, an ``openai`` message object (anything with ``model_dump``), the message text,
    one ``ToolCall`` dict ``{"name", "arguments"}`` or a list of them (what Gymnasium users send).
    """
    if hasattr(action, "model_dump"):
        action = action.model_dump(exclude_none=True)
    if isinstance(action, str):
        return {"role": "assistant", "content": action}
    if isinstance(action, Mapping):
        return _from_tool_calls([action]) if _is_tool_call(action) else dict(action)
    if isinstance(action, list | tuple) and action and all(_is_tool_call(a) for a in action):
        return _from_tool_calls(list(action))
    return None


def _is_tool_call(action: Any) -> bool:
    return isinstance(action, Mapping) and "name" in action and "role" not in action and "tool_calls" not in action


def _from_tool_calls(calls: list[Mapping[str, Any]]) -> dict[str, Any]:
    entries = [
        {"type": "function", "function": {"name": c.get("name"), "arguments": c.get("arguments", {})}} for c in calls
    ]
    return {"role": "assistant", "content": None, "tool_calls": entries}


def _unreadable(action: Any) -> ParsedMessage:
    kind = type(action).__name__
    error = CallError(
        "not_an_object", f"an action must be an assistant message or a tool call, got {kind}", repr(action)[:300]
    )
    return ParsedMessage("unreadable", [error], None, None, repr(action)[:300])


def _tool_call_entry(call_id: str, item: ParsedCall | CallError, native: Any) -> dict[str, Any]:
    """One ``tool_calls`` entry in OpenAI format. A broken native call keeps what the model sent, wrapped in a
    JSON object (see the module docstring): the raw text for the record, valid JSON for the server."""
    if isinstance(item, ParsedCall):
        arguments = item.raw_arguments or json.dumps(item.arguments, ensure_ascii=False)
        return {"id": call_id, "type": "function", "function": {"name": item.name, "arguments": arguments}}
    function = native.get("function") if isinstance(native, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    raw = function.get("arguments") if isinstance(function, Mapping) else item.raw
    text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=repr)
    return {
        "id": call_id,
        "type": "function",
        "function": {
            "name": name if isinstance(name, str) else "",
            "arguments": json.dumps({UNPARSED_ARGUMENTS: text}, ensure_ascii=False),
        },
    }


def _unwrap_unparsed(message: dict[str, Any] | None) -> dict[str, Any] | None:
    """The message with every wrapped broken call's arguments back as the raw text the model sent, so a
    recorded transcript steps to the same errors as the original reply. Other messages pass untouched."""
    calls = message.get("tool_calls") if message is not None else None
    if message is None or not isinstance(calls, list):
        return message
    unwrapped = [_unwrapped_call(call) for call in calls]
    if all(new is old for new, old in zip(unwrapped, calls, strict=True)):
        return message
    return {**message, "tool_calls": unwrapped}


def _unwrapped_call(call: Any) -> Any:
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping):
        return call
    arguments = function.get("arguments")
    if not isinstance(arguments, str) or not arguments.startswith(_WRAPPED_PREFIX):
        return call  # the cheap test first: this runs on every native call
    try:
        decoded = json.loads(arguments)
    except ValueError:
        return call
    raw = decoded.get(UNPARSED_ARGUMENTS) if isinstance(decoded, dict) and len(decoded) == 1 else None
    return {**call, "function": {**function, "arguments": raw}} if isinstance(raw, str) else call
