"""What an action may carry: values every later step can print, compare and send over HTTP without failing.

A tool call comes from a model, a fuzzer or a bug, and whatever it holds ends up in error messages, in the
transcript, in the next request to the model and in results files. Three kinds of value break one of those
far from where they came in, so they are refused at the door with an ``Error:`` that names them:

- text that is not valid Unicode (a lone surrogate such as ``"\\ud800"``, which JSON escapes can produce):
  echoed into an observation, it makes the next request to the model fail to encode;
- integers of more than ``MAX_DIGITS`` digits: Python refuses to print one of more than 4,300 digits, so any
  message that shows it raises; no tool takes a number anywhere near that long;
- values nested deeper than ``MAX_DEPTH`` levels: printing or checking them recursively exhausts the stack.

The check walks the value without recursion and is cheap for the usual flat arguments (one type test and an
``isascii`` per value), since it runs on every step.
"""

from __future__ import annotations

from typing import Any, Final

MAX_DEPTH: Final = 64
MAX_DIGITS: Final = 100
_INT_LIMIT: Final = 10**MAX_DIGITS
_FLAT: Final = (bool, float, type(None))


def value_problem(value: Any) -> str | None:
    """Why ``value`` cannot be carried (one sentence), or None. Never raises."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii() and not _is_unicode(item):
                return "the action contains text that is not valid Unicode (a lone surrogate); send UTF-8 text"
        elif kind is int:
            if not -_INT_LIMIT < item < _INT_LIMIT:
                return f"the action contains a number of more than {MAX_DIGITS} digits"
        elif isinstance(item, dict | list | tuple):
            if depth >= MAX_DEPTH:
                return f"the action is nested more than {MAX_DEPTH} levels deep"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str | int) and not isinstance(item, _FLAT):  # subclasses: check as their base
            stack.append((str(item) if isinstance(item, str) else int(item), depth))
    return None


def arguments_problem(arguments: dict[Any, Any]) -> str | None:
    """``value_problem`` for a call's arguments, with a fast path for the usual flat ASCII/number values."""
    for key, item in arguments.items():
        if type(key) is not str or not key.isascii():
            return value_problem(arguments)
        kind = type(item)
        if kind is str:
            if item.isascii():
                continue
        elif kind is int:
            if -_INT_LIMIT < item < _INT_LIMIT:
                continue
        elif kind is bool or kind is float or item is None:
            continue
        return value_problem(arguments)
    return None


def safe_text(value: Any, limit: int | None = None, show: Any = str) -> str:
    """``show(value)`` (``str`` or ``repr``), cut to ``limit`` characters and made encodable as UTF-8; a value
    that cannot be shown at all (too deep, too many digits, a failing ``__repr__``) gets a placeholder."""
    try:
        text = str(show(value))
    except Exception:  # any value may arrive here, and this runs while reporting an error: it must not raise
        text = f"<{type(value).__name__} too large or too deep to show>"
    text = text[:limit] if limit is not None else text
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
