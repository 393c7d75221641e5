"""InvoiceApproval-v2's behaviour on its gold paths, pinned: every observation, the last reward and the grade of
each of the 108 shipped tasks hash to the value recorded when v2 was added (the method of the project's
released-env fingerprint: ``tests/frozen/`` covers v0 only, in code). Once v2 is released this value never
changes; a change that alters it is a new env version."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import gymnasium as gym

import officegym  # noqa: F401  (registers the ids)

RECORDED = "2680c0a6718991b46ebff50d79653f3da30919fbb24c8ab3050078abde3d2372"
GRADE_KEYS = ("reward", "state_matches")
FINISH = {"name": "finish", "arguments": {}}


def fingerprint(env_id: str) -> str:
    env = gym.make(env_id, max_turns=400)
    inner: Any = env.unwrapped
    digest = hashlib.sha256()
    for task_id in sorted(inner.task_ids):
        observation, _ = env.reset(options={"task_id": task_id})
        digest.update(observation.encode())
        ended = False
        for action in inner.gold_actions(task_id):
            observation, reward, terminated, truncated, info = env.step(action)
            digest.update(observation.encode())
            if ended := terminated or truncated:
                break
        if not ended:
            observation, reward, terminated, truncated, info = env.step(FINISH)
            digest.update(observation.encode())
        grade = {key: value for key, value in info.get("grade", {}).items() if key in GRADE_KEYS}
        digest.update(json.dumps({"r": reward, "grade": grade}, sort_keys=True, default=str).encode())
    env.close()
    return digest.hexdigest()


def test_the_gold_paths_behave_as_recorded() -> None:
    assert fingerprint("officegym/InvoiceApproval-v2") == RECORDED
