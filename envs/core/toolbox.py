"""``ToolBox``: runs one action against a set of tools, the same way for envs, solvers and graders.

Parsing, the ``finish`` action, schema checks, the domain's transaction and error capture live here once,
so the reference solver and the grader replay actions exactly as an agent's actions are executed.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ...spaces import parse_action
from ...spaces.json_schema import Checker, JsonSchema, compile_schema
from ...spaces.plain_check import PlainCheck, compile_plain
from .actions import FINISH
from .tool import Tool, ToolError

log = logging.getLogger(__name__)

Atomic = Callable[[Any, Tool], AbstractContextManager[None]]


NOTHING_TO_UNDO: AbstractContextManager[None] = contextlib.nullcontext()
"""The context of a call that needs no transaction; one shared instance (``nullcontext`` is reentrant), so a
read does not allocate a context manager per step."""


def no_transaction(ctx: Any, tool: Tool) -> AbstractContextManager[None]:
    return NOTHING_TO_UNDO


@dataclass(slots=True)
class Outcome:
    """What one action did: the observation text, whether it ended the episode, whether it failed, the name
    of the known tool it called (None for malformed actions, unknown tools and ``finish``), and the parsed call
    (None when the action could not be parsed). Not frozen: a frozen dataclass costs three times as much
    to build, and one is built on every step; nothing mutates an outcome after ``execute`` returns it."""

    observation: str
    ended: bool = False
    is_error: bool = False
    tool: str | None = None
    call: dict[str, Any] | None = None


class ToolBox:
    """A fixed set of tools plus the domain's transaction wrapper."""

    def __init__(self, tools: Iterable[Tool], atomic: Atomic = no_transaction) -> None:
        self.tools = {t.name: t for t in tools}
        self.atomic = atomic
        self.checkers: dict[str, Checker] = {t.name: compile_schema(t.parameters) for t in self.tools.values()}
        self.plain: dict[str, tuple[Tool, PlainCheck]] = {}
        """The quick check of each tool (``spaces/plain_check.py``), beside the tool itself (one lookup)."""
        for t in self.tools.values():
            quick = compile_plain(t.parameters)
            if quick is not None and t.name != FINISH:
                self.plain[t.name] = (t, quick)

    def schemas(self) -> list[JsonSchema]:
        return [t.openai_schema() for t in self.tools.values()]

    def execute(self, ctx: Any, action: Any) -> Outcome:
        """Run one action; never raises. Failures are ``Error: ...`` outcomes that changed nothing.

        The usual call (exactly ``{"name": <a tool>, "arguments": <plain arguments>}``) skips the three full
        checks, which it would pass unchanged (``plain_check.py``); anything else takes them (``checked``)."""
        if type(action) is dict and len(action) == 2:
            name, arguments = action.get("name"), action.get("arguments")
            if type(name) is str and type(arguments) is dict:
                known = self.plain.get(name)
                if known is not None and known[1](arguments):
                    return self.run(ctx, known[0], {"name": name, "arguments": arguments})
        return self.checked(ctx, action)

    def checked(self, ctx: Any, action: Any) -> Outcome:
        """``execute`` with every check: the action parsed, its values made safe, its arguments checked."""
        call, problem = parse_action(action)
        if call is None:
            return _error(problem or "malformed action")
        name, arguments = call["name"], call["arguments"]
        if name == FINISH:
            if arguments:
                return _error("finish takes no arguments", call=call)
            return Outcome("Episode finished. Your work will now be graded.", ended=True, call=call)
        tool = self.tools.get(name)
        if tool is None:
            return _error(
                f"unknown tool '{name[:80]}'. Available tools: {', '.join(self.tools)} (or finish when you are done).",
                call=call,
            )
        problem = self.checkers[name](arguments)
        if problem:
            return _error(f"{name}: {problem}", name, call)
        return self.run(ctx, tool, call)

    def run(self, ctx: Any, tool: Tool, call: dict[str, Any]) -> Outcome:
        """Call a tool whose arguments passed the checks; a ``ToolError`` or a bug becomes an ``Error:``."""
        name, arguments = tool.name, call["arguments"]
        try:
            if tool.writes:
                with self.atomic(ctx, tool):
                    result = tool.func(ctx, **arguments)  # the function's own defaults fill the rest
            else:  # a read leaves nothing to undo; skipping the context manager keeps reads lean
                result = tool.func(ctx, **arguments)
        except ToolError as error:
            return _error(str(error), name, call)
        except Exception as error:  # a tool bug must not crash a training run; it is logged and reported
            log.exception("tool %s raised", name)
            return _error(f"internal error in {name} ({type(error).__name__}); nothing was changed", name, call)
        return Outcome(result, tool.terminal, False, name, call)


def _error(message: str, tool: str | None = None, call: dict[str, Any] | None = None) -> Outcome:
    return Outcome(f"Error: {message}", is_error=True, tool=tool, call=call)
