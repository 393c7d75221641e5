"""The ``@tool`` decorator: a typed, documented Python function becomes an OpenAI function schema.

The docstring is written once and read by two audiences: Python readers and the language model, which sees
it as the tool's description. Parameter types come from the signature (``Literal`` gives an enum,
``Annotated[int, Range(1, 200)]`` bounds, ``Annotated[str, MaxLen(64)]`` lengths), parameter descriptions
from the docstring's ``Args:`` section, and a default value makes a parameter optional.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args, get_origin

from ...spaces.json_schema import JsonSchema

DEFAULT_MAX_STRING = 256


class ToolError(Exception):
    """A tool refuses a call (not found, invalid transition, ...). The message becomes ``Error: <message>``."""


@dataclass(frozen=True)
class Range:
    """Inclusive integer bounds for a parameter: ``Annotated[int, Range(1, 200)]``."""

    minimum: int
    maximum: int


@dataclass(frozen=True)
class MaxLen:
    """Maximum string length (the default is 256 characters), or maximum item count of a list parameter."""

    length: int


@dataclass(frozen=True)
class Tool:
    """A callable tool with its schema. ``func(ctx, **arguments)`` returns the observation text."""

    name: str
    description: str
    parameters: JsonSchema
    func: Callable[..., str]
    writes: bool = False
    terminal: bool = False

    def openai_schema(self) -> JsonSchema:
        """The tool in OpenAI's ``tools=[...]`` format."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def tool(*, writes: bool = False, terminal: bool = False) -> Callable[[Callable[..., str]], Tool]:
    """Turn ``func(ctx, ...) -> str`` into a :class:`Tool`. ``writes`` marks tools that change the world
    (they run inside a transaction and are audited); ``terminal`` ends the episode when the call succeeds."""

    def wrap(func: Callable[..., str]) -> Tool:
        description, arg_docs = parse_docstring(func.__doc__ or "")
        hints = typing.get_type_hints(func, include_extras=True)
        params = list(inspect.signature(func).parameters.values())[1:]  # the first one is the episode context
        _check_documented(func.__name__, description, [p.name for p in params], arg_docs)
        properties: dict[str, JsonSchema] = {}
        required: list[str] = []
        for param in params:
            prop = schema_for(hints[param.name])
            if param.name in arg_docs:
                prop["description"] = arg_docs[param.name]
            if param.default is inspect.Parameter.empty:
                required.append(param.name)
            properties[param.name] = prop
        parameters: JsonSchema = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }
        return Tool(func.__name__, description, parameters, func, writes, terminal)

    return wrap


def _check_documented(name: str, description: str, params: list[str], arg_docs: dict[str, str]) -> None:
    """The docstring is all the model knows of a tool, so a tool without a description, a parameter without
    an ``Args:`` entry, or an entry for a parameter that does not exist is refused when the tool is defined."""
    if not description:
        raise TypeError(f"tool {name}: the docstring has no description; the model reads it to choose the tool")
    undocumented = [p for p in params if not arg_docs.get(p)]
    if undocumented:
        raise TypeError(
            f"tool {name}: parameter(s) {', '.join(undocumented)} not documented in the docstring's "
            "Args: section; the model sees only what the docstring says"
        )
    unknown = [a for a in arg_docs if a not in params]
    if unknown:
        raise TypeError(f"tool {name}: the docstring documents {', '.join(unknown)}, which the function does not take")


def schema_for(hint: Any) -> JsonSchema:
    """The JSON schema of one parameter's type hint."""
    extras: tuple[Any, ...] = ()
    if get_origin(hint) is Annotated:
        hint, *rest = get_args(hint)
        extras = tuple(rest)
    schema = _base_schema(hint)
    for extra in extras:
        if isinstance(extra, Range):
            schema.update(minimum=extra.minimum, maximum=extra.maximum)
        elif isinstance(extra, MaxLen):
            schema["maxItems" if schema.get("type") == "array" else "maxLength"] = extra.length
    if schema.get("type") == "string" and "enum" not in schema:
        schema.setdefault("maxLength", DEFAULT_MAX_STRING)
    return schema


def _base_schema(hint: Any) -> JsonSchema:
    if get_origin(hint) is Literal:
        values = list(get_args(hint))
        return {"type": "string" if all(isinstance(v, str) for v in values) else "integer", "enum": values}
    if get_origin(hint) is list:
        (item,) = get_args(hint)
        return {"type": "array", "items": schema_for(item)}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if hint in simple:
        return {"type": simple[hint]}
    raise TypeError(f"unsupported tool parameter type: {hint!r}")


_SECTION = re.compile(r"^\s*(Args|Arguments|Returns|Raises):\s*$")
_ARG_LINE = re.compile(r"^(\s*)(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into the description (text before ``Args:``, plus ``Returns:``) and
    per-argument descriptions. An argument starts at the section's first indentation level; deeper lines
    continue it and are joined with spaces."""
    description: list[str] = []
    returns: list[str] = []
    args: dict[str, str] = {}
    section, current, arg_indent = "", "", -1
    for line in inspect.cleandoc(doc).splitlines():
        header = _SECTION.match(line)
        if header:
            section = header.group(1)
            continue
        if section in ("Args", "Arguments"):
            match = _ARG_LINE.match(line)
            indent = len(line) - len(line.lstrip())
            if match and (arg_indent < 0 or indent <= arg_indent):
                arg_indent, current = indent, match.group(2)
                args[current] = match.group(3).strip()
            elif current and line.strip():
                args[current] = f"{args[current]} {line.strip()}"
        elif section == "Returns":
            returns.append(line.strip())
        elif not section:
            description.append(line)
    text = "\n".join(description).strip()
    if any(returns):
        text += "\n\nReturns: " + " ".join(r for r in returns if r)
    return text, args
