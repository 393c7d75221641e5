"""A fuzz of the trainer bridges: hostile tool arguments always come back as an ``Error:`` text, never raise.

The envs refuse what they cannot use (``spaces/safe_value.py``); the bridges around them must not fall over on
the way there. Each case is a seeded hostile call: a real tool of the env with a parameter (or an unknown one)
set to a value no tool takes: nesting thousands deep, numbers of thousands of digits, lone surrogates in values
and keys, NaN and infinity, megabyte strings, wrong kinds. Fed to TRL's generated tool methods, to the verifiers
tool server (``play_call``, values as MCP delivers them: JSON values only) and to the verifiers harness's reading
of a model's argument text (``run_tool_call``), every answer is a string that starts with ``Error:`` and can be
encoded as UTF-8, and no refused call reaches the episode's record.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from officegym.integrations.trl import environment_factory

ENVS = {"officegym/InvoiceApproval-v0": "single-1", "officegym/VendorReview-v0": "vr-easy-01"}
CASES_PER_ENV = 100
SEED = 2027


def deep(depth: int, leaf: Any = 0) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def hostile_value(rng: random.Random) -> Any:
    """A JSON value no tool parameter accepts."""
    makers: list[Callable[[], Any]] = [
        lambda: deep(rng.choice([65, 500, 5_000])),
        lambda: {"a": deep(rng.choice([70, 3_000]))},
        lambda: 10 ** rng.choice([101, 1_000, 4_000]),
        lambda: -(10 ** rng.choice([150, 3_000])),
        lambda: "ER-\ud800",
        lambda: "\udfff" * rng.randrange(1, 5),
        lambda: ["ok", "\ud83d"],
        lambda: {"\ud800": 1},
        lambda: float("nan"),
        lambda: float(rng.choice(["inf", "-inf"])),
        lambda: "x" * 1_000_000,
        lambda: [None] * 10_000,
        lambda: {str(k): k for k in range(2_000)},
    ]
    return rng.choice(makers)()


def hostile_arguments(rng: random.Random, parameters: list[str]) -> dict[str, Any]:
    """The tool's parameters, one or more of them (or an unknown one) hostile."""
    names = [*parameters, rng.choice(["zzz", "\ud800key", "x" * 300])]
    chosen = rng.sample(names, rng.randrange(1, len(names) + 1))
    return {name: hostile_value(rng) for name in chosen}


def calls(env_id: str, schemas: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(f"{SEED}-{env_id}")
    out = []
    for _ in range(CASES_PER_ENV):
        function = rng.choice(schemas)["function"]
        out.append((function["name"], hostile_arguments(rng, sorted(function["parameters"].get("properties", {})))))
    return out


def assert_error(answer: Any, context: str) -> None:
    assert isinstance(answer, str) and answer.startswith("Error: "), (context, str(answer)[:200])
    answer.encode("utf-8")  # sendable back to the model


@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_trl_tool_methods_answer_hostile_arguments_with_an_error(env_id: str) -> None:
    environment = environment_factory(env_id)()
    environment.reset(task_id=ENVS[env_id])
    schemas = list(environment.env.unwrapped.tool_schemas)  # type: ignore[attr-defined]
    for name, arguments in calls(env_id, schemas):
        if environment.grade is not None:  # max_turns of refused calls: graded, then the next episode
            environment.reset(task_id=ENVS[env_id])
        assert_error(getattr(environment, name)(**arguments), name)
    assert environment.get_reward() == environment.grade["reward"]  # type: ignore[index]  # still graded


@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_the_verifiers_tool_server_answers_hostile_arguments_with_an_error(env_id: str) -> None:
    pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed")
    from officegym.integrations import verifiers as ogv
    from officegym.integrations import verifiers_toolset as server

    state, sessions = verifiers_state(ogv, env_id), server.Sessions()
    schemas = server.tool_schemas(state)
    try:
        for name, arguments in calls(env_id, schemas):
            if state.grade is not None:  # max_turns of refused calls: the next rollout
                state = verifiers_state(ogv, env_id)
            text, is_error = server.play_call(sessions, state, name, arguments)
            assert is_error
            assert_error(text, name)
        json.dumps(state.model_dump(mode="json"))  # the record still syncs as JSON
    finally:
        sessions.close()


@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_the_verifiers_harness_answers_hostile_argument_texts_with_an_error(env_id: str) -> None:
    pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed")
    from officegym.integrations import verifiers as ogv
    from officegym.integrations import verifiers_toolset as server

    state, sessions = verifiers_state(ogv, env_id), server.Sessions()

    async def call_tool(name: str, arguments: Any) -> Any:
        return server.play_call(sessions, state, name, arguments)[0]

    rng = random.Random(f"{SEED}-texts-{env_id}")
    try:
        for name, arguments in calls(env_id, server.tool_schemas(state)):
            text = argument_text(rng, arguments)
            call = {"id": "c", "type": "function", "function": {"name": name, "arguments": text}}
            assert_error(asyncio.run(ogv.run_tool_call(call, call_tool)), text[:80])
    finally:
        sessions.close()


def argument_text(rng: random.Random, arguments: dict[str, Any]) -> str:
    """The arguments as a model might write them: JSON (Python's, with NaN and surrogate escapes), cut short,
    or with a number too long for Python to read."""
    try:
        text = json.dumps(arguments)
    except (ValueError, RecursionError):  # too deep or too many digits for json.dumps: write one by hand
        text = '{"x": ' + rng.choice(["[" * 5_000 + "]" * 5_000, "9" * 5_000]) + "}"
    return text[: rng.randrange(1, len(text))] if rng.random() < 0.2 else text


def verifiers_state(ogv: Any, env_id: str) -> Any:
    """A rollout's state as the task's ``setup`` opens it (its session and row)."""
    import verifiers.v1 as vf

    task = next(iter(ogv.taskset(env_id).include(ids=[ENVS[env_id]])))
    trace = vf.Trace(
        task=vf.TraceTask(type="OfficeGymTask", data=task.data, key=task.key, hash=task.hash),
        agent=vf.AgentInfo(config=vf.AgentConfig()),
        state=ogv.OfficeGymState(),
    )
    asyncio.run(task.setup(trace, None))
    return trace.state
