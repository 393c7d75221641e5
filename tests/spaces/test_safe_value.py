"""safe_value: what an action may carry, and a rendering of anything that never raises."""

from __future__ import annotations

from typing import Any

import pytest

from officegym.spaces.safe_value import MAX_DEPTH, arguments_problem, safe_text, value_problem


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "value",
    [
        "ER-2026-00001",
        "Grüße, 東京 👍",
        10**99,
        -(10**99),
        1.5,
        float("nan"),
        True,
        None,
        nested(MAX_DEPTH - 1),
        {"a": [1, {"b": "c"}]},
        (1, 2),
    ],
)
def test_values_that_can_be_shown_and_sent_pass(value: Any) -> None:
    assert value_problem(value) is None
    assert arguments_problem({"x": value}) is None


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("\ud800", "lone surrogate"),
        (["ok", {"k": "a\udfffb"}], "lone surrogate"),
        ({"\ud800": 1}, "lone surrogate"),
        (10**100, "more than 100 digits"),
        (-(10**5000), "more than 100 digits"),
        (nested(MAX_DEPTH + 1), "nested more than 64 levels"),
        (nested(100_000), "nested more than 64 levels"),
    ],
    ids=["surrogate", "surrogate inside", "surrogate key", "100 digits", "5000 digits", "65 deep", "100000 deep"],
)
def test_values_that_would_break_a_later_step_are_named(value: Any, problem: str) -> None:
    found = value_problem(value)
    assert found is not None and problem in found
    found = arguments_problem({"x": value})
    assert found is not None and problem in found


def test_subclasses_of_str_and_int_are_checked_as_their_base() -> None:
    class Text(str):
        pass

    class Number(int):
        pass

    assert value_problem(Text("\ud800")) is not None
    assert value_problem(Number(10**200)) is not None
    assert arguments_problem({Text("k\ud800"): 1}) is not None


def test_safe_text_never_raises_and_is_always_utf8() -> None:
    class Shouty:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    for value in (10**5000, nested(100_000), Shouty(), "a\ud800b", b"\xff", {1, 2}):
        text = safe_text(value, 200, repr)
        text.encode("utf-8")
        assert len(text) <= 200
    assert safe_text("a\ud800b") == "a\\ud800b"
    assert safe_text({"x": "é"}, show=repr) == "{'x': 'é'}"  # valid text is left as it is
