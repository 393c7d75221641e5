"""Per-episode counters that every domain reports in its grade diagnostics."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class EpisodeStats:
    """Turns, calls per tool and invalid calls. Only valid calls of known tools are counted per tool."""

    turns: int = 0
    invalid_calls: int = 0
    tool_calls: Counter[str] = field(default_factory=Counter)

    def as_diagnostics(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "invalid_calls": self.invalid_calls,
            "tool_calls": dict(sorted(self.tool_calls.items())),
        }
