"""The accepted range of every number ``officegym eval`` (and ``run``) takes, checked before anything runs.

argparse only checks that ``--backoff nan`` is a float, and it is one: NaN once became a 60 s delay (every
comparison with NaN is false, so ``min`` let the cap win), ``--max-backoff nan`` failed every retried episode,
and ``-r 1000000000000`` built a list of a trillion jobs until memory ran out. So each number has a stated range
here, one table for the command line and the library checks alike (``OpenAISettings.check``, the runner's plan
check), and a value outside it is one line that names the option, the range and the value:
``Error: --backoff must be a number from 0 to 3,600 (seconds), got nan``. Ranges are generous: they refuse only
what no run could mean (a negative delay, a reply of a billion tokens, more episodes than a results file holds).

JSON options (``--extra-body``, ``--env-kwargs``) must be an object, at most ``MAX_JSON_CHARS`` characters and
``MAX_JSON_DEPTH`` levels deep: a request body or an env argument has no use for more, and deeper JSON would
exhaust the stack of every later reader (the results file, ``show``, ``replay``).
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from typing import Any, NoReturn

from ..envs.core.arguments import MAX_TURNS_LIMIT
from .rows import MAX_SOURCE

MAX_EPISODES = 1_000_000
"""Episodes one eval may plan (tasks x rollouts): a million records is already gigabytes of results."""
MAX_JSON_CHARS = 100_000
MAX_JSON_DEPTH = 32
SEED_MAX = 2**32 - 1


@dataclass(frozen=True)
class Range:
    """What one numeric option accepts: ``whole`` numbers or finite reals, from ``low`` to ``high``. ``floor``
    words the lower end when "between" would not say it (``at least 1``, ``a positive number``)."""

    flag: str
    low: float
    high: float
    whole: bool = False
    unit: str = ""
    floor: str = ""
    above_low: bool = False  # ``low`` itself is refused (a timeout of 0 s)

    def describe(self) -> str:
        span = f"{self.floor} and at most {_show(self.high)}" if self.floor else f"between {_show(self.low)} and "
        span += "" if self.floor else _show(self.high)
        return span + (f" ({self.unit})" if self.unit else "") + (", a whole number" if self.whole else "")

    def problem(self, value: Any) -> str | None:
        """The error line for ``value`` (None if it is accepted); ``None`` values (option not given) pass."""
        if value is None:
            return None
        number_ok = isinstance(value, int) if self.whole else isinstance(value, int | float)
        fits = (
            number_ok
            and not isinstance(value, bool)
            and math.isfinite(value)
            and (self.low < value if self.above_low else self.low <= value)
            and value <= self.high
        )
        return None if fits else f"{self.flag} must be {self.describe()}, got {_show(value)}"

    def check(self, value: Any) -> None:
        problem = self.problem(value)
        if problem:
            raise ValueError(problem)


RANGES: dict[str, Range] = {
    r.flag: r
    for r in (
        Range("--temperature", 0, 2),
        Range("--max-tokens", 1, 1_000_000, whole=True, unit="tokens per reply", floor="at least 1"),
        Range("--timeout", 0, 86_400, unit="seconds per request", floor="a positive number", above_low=True),
        Range("--max-retries", 0, 100, whole=True, unit="retries per request", floor="0 or more"),
        Range("--backoff", 0, 3_600, unit="seconds"),
        Range("--max-backoff", 0, 3_600, unit="seconds"),
        Range("-n/--num-tasks", 1, MAX_EPISODES, whole=True, floor="at least 1"),
        Range("-r/--rollouts", 1, MAX_EPISODES, whole=True, unit="episodes per task", floor="at least 1"),
        Range("-c/--concurrency", 1, 1_024, whole=True, unit="episodes at a time", floor="at least 1"),
        Range("--max-turns", 1, MAX_TURNS_LIMIT, whole=True, unit="tool calls per episode"),
        Range("--source", 0, MAX_SOURCE - 1, whole=True),
        Range("--seed", 0, SEED_MAX, whole=True),
        Range("--episode-retries", 0, 100, whole=True, floor="0 or more"),
        Range("--pass-threshold", 0, 1, unit="the reward that counts as a pass"),
    )
}

EVAL_NUMBERS: dict[str, str] = {  # the argparse destination of each checked option
    "temperature": "--temperature",
    "max_tokens": "--max-tokens",
    "timeout": "--timeout",
    "max_retries": "--max-retries",
    "backoff": "--backoff",
    "max_backoff": "--max-backoff",
    "num_tasks": "-n/--num-tasks",
    "rollouts": "-r/--rollouts",
    "concurrency": "-c/--concurrency",
    "max_turns": "--max-turns",
    "source": "--source",
    "seed": "--seed",
    "episode_retries": "--episode-retries",
    "pass_threshold": "--pass-threshold",
}


def check_eval_numbers(args: argparse.Namespace) -> None:
    """Raise ``ValueError`` naming the first numeric option of ``eval`` outside its range (module docstring)."""
    for dest, flag in EVAL_NUMBERS.items():
        if hasattr(args, dest):
            RANGES[flag].check(getattr(args, dest))


def check_episode_count(tasks: int, rollouts: int) -> None:
    """Tasks x rollouts within ``MAX_EPISODES``, checked before a single job is planned."""
    if tasks * rollouts > MAX_EPISODES:
        raise ValueError(
            f"-r/--rollouts x tasks must be at most {MAX_EPISODES:,} episodes, got {rollouts:,} x {tasks:,} = "
            f"{tasks * rollouts:,}: select fewer tasks (-n, --task-ids, --tier) or fewer rollouts"
        )


def seed_number(text: str) -> int:
    """The argparse type of ``run --seed``: a whole number from 0 to ``SEED_MAX``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to {SEED_MAX:,}, got {text[:40]!r}") from None
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to {SEED_MAX:,}, got {_show(value)}")
    return value


