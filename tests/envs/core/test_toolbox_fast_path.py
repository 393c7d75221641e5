"""The toolbox's quick path for plain calls (``spaces/plain_check.py``) gives exactly what the full checks give.

Every shipped tool schema and one tool with every parameter kind, each tool's function replaced by one that
echoes its arguments, so that what a call reached is visible; then thousands of seeded random actions (valid,
wrong-typed, out of range, missing, extra, non-ASCII, nested, as JSON text) through ``execute`` (which takes the
quick path when it can) and through ``checked`` (the full checks only): the outcomes are equal field by field.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Annotated, Any, Literal

import pytest

from officegym.envs.core import MaxLen, Range, Tool, ToolBox, tool
from officegym.registration import ENV_IDS, env_class
from officegym.spaces.json_schema import compile_schema
from officegym.spaces.plain_check import compile_plain
from officegym.spaces.safe_value import arguments_problem


def _every_kind(
    ctx: object,
    code: Literal["A", "B"],
    count: Annotated[int, Range(1, 9)],
    level: Literal[1, 2] = 1,
    note: Annotated[str, MaxLen(5)] = "",
    flag: bool = False,
    share: float = 0.5,
    ids: Annotated[list[str], MaxLen(3)] = [],  # noqa: B006 (never mutated: the schema reads the default)
    big: int = 0,
) -> str:
    """A tool with every parameter kind the schema builder makes.

    Args:
        code: An enum of strings.
        count: A bounded integer.
        level: An enum of integers.
        note: A short string.
        flag: A boolean.
        share: A number.
        ids: A list.
        big: An unbounded integer.
    """
    return ""


def _echo(ctx: Any, **arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, default=repr)


def _echoing(tools: list[Tool]) -> ToolBox:
    return ToolBox([replace(t, func=_echo) for t in tools])


def _shipped_tools() -> list[Tool]:
    seen: dict[str, Tool] = {}
    for env_id in sorted(ENV_IDS):
        for t in env_class(env_id).TOOLS:
            seen.setdefault(f"{env_id}:{t.name}", t)
    return list(seen.values())


EVERY_KIND = tool()(_every_kind)
ODD: list[Any] = [None, 0, -1, 1, 9, 10, 10**100, 10**99, -(10**99), True, False, 0.5, "", "A", "B", "C", "x" * 6, "ok",
       "é", "\ud800", "a\x00", [], ["a"], {}, {"a": 1}, [[[]]], "ER-2026-00001", "K-70001", 2]  # fmt: skip


def _value(rng: random.Random, schema: dict[str, Any]) -> Any:
    """A valid value of the schema more often than not, else one of ``ODD``."""
    kind = schema.get("type")
    if rng.random() < 0.3:
        return rng.choice(ODD)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if kind == "string":
        return "".join(rng.choice("AZaz09-_ ") for _ in range(rng.randrange(0, min(schema.get("maxLength", 9), 9) + 2)))
    if kind == "integer":
        return rng.randrange(schema.get("minimum", -5), schema.get("maximum", 5) + 2)
    if kind == "boolean":
        return rng.random() < 0.5
    return rng.choice(ODD)


def _action(rng: random.Random, box: ToolBox) -> Any:
    names = [*box.tools, "finish", "unknown", ""]
    name = rng.choice(names)
    tool_ = box.tools.get(name)
    props = tool_.parameters["properties"] if tool_ else {}
    needed = tool_.parameters["required"] if tool_ else []
    arguments = {key: _value(rng, sub) for key, sub in props.items() if key in needed or rng.random() < 0.3}
    if rng.random() < 0.05:
        arguments[rng.choice(["extra", 1, "é"])] = 1
    if rng.random() < 0.05 and arguments:
        del arguments[rng.choice(sorted(arguments, key=str))]
    form = rng.random()
    if form < 0.75:
        return {"name": name, "arguments": arguments}
    if form < 0.85:
        return json.dumps({"name": name, "arguments": arguments}, default=repr)
    return rng.choice([{"name": name}, {"name": name, "arguments": None, "x": 1}, [name], {"name": 3}, "{"])


@pytest.mark.parametrize("tools", [[EVERY_KIND], _shipped_tools()], ids=["every kind", "shipped"])
def test_execute_equals_the_full_checks(tools: list[Tool]) -> None:
    box = _echoing(tools)
    rng = random.Random(26)
    quick = 0
    for _ in range(4000):
        action = _action(rng, box)
        assert box.execute(None, action) == box.checked(None, action), action
        if isinstance(action, dict) and action.get("name") in box.plain and isinstance(action.get("arguments"), dict):
            quick += box.plain[action["name"]][1](action["arguments"])
    assert quick > 50  # the quick path was taken, not only the fallback


def test_a_plain_yes_is_a_yes_of_every_full_check() -> None:
    rng = random.Random(7)
    for t in [EVERY_KIND, *_shipped_tools()]:
        plain, full = compile_plain(t.parameters), compile_schema(t.parameters)
        assert plain is not None
        for _ in range(300):
            arguments: dict[Any, Any] = {
                key: _value(rng, sub) for key, sub in t.parameters["properties"].items() if rng.random() < 0.8
            }
            if plain(arguments):
                assert full(arguments) is None and arguments_problem(arguments) is None, (t.name, arguments)


@pytest.mark.parametrize(
    ("arguments", "plain"),
    [
        ({"code": "A", "count": 1}, True),
        ({"code": "B", "count": 9, "level": 2, "note": "abcde", "flag": True}, True),
        ({"code": "A"}, False),  # a required argument missing
        ({"code": "A", "count": 10}, False),  # out of range
        ({"code": "A", "count": True}, False),  # a bool is not an integer
        ({"code": "C", "count": 1}, False),  # not in the enum
        ({"code": "A", "count": 1, "level": 3}, False),
        ({"code": "A", "count": 1, "note": "abcdef"}, False),  # too long
        ({"code": "A", "count": 1, "note": "é"}, False),  # not ASCII: the full checks decide
        ({"code": "A", "count": 1, "note": "a\x00"}, False),
        ({"code": "A", "count": 1, "share": 0.5}, False),  # a number: always the full checks
        ({"code": "A", "count": 1, "ids": []}, False),  # a list: always the full checks
        ({"code": "A", "count": 1, "big": 10**100}, False),  # more digits than safe_value allows
        ({"code": "A", "count": 1, "other": 1}, False),
    ],
)
def test_plain_check_cases(arguments: dict[str, Any], plain: bool) -> None:
    check = compile_plain(EVERY_KIND.parameters)
    assert check is not None and check(arguments) is plain


def test_a_schema_that_is_not_a_plain_object_has_no_quick_check() -> None:
    assert compile_plain({"type": "string"}) is None
    assert compile_plain({"type": "object", "properties": {}, "required": "x"}) is None
