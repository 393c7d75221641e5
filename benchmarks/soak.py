"""Soak run: a million random and malformed steps across every env (v0 and v1) in vector envs.

``python -m benchmarks.soak [--steps N]`` reports crashes (exceptions out of ``step``; target 0), invariant
violations of the InvoiceApproval books (checked inside the workers every 50 steps and at every episode end;
target 0), non-``Error:`` answers to invalid calls and observations a JSON or HTTP client would reject
(target 0), and the process's RSS over time (target: flat). A quarter of the steps are malformed, half of
those hostile: JSON nested thousands deep, numbers thousands of digits long, lone surrogates, values that
cannot be printed. Progress goes to stderr every tenth of a run; the last result is written to
``benchmarks/results/soak.json``.

``python -m benchmarks.soak --vector [--steps N]`` runs only the vector section instead: every vector layout
(sync, async, batched) on every env, 3 envs each, with hostile actions including values that cannot be pickled,
checked in lock step against single envs (``vector_lockstep.py``; target: 0 mismatches, 0 exceptions). Its
result is merged into ``soak.json`` under ``"vector"`` (with the default 2,000 steps per run or more).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import officegym  # noqa: F401
from officegym.envs.invoice_approval.v0.invariants import check_invariants
from officegym.envs.invoice_approval.v1.env import InvoiceApprovalV1Env
from officegym.envs.invoice_approval.v1.invariants import check_invariants as check_v1_invariants
from officegym.spaces.safe_value import safe_text

RESULTS = Path(__file__).parent / "results"
CHECK_EVERY = 50
ODD = ["", "\x00", "'; DROP TABLE invoices; --", "🙂", "x" * 5000, "ER-2026-99999", "REQ-NOPE", "%_\\"]


class InvariantProbe(gym.Wrapper[Any, Any, Any, Any]):
    """Checks the books' invariants in the worker (before any autoreset can replace them) and reports
    violations and wrong answers to invalid calls in ``info``."""

    def step(self, action: Any) -> Any:
        observation, reward, terminated, truncated, info = self.env.step(action)
        inner: Any = self.env.unwrapped
        problems: list[str] = []
        if not inner.action_space.contains(action) and not observation.startswith("Error: "):
            problems.append(f"invalid call answered without Error: {safe_text(action, 80)}")
        if not observation.isascii():
            try:
                observation.encode("utf-8")
            except UnicodeEncodeError:
                problems.append(f"observation a JSON/HTTP client would reject: {safe_text(observation, 80)}")
        if (
            hasattr(inner, "bundle")
            and inner.episode is not None
            and (terminated or truncated or inner.stats.turns % CHECK_EVERY == 0)
        ):
            problems += _invariants(inner)
        info["soak_problems"] = len(problems)
        info["soak_first_problem"] = problems[0] if problems else ""
        return observation, reward, terminated, truncated, info


def _invariants(inner: Any) -> list[str]:
    """The books' invariants of whichever InvoiceApproval version ``inner`` is."""
    if isinstance(inner, InvoiceApprovalV1Env):
        episode = inner.episode
        return [] if episode is None else check_v1_invariants(episode.conn, inner.bundle.template)
    return check_invariants(inner.episode, inner.bundle.template)


