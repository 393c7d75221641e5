"""An outside fuzz, inside the suite: 10,000 malformed actions of every kind per env, mixed with valid calls,
through a vector env with the books' invariants checked in the worker. 0 exceptions, 0 violations, every
malformed call answered with an ``Error:``, every observation encodable.

The generator is the soak run's (``benchmarks/soak.py``), so what the suite proves is what the soak measures.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from benchmarks.soak import ID_POOL, InvariantProbe, hostile, random_action

MALFORMED_PER_ENV = 10_000


def malformed(rng: np.random.Generator, tool: str) -> Any:
    kind = int(rng.integers(15))
    if kind >= 5:
        return hostile(tool, kind - 5)
    return [
        {"name": "nope", "arguments": {}},
        "{broken json",
        {"name": tool, "arguments": "not json"},
        {"name": tool, "arguments": {"zzz": 1}},
        12345,
    ][kind]


def _problems(info: dict[str, Any]) -> int:
    """Problems reported by the probe, also for sub-envs whose episode ended (their step info is final_info)."""
    final = info.get("final_info", {})
    return int(np.sum(info.get("soak_problems", 0))) + int(np.sum(final.get("soak_problems", 0)))


@pytest.mark.parametrize("env_id", sorted(ID_POOL))
def test_ten_thousand_malformed_steps_break_nothing(env_id: str) -> None:
    envs = gym.make_vec(
        env_id,
        num_envs=2,
        vectorization_mode="sync",
        wrappers=[InvariantProbe],
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
    )
    rng = np.random.default_rng(11)
    _, info = envs.reset(seed=11)
    tools = [t["function"] for t in info["tools"][0]]
    sent = problems = 0
    while sent < MALFORMED_PER_ENV:
        bad = [malformed(rng, tools[int(rng.integers(len(tools)))]["name"]) for _ in range(2)]
        observations, _, _, _, info = envs.step(tuple(bad))  # raises on any exception in step
        sent += 2
        assert all(o.startswith("Error: ") for o in observations), [o[:80] for o in observations]
        problems += _problems(info)
        valid = tuple(random_action(rng, tools, ID_POOL[env_id]) for _ in range(2))
        _, _, _, _, info = envs.step(valid)
        problems += _problems(info)
    envs.close()
    assert problems == 0
