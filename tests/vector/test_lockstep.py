"""Issue 27, "Vector envs": hostile action sequences over every vector layout, checked in lock step.

Valid tool calls, malformed ones and values that cannot be pickled, drawn at random, on 2 or 3 envs of both
domains in the sync, async and batched layouts: after every step each slot's observation, reward, termination,
truncation and finished-episode observation equal what a single env fed that slot's actions answers
(``benchmarks/vector_lockstep.py``). The suite runs 50 steps per layout; ``python -m benchmarks.soak --vector``
runs thousands and commits the counts.
"""

from __future__ import annotations

import pytest

from benchmarks.vector_lockstep import LAYOUTS, run_lockstep

STEPS = 50


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize(
    ("env_id", "num_envs"), [("officegym/InvoiceApproval-v0", 3), ("officegym/VendorReview-v0", 2)]
)
def test_every_slot_answers_as_a_single_env_fed_its_actions(layout: str, env_id: str, num_envs: int) -> None:
    result = run_lockstep(layout, env_id, num_envs, STEPS, seed=11)
    assert result["exceptions"] == 0, result["examples"]
    assert result["mismatches"] == 0, result["examples"]
    assert result["episodes"] > 0  # episodes ended and autoreset inside the run
