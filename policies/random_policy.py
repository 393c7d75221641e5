"""A random policy that is random in a useful way: it calls random tools with IDs it has actually seen.

Uniform samples from the action space almost never name an existing invoice, so they measure nothing.
This policy harvests IDs from the observations so far (with the env's ``ID_PATTERNS``), picks a
tool uniformly, fills enum arguments uniformly, and finishes with a small probability per step. All draws
come from its own seeded ``numpy`` generator.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..envs.core.actions import FINISH_ACTION, Action


class RandomPolicy:
    name = "random"

    def __init__(
        self, seed: int = 0, finish_probability: float = 0.05, id_patterns: Mapping[str, re.Pattern[str]] | None = None
    ) -> None:
        """``id_patterns`` are the env's ``ID_PATTERNS`` (argument name -> regex of the IDs its observations
        show); without them the policy fills every free-text argument with a placeholder."""
        self.rng = np.random.default_rng(seed)
        self.finish_probability = finish_probability
        self.id_patterns: Mapping[str, re.Pattern[str]] = id_patterns or {}
        self._tools: list[dict[str, Any]] = []
        self._seen: dict[str, list[str]] = {}

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self._tools = [t["function"] for t in info["tools"]]
        self._seen = {key: [] for key in self.id_patterns}
        self._harvest(observation)

    def _harvest(self, text: str) -> None:
        for key, pattern in self.id_patterns.items():
            for found in pattern.findall(text):
                if found not in self._seen[key]:
                    self._seen[key].append(found)

    def act(self, observation: str) -> Action:
        self._harvest(observation)
        if self.rng.random() < self.finish_probability:
            return FINISH_ACTION
        tool = self._tools[int(self.rng.integers(len(self._tools)))]
        params = tool["parameters"]
        arguments = {
            name: self._value(name, schema)
            for name, schema in params["properties"].items()
            if name in params["required"]
        }
        return {"name": tool["name"], "arguments": arguments}

    def _value(self, name: str, schema: dict[str, Any]) -> Any:
        if "enum" in schema:
            return schema["enum"][int(self.rng.integers(len(schema["enum"])))]
        if schema.get("type") == "integer":
            return int(self.rng.integers(schema.get("minimum", 0), schema.get("maximum", 100) + 1))
        pool = self._seen.get(name, [])
        if schema.get("type") == "array":  # a list of IDs: each one seen so far, with probability 0.3
            return [p for p in pool if self.rng.random() < 0.3]
        if pool:
            return pool[int(self.rng.integers(len(pool)))]
        return "x"
