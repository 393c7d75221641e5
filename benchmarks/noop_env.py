"""The reference for vector-env overhead: a text env with officegym's spaces whose step does nothing.

Measured in the same run as the real envs, it gives the floor that Gymnasium's vector machinery (and for
async, the pipes between processes) costs per step, so officegym's own cost can be stated as a ratio.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from officegym.spaces import AnyText, ToolCall

SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "noop",
            "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
        },
    }
]


class NoopTextEnv(gym.Env[str, dict[str, Any]]):
    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(self) -> None:
        self.observation_space = AnyText()
        self.action_space = ToolCall(SCHEMA)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        return "ready", {}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return "ok", 0.0, False, False, {}


if "officegym-bench/Noop-v0" not in gym.registry:
    gym.register(id="officegym-bench/Noop-v0", entry_point="benchmarks.noop_env:NoopTextEnv")
