"""The MCP tool server behind officegym's verifiers tasksets (the ``verifiers`` extra).

verifiers 0.4 gives a model its tools over MCP only: it starts a ``Toolset`` as its own process (``python -m``
on the toolset class's module, this one), which serves MCP's streamable HTTP on a loopback port and syncs a
pydantic ``State`` with the rollout around every tool call. This toolset is taskset-scoped (``shared`` in
verifiers' words): one server process for the whole eval, because each server process spends seconds of CPU
importing verifiers, which would be paid again for every rollout. Inside it every rollout is a session with its
own episode: the task's ``setup`` writes the session id and the task's row (env id, ``env_kwargs``, task id:
``officegym.splits``' row contract) into the rollout's state, and the first tool call of the session starts
the episode. The tools are the env's own (``env.unwrapped.tool_schemas``), so a new domain needs no edit here,
and every MCP tool call is one ``env.step``.

Every episode is built from its row, never from an env id and a task id alone (task ids repeat across
companies): ``Worlds`` keeps one env per world (``splits.RowEnvs``: ``make_env(row)`` once, ``reset_row`` per
episode) and hands each session a fork of it reset to the row's task, so a generated company is built once per
process and concurrent rollouts of one world never share an episode.

The rollout's state also carries the episode's record: each action the env received, a digest of each
observation it answered, and the grade once the episode ended on the server (a terminal tool, ``finish``,
``max_turns``). That record is what makes the rest simple and memory-bounded:

- verifiers tells a shared server nothing when a rollout ends, so the server keeps at most ``MAX_LIVE``
  episodes (least recently used first out) and drops an episode as soon as it ends; an evicted episode that is
  called again is rebuilt by replaying its record (officegym envs are deterministic; the digests prove the
  rebuilt env answered what the model saw);
- the scorer grades the episode from the record alone: the server's grade when the episode ended there, else a
  replay graded where it stands, as reaching ``max_turns`` would (``ToolEnv.cut_off``).

verifiers and MCP are imported on first use, not on import: the test suite imports every module of the
package, with or without the extra, and ``import verifiers.v1`` alone takes seconds.
"""

import asyncio
import functools
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

import officegym  # noqa: F401  (registers the env ids with gymnasium)
from officegym.envs.core.actions import FINISH_SCHEMA
from officegym.integrations.optional import import_optional, install_hint
from officegym.spaces.safe_value import value_problem
from officegym.splits import RowEnvs

EXTRA = install_hint("verifiers")
# Live episodes one server keeps: vf-eval runs 128 rollouts at once by default, an InvoiceApproval episode holds
# ~0.4 MB, and an evicted episode is rebuilt from its record when it is called again.
MAX_LIVE = 256
WORLDS = 8  # worlds (env id + env_kwargs) a process keeps an env of: a train split of 2 sources has 2 per env id
OVER = "Error: the episode is over and your work has been graded; reply without a tool call."
NO_TASK = "Error: this rollout has no officegym task (its state names none); nothing was done."


def require(module: str) -> Any:
    """Import a module of the extra, or fail with the one command that installs it."""
    return import_optional(module, "officegym's verifiers integration needs verifiers 0.4 and the MCP SDK", "verifiers")


class TaskRow(Protocol):
    """Which episode to play: a task's data (``OfficeGymData``) and the rollout state that copies it both have
    these; ``env_kwargs`` is the row contract's canonical JSON text of the ``gym.make`` arguments."""

    env_id: str
    task_id: str
    env_kwargs: str
    offer_finish: bool


def world_row(row: TaskRow) -> dict[str, Any]:
    """The fields of ``officegym.splits``' row contract that name the episode's world."""
    return {"env_id": row.env_id, "env_kwargs": row.env_kwargs, "task_id": row.task_id}


class Worlds:
    """One env per world, shared by every episode of that world in this process: each episode is a fork of the
    world's env reset to the row's task (a fork shares the env's tools, tasks and books template and copies only
    the episode, so a generated company is built once and a new episode costs well under a millisecond)."""

    def __init__(self, limit: int = WORLDS) -> None:
        self._envs = RowEnvs(limit)
        self._lock = threading.Lock()  # the scorer may run beside the event loop; RowEnvs is not thread-safe

    def start(self, row: TaskRow) -> tuple[Any, str]:
        """A fresh episode of the row's task on its own env, and the opening message it showed."""
        with self._lock:
            env, opening, _ = self._envs.reset(world_row(row))
            return env.unwrapped.fork(), str(opening)  # type: ignore[attr-defined]

    def schemas(self, row: TaskRow) -> list[dict[str, Any]]:
        """The tool schemas of the row's env (the same for every task of a world)."""
        with self._lock:
            return list(self._envs.env_for(world_row(row)).unwrapped.tool_schemas)  # type: ignore[attr-defined]

    def close(self) -> None:
        with self._lock:
            self._envs.close()


@functools.cache
def worlds() -> Worlds:
    """This process's worlds (the tool server's sessions, the scorer's replays and the gold check share them)."""
    return Worlds()


