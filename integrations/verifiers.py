"""Every officegym env as a verifiers 0.4 environment (the ``verifiers`` extra).

verifiers 0.4 splits an environment into a ``Taskset`` (the rows, each a ``Task`` that scores itself with
``@vf.reward`` methods), ``Toolset``s (the tools, served over MCP by processes verifiers starts: here one server
for the eval with one env per rollout, ``verifiers_toolset.py``) and a ``Harness`` (the program that plays the
model against the tools). ``vf-eval`` finds them by importing a top-level module named after the taskset id and
taking the classes it exports (``verifiers_officegym.py``). For any registered env id this module provides:

- **Taskset** ``OfficeGymTaskset``: one row per task of the env (``env.unwrapped.task_ids``, optionally only
  some ``tiers``): the system prompt, the opening work order as the user prompt, the ``task_id`` (also the
  row's ``id``, so ``--select.include.ids hard-3`` picks it) and its ``tier``.
- **Tools**: the env's own tools, read from ``env.unwrapped.tool_schemas`` on the server, so a new domain works
  without an edit here. ``finish`` is not offered unless ``offer_finish``: a reply without a tool call ends the
  rollout, as in officegym's own chat loop.
- **Reward** ``grade``: the episode's grade, ``info["grade"]["reward"]``, the env graded at the end of the
  rollout (from the episode's record in the rollout state: ``verifiers_toolset.py``). The grade's numeric
  components are recorded as metrics (``grade_<name>``) and the whole grade in ``trace.info["officegym"]``.
- **Harness** ``OfficeGymHarness``, the taskset's default: a plain chat loop run inside the eval process (every
  model call through verifiers' interception, every tool call over MCP). verifiers' own ``null`` harness plays
  the same tasks (``--env.agent.harness.id null``) but installs its program with ``uv`` from the network on
  first use; this one needs nothing beyond the extra.
- **Env** ``OfficeGymEnv``: verifiers' single-agent env whose agent runs in a local subprocess runtime by
  default (verifiers' default is a remote sandbox, which a chat loop over MCP does not need).

Run it on an OpenAI-compatible endpoint::

    python -m officegym.integrations.verifiers officegym/InvoiceApproval-v0 -m MODEL \\
        --client.base-url URL --client.api-key-var OPENAI_API_KEY -n 5 -r 3 --no-push -o results/

which is ``vf-eval verifiers-officegym --env.taskset.env-id officegym/InvoiceApproval-v0 ...`` with the plugin
module made importable first (once ``verifiers_officegym`` is installed as a top-level module, plain
``vf-eval`` works too). From Python: ``taskset("officegym/VendorReview-v0", tiers=["hard"])``.

verifiers is imported on first use (the classes are module attributes built then), never on import: the test
suite imports every module of the package, with or without the extra, and ``import verifiers.v1`` takes
seconds. No ``from __future__ import annotations`` here: pydantic and verifiers read these classes'
annotations at runtime, and classes made inside a function could not resolve them from strings.
"""

import functools
import importlib
import importlib.util
import json
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack
from typing import Any

import gymnasium as gym

import officegym
from officegym.integrations.verifiers_toolset import (
    EXTRA,
    SEED,
    episode_grade,
    make_env,
    record_of,
    require,
    state_type,
    toolset_type,
)

__all__ = ["EXTRA", "PLUGIN_ID", "main", "taskset"]

DEFAULT_ENV_ID = "officegym/InvoiceApproval-v0"
PLUGIN_ID = "verifiers-officegym"  # the taskset id: vf-eval imports the module of that name, dashes as underscores
PLUGIN_MODULE = "verifiers_officegym"
ToolCaller = Callable[[str, Any], Awaitable[Any]]


def _load_extra() -> None:
    """Fail with the install command (not a bare ModuleNotFoundError) when the extra is missing."""
    require("verifiers.v1")
    require("mcp")


# --------------------------------------------------------------------------- tasks
@functools.cache
def data_type() -> type[Any]:
    """``OfficeGymData``: one task row (its ``TaskRow`` fields go into the rollout's state for the tool server)."""
    _load_extra()
    import pydantic
    import verifiers.v1 as vf

    class OfficeGymData(vf.TaskData):  # type: ignore[misc]
        """An officegym task: which env and task, its tier, and how the env is made."""

        __qualname__ = "OfficeGymData"
        env_id: str
        task_id: str
        tier: str = ""
        env_kwargs: dict[str, Any] = pydantic.Field(default_factory=dict)
        offer_finish: bool = False

    return OfficeGymData


