"""MaskablePPO on officegym through the discrete adapter: learning curves against the baselines.

    .venv/bin/python -m benchmarks.train_sb3            # the committed result (about 11 minutes on 2 cores)
    .venv/bin/python -m benchmarks.train_sb3 --experiments invoice_single    # the headline alone (~3.5 min)
    .venv/bin/python -m benchmarks.train_sb3 --quick    # a smoke run (~20 s) that writes nothing

Five experiments, each with seeds 0, 1 and 2 (the model seed; SB3 derives the env reset seeds from it):

- ``invoice_single``: InvoiceApproval-v0, single tier (20 tasks, one invoice each, graded 0/1),
  ``max_turns=20``, the env's own reward;
- ``invoice_single_shaped``: the same with ``PotentialShaping`` (gamma 0.99, the learner's discount), to see
  what the dense signal buys; success is still the env's grade;
- ``vendor_review`` and ``vendor_review_shaped``: VendorReview-v0 on every shipped scenario, with the env's
  own reward and with shaping (whose potential pays for reading the core documents).

Every ``EVAL_EVERY`` steps the deterministic policy (argmax over unmasked actions) plays each task once; the
env and the policy are deterministic, so one episode per task is the whole distribution. Baselines: the
masked random policy (uniform over unmasked actions; ``RANDOM_EPISODES`` episodes per task), and for
InvoiceApproval the best fixed decision (always the most frequent gold decision), which shows how much of a
success rate the class prior alone gives. The trained InvoiceApproval policies are also evaluated on the
single tier of a company generated from another seed, which they never saw: the catalogue and features
carry over, the invoice IDs do not, so this measures how much of the policy is memorised task identity.

Writes ``benchmarks/results/sb3_<experiment>.csv`` (one row per evaluation and seed),
``sb3_learning_curves.png`` and ``sb3_summary.json``. Wall times depend on the machine and its load; the
success numbers do not (same seeds, same torch build, one thread).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from numpy.typing import NDArray
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv

import officegym  # noqa: F401  (registers the env ids)
from officegym.envs.invoice_approval.v0.bundle import load_bundle
from officegym.wrappers.diagnostics import SUMMARY_KEY
from officegym.wrappers.discrete import DiscreteToolCalls
from officegym.wrappers.sb3 import sb3_env

RESULTS = Path(__file__).parent / "results"
INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
HELD_OUT_COMPANY = 7
PPO_SETTINGS: dict[str, Any] = {
    "n_steps": 256,
    "batch_size": 256,
    "n_epochs": 10,
    "learning_rate": 1e-3,
    "ent_coef": 0.01,
    "gamma": 0.99,
}
N_ENVS = 4
EVAL_EVERY = 5_000
RANDOM_EPISODES = 200
TRAIN_WINDOW = 100

Observation = NDArray[np.float32]
Chooser = Callable[[Observation, NDArray[np.bool_]], int]


@dataclass(frozen=True)
class Experiment:
    name: str
    env_id: str
    env_kwargs: Mapping[str, Any]
    timesteps: int
    shaping: bool = False


EXPERIMENTS = (
    Experiment("invoice_single", INVOICE, {"tier": "single", "max_turns": 20}, 50_000),
    Experiment("invoice_single_shaped", INVOICE, {"tier": "single", "max_turns": 20}, 50_000, shaping=True),
    Experiment("vendor_review", VENDOR, {}, 50_000),
    Experiment("vendor_review_shaped", VENDOR, {}, 50_000, shaping=True),
)


# ---------------------------------------------------------------------------------------- environments
def eval_env(experiment: Experiment, **overrides: Any) -> DiscreteToolCalls:
    """The adapter alone: evaluation reads the env's own reward."""
    return DiscreteToolCalls(gym.make(experiment.env_id, **{**experiment.env_kwargs, **overrides}))


def train_env(experiment: Experiment) -> gym.Env[Any, Any]:
    """The README's stack (``sb3_env``): adapter, diagnostics (its episode summary carries the env's return and
    success), ``is_success``, SB3's ``Monitor`` (so ``verbose=1`` logs ``rollout/ep_rew_mean`` and
    ``rollout/success_rate``), then shaping if the experiment asks for it. None of these change a reward."""
    gamma = float(PPO_SETTINGS["gamma"]) if experiment.shaping else None
    return sb3_env(experiment.env_id, gamma=gamma, **experiment.env_kwargs)


