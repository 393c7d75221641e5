"""Every officegym env over the OpenEnv protocol (``openenv-core`` 0.3): ``officegym serve ENV_ID``.

OpenEnv serves an environment with FastAPI: a WebSocket at ``/ws`` where every connection is its own session
(``reset``, ``step``, ``state`` and ``close`` messages), MCP JSON-RPC at ``/mcp`` (HTTP POST and a WebSocket),
plus stateless HTTP ``/reset`` and ``/step`` (each request on a fresh env, as OpenEnv 0.3 defines them),
``/state``, ``/schema``, ``/metadata`` and ``/health``. This module gives OpenEnv what it needs to serve any
registered officegym env id with its own server (``HTTPEnvServer``), so OpenEnv's clients (``GenericEnvClient``,
``MCPToolClient``, ``EnvClient`` subclasses) work unchanged:

- **Action** ``OfficeGymAction``: one tool call ``{"name": ..., "arguments": {...}}``. Anything may be sent in
  these fields; the env judges it, so a bad call is an ``Error: ...`` observation, as it is locally, and never
  an OpenEnv validation error. Beside it, OpenEnv's MCP actions ``{"type": "list_tools"}`` and ``{"type":
  "call_tool", "tool_name", "arguments"}`` (what ``MCPToolClient`` sends) reach the env's tools as an MCP server
  (``openenv_mcp.py``: the tools are made from the env's ``tool_schemas``, with no code per domain).
- **Observation** ``OfficeGymObservation``: ``text`` (the work order after reset, then each tool's result),
  ``done``, ``reward``, ``grade`` (``info["grade"]`` on the episode's last step, else null), ``truncated``
  and ``info`` (the rest of the env's info: the system prompt, the tool schemas, the task and its tier after
  reset; the turn and ``is_error`` after a step). An MCP tool call answers ``OfficeGymToolObservation``: OpenEnv's
  ``CallToolObservation`` (``tool_name``, ``result``) with the same ``text``, ``grade``, ``truncated``, ``info``.
- **Reset** takes ``task_id`` and ``seed`` (and OpenEnv's ``episode_id``) for a task of the server's world, or a
  task row of ``officegym.splits`` (its ``env_kwargs`` and ``task_id``, flat or as ``row=``) for exactly that
  row's world; ``openenv_session.py`` says what a reset names. **State** reports the session's env id, world
  (``env_kwargs``), task, seed, step count, last reward and grade.

Concurrency: officegym envs are not thread-safe, so every session owns one env instance, and every reset and
step of every session runs on the server's event loop thread, one call at a time (``OfficeGymEnvironment``
says why); ``state`` reads a snapshot published after each call, never the env. Sessions share nothing. Making
the env of a new world (a reset with another row's ``env_kwargs``) runs on one worker thread, since generating a
company takes seconds to minutes the first time. The stateless HTTP ``/reset`` and ``/step`` make a fresh env
per request.

Nothing here imports OpenEnv until it is used: this module must import without the extra (the test suite
imports every module of the package), and OpenEnv's own imports (Gradio, FastMCP) take seconds. The OpenEnv
classes are therefore built on first use (``openenv_types()``) and reachable as module attributes
(``from officegym.integrations.openenv import OfficeGymClient``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import warnings
from collections.abc import AsyncIterator, Callable, Mapping, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .openenv_mcp import LazyClient, env_call, result_payload, tool_server, tool_specs, turn_of
from .openenv_session import NO_EPISODE, RESET_PARAMETERS, OfficeSession, Turn, make_env
from .optional import import_optional, install_hint
from .server_access import AccessGuard
from .server_body import BodyLimit
from .server_budget import BudgetGuard, ClientBudgets
from .server_connections import PeerContext
from .server_errors import ErrorShield, RpcErrorClip, install_error_handlers
from .server_frames import FrameGuard
from .server_limits import ServerLimits, token_from
from .server_sessions import ReapedNotice, guarded_server_class

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["NO_EPISODE", "RESET_PARAMETERS", "OfficeSession", "Turn", "create_app", "make_env", "openenv_types"]
EXTRA = install_hint("openenv")
DEFAULT_MAX_SESSIONS = 256
MCP_ACTIONS = ("list_tools", "call_tool")


def require(module: str) -> Any:
    """Import a module of the extra, or fail with the one command that installs it."""
    return import_optional(module, "officegym's OpenEnv server needs openenv-core 0.3", "openenv")


# --------------------------------------------------------------------------- the OpenEnv classes, built lazily
@dataclass(frozen=True)
class OpenEnvTypes:
    """The OpenEnv classes for officegym (see the module docstring for why they are built on first use)."""

    action: type[Any]
    observation: type[Any]
    tool_observation: type[Any]
    state: type[Any]
    environment: type[Any]
    client: type[Any]
    tool_client: type[Any]


@functools.cache
def openenv_types() -> OpenEnvTypes:
    """Build the OpenEnv classes once per process (an ImportError naming the extra if OpenEnv is missing).
    Each builder imports OpenEnv itself; OpenEnv ships no type information, hence the ``type: ignore[misc]``
    on every class that subclasses one of its classes."""
    require("openenv")
    require("fastmcp")
    # OpenEnv 0.3 reads FastMCP 4's renamed Tool.inputSchema on every list_tools (its own compatibility check);
    # the warning is OpenEnv's to fix and says nothing to a user of officegym
    warnings.filterwarnings(
        "ignore", "Accessing `Tool.inputSchema` is deprecated", module="openenv.core.env_server.mcp_environment"
    )
    action = _action_model()
    observation = _observation_model()
    tool_observation = _tool_observation_model()
    state = _state_model()
    environment = _environment_class(observation, tool_observation, state)
    client = _client_class(action, observation, state)
    tool_client = _tool_client_class(observation, tool_observation)
    return OpenEnvTypes(action, observation, tool_observation, state, environment, client, tool_client)


def _action_model() -> type[Any]:
    from openenv.core.env_server.types import Action
    from pydantic import ConfigDict, Field

    class OfficeGymAction(Action):  # type: ignore[misc]
        """One officegym tool call. The fields take any JSON value and extra keys are kept: the env checks the
        call exactly as sent, so a malformed one becomes an ``Error: ...`` observation (as it does locally),
        not an OpenEnv validation error. ``{"type": "list_tools"}`` and ``{"type": "call_tool", "tool_name",
        "arguments"}`` are OpenEnv's MCP actions (OpenEnv routes them only for MCP-typed action classes, so they
        arrive here and the environment routes them)."""

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


def _episode_fields() -> dict[str, Any]:
    """The fields every officegym observation adds to OpenEnv's (annotation, field), for ``create_model``."""
    from pydantic import Field

    return {
        "text": (str, Field(default="", description="the work order after reset, then each tool's result")),
        "grade": (
            dict[str, Any] | None,
            Field(default=None, description="info['grade'] on the episode's last step: reward, components"),
        ),
        "truncated": (bool, Field(default=False, description="cut off by max_turns (done is true too)")),
        "info": (
            dict[str, Any],
            Field(
                default_factory=dict,
                description="the env's info without the grade: system_prompt, tools, task_id, tier after reset; "
                "turn and is_error after a step",
            ),
        ),
    }


