"""``to_hf_messages`` against every chat template TRL ships, on real officegym transcripts.

Each transcript is a gold path played through ``ChatWrapper`` with assistant messages as an OpenAI-compatible
server returns them (arguments as JSON text, ``content: None``, ``reasoning_content``), one of them with two
parallel calls. Templates are rendered with a Jinja environment set up as ``transformers`` sets up its own (same
sandbox, ``tojson`` and globals) but without the clean-up ``apply_chat_template`` does on the messages, so what
is checked is the converted messages themselves; one test checks that both renderings agree.

"Arguments appear exactly once" is checked per call by rendering the transcript a second time with only that
call's arguments emptied: every argument name must appear exactly once more, never as escaped JSON; templates
that print arguments as JSON (``arguments | tojson``, or pasted JSON text) must show the JSON object exactly once
more, and templates that print key/value pairs of their own syntax must not show it at all (Gemma 4 pastes a
JSON string between its own braces).
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from collections.abc import Callable
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import gymnasium as gym
import jinja2
import jinja2.ext
import jinja2.nodes
import pytest
import trl
from jinja2.sandbox import ImmutableSandboxedEnvironment
from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast
from trl.chat_template_utils import supports_tool_calling

import officegym
from officegym.integrations.hf_messages import TemplateOptions, arguments_object, template_options, to_hf_messages
from officegym.wrappers import ChatWrapper
from officegym.wrappers.chat import UNPARSED_ARGUMENTS

TEMPLATES = sorted((Path(trl.__file__).parent / "chat_templates").glob("*.jinja"))
ENV_IDS = tuple(officegym.ENV_IDS)
REASONING = "(reasoning #{k}) The policy says to look at this next."
JSON_ARGUMENTS = re.compile(r"""arguments['"]?\]?\s*\|\s*tojson""")
Transcript = tuple[list[dict[str, Any]], list[dict[str, Any]]]
TokenizerFast: Any = PreTrainedTokenizerFast  # transformers leaves its __init__ unannotated


# ----------------------------------------------------------------- rendering as transformers does
class _Generation(jinja2.ext.Extension):
    """``{% generation %}`` (training templates mark the assistant's tokens with it) renders its body."""

    tags = {"generation"}  # noqa: RUF012  (jinja's own attribute)

    def parse(self, parser: Any) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller: Callable[[], str]) -> str:
        return caller()


def _raise(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(value: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None, **_: Any) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators)


