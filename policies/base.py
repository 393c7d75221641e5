"""The policy interface of the scripted policies: see the opening message, then act on each observation."""

from __future__ import annotations

from typing import Any, Protocol

from ..envs.core.actions import Action

__all__ = ["Action", "Policy"]


class Policy(Protocol):
    """A policy plays one episode at a time. ``reset`` gets the opening observation and the reset info
    (``task_id``, ``tools``, ``system_prompt``); ``act`` gets each observation and returns the next action."""

    name: str

    def reset(self, observation: str, info: dict[str, Any]) -> None: ...

    def act(self, observation: str) -> Action: ...