# ---------------------------------------------------------------------------------------- evaluation
@dataclass
class Score:
    success: float
    reward: float
    length: float


def play(env: DiscreteToolCalls, task_id: str, choose: Chooser, seed: int) -> tuple[float, int]:
    """One episode on ``task_id``; returns (final reward, steps)."""
    observation, _ = env.reset(seed=seed, options={"task_id": task_id})
    reward, steps, done = 0.0, 0, False
    while not done:
        observation, r, terminated, truncated, _ = env.step(choose(observation, env.action_masks()))
        reward, steps, done = float(r), steps + 1, terminated or truncated
    return reward, steps


def task_ids(env: DiscreteToolCalls) -> list[str]:
    """The tasks of the officegym env under the adapter."""
    inner: Any = env.unwrapped
    return list(inner.task_ids)


def score(env: DiscreteToolCalls, choose: Chooser, episodes_per_task: int = 1, seed: int = 0) -> Score:
    """Mean success (reward 1.0), reward and length over every task of the env, ``episodes_per_task`` each."""
    results = [play(env, task_id, choose, seed + n) for task_id in task_ids(env) for n in range(episodes_per_task)]
    rewards = np.array([r for r, _ in results])
    return Score(float(np.mean(rewards >= 1.0 - 1e-9)), float(rewards.mean()), float(np.mean([n for _, n in results])))


def greedy(model: MaskablePPO) -> Chooser:
    def choose(observation: Observation, mask: NDArray[np.bool_]) -> int:
        action, _ = model.predict(observation, action_masks=mask, deterministic=True)
        return int(action)

    return choose


def masked_random(seed: int) -> Chooser:
    rng = np.random.default_rng(seed)

    def choose(observation: Observation, mask: NDArray[np.bool_]) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    return choose


def best_fixed_decision(company_seed: int | None = None) -> tuple[str, float]:
    """The most frequent gold decision of the single tier and the success of always making it."""
    bundle = load_bundle() if company_seed is None else load_bundle(company_seed)
    labels = [_decision_label(task.gold_actions[-1]) for task in bundle.tasks.values() if task.tier == "single"]
    label, count = Counter(labels).most_common(1)[0]
    return label, count / len(labels)


def _decision_label(action: Mapping[str, Any]) -> str:
    code = action["arguments"].get("reason_code") or ("target" if "approver_id" in action["arguments"] else "")
    return f"{action['name']} {code}".strip()


# ---------------------------------------------------------------------------------------- training
class Curve(BaseCallback):
    """Evaluates the greedy policy every ``every`` steps; keeps the training episodes' summaries."""

    def __init__(self, evaluate: Callable[[], Score], every: int = EVAL_EVERY) -> None:
        super().__init__()
        self.evaluate = evaluate
        self.every = every
        self.rows: list[dict[str, float]] = []
        self.summaries: list[dict[str, float]] = []
        self.started = 0.0

    def _on_training_start(self) -> None:
        self.started = time.perf_counter()
        self.record()

    def _on_step(self) -> bool:
        self.summaries += [info[SUMMARY_KEY] for info in self.locals["infos"] if SUMMARY_KEY in info]
        if self.num_timesteps // self.every > self.rows[-1]["timesteps"] // self.every:
            self.record()
        return True

    def record(self) -> None:
        result = self.evaluate()
        recent = self.summaries[-TRAIN_WINDOW:]
        self.rows.append(
            {
                "timesteps": self.num_timesteps,
                "wall_s": round(time.perf_counter() - self.started, 2),
                "eval_success": result.success,
                "eval_reward": round(result.reward, 4),
                "eval_length": round(result.length, 2),
                "train_episodes": len(self.summaries),
                "train_success": round(float(np.mean([s["success"] for s in recent])), 4) if recent else 0.0,
                "train_reward": round(float(np.mean([s["r"] for s in recent])), 4) if recent else 0.0,
            }
        )
        row = self.rows[-1]  # training runs for minutes: one line of progress per evaluation, on stderr
        print(
            f"  {row['timesteps']:,} steps: eval success {row['eval_success']:.2f}, reward {row['eval_reward']:.3f} "
            f"({row['wall_s']:.0f} s)",
            file=sys.stderr,
            flush=True,
        )


