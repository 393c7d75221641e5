"""A small JSON-schema checker for the subset that tool schemas use.

Tool arguments come from models and random policies, so every call is checked before a tool runs. The
subset is what ``@tool`` emits: objects with ``properties``/``required``/``additionalProperties: false``,
strings (``enum``, ``minLength``, ``maxLength``), integers (``minimum``, ``maximum``, ``enum``), booleans and
arrays of those. A full JSON-schema library would be a dependency for a few dozen lines, and its messages are
written for developers; these are written for the model that made the call.
"""

from __future__ import annotations

from typing import Any

JsonSchema = dict[str, Any]

_TYPE_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
               "array": "a list", "object": "an object"}


def _type_ok(value: Any, kind: str) -> bool:
    """JSON types, strictly: ``True`` is not an integer, ``1.0`` is not an integer."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list | tuple)
    if kind == "object":
        return isinstance(value, dict)
    return True


def check(value: Any, schema: JsonSchema, where: str = "arguments") -> str | None:
    """Return ``None`` if ``value`` satisfies ``schema``, else one sentence naming the first problem."""
    kind = schema.get("type")
    if isinstance(kind, str) and not _type_ok(value, kind):
        return f"{where} must be {_TYPE_NAMES.get(kind, kind)}, got {type(value).__name__} {_short(value)}"
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(repr(v) for v in schema["enum"])
        return f"{where} must be one of {options}; got {_short(value)}"
    if kind == "string":
        return _check_string(value, schema, where)
    if kind in ("integer", "number"):
        return _check_number(value, schema, where)
    if kind == "array":
        return _check_array(value, schema, where)
    if kind == "object":
        return _check_object(value, schema, where)
    return None


def _check_string(value: str, schema: JsonSchema, where: str) -> str | None:
    if len(value) < schema.get("minLength", 0):
        return f"{where} must have at least {schema['minLength']} character(s)"
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return f"{where} must have at most {schema['maxLength']} characters, got {len(value)}"
    if "\x00" in value:
        return f"{where} must not contain NUL characters"
    return None


def _check_number(value: float, schema: JsonSchema, where: str) -> str | None:
    if "minimum" in schema and value < schema["minimum"]:
        return f"{where} must be at least {schema['minimum']}, got {value}"
    if "maximum" in schema and value > schema["maximum"]:
        return f"{where} must be at most {schema['maximum']}, got {value}"
    return None


def _check_array(value: list[Any], schema: JsonSchema, where: str) -> str | None:
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return f"{where} must have at most {schema['maxItems']} items, got {len(value)}"
    items = schema.get("items")
    if isinstance(items, dict):
        for i, item in enumerate(value):
            problem = check(item, items, f"{where}[{i}]")
            if problem:
                return problem
    return None


def _check_object(value: dict[str, Any], schema: JsonSchema, where: str) -> str | None:
    props: dict[str, JsonSchema] = schema.get("properties", {})
    for key in value:
        if not isinstance(key, str):
            return f"{where} has a non-string key {_short(key)}"
    missing = [k for k in schema.get("required", []) if k not in value]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    if schema.get("additionalProperties", True) is False:
        extra = sorted(k for k in value if k not in props)
        if extra:
            allowed = ", ".join(props) or "none"
            return f"unexpected argument(s): {', '.join(_short(k) for k in extra)} (allowed: {allowed})"
    for key, sub in props.items():
        if key in value:
            problem = check(value[key], sub, f"argument '{key}'")
            if problem:
                return problem
    return None


def _short(value: Any, limit: int = 60) -> str:
    """A bounded repr, so a 1 MB argument never turns into a 1 MB error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
