"""What ``officegym demo`` shows of a domain: one rendered episode, then a score table of scripted policies."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Demo:
    """``task_id`` is the episode the demo renders, played by the first of ``policies``; the score table then
    plays every policy in ``policies`` (names from ``officegym.policies.registry``) on every shipped task."""

    task_id: str
    policies: tuple[str, ...]
