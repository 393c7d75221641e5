"""AnyText and ToolCall: validation, seeded sampling, pickling, batching."""

from __future__ import annotations

import json
import pickle

import pytest
from gymnasium.vector.utils import batch_space

from officegym.spaces import AnyText, ToolCall, parse_action

SCHEMAS = [
    {
        "type": "function",
        "function": {
            "name": "get",
            "description": "d",
            "parameters": {
                "type": "object",
                "additionalProperties": False,
                "required": ["item_id"],
                "properties": {
                    "item_id": {"type": "string", "maxLength": 20},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 5},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "ping",
            "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
        },
    },
]


def test_any_text_accepts_any_unicode_within_bounds() -> None:
    space = AnyText(max_length=11)
    assert space.contains("Prüfung €\n{")
    assert space.contains("🙂\x00")
    assert not space.contains("x" * 12)
    assert not space.contains(b"bytes")
    assert not space.contains(3)


def test_any_text_samples_are_seeded_and_contained() -> None:
    a, b = AnyText(seed=3), AnyText(seed=3)
    samples = [a.sample() for _ in range(50)]
    assert samples == [b.sample() for _ in range(50)]
    assert all(a.contains(s) for s in samples)


def test_spaces_pickle_small() -> None:
    assert len(pickle.dumps(AnyText())) < 4000
    assert len(pickle.dumps(ToolCall(SCHEMAS))) < 4000
    restored = pickle.loads(pickle.dumps(ToolCall(SCHEMAS)))
    assert restored == ToolCall(SCHEMAS)


@pytest.mark.parametrize(
    "action, problem",
    [
        ({"name": "nope", "arguments": {}}, "unknown tool"),
        ({"name": "get", "arguments": {}}, "missing required argument"),
        ({"name": "get", "arguments": {"item_id": "x", "extra": 1}}, "unexpected argument"),
        ({"name": "get", "arguments": {"item_id": 5}}, "must be a string"),
        ({"name": "get", "arguments": {"item_id": "x", "limit": 9}}, "at most 5"),
        ({"name": "get", "arguments": {"item_id": "x", "limit": True}}, "must be an integer"),
        ({"name": "get", "arguments": {"item_id": "x", "mode": "c"}}, "one of"),
        ({"name": "get", "arguments": {"item_id": "x" * 21}}, "at most 20 characters"),
        ("{not json", "not valid JSON"),
        (["get"], "an action is an object"),
        ({"arguments": {}}, "needs a tool"),
        ({"name": "get", "arguments": "[1]"}, "must be an object"),
        ({"name": "get", "arguments": {}, "id": 3}, "unexpected key"),
    ],
)
def test_tool_call_rejects_with_a_reason(action: object, problem: str) -> None:
    space = ToolCall(SCHEMAS)
    reason = space.validate(action)
    assert reason is not None and problem in reason
    assert not space.contains(action)


def test_tool_call_accepts_dicts_and_json_text() -> None:
    space = ToolCall(SCHEMAS)
    assert space.contains({"name": "get", "arguments": {"item_id": "A-1", "limit": 2}})
    assert space.contains(json.dumps({"name": "get", "arguments": {"item_id": "A-1"}}))
    assert space.contains({"name": "get", "arguments": json.dumps({"item_id": "A-1"})})
    assert space.contains({"name": "ping"})
    assert parse_action('{"name": "ping", "arguments": ""}') == ({"name": "ping", "arguments": {}}, None)


def test_tool_call_samples_are_valid_and_seeded() -> None:
    a, b = ToolCall(SCHEMAS, seed=11), ToolCall(SCHEMAS, seed=11)
    samples = [a.sample() for _ in range(500)]
    assert samples == [b.sample() for _ in range(500)]
    assert all(a.contains(s) for s in samples)
    assert {s["name"] for s in samples} == {"get", "ping"}


def test_tool_call_batches_to_a_tuple() -> None:
    batched = batch_space(ToolCall(SCHEMAS), 3)
    sample = batched.sample()
    assert isinstance(sample, tuple) and len(sample) == 3
    assert batched.contains(sample)
