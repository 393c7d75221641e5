"""RLlib PPO on officegym: ``python -m officegym.examples.rllib_ppo [--iterations N] [--env-runners K] [--address A]``.

(From a checkout, ``python -m examples.rllib_ppo`` runs the same file.) The env is registered with
``register_env`` and wrapped in the SB3 adapter (``DiscreteToolCalls``: a ``Discrete`` catalogue of tool calls
and a ``Box`` of hashed text features), which RLlib consumes as it is. Each of the ``--env-runners`` Ray actors
holds its own envs and steps them locally; only sampled episodes travel to the learner. Actions are masked as
with SB3's ``MaskablePPO``: ``MaskInObservation`` puts the adapter's mask into a ``Dict`` observation, and
``MaskedPPOModule`` (``officegym.examples.rllib_masking``, built on RLlib's documented RLModule API) gives masked
entries no probability. ``--no-mask`` trains RLlib's default PPO module without the mask, for comparison.

Needs the ``ray`` extra (``pip install 'officegym[ray]'``, which brings RLlib and torch). Importing this module
needs neither: Ray, RLlib and torch are imported when it trains.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any


def make_env(config: dict[str, Any]) -> Any:
    """The env creator RLlib calls inside each env runner (so the imports happen there too)."""
    import gymnasium as gym

    import officegym  # noqa: F401
    from officegym.wrappers import DiscreteToolCalls, MaskInObservation

    env = gym.make(
        "officegym/InvoiceApproval-v0", tier=config.get("tier", "single"), max_turns=config.get("max_turns", 20)
    )
    adapter = DiscreteToolCalls(env)
    return MaskInObservation(adapter) if config.get("mask", True) else adapter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--env-runners", type=int, default=2)
    parser.add_argument("--envs-per-runner", type=int, default=2)
    parser.add_argument("--address", help="a Ray cluster address (default: start Ray locally)")
    parser.add_argument("--no-mask", action="store_true", help="train without action masking")
    args = parser.parse_args(argv)

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    # by its installed name, so Ray's workers import the module class instead of unpickling a copy of it
    from officegym.examples.rllib_masking import MaskedPPOModule

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(
        address=args.address,
        include_dashboard=False,
        log_to_driver=False,
        **({} if args.address else {"num_cpus": args.env_runners + 1}),
    )
    register_env("officegym-invoice-discrete", make_env)
    config = (
        PPOConfig()
        .environment(
            "officegym-invoice-discrete", env_config={"tier": "single", "max_turns": 20, "mask": not args.no_mask}
        )
        .env_runners(
            num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner, num_cpus_per_env_runner=1
        )
        .training(train_batch_size=1000, minibatch_size=250, num_epochs=4, lr=5e-4, gamma=0.95)
        .debugging(seed=0)
    )
    if not args.no_mask:
        config = config.rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOModule))
    started = time.perf_counter()
    algo = config.build_algo()
    print(f"built in {time.perf_counter() - started:.1f} s")
    for iteration in range(1, args.iterations + 1):
        result = algo.train()
        runners = result.get("env_runners", {})
        steps = runners.get("num_env_steps_sampled_lifetime", result.get("num_env_steps_sampled_lifetime"))
        print(
            f"iteration {iteration}: return {runners.get('episode_return_mean', float('nan')):.3f}, "
            f"env steps {steps}, {time.perf_counter() - started:.1f} s"
        )
    algo.stop()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
