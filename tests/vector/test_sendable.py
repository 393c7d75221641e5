"""``vector/sendable.py``: the twin of an action that does not pickle pickles, and the env's parser reads it as
the original (same parse result, same error text), and ``SendableCalls`` batches tool calls as Gymnasium does."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.spaces import Space
from gymnasium.vector.utils import batch_space, iterate

import officegym  # noqa: F401  (registers the env ids)
from benchmarks.vector_lockstep import BadText, deep, unsendable_actions
from officegym.spaces import ToolCall, parse_action
from officegym.spaces.safe_value import safe_text
from officegym.vector.sendable import sendable, twin
from officegym.vector.sendable_calls import SendableCalls


def round_trip(value: Any) -> Any:
    return pickle.loads(pickle.dumps(sendable(value)))


def test_an_action_that_pickles_is_sent_as_it_is() -> None:
    action = {"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00100"}}
    assert sendable(action) is action


@pytest.mark.parametrize("label", list(unsendable_actions()))
def test_the_parser_reads_a_twin_as_the_original(label: str) -> None:
    original = unsendable_actions()[label]
    sent = round_trip(original)
    assert type(sent).__name__ == type(original).__name__
    assert safe_text(sent) == safe_text(original)
    assert safe_text(sent, show=repr) == safe_text(original, show=repr)
    try:
        expected: Any = parse_action(original)
    except Exception as error:  # the parser fails on an unprintable str subclass; the env reports its type
        expected = type(error).__name__
    try:
        got: Any = parse_action(sent)
    except Exception as error:
        got = type(error).__name__
    assert safe_text(got, show=repr) == safe_text(expected, show=repr)


def test_a_value_nested_5000_deep_still_cannot_be_printed() -> None:
    sent = round_trip(deep(5000))
    assert isinstance(sent, list)
    with pytest.raises(RecursionError):
        str(sent)


def test_an_unprintable_str_subclass_stays_unprintable() -> None:
    sent = round_trip({"x": BadText("abc")})["x"]
    assert isinstance(sent, str) and str.__str__(sent) == "abc"
    with pytest.raises(ValueError, match="as the original value raised"):
        str(sent)


def test_shared_parts_are_twinned_once() -> None:
    part: Any = [lambda: 0]
    for _ in range(60):  # 2**60 paths through 60 shared levels: a twin without a memo would never finish
        part = [part, part]
    sent = round_trip(part)
    assert sent[0] is sent[1]


def test_a_cycle_survives() -> None:
    cycle: list[Any] = [lambda: 0]
    cycle.append(cycle)
    sent = round_trip(cycle)
    assert sent[1] is sent


def test_twin_never_raises() -> None:
    class Hostile:
        def __reduce__(self) -> Any:
            raise RuntimeError("no")

        def __repr__(self) -> str:
            raise RuntimeError("no")

    sent = pickle.loads(pickle.dumps(twin(Hostile())))
    assert type(sent).__name__ == "Hostile"
    assert safe_text(sent) == safe_text(Hostile())


def test_sendable_calls_batch_as_gymnasium_does() -> None:
    single = gym.make("officegym/InvoiceApproval-v0").action_space
    assert isinstance(single, ToolCall)
    single.seed(3)
    ours = batch_space(single, 3)
    theirs = batch_space.dispatch(Space)(single, 3)
    assert isinstance(ours, SendableCalls) and ours == theirs
    assert ours.sample() == theirs.sample()
    actions = (ours.sample()[0], lambda: 1, ours.sample()[2])
    sent = list(iterate(ours, actions))
    assert sent[0] is actions[0] and sent[2] is actions[2]
    assert type(sent[1]).__name__ == "function"