def _observation_model() -> type[Any]:
    from openenv.core.env_server.types import Observation
    from pydantic import create_model

    doc = """What officegym answers, plus ``done`` and ``reward``. The grade has its own field because OpenEnv
    does not send an observation's ``metadata`` to clients."""
    model: type[Any] = create_model(
        "OfficeGymObservation", __base__=Observation, __doc__=doc, __module__=__name__, **_episode_fields()
    )
    return model


def _tool_observation_model() -> type[Any]:
    from openenv.core.env_server.mcp_types import CallToolObservation
    from pydantic import create_model

    doc = """An MCP tool call's answer: OpenEnv's ``CallToolObservation`` (``tool_name``, ``result``: the MCP
    result, whose ``data`` is the text) with officegym's episode fields, so a generic client sees the grade."""
    model: type[Any] = create_model(
        "OfficeGymToolObservation",
        __base__=CallToolObservation,
        __doc__=doc,
        __module__=__name__,
        **_episode_fields(),
    )
    return model


def _state_model() -> type[Any]:
    from openenv.core.env_server.types import State

    class OfficeGymState(State):  # type: ignore[misc]
        """The session's episode: OpenEnv's ``episode_id`` and ``step_count`` plus what officegym knows."""

        env_id: str = ""
        env_kwargs: str = "{}"
        task_id: str | None = None
        seed: int | None = None
        done: bool = True
        reward: float | None = None
        grade: dict[str, Any] | None = None

    return OfficeGymState