@functools.cache
def task_type() -> type[Any]:
    """``OfficeGymTask``: a row with its session, its stop rule and its reward."""
    _load_extra()
    import verifiers.v1 as vf

    class OfficeGymTask(vf.Task[data_type(), state_type()]):  # type: ignore[misc]
        __qualname__ = "OfficeGymTask"

        async def setup(self, trace: Any, runtime: Any) -> None:
            """Name the rollout's episode in its state, where the eval's one tool server reads it."""
            open_session(trace.state, self.data, trace.id)

        @property
        def key(self) -> str:
            """Stable across selections (the default hashes the row, whose ``idx`` depends on the selection)."""
            return task_key(self.data)

        @vf.stop  # type: ignore[untyped-decorator]
        async def episode_over(self, trace: vf.Trace) -> bool:
            """Once the env has ended the episode (a terminal tool, ``finish``, ``max_turns``), no model call is
            spent on a turn that could change nothing."""
            return trace.state.grade is not None

        @vf.reward  # type: ignore[untyped-decorator]
        async def grade(self, trace: Any) -> float:
            """The episode's grade (``info["grade"]["reward"]``)."""
            return score(self.data, trace)

    return OfficeGymTask


def open_session(state: Any, row: Any, session: str) -> None:
    """The rollout's state names its session (the rollout's id) and the episode the tool server plays."""
    state.session, state.env_id, state.task_id = session, row.env_id, row.task_id
    state.env_kwargs, state.offer_finish = dict(row.env_kwargs), row.offer_finish


def task_key(row: Any) -> str:
    """``env_id:task_id``, with the env's arguments when there are any (another company is another task)."""
    key = f"{row.env_id}:{row.task_id}"
    return f"{key}:{json.dumps(row.env_kwargs, sort_keys=True)}" if row.env_kwargs else key


def score(row: Any, trace: Any) -> float:
    """Grade the rollout's episode, keep the grade on the trace (its numbers as metrics), return the reward."""
    grade, replayed = episode_grade(row, record_of(trace.state))
    trace.info["officegym"] = {
        "env_id": row.env_id,
        "task_id": row.task_id,
        "tier": row.tier,
        "graded_by": "replay" if replayed else "env",
        "grade": grade,
    }
    numbers = {k: v for k, v in grade.items() if k != "reward" and isinstance(v, int | float)}
    trace.record_metrics({f"grade_{k}": float(v) for k, v in numbers.items()})
    return float(grade["reward"])


# --------------------------------------------------------------------------- the taskset
@functools.cache
def taskset_config_type() -> type[Any]:
    """``OfficeGymTasksetConfig``: which env and which of its tasks (``--env.taskset.*``)."""
    _load_extra()
    import pydantic
    import verifiers.v1 as vf

    class OfficeGymTasksetConfig(vf.TasksetConfig):  # type: ignore[misc]
        __qualname__ = "OfficeGymTasksetConfig"
        env_id: str = DEFAULT_ENV_ID
        """A registered env id (``officegym.ENV_IDS``, or a domain registered with ``register_env``)."""
        tiers: list[str] = pydantic.Field(default_factory=list)
        """Only tasks of these tiers (empty: all); ``--select.*`` picks among what is left."""
        env_kwargs: dict[str, Any] = pydantic.Field(default_factory=dict)
        """Arguments for ``gym.make`` (e.g. ``{"company_seed": 7}``), on the server and in the scorer."""
        offer_finish: bool = False
        """Offer the reserved ``finish`` tool (by default a reply without a tool call ends the episode)."""
        tools: vf.SharedToolsetConfig = vf.SharedToolsetConfig()
        """Where the eval's tool server runs (``--env.taskset.tools.*``; a local subprocess by default)."""

        @pydantic.field_validator("env_id")
        @classmethod
        def _registered(cls, env_id: str) -> str:
            return check_env_id(env_id)

        @property
        def name(self) -> str:
            """The run's display name part (vf-eval names the run directory after it: no ``/`` in it)."""
            return str(self.env_id).replace("/", "-")

    return OfficeGymTasksetConfig


def check_env_id(env_id: str) -> str:
    """Refuse an unregistered id here, with the ids there are, rather than in every rollout's tool server."""
    if env_id not in gym.registry:
        raise ValueError(f"{env_id!r} is not a registered env id; officegym registers {', '.join(officegym.ENV_IDS)}")
    return env_id


@functools.cache
def taskset_type() -> type[Any]:
    """``OfficeGymTaskset``: the env's tasks, as rows."""
    _load_extra()
    import verifiers.v1 as vf

    class OfficeGymTaskset(vf.Taskset[task_type(), taskset_config_type()]):  # type: ignore[misc]
        __qualname__ = "OfficeGymTaskset"

        @classmethod
        def toolsets(cls, config: Any) -> list[Any]:
            return [toolset_type()(config.tools)]

        def load(self) -> Iterator[Any]:
            task_cls = task_type()
            return (task_cls(row, self.config.task) for row in task_rows(self.config))

    return OfficeGymTaskset