@cache
def _jinja() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[_Generation, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals.update(raise_exception=_raise, strftime_now=lambda fmt: datetime.now().strftime(fmt))
    return env


@cache
def _compiled(path: Path) -> jinja2.Template:
    return _jinja().from_string(path.read_text(encoding="utf-8"))


def render(path: Path, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    return _compiled(path).render(
        messages=messages, tools=tools, add_generation_prompt=False, bos_token="<s>", eos_token="</s>"
    )


@cache
def trl_supports_tool_calling(path: Path) -> bool:
    """TRL's own verdict (``supports_tool_calling``, which ``GRPOTrainer`` checks): can the template render
    user -> assistant with tool_calls -> tool at all?"""
    tokenizer = TokenizerFast(
        tokenizer_object=Tokenizer(models.WordLevel({"<unk>": 0}, unk_token="<unk>")),
        unk_token="<unk>",
        bos_token="<unk>",
        eos_token="<unk>",
    )
    tokenizer.chat_template = path.read_text(encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bool(supports_tool_calling(tokenizer))


# ----------------------------------------------------------------- real transcripts
@cache
def transcript(env_id: str) -> Transcript:
    """The first task's gold path as a thinking model would play it: the first two calls in one turn, every
    turn with its reasoning, a closing text reply if the path does not end the episode itself."""
    env = ChatWrapper(gym.make(env_id))
    inner: Any = env.unwrapped
    task_id = inner.task_ids[0]
    env.reset(seed=0, options={"task_id": task_id})
    actions = inner.gold_actions(task_id)
    turns = [actions[:2], *([action] for action in actions[2:])]
    done = False
    for k, turn in enumerate(turns):
        calls = [
            {
                "id": f"call_{k}_{j}",
                "type": "function",
                "function": {"name": a["name"], "arguments": json.dumps(a["arguments"])},
            }
            for j, a in enumerate(turn)
        ]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": calls,
            "reasoning_content": REASONING.format(k=k),
        }
        _, _, terminated, truncated, _ = env.step(message)
        done = terminated or truncated
        if done:
            break
    if not done:
        final = {"role": "assistant", "content": "All done.", "reasoning_content": REASONING.format(k=len(turns))}
        env.step(final)
    assert env.grade is not None and env.grade["reward"] == 1.0
    return env.messages, env.tools


def calls(messages: list[dict[str, Any]]) -> list[tuple[int, int, dict[str, Any]]]:
    """(message index, call index, arguments as an object) of every tool call."""
    return [
        (i, j, arguments_object(call["function"]["arguments"]))
        for i, message in enumerate(messages)
        for j, call in enumerate(message.get("tool_calls") or [])
    ]


def emptied(messages: list[dict[str, Any]], i: int, j: int) -> list[dict[str, Any]]:
    """A copy of ``messages`` with the arguments of call ``j`` of message ``i`` emptied (in the same form)."""
    copied = copy.deepcopy(messages)
    function = copied[i]["tool_calls"][j]["function"]
    function["arguments"] = "{}" if isinstance(function["arguments"], str) else {}
    return copied


def arguments_problems(path: Path, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[str]:
    """Why the tool-call arguments in ``messages`` do not render as they should (empty: they do)."""
    try:
        full = render(path, messages, tools)
    except Exception as error:
        return [f"does not render: {type(error).__name__}: {error}"]
    source = path.read_text(encoding="utf-8")
    json_style = bool(JSON_ARGUMENTS.search(source)) or template_options(source)["arguments_as_text"]
    problems = []
    for i, j, arguments in calls(messages):
        if not arguments:
            continue
        base = render(path, emptied(messages, i, j), tools)
        text = json.dumps(arguments, ensure_ascii=False)
        escaped = json.dumps(text, ensure_ascii=False)[1:-1]
        if escaped in full:
            problems.append(f"call {i}.{j}: arguments double-encoded ({escaped[:60]}...)")
        for key in arguments:
            if full.count(key) - base.count(key) != 1:
                problems.append(f"call {i}.{j}: argument {key!r} appears {full.count(key) - base.count(key)} times")
        if full.count(text) - base.count(text) != int(json_style):
            shape = "JSON" if json_style else "key/value pairs"
            problems.append(f"call {i}.{j}: the JSON object {text[:60]} is not shown as {shape} exactly once")
    return problems


# ----------------------------------------------------------------- the tests
def test_trl_ships_templates_and_both_envs_give_transcripts_with_calls() -> None:
    assert len(TEMPLATES) > 10
    for env_id in ENV_IDS:
        messages, _ = transcript(env_id)
        assert any(len(m.get("tool_calls") or []) == 2 for m in messages)
        assert all(isinstance(c["function"]["arguments"], str) for m in messages for c in m.get("tool_calls") or [])


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_every_tool_calling_template_renders_the_arguments_exactly_once_as_objects(path: Path, env_id: str) -> None:
    """Templates TRL itself rejects for tool calling (they drop calls, refuse tool messages or system
    messages) cannot render any agent transcript; every other one must render the converted transcript right."""
    messages, tools = transcript(env_id)
    options = template_options(path.read_text(encoding="utf-8"))
    converted = to_hf_messages(messages, **options)
    if not trl_supports_tool_calling(path):
        assert not any(name in _rendered_or_empty(path, converted, tools) for name in _call_markers(converted))
        return
    assert arguments_problems(path, converted, tools) == []


def _call_markers(messages: list[dict[str, Any]]) -> list[str]:
    """Text only a rendered call could contain: each call's arguments as JSON (tool names alone also appear in
    tool schemas and work orders)."""
    return [json.dumps(arguments, ensure_ascii=False) for _, _, arguments in calls(messages) if arguments]


def _rendered_or_empty(path: Path, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    try:
        return render(path, messages, tools)
    except jinja2.exceptions.TemplateError:
        return ""


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_reasoning_goes_where_the_template_reads_it_or_is_dropped(path: Path) -> None:
    """Whichever field the template shows reasoning from, the detected one shows at least as much; with
    ``reasoning_key=None`` nothing of it is rendered."""
    messages, tools = transcript(ENV_IDS[0])
    options = template_options(path.read_text(encoding="utf-8"))

    def shown(reasoning_key: str | None) -> int:
        changed: TemplateOptions = {**options, "reasoning_key": reasoning_key}
        converted = to_hf_messages(messages, **changed)
        return _rendered_or_empty(path, converted, tools).count("(reasoning #")

    best = max(shown("reasoning_content"), shown("thinking"))
    assert shown(options["reasoning_key"]) == best
    assert shown(None) == 0
    assert (options["reasoning_key"] is None) <= (best == 0)


def test_the_checks_catch_what_stored_transcripts_get_wrong() -> None:
    """The transcripts as stored render right in few templates. With everything converted but the arguments
    (left as JSON text, as stored), the templates that write ``arguments | tojson`` double-encode them:
    Qwen2.5, Llama 3.1/3.2 and gpt-oss among them."""
    messages, tools = transcript(ENV_IDS[0])
    capable = [path for path in TEMPLATES if trl_supports_tool_calling(path)]
    as_stored = [path.stem for path in capable if not arguments_problems(path, messages, tools)]
    double = set()
    for path in capable:
        options = template_options(path.read_text(encoding="utf-8"))
        as_text: TemplateOptions = {**options, "arguments_as_text": True}
        text_arguments = to_hf_messages(messages, **as_text)
        if any("double-encoded" in problem for problem in arguments_problems(path, text_arguments, tools)):
            double.add(path.stem)
    assert {"qwen2_5", "llama3_1", "llama3_2", "gptoss"} <= double
    assert len(as_stored) < len(capable) // 2, as_stored


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_transformers_renders_the_converted_messages_the_same(path: Path) -> None:
    """The Jinja set-up above is faithful: ``apply_chat_template`` gives the same text for converted messages."""
    messages, tools = transcript(ENV_IDS[0])
    converted = to_hf_messages(messages, **template_options(path.read_text(encoding="utf-8")))
    ours = _rendered_or_empty(path, converted, tools)
    if not ours:
        return
    tokenizer = TokenizerFast(
        tokenizer_object=Tokenizer(models.WordLevel({"<unk>": 0}, unk_token="<unk>")), unk_token="<unk>"
    )
    theirs = tokenizer.apply_chat_template(
        converted,
        tools=tools,
        chat_template=path.read_text(encoding="utf-8"),
        tokenize=False,
        bos_token="<s>",
        eos_token="</s>",
    )
    assert theirs == ours


# ----------------------------------------------------------------- the conversion itself
def test_the_conversion_of_one_turn() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "reasoning_content": "why",
        "refusal": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "get_invoice", "arguments": '{"invoice_id": "ER-1"}'}},
            {"id": "b", "type": "function", "function": {"name": "whoami", "arguments": ""}},
            {"id": "c", "type": "function", "function": {"name": "x", "arguments": "not json"}},
            {"id": "d", "type": "function", "function": {"name": "y", "arguments": "[1, 2]"}},
        ],
    }
    original = copy.deepcopy(message)
    out = to_hf_messages([message, {"role": "tool", "tool_call_id": "a", "content": "{}"}])
    assert out[0] == {
        "role": "assistant",
        "content": "",
        "reasoning_content": "why",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "get_invoice", "arguments": {"invoice_id": "ER-1"}}},
            {"id": "b", "type": "function", "function": {"name": "whoami", "arguments": {}}},
            {"id": "c", "type": "function", "function": {"name": "x", "arguments": {UNPARSED_ARGUMENTS: "not json"}}},
            {"id": "d", "type": "function", "function": {"name": "y", "arguments": {UNPARSED_ARGUMENTS: "[1, 2]"}}},
        ],
    }
    assert out[1] == {"role": "tool", "tool_call_id": "a", "content": "{}", "name": "get_invoice"}
    assert message == original


