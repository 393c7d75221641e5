"""ChatWrapper: the episode as OpenAI chat messages, an assistant message as the action."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from openai.types.chat import ChatCompletionMessage

from officegym.envs.core.actions import FINISH_SCHEMA
from officegym.wrappers import ChatWrapper
from officegym.wrappers.chat import UNPARSED_ARGUMENTS
from officegym.wrappers.parsing import FORMAT_HINT

from ..conftest import tool_env

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
WHO = {"name": "whoami", "arguments": {}}
APPROVERS = {"name": "list_approvers", "arguments": {}}


def make(
    env_id: str = INVOICE, task_id: str = "single-1", tasks: list[str] | None = None, **kwargs: Any
) -> ChatWrapper:
    wrapper = ChatWrapper(gym.make(env_id, task_ids=tasks or [task_id], **kwargs))
    wrapper.reset(seed=0, options={"task_id": task_id})
    return wrapper


def native(*calls: dict[str, Any], ids: list[str | None] | None = None, content: str | None = None) -> dict[str, Any]:
    entries = []
    for k, call in enumerate(calls):
        entry: dict[str, Any] = {
            "type": "function",
            "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
        }
        if ids is not None and ids[k] is not None:
            entry["id"] = ids[k]
        entries.append(entry)
    return {"role": "assistant", "content": content, "tool_calls": entries}


def gold(wrapper: ChatWrapper, task_id: str) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = tool_env(wrapper).gold_actions(task_id)
    return actions


def test_reset_starts_the_transcript_with_the_policy_and_the_work_order() -> None:
    wrapper = ChatWrapper(gym.make(INVOICE))
    observation, info = wrapper.reset(seed=0, options={"task_id": "single-1"})
    assert wrapper.messages == [
        {"role": "system", "content": info["system_prompt"]},
        {"role": "user", "content": observation},
    ]
    assert info["messages"] == wrapper.messages and info["messages"] is not wrapper.messages
    assert all(t["type"] == "function" and "parameters" in t["function"] for t in info["tools"])
    assert "finish" not in [t["function"]["name"] for t in wrapper.tools]
    offered = ChatWrapper(gym.make(INVOICE), offer_finish=True)
    _, info = offered.reset(options={"task_id": "single-1"})
    assert info["tools"][-1] == FINISH_SCHEMA


def test_each_tool_result_answers_its_call_id_in_order() -> None:
    wrapper = make()
    observation, reward, terminated, _, info = wrapper.step(native(WHO, APPROVERS, ids=["a1", "a2"]))
    assert [m["role"] for m in wrapper.messages] == ["system", "user", "assistant", "tool", "tool"]
    assistant, first, second = wrapper.messages[2:]
    assert [c["id"] for c in assistant["tool_calls"]] == ["a1", "a2"]
    assert (first["tool_call_id"], second["tool_call_id"]) == ("a1", "a2")
    assert '"approver_id": "AP-145"' in first["content"] and second["content"].startswith('{"approvers"')
    assert observation == first["content"] + "\n\n" + second["content"]
    assert (reward, terminated) == (0.0, False) and info["new_messages"] == wrapper.messages[2:]
    assert info["turn"] == 2 and wrapper.stats.tool_calls == 2 and wrapper.stats.assistant_turns == 1


def test_missing_and_reused_ids_become_call_turn_k() -> None:
    wrapper = make()
    wrapper.step(native(WHO, APPROVERS, ids=[None, "x"]))
    wrapper.step(native(WHO, WHO, ids=["x", "x"]))
    ids = [c["id"] for m in wrapper.messages if m["role"] == "assistant" for c in m["tool_calls"]]
    assert ids == ["call00100", "x", "call_2_0", "call_2_1"]  # ours are 9 alphanumerics; a repeat keeps its style
    answered = [m["tool_call_id"] for m in wrapper.messages if m["role"] == "tool"]
    assert answered == ids


def test_calls_written_in_text_become_tool_calls() -> None:
    wrapper = make()
    text = f"Let me look.\n<tool_call>{json.dumps(WHO)}</tool_call>\n<tool_call>{json.dumps(APPROVERS)}</tool_call>"
    wrapper.step({"role": "assistant", "content": text})
    assistant = wrapper.messages[2]
    assert assistant["content"] == "Let me look."
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in assistant["tool_calls"]] == [
        ("call00100", "whoami", "{}"),
        ("call00101", "list_approvers", "{}"),
    ]
    assert [m["tool_call_id"] for m in wrapper.messages[3:]] == ["call00100", "call00101"]
    wrapper.step(f"```json\n{json.dumps(WHO)}\n```")
    wrapper.step(json.dumps(APPROVERS))
    assert wrapper.stats.formats == {"hermes": 1, "fenced_json": 1, "bare_json": 1}


def test_unreadable_written_calls_cost_one_step_and_answer_as_user_error() -> None:
    wrapper = make()
    text = f'<tool_call>{json.dumps(WHO)}</tool_call><tool_call>{{"name": "whoami", "arguments": {{</tool_call>'
    observation, reward, terminated, truncated, info = wrapper.step({"role": "assistant", "content": text})
    assert observation.startswith("Error: the tool call is not valid JSON") and observation.endswith(FORMAT_HINT)
    assert "Nothing in that message was run" in observation
    assert wrapper.messages[2:] == [{"role": "assistant", "content": text}, {"role": "user", "content": observation}]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["chat"]["parse_errors"] == 1 and info["chat"]["parse_error_kinds"] == {"invalid_json": 1}
    assert wrapper.calls == [
        {"turn": 1, "id": None, "name": None, "arguments": {}, "parse_error": "invalid_json", "failed": True}
    ]
    *_, info = wrapper.step("done")
    assert info["grade"]["invalid_calls"] == 1 and info["grade"]["turns"] == 2
    assert info["grade"]["tool_calls"] == {}  # the good call next to the broken one did not run


def test_a_broken_native_call_is_answered_by_its_own_tool_message() -> None:
    wrapper = make()
    message = native(WHO, ids=["ok"])
    message["tool_calls"].insert(
        0, {"id": "bad", "type": "function", "function": {"name": "get_invoice", "arguments": '{"invoice_id": '}}
    )
    observation, *_ = wrapper.step(message)
    bad, good = wrapper.messages[3:]
    assert bad["tool_call_id"] == "bad" and bad["content"].startswith("Error: the arguments of 'get_invoice'")
    assert good["tool_call_id"] == "ok" and "AP-145" in good["content"]
    sent = wrapper.messages[2]["tool_calls"][0]["function"]
    assert sent == {"name": "get_invoice", "arguments": json.dumps({UNPARSED_ARGUMENTS: '{"invoice_id": '})}
    assert observation.startswith("Error:") and wrapper.stats.parse_errors == 1
    assert [(c["name"], c["parse_error"], c["failed"]) for c in wrapper.calls] == [
        ("get_invoice", "invalid_json", True),
        ("whoami", None, False),
    ]
    wrapper.step({"name": "get_invoice", "arguments": {"invoice_id": "ER-1999-00001"}})
    assert wrapper.calls[-1]["failed"] and wrapper.messages[-1]["content"].startswith("Error:")


BROKEN_ARGUMENTS = ['{"invoice_id": ', '["x"]', "3", "{'invoice_id': 'ER-1'}", "ünï\udcff{", '{"a": 1}}']


@pytest.mark.parametrize("raw", BROKEN_ARGUMENTS)
def test_a_broken_native_call_is_recorded_as_valid_json_and_replays_to_the_same_error(raw: str) -> None:
    """vLLM re-parses the arguments of every replayed call and answers HTTP 400 to invalid JSON, so the
    transcript must carry valid JSON; the raw text stays in it, and stepping it again gives the same error."""
    wrapper = make()
    call = {"id": "bad", "type": "function", "function": {"name": "get_invoice", "arguments": raw}}
    wrapper.step({"role": "assistant", "content": None, "tool_calls": [call]})
    recorded = wrapper.messages[2]
    arguments = json.loads(recorded["tool_calls"][0]["function"]["arguments"])
    assert arguments == {UNPARSED_ARGUMENTS: raw}
    again = make()
    again.step(recorded)
    assert again.messages == wrapper.messages and again.calls == wrapper.calls
    assert again.stats.as_dict() == wrapper.stats.as_dict() and wrapper.stats.parse_errors == 1


def test_a_call_whose_arguments_only_look_wrapped_runs_as_sent() -> None:
    wrapper = make()
    lookalike = json.dumps({UNPARSED_ARGUMENTS: "x", "other": 1})
    call = {"id": "c", "type": "function", "function": {"name": "whoami", "arguments": lookalike}}
    wrapper.step({"role": "assistant", "content": None, "tool_calls": [call]})
    assert wrapper.messages[2]["tool_calls"][0]["function"]["arguments"] == lookalike
    assert wrapper.stats.parse_errors == 0


def test_no_tool_call_finishes_and_carries_the_grade() -> None:
    wrapper = make()
    for action in gold(wrapper, "single-1"):
        wrapper.step(native(action))
    _, reward, terminated, truncated, info = wrapper.step({"role": "assistant", "content": "All done."})
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["grade"]["reward"] == 1.0 and info["stop_reason"] == "finish" == wrapper.stop_reason
    assert wrapper.messages[-1] == {"role": "assistant", "content": "All done."}
    assert wrapper.grade == info["grade"]


def test_a_terminal_tool_ends_the_episode_and_later_calls_are_not_run() -> None:
    wrapper = make(VENDOR, "vr-easy-01")
    path = gold(wrapper, "vr-easy-01")
    for action in path[:-1]:
        wrapper.step(native(action))
    _, reward, terminated, _, info = wrapper.step(native(path[-1], WHO, ids=["s", "w"]))
    assert terminated and reward == 1.0 and info["stop_reason"] == "terminal_tool"
    assert wrapper.messages[-1] == {
        "role": "tool",
        "tool_call_id": "w",
        "content": "Error: not run: the episode had already ended.",
    }
    assert wrapper.stats.skipped_calls == 1


def test_max_turns_truncates_inside_a_message() -> None:
    wrapper = make(max_turns=12)
    for _ in range(5):
        wrapper.step(native(WHO, WHO))
    _, _, terminated, truncated, info = wrapper.step(native(WHO, WHO, WHO))
    assert truncated and not terminated and info["stop_reason"] == "max_turns"
    assert info["grade"]["turns"] == 12 and wrapper.stats.skipped_calls == 1


def test_reasoning_content_is_kept() -> None:
    wrapper = make()
    message = native(WHO)
    message["reasoning_content"] = "First find out who I am."
    wrapper.step(message)
    wrapper.step(f"<think>Now the approvers.</think><tool_call>{json.dumps(APPROVERS)}</tool_call>")
    assert wrapper.messages[2]["reasoning_content"] == "First find out who I am."
    assert wrapper.messages[4]["reasoning_content"] == "Now the approvers."
    assert wrapper.messages[4]["content"] is None and wrapper.stats.reasoning_turns == 2


def test_reset_clears_everything() -> None:
    wrapper = make(tasks=["single-1", "single-2"])
    wrapper.step(native(WHO))
    wrapper.step("{broken")
    wrapper.step("done")
    _, info = wrapper.reset(options={"task_id": "single-2"})
    assert len(wrapper.messages) == 2 and wrapper.calls == [] and wrapper.turn == 0
    assert wrapper.stop_reason is None and wrapper.grade is None
    assert info["chat"] == {
        "assistant_turns": 0,
        "tool_calls": 0,
        "parse_errors": 0,
        "parse_error_kinds": {},
        "skipped_calls": 0,
        "reasoning_turns": 0,
        "formats": {},
    }
    wrapper.step(native(WHO, ids=["call_1_0"]))
    wrapper.step(native(WHO))
    assert [m["tool_calls"][0]["id"] for m in wrapper.messages if m["role"] == "assistant"] == ["call_1_0", "call00200"]


def test_gymnasium_actions_still_work() -> None:
    wrapper = make()
    observation, *_ = wrapper.step(WHO)
    assert "AP-145" in observation and wrapper.messages[2]["tool_calls"][0]["id"] == "call00100"
    observation, *_ = wrapper.step([WHO, APPROVERS])
    assert len(wrapper.messages[-3]["tool_calls"]) == 2
    openai_message = ChatCompletionMessage.model_validate(native(WHO, ids=["m1"]) | {"role": "assistant"})
    wrapper.step(openai_message)
    assert wrapper.messages[-1]["tool_call_id"] == "m1"
    assert wrapper.observation_space.contains(observation)


@pytest.mark.parametrize("action", [5, None, [1, 2], 3.5, object()])
def test_actions_that_are_no_message_are_errors_not_exceptions(action: Any) -> None:
    wrapper = make()
    observation, _, terminated, _, _ = wrapper.step(action)
    assert observation.startswith("Error: an action must be an assistant message or a tool call")
    assert not terminated and wrapper.messages[-1]["role"] == "user"


def test_after_the_end_the_env_answers_and_the_transcript_stays() -> None:
    wrapper = make()
    wrapper.step("done")
    before = list(wrapper.messages)
    observation, reward, terminated, _, _ = wrapper.step(native(WHO))
    assert observation.startswith("Error: the episode is over") and terminated and reward == 0.0
    assert wrapper.messages == before


def test_end_grades_an_episode_the_model_can_no_longer_answer() -> None:
    wrapper = make()
    wrapper.step(native(WHO))
    _, _, terminated, _, info = wrapper.end("context_length")
    assert terminated and wrapper.stop_reason == "context_length" == info["stop_reason"]
    assert wrapper.grade is not None and wrapper.grade["turns"] == 2 and wrapper.messages[-1]["role"] == "tool"


def mixed_formats(path: list[dict[str, Any]]) -> list[Any]:
    """The path written in turn as native calls, Hermes text, fenced JSON, two calls at once, and a broken one."""
    out: list[Any] = ["<tool_call>{oops</tool_call>"]
    for k, action in enumerate(path):
        out.append(
            [
                native(action),
                f"<tool_call>{json.dumps(action)}</tool_call>",
                f"```json\n{json.dumps(action)}\n```",
                native(action, ids=[None]),
            ][k % 4]
        )
    return [*out, {"role": "assistant", "content": "Done.", "reasoning_content": "all decided"}]


@pytest.mark.parametrize(("env_id", "task_id"), [(INVOICE, "batch-1"), (VENDOR, "vr-hard-01")])
def test_a_transcript_replays_to_the_same_grade(env_id: str, task_id: str) -> None:
    wrapper = make(env_id, task_id, max_turns=60)
    for action in mixed_formats(gold(wrapper, task_id)):
        if wrapper.stop_reason is None:
            wrapper.step(action)
    assert wrapper.grade is not None and wrapper.grade["reward"] == 1.0 and wrapper.grade["invalid_calls"] == 1
    again = make(env_id, task_id, max_turns=60)
    for message in wrapper.messages:
        if message["role"] == "assistant":
            again.step(message)
    assert again.grade == wrapper.grade and again.messages == wrapper.messages
    assert json.loads(json.dumps(wrapper.messages)) == wrapper.messages  # the transcript is plain JSON


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")
def test_the_wrapper_passes_the_gymnasium_env_checker() -> None:
    check_env(ChatWrapper(gym.make(INVOICE, tier="single", disable_env_checker=True)), skip_render_check=True)