def train(experiment: Experiment, seed: int, timesteps: int) -> tuple[MaskablePPO, list[dict[str, float]]]:
    """One seeded MaskablePPO run with its learning curve."""
    venv = DummyVecEnv([lambda: train_env(experiment)] * N_ENVS)
    model = MaskablePPO("MlpPolicy", venv, seed=seed, device="cpu", verbose=0, **PPO_SETTINGS)
    evaluation = eval_env(experiment)
    curve = Curve(lambda: score(evaluation, greedy(model)))
    model.learn(total_timesteps=timesteps, callback=curve)
    if curve.rows[-1]["timesteps"] < model.num_timesteps:
        curve.record()
    venv.close()
    return model, curve.rows


def run_experiment(experiment: Experiment, seeds: Sequence[int], timesteps: int) -> dict[str, Any]:
    """Train every seed; return the curve rows and the final numbers (plus held-out results for invoices)."""
    rows: list[dict[str, Any]] = []
    finals: list[dict[str, Any]] = []
    for seed in seeds:
        model, curve = train(experiment, seed, timesteps)
        rows += [{"experiment": experiment.name, "seed": seed, **row} for row in curve]
        final: dict[str, Any] = {
            "seed": seed,
            "timesteps": curve[-1]["timesteps"],
            "wall_s": curve[-1]["wall_s"],
            "success": curve[-1]["eval_success"],
            "reward": curve[-1]["eval_reward"],
        }
        if experiment.env_id == INVOICE:
            held_out = score(eval_env(experiment, company_seed=HELD_OUT_COMPANY), greedy(model))
            final["held_out_success"] = held_out.success
        finals.append(final)
        print(f"{experiment.name} seed {seed}: {final}", flush=True)
    return {"rows": rows, "finals": finals}


def baselines(experiment: Experiment, episodes: int) -> dict[str, Any]:
    """Masked random on the training tasks (and, for invoices, on the held-out company; the best fixed
    decision of both)."""
    env = eval_env(experiment)
    out: dict[str, Any] = {"tasks": task_ids(env)}
    random_score = score(env, masked_random(0), episodes_per_task=episodes)
    out["masked_random"] = {
        "success": random_score.success,
        "reward": round(random_score.reward, 4),
        "length": round(random_score.length, 2),
        "episodes_per_task": episodes,
    }
    if experiment.env_id == INVOICE:
        held_out = score(eval_env(experiment, company_seed=HELD_OUT_COMPANY), masked_random(1), episodes)
        out["masked_random_held_out"] = {"success": held_out.success}
        label, success = best_fixed_decision()
        out["best_fixed_decision"] = {"decision": label, "success": success}
        label, success = best_fixed_decision(HELD_OUT_COMPANY)
        out["best_fixed_decision_held_out"] = {"decision": label, "success": success}
    return out


# ---------------------------------------------------------------------------------------- outputs
def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def curve_by_step(rows: Sequence[Mapping[str, Any]], key: str) -> tuple[list[int], NDArray[np.float64]]:
    """Timesteps and a (seeds x evaluations) array of ``key``, cut to the shortest seed."""
    seeds = sorted({int(r["seed"]) for r in rows})
    per_seed = [[r for r in rows if int(r["seed"]) == seed] for seed in seeds]
    n = min(len(p) for p in per_seed)
    return [int(r["timesteps"]) for r in per_seed[0][:n]], np.array([[float(r[key]) for r in p[:n]] for p in per_seed])