def digest(observation: str) -> str:
    """A short fingerprint of an observation: enough to prove a replay saw the same text, small in the state."""
    return hashlib.sha256(observation.encode("utf-8")).hexdigest()[:16]


@dataclass
class Record:
    """The episode as the rollout's state carries it (those fields of ``OfficeGymState``)."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    grade: dict[str, Any] | None = None


@dataclass(frozen=True)
class Row:
    """A copy of the ``TaskRow`` fields (a session must not hold on to a rollout's state object)."""

    env_id: str
    task_id: str
    env_kwargs: str
    offer_finish: bool


class ReplayError(RuntimeError):
    """A replayed episode answered differently from the one the model played: its grade would be a guess."""


class ToolSession:
    """One officegym episode played through tool calls: the env, its opening, the record.

    Free of verifiers and MCP, so the server, the scorer, the gold check and the tests drive the same code."""

    def __init__(self, row: TaskRow, pool: Worlds | None = None) -> None:
        self.row = Row(row.env_id, row.task_id, row.env_kwargs, row.offer_finish)
        self.env, self.opening = (pool or worlds()).start(row)
        self.record = Record()

    @classmethod
    def replay(cls, row: TaskRow, record: Record, pool: Worlds | None = None) -> "ToolSession":
        """The episode rebuilt from a record: every action stepped again, every observation's digest checked."""
        if len(record.actions) != len(record.digests):
            raise ReplayError(f"the record has {len(record.actions)} actions but {len(record.digests)} digests")
        session = cls(row, pool)
        for turn, (action, expected) in enumerate(zip(record.actions, record.digests, strict=True), start=1):
            observation, _ = session._step(action)
            if digest(observation) != expected:
                session.close()
                name = action.get("name")
                raise ReplayError(f"{row.env_id} {row.task_id}: turn {turn} ({name}) answered differently on replay")
        return session

    def call(self, name: str, arguments: Any) -> tuple[str, bool]:
        """One tool call as one env step: the observation and whether it is an ``Error:``. After the episode's
        end the env is left alone (a late call would only read as an error of the agent's)."""
        if self.record.grade is not None:
            return OVER, True
        return self._step({"name": name, "arguments": arguments})

    def _step(self, action: dict[str, Any]) -> tuple[str, bool]:
        observation, _, _, _, info = self.env.step(action)
        self.record.actions.append(action)
        self.record.digests.append(digest(observation))
        if "grade" in info:
            self.record.grade = dict(info["grade"])
        return observation, bool(info.get("is_error", False))

    def grade(self) -> dict[str, Any]:
        """The grade: the env's when the episode has ended, else the episode ended where it stands."""
        if self.record.grade is None:
            _, grade = self.env.cut_off()
            self.record.grade = dict(grade)
        return self.record.grade

    def close(self) -> None:
        self.env.close()


def episode_grade(row: TaskRow, record: Record) -> tuple[dict[str, Any], bool]:
    """The episode's grade (``info["grade"]``) and whether it had to be rebuilt: the server's grade when the
    episode ended there, else the record replayed and graded where it stands."""
    if record.grade is not None:
        return record.grade, False
    session = ToolSession.replay(row, record)
    try:
        return session.grade(), True
    finally:
        session.close()


def gold_grade(row: TaskRow) -> tuple[str, dict[str, Any]]:
    """The opening of a fresh episode of the row's task and the grade of its gold path (``gold_actions``, what
    the ``oracle`` scripted policy plays), played as tool calls through a session like a model's."""
    session = ToolSession(row)
    try:
        for action in session.env.gold_actions(row.task_id):
            session.call(action["name"], action["arguments"])
        return session.opening, session.grade()
    finally:
        session.close()


def record_of(state: Any) -> Record:
    """The record an ``OfficeGymState`` carries (the scorer reads the rollout's state through this)."""
    return Record(list(state.actions), list(state.digests), state.grade)


@functools.cache
def state_type() -> type[Any]:
    """``OfficeGymState``: the rollout state verifiers syncs between the task, the tool server and the scorer."""
    require("verifiers.v1")
    import pydantic
    import verifiers.v1 as vf

    class OfficeGymState(vf.State):  # type: ignore[misc]
        """The rollout's session and task row (set by the task's ``setup``), and the episode's record."""

        __qualname__ = "OfficeGymState"
        session: str = ""
        env_id: str = ""
        task_id: str = ""
        env_kwargs: str = "{}"
        offer_finish: bool = False
        actions: list[dict[str, Any]] = pydantic.Field(default_factory=list)
        digests: list[str] = pydantic.Field(default_factory=list)
        grade: dict[str, Any] | None = None

    return OfficeGymState


class Sessions:
    """The live episodes of one server by session id, least recently used first out (see the module docstring)."""

    def __init__(self, max_live: int = MAX_LIVE) -> None:
        self.max_live = max_live
        self.live: OrderedDict[str, ToolSession] = OrderedDict()

    def get(self, state: Any) -> ToolSession:
        """The session's episode as the state records it: the live one, or one rebuilt from the record (a new
        session's record is empty, so that is a fresh reset)."""
        record = record_of(state)
        session = self.live.pop(state.session, None)
        if session is not None and session.record.digests != record.digests:
            session.close()  # a failed state push left the state behind this env: the state is what counts
            session = None
        if session is None:
            session = ToolSession.replay(state, record)
        self.live[state.session] = session
        while len(self.live) > self.max_live:
            _, evicted = self.live.popitem(last=False)
            evicted.close()
        return session

    def drop(self, key: str) -> None:
        session = self.live.pop(key, None)
        if session is not None:
            session.close()

    def close(self) -> None:
        for key in list(self.live):
            self.drop(key)


def tool_schemas(row: TaskRow) -> list[dict[str, Any]]:
    """The tools a row's episode offers: its env's, plus ``finish`` when the row asks for it."""
    schemas = worlds().schemas(row)
    return [*schemas, FINISH_SCHEMA] if row.offer_finish else schemas


@functools.cache
def toolset_type() -> type[Any]:
    """``OfficeGymToolset``: the officegym envs' tools as one MCP server for all rollouts of an eval."""
    require("verifiers.v1")
    mcp_types = require("mcp.types")
    import verifiers.v1 as vf

    class OfficeGymToolset(vf.Toolset[vf.SharedToolsetConfig, state_type()]):  # type: ignore[misc]
        """``TOOL_PREFIX = None``: the model sees the env's own tool names (``approve_invoice``, not
        ``office_gym_toolset_approve_invoice``), which the policy texts use."""

        __qualname__ = "OfficeGymToolset"
        TOOL_PREFIX = None

        def __init__(self, config: Any) -> None:
            super().__init__(config)
            self.sessions = Sessions()
            self._lock = asyncio.Lock()
            self._exit_stack.callback(self.sessions.close)

        def register(self, mcp: Any) -> None:
            # The catalogue depends on the rollout's task, so the MCP server's own list/call methods are replaced
            # (as verifiers' NeMo Gym toolset does) instead of registering functions with fixed signatures.
            mcp.list_tools = self._with_state(self.list_tools)
            mcp.call_tool = self._serialized(self._with_state(self.call_tool))

        def _serialized(self, call: Any) -> Any:
            """One call at a time: each call pulls the rollout's state, steps its env and pushes the whole record;
            two interleaved calls of one rollout would push records that each miss the other's action."""

            async def serialized(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
                async with self._lock:
                    return await call(name, arguments, context)

            return serialized

        async def list_tools(self) -> list[Any]:
            state = self.state
            if not state.env_id:
                return []
            return [mcp_tool(mcp_types, schema) for schema in tool_schemas(state)]

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            text, is_error = play_call(self.sessions, self.state, name, arguments)
            return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)], is_error=is_error)

    return OfficeGymToolset


