"""What every version's scripted policies share: a policy that plays a solver's coroutine of tool calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.actions import FINISH_ACTION, Action
from .rules import Steps

StepsFactory = Callable[[str, dict[str, Any]], Steps]
"""Makes one episode's coroutine from the opening observation and the reset info."""


class StepsPolicy:
    """Plays a coroutine that yields tool calls and is sent each observation; ``finish`` once it returns. The
    reference solver is one (``rules.solver_steps``); the shortcut benchmark plays its variants the same way."""

    def __init__(self, name: str, factory: StepsFactory) -> None:
        self.name = name
        self._factory = factory
        self._steps: Steps | None = None
        self._started = False

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self._steps = self._factory(observation, info)
        self._started = False

    def act(self, observation: str) -> Action:
        if self._steps is None:
            return FINISH_ACTION
        try:
            if not self._started:
                self._started = True
                return next(self._steps)
            return self._steps.send(observation)
        except StopIteration:
            self._steps = None
            return FINISH_ACTION
