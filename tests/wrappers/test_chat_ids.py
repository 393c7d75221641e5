"""``ChatWrapper``'s tool-call ids: 9 alphanumerics of its own, the model's kept, repeats replaced in the model's
style, unique within an episode, the same in every run (the chat-template side is ``tests/integrations/templates/``)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from officegym.integrations.hf_messages import to_hf_messages
from officegym.wrappers import ChatWrapper
from officegym.wrappers.chat import fresh_call_id, is_short_call_id, short_call_id

WHO = {"name": "whoami", "arguments": {}}


def native(*ids: str | None) -> dict[str, Any]:
    calls = [{"type": "function", "function": {"name": "whoami", "arguments": "{}"}} for _ in ids]
    for call, call_id in zip(calls, ids, strict=True):
        if call_id is not None:
            call["id"] = call_id
    return {"role": "assistant", "content": None, "tool_calls": calls}


def wrapper() -> ChatWrapper:
    env = ChatWrapper(gym.make("officegym/InvoiceApproval-v0", max_turns=400))
    env.reset(seed=0, options={"task_id": "single-1"})
    return env


def ids_of(env: ChatWrapper) -> list[str]:
    calls = [call["id"] for m in env.messages if m["role"] == "assistant" for call in m.get("tool_calls") or []]
    assert calls == [m["tool_call_id"] for m in env.messages if m["role"] == "tool"]
    return calls


def test_our_ids_name_the_turn_and_the_call_in_9_alphanumerics() -> None:
    env = wrapper()
    env.step([WHO, WHO, WHO])
    env.step(WHO)
    assert ids_of(env) == ["call00100", "call00101", "call00102", "call00200"]
    assert all(is_short_call_id(i) for i in ids_of(env))


def test_model_ids_are_kept_and_repeats_are_replaced_in_their_style() -> None:
    env = wrapper()
    env.step(native("call_abc", "Ab3dE6gH9"))
    env.step(native("call_abc", "Ab3dE6gH9", None))
    assert ids_of(env) == ["call_abc", "Ab3dE6gH9", "call_2_0", "call00201", "call00202"]


def test_an_id_the_model_took_from_our_pattern_is_skipped_not_repeated() -> None:
    env = wrapper()
    env.step(native("call00200", "call00201"))
    env.step(native(None, None, "call00200"))
    ids = ids_of(env)
    assert ids == ["call00200", "call00201", "call00202", "call00203", "call00204"]
    assert len(set(ids)) == len(ids)


def test_reset_starts_the_ids_again_and_they_are_the_same_in_every_run() -> None:
    first, second = wrapper(), wrapper()
    for env in (first, second):
        env.step([WHO, WHO])
    first.reset(seed=0, options={"task_id": "single-1"})
    first.step([WHO, WHO])
    assert ids_of(first) == ids_of(second) == ["call00100", "call00101"]


def test_the_id_space_wraps_and_stays_unique() -> None:
    assert (
        short_call_id(0) == "call00000"
        and short_call_id(36**5 - 1) == "callzzzzz"
        and short_call_id(36**5) == "call00000"
    )
    used: set[str] = set()
    made = [fresh_call_id(46_655, k, used) for k in range(1_300)]  # past 36**2 calls in the last 3-digit turn
    assert len(set(made)) == len(made) == len(used) and all(is_short_call_id(i) for i in made)


@pytest.mark.parametrize(
    ("value", "short"),
    [("call00100", True), ("ABCdef789", True), ("call_1_0", False), ("callé0100", False), ("", False), (None, False)],
)
def test_what_counts_as_a_short_id(value: Any, short: bool) -> None:
    assert is_short_call_id(value) is short


def test_to_hf_messages_rewrites_only_ids_that_do_not_fit() -> None:
    messages = [
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": None, "tool_calls": native("call_xyz", "call00100", None)["tool_calls"]},
        {"role": "tool", "tool_call_id": "call_xyz", "content": "A"},
        {"role": "tool", "tool_call_id": "call00100", "content": "B"},
        {"role": "assistant", "content": None, "tool_calls": native("call_xyz")["tool_calls"]},
        {"role": "tool", "tool_call_id": "call_xyz", "content": "C"},
    ]
    out = to_hf_messages(messages, short_call_ids=True)
    first = [call["id"] for call in out[1]["tool_calls"]]
    assert first == ["call00101", "call00100", "call00102"]  # ours is taken: the next free one
    assert [out[2]["tool_call_id"], out[3]["tool_call_id"]] == ["call00101", "call00100"]
    assert out[4]["tool_calls"][0]["id"] == out[5]["tool_call_id"] == "call00200"  # a tool message answers the latest
    assert [call.get("id") for call in to_hf_messages(messages)[1]["tool_calls"]] == ["call_xyz", "call00100", None]
    assert messages[2]["tool_call_id"] == "call_xyz"  # the input is not modified