def play_call(sessions: Sessions, state: Any, name: str, arguments: Any) -> tuple[str, bool]:
    """One tool call of a rollout: step its episode, write the record back into its state, and let an ended
    episode go (its grade is in the state now). A value no step can carry (a lone surrogate, a number of
    thousands of digits, nesting thousands deep) is refused at the door with the env's own ``Error:`` text and
    not recorded: the record is synced as JSON, which such a value cannot be written as."""
    if not state.session or not state.env_id:
        return NO_TASK, True
    if state.grade is not None:
        return OVER, True
    problem = value_problem(name) or value_problem(arguments)
    if problem:  # the env refuses it with this text too; in the record it would break the state's JSON sync
        return f"Error: {problem}", True
    session = sessions.get(state)
    text, is_error = session.call(name, arguments)
    record = session.record
    state.actions, state.digests, state.grade = list(record.actions), list(record.digests), record.grade
    if record.grade is not None:
        sessions.drop(state.session)
    return text, is_error


def mcp_tool(mcp_types: Any, schema: dict[str, Any]) -> Any:
    """An OpenAI function schema (what officegym's tools describe themselves as) as an MCP tool."""
    function = schema["function"]
    return mcp_types.Tool(
        name=function["name"],
        description=function.get("description") or None,
        input_schema=function.get("parameters") or {"type": "object", "properties": {}},
    )


def __getattr__(name: str) -> Any:
    """``OfficeGymState`` and ``OfficeGymToolset`` as module attributes, built on first use (verifiers resolves
    ``module:Class`` references this way, and importing this module must not need the extra)."""
    if name == "OfficeGymState":
        return state_type()
    if name == "OfficeGymToolset":
        return toolset_type()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def serve() -> None:
    """The server process verifiers starts (its config arrives in ``VF_CONFIG``, each call's state by URL)."""
    toolset_type().run()


if __name__ == "__main__":
    # Run as ``python -m``, this file is ``__main__``; the classes verifiers references live in the module under
    # its package name, so the server is taken from there.
    from officegym.integrations import verifiers_toolset

    verifiers_toolset.serve()
