"""A small JSON-schema checker for the subset that tool schemas use, compiled once per schema.

Tool arguments come from models and random policies, so every call is checked before a tool runs. The
subset is what ``@tool`` emits: objects with ``properties``/``required``/``additionalProperties: false``,
strings (``enum``, ``minLength``, ``maxLength``), integers (``minimum``, ``maximum``, ``enum``), booleans and
arrays of those. A full JSON-schema library would be a dependency for a few dozen lines, and its messages are
written for developers; these are written for the model that made the call.

``compile_schema`` turns a schema into a checker function once, with every message prefix and bound worked
out in advance; checking a tool call then costs one Python call per argument. That matters because the check
runs on every step, inside every vector-env worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .safe_value import safe_text

JsonSchema = dict[str, Any]
Checker = Callable[[Any], "str | None"]

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
}


# JSON types, strictly: ``True`` is not an integer, ``1.0`` is not an integer.
_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


def check(value: Any, schema: JsonSchema, where: str = "arguments") -> str | None:
    """Return ``None`` if ``value`` satisfies ``schema``, else one sentence naming the first problem.
    Compiles the schema on every call; hot paths keep the result of :func:`compile_schema` instead."""
    return compile_schema(schema, where)(value)


def compile_schema(schema: JsonSchema, where: str = "arguments") -> Checker:
    """A function that returns ``None`` for a valid value, else the first problem in one sentence. The
    order of checks is: type, ``enum``, then the type's own constraints.

    A value whose exact type is the schema's plain type (``str`` for a string, ``dict`` for an object, ...)
    and a schema without ``enum`` cannot fail the first two checks, so the constraints skip them: one
    function call per value on the common path."""
    kind = schema.get("type")
    if not isinstance(kind, str):
        kind = ""  # no type, or a list of types: nothing this subset checks
    head = _type_and_enum(schema, where, kind)
    if kind not in _CONSTRAINTS:
        return head
    plain = frozenset() if "enum" in schema else frozenset(_PYTHON_TYPES[kind])
    return _CONSTRAINTS[kind](schema, where, head, plain)


def _type_and_enum(schema: JsonSchema, where: str, kind: str) -> Checker:
    types = _PYTHON_TYPES.get(kind)
    no_bool = kind in ("integer", "number")
    has_enum = "enum" in schema
    enum: list[Any] = list(schema["enum"]) if has_enum else []
    type_name = _TYPE_NAMES.get(kind, kind)

    def run(value: Any) -> str | None:
        if types is not None and (not isinstance(value, types) or (no_bool and isinstance(value, bool))):
            return f"{where} must be {type_name}, got {type(value).__name__} {_short(value)}"
        if has_enum and value not in enum:
            options = ", ".join(repr(v) for v in enum)
            return f"{where} must be one of {options}; got {_short(value)}"
        return None

    return run


Compiler = Callable[[JsonSchema, str, Checker, frozenset[type]], Checker]


def _string_constraints(schema: JsonSchema, where: str, head: Checker, plain: frozenset[type]) -> Checker:
    shortest, longest = schema.get("minLength", 0), schema.get("maxLength")

    def run(value: Any) -> str | None:
        if type(value) not in plain:
            problem = head(value)
            if problem:
                return problem
        if len(value) < shortest:
            return f"{where} must have at least {shortest} character(s)"
        if longest is not None and len(value) > longest:
            return f"{where} must have at most {longest} characters, got {len(value)}"
        if "\x00" in value:
            return f"{where} must not contain NUL characters"
        return None

    return run


def _number_constraints(schema: JsonSchema, where: str, head: Checker, plain: frozenset[type]) -> Checker:
    low, high = schema.get("minimum"), schema.get("maximum")

    def run(value: Any) -> str | None:
        if type(value) not in plain:
            problem = head(value)
            if problem:
                return problem
        if low is not None and value < low:
            return f"{where} must be at least {low}, got {value}"
        if high is not None and value > high:
            return f"{where} must be at most {high}, got {value}"
        return None

    return run


def _array_constraints(schema: JsonSchema, where: str, head: Checker, plain: frozenset[type]) -> Checker:
    most = schema.get("maxItems")
    items = schema.get("items")
    item_schema: JsonSchema | None = items if isinstance(items, dict) else None

    def run(value: Any) -> str | None:
        if type(value) not in plain:
            problem = head(value)
            if problem:
                return problem
        if most is not None and len(value) > most:
            return f"{where} must have at most {most} items, got {len(value)}"
        if item_schema is not None:
            for i, item in enumerate(value):  # per-item prefixes depend on the index: compiled on demand
                problem = compile_schema(item_schema, f"{where}[{i}]")(item)
                if problem:
                    return problem
        return None

    return run


def _object_constraints(schema: JsonSchema, where: str, head: Checker, plain: frozenset[type]) -> Checker:
    props: dict[str, JsonSchema] = schema.get("properties", {})
    checkers = [(key, compile_schema(sub, f"argument '{key}'")) for key, sub in props.items()]
    required: list[str] = list(schema.get("required", []))
    closed = schema.get("additionalProperties", True) is False
    allowed = ", ".join(props) or "none"

    def run(value: Any) -> str | None:
        if type(value) not in plain:
            problem = head(value)
            if problem:
                return problem
        # Plain loops, not comprehensions: on Python 3.11 each comprehension is one more function call, and
        # this runs on every step.
        for key in value:
            if not isinstance(key, str):
                return f"{where} has a non-string key {_short(key)}"
        for key in required:
            if key not in value:
                missing = ", ".join(k for k in required if k not in value)
                return f"missing required argument(s): {missing}"
        if closed:
            for key in value:
                if key not in props:
                    extra = ", ".join(_short(k) for k in sorted(k for k in value if k not in props))
                    return f"unexpected argument(s): {extra} (allowed: {allowed})"
        for key, checker in checkers:
            if key in value:
                problem = checker(value[key])
                if problem:
                    return problem
        return None

    return run


_CONSTRAINTS: dict[str, Compiler] = {
    "string": _string_constraints,
    "integer": _number_constraints,
    "number": _number_constraints,
    "array": _array_constraints,
    "object": _object_constraints,
}


def _short(value: Any, limit: int = 60) -> str:
    """A bounded repr, so a 1 MB argument never turns into a 1 MB error message."""
    text = safe_text(value, show=repr)
    return text if len(text) <= limit else text[: limit - 3] + "..."
