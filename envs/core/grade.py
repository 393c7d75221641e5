"""The result of grading an episode: a reward, its components, and diagnostics under stable keys."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Grade:
    """``reward`` is what the env returns on the last step. ``components`` are the weighted parts that add up
    to it (or the single pass/fail component); ``diagnostics`` carry weight 0 and explain the result."""

    reward: float
    components: dict[str, float]
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def as_info(self) -> dict[str, Any]:
        """The flat dict put into ``info["grade"]``: ``reward``, every component, every diagnostic."""
        return {"reward": self.reward, **self.components, **self.diagnostics}