def json_problem(text: str, flag: str) -> str | None:
    """Why ``text`` is not an acceptable JSON object for ``flag`` (too large, not JSON, too deep, not an object)."""
    if len(text) > MAX_JSON_CHARS:
        return f"{flag} must be a JSON object of at most {MAX_JSON_CHARS:,} characters, got {len(text):,}"
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        return f"{flag} must be a JSON object at most {MAX_JSON_DEPTH} levels deep"
    except ValueError as error:
        example = '{"top_k": 20}' if flag == "--extra-body" else '{"company_seed": 7}'
        return f"{flag} must be a JSON object, e.g. '{example}' ({_first_line(error)})"
    if not isinstance(value, dict):
        return f"{flag} must be a JSON object, got {type(value).__name__}"
    if _depth(value) > MAX_JSON_DEPTH:
        return f"{flag} must be a JSON object at most {MAX_JSON_DEPTH} levels deep"
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return f"{flag} must be a JSON object of valid Unicode text (it holds a lone surrogate such as \\ud800)"
    return None


def _no_constant(name: str) -> Any:
    """``NaN`` and ``Infinity`` are Python's extensions of JSON: a server would refuse the request body."""
    raise ValueError(f"{name} is not JSON (use a number or null)")


def _depth(value: Any) -> int:
    """How deep ``value`` nests (an iterative walk: the value may be deeper than the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


def _first_line(error: Exception) -> str:
    return " ".join(str(error).split())[:200]


def _show(value: Any) -> str:
    """A number as the line shows it: ``nan``, ``inf``, ``3,600``, ``0.5``; anything else clipped."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)[:40]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) or value.is_integer():
        text = f"{int(value):,}"
        return text if len(text) <= 40 else f"{text[:20]}... ({len(str(abs(int(value))))} digits)"
    return f"{value:g}"


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr, naming the option and pointing to ``--help``
    (argparse's default prints the whole usage first: for ``eval`` a dozen lines around the one that matters).
    Exit code 2, as argparse's; the parser of every ``officegym`` command."""

    def error(self, message: str) -> NoReturn:
        text = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {text} (see {self.prog} --help)\n")