def test_options_move_or_drop_reasoning_and_write_arguments_back_as_text() -> None:
    message = {
        "role": "assistant",
        "content": "ok",
        "reasoning": "why",
        "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {"k": "ä"}}}],
    }
    (thinking,) = to_hf_messages([message], reasoning_key="thinking", arguments_as_text=True)
    assert thinking["thinking"] == "why" and "reasoning" not in thinking and "reasoning_content" not in thinking
    assert thinking["tool_calls"][0] == {
        "id": "a",
        "type": "function",
        "function": {"name": "f", "arguments": '{"k": "ä"}'},
    }
    (dropped,) = to_hf_messages([message], reasoning_key=None)
    assert set(dropped) == {"role", "content", "tool_calls"}
    (empty,) = to_hf_messages([{"role": "assistant", "content": None, "tool_calls": []}])
    assert empty == {"role": "assistant", "content": ""}


def test_one_call_per_message_interleaves_the_calls_with_their_results() -> None:
    pair = {
        "role": "assistant",
        "content": None,
        "reasoning_content": "r",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}},
        ],
    }
    results = [
        {"role": "tool", "tool_call_id": "a", "content": "A"},
        {"role": "tool", "tool_call_id": "b", "content": "B"},
    ]
    out = to_hf_messages([{"role": "user", "content": "u"}, pair, *results], one_call_per_message=True)
    assert [(m["role"], [c["id"] for c in m.get("tool_calls", [])], m.get("name")) for m in out] == [
        ("user", [], None),
        ("assistant", ["a"], None),
        ("tool", [], "f"),
        ("assistant", ["b"], None),
        ("tool", [], "g"),
    ]
    assert out[1]["reasoning_content"] == "r" and "reasoning_content" not in out[3]


def test_template_options_read_the_template_source() -> None:
    def options(name: str) -> TemplateOptions:
        return template_options((Path(trl.__file__).parent / "chat_templates" / name).read_text(encoding="utf-8"))

    assert options("qwen3.jinja") == {
        "reasoning_key": "reasoning_content",
        "arguments_as_text": False,
        "one_call_per_message": False,
        "short_call_ids": False,
    }
    assert options("gptoss.jinja")["reasoning_key"] == "thinking"
    assert options("qwen2_5.jinja")["reasoning_key"] is None
    assert options("deepseekv3.jinja")["arguments_as_text"] is True
    assert options("deepseekv3_training.jinja")["arguments_as_text"] is False
    assert options("llama3_1.jinja")["one_call_per_message"] is True
