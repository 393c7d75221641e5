"""Running whole episodes on Ray: each actor owns its envs and plays complete episodes locally.

A per-step remote call costs ~0.5-1 ms, 10-20x an AsyncVectorEnv step, so nothing here crosses the network per
step: an actor receives a batch of episode specs, plays each episode to the end in its own process, and
returns the results. Seeds flow from the specs exactly as in the local backend, so the same specs give the
same results on one machine, on Ray locally, or on a cluster (``address="ray://..."`` or ``"auto"``).

``ray`` is the ``ray`` extra: ``pip install 'officegym[ray]'``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .jobs import play_job

EpisodeRunner = Callable[["EpisodeSpec", dict[str, Any]], dict[str, Any]]
DEFAULT_RUNNER = "officegym.evaluation.ray_backend:play_scripted"


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to play: which env, task, seed and scripted policy (plus env kwargs)."""

    env_id: str
    task_id: str
    seed: int
    policy: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)


def play_scripted(spec: EpisodeSpec, envs: dict[str, Any]) -> dict[str, Any]:
    """The default runner: a scripted policy from the catalogue on a cached env; returns the EpisodeResult."""
    import gymnasium as gym

    import officegym  # noqa: F401  (registers the env ids in a fresh worker)
    from officegym.policies import run_episode
    from officegym.policies.registry import make_policy

    key = f"{spec.env_id}|{sorted(spec.env_kwargs.items())}"
    if key not in envs:
        envs[key] = gym.make(spec.env_id, **spec.env_kwargs)
    env = envs[key]
    result = run_episode(env, make_policy(spec.policy, env, spec.seed), task_id=spec.task_id, seed=spec.seed)
    return asdict(result)


def _resolve(path: str) -> EpisodeRunner:
    module, _, name = path.partition(":")
    runner: EpisodeRunner = getattr(importlib.import_module(module), name)
    return runner


def run_local(specs: Sequence[EpisodeSpec], runner: str = DEFAULT_RUNNER) -> list[dict[str, Any]]:
    """The same episodes in this process, in order: the reference the Ray backend must reproduce."""
    play, envs = _resolve(runner), dict[str, Any]()
    return [play(spec, envs) for spec in specs]


def run_ray(
    specs: Sequence[EpisodeSpec], num_workers: int = 2, address: str | None = None, runner: str = DEFAULT_RUNNER
) -> list[dict[str, Any]]:
    """Play ``specs`` on ``num_workers`` Ray actors (whole episodes each) and return results in spec order."""
    with RayEpisodePool(num_workers, address=address, runner=runner) as pool:
        return pool.map(specs)


class RayEpisodePool:
    """``num_workers`` Ray actors that keep their envs warm between batches.

    ``runner`` names an importable function ``(spec, env_cache) -> dict`` by ``module:function``, so the eval
    command can ship its own per-episode recorder. A local Ray instance is started unless ``address`` is given
    or Ray is already initialised.
    """

    def __init__(
        self,
        num_workers: int = 2,
        *,
        address: str | None = None,
        runner: str = DEFAULT_RUNNER,
        cpus_per_worker: float = 1.0,
    ) -> None:
        import ray

        if not ray.is_initialized():
            init_ray(address, max(num_workers * cpus_per_worker, os.cpu_count() or 1))
        worker_cls: Any = ray.remote(num_cpus=cpus_per_worker)(_EpisodeWorker)
        self._ray = ray
        self.workers = [worker_cls.remote(runner) for _ in range(num_workers)]

    def map(self, specs: Sequence[EpisodeSpec]) -> list[dict[str, Any]]:
        """Round-robin the specs over the workers, one remote call per worker; results in spec order."""
        n = len(self.workers)
        chunks = [list(range(i, len(specs), n)) for i in range(n)]
        futures = [w.play.remote([specs[i] for i in chunk]) for w, chunk in zip(self.workers, chunks, strict=True)]
        results: list[dict[str, Any]] = [{} for _ in specs]
        for chunk, batch in zip(chunks, self._ray.get(futures), strict=True):
            for index, result in zip(chunk, batch, strict=True):
                results[index] = result
        return results

    def close(self) -> None:
        for worker in self.workers:
            self._ray.kill(worker)
        self.workers = []

    def __enter__(self) -> RayEpisodePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def init_ray(address: str | None = None, num_cpus: float | None = None) -> None:
    """Connect to ``address``, or start a local Ray instance that is loopback-only and tokenless.

    A local instance's CPU count is fixed at start: give it at least as many CPUs as the largest pool will ask
    for, or later actors wait forever for a free CPU.
    """
    import ray

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address is None and num_cpus is not None:
        kwargs["num_cpus"] = int(num_cpus + 0.999)
    ray.init(address=address, **kwargs)


def run_jobs_on_ray(
    plan: Any,
    jobs: Sequence[Any],
    make_policy: Any,
    config: dict[str, Any],
    on_record: Callable[[dict[str, Any]], None],
) -> None:
    """``officegym eval --backend ray``: every episode a Ray task that plays it whole and returns its record.

    At most ``plan.concurrency`` episodes are in flight; records arrive as episodes finish and are written by
    the caller (this process). Scripted policies reserve a CPU per episode; LLM episodes wait on the network,
    so they reserve none. A fatal error (bad key, unknown model) raised in a worker is re-raised here.
    """
    import ray
    from ray.exceptions import RayTaskError

    if not ray.is_initialized():
        init_ray(plan.ray_address, max(plan.concurrency, os.cpu_count() or 1))
    cpus = 0 if plan.policy_info.get("policy") == "openai" else 1
    remote: Any = ray.remote(num_cpus=cpus, max_retries=0)(play_job)
    shared = [ray.put(value) for value in (plan, make_policy, config)]
    waiting, in_flight = list(jobs), dict[Any, Any]()
    while waiting or in_flight:
        while waiting and len(in_flight) < plan.concurrency:
            job = waiting.pop(0)
            in_flight[remote.remote(shared[0], job, shared[1], shared[2])] = job
        done, _ = ray.wait(list(in_flight), num_returns=1)
        for ref in done:
            in_flight.pop(ref)
            try:
                record = ray.get(ref)
            except RayTaskError as error:
                raise error.cause from None
            if record is not None:
                on_record(record)


class _EpisodeWorker:
    """A Ray actor: keeps its envs across episodes and plays each spec to the end locally."""

    def __init__(self, runner: str) -> None:
        self.runner = _resolve(runner)
        self.envs: dict[str, Any] = {}

    def play(self, specs: list[EpisodeSpec]) -> list[dict[str, Any]]:
        return [self.runner(spec, self.envs) for spec in specs]
