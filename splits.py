"""Task rows for training and evaluation, with an honest split: ``officegym.splits.task_rows(env_id, split)``.

A row is what a trainer's dataset holds for one task: the env to make (id and arguments), the task id, its tier
and split, and the chat prompt (the policy as the system message, the task's opening message as the user's).
Which tasks belong to which split is the domain's call (``ToolEnv.split_sources``): InvoiceApproval trains on
generated companies that share no supplier, invoice or work order with the shipped company it is evaluated on;
VendorReview's 20 hand-written deals are evaluation only until it has a generator.

    >>> from officegym.splits import task_rows
    >>> rows = task_rows("officegym/VendorReview-v0", "eval")
    >>> len(rows), rows[0]["task_id"], rows[0]["split"], [m["role"] for m in rows[0]["prompt"]]
    (20, 'vr-easy-01', 'eval', ['system', 'user'])
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from officegym.envs.core.arguments import ArgumentError, whole_number
from officegym.registration import env_class

SPLITS = ("train", "eval")


def task_rows(env_id: str, split: str = "eval", sources: int = 2) -> list[dict[str, Any]]:
    """One row per task of ``split``, from at most ``sources`` task sources (companies, for InvoiceApproval's
    train split; generating one takes a few seconds the first time in a process)."""
    if split not in SPLITS:
        raise ArgumentError(f"split must be 'train' or 'eval', got {split!r}")
    sources = whole_number("sources", sources, minimum=1, maximum=1000, example=2)
    rows: list[dict[str, Any]] = []
    for env_kwargs in env_class(env_id).split_sources(split, sources):
        rows += _rows_of(env_id, env_kwargs, split)
    return rows


def _rows_of(env_id: str, env_kwargs: dict[str, Any], split: str) -> list[dict[str, Any]]:
    env = gym.make(env_id, **env_kwargs)
    rows = []
    for task_id in env.unwrapped.task_ids:  # type: ignore[attr-defined]
        opening, info = env.reset(options={"task_id": task_id})
        prompt = [{"role": "system", "content": info["system_prompt"]}, {"role": "user", "content": opening}]
        rows.append(
            {
                "env_id": env_id,
                "env_kwargs": dict(env_kwargs),
                "task_id": task_id,
                "tier": info["tier"],
                "split": split,
                "prompt": prompt,
            }
        )
    env.close()
    return rows
