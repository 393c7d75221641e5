"""Checking what users pass to ``gym.make``, env constructors, wrappers and ``make_vec``: one line that names the
parameter, what was wrong with it and what to pass instead.

A configuration mistake should fail at construction with a sentence a user can act on, not as a ``TypeError``
from deep inside (``'<' not supported between 'str' and 'int'``), and never be accepted silently (``max_turns=nan``
once ran forever). Every check raises :class:`ArgumentError`, a ``ValueError``, so callers (the CLI among them)
catch one kind of error, and Gymnasium passes the message through unchanged.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

MAX_TURNS_LIMIT = 1_000_000_000  # long enough for benchmarks that run one episode for minutes
SEED_LIMIT = 2**32


class ArgumentError(ValueError):
    """A bad argument to an officegym constructor; the message names the parameter and the fix."""


def whole_number(name: str, value: Any, *, minimum: int, maximum: int, example: int) -> int:
    """An ``int`` (not a bool, not a float, not text) within ``[minimum, maximum]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        shown = "nan" if isinstance(value, float) and math.isnan(value) else repr(value)[:60]
        raise ArgumentError(f"{name} must be a whole number such as {example}, got {shown} ({type(value).__name__})")
    if not minimum <= value <= maximum:
        raise ArgumentError(f"{name} must be between {minimum} and {maximum:,}, got {_short(value)}")
    return value


def fraction(name: str, value: Any, *, why: str) -> float:
    """A real number in (0, 1] (a discount factor, say); not a bool, not NaN."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < value <= 1.0:
        raise ArgumentError(f"{name} must be a number in (0, 1], got {_short(value)}; {why}")
    return float(value)


def key_name(name: str, value: Any) -> str:
    """A non-empty string, for the key a wrapper writes into ``info``."""
    if not isinstance(value, str) or not value:
        raise ArgumentError(f"{name} must be a non-empty string (the info key to write), got {_short(value)}")
    return value


def max_turns(value: Any) -> int:
    """The truncation limit: a whole number of steps, at least 1."""
    return whole_number("max_turns", value, minimum=1, maximum=MAX_TURNS_LIMIT, example=200)


def render_mode(value: Any, modes: Sequence[str]) -> str | None:
    if value is not None and (not isinstance(value, str) or value not in modes):
        raise ArgumentError(f"render_mode must be one of {', '.join(map(repr, modes))} or None, got {_short(value)}")
    return value


def tier(value: Any, tiers: Sequence[str]) -> str | None:
    if value is not None and (not isinstance(value, str) or value not in tiers):
        raise ArgumentError(f"unknown tier {_short(value)}; choose one of {', '.join(tiers)} (or None for every tier)")
    return value


def task_ids(value: Any) -> list[str] | None:
    """None (every task), one ID, or a list/tuple of IDs; each a string, at least one."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ArgumentError(f"task_ids must be a list of task ID strings (or one ID), got {_short(value)}")
    if not value:
        raise ArgumentError("task_ids is empty; pass at least one task ID, or None for every task")
    return list(value)


def unknown_arguments(env_name: str, unknown: Collection[str], accepted: Sequence[str]) -> None:
    """Refuse keyword arguments the env does not take, listing the ones it does."""
    if unknown:
        raise ArgumentError(
            f"{env_name} got unknown argument(s) {', '.join(sorted(unknown))}; it takes {', '.join(accepted)}"
        )


def text_file(name: str, value: Any, what: str) -> Path:
    """An existing, readable UTF-8 text file (``what`` says what it should hold, for the fix)."""
    if not isinstance(value, str | os.PathLike):
        raise ArgumentError(f"{name} must be a path to {what}, got {_short(value)}")
    path = Path(value)
    if not path.is_file():
        problem = "is a directory" if path.is_dir() else "does not exist"
        raise ArgumentError(f"{name} {str(path)!r} {problem}; pass the path to {what}")
    try:
        path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ArgumentError(f"{name} {str(path)!r} is not UTF-8 text (byte {error.start}); pass {what}") from error
    except OSError as error:
        raise ArgumentError(f"{name} {str(path)!r} cannot be read ({error.strerror}); pass {what}") from error
    return path


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # a value of any kind may be passed; reporting it must not fail
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."
