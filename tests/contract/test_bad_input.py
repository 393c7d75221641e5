"""Bad input on every env: each malformed or refused call answers ``Error: ...``, never raises, and changes nothing.

"Nothing" is checked twice: the domain's ``progress()`` (minus the process counters that count the bad calls)
is the same before and after, and the task's gold path, played after all the bad calls, still scores 1.0.
"""

from __future__ import annotations

import re
from typing import Any

from officegym.envs.core import ToolEnv

from .conftest import gold_path, make, play, step, tool_env

PROCESS_COUNTERS = frozenset({"turns", "invalid_calls"})
"""Progress keys that count calls (bad ones included) rather than describe the world."""
HUGE = "A" * 1_000_000
NO_ID = "ZZ-999"
WRONG_TYPE: dict[str, Any] = {
    "string": 12345,
    "integer": "twelve",
    "number": "twelve",
    "boolean": "yes",
    "array": "not-a-list",
    "object": "not-an-object",
}


def valid_value(schema: dict[str, Any]) -> Any:
    """A schema-valid value (it may still name nothing that exists)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    return "x"


def bogus(real: str | None) -> str:
    """An ID that looks right but names nothing: a real one with every digit a 9 (short, so that it passes the
    schema's length limit and reaches the tool)."""
    if real is None:
        return NO_ID
    fake = re.sub(r"\d", "9", real)
    return fake if fake != real else f"{real}-zz9"


def bad_actions(inner: ToolEnv[Any], task_id: str) -> dict[str, Any]:
    """Malformed and refused calls, built from the env's own tool schemas (so any domain gets them). Arguments
    that should be fine are real IDs of the task where its gold path has them, so an invalid ID is refused for
    itself (a write must check every argument before it changes anything)."""
    known = {
        key: value
        for action in inner.gold_actions(task_id)
        for key, value in action["arguments"].items()
        if key in inner.ID_PATTERNS
    }
    functions = [schema["function"] for schema in inner.tool_schemas]
    first = functions[0]["name"]
    bad: dict[str, Any] = {
        "unknown tool": {"name": "no_such_tool", "arguments": {}},
        "not an object": 42,
        "none": None,
        "a list": [{"name": first, "arguments": {}}],
        "no name": {"arguments": {}},
        "extra key": {"name": first, "arguments": {}, "id": "call_1"},
        "malformed JSON text": '{"name": "' + first + '", "arguments": {',
        "malformed JSON arguments": {"name": first, "arguments": "{not json"},
        "arguments not an object": {"name": first, "arguments": [1, 2]},
        "huge action text": HUGE,
        "huge tool name": {"name": HUGE, "arguments": {}},
        "finish with arguments": {"name": "finish", "arguments": {"note": "done"}},
    }
    for fn in functions:
        name, params = fn["name"], fn["parameters"]
        properties: dict[str, dict[str, Any]] = params.get("properties", {})
        required: list[str] = params.get("required", [])
        valid = {key: known.get(key, valid_value(properties[key])) for key in required}
        bad[f"{name}: extra argument"] = {"name": name, "arguments": {**valid, "unexpected_argument": 1}}
        if required:
            bad[f"{name}: no arguments"] = {"name": name, "arguments": {}}
        if len(required) > 1:
            bad[f"{name}: missing {required[-1]}"] = {"name": name, "arguments": dict(list(valid.items())[:-1])}
        for key in required:
            kind = properties[key].get("type", "string")
            bad[f"{name}: wrong type for {key}"] = {"name": name, "arguments": {**valid, key: WRONG_TYPE[kind]}}
            if kind == "string" and "enum" not in properties[key]:
                bad[f"{name}: huge {key}"] = {"name": name, "arguments": {**valid, key: HUGE}}
            if key in inner.ID_PATTERNS and kind == "string":  # one ID (a list argument takes several)
                bad[f"{name}: invalid {key}"] = {"name": name, "arguments": {**valid, key: bogus(known.get(key))}}
    return bad


def world(inner: ToolEnv[Any]) -> dict[str, float]:
    return {k: v for k, v in inner.progress().items() if k not in PROCESS_COUNTERS}


def test_bad_calls_answer_error_and_change_nothing(env_id: str) -> None:
    probe = tool_env(make(env_id))
    task_id = probe.task_ids[0]
    bad = bad_actions(probe, task_id)
    env = make(env_id, max_turns=len(bad) + len(probe.gold_actions(task_id)) + 5)  # no truncation here
    inner = tool_env(env)
    env.reset(seed=0, options={"task_id": task_id})
    before = world(inner)
    for label, action in bad.items():
        observation, reward, terminated, truncated, info = step(env, action)
        assert observation.startswith("Error: "), f"{label}: {str(action)[:120]} answered {observation[:200]!r}"
        assert info["is_error"] and reward == 0.0 and not terminated and not truncated, label
        assert len(observation) < 10_000, f"{label}: the error echoes the input ({len(observation)} characters)"
        assert world(inner) == before, f"{label}: the world changed"
    assert inner.stats.invalid_calls == len(bad)
    *_, (_, reward, terminated, _, info) = play(env, gold_path(env, task_id))
    assert terminated and reward == 1.0, f"the gold path after the bad calls scored {info['grade']}"
    env.close()
