"""``BatchedVectorEnv``: several envs per worker process, stepped in one round trip per worker.

Gymnasium's ``AsyncVectorEnv`` runs one process per env and exchanges one message per env per step. officegym's
steps take a few microseconds, so there the pipes, the pickling and the wake-ups of many sleeping processes cost
more than the envs themselves (README, "Speed and scale": async is several times slower than sync). Here each
worker hosts ``envs_per_worker`` envs, as EnvPool-style stacks do: one message carries a worker's slice of the
actions, one reply carries its slice of the results, and a machine with two cores runs two busy workers instead
of many idle ones. By default (``parent_slice=True``) the calling process hosts the first slice itself: it sends
the workers their slices, steps its own while they step theirs, then collects their replies, so it does work
instead of waiting (with 64 envs on two cores: one worker process, and the caller as the second host).

Waiting sides poll their pipe for up to ``spin_us`` (default 200 µs) before they sleep: on a virtual machine a
sleeping process takes tens of microseconds to wake, which at 64 envs cost more than half of the batched mode's
gain (see ``_await``).

The semantics are those of ``SyncVectorEnv`` with ``autoreset_mode=SAME_STEP``, and the results are identical
for the same seeds and actions (``tests/test_batched_vector.py`` checks it): a worker steps its envs exactly as
``SyncVectorEnv.step`` does and sends their infos back as they are; the caller renumbers them to vector indices and
builds the vector info from the same sequence of infos the sync vector env folds, with ``batch_infos`` (in one
pass for a steady step) or ``info_fold.fold`` (Gymnasium's ``_add_info`` fold without its wasted allocations).

Workers are started with ``spawn`` (or ``forkserver``), never ``fork``: the parent may hold threads (an LLM
client's, a web server's), and a forked child inherits their locks held. Any error in a worker is re-raised in
the caller, with the worker's traceback as a note, after the whole vector env has been closed; ``close()``,
garbage collection and interpreter exit all end every worker.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import pickle
import time
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.envs.registration import EnvSpec
from gymnasium.error import ClosedEnvironmentError
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, iterate

from .batched_infos import vector_info
from .sendable import sendable
from .sendable_calls import SendableCalls

CONTEXTS = ("spawn", "forkserver")
CLOSE_TIMEOUT_S = 5.0
DEFAULT_SPIN_US = 200  # covers the caller's own work between two steps of a vector env of 64 envs
MAX_SPIN_US = 100_000


def default_envs_per_worker(num_envs: int) -> int:
    """One worker per core: more workers than cores only adds wake-ups and context switches."""
    return math.ceil(num_envs / (os.cpu_count() or 1))


def worker_slices(num_envs: int, envs_per_worker: int) -> list[range]:
    """The env indices of each worker: consecutive blocks of ``envs_per_worker``, the last one possibly shorter."""
    return [range(start, min(start + envs_per_worker, num_envs)) for start in range(0, num_envs, envs_per_worker)]


class _Host:
    """A slice's envs, reset and stepped exactly as ``SyncVectorEnv`` resets and steps its own. Their infos go
    back as they are, ``(index in the slice, info)`` in the order the sync vector env would fold them: small
    dicts pickle several times faster than the numpy arrays of a vector info, and the caller builds the whole
    vector info in one pass instead of building one per slice and splicing them."""

    def __init__(self, spec: EnvSpec, env_kwargs: dict[str, Any], count: int) -> None:
        self.envs = [gym.make(spec, **env_kwargs) for _ in range(count)]
        self.obs: list[Any] = [None] * count

    def spaces(self) -> dict[str, Any]:
        env = self.envs[0]
        return {
            "observation": env.observation_space,
            "action": env.action_space,
            "metadata": dict(env.metadata),
            "render_mode": env.render_mode,
        }

    def reset(self, seeds: list[int | None], options: dict[str, Any] | None, mask: list[bool] | None) -> Any:
        calls: list[tuple[int, dict[str, Any]]] = []
        for i, env in enumerate(self.envs):
            if mask is None or mask[i]:
                self.obs[i], info = env.reset(seed=seeds[i], options=options)
                calls.append((i, info))
        return list(self.obs), calls

    def step(self, actions: list[Any]) -> Any:
        calls: list[tuple[int, dict[str, Any]]] = []
        rewards, terminations, truncations = [], [], []
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                calls.append((i, {"final_obs": obs, "final_info": info}))
                obs, info = env.reset()
            calls.append((i, info))
            self.obs[i] = obs
            rewards.append(reward)
            terminations.append(terminated)
            truncations.append(truncated)
        return list(self.obs), rewards, terminations, truncations, calls

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        results = []
        for env in self.envs:
            function = env.get_wrapper_attr(name)
            results.append(function(*args, **kwargs) if callable(function) else function)
        return results

    def set_attr(self, name: str, values: list[Any]) -> None:
        for env, value in zip(self.envs, values, strict=True):
            env.set_wrapper_attr(name, value)

    def handle(self, command: str, payload: Any) -> Any:
        if command == "step":
            return self.step(payload)
        if command == "reset":
            return self.reset(*payload)
        if command == "call":
            return self.call(*payload)
        if command == "set_attr":
            return self.set_attr(*payload)
        raise ValueError(f"unknown command {command!r}")

    def close(self) -> None:
        for env in self.envs:
            env.close()


def _await(conn: Connection, spin_s: float) -> None:
    """Poll ``conn`` for up to ``spin_s`` seconds before the caller blocks on it.

    A blocked process sleeps, and on a virtual machine a sleeping CPU is halted: waking it costs tens of
    microseconds, as long as stepping several envs (measured on the 2-core machine: with both sides blocking, a
    64-env step ran at 1.0x the sync vector env; polling first, at 1.6x). Polling is bounded, so between steps
    that are far apart (a policy's forward pass) a worker burns at most ``spin_s`` of a core, then sleeps."""
    if spin_s <= 0:
        return
    end = time.perf_counter() + spin_s
    while not conn.poll(0) and time.perf_counter() < end:
        pass


def _send(conn: Connection, message: Any) -> None:
    """``pickle`` itself (C, highest protocol): ``Connection.send``'s Python-level pickler costs more per message."""
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def _message(command: str, payload: Any) -> bytes:
    """A command's bytes. A step's actions go as ``sendable`` makes them (an action that does not pickle and
    unpickle as its twin, which the env answers as it answers the original); any other payload that does not
    pickle is refused here, before anything is sent, so the vector env stays usable."""
    if command == "step":  # sendable() costs a type check for the usual flat call
        return pickle.dumps((command, [sendable(action) for action in payload]), protocol=pickle.HIGHEST_PROTOCOL)
    try:
        return pickle.dumps((command, payload), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        raise TypeError(
            f"the arguments of {command}() cannot be sent to a batched worker ({type(error).__name__}: "
            f"{str(error)[:200]}); pass plain picklable values (nothing was sent)"
        ) from error


def _recv(conn: Connection, spin_s: float) -> Any:
    _await(conn, spin_s)
    return pickle.loads(conn.recv_bytes())


def _portable(error: BaseException) -> tuple[BaseException, str]:
    """The error itself if it survives pickling (so the caller can catch its type), else a RuntimeError."""
    trace = traceback.format_exc()
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}"), trace
    return error, trace


def _worker(conn: Connection, spec: EnvSpec, env_kwargs: dict[str, Any], count: int, spin_s: float) -> None:
    """A worker's loop: one command in, one reply out (``("ok", result)`` or ``("error", (error, trace))``).
    It ends on ``close``, or when the parent's end of the pipe goes away (the parent died)."""
    try:
        host = _Host(spec, env_kwargs, count)
        _send(conn, ("ok", host.spaces()))
    except Exception as error:
        _send(conn, ("error", _portable(error)))
        return
    try:
        while True:
            command, payload = _recv(conn, spin_s)
            if command == "close":
                break
            try:
                _send(conn, ("ok", host.handle(command, payload)))
            except Exception as error:
                _send(conn, ("error", _portable(error)))
    except (EOFError, OSError, KeyboardInterrupt):
        pass
    finally:
        host.close()
        conn.close()


class BatchedVectorEnv(VectorEnv[Any, Any, Any]):
    """A vector env whose workers each host several envs (see the module docstring)."""

    def __init__(
        self,
        env_id: str | EnvSpec,
        num_envs: int,
        envs_per_worker: int | None = None,
        context: str = "spawn",
        parent_slice: bool = True,
        spin_us: int = DEFAULT_SPIN_US,
        **env_kwargs: Any,
    ) -> None:
        if not 0 <= spin_us <= MAX_SPIN_US:
            raise ValueError(f"spin_us must be between 0 and {MAX_SPIN_US}, got {spin_us}")
        self._spin_s = spin_us / 1e6
        self._pipes: list[Connection] = []
        self._processes: list[BaseProcess] = []
        self._local: _Host | None = None
        if context not in CONTEXTS:
            raise ValueError(f"context must be one of {CONTEXTS} (not 'fork': the parent may hold threads)")
        self.num_envs = num_envs
        self.envs_per_worker = envs_per_worker or default_envs_per_worker(num_envs)
        self.slices = worker_slices(num_envs, self.envs_per_worker)
        self.autoreset_mode = AutoresetMode.SAME_STEP
        spec = env_id if isinstance(env_id, EnvSpec) else gym.spec(env_id)
        local = parent_slice and len(self.slices) > 1
        self._remote = self.slices[1:] if local else list(self.slices)
        self._start_workers(multiprocessing.get_context(context), spec, env_kwargs)
        spaces = self._gather()
        if local:
            self._local = self._host_here(spec, env_kwargs)
            spaces.insert(0, self._local.spaces())
        self._adopt_spaces(spaces)

    def _host_here(self, spec: EnvSpec, env_kwargs: dict[str, Any]) -> _Host:
        """The first slice's envs, in this process: while the workers step theirs, this process steps its own
        instead of waiting idle, so two cores run two busy hosts (with ``parent_slice=False``, a worker of its
        own). An error making them closes the workers first."""
        try:
            return _Host(spec, env_kwargs, len(self.slices[0]))
        except BaseException:
            self.close()
            raise

    def _start_workers(self, ctx: Any, spec: EnvSpec, env_kwargs: dict[str, Any]) -> None:
        """The spec travels to the workers, so ids registered only in the parent (a benchmark's) work too."""
        for number, indices in enumerate(self._remote):
            parent, child = ctx.Pipe()
            process = ctx.Process(
                target=_worker,
                args=(child, spec, env_kwargs, len(indices), self._spin_s),
                name=f"officegym-batched-{number}",
                daemon=True,  # ended by multiprocessing at interpreter exit even if close() never runs
            )
            process.start()
            child.close()
            self._pipes.append(parent)
            self._processes.append(process)

    def _adopt_spaces(self, replies: list[dict[str, Any]]) -> None:
        first = replies[0]
        for reply in replies[1:]:
            if reply["observation"] != first["observation"] or reply["action"] != first["action"]:
                self.close()
                raise RuntimeError("the workers' envs do not share one observation and action space")
        self.single_observation_space = first["observation"]
        self.single_action_space = first["action"]
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {**first["metadata"], "autoreset_mode": self.autoreset_mode}
        self.render_mode = first["render_mode"]
        self._observations: Any = None

    @property
    def processes(self) -> list[BaseProcess]:
        """The worker processes (tests check that ``close()`` ends them)."""
        return list(self._processes)

    def _send(self, command: str, payloads: Sequence[Any]) -> None:
        """Every worker's message is pickled before the first is sent: a payload that does not pickle must not
        leave some workers a step ahead of the others (their replies would then answer the next step)."""
        if self.closed:
            raise ClosedEnvironmentError("this BatchedVectorEnv is closed")
        messages = [_message(command, payload) for payload in payloads]
        try:
            for pipe, message in zip(self._pipes, messages, strict=True):
                pipe.send_bytes(message)
        except (OSError, ValueError) as error:
            self.close(terminate=True)
            raise RuntimeError("a batched worker is gone; the vector env has been closed") from error

    def _gather(self) -> list[Any]:
        """One reply from every worker, always all of them (so no pipe is left holding a stale reply); on any
        error the vector env is closed and the first worker error is raised."""
        results: list[Any] = []
        failure: BaseException | None = None
        for number, pipe in enumerate(self._pipes):
            try:
                status, result = _recv(pipe, self._spin_s)
            except (EOFError, OSError) as lost:
                if failure is None:
                    failure = RuntimeError(f"batched worker {number} died (exit code {self._exitcode(number)})")
                    failure.__cause__ = lost
                continue
            if status == "error":
                worker_error, trace = result
                worker_error.add_note(f"raised in batched worker {number} (envs {self._span(number)}):\n{trace}")
                failure = failure or worker_error
            results.append(result)
        if failure is not None:
            self.close()
            raise failure
        return results

    def _exitcode(self, number: int) -> int | None:
        self._processes[number].join(timeout=1.0)
        return self._processes[number].exitcode

    def _span(self, number: int) -> str:
        indices = self._remote[number]
        return f"{indices.start} to {indices.stop - 1}"

    def _exchange(self, command: str, payloads: Sequence[Any]) -> list[Any]:
        """One reply per slice, in env order: the workers' requests go out first, then this process runs its own
        slice, then the workers' replies come in. Any error closes the whole vector env and is raised (the first
        slice's error first, so errors come in env order as in the sync vector env)."""
        if self._local is None:
            self._send(command, payloads)
            return self._gather()
        self._send(command, payloads[1:])
        try:
            local = self._local.handle(command, payloads[0])
        except Exception as error:
            error.add_note(f"raised in the parent's own envs (envs {self._own_span()})")
            with contextlib.suppress(Exception):
                self._gather()
            self.close()
            raise
        return [local, *self._gather()]

    def _own_span(self) -> str:
        return f"{self.slices[0].start} to {self.slices[0].stop - 1}"

    def _split(self, values: Sequence[Any]) -> list[list[Any]]:
        return [list(values[indices.start : indices.stop]) for indices in self.slices]

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """As ``SyncVectorEnv.reset``: env ``i`` gets ``seed + i`` (or ``seed[i]``), every env the same options,
        and ``options["reset_mask"]`` resets only the envs it marks."""
        seeds = _seeds(seed, self.num_envs)
        mask = None
        if options is not None and "reset_mask" in options:
            options = dict(options)
            mask = _checked_mask(options.pop("reset_mask"), self.num_envs)
        masks = self._split(mask.tolist()) if mask is not None else [None] * len(self.slices)
        payloads = [(s, options, m) for s, m in zip(self._split(seeds), masks, strict=True)]
        replies = self._exchange("reset", payloads)
        infos = self._vector_info([calls for _, calls in replies])
        return self._batch_obs([obs for slice_obs, _ in replies for obs in slice_obs]), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One message to each worker with its slice of ``actions``, one reply back; SAME_STEP autoreset."""
        action_list = _split_actions(self.action_space, actions, self.num_envs)
        replies = self._exchange("step", self._split(action_list))
        obs = [o for reply in replies for o in reply[0]]
        rewards = np.array([r for reply in replies for r in reply[1]], dtype=np.float64)
        terminations = np.array([t for reply in replies for t in reply[2]], dtype=np.bool_)
        truncations = np.array([t for reply in replies for t in reply[3]], dtype=np.bool_)
        return self._batch_obs(obs), rewards, terminations, truncations, self._vector_info([r[4] for r in replies])

    def _vector_info(self, slice_calls: list[list[tuple[int, dict[str, Any]]]]) -> dict[str, Any]:
        """The slices' env infos renumbered to vector indices, in env order: the very sequence the sync vector
        env folds, so the vector info is the same by construction."""
        calls = [
            (indices.start + index, info)
            for indices, slice_infos in zip(self.slices, slice_calls, strict=True)
            for index, info in slice_infos
        ]
        return vector_info(calls, self.num_envs)

    def _batch_obs(self, obs: list[Any]) -> Any:
        self._observations = concatenate(self.single_observation_space, obs, self._observations)
        return self._observations

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls a method of (or reads an attribute of) every sub-env, as ``SyncVectorEnv.call`` does."""
        replies = self._exchange("call", [(name, args, kwargs)] * len(self.slices))
        return tuple(result for results in replies for result in results)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        return self.call(name)

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        if not isinstance(values, list | tuple):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(
                f"Values must be a list or tuple with length equal to the number of environments ({self.num_envs})"
            )
        self._exchange("set_attr", [(name, part) for part in self._split(values)])

    def render(self) -> tuple[Any, ...] | None:
        return self.call("render")

    def close_extras(self, terminate: bool = False, **kwargs: Any) -> None:
        """Asks every worker to close its envs and exit, waits for it, and terminates whatever does not
        (at once with ``terminate=True``, as ``AsyncVectorEnv.close(terminate=True)``)."""
        self.closed = True  # a failure below must not send close() round again from __del__
        if self._local is not None:
            with contextlib.suppress(Exception):
                self._local.close()
        for pipe in [] if terminate else self._pipes:
            with contextlib.suppress(OSError, ValueError):
                _send(pipe, ("close", None))
        for pipe, process in zip(self._pipes, self._processes, strict=True):
            process.join(timeout=0 if terminate else CLOSE_TIMEOUT_S)
            if process.is_alive():
                process.terminate()
                process.join()
            pipe.close()
        self._pipes, self._processes = [], []


def _split_actions(space: Any, actions: Any, num_envs: int) -> list[Any]:
    """The batch as one action per env. Tool calls are split without ``SendableCalls``' check: this process
    steps its own slice without pickling it, and ``_message`` checks the workers' slices."""
    if isinstance(space, SendableCalls) and isinstance(actions, list | tuple):
        action_list = list(actions)
    else:
        action_list = list(iterate(space, actions))
    if len(action_list) != num_envs:
        raise ValueError(f"expected {num_envs} actions, got {len(action_list)}")
    return action_list


def _seeds(seed: int | list[int | None] | None, num_envs: int) -> list[int | None]:
    """SyncVectorEnv's seeding: ``None`` for all, ``seed + i`` for env ``i``, or one seed per env."""
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, int):
        return [seed + i for i in range(num_envs)]
    if len(seed) != num_envs:
        raise ValueError(f"If seeds are passed as a list the length must match num_envs={num_envs}, got {len(seed)}")
    return list(seed)


def _checked_mask(mask: Any, num_envs: int) -> np.ndarray:
    """The checks ``SyncVectorEnv`` makes on ``options["reset_mask"]``."""
    if not isinstance(mask, np.ndarray) or mask.shape != (num_envs,) or mask.dtype != np.bool_ or not mask.any():
        raise ValueError(f"options['reset_mask'] must be a bool numpy array of shape ({num_envs},) with a True")
    return mask
