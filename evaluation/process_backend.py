"""Whole episodes in worker processes, one per core: ``ProcessEpisodePool`` and ``officegym eval --backend processes``.

A scripted episode is pure CPU (an InvoiceApproval episode is well under a millisecond of env time), so the
local backend's threads share one interpreter lock and a vector env pays a message per step. Here each worker
is a process that plays whole episodes in its own loop and sends back only their results: nothing crosses a
pipe per step, so two workers on two free cores play about twice as many episodes as one process.

Workers are started with ``spawn`` (a fresh interpreter: no thread or lock of the parent is copied into it, on
every platform alike) and keep their envs between episodes. Seeds flow from the specs and jobs exactly as in
one process, so results are identical to ``run_local`` and to the local backend; only timings differ.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from .jobs import ChatPolicyFactory, EvalPlan, deliver, play_job
from .ray_backend import DEFAULT_RUNNER, EpisodeRunner, EpisodeSpec, _resolve
from .records import Job

_WORKER: dict[str, Any] = {}
"""A worker process's runner and warm envs (set by ``_start_worker``; empty in the parent)."""


def default_workers() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it), at least one."""
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0)) if affinity is not None else (os.cpu_count() or 1))


def _start_worker(runner: str, warmup: Sequence[EpisodeSpec]) -> None:
    import officegym  # noqa: F401  (registers the env ids in the fresh interpreter)

    _WORKER["runner"], _WORKER["envs"] = _resolve(runner), {}
    for spec in warmup:
        _play_spec(spec)


def _play_spec(spec: EpisodeSpec) -> dict[str, Any]:
    runner: EpisodeRunner = _WORKER["runner"]
    return runner(spec, _WORKER["envs"])


def _executor(workers: int, runner: str | None = None, warmup: Sequence[EpisodeSpec] = ()) -> ProcessPoolExecutor:
    """``workers`` spawned processes; with ``runner`` each resolves it once, plays ``warmup`` and keeps its envs
    warm."""
    context = multiprocessing.get_context("spawn")
    if runner is None:
        return ProcessPoolExecutor(max_workers=workers, mp_context=context)
    arguments = (runner, tuple(warmup))
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker, initargs=arguments)


class ProcessEpisodePool:
    """``num_workers`` processes (default: one per core) that play episode specs whole and keep their envs
    warm between batches, as ``RayEpisodePool`` does on Ray, without Ray.

    ``runner`` names an importable function ``(spec, env_cache) -> dict`` by ``module:function`` (default: a
    scripted policy from the catalogue). ``warmup`` specs are played by every worker as it starts, results
    dropped: one per env (and company) the work will use makes each worker's envs before the first ``map``.
    ``map`` returns results in spec order, equal to ``run_local(specs)``.

    Example::

        specs = [EpisodeSpec("officegym/InvoiceApproval-v0", "single-1", seed, "oracle") for seed in range(100)]
        with ProcessEpisodePool() as pool:
            results = pool.map(specs)
    """

    def __init__(
        self, num_workers: int | None = None, *, runner: str = DEFAULT_RUNNER, warmup: Sequence[EpisodeSpec] = ()
    ) -> None:
        workers = default_workers() if num_workers is None else num_workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"num_workers must be a whole number of at least 1, got {num_workers!r}")
        _resolve(runner)  # a runner that does not import fails here, not in every worker
        self.num_workers = workers
        self._executor: ProcessPoolExecutor | None = _executor(workers, runner, warmup)

    def map(self, specs: Sequence[EpisodeSpec]) -> list[dict[str, Any]]:
        """Play every spec; results in spec order. Specs go out in chunks (about four per worker), so a
        worker that drew short episodes takes more of them."""
        if self._executor is None:
            raise RuntimeError("the pool is closed; make a new ProcessEpisodePool")
        chunk = max(1, len(specs) // (self.num_workers * 4))
        return list(self._executor.map(_play_spec, specs, chunksize=chunk))

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def __enter__(self) -> ProcessEpisodePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_sendable(make_policy: ChatPolicyFactory) -> None:
    """Workers are other interpreters: the policy factory must pickle. A scripted policy's does; an LLM's holds
    a live HTTP client, and its episodes wait on the network, which the local backend's threads already
    overlap."""
    try:
        pickle.dumps(make_policy)
    except Exception:
        raise ValueError("--backend processes runs scripted policies; use --backend local for LLMs") from None


def run_jobs_in_processes(
    plan: EvalPlan,
    jobs: Sequence[Job],
    make_policy: ChatPolicyFactory,
    config: dict[str, Any],
    on_record: Callable[[dict[str, Any]], None],
) -> None:
    """``officegym eval --backend processes``: every episode played whole in a worker process, at most
    ``min(plan.concurrency, cores)`` at a time; records are written by the caller as episodes finish. A
    fatal error (raised by ``play_job`` in a worker) stops the run: the episodes not started are dropped.
    The runner has already refused a policy factory that cannot be sent (``check_sendable``)."""
    executor = _executor(max(1, min(plan.concurrency, default_workers(), len(jobs))))
    futures: list[Future[dict[str, Any] | None]] = [
        executor.submit(play_job, plan, job, make_policy, config) for job in jobs
    ]
    try:
        deliver(futures, on_record)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
