"""Every officegym env over the OpenEnv protocol (``openenv-core`` 0.3): ``officegym serve ENV_ID``.

OpenEnv serves an environment with FastAPI: a WebSocket at ``/ws`` where every connection is its own session
(``reset``, ``step``, ``state`` and ``close`` messages), plus stateless HTTP ``/reset`` and ``/step`` (each
request on a fresh env, as OpenEnv 0.3 defines them), ``/state``, ``/schema``, ``/metadata`` and ``/health``.
This module gives OpenEnv what it needs to serve any registered officegym env id with its own server
(``HTTPEnvServer``), so OpenEnv's clients (``GenericEnvClient``, ``EnvClient`` subclasses) work unchanged:

- **Action** ``OfficeGymAction``: one tool call ``{"name": ..., "arguments": {...}}``. Anything may be sent in
  these fields; the env judges it, so a bad call is an ``Error: ...`` observation, as it is locally, and never
  an OpenEnv validation error.
- **Observation** ``OfficeGymObservation``: ``text`` (the work order after reset, then each tool's result),
  ``done``, ``reward``, ``grade`` (``info["grade"]`` on the episode's last step, else null), ``truncated``
  and ``info`` (the rest of the env's info: the system prompt, the tool schemas, the task and its tier after
  reset; the turn and ``is_error`` after a step).
- **Reset** takes ``task_id`` and ``seed`` (and OpenEnv's ``episode_id``); **state** reports the session's
  env id, task, seed, step count, last reward and grade.

Concurrency: officegym envs are not thread-safe, so every session owns one env instance, and every reset and
step of every session runs on the server's event loop thread, one call at a time (``OfficeGymEnvironment``
says why); ``state`` reads a snapshot published after each call, never the env. Sessions share nothing. The
stateless HTTP ``/reset`` and ``/step`` make a fresh env per request.

Nothing here imports OpenEnv until it is used: this module must import without the extra (the test suite
imports every module of the package), and OpenEnv's own imports (Gradio, FastMCP) take seconds. The OpenEnv
classes are therefore built on first use (``openenv_types()``) and reachable as module attributes
(``from officegym.integrations.openenv import OfficeGymClient``).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from ..envs.core.tool_env import ToolEnv
from .optional import import_optional, install_hint

if TYPE_CHECKING:
    from fastapi import FastAPI

EXTRA = install_hint("openenv")
DEFAULT_MAX_SESSIONS = 256
RESET_PARAMETERS = ("seed", "task_id", "episode_id")
NO_EPISODE = "Error: no episode has started in this session; send reset (with task_id and seed if wanted) first."


def require(module: str) -> Any:
    """Import a module of the extra, or fail with the one command that installs it."""
    return import_optional(module, "officegym's OpenEnv server needs openenv-core 0.3", "openenv")


# --------------------------------------------------------------------------- one session, without OpenEnv
@dataclass(frozen=True)
class Turn:
    """One observation as plain data: what ``reset`` or ``step`` answered, before it becomes OpenEnv's model."""

    text: str
    reward: float | None
    done: bool
    truncated: bool = False
    grade: dict[str, Any] | None = None
    info: dict[str, Any] = field(default_factory=dict)


