"""A quick yes for the usual tool call: flat arguments of the exact types and ranges its schema names.

Why: before a tool runs, its call goes through three checks that each walk the same few values: the action's
shape (``tool_call.parse_action``), whether its values can be shown and sent on (``safe_value``), and the
tool's schema (``json_schema``). Nearly every call an agent or a scripted policy makes is plain: ASCII strings
within their lengths, integers within their bounds, the names the schema knows, every required one there.
``compile_plain`` turns a tool's parameter schema into one function that answers True only for such
arguments, which every one of those checks passes unchanged; for anything else (a missing or extra key, a
wrong type, a value out of range, non-ASCII text, a list) it answers False, and the caller runs the full
checks, so every refusal keeps its exact ``Error:`` text. It never refuses anything itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .json_schema import JsonSchema
from .safe_value import MAX_DIGITS

PlainCheck = Callable[[dict[Any, Any]], bool]
Spec = tuple[type[Any], int, int, frozenset[Any] | None]
"""One parameter: its exact Python type (str, int or bool), the bounds (of a string's length, of an integer's
value), and the allowed values of an enum (None: any)."""

_LARGEST = 10**MAX_DIGITS - 1  # ``safe_value`` refuses integers of more digits than this


def compile_plain(schema: JsonSchema) -> PlainCheck | None:
    """The quick check of an object schema's arguments, or None when the schema is not a plain object (then
    every call takes the full checks)."""
    props = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(props, dict):
        return None
    specs: dict[str, Spec] = {}
    for key, sub in props.items():
        spec = _spec(sub) if isinstance(key, str) and isinstance(sub, dict) else None
        if spec is not None:  # a parameter of another kind (a list, a number) always takes the full checks
            specs[key] = spec
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(key, str) for key in required):
        return None
    return _checker(specs, frozenset(required))


def _spec(schema: JsonSchema) -> Spec | None:
    kind = schema.get("type")
    enum = schema.get("enum")
    allowed = frozenset(enum) if isinstance(enum, list) and _hashable(enum) else None
    if enum is not None and allowed is None:
        return None
    if kind == "string":
        low, high = schema.get("minLength", 0), schema.get("maxLength", sys.maxsize)
        return (str, low, high, allowed) if _whole(low) and _whole(high) else None
    if kind == "integer":
        low, high = schema.get("minimum", -_LARGEST), schema.get("maximum", _LARGEST)
        if not (_whole(low) and _whole(high)):
            return None
        return int, max(low, -_LARGEST), min(high, _LARGEST), allowed
    if kind == "boolean":
        return bool, 0, 0, allowed
    return None


def _whole(value: Any) -> bool:
    return type(value) is int


def _hashable(values: list[Any]) -> bool:
    return all(type(v) in (str, int, bool) for v in values)


def _checker(specs: dict[str, Spec], required: frozenset[str]) -> PlainCheck:
    def plain(arguments: dict[Any, Any]) -> bool:
        """True only if every check of the full path passes these arguments (see the module docstring)."""
        for key, value in arguments.items():
            spec = specs.get(key) if type(key) is str else None
            if spec is None:
                return False
            kind, low, high, allowed = spec
            if type(value) is not kind:
                return False
            if kind is str:
                if not low <= len(value) <= high or not value.isascii() or "\x00" in value:
                    return False
            elif kind is int and not low <= value <= high:
                return False
            if allowed is not None and value not in allowed:
                return False
        return required <= arguments.keys()

    return plain