def task_rows(config: Any) -> Iterator[Any]:
    """One row per selected task, in the env's order; the opening and system prompt come from a real reset, so
    the model reads exactly what officegym's own agents read."""
    data_cls = data_type()
    env = make_env(config.env_id, config.env_kwargs)
    try:
        tool_env: Any = env.unwrapped
        for task_id in tool_env.task_ids:
            tier = tool_env.task_tier(task_id)
            if config.tiers and tier not in config.tiers:
                continue
            opening, info = env.reset(seed=SEED, options={"task_id": task_id})
            yield data_cls(
                id=task_id,
                name=f"{config.env_id}:{task_id}",
                prompt=opening,
                system_prompt=info["system_prompt"],
                env_id=config.env_id,
                task_id=task_id,
                tier=tier,
                env_kwargs=dict(config.env_kwargs),
                offer_finish=config.offer_finish,
            )
    finally:
        env.close()


def taskset(env_id: str = DEFAULT_ENV_ID, **options: Any) -> Any:
    """The tasks of ``env_id`` as a verifiers ``Taskset``; ``options`` are ``OfficeGymTasksetConfig`` fields
    (``tiers``, ``env_kwargs``, ``offer_finish``, ``tools``, ``task``)."""
    return taskset_type()(taskset_config_type()(id=PLUGIN_ID, env_id=env_id, **options))


# --------------------------------------------------------------------------- the harness
@functools.cache
def harness_config_type() -> type[Any]:
    """``OfficeGymHarnessConfig``: the base knobs (``tool_timeout`` bounds one MCP call)."""
    _load_extra()
    import verifiers.v1 as vf

    class OfficeGymHarnessConfig(vf.HarnessConfig):  # type: ignore[misc]
        __qualname__ = "OfficeGymHarnessConfig"

    return OfficeGymHarnessConfig


@functools.cache
def harness_type() -> type[Any]:
    """``OfficeGymHarness``: the chat loop, in process (see the module docstring for why not ``null``)."""
    _load_extra()
    import verifiers.v1 as vf

    class OfficeGymHarness(vf.Harness[harness_config_type()]):  # type: ignore[misc]
        __qualname__ = "OfficeGymHarness"
        APPENDS_SYSTEM_PROMPT = True
        SUPPORTS_MCP = True
        EXECUTES_CODE = False
        NEEDS_CONTAINER = False

        async def launch(
            self,
            ctx: Any,
            trace: Any,
            runtime: Any,
            endpoint: str,
            secret: str,
            mcp_urls: dict[str, str],
            data: Any,
            tool_interception_url: str | None = None,
        ) -> Any:
            system_prompt, prompt = self.resolve_prompt(data)
            messages = opening_messages(system_prompt, prompt)
            timeout = float(self.config.tool_timeout)
            await play(endpoint, secret, ctx.model, trace, messages, mcp_urls, timeout)
            return vf.ProgramResult(exit_code=0, stdout="", stderr="")

    return OfficeGymHarness


def opening_messages(system_prompt: str | None, prompt: Any) -> list[dict[str, Any]]:
    """The chat's first messages: the system prompt, then the prompt (a string, or verifiers messages)."""
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    if isinstance(prompt, str):
        return [*messages, {"role": "user", "content": prompt}]
    from verifiers.v1.dialects.chat import message_to_wire

    return [*messages, *(message_to_wire(message) for message in prompt or [])]


async def play(
    endpoint: str,
    secret: str,
    model: str,
    trace: Any,
    messages: list[dict[str, Any]],
    mcp_urls: dict[str, str],
    tool_timeout: float,
) -> None:
    """Connect to the rollout's tool servers and the model (verifiers' interception: ``endpoint`` and the
    rollout's ``secret``), and play the chat to its end."""
    from openai import AsyncOpenAI
    from verifiers.v1.harnesses.utils.mcp import call_mcp, connect_mcp

    client = AsyncOpenAI(base_url=endpoint, api_key=secret)
    servers_config = {"mcpServers": {name: {"url": url, "timeout": tool_timeout} for name, url in mcp_urls.items()}}
    try:
        async with AsyncExitStack() as stack:
            tools, dispatch, servers = await connect_mcp(servers_config, stack)

            async def call_tool(name: str, arguments: Any) -> Any:
                # A name the servers do not offer still goes to the env when there is one server: the env answers
                # it with its own ``Error:`` and counts the invalid call, as in officegym's own loop.
                target = dispatch.get(name) or ((next(iter(servers)), name) if len(servers) == 1 else None)
                if target is None:
                    return f"Error: unknown tool {name!r}."
                return await call_mcp(servers, {name: target}, name, arguments)

            await chat(client, model, trace, messages, tools, call_tool)
    finally:
        await client.close()


