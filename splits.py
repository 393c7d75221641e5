"""Task rows: one format that every trainer, server and eval surface builds exactly the same world from.

A row names everything that selects its world, so a row played anywhere is the episode it was made from:

- ``env_id``: the registered env (``officegym/InvoiceApproval-v1``);
- ``env_kwargs``: the ``gym.make`` arguments that pick the task source, as canonical JSON text (a company seed,
  a range of generated deals; ``"{}"`` for the shipped tasks). Text, not a dict: every dataset format (Arrow,
  Parquet, JSONL) stores it unchanged, whatever arguments an env takes;
- ``task_id``: the task inside that source (``reset(options={"task_id": ...})``). Task ids repeat across
  companies (every InvoiceApproval company has a ``single-1``), so a task id alone does not name a world;
- ``split``: ``"train"`` or ``"test"``. Train rows come from sources that share nothing memorable with the test
  sources (``ToolEnv.split_sources``): InvoiceApproval trains on generated companies and is tested on the
  shipped one; VendorReview-v1/v2 train on generated deals and are tested on held-out seeds and hand-written
  deals; VendorReview-v0 has only its 20 hand-written deals, all test;
- ``source``: a short label of the task source (``company 100000``, ``deals 0-199``, ``shipped``), the key
  under which per-company or per-deal-range rewards stay apart in logs;
- ``tier`` and ``prompt`` (the system prompt and the opening message as chat messages, from a real ``reset``).

For example, the test rows of VendorReview-v0, and one of them played:

    >>> from officegym.splits import task_rows, make_env, reset_row
    >>> rows = task_rows("officegym/VendorReview-v0", "test")
    >>> len(rows), rows[0]["task_id"], rows[0]["split"], rows[0]["source"], [m["role"] for m in rows[0]["prompt"]]
    (20, 'vr-easy-01', 'test', 'shipped', ['system', 'user'])
    >>> env = make_env(rows[0])
    >>> opening, info = reset_row(env, rows[0])
    >>> opening == rows[0]["prompt"][1]["content"]
    True

``make_env(row)`` and ``reset_row(env, row)`` are what every surface uses (TRL's environment factory, the
verifiers taskset, the OpenEnv server, ``officegym eval --split``); ``RowEnvs`` keeps one env per world for
surfaces that pool instances across rows.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final

import gymnasium as gym

from officegym.envs.core.arguments import ArgumentError, whole_number
from officegym.registration import env_class

SPLITS: Final = ("train", "test")
ALIASES: Final = {"eval": "test"}
"""Older names of a split: ``"eval"`` is what ``task_rows`` called the test split before VendorReview had one."""
ROW_KEYS: Final = ("env_id", "env_kwargs", "task_id", "tier", "split", "source", "prompt")
WORLD_KEYS: Final = ("env_id", "env_kwargs", "task_id")


def split_name(split: Any) -> str:
    """The canonical name of a split (``"train"`` or ``"test"``; ``"eval"`` is read as ``"test"``)."""
    name = ALIASES.get(split, split) if isinstance(split, str) else split
    if name not in SPLITS:
        raise ArgumentError(f"split must be 'train' or 'test', got {split!r}")
    return str(name)


def task_rows(env_id: str, split: str = "test", sources: int = 2, **env_kwargs: Any) -> list[dict[str, Any]]:
    """One row per task of ``split``, from at most ``sources`` task sources (companies or ranges of 200 deals
    for a train split; generating an InvoiceApproval company takes a few seconds the first time in a process).
    ``env_kwargs`` (``tier="single"``, ``max_turns=30``) go to every source's ``gym.make`` and into the rows."""
    name = split_name(split)
    sources = whole_number("sources", sources, minimum=1, maximum=1000, example=2)
    rows: list[dict[str, Any]] = []
    for source_kwargs in env_class(env_id).split_sources(name, sources):
        clash = sorted(key for key in env_kwargs if key in source_kwargs)
        if clash:
            raise ArgumentError(f"{', '.join(clash)} select the split's task sources; leave them out of env_kwargs")
        rows += _rows_of(env_id, {**source_kwargs, **env_kwargs}, name, source_label(source_kwargs))
    return rows


def _rows_of(env_id: str, env_kwargs: dict[str, Any], split: str, source: str) -> list[dict[str, Any]]:
    env = gym.make(env_id, **env_kwargs)
    kwargs_text = canonical_kwargs(env_kwargs)
    rows = []
    for task_id in env.unwrapped.task_ids:  # type: ignore[attr-defined]
        opening, info = env.reset(options={"task_id": task_id})
        prompt = [{"role": "system", "content": info["system_prompt"]}, {"role": "user", "content": opening}]
        rows.append(
            {
                "env_id": env_id,
                "env_kwargs": kwargs_text,
                "task_id": task_id,
                "tier": str(info["tier"]),
                "split": split,
                "source": source,
                "prompt": prompt,
            }
        )
    env.close()
    return rows


def canonical_kwargs(env_kwargs: dict[str, Any]) -> str:
    """The env arguments as the JSON text a row stores: sorted keys, no spaces, so equal worlds compare equal."""
    return json.dumps(env_kwargs, sort_keys=True, separators=(",", ":"))


