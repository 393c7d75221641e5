"""``ToolCall``: the structured action space of every officegym env.

An action is one tool call, ``{"name": str, "arguments": dict}``; the JSON text of that object is accepted
too, because that is what language models emit. The space is built from OpenAI function schemas, so the
same schema that an LLM reads is the one ``contains()`` enforces and ``sample()`` draws from.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from .json_schema import JsonSchema, check
from .safe_value import MAX_DEPTH, MAX_DIGITS, arguments_problem, safe_text, value_problem

Action = dict[str, Any]


def parse_action(action: Any) -> tuple[Action | None, str | None]:
    """Normalise an action into ``{"name", "arguments"}``; return ``(call, None)`` or ``(None, error)``.

    Accepts a dict, or a JSON string of one. ``arguments`` may itself be a JSON string (OpenAI sends it so).
    Never raises: malformed input becomes an error sentence for the ``Error: ...`` observation, and a call whose
    values could not be shown or sent on (``safe_value.py``) is refused here, before anything echoes them.
    """
    if isinstance(action, (str, bytes)):  # a tuple: isinstance with a ``str | bytes`` union is slower
        action, problem = _loads(action, 'the action is not valid JSON; send {"name": "<tool>", "arguments": {...}}')
        if problem:
            return None, problem
    if not isinstance(action, dict):
        return None, f'an action is an object {{"name": ..., "arguments": {{...}}}}, got {type(action).__name__}'
    name = action.get("name")
    if not isinstance(name, str) or not name:
        return None, 'the action needs a tool "name" (a non-empty string)'
    if not name.isascii() and (problem := value_problem(name)):
        return None, problem
    if len(action) > 2 or (len(action) == 2 and "arguments" not in action):
        extra = sorted(safe_text(k) for k in action if k not in ("name", "arguments"))
        return None, f"unexpected key(s) in the action: {', '.join(extra)} (only name and arguments)"
    arguments = action.get("arguments", {})
    if isinstance(arguments, (str, bytes)):
        if not arguments.strip():
            arguments = {}
        else:
            arguments, problem = _loads(arguments, f"the arguments of '{name[:60]}' are not valid JSON")
            if problem:
                return None, problem
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return None, f"the arguments of '{name[:60]}' must be an object, got {type(arguments).__name__}"
    problem = arguments_problem(arguments)
    if problem:
        return None, problem
    return {"name": name, "arguments": arguments}, None


def _loads(text: str | bytes, invalid: str) -> tuple[Any, str | None]:
    """``json.loads`` that never raises: ``(value, None)`` or ``(None, the reason)``."""
    try:
        return json.loads(text), None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, invalid
    except RecursionError:
        return None, f"the action is nested more than {MAX_DEPTH} levels deep"
    except ValueError:  # Python refuses to parse an integer of more than 4,300 digits
        return None, f"the action contains a number of more than {MAX_DIGITS} digits"


class ToolCall(spaces.Space[Action]):
    """Tool calls valid against a fixed set of OpenAI function schemas.

    ``contains(x)`` is true when ``x`` (a dict or its JSON text) names a known tool and its arguments satisfy
    that tool's parameter schema. ``sample()`` draws a tool uniformly, then schema-valid arguments with the
    space's own seeded RNG: enums from their values, integers within their bounds, strings from the schema's
    ``examples`` when given, else short random text. The space pickles to a few kilobytes.
    """

    def __init__(self, tools: Sequence[JsonSchema], seed: int | np.random.Generator | None = None) -> None:
        self.functions: dict[str, JsonSchema] = {}
        for entry in tools:
            fn = entry.get("function", entry)
            self.functions[fn["name"]] = fn.get("parameters", {"type": "object", "properties": {}})
        self.tool_names = tuple(self.functions)
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def validate(self, action: Any) -> str | None:
        """``None`` if the action is a valid call, else the reason in one sentence."""
        call, problem = parse_action(action)
        if call is None:
            return problem
        schema = self.functions.get(call["name"])
        if schema is None:
            return f"unknown tool '{call['name'][:60]}'; available tools: {', '.join(self.tool_names)}"
        return check(call["arguments"], schema)

    def contains(self, x: Any) -> bool:
        return self.validate(x) is None

    def sample(self, mask: Any = None, probability: Any = None) -> Action:
        name = self.tool_names[int(self.np_random.integers(len(self.tool_names)))]
        schema = self.functions[name]
        args = {
            key: self._sample_value(sub)
            for key, sub in schema.get("properties", {}).items()
            if key in schema.get("required", []) or self.np_random.random() < 0.5
        }
        return {"name": name, "arguments": args}

    def _sample_value(self, schema: JsonSchema) -> Any:
        rng = self.np_random
        if "enum" in schema:
            return schema["enum"][int(rng.integers(len(schema["enum"])))]
        kind = schema.get("type")
        if kind == "integer":
            lo, hi = int(schema.get("minimum", 0)), int(schema.get("maximum", 1000))
            return int(rng.integers(lo, hi + 1))
        if kind == "number":
            return float(rng.uniform(schema.get("minimum", 0.0), schema.get("maximum", 1000.0)))
        if kind == "boolean":
            return bool(rng.integers(2))
        if kind == "array":
            return [self._sample_value(schema.get("items", {})) for _ in range(int(rng.integers(0, 3)))]
        if schema.get("examples"):
            return schema["examples"][int(rng.integers(len(schema["examples"])))]
        lo = int(schema.get("minLength", 1))
        hi = max(lo, min(int(schema.get("maxLength", 12)), 12))
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"
        return "".join(letters[int(i)] for i in rng.integers(0, len(letters), int(rng.integers(lo, hi + 1))))

    def __repr__(self) -> str:
        return f"ToolCall({', '.join(self.tool_names)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolCall) and other.functions == self.functions
