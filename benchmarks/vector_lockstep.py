"""Lock-step check of the vector layouts: a vector env against single envs fed the same actions, slot by slot.

Each step draws one action per slot (mostly schema-valid tool calls, a quarter malformed in the soak's ways, and
about one in seven a value that cannot be pickled: a lambda, an object whose ``__reduce__`` raises, a value nested
5,000 deep, ...), steps the vector env once and every slot's single env once, and compares what slot ``i`` got
with what its single env answered: observation, reward, termination, truncation and, when an episode ended, the
finished episode's last observation (``info["final_obs"]``). A single env is seeded as the vector env seeds its
slot (``seed + i``) and, like a vector env with SAME_STEP autoreset, is reset without a seed when an episode ends.
Any difference is a mismatch, any exception out of the vector env's ``step`` an exception; both must stay 0.

``tests/vector/test_lockstep.py`` runs it small in the suite; ``python -m benchmarks.soak --vector`` runs it
thousands of steps per layout and commits the counts to ``benchmarks/results/soak.json`` (key ``"vector"``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

import officegym
from officegym.spaces.safe_value import safe_text

LAYOUTS: dict[str, tuple[str, dict[str, Any]]] = {
    "sync": ("sync", {}),
    "async": ("async", {}),
    "batched": ("batched", {"envs_per_worker": 1}),  # slot 0 in this process, the others one worker each
}
SHORT_EPISODES: dict[str, dict[str, Any]] = {
    "officegym/InvoiceApproval-v0": {"tier": "single", "max_turns": 12},
    "officegym/VendorReview-v0": {"tier": "easy", "max_turns": 12},
    "officegym/InvoiceApproval-v1": {"tier": "single", "max_turns": 20},
    "officegym/VendorReview-v1": {"tier": "easy", "max_turns": 12},
}
"""Episodes of at most 12 turns (20 for InvoiceApproval-v1, whose single tasks take up to 17), so terminations,
truncations and autoresets all happen in a short run."""


class BadReduce:
    """An object whose pickling raises (as a socket, a lock or a generator does, with other messages)."""

    def __reduce__(self) -> Any:
        raise ValueError("this object refuses to be pickled")


def _refuse_to_load() -> Any:
    raise RuntimeError("this object refuses to be unpickled")


class BadLoad:
    """An object that pickles, to a loader that raises: a worker could not read a command that holds it."""

    def __reduce__(self) -> Any:
        return _refuse_to_load, ()


class BadStr(str):
    """A ``str`` subclass that does not pickle: the env's parser reads it as the text it holds."""

    __slots__ = ()

    def __reduce__(self) -> Any:
        raise TypeError("this text refuses to be pickled")


class BadText(str):
    """A ``str`` subclass that neither pickles nor prints: the env's parser fails on it, and reports that."""

    __slots__ = ()

    def __reduce__(self) -> Any:
        raise TypeError("this text refuses to be pickled")

    def __str__(self) -> str:
        raise ValueError("this text refuses to be printed")


def deep(levels: int) -> list[Any]:
    """A list nested ``levels`` deep: pickling one of 5,000 levels exhausts the stack."""
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


def unsendable_actions(tool: str = "get_invoice") -> dict[str, Any]:
    """Fresh actions that do not pickle (plus a huge int, which does), by label; ``tool`` names a real tool."""
    cycle: list[Any] = [lambda: 0]
    cycle.append(cycle)
    return {
        "lambda": lambda: 1,
        "raising __reduce__": BadReduce(),
        "raising loader": BadLoad(),
        "raising loader argument": {"name": tool, "arguments": {"invoice_id": BadLoad()}},
        "action nested 5000 deep": deep(5000),
        "arguments nested 5000 deep": {"name": tool, "arguments": {"status": deep(5000)}},
        "lambda argument": {"name": tool, "arguments": {"invoice_id": lambda: 2}},
        "unpicklable str name": {"name": BadStr(tool), "arguments": {}},
        "unpicklable str argument": {"name": tool, "arguments": {"invoice_id": BadStr("ER-2026-00100")}},
        "unprintable argument": {"name": tool, "arguments": {"invoice_id": BadText("x")}},
        "unpicklable extra key": {"name": tool, "arguments": {}, BadReduce(): 1},
        "cycle with a lambda": {"name": tool, "arguments": {"status": cycle}},
        "huge int": {"name": tool, "arguments": {"invoice_id": 10**5000}},
    }