def make_env(env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> gym.Env[Any, Any]:
    """``gym.make`` for a registered officegym env id; refuses ids that are not tool envs, because the
    protocol below is the tool-call contract of ``ToolEnv``."""
    if env_id not in gym.registry:
        from .. import ENV_IDS

        raise ValueError(f"unknown env id {env_id!r}; officegym serves {', '.join(ENV_IDS)}")
    env = gym.make(env_id, **dict(env_kwargs or {}))
    if not isinstance(env.unwrapped, ToolEnv):
        env.close()
        raise ValueError(f"{env_id} is not an officegym tool env; only tool envs speak this protocol")
    return env


def check_reset(seed: Any, task_id: Any, episode_id: Any, unknown: Mapping[str, Any]) -> None:
    """Refuse what ``reset`` would otherwise ignore or misread: a remote trainer with a typo in a parameter
    name must hear of it, not play random tasks."""
    if unknown:
        raise ValueError(
            f"unknown reset parameter(s): {', '.join(sorted(unknown))}; officegym takes {', '.join(RESET_PARAMETERS)}"
        )
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or null, got {seed!r}")
    for name, value in (("task_id", task_id), ("episode_id", episode_id)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name} must be a string or null, got {type(value).__name__}")


class OfficeSession:
    """One officegym env behind one OpenEnv session.

    Plain Python and OpenEnv-free, so the protocol's meaning is testable on its own. Not thread-safe, like the
    env it owns: one call at a time (the server makes every call from its event loop thread). ``snapshot()``
    may be read from any thread at any time: it returns a dict that is replaced, never changed, after each call.
    """

    def __init__(self, env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> None:
        self.env_id = env_id
        self.env = make_env(env_id, env_kwargs)
        self._started = False
        self._snapshot: dict[str, Any] = {"episode_id": None, "step_count": 0, "env_id": env_id, "done": True}

    def reset(self, seed: Any = None, task_id: Any = None, episode_id: Any = None, **unknown: Any) -> Turn:
        """Start an episode on ``task_id`` (or a task drawn with ``seed``), as ``env.reset`` does."""
        check_reset(seed, task_id, episode_id, unknown)
        text, info = self.env.reset(seed=seed, options=None if task_id is None else {"task_id": task_id})
        self._started = True
        self._snapshot = {
            "episode_id": episode_id or uuid.uuid4().hex,
            "step_count": 0,
            "env_id": self.env_id,
            "task_id": info.get("task_id"),
            "seed": seed,
            "done": False,
            "reward": None,
            "grade": None,
        }
        return Turn(text=text, reward=None, done=False, info=dict(info))

    def step(self, action: Any) -> Turn:
        """One tool call; the grade moves from the env's info into its own field."""
        if not self._started:  # Gymnasium's order check would raise; a remote agent gets the env's kind of answer
            return Turn(text=NO_EPISODE, reward=0.0, done=True, info={"turn": 0, "is_error": True})
        text, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        grade = info.pop("grade", None)
        done = bool(terminated or truncated)
        self._publish(reward=float(reward), done=done, grade=grade)
        return Turn(text=text, reward=float(reward), done=done, truncated=bool(truncated), grade=grade, info=info)

    def _publish(self, reward: float, done: bool, grade: dict[str, Any] | None) -> None:
        """Count the step; until the episode has ended, also record its reward, end and grade (the ``Error:``
        answers to steps after the end leave the episode's result as it was). A new dict, swapped in whole, so a
        reader on another thread sees the state before or after the step, never half of it."""
        snapshot = {**self._snapshot, "step_count": int(self._snapshot["step_count"]) + 1}
        if not self._snapshot["done"]:
            snapshot.update(reward=reward, done=done, grade=grade)
        self._snapshot = snapshot

    def snapshot(self) -> dict[str, Any]:
        """The session's state for OpenEnv's ``state``: what is known without touching the env."""
        return self._snapshot

    def close(self) -> None:
        self.env.close()


# --------------------------------------------------------------------------- the OpenEnv classes, built lazily
@dataclass(frozen=True)
class OpenEnvTypes:
    """The OpenEnv classes for officegym (see the module docstring for why they are built on first use)."""

    action: type[Any]
    observation: type[Any]
    state: type[Any]
    environment: type[Any]
    client: type[Any]


@functools.cache
def openenv_types() -> OpenEnvTypes:
    """Build the OpenEnv classes once per process (an ImportError naming the extra if OpenEnv is missing).
    Each builder imports OpenEnv itself; OpenEnv ships no type information, hence the ``type: ignore[misc]``
    on every class that subclasses one of its classes."""
    require("openenv")
    action = _action_model()
    observation = _observation_model()
    state = _state_model()
    environment = _environment_class(observation, state)
    client = _client_class(action, observation, state)
    return OpenEnvTypes(action, observation, state, environment, client)


def _action_model() -> type[Any]:
    from openenv.core.env_server.types import Action
    from pydantic import ConfigDict, Field

    class OfficeGymAction(Action):  # type: ignore[misc]
        """One officegym tool call. The fields take any JSON value and extra keys are kept: the env checks the
        call exactly as sent, so a malformed one becomes an ``Error: ...`` observation (as it does locally),
        not an OpenEnv validation error."""

        model_config = ConfigDict(extra="allow", validate_assignment=True)
        name: Any = Field(default=None, description="the tool to call", json_schema_extra={"type": "string"})
        arguments: Any = Field(
            default_factory=dict, description="the tool's arguments", json_schema_extra={"type": "object"}
        )

        def tool_call(self) -> dict[str, Any]:
            """The call as the client sent it: no default filled in, extra keys kept, OpenEnv's metadata off."""
            call: dict[str, Any] = self.model_dump(exclude_unset=True, exclude={"metadata"})
            return call

    return OfficeGymAction


def _observation_model() -> type[Any]:
    from openenv.core.env_server.types import Observation
    from pydantic import Field

    class OfficeGymObservation(Observation):  # type: ignore[misc]
        """What officegym answers, plus ``done`` and ``reward``. The grade has its own field because OpenEnv
        does not send an observation's ``metadata`` to clients."""

        text: str = Field(default="", description="the work order after reset, then each tool's result")
        grade: dict[str, Any] | None = Field(
            default=None, description="info['grade'] on the episode's last step: reward, components, diagnostics"
        )
        truncated: bool = Field(default=False, description="cut off by max_turns (done is true too)")
        info: dict[str, Any] = Field(
            default_factory=dict,
            description="the env's info without the grade: system_prompt, tools, task_id, tier after reset; "
            "turn and is_error after a step",
        )

    return OfficeGymObservation


def _state_model() -> type[Any]:
    from openenv.core.env_server.types import State

    class OfficeGymState(State):  # type: ignore[misc]
        """The session's episode: OpenEnv's ``episode_id`` and ``step_count`` plus what officegym knows."""

        env_id: str = ""
        task_id: str | None = None
        seed: int | None = None
        done: bool = True
        reward: float | None = None
        grade: dict[str, Any] | None = None

    return OfficeGymState


def _environment_class(observation: type[Any], state: type[Any]) -> type[Any]:
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import EnvironmentMetadata

    from .. import __version__

    def to_observation(turn: Turn) -> Any:
        fields = {"text": turn.text, "reward": turn.reward, "done": turn.done, "truncated": turn.truncated}
        return observation(**fields, grade=turn.grade, info=turn.info)

    class OfficeGymEnvironment(Environment):  # type: ignore[misc]
        """OpenEnv's ``Environment`` over one ``OfficeSession``.

        Concurrency-safe because every session has its own instance (its own books). Threads: ``reset_async``
        and ``step_async`` do the work directly, so OpenEnv runs every reset and step on the server's event
        loop thread, one call at a time, and no thread ever enters an env another is in. A step takes
        microseconds (grading the longest task under a millisecond), so handing it to a worker thread costs
        more than the step: under 80 concurrent sessions, a worker thread per session halved the throughput
        and one shared worker still cost a quarter of it (``benchmarks/openenv_load.py``). Making and
        closing envs runs on one shared worker thread (``REQUIRES_SINGLE_THREAD_EXECUTOR``), not a new
        thread per session. A domain with slow tools would hold up every session and should drop the two
        ``*_async`` methods to get OpenEnv's worker thread back.
        """

        SUPPORTS_CONCURRENT_SESSIONS = True
        REQUIRES_SINGLE_THREAD_EXECUTOR = True

        def __init__(self, env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> None:
            super().__init__()
            self.session = OfficeSession(env_id, env_kwargs)

        def reset(self, seed: Any = None, episode_id: Any = None, task_id: Any = None, **unknown: Any) -> Any:
            return to_observation(self.session.reset(seed=seed, task_id=task_id, episode_id=episode_id, **unknown))

        def step(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Any:
            """``timeout_s`` and HTTP's ``request_id`` are accepted and unused: a step takes microseconds."""
            return to_observation(self.session.step(action.tool_call()))

        async def reset_async(
            self, seed: Any = None, episode_id: Any = None, task_id: Any = None, **unknown: Any
        ) -> Any:
            """``reset`` itself, on the event loop thread (see the class docstring)."""
            return self.reset(seed=seed, episode_id=episode_id, task_id=task_id, **unknown)

        async def step_async(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Any:
            """``step`` itself, on the event loop thread (see the class docstring)."""
            return self.step(action, timeout_s=timeout_s, **kwargs)

        @property
        def state(self) -> Any:
            return state(**self.session.snapshot())

        def get_metadata(self) -> Any:
            """The env id, and the first paragraph of the env class's docstring as the description."""
            doc = (type(self.session.env.unwrapped).__doc__ or "").strip().split("\n\n")[0]
            return EnvironmentMetadata(name=self.session.env_id, description=" ".join(doc.split()), version=__version__)

        def close(self) -> None:
            self.session.close()

    return OfficeGymEnvironment


def _client_class(action: type[Any], observation: type[Any], state: type[Any]) -> type[Any]:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient

    class OfficeGymClient(EnvClient):  # type: ignore[misc]
        """OpenEnv's ``EnvClient`` with officegym's types: async, one server session per client; ``.sync()``
        gives the blocking wrapper. Takes ``OfficeGymAction`` or a plain ``{"name", "arguments"}`` dict."""

        def _step_payload(self, call: Any) -> dict[str, Any]:
            return call.tool_call() if isinstance(call, action) else dict(call)

        def _parse_result(self, payload: dict[str, Any]) -> Any:
            done, reward = payload.get("done", False), payload.get("reward")
            obs = observation.model_validate({**payload.get("observation", {}), "done": done, "reward": reward})
            return StepResult(observation=obs, reward=reward, done=done)

        def _parse_state(self, payload: dict[str, Any]) -> Any:
            return state.model_validate(payload)

    return OfficeGymClient


_LAZY = {
    "OfficeGymAction": "action",
    "OfficeGymObservation": "observation",
    "OfficeGymState": "state",
    "OfficeGymEnvironment": "environment",
    "OfficeGymClient": "client",
}


def __getattr__(name: str) -> Any:
    """``OfficeGymClient`` and the other OpenEnv classes, built when first asked for."""
    if name in _LAZY:
        return getattr(openenv_types(), _LAZY[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- the app
def environment_factory(env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> Callable[[], Any]:
    """What OpenEnv calls once per session (and per stateless HTTP request). A ``partial`` of the class, so
    OpenEnv reads ``SUPPORTS_CONCURRENT_SESSIONS`` from the class instead of making a throwaway env."""
    environment: Callable[..., Any] = openenv_types().environment
    return functools.partial(environment, env_id, dict(env_kwargs or {}))


def create_app(
    env_id: str,
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    session_timeout: float | None = None,
) -> FastAPI:
    """The FastAPI app OpenEnv's ``HTTPEnvServer`` builds for ``env_id``, each WebSocket session with its own env.

    One env is made and closed first, so a bad id or bad ``env_kwargs`` fails here, with the env's own
    message, instead of in every session. ``session_timeout`` closes sessions idle that many seconds.
    """
    types = openenv_types()
    make_env(env_id, env_kwargs).close()
    require("fastapi")
    from openenv.core.env_server.http_server import create_fastapi_app
    from openenv.core.env_server.types import ConcurrencyConfig

    config = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=session_timeout)
    app: FastAPI = create_fastapi_app(
        environment_factory(env_id, env_kwargs), types.action, types.observation, concurrency_config=config
    )
    app.title = f"officegym {env_id} (OpenEnv)"
    app.add_middleware(QuietClientClose)
    return app


class QuietClientClose:
    """ASGI middleware: a WebSocket client that hangs up first ends its session normally.

    OpenEnv 0.3 closes the socket after every session, after the session's env is closed; when the client has
    already gone (``EnvClient.close`` sends ``close`` and hangs up), Starlette raises ``WebSocketDisconnect``
    there and uvicorn logs it as an error with a traceback, once per session. Only that is caught.
    """

    def __init__(self, app: Any) -> None:
        from starlette.websockets import WebSocketDisconnect

        self.app = app
        self.disconnect = WebSocketDisconnect

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        try:
            await self.app(scope, receive, send)
        except self.disconnect:
            if scope["type"] != "websocket":
                raise