def source_label(env_kwargs: dict[str, Any]) -> str:
    """A short, stable name of a task source for logs: ``company 100000``, ``deals 0-199`` or ``shipped``."""
    if "company_seed" in env_kwargs:
        scale = env_kwargs.get("company_scale", env_kwargs.get("scale"))
        return f"company {env_kwargs['company_seed']}" + (f" x{scale}" if scale not in (None, 1) else "")
    if env_kwargs.get("split") == "train" and "first_seed" in env_kwargs:
        first, count = int(env_kwargs["first_seed"]), int(env_kwargs.get("deals", 1))
        return f"deals {first}-{first + count - 1}"
    return "shipped" if not env_kwargs else canonical_kwargs(env_kwargs)


@dataclass(frozen=True)
class World:
    """What a row selects: the env to make and the task to reset it to."""

    env_id: str
    env_kwargs: dict[str, Any]
    task_id: str

    @property
    def key(self) -> tuple[str, str]:
        """Rows with the same key are played by the same env (``RowEnvs`` pools by it)."""
        return self.env_id, canonical_kwargs(self.env_kwargs)


def row_world(row: Any) -> World:
    """The world a row names, with a one-line error naming the fix when the row is not one of ``task_rows``."""
    if not isinstance(row, dict):
        raise ArgumentError(f"a task row must be a dict from officegym.splits.task_rows, got {type(row).__name__}")
    missing = [key for key in WORLD_KEYS if key not in row]
    if missing:
        raise ArgumentError(
            f"task row lacks {', '.join(missing)}: build rows with officegym.splits.task_rows (a row names "
            f"{', '.join(WORLD_KEYS)})"
        )
    env_id, kwargs, task_id = row["env_id"], row["env_kwargs"], row["task_id"]
    if not isinstance(env_id, str) or not isinstance(task_id, str):
        raise ArgumentError(f"task row: env_id and task_id must be strings, got {env_id!r} and {task_id!r}")
    return World(env_id, _kwargs_of(kwargs), task_id)


def _kwargs_of(kwargs: Any) -> dict[str, Any]:
    """A row's ``env_kwargs``: JSON text of an object (a dict is accepted too, for rows built by hand)."""
    if isinstance(kwargs, str):
        try:
            kwargs = json.loads(kwargs)
        except (ValueError, RecursionError) as error:
            raise ArgumentError(f"task row: env_kwargs is not JSON text ({error})") from None
    if not isinstance(kwargs, dict):
        raise ArgumentError(f"task row: env_kwargs must be a JSON object, got {type(kwargs).__name__}")
    return dict(kwargs)


def make_env(row: Any, **make_kwargs: Any) -> gym.Env[Any, Any]:
    """``gym.make`` of the row's env with the row's arguments (plus ``make_kwargs``, e.g. ``render_mode``)."""
    world = row_world(row)
    return gym.make(world.env_id, **world.env_kwargs, **make_kwargs)


def reset_row(env: gym.Env[Any, Any], row: Any) -> tuple[Any, dict[str, Any]]:
    """Reset ``env`` to the row's task, after checking the env was made for the row's world: a pooled env made
    for one company must never play another company's task id (the ids are the same strings in every one)."""
    world = row_world(row)
    spec = env.spec
    if spec is not None:
        made = {key: value for key, value in spec.kwargs.items() if key in world.env_kwargs or key in _SOURCE_KEYS}
        if spec.id != world.env_id or canonical_kwargs(made) != canonical_kwargs(world.env_kwargs):
            raise ArgumentError(
                f"this env is {spec.id} with {canonical_kwargs(made)}, the row's world is {world.env_id} with "
                f"{canonical_kwargs(world.env_kwargs)}: make the env with officegym.splits.make_env(row)"
            )
    return env.reset(options={"task_id": world.task_id})


_SOURCE_KEYS: Final = ("company_seed", "company_scale", "scale", "split", "first_seed", "deals")
"""The env arguments that select a task source: an env made with any of them plays only rows that name them."""


class RowEnvs:
    """One env per world for a surface that plays many rows on pooled instances (TRL reuses each instance across
    batches and rows of many companies): at most ``limit`` worlds stay open, the least recently used closes."""

    def __init__(self, limit: int = 8, **make_kwargs: Any) -> None:
        self._limit = whole_number("limit", limit, minimum=1, maximum=10_000, example=8)
        self._make_kwargs = make_kwargs
        self._envs: OrderedDict[tuple[str, str], gym.Env[Any, Any]] = OrderedDict()

    def env_for(self, row: Any) -> gym.Env[Any, Any]:
        """The env of the row's world, made on first use."""
        key = row_world(row).key
        if key in self._envs:
            self._envs.move_to_end(key)
            return self._envs[key]
        env = make_env(row, **self._make_kwargs)
        self._envs[key] = env
        while len(self._envs) > self._limit:
            _, oldest = self._envs.popitem(last=False)
            oldest.close()
        return env

    def reset(self, row: Any) -> tuple[gym.Env[Any, Any], Any, dict[str, Any]]:
        """The row's env, reset to its task: ``(env, observation, info)``."""
        env = self.env_for(row)
        observation, info = reset_row(env, row)
        return env, observation, info

    def close(self) -> None:
        """Close every open env."""
        while self._envs:
            self._envs.popitem()[1].close()
