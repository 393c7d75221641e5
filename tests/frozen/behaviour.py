"""A fingerprint of everything v0 shows a user, so that refactors can prove they changed nothing.

``python -m tests.frozen.behaviour`` prints one SHA-256 per part; ``--write`` records them in
``behaviour.json`` beside this file, and ``tests/frozen/test_v0_frozen.py`` compares against that record.
Parts (per v0 env unless noted):

- ``assets``: the bytes of every shipped v0 asset file (``<domain>/v0/`` and ``<domain>/shared/``, under the names
  they had before the versions became sibling folders);
- ``gold``: every task's gold path through ``step`` (reset info, each observation, reward, flags and info);
- ``wrong``: every InvoiceApproval wrong path, and the final books (schema and every row of every company table)
  after each. Until the grader's ledger log was added to the episode template, this was ``iterdump`` of the
  whole database; the company tables' dump was checked equal before and after that change (old code, new dump);
- ``scripted``: every scripted policy of the env (solver, paranoid, lazy) on every task;
- ``random``: seeded random-policy episodes drawn by ``reset(seed=...)``, with their ansi rendering;
- ``discrete``: the SB3 adapter (features, masks, labels) under seeded masked-random actions;
- ``shaped``: diagnostics + shaping wrappers' rewards and infos on seeded random episodes;
- ``chat``: the chat wrapper's messages along each gold path of a few tasks;
- ``demo``: the text of ``officegym demo --no-render``.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import gymnasium as gym
import numpy as np
from rich.console import Console

import officegym
import officegym.cli
from officegym.cli import demo
from officegym.envs.invoice_approval.v0.db import TABLE_KEYS
from officegym.policies import RandomPolicy
from officegym.policies.registry import make_policy
from officegym.wrappers import ChatWrapper, DiscreteToolCalls, ProgressDiagnostics
from officegym.wrappers.shaping import PotentialShaping

RECORD = Path(__file__).with_name("behaviour.json")
INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
V0 = (INVOICE, VENDOR)
FINISH = {"name": "finish", "arguments": {}}
V0_ASSET_DIRS = ("invoice_approval", "vendor_review")
V0_ASSET_FOLDERS = ("v0", "shared")


def _dump(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False).encode("utf-8", "surrogatepass")


class Hasher:
    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, *values: Any) -> None:
        for value in values:
            self.h.update(value if isinstance(value, bytes) else _dump(value))

    def hexdigest(self) -> str:
        return self.h.hexdigest()


def _task_ids(env: gym.Env[Any, Any]) -> list[str]:
    return list(env.unwrapped.task_ids)  # type: ignore[attr-defined]


def _play(h: Hasher, env: gym.Env[Any, Any], task_id: str, actions: list[dict[str, Any]]) -> None:
    obs, info = env.reset(options={"task_id": task_id})
    h.add(obs, info)
    for action in [*actions, FINISH]:
        result = env.step(action)
        h.add(list(result))
        if result[2] or result[3]:
            break


def _books(env: gym.Env[Any, Any]) -> bytes:
    """The company's books in full: the schema and every row of each of its tables, in key order. Not the env's
    own change logs and their triggers (``record_changes``, ``ledger_changes``), which are bookkeeping about the
    episode, kept for fast reads and grading, not records of the company."""
    conn = env.unwrapped.episode.conn  # type: ignore[attr-defined]
    tables = tuple(TABLE_KEYS)
    marks = ", ".join("?" * len(tables))
    schema = conn.execute(
        f"SELECT sql FROM sqlite_master WHERE tbl_name IN ({marks}) AND type IN ('table', 'index') ORDER BY name",
        tables,
    ).fetchall()
    rows = [
        repr(row) for table, key in TABLE_KEYS.items() for row in conn.execute(f"SELECT * FROM {table} ORDER BY {key}")
    ]
    return "\n".join([*(str(sql) for (sql,) in schema), *rows]).encode()


def _short(env_id: str, turns: int) -> dict[str, Any]:
    """Kwargs for episodes of at most ``turns`` steps (InvoiceApproval refuses a limit below its longest gold path)."""
    return {"max_turns": turns, **({"tier": "single"} if env_id == INVOICE else {})}


def part_assets() -> str:
    """v0's files are ``<domain>/v0/`` and ``<domain>/shared/`` (what its versions share). Each is hashed under
    the name it had when the record was written, ``<domain>/<path>``, in that name's order, so the record
    proves that the move into version folders changed neither a byte nor a name within v0."""
    h = Hasher()
    root = Path(officegym.__file__).parent / "assets"
    for name, path in sorted(_v0_assets(root)):
        h.add(str(name), path.read_bytes())
    return h.hexdigest()


def _v0_assets(root: Path) -> Iterator[tuple[Path, Path]]:
    """(name as recorded, file) of every v0 asset."""
    for domain in V0_ASSET_DIRS:
        for folder in V0_ASSET_FOLDERS:
            base = root / domain / folder
            for path in base.rglob("*"):
                if path.is_file():
                    yield Path(domain) / path.relative_to(base), path


def part_gold(env_id: str) -> str:
    h = Hasher()
    env = gym.make(env_id, max_turns=400)
    for task_id in sorted(_task_ids(env)):
        _play(h, env, task_id, env.unwrapped.gold_actions(task_id))  # type: ignore[attr-defined]
    return h.hexdigest()


def part_wrong() -> str:
    h = Hasher()
    env = gym.make(INVOICE, max_turns=400)
    for task in env.unwrapped.bundle.tasks.values():  # type: ignore[attr-defined]
        for wrong in task.wrong_actions:
            _play(h, env, task.id, wrong["actions"])
            h.add(_books(env))
    return h.hexdigest()


def part_scripted(env_id: str) -> str:
    h = Hasher()
    names = {INVOICE: ("solver",), VENDOR: ("paranoid", "lazy")}[env_id]
    env = gym.make(env_id, max_turns=400)
    for name in names:
        for task_id in sorted(_task_ids(env)):
            policy = make_policy(name, env, 0)
            obs, info = env.reset(options={"task_id": task_id})
            policy.reset(obs, info)
            h.add(obs)
            done = False
            while not done:
                result = env.step(policy.act(obs))
                obs, done = result[0], result[2] or result[3]
                h.add(list(result))
            if env_id == INVOICE:
                h.add(_books(env))
    return h.hexdigest()


def _random_episodes(env: gym.Env[Any, Any], episodes: int) -> Iterator[tuple[int, Any]]:
    patterns = env.unwrapped.ID_PATTERNS  # type: ignore[attr-defined]
    for seed in range(episodes):
        policy = RandomPolicy(seed, finish_probability=0.02, id_patterns=patterns)
        obs, info = env.reset(seed=seed)
        policy.reset(obs, info)
        yield seed, (obs, info)
        done = False
        while not done:
            result = env.step(policy.act(obs))
            obs, done = result[0], result[2] or result[3]
            yield seed, list(result)


def part_random(env_id: str) -> str:
    h = Hasher()
    env = gym.make(env_id, render_mode="ansi")
    for seed, item in _random_episodes(env, 40):
        h.add(seed, item)
        if isinstance(item, list) and (item[2] or item[3]):
            h.add(env.render())
    return h.hexdigest()


def part_shaped(env_id: str) -> str:
    h = Hasher()
    env = PotentialShaping(ProgressDiagnostics(gym.make(env_id, **_short(env_id, 40))), gamma=0.9)
    for seed, item in _random_episodes(env, 15):
        h.add(seed, item)
    return h.hexdigest()


def part_discrete(env_id: str) -> str:
    h = Hasher()
    adapter = DiscreteToolCalls(gym.make(env_id, **_short(env_id, 30)))
    h.add(list(adapter.catalogue.labels))
    rng = np.random.default_rng(7)
    for seed in range(12):
        obs, info = adapter.reset(seed=seed)
        h.add(obs.tobytes(), info)
        done = False
        while not done:
            mask = adapter.action_masks()
            h.add(mask.tobytes())
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = adapter.step(action)
            h.add(obs.tobytes(), float(reward), terminated, truncated, info)
            done = terminated or truncated
    return h.hexdigest()


def part_chat(env_id: str) -> str:
    h = Hasher()
    wrapper = ChatWrapper(gym.make(env_id, max_turns=400))
    for task_id in sorted(_task_ids(wrapper))[:6]:
        wrapper.reset(options={"task_id": task_id})
        for action in wrapper.unwrapped.gold_actions(task_id):  # type: ignore[attr-defined]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": action["name"], "arguments": json.dumps(action["arguments"])},
                    }
                ],
            }
            result = wrapper.step(message)
            if result[2] or result[3]:
                break
        h.add(wrapper.messages)
    return h.hexdigest()


def part_demo() -> str:
    """The demo's text over the v0 envs only: a later version's id adds its own table, which is not v0's."""
    out = io.StringIO()
    v0_only = {env_id: entry for env_id, entry in officegym.ENV_IDS.items() if env_id in V0}
    with mock.patch.object(officegym.cli, "ENV_IDS", v0_only):
        demo(Console(file=out, width=120, color_system=None), render=False)
    return hashlib.sha256(out.getvalue().encode()).hexdigest()


def parts() -> dict[str, Callable[[], str]]:
    table: dict[str, Callable[[], str]] = {"assets": part_assets, "wrong": part_wrong, "demo": part_demo}
    for env_id in V0:
        short = env_id.split("/")[1]
        for name, fn in (
            ("gold", part_gold),
            ("scripted", part_scripted),
            ("random", part_random),
            ("shaped", part_shaped),
            ("discrete", part_discrete),
            ("chat", part_chat),
        ):
            table[f"{short}:{name}"] = lambda f=fn, e=env_id: f(e)  # type: ignore[misc]
    return table


def fingerprint() -> dict[str, str]:
    return {name: fn() for name, fn in sorted(parts().items())}


if __name__ == "__main__":
    got = fingerprint()
    if "--write" in sys.argv:
        RECORD.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    print(json.dumps(got, indent=1, sort_keys=True))