@functools.cache
def world_builder() -> ThreadPoolExecutor:
    """The one thread that makes the env of a new world for every session of the process. Generating a
    company takes seconds (a minute for InvoiceApproval-v1) the first time in a process, which must not stop
    the event loop every session runs on; one thread keeps the generators and their caches single-threaded."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="officegym-worlds")


def _environment_class(observation: type[Any], tool_observation: type[Any], state: type[Any]) -> type[Any]:
    from openenv.core.env_server.mcp_environment import MCPEnvironment
    from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction
    from openenv.core.env_server.types import EnvironmentMetadata
    from openenv.core.utils import run_async_safely
    from pydantic import ValidationError

    from .. import __version__

    def to_observation(turn: Turn) -> Any:
        fields = {"text": turn.text, "reward": turn.reward, "done": turn.done, "truncated": turn.truncated}
        return observation(**fields, grade=turn.grade, info=turn.info)

    def to_tool_observation(tool_name: Any, turn: Turn) -> Any:
        fields = {"text": turn.text, "reward": turn.reward, "done": turn.done, "truncated": turn.truncated}
        name = tool_name if isinstance(tool_name, str) else str(tool_name)
        return tool_observation(tool_name=name, result=result_payload(turn), **fields, grade=turn.grade, info=turn.info)

    def mcp_action(action: Any) -> Any:
        """The MCP action a step payload is (``ListToolsAction``, ``CallToolAction``, or the plain tool call of a
        malformed ``call_tool``), or None for an officegym tool call."""
        if isinstance(action, ListToolsAction | CallToolAction):
            return action
        call = action.tool_call()
        if call.get("type") == "list_tools":
            return ListToolsAction()
        if call.get("type") != "call_tool":
            return None
        try:
            return CallToolAction.model_validate(call)
        except ValidationError:
            return env_call(call)

    class OfficeGymEnvironment(MCPEnvironment):  # type: ignore[misc]
        """OpenEnv's ``MCPEnvironment`` over one ``OfficeSession``: officegym tool calls, and the same tools as
        an MCP server (``openenv_mcp.py``) for ``ListToolsAction``/``CallToolAction`` and ``/mcp``.

        Concurrency-safe because every session has its own instance (its own books). Threads: ``reset_async``
        and ``step_async`` do the work directly, so OpenEnv runs every reset and step on the server's event
        loop thread, one call at a time, and no thread ever enters an env another is in (the MCP tools are
        coroutines on that loop too). A step takes microseconds (grading the longest task under a
        millisecond), so handing it to a worker thread costs more than the step: under 80 concurrent
        sessions, a worker thread per session halved the throughput and one shared worker still cost a quarter
        of it (``benchmarks/openenv_load.py``). Making and closing envs runs on one shared worker thread
        (``REQUIRES_SINGLE_THREAD_EXECUTOR``), not a new thread per session; so does making the env of a new
        world on reset (``world_builder``). A domain with slow tools would hold up every session and should
        drop the two ``*_async`` methods to get OpenEnv's worker thread back.
        """

        SUPPORTS_CONCURRENT_SESSIONS = True
        REQUIRES_SINGLE_THREAD_EXECUTOR = True

        def __init__(self, env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> None:
            self.session = OfficeSession(env_id, env_kwargs)
            self.tool_names = frozenset(spec["name"] for spec in tool_specs(self.session.tool_schemas()))
            server = tool_server(f"officegym {env_id}", self.session.tool_schemas(), self.session.step)
            super().__init__(server)
            self.mcp_client = LazyClient(server)
            self._mcp_depth = 0

        @contextlib.asynccontextmanager
        async def mcp_session(self) -> AsyncIterator[Any]:
            """What OpenEnv holds open for the session's lifetime (and enters around each MCP request): the
            client connects on its first use and disconnects when the outermost entry exits (``LazyClient``)."""
            client = self._require_mcp_client()
            self._mcp_depth += 1
            try:
                yield client
            finally:
                self._mcp_depth -= 1
                if self._mcp_depth == 0:
                    await client.disconnect()

        def _validate_tool_names(self, mcp_server: Any) -> None:
            """``tool_server`` has refused OpenEnv's reserved names already; the base class would list the tools
            by running an event loop of its own, once per session."""

        def reset(self, seed: Any = None, episode_id: Any = None, **params: Any) -> Any:
            return to_observation(self.session.reset(seed=seed, episode_id=episode_id, **params))

        async def reset_async(self, seed: Any = None, episode_id: Any = None, **params: Any) -> Any:
            """``reset`` on the event loop thread, except for making a new world's env (see the class docstring)."""
            request = self.session.request(seed=seed, episode_id=episode_id, **params)
            if self.session.needs_env(request):
                loop = asyncio.get_running_loop()
                env = await loop.run_in_executor(world_builder(), self.session.build_env, request)
                self.session.install(request, env)
            return to_observation(self.session.start(request))

        def step(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Any:
            """``timeout_s`` and HTTP's ``request_id`` are accepted; only MCP calls use the timeout. An MCP action
            outside a server runs the MCP server on an event loop of its own."""
            if mcp_action(action) is None:
                return self._step_impl(action)
            return run_async_safely(self.step_async(action, timeout_s=timeout_s))

        def _step_impl(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Any:
            """An officegym tool call (the base class's hook for actions that are not MCP's)."""
            return to_observation(self.session.step(action.tool_call()))

        async def step_async(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Any:
            """``step`` on the event loop thread (see the class docstring); MCP actions go to the MCP server."""
            mcp = mcp_action(action)
            if mcp is None:
                return self._step_impl(action)
            if isinstance(mcp, ListToolsAction):
                return await self._async_handle_list_tools()
            if not isinstance(mcp, CallToolAction):
                return to_tool_observation(mcp.get("name"), self.session.step(mcp))
            if mcp.tool_name not in self.tool_names:  # the env's answer, without MCP's client warning of the name
                call = {"name": mcp.tool_name, "arguments": mcp.arguments}
                return to_tool_observation(mcp.tool_name, self.session.step(call))
            answer = await self._async_handle_call_tool(mcp, timeout_s=timeout_s)
            turn = turn_of(answer.result)
            if turn is None:  # the env was not reached (a timeout): OpenEnv's error, as MCPToolClient expects it
                return answer
            return to_tool_observation(mcp.tool_name, turn)

        @property
        def state(self) -> Any:
            return state(**self.session.snapshot())

        def get_metadata(self) -> Any:
            """The env id, and the first paragraph of the env class's docstring as the description."""
            doc = (type(self.session.env.unwrapped).__doc__ or "").strip().split("\n\n")[0]
            return EnvironmentMetadata(name=self.session.env_id, description=" ".join(doc.split()), version=__version__)

        def close(self) -> None:
            self.session.close()
            super().close()

    return OfficeGymEnvironment


def _client_class(action: type[Any], observation: type[Any], state: type[Any]) -> type[Any]:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient

    class OfficeGymClient(EnvClient):  # type: ignore[misc]
        """OpenEnv's ``EnvClient`` with officegym's types: async, one server session per client; ``.sync()``
        gives the blocking wrapper. Takes ``OfficeGymAction`` or a plain ``{"name", "arguments"}`` dict.
        ``token`` (default ``$OFFICEGYM_SERVE_TOKEN``) is sent as ``Authorization: Bearer``."""

        def __init__(self, base_url: str, *args: Any, token: str | None = None, **kwargs: Any) -> None:
            super().__init__(base_url, *args, **kwargs)
            self._token = token_from(token)

        async def connect(self) -> Any:
            return await connect_with_token(self, super().connect)

        def _step_payload(self, call: Any) -> dict[str, Any]:
            return call.tool_call() if isinstance(call, action) else dict(call)

        def _parse_result(self, payload: dict[str, Any]) -> Any:
            done, reward = payload.get("done", False), payload.get("reward")
            obs = observation.model_validate({**payload.get("observation", {}), "done": done, "reward": reward})
            return StepResult(observation=obs, reward=reward, done=done)

        def _parse_state(self, payload: dict[str, Any]) -> Any:
            return state.model_validate(payload)

    return OfficeGymClient


def _tool_client_class(observation: type[Any], tool_observation: type[Any]) -> type[Any]:
    from openenv.core.client_types import StepResult
    from openenv.core.mcp_client import MCPToolClient

    class OfficeGymToolClient(MCPToolClient):  # type: ignore[misc]
        """OpenEnv's ``MCPToolClient`` that also keeps what officegym answers: ``reset`` gives an
        ``OfficeGymObservation`` (the work order, the system prompt and tools in ``info``; OpenEnv's client
        keeps only ``done`` and ``reward`` of a reset), and a tool call's step an ``OfficeGymToolObservation``
        with the grade. ``list_tools`` and ``call_tool`` are OpenEnv's. ``token`` (default
        ``$OFFICEGYM_SERVE_TOKEN``) is sent as ``Authorization: Bearer`` on the WebSocket and on HTTP ``/mcp``."""

        def __init__(self, base_url: str, *args: Any, token: str | None = None, **kwargs: Any) -> None:
            super().__init__(base_url, *args, **kwargs)
            self._token = token_from(token)

        async def connect(self) -> Any:
            return await connect_with_token(self, super().connect)

        async def _get_http_client(self) -> Any:
            if getattr(self, "_http_client", None) is None and self._token is not None:
                import httpx

                self._http_client = httpx.AsyncClient(headers=bearer(self._token))
            return await super()._get_http_client()

        def _parse_result(self, payload: dict[str, Any]) -> Any:
            data = payload.get("observation", {})
            if "tools" in data:
                return super()._parse_result(payload)
            done, reward = payload.get("done", False), payload.get("reward")
            model = tool_observation if "tool_name" in data else observation
            obs = model.model_validate({**data, "done": done, "reward": reward})
            return StepResult(observation=obs, reward=reward, done=done)

    return OfficeGymToolClient


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def connect_with_token(client: Any, connect: Callable[[], Any]) -> Any:
    """OpenEnv's ``EnvClient.connect`` (``connect``), or, with a token, the same WebSocket opened with the
    ``Authorization`` header (OpenEnv 0.3's clients have no way to pass headers)."""
    if client._token is None or client._ws is not None:
        return await connect()
    from websockets.asyncio.client import connect as ws_connect

    try:
        client._ws = await ws_connect(
            client._ws_url,
            open_timeout=client._connect_timeout,
            max_size=client._max_message_size,
            additional_headers=bearer(client._token),
        )
    except Exception as error:
        raise ConnectionError(f"Failed to connect to {client._ws_url}: {error}") from error
    return client


_LAZY = {
    "OfficeGymAction": "action",
    "OfficeGymObservation": "observation",
    "OfficeGymToolObservation": "tool_observation",
    "OfficeGymState": "state",
    "OfficeGymEnvironment": "environment",
    "OfficeGymClient": "client",
    "OfficeGymToolClient": "tool_client",
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
    limits: ServerLimits | None = None,
) -> FastAPI:
    """The FastAPI app of OpenEnv's session server for ``env_id``, each session with its own env, guarded.

    One env is made and closed first, so a bad id or bad ``env_kwargs`` fails here, with the env's own
    message, instead of in every session. The session server is ``GuardedEnvServer`` (idle sessions reaped,
    sessions per client capped) and the app is wrapped, outermost first, in ``AccessGuard`` (token, Origin),
    ``BodyLimit``, ``BudgetGuard`` (each client's bytes and new sessions held back beyond its budget),
    ``FrameGuard`` (bad WebSocket frames answered, the session kept), ``RpcErrorClip``, ``ReapedNotice``,
    ``QuietClientClose``, ``PeerContext`` and ``ErrorShield``; bad requests are 4xx with short messages
    (``server_errors``). ``limits`` defaults to ``ServerLimits()`` (no token: loopback clients only).
    """
    limits = limits or ServerLimits()
    types = openenv_types()
    make_env(env_id, env_kwargs).close()
    require("fastapi")
    from fastapi import FastAPI
    from openenv.core.env_server.types import ConcurrencyConfig

    from .. import __version__

    config = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=limits.idle_timeout)
    app = FastAPI(title=f"officegym {env_id} (OpenEnv)", version=__version__)
    server = guarded_server_class()(
        environment_factory(env_id, env_kwargs),
        types.action,
        types.observation,
        concurrency_config=config,
        limits=limits,
    )
    server.register_routes(app)
    install_error_handlers(app)
    budgets = ClientBudgets(limits)
    for middleware, options in (
        (ErrorShield, {}),
        (PeerContext, {}),
        (QuietClientClose, {}),
        (ReapedNotice, {"server": server}),
        (RpcErrorClip, {}),
        (FrameGuard, {}),
        (BudgetGuard, {"budgets": budgets}),
        (BodyLimit, {"limit": limits.max_body_bytes, "timeout": limits.header_timeout}),
        (AccessGuard, {"token": limits.token}),
    ):  # each added one wraps the ones before it
        app.add_middleware(middleware, **options)
    app.state.officegym_server = server
    app.state.officegym_budgets = budgets
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
