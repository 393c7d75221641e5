"""Tool-call parsing: every supported way of writing calls, and every kind of malformed output."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from officegym.wrappers.parsing import (
    BARE,
    ERROR_KINDS,
    FENCED,
    FORMAT_HINT,
    HERMES,
    NATIVE,
    NONE,
    CallError,
    ParsedCall,
    parse_assistant_message,
)

GET = {"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00019"}}
WHO = {"name": "whoami", "arguments": {}}


def calls(message: Any) -> list[tuple[str, dict[str, Any]]]:
    parsed = parse_assistant_message(message)
    assert not parsed.errors, parsed.errors
    return [(c.name, c.arguments) for c in parsed.calls]


def only_error(message: Any) -> CallError:
    parsed = parse_assistant_message(message)
    assert len(parsed.errors) == 1 and not parsed.calls, parsed
    return parsed.errors[0]


def tool_call(name: str, arguments: Any, call_id: str | None = "call_a") -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        entry["id"] = call_id
    return entry


# --------------------------------------------------------------------------- native OpenAI tool_calls
def test_native_tool_calls_keep_ids_order_and_decode_arguments() -> None:
    message = {
        "role": "assistant",
        "content": "Checking both.",
        "tool_calls": [tool_call("get_invoice", json.dumps(GET["arguments"]), "c1"), tool_call("whoami", "", "c2")],
    }
    parsed = parse_assistant_message(message)
    assert parsed.format == NATIVE and parsed.content == "Checking both."
    assert [(c.name, c.arguments, c.call_id) for c in parsed.calls] == [
        ("get_invoice", GET["arguments"], "c1"),
        ("whoami", {}, "c2"),
    ]


def test_native_arguments_may_be_a_dict_or_null_and_ids_may_be_missing() -> None:
    parsed = parse_assistant_message(
        {"tool_calls": [tool_call("get_invoice", GET["arguments"], None), tool_call("whoami", None, "")]}
    )
    assert [(c.call_id, c.arguments) for c in parsed.calls] == [(None, GET["arguments"]), (None, {})]
    assert parsed.calls[0].raw_arguments == json.dumps(GET["arguments"])


def test_native_broken_call_is_an_error_next_to_the_good_one() -> None:
    parsed = parse_assistant_message(
        {"tool_calls": [tool_call("whoami", '{"a": ', "c1"), tool_call("whoami", "{}", "c2")]}
    )
    assert [type(i) for i in parsed.items] == [CallError, ParsedCall]
    error = parsed.errors[0]
    assert error.kind == "invalid_json" and error.call_id == "c1" and error.name == "whoami"


@pytest.mark.parametrize(
    ("entry", "kind"),
    [
        (tool_call("whoami", '["x"]'), "invalid_arguments"),
        (tool_call("whoami", "3"), "invalid_arguments"),
        (tool_call("", "{}"), "missing_name"),
        ({"id": "c", "type": "function", "function": {"arguments": "{}"}}, "missing_name"),
        ({"id": "c", "type": "function"}, "not_an_object"),
        ("whoami()", "not_an_object"),
    ],
)
def test_native_malformed_kinds(entry: Any, kind: str) -> None:
    assert only_error({"tool_calls": [entry]}).kind == kind


# --------------------------------------------------------------------------- calls written into text
def test_hermes_tags_several_calls_with_prose_around() -> None:
    text = f"I will look.\n<tool_call>\n{json.dumps(GET)}\n</tool_call>\n<tool_call>{json.dumps(WHO)}</tool_call>"
    parsed = parse_assistant_message({"content": text})
    assert parsed.format == HERMES and parsed.content == "I will look."
    assert calls(text) == [("get_invoice", GET["arguments"]), ("whoami", {})]


def test_hermes_accepts_an_unclosed_final_tag_a_fenced_body_and_parameters() -> None:
    assert calls(f"<tool_call>{json.dumps(GET)}") == [("get_invoice", GET["arguments"])]
    assert calls(f"<tool_call>\n```json\n{json.dumps(WHO)}\n```\n</tool_call>") == [("whoami", {})]
    llama = {"name": "get_invoice", "parameters": GET["arguments"]}
    assert calls(f"<tool_call>{json.dumps(llama)}</tool_call>") == [("get_invoice", GET["arguments"])]


def test_json_in_code_fences_labelled_or_not_one_or_a_list() -> None:
    parsed = parse_assistant_message(f"Next:\n```json\n{json.dumps(GET, indent=2)}\n```\nthen more.")
    assert parsed.format == FENCED and parsed.content == "Next:\n\nthen more."
    assert calls(f"```\n{json.dumps([GET, WHO])}\n```") == [("get_invoice", GET["arguments"]), ("whoami", {})]
    assert calls(f"```json\n{json.dumps(WHO)}\n```\n```json\n{json.dumps(GET)}\n```") == [
        ("whoami", {}),
        ("get_invoice", GET["arguments"]),
    ]


def test_code_fences_in_other_languages_are_prose() -> None:
    parsed = parse_assistant_message("Done. Example:\n```python\nprint({'a': 1})\n```")
    assert parsed.format == NONE and not parsed.items


def test_bare_json_object_list_openai_shape_and_string_arguments() -> None:
    assert calls(json.dumps(GET)) == [("get_invoice", GET["arguments"])]
    assert calls(json.dumps([WHO, GET])) == [("whoami", {}), ("get_invoice", GET["arguments"])]
    assert calls(json.dumps({"type": "function", "function": WHO})) == [("whoami", {})]
    as_string = {"name": "get_invoice", "arguments": json.dumps(GET["arguments"])}
    assert calls(json.dumps(as_string)) == [("get_invoice", GET["arguments"])]
    assert parse_assistant_message(json.dumps(GET)).format == BARE


def test_prefixed_and_embedded_calls() -> None:
    assert calls("[TOOL_CALLS]" + json.dumps([GET])) == [("get_invoice", GET["arguments"])]
    assert calls("<|python_tag|>" + json.dumps(WHO)) == [("whoami", {})]
    parsed = parse_assistant_message(f"First I call {json.dumps(GET)} and see {{not json}}.")
    assert [c.name for c in parsed.calls] == ["get_invoice"] and not parsed.errors
    assert parsed.content == "First I call  and see {not json}."


def test_plain_prose_and_empty_messages_are_no_call() -> None:
    for message in ("All invoices are decided.", "", None, {"content": None}, {"content": "a {b} c"}):
        parsed = parse_assistant_message(message)
        assert parsed.format == NONE and parsed.items == []


def test_reasoning_is_kept_and_think_blocks_are_not_run() -> None:
    parsed = parse_assistant_message({"content": "x", "reasoning_content": "because"})
    assert parsed.reasoning == "because"
    assert parse_assistant_message({"content": "x", "reasoning": "vllm"}).reasoning == "vllm"
    drafted = f"<think>maybe {json.dumps(GET)}?</think>\n<tool_call>{json.dumps(WHO)}</tool_call>"
    parsed = parse_assistant_message(drafted)
    assert calls(drafted) == [("whoami", {})] and parsed.reasoning is not None and "maybe" in parsed.reasoning
    half = parse_assistant_message(f"planning...</think>{json.dumps(WHO)}")
    assert half.reasoning == "planning..." and [c.name for c in half.calls] == ["whoami"]


def test_content_parts_are_read_as_text() -> None:
    parts = [{"type": "text", "text": "<tool_call>"}, {"type": "text", "text": json.dumps(WHO) + "</tool_call>"}]
    assert calls({"content": parts}) == [("whoami", {})]


# --------------------------------------------------------------------------- malformed text
@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('<tool_call>{"name": "whoami", "arguments": {}</tool_call>', "invalid_json"),
        ('```json\n{"name": "whoami", "arguments": \n```', "invalid_json"),
        ('{"name": "whoami", "arguments": {', "invalid_json"),
        ('<tool_call>{"name": "get_invoice", "arguments": {"invoice_id": "ER-20', "unclosed_tag"),
        ("<tool_call>   </tool_call>", "empty_call"),
        ("[]", "empty_call"),
        ('```json\n["whoami"]\n```', "not_an_object"),
        ('<tool_call>"whoami"</tool_call>', "not_an_object"),
        ('{"tool": "whoami", "arguments": {}}', "missing_name"),
        ('{"name": "", "arguments": {}}', "missing_name"),
        ('{"name": "whoami", "arguments": [1]}', "invalid_arguments"),
        ('{"name": "whoami", "arguments": "not json"}', "invalid_arguments"),
    ],
)
def test_malformed_text_kinds(text: str, kind: str) -> None:
    error = only_error(text)
    assert error.kind == kind and error.kind in ERROR_KINDS
    assert error.message().startswith("Error: ") and error.message().endswith(FORMAT_HINT)
    assert len(error.raw) <= 303


def test_every_error_kind_is_covered_by_a_test() -> None:
    covered = {"invalid_json", "unclosed_tag", "empty_call", "not_an_object", "missing_name", "invalid_arguments"}
    assert covered == set(ERROR_KINDS)


def test_one_broken_tag_among_good_ones_is_reported_in_place() -> None:
    text = f"<tool_call>{json.dumps(WHO)}</tool_call><tool_call>{{oops</tool_call>"
    parsed = parse_assistant_message(text)
    assert [type(i) for i in parsed.items] == [ParsedCall, CallError]


def test_deep_nesting_and_huge_output_do_not_raise() -> None:
    assert only_error("[" * 100_000).kind == "invalid_json"
    assert only_error("<tool_call>" + "[" * 100_000 + "</tool_call>").kind == "invalid_json"
    parsed = parse_assistant_message("{" * 10_000 + " plain text")
    assert parsed.errors and parsed.errors[0].kind == "invalid_json"


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=200),
        st.none(),
        st.integers(),
        st.lists(st.text(max_size=5), max_size=3),
        st.dictionaries(
            st.sampled_from(["content", "tool_calls", "reasoning_content"]),
            st.one_of(
                st.text(max_size=50),
                st.none(),
                st.integers(),
                st.lists(st.dictionaries(st.text(max_size=8), st.text(max_size=8)), max_size=2),
            ),
        ),
    )
)
def test_parsing_never_raises(message: Any) -> None:
    parsed = parse_assistant_message(message)
    assert all(isinstance(item, ParsedCall | CallError) for item in parsed.items)