def current_rss_mb() -> float:
    """The process's resident set size now (not the peak), from /proc; 0 where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


class Unprintable:
    """A value whose repr and str raise."""

    def __repr__(self) -> str:
        raise RuntimeError("unprintable")

    __str__ = __repr__


def deep(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def hostile(tool: str, kind: int) -> Any:
    """Actions that once raised out of ``step`` or echoed text no client can send."""
    return [
        '{"name": "' + tool + '", "arguments": {"x": ' + "[" * 3000 + "]" * 3000 + "}}",
        {"name": tool, "arguments": {"x": deep(3000)}},
        {"name": tool, "arguments": {"x": 10**5000}},
        '{"name": "' + tool + '", "arguments": {"x": ' + "7" * 5000 + "}}",
        {"name": tool, "arguments": {"x": "ER-\ud800"}},
        '{"name": "' + tool + '", "arguments": {"x": "\\udfff"}}',
        {"name": "\ud800", "arguments": {}},
        {"name": tool, 10**5000: 1},
        {"name": tool, "arguments": {"x": Unprintable()}},
        b'{"name": "\xff"}',
    ][kind]


def random_action(rng: np.random.Generator, tools: list[dict[str, Any]], ids: list[str]) -> Any:
    """Mostly schema-valid calls with plausible IDs; a quarter malformed in one of fifteen ways."""
    roll = rng.random()
    if roll < 0.02:
        return {"name": "finish", "arguments": {}}
    if roll < 0.27:
        kind = int(rng.integers(15))
        if kind >= 5:
            return hostile(tools[0]["name"], kind - 5)
        return [
            {"name": "nope", "arguments": {}},
            "{broken json",
            {"name": "read_doc"},
            {"name": tools[0]["name"], "arguments": {"zzz": 1}},
            12345,
        ][kind]
    tool = tools[int(rng.integers(len(tools)))]
    arguments: dict[str, Any] = {}
    for name, schema in tool["parameters"]["properties"].items():
        if "enum" in schema:
            arguments[name] = schema["enum"][int(rng.integers(len(schema["enum"])))]
        elif schema.get("type") == "integer":
            arguments[name] = int(rng.integers(1, 201))
        elif schema.get("type") == "array":
            arguments[name] = [ids[int(rng.integers(len(ids)))]] if rng.random() < 0.5 else []
        else:
            arguments[name] = ids[int(rng.integers(len(ids)))] if rng.random() < 0.9 else ODD[int(rng.integers(8))]
    return {"name": tool["name"], "arguments": arguments}


ID_POOL = {
    "officegym/InvoiceApproval-v0": [f"ER-2026-{n:05d}" for n in range(1, 201)] + ["AP-145", "AP-212", "K-70010"],
    "officegym/VendorReview-v0": [
        "requirements-matrix",
        "questionnaire",
        "soc2-report",
        "it-thread",
        "order-form",
        "REQ-SSO",
        "REQ-SCIM",
        "REQ-OFFLINE",
        "offline",
        "breach notice hours",
        "go",
    ],
    "officegym/InvoiceApproval-v1": [f"ER-2026-{n:05d}" for n in range(1, 279)]
    + ["AP-106", "AP-146", "AP-319", "K-70118", "K-79925", "4500000616", "PE-101", "PE-108", "PE-112"],
    "officegym/VendorReview-v1": [
        "requirements-matrix",
        "security-questionnaire",
        "soc2-report",
        "vendor-dpa",
        "order-form",
        "it-thread",
        "REQ-SSO",
        "REQ-MFA",
        "REQ-SCIM",
        "offline",
        "signed",
        "go",
    ],
}


def soak_env(env_id: str, steps: int, num_envs: int, seed: int) -> dict[str, Any]:
    envs = gym.make_vec(
        env_id,
        num_envs=num_envs,
        vectorization_mode="sync",
        wrappers=[InvariantProbe],
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
    )
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    tools = [t["function"] for t in info["tools"][0]] + [{"name": "finish", "parameters": {"properties": {}}}]
    ids, crashes, problems, episodes, rss = ID_POOL[env_id], 0, 0, 0, []
    examples: set[str] = set()
    start = time.perf_counter()
    for step in range(steps // num_envs):
        actions = tuple(random_action(rng, tools, ids) for _ in range(num_envs))
        try:
            _, _, terminated, truncated, info = envs.step(actions)
        except Exception:
            crashes += 1
            envs.reset()
            continue
        for part in (info, info.get("final_info", {})):  # an episode's last step reports in final_info
            problems += int(np.sum(part.get("soak_problems", 0)))
            examples.update(p for p in part.get("soak_first_problem", ()) if p)
        episodes += int(np.sum(terminated | truncated))
        if step % max(1, steps // num_envs // 10) == 0:
            rss.append(current_rss_mb())
            done = step * num_envs
            print(
                f"soak {env_id}: {done:,}/{steps:,} steps, {crashes} crashes, {problems} problems, "
                f"{time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    envs.close()
    seconds = time.perf_counter() - start
    return {
        "env": env_id,
        "steps": steps,
        "episodes": episodes,
        "crashes": crashes,
        "problems": problems,
        "seconds": round(seconds, 1),
        "steps_per_s": round(steps / seconds),
        "rss_mb_samples": rss,
        "problem_examples": sorted(examples)[:10],
    }


VECTOR_STEPS = 2_000


def soak_vector(steps: int, num_envs: int = 3) -> dict[str, Any]:
    """The vector section: ``steps`` lock-step vector steps per layout and env (see ``vector_lockstep.py``)."""
    from .vector_lockstep import LAYOUTS, run_lockstep

    runs = []
    for seed, env_id in enumerate(ID_POOL):
        for layout in LAYOUTS:
            start = time.perf_counter()
            run = run_lockstep(layout, env_id, num_envs, steps, seed)
            run["seconds"] = round(time.perf_counter() - start, 1)
            print(f"soak vector {layout} {env_id}: {run}", file=sys.stderr, flush=True)
            runs.append(run)
    return {
        "total_vector_steps": sum(r["steps"] for r in runs),
        "slot_steps": sum(r["steps"] * r["num_envs"] for r in runs),
        "mismatches": sum(r["mismatches"] for r in runs),
        "exceptions": sum(r["exceptions"] for r in runs),
        "runs": runs,
    }


def _write_merged(key: str | None, value: dict[str, Any]) -> None:
    """``soak.json`` with ``value`` at ``key`` (or as the whole random soak, when ``key`` is None), keeping
    the other section: the random soak and the vector section are re-run separately."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "soak.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    merged = {**old, key: value} if key else {**value, **({"vector": old["vector"]} if "vector" in old else {})}
    path.write_text(json.dumps(merged, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=None, help="total steps, split over the envs")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--vector", action="store_true", help="run only the vector lock-step section")
    args = parser.parse_args(argv)
    if args.vector:
        section = soak_vector(args.steps or VECTOR_STEPS)
        print(json.dumps({k: v for k, v in section.items() if k != "runs"}, indent=2))
        if (args.steps or VECTOR_STEPS) >= VECTOR_STEPS:
            _write_merged("vector", section)
        return 0 if section["mismatches"] == 0 and section["exceptions"] == 0 else 1
    args.steps = args.steps or 1_000_000
    results = [soak_env(env_id, args.steps // len(ID_POOL), args.num_envs, seed) for seed, env_id in enumerate(ID_POOL)]
    summary = {
        "total_steps": sum(r["steps"] for r in results),
        "crashes": sum(r["crashes"] for r in results),
        "problems": sum(r["problems"] for r in results),
        "runs": results,
    }
    print(json.dumps(summary, indent=2))
    if args.steps >= 1_000_000:
        _write_merged(None, summary)
    return 0 if summary["crashes"] == 0 and summary["problems"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