def make_layout(layout: str, env_id: str, num_envs: int) -> Any:
    mode, extra = LAYOUTS[layout]
    return officegym.make_vec(env_id, num_envs, mode, **extra, **SHORT_EPISODES[env_id])


def hostile_action(rng: np.random.Generator, tools: list[dict[str, Any]], ids: list[str]) -> Any:
    """The soak's action mix, with about one action in seven replaced by one that does not pickle."""
    from .soak import random_action

    if rng.random() < 0.15:
        tool = tools[int(rng.integers(len(tools)))]["name"]
        kinds = unsendable_actions(tool)
        return list(kinds.values())[int(rng.integers(len(kinds)))]
    return random_action(rng, tools, ids)


def run_lockstep(layout: str, env_id: str, num_envs: int, steps: int, seed: int) -> dict[str, Any]:
    """``steps`` vector steps of ``layout`` against single envs; the counts and the first few differences."""
    from .soak import ID_POOL

    envs = make_layout(layout, env_id, num_envs)
    singles = [gym.make(env_id, **SHORT_EPISODES[env_id]) for _ in range(num_envs)]
    rng = np.random.default_rng(seed)
    mismatches, exceptions, episodes, examples = 0, 0, 0, []
    try:
        observations, info = envs.reset(seed=seed)
        expected = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
        mismatches += sum(o != e for o, e in zip(observations, expected, strict=True))
        tools = [t["function"] for t in info["tools"][0]] + [{"name": "finish", "parameters": {"properties": {}}}]
        for step in range(steps):
            actions = [hostile_action(rng, tools, ID_POOL[env_id]) for _ in range(num_envs)]
            try:
                got = envs.step(tuple(actions))
            except Exception as error:  # counted, never expected: the vector env must answer every action
                exceptions += 1
                examples.append(f"step {step}: {type(error).__name__}: {safe_text(error, 200)}")
                break
            for slot, (env, action) in enumerate(zip(singles, actions, strict=True)):
                problems = _compare(got, slot, env.step(action), env)
                mismatches += bool(problems)
                examples += [f"step {step} slot {slot}: {p}" for p in problems][: max(0, 5 - len(examples))]
            episodes += int(np.sum(got[2] | got[3]))
        observations, _ = envs.reset(seed=seed + 1)
        expected = [env.reset(seed=seed + 1 + i)[0] for i, env in enumerate(singles)]
        mismatches += sum(o != e for o, e in zip(observations, expected, strict=True))
    finally:
        envs.close()
        for env in singles:
            env.close()
    return {
        "layout": layout,
        "env": env_id,
        "num_envs": num_envs,
        "steps": steps,
        "episodes": episodes,
        "mismatches": mismatches,
        "exceptions": exceptions,
        "examples": examples[:5],
    }


def _compare(got: tuple[Any, ...], slot: int, reply: tuple[Any, ...], env: Any) -> list[str]:
    """What differs between slot ``slot`` of a vector step and its single env's reply (which, on an episode's
    end, is replaced by the next episode's opening, as SAME_STEP autoreset does)."""
    observations, rewards, terminated, truncated, info = got
    observation, reward, done, cut, _ = reply
    problems = []
    if done or cut:
        final = observation
        observation, _ = env.reset()
        if not (info.get("_final_obs", [False] * (slot + 1))[slot] and info["final_obs"][slot] == final):
            problems.append(f"final_obs differs: expected {safe_text(final, 80)!r}")
    if observations[slot] != observation:
        problems.append(f"observation {safe_text(observations[slot], 80)!r} != {safe_text(observation, 80)!r}")
    if (float(rewards[slot]), bool(terminated[slot]), bool(truncated[slot])) != (float(reward), done, cut):
        problems.append(f"reward/terminated/truncated {rewards[slot], terminated[slot], truncated[slot]}")
    return problems
