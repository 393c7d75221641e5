"""Tool-call ids that every chat template accepts: TRL's, transformers' and a Mistral v3-style one.

The transcript is real: ``ChatWrapper`` on a gold path, three tool calls per assistant turn, one of them a call
the env answers with ``Error: ...``, and a closing text reply; the ids are the wrapper's own (the model gave
none), or OpenAI-style ids a model gave (``call_`` + 24 characters), which ``to_hf_messages`` rewrites for
templates that check the ids' length. Every template is rendered with ``apply_chat_template`` on a tokenizer built
here with the ``tokenizers`` package, ``tools=`` the env's schemas, after ``to_hf_messages(messages,
**template_options(template))`` as the README says.

Templates TRL itself rejects for tool calling (``supports_tool_calling``: they drop calls or tool messages, or
refuse the roles) cannot render an agent transcript at all; for them the test checks that the ids are not the
reason: rendering without any id ends the same way.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

trl = pytest.importorskip("trl")
transformers = pytest.importorskip("transformers")
from tokenizers import Tokenizer, models  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402
from trl.chat_template_utils import supports_tool_calling  # noqa: E402

from officegym.integrations.hf_messages import template_options, to_hf_messages  # noqa: E402
from officegym.wrappers import ChatWrapper  # noqa: E402
from officegym.wrappers.chat import is_short_call_id  # noqa: E402

ENV_IDS = ("officegym/InvoiceApproval-v0", "officegym/VendorReview-v0")
CALLS_PER_TURN = 3
MODEL_ID = "call_{k:024d}"
TokenizerFast: Any = PreTrainedTokenizerFast  # transformers leaves its __init__ unannotated

# A Mistral v3-style template, written for this test (not taken from Mistral). It enforces the rule of
# mistral-common's MistralRequestValidatorV3 (github.com/mistralai/mistral-common,
# src/mistral_common/protocol/instruct/validator.py: every ``tool_calls[].id`` and every tool message's
# ``tool_call_id`` must match ``^[a-zA-Z0-9]{9}$``), which the chat templates in the tokenizer_config.json of
# Mistral's v0.3-generation models check on the length (``|length != 9``) before raising "Tool call IDs should
# be alphanumeric strings with length 9!". Here both halves of the rule are checked.
MISTRAL_V3_STYLE = """\
{%- set id_chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" -%}
{%- macro alphanumeric(value) -%}
    {%- for char in value -%}
        {%- if char not in id_chars -%}
            {{- raise_exception("tool call id " ~ value ~ " has a character outside a-z, A-Z, 0-9") -}}
        {%- endif -%}
    {%- endfor -%}
{%- endmacro -%}
{{- bos_token -}}
{%- if tools %}<<tools>>{{ tools | tojson }}<</tools>>{% endif -%}
{%- for message in messages -%}
    {%- if message.role in ["system", "user"] -%}
        <<{{ message.role }}>>{{ message.content }}<</{{ message.role }}>>
    {%- elif message.role == "assistant" and message.tool_calls -%}
        <<calls>>
        {%- for call in message.tool_calls -%}
            {%- if call.id is not string or call.id | length != 9 -%}
                {{- raise_exception("tool call ids must be 9 characters from a-z, A-Z, 0-9") -}}
            {%- endif -%}
            {{- alphanumeric(call.id) -}}
            {"id": "{{ call.id }}", "name": {{ call.function.name | tojson }}, "arguments": \
{{ call.function.arguments | tojson }}}
        {%- endfor -%}
        <</calls>>{{ eos_token }}
    {%- elif message.role == "assistant" -%}
        {{ message.content }}{{ eos_token }}
    {%- elif message.role == "tool" -%}
        {%- if message.tool_call_id is not string or message.tool_call_id | length != 9 -%}
            {{- raise_exception("tool_call_id must be 9 characters from a-z, A-Z, 0-9") -}}
        {%- endif -%}
        {{- alphanumeric(message.tool_call_id) -}}
        <<result id="{{ message.tool_call_id }}">>{{ message.content }}<</result>>
    {%- else -%}
        {{- raise_exception("unknown role " ~ message.role) -}}
    {%- endif -%}
{%- endfor -%}
"""


# ----------------------------------------------------------------- the templates
def trl_templates() -> dict[str, str]:
    folder = Path(trl.__file__).parent / "chat_templates"
    return {f"trl/{path.stem}": path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.jinja"))}


def transformers_templates() -> dict[str, str]:
    """The chat templates written into transformers' own sources (processors with a default template): every
    string literal that is Jinja looping over ``messages``. transformers ships no ``.jinja`` file."""
    root = Path(transformers.__file__).parent
    assert not list(root.rglob("*.jinja"))
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "{%" not in text or "for message in messages" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_chat_template(node.value):
                found[f"transformers/{path.relative_to(root).with_suffix('')}:{node.lineno}"] = node.value
    return found


def _is_chat_template(text: str) -> bool:
    return "{%" in text and re.search(r"for\s+message\s+in\s+messages", text) is not None


TEMPLATES = {**trl_templates(), **transformers_templates(), "mistral_v3_style": MISTRAL_V3_STYLE}


def tokenizer() -> Any:
    return TokenizerFast(
        tokenizer_object=Tokenizer(models.WordLevel({"<unk>": 0}, unk_token="<unk>")),
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
    )


def render(template: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    return str(tokenizer().apply_chat_template(messages, tools=tools, chat_template=template, tokenize=False))


def outcome(template: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    """The rendered text, or the exception's type and message."""
    try:
        return render(template, messages, tools)
    except Exception as error:
        return f"raised {type(error).__name__}: {error}"


@cache
def trl_says_tool_calling(name: str) -> bool:
    """TRL's own verdict on the template (``GRPOTrainer`` checks it): can it render user -> assistant with
    tool_calls -> tool at all?"""
    instance = tokenizer()
    instance.chat_template = TEMPLATES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bool(supports_tool_calling(instance))


# ----------------------------------------------------------------- the transcripts
def failing_call(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The first gold call that names a record, naming one that does not exist (the env answers ``Error:``)."""
    for action in actions:
        for key, value in action["arguments"].items():
            if key.endswith("_id") and isinstance(value, str):
                return {"name": action["name"], "arguments": {**action["arguments"], key: "NO-SUCH-RECORD-1"}}
    raise AssertionError("no gold call names a record")


def play(env_id: str, model_ids: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The first task's gold path with a failing call in the first turn, ``CALLS_PER_TURN`` calls per assistant
    turn (as an OpenAI-compatible server returns them), then a text reply if the path did not end the episode."""
    env = ChatWrapper(gym.make(env_id, max_turns=400))
    inner: Any = env.unwrapped
    task_id = inner.task_ids[0]
    env.reset(seed=0, options={"task_id": task_id})
    actions = list(inner.gold_actions(task_id))
    actions.insert(1, failing_call(actions))
    numbered = 0
    for start in range(0, len(actions), CALLS_PER_TURN):
        calls = []
        for action in actions[start : start + CALLS_PER_TURN]:
            call: dict[str, Any] = {
                "type": "function",
                "function": {"name": action["name"], "arguments": json.dumps(action["arguments"])},
            }
            if model_ids:
                call["id"], numbered = MODEL_ID.format(k=numbered), numbered + 1
            calls.append(call)
        _, _, terminated, truncated, _ = env.step({"role": "assistant", "content": None, "tool_calls": calls})
        if terminated or truncated:
            break
    else:
        env.step({"role": "assistant", "content": "All done."})
    return env.messages, env.tools


transcript = cache(play)


def call_ids(messages: list[dict[str, Any]]) -> list[str]:
    return [call["id"] for message in messages for call in message.get("tool_calls") or []]


def answered_ids(messages: list[dict[str, Any]]) -> list[str]:
    return [message["tool_call_id"] for message in messages if message["role"] == "tool"]


def without_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with no ``id`` on any call and no ``tool_call_id`` on any tool message."""
    out = []
    for message in messages:
        copied = {key: value for key, value in message.items() if key != "tool_call_id"}
        if "tool_calls" in copied:
            copied["tool_calls"] = [{k: v for k, v in call.items() if k != "id"} for call in copied["tool_calls"]]
        out.append(copied)
    return out


def converted(name: str, env_id: str, model_ids: bool) -> list[dict[str, Any]]:
    messages, _ = transcript(env_id, model_ids)
    return to_hf_messages(messages, **template_options(TEMPLATES[name]))


# ----------------------------------------------------------------- the tests
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_transcripts_have_several_calls_per_turn_an_error_and_matching_ids(env_id: str) -> None:
    messages, tools = transcript(env_id, model_ids=False)
    assert tools and sum(len(m.get("tool_calls") or []) == CALLS_PER_TURN for m in messages) >= 2
    assert any(m["role"] == "tool" and m["content"].startswith("Error:") for m in messages)
    ids = call_ids(messages)
    assert all(is_short_call_id(i) for i in ids) and len(set(ids)) == len(ids) and answered_ids(messages) == ids
    assert ids[:CALLS_PER_TURN] == ["call00100", "call00101", "call00102"]
    assert play(env_id, model_ids=False)[0] == messages  # the same ids in every run
    given, _ = transcript(env_id, model_ids=True)
    assert call_ids(given) == [MODEL_ID.format(k=k) for k in range(len(ids))] == answered_ids(given)


def test_the_templates_are_all_there() -> None:
    names = list(TEMPLATES)
    assert (
        sum(name.startswith("trl/") for name in names)
        == len(list((Path(trl.__file__).parent / "chat_templates").glob("*.jinja")))
        > 60
    )
    assert any("llama4" in name for name in names) and any("smolvlm" in name for name in names)
    assert [name for name in names if template_options(TEMPLATES[name])["short_call_ids"]] == ["mistral_v3_style"]


@pytest.mark.parametrize("model_ids", [False, True], ids=["wrapper_ids", "model_ids"])
@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("name", list(TEMPLATES))
def test_every_template_accepts_the_ids(name: str, env_id: str, model_ids: bool) -> None:
    """Templates that can render tool calls render the transcript; the others fail the same way without ids."""
    messages = converted(name, env_id, model_ids)
    _, tools = transcript(env_id, model_ids)
    result = outcome(TEMPLATES[name], messages, tools)
    if name == "mistral_v3_style" or trl_says_tool_calling(name):
        assert not result.startswith("raised"), result
        shown = [call_id for call_id in call_ids(messages) if call_id in result]
        assert shown in ([], call_ids(messages))  # a template prints every id or none
    elif result.startswith("raised"):
        assert outcome(TEMPLATES[name], without_ids(messages), tools) == result


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_model_ids_are_kept_unless_the_template_checks_them(env_id: str) -> None:
    messages, tools = transcript(env_id, model_ids=True)
    for name in TEMPLATES:
        if name != "mistral_v3_style":
            assert call_ids(converted(name, env_id, True)) == call_ids(messages), name
    rewritten = converted("mistral_v3_style", env_id, True)
    ids = call_ids(rewritten)
    assert all(is_short_call_id(i) for i in ids) and len(set(ids)) == len(ids) and answered_ids(rewritten) == ids
    as_given = to_hf_messages(messages)
    assert "tool call ids must be 9 characters" in outcome(MISTRAL_V3_STYLE, as_given, tools)


@pytest.mark.parametrize(
    ("call_id", "accepted"),
    [
        ("call00100", True),
        ("A1b2C3d4E", True),
        ("call_1_0", False),  # the wrapper's ids before
        ("call00_00", False),  # 9 characters, one not alphanumeric
        ("call001000", False),  # 10
        ("callé0100", False),  # alphanumeric to Python, not to Mistral
    ],
)
def test_the_mistral_style_template_enforces_the_rule(call_id: str, accepted: bool) -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "who am I?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "whoami", "arguments": {}}}],
        },
        {"role": "tool", "tool_call_id": call_id, "content": "{}"},
    ]
    result = outcome(MISTRAL_V3_STYLE, messages, [])
    assert result.startswith("raised") is not accepted, result
    assert is_short_call_id(call_id) is accepted