def plot(results: Mapping[str, Mapping[str, Any]], path: Path) -> None:
    """Left: InvoiceApproval single-tier success; right: VendorReview reward. Mean over seeds, min-max band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    _panel(axes[0], results, INVOICE, "success", "InvoiceApproval-v0, single tier (20 tasks)")
    _panel(axes[1], results, VENDOR, "reward", "VendorReview-v0 (all scenarios)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _panel(axis: Any, results: Mapping[str, Mapping[str, Any]], env_id: str, measure: str, title: str) -> None:
    """One environment's curves (one line per experiment) with its baselines as horizontal lines."""
    names = [e.name for e in EXPERIMENTS if e.env_id == env_id and e.name in results]
    held_out: list[float] = []
    for name in names:
        steps, values = curve_by_step(results[name]["rows"], f"eval_{measure}")
        line = axis.plot(steps, values.mean(axis=0), label=f"MaskablePPO: {name}")[0]
        axis.fill_between(steps, values.min(axis=0), values.max(axis=0), alpha=0.2)
        held_out = [f["held_out_success"] for f in results[name].get("finals", []) if "held_out_success" in f]
        if held_out:
            axis.scatter(
                [steps[-1]],
                [np.mean(held_out)],
                marker="x",
                color=line.get_color(),
                label=f"{name} on an unseen company ({np.mean(held_out):.2f})",
            )
    if names:
        baselines_ = results[names[0]]["baselines"]
        random_value = baselines_["masked_random"][measure]
        axis.axhline(random_value, color="grey", linestyle="--", label=f"masked random ({random_value:.3f})")
        if "best_fixed_decision" in baselines_:
            fixed = baselines_["best_fixed_decision"]["success"]
            axis.axhline(fixed, color="grey", linestyle=":", label=f"best fixed decision ({fixed:.2f})")
        axis.legend(loc="center right" if held_out else "lower right", fontsize=8)
    axis.set(title=title, xlabel="environment steps", ylabel=f"greedy policy {measure}", ylim=(-0.02, 1.02))


def summarise(results: Mapping[str, Mapping[str, Any]], seeds: Sequence[int], wall_s: float) -> dict[str, Any]:
    out: dict[str, Any] = {
        "command": "python -m benchmarks.train_sb3",
        "seeds": list(seeds),
        "ppo": {**PPO_SETTINGS, "n_envs": N_ENVS, "policy": "MlpPolicy (64, 64)"},
        "torch_threads": torch.get_num_threads(),
        "total_wall_s": round(wall_s, 1),
        "experiments": {},
    }
    for name, result in results.items():
        finals = result["finals"]
        random_baseline = result["baselines"]["masked_random"]
        entry = {
            "timesteps": finals[0]["timesteps"],
            "per_seed": finals,
            "baselines": result["baselines"],
            "mean_success": float(np.mean([f["success"] for f in finals])),
            "mean_reward": float(np.mean([f["reward"] for f in finals])),
            "mean_wall_s": float(np.mean([f["wall_s"] for f in finals])),
        }
        entry["reward_vs_masked_random"] = round(entry["mean_reward"] / max(1e-9, random_baseline["reward"]), 2)
        if "held_out_success" in finals[0]:
            entry["mean_held_out_success"] = float(np.mean([f["held_out_success"] for f in finals]))
        out["experiments"][name] = entry
    return out


def write_outputs(results: Mapping[str, Mapping[str, Any]], summary: Mapping[str, Any], complete: bool) -> None:
    """Each experiment's CSV; the plot and the summary only for a complete run (a subset run must not
    replace the committed record with part of it)."""
    RESULTS.mkdir(exist_ok=True)
    for name, result in results.items():
        write_csv(RESULTS / f"sb3_{name}.csv", result["rows"])
    if complete:
        plot(results, RESULTS / "sb3_learning_curves.png")
        (RESULTS / "sb3_summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2,048 steps, one seed, nothing written")
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated model seeds (default 0,1,2)")
    parser.add_argument(
        "--experiments",
        default=",".join(e.name for e in EXPERIMENTS),
        help="comma-separated subset of: " + ", ".join(e.name for e in EXPERIMENTS),
    )
    args = parser.parse_args(argv)
    chosen = [e for e in EXPERIMENTS if e.name in args.experiments.split(",")]
    torch.set_num_threads(1)  # a 64x64 MLP gains nothing from more; the envs need the other core
    seeds = [0] if args.quick else [int(s) for s in args.seeds.split(",")]
    started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    for experiment in chosen:
        timesteps = 2_048 if args.quick else experiment.timesteps
        result = run_experiment(experiment, seeds, timesteps)
        result["baselines"] = baselines(experiment, 2 if args.quick else RANDOM_EPISODES)
        results[experiment.name] = result
    summary = summarise(results, seeds, time.perf_counter() - started)
    print(json.dumps(summary["experiments"], indent=1))
    if not args.quick:
        write_outputs(results, summary, complete=len(chosen) == len(EXPERIMENTS))
    print(f"total {summary['total_wall_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