async def chat(
    client: Any, model: str, trace: Any, messages: list[dict[str, Any]], tools: list[Any], call_tool: ToolCaller
) -> None:
    """Ask the model, run its tool calls, repeat; until it answers without a tool call, the episode is over, or
    verifiers refuses the next turn (a turn or token limit, the task's stop rule: the rollout ended cleanly)."""
    from openai import APIStatusError

    while getattr(trace.state, "grade", None) is None:
        extra = {"tools": tools} if tools else {}
        try:
            completion = await client.chat.completions.create(model=model, messages=messages, **extra)
        except APIStatusError:
            if trace.stop_condition is not None:
                return
            raise
        reply = completion.choices[0].message.model_dump(exclude_none=True)
        messages.append(reply)
        calls = reply.get("tool_calls") or []
        if not calls:
            return
        for call in calls:
            content = await run_tool_call(call, call_tool)
            messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": content})


async def run_tool_call(call: dict[str, Any], call_tool: ToolCaller) -> Any:
    """One tool call of the model's; arguments that are not a JSON object are the model's error, told back."""
    function = call.get("function") or {}
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except json.JSONDecodeError as error:
        return f"Error: the tool arguments are not valid JSON ({error}); send them as a JSON object."
    if not isinstance(arguments, dict):
        return f"Error: the tool arguments must be a JSON object, not {type(arguments).__name__}."
    return await call_tool(str(function.get("name", "")), arguments)


# --------------------------------------------------------------------------- the env
@functools.cache
def env_config_type() -> type[Any]:
    """``OfficeGymEnvConfig``: the single agent seat, in a local subprocess runtime unless told otherwise."""
    _load_extra()
    import verifiers.v1 as vf

    class OfficeGymEnvConfig(vf.SingleAgentEnvConfig):  # type: ignore[misc]
        __qualname__ = "OfficeGymEnvConfig"
        agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())

    return OfficeGymEnvConfig


@functools.cache
def env_type() -> type[Any]:
    """``OfficeGymEnv``: verifiers' single-agent env with ``OfficeGymEnvConfig``."""
    _load_extra()
    import verifiers.v1 as vf

    class OfficeGymEnv(vf.SingleAgentEnv, vf.Env[env_config_type()]):  # type: ignore[misc]
        __qualname__ = "OfficeGymEnv"

    return OfficeGymEnv


BUILDERS: dict[str, Callable[[], type[Any]]] = {
    "OfficeGymData": data_type,
    "OfficeGymTask": task_type,
    "OfficeGymTasksetConfig": taskset_config_type,
    "OfficeGymTaskset": taskset_type,
    "OfficeGymHarnessConfig": harness_config_type,
    "OfficeGymHarness": harness_type,
    "OfficeGymEnvConfig": env_config_type,
    "OfficeGymEnv": env_type,
    "OfficeGymState": state_type,
    "OfficeGymToolset": toolset_type,
}


def __getattr__(name: str) -> Any:
    """The classes above as module attributes, built on first use (``from ... import OfficeGymTaskset``;
    verifiers resolves ``module:Class`` references, such as a trace's task type, the same way)."""
    if name in BUILDERS:
        return BUILDERS[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- the command line
def ensure_plugin() -> None:
    """Make the taskset id importable as verifiers expects (a top-level module): the installed
    ``verifiers_officegym`` when the package ships it, else this package's copy under that name."""
    if PLUGIN_MODULE not in sys.modules and importlib.util.find_spec(PLUGIN_MODULE) is None:
        sys.modules[PLUGIN_MODULE] = importlib.import_module("officegym.integrations.verifiers_officegym")


def eval_arguments(argv: Sequence[str]) -> list[str]:
    """vf-eval's arguments: a leading env id (it has a ``/``) becomes this taskset with that env."""
    args = list(argv)
    if args and "/" in args[0] and not args[0].startswith(("-", "@")):
        return [PLUGIN_ID, "--env.taskset.env-id", args[0], *args[1:]]
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m officegym.integrations.verifiers ENV_ID [vf-eval options]``: vf-eval on an officegym env."""
    args = eval_arguments(sys.argv[1:] if argv is None else argv)
    ensure_plugin()
    require("verifiers.v1.cli.eval.main").main(args)


if __name__ == "__main__":
    # Run as ``python -m``, this file is ``__main__``: the classes must come from the module under its package name
    # (the tool server and the trace records reference them there).
    from officegym.integrations import verifiers as canonical

    canonical.main()
