"""Every officegym env as a verifiers 0.4 environment (the ``verifiers`` extra), one per env id.

verifiers 0.4 splits an environment into a ``Taskset`` (the rows, each a ``Task`` that scores itself with
``@vf.reward`` methods), ``Toolset``s (the tools, served over MCP by processes verifiers starts: here one server
for the eval with one episode per rollout, ``verifiers_toolset.py``) and a ``Harness`` (the program that plays
the model against the tools). ``vf-eval ID`` and ``vf-validate ID`` find them by importing the top-level module
named after the taskset id (dashes as underscores) and taking the classes it exports. For every env id there is
such a module, an Environments Hub package of its own (``integrations/hub/``: ``officegym-invoice-approval-v1``
for ``officegym/InvoiceApproval-v1``, generated from one template), and this module provides what they export:

- **Taskset** ``InvoiceApprovalV1Taskset`` (one per env id, ``env_taskset_type``): the rows of one split of the
  env, ``officegym.splits.task_rows(env_id, split, sources)``: ``split`` ``"test"`` (default) or ``"train"``,
  ``sources`` the number of training companies or ranges of deals. Each row keeps the row contract's world
  (``env_id``, ``env_kwargs``, ``task_id``), so the tool server builds exactly that world, and its prompt: the
  system prompt and the opening message of a real reset. ``tiers`` keeps only some tiers; the row's ``id`` is
  its task id (``--select.include.ids hard-3``).
- **Tools**: the env's own tools, read from ``env.unwrapped.tool_schemas`` on the server, so a new domain works
  without an edit here. ``finish`` is not offered unless ``offer_finish``: a reply without a tool call ends the
  rollout, as in officegym's own chat loop.
- **Reward** ``grade``: the episode's grade, ``info["grade"]["reward"]``, the env graded at the end of the
  rollout (from the episode's record in the rollout state: ``verifiers_toolset.py``). The grade's numeric
  components are recorded as metrics (``grade_<name>``) and the whole grade, with the row's split and source
  (``company 200002``, ``deals 0-199``), in ``trace.info["officegym"]``.
- **Gold check** ``Task.validate`` (what ``vf-validate`` runs): the task's gold path, played through a tool
  session on a fresh episode of the row's world, must score 1.0, and the world must still open with the prompt
  the row carries. ``vf-validate``'s noop check scores the untouched task (0: doing nothing never passes).
- **Harness** ``OfficeGymHarness``, every taskset's default: a plain chat loop run inside the eval process (every
  model call through verifiers' interception, every tool call over MCP). verifiers' own ``null`` harness plays
  the same tasks (``--env.agent.harness.id null``) but installs its program with ``uv`` from the network on
  first use; this one needs nothing beyond the extra.
- **Env** ``OfficeGymEnv``: verifiers' single-agent env whose agent runs in a local subprocess runtime by
  default (verifiers' default is a remote sandbox, which a chat loop over MCP does not need).

With a Hub package installed (``pip install integrations/hub/officegym_vendor_review_v2``)::

    vf-eval officegym-vendor-review-v2 -m MODEL --client.base-url URL --client.api-key-var OPENAI_API_KEY \\
        --env.taskset.split test -n 5 -r 3 --no-push -o results/
    vf-validate officegym-vendor-review-v2 --runtime.type subprocess --no-rich

Without one, ``python -m officegym.integrations.verifiers ENV_ID [vf-eval options]`` runs vf-eval on the older
taskset id ``verifiers-officegym`` (one taskset for every env, ``--env.taskset.env-id`` picks it), with its
module made importable first. From Python: ``load_environment("officegym/VendorReview-v2", split="train")``
(a verifiers ``Env``) or ``taskset("officegym/VendorReview-v0", tiers=["hard"])``.

verifiers is imported on first use (the classes are module attributes built then), never on import: the test
suite imports every module of the package, with or without the extra, and ``import verifiers.v1`` takes
seconds. No ``from __future__ import annotations`` here: pydantic and verifiers read these classes'
annotations at runtime, and classes made inside a function could not resolve them from strings.
"""

import functools
import importlib
import importlib.util
import json
import re
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack
from typing import Any

import gymnasium as gym

import officegym
from officegym.envs.core.arguments import whole_number
from officegym.integrations.verifiers_toolset import (
    EXTRA,
    episode_grade,
    gold_grade,
    record_of,
    require,
    state_type,
    toolset_type,
)
from officegym.spaces import parse_action
from officegym.splits import canonical_kwargs, split_name
from officegym.splits import task_rows as split_rows

__all__ = ["EXTRA", "PLUGIN_ID", "env_taskset", "load_environment", "main", "package_id", "taskset"]

DEFAULT_ENV_ID = "officegym/InvoiceApproval-v0"
PLUGIN_ID = "verifiers-officegym"  # the taskset id for every env: vf-eval imports the module of that name
PLUGIN_MODULE = "verifiers_officegym"
DEFAULT_SPLIT = "test"
DEFAULT_SOURCES = 2
ToolCaller = Callable[[str, Any], Awaitable[Any]]


def _load_extra() -> None:
    """Fail with the install command (not a bare ModuleNotFoundError) when the extra is missing."""
    require("verifiers.v1")
    require("mcp")


# --------------------------------------------------------------------------- names
def _version_name(env_id: str) -> str:
    """``officegym/InvoiceApproval-v1`` -> ``InvoiceApproval-v1`` (the name after the namespace)."""
    return env_id.rsplit("/", 1)[-1]


def package_id(env_id: str) -> str:
    """The Environments Hub package (and taskset id) of an env id: ``officegym/InvoiceApproval-v1`` ->
    ``officegym-invoice-approval-v1``; verifiers imports it as ``officegym_invoice_approval_v1``."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", _version_name(env_id))
    return "officegym-" + re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")


def package_module(env_id: str) -> str:
    """The top-level module of an env id's package (what verifiers imports for its taskset id)."""
    return package_id(env_id).replace("-", "_")


def class_prefix(env_id: str) -> str:
    """``officegym/InvoiceApproval-v1`` -> ``InvoiceApprovalV1`` (the per-env class names start with it)."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", _version_name(env_id)))


def registered_env_ids() -> list[str]:
    """The env ids with a per-env taskset: officegym's own and any registered under its namespace."""
    return sorted({*officegym.ENV_IDS, *(env_id for env_id in gym.registry if env_id.startswith("officegym/"))})


# --------------------------------------------------------------------------- tasks
@functools.cache
def data_type() -> type[Any]:
    """``OfficeGymData``: one task row (its world, ``TaskRow``'s fields, goes into the rollout's state for the
    tool server)."""
    _load_extra()
    import pydantic
    import verifiers.v1 as vf

    class OfficeGymData(vf.TaskData):  # type: ignore[misc]
        """An officegym task row: its world (env id, ``gym.make`` arguments as canonical JSON text, task id), its
        tier, the split and task source it comes from, and whether ``finish`` is offered."""

        __qualname__ = "OfficeGymData"
        env_id: str
        task_id: str
        tier: str = ""
        env_kwargs: str = "{}"
        split: str = DEFAULT_SPLIT
        source: str = "shipped"
        offer_finish: bool = False

        @pydantic.field_validator("env_kwargs", mode="before")
        @classmethod
        def _as_text(cls, value: Any) -> Any:
            """A dict (rows built by hand, traces of officegym before rows) becomes the row contract's text."""
            return canonical_kwargs(value) if isinstance(value, dict) else value

    return OfficeGymData


@functools.cache
def task_type() -> type[Any]:
    """``OfficeGymTask``: a row with its session, its stop rule, its reward and its gold check."""
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

        async def validate(self, runtime: Any) -> bool | None:
            """``vf-validate``'s gold check: the gold path scores full marks on the row's world."""
            return gold_check(self.data)

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
    """The rollout's state names its session (the rollout's id) and the world the tool server plays."""
    state.session, state.env_id, state.task_id = session, row.env_id, row.task_id
    state.env_kwargs, state.offer_finish = row.env_kwargs, row.offer_finish


def task_key(row: Any) -> str:
    """``env_id:task_id``, with the env's arguments when there are any (another company is another task)."""
    key = f"{row.env_id}:{row.task_id}"
    return key if row.env_kwargs == "{}" else f"{key}:{row.env_kwargs}"


def gold_check(row: Any) -> bool:
    """True when the task's gold path scores 1.0; a world that no longer opens with the row's prompt is an
    error (the row is stale: its grade would not mean what it says), not a failed check."""
    opening, grade = gold_grade(row)
    if opening != row.prompt_text:
        raise ValueError(
            f"{row.env_id} {row.task_id} ({row.source}): the world opens with another message than the row's "
            "prompt; rebuild the rows with officegym.splits.task_rows"
        )
    return bool(grade["reward"] == 1.0)


def score(row: Any, trace: Any) -> float:
    """Grade the rollout's episode, keep the grade on the trace (its numbers as metrics), return the reward."""
    grade, replayed = episode_grade(row, record_of(trace.state))
    trace.info["officegym"] = {
        "env_id": row.env_id,
        "task_id": row.task_id,
        "tier": row.tier,
        "split": row.split,
        "source": row.source,
        "env_kwargs": row.env_kwargs,
        "graded_by": "replay" if replayed else "env",
        "grade": grade,
    }
    numbers = {k: v for k, v in grade.items() if k != "reward" and isinstance(v, int | float)}
    trace.record_metrics({f"grade_{k}": float(v) for k, v in numbers.items()})
    return float(grade["reward"])


# --------------------------------------------------------------------------- the tasksets
@functools.cache
def taskset_config_type() -> type[Any]:
    """``OfficeGymTasksetConfig``: which env, which split and which of its tasks (``--env.taskset.*``)."""
    _load_extra()
    import pydantic
    import verifiers.v1 as vf

    class OfficeGymTasksetConfig(vf.TasksetConfig):  # type: ignore[misc]
        __qualname__ = "OfficeGymTasksetConfig"
        env_id: str = DEFAULT_ENV_ID
        """A registered env id (``officegym.ENV_IDS``, or a domain registered with ``register_env``)."""
        split: str = DEFAULT_SPLIT
        """``"test"`` (the env's evaluation tasks) or ``"train"`` (generated companies or deals that share nothing
        memorable with the test tasks; ``"eval"`` is read as ``"test"``)."""
        sources: int = DEFAULT_SOURCES
        """At most this many task sources of the split (companies, ranges of 200 deals); the test split has one."""
        tiers: list[str] = pydantic.Field(default_factory=list)
        """Only tasks of these tiers (empty: all); ``--select.*`` picks among what is left."""
        offer_finish: bool = False
        """Offer the reserved ``finish`` tool (by default a reply without a tool call ends the episode)."""
        tools: vf.SharedToolsetConfig = vf.SharedToolsetConfig()
        """Where the eval's tool server runs (``--env.taskset.tools.*``; a local subprocess by default)."""

        @pydantic.model_validator(mode="before")
        @classmethod
        def _no_env_kwargs(cls, data: Any) -> Any:
            if isinstance(data, dict) and "env_kwargs" in data:
                raise ValueError(
                    "env_kwargs is no longer an option: each row names its world; pick the rows with split "
                    "('train' or 'test') and sources"
                )
            return data

        @pydantic.field_validator("env_id")
        @classmethod
        def _registered(cls, env_id: str) -> str:
            return check_env_id(env_id)

        @pydantic.field_validator("split")
        @classmethod
        def _split(cls, split: str) -> str:
            return split_name(split)

        @pydantic.field_validator("sources")
        @classmethod
        def _sources(cls, sources: int) -> int:
            return whole_number("sources", sources, minimum=1, maximum=1000, example=DEFAULT_SOURCES)

        @property
        def name(self) -> str:
            """The run's display name part (vf-eval names the run directory after it: no ``/`` in it)."""
            return f"{str(self.env_id).replace('/', '-')}-{self.split}"

    return OfficeGymTasksetConfig


def check_env_id(env_id: str) -> str:
    """Refuse an unregistered id here, with the ids there are, rather than in every rollout's tool server."""
    if env_id not in gym.registry:
        raise ValueError(f"{env_id!r} is not a registered env id; officegym registers {', '.join(officegym.ENV_IDS)}")
    return env_id


@functools.cache
def taskset_type() -> type[Any]:
    """``OfficeGymTaskset``: the rows of one split of any env (``--env.taskset.env-id``), taskset id
    ``verifiers-officegym``; the per-env tasksets are its subclasses."""
    _load_extra()
    import verifiers.v1 as vf

    class OfficeGymTaskset(vf.Taskset[task_type(), taskset_config_type()]):  # type: ignore[misc]
        __qualname__ = "OfficeGymTaskset"

        @classmethod
        def toolsets(cls, config: Any) -> list[Any]:
            return [toolset_type()(config.tools)]

        def load(self) -> Iterator[Any]:
            task_cls = task_type()
            return (task_cls(row, self.config.task) for row in task_data(self.config))

    return OfficeGymTaskset


@functools.cache
def env_taskset_config_type(env_id: str) -> type[Any]:
    """``InvoiceApprovalV1TasksetConfig``: ``OfficeGymTasksetConfig`` for one env id (its package's taskset)."""
    import pydantic

    check_env_id(env_id)
    fixed, package = env_id, package_id(env_id)

    class EnvTasksetConfig(taskset_config_type()):  # type: ignore[misc]
        env_id: str = fixed
        """The env id this package plays (another env is another package)."""

        @pydantic.field_validator("env_id")
        @classmethod
        def _this_env(cls, value: str) -> str:
            if value != fixed:
                raise ValueError(f"{package} plays {fixed}, not {value!r}: use {package_id(value)} for that env")
            return value

    return _named(EnvTasksetConfig, f"{class_prefix(env_id)}TasksetConfig")


@functools.cache
def env_taskset_type(env_id: str) -> type[Any]:
    """``InvoiceApprovalV1Taskset``: the taskset of one env id, what its Hub package exports."""
    import verifiers.v1 as vf

    config_cls = env_taskset_config_type(env_id)

    class EnvTaskset(taskset_type(), vf.Taskset[task_type(), config_cls]):  # type: ignore[misc]
        """``OfficeGymTaskset`` whose config is the env's own (verifiers reads it from these generic arguments)."""

    return _named(EnvTaskset, f"{class_prefix(env_id)}Taskset")


def _named(cls: type[Any], name: str) -> type[Any]:
    """A class built per env id, named as this module's attribute of that name (``__getattr__`` finds it)."""
    cls.__name__ = cls.__qualname__ = name
    cls.__module__ = __name__
    return cls


def task_data(config: Any) -> Iterator[Any]:
    """One task per row of the configured split (``officegym.splits.task_rows``), in the split's order; the
    prompt and system prompt are the row's, from a real reset of its world."""
    data_cls = data_type()
    for row in cached_rows(config.env_id, config.split, config.sources):
        if config.tiers and row["tier"] not in config.tiers:
            continue
        messages = {message["role"]: message["content"] for message in row["prompt"]}
        source = row["source"]
        yield data_cls(
            id=row["task_id"],
            name=f"{row['env_id']}:{row['task_id']}" + ("" if source == "shipped" else f" ({source})"),
            prompt=messages["user"],
            system_prompt=messages["system"],
            env_id=row["env_id"],
            task_id=row["task_id"],
            tier=row["tier"],
            env_kwargs=row["env_kwargs"],
            split=row["split"],
            source=source,
            offer_finish=config.offer_finish,
        )


@functools.cache
def cached_rows(env_id: str, split: str, sources: int) -> tuple[dict[str, Any], ...]:
    """``task_rows`` once per process: a training company is generated in seconds to a minute, and verifiers
    iterates a taskset more than once (selection, resume). The rows are read, never changed."""
    return tuple(split_rows(env_id, split, sources))


def taskset(env_id: str = DEFAULT_ENV_ID, **options: Any) -> Any:
    """The rows of ``env_id`` as a verifiers ``Taskset`` under the id ``verifiers-officegym``; ``options`` are
    ``OfficeGymTasksetConfig`` fields (``split``, ``sources``, ``tiers``, ``offer_finish``, ``tools``, ``task``)."""
    return taskset_type()(taskset_config_type()(id=PLUGIN_ID, env_id=env_id, **options))


def env_taskset(env_id: str, **options: Any) -> Any:
    """The per-env taskset of ``env_id`` (what its Hub package's ``vf-eval`` plays), with ``options`` as above."""
    return env_taskset_type(env_id)(env_taskset_config_type(env_id)(id=package_id(env_id), **options))


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
    """One tool call of the model's; arguments the env would refuse are the model's error, told back here.

    Besides arguments that are not a JSON object, that is what the env's own reader (``parse_action``) refuses:
    values no step can carry (a 5,000-digit number, 5,000-deep nesting, a lone surrogate) once raised on their
    way to the tool server and ended the rollout ungraded; now the model reads the env's ``Error:`` text and
    the rollout goes on. A call without a name still goes to the env, which answers it and counts it."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return "Error: the tool call has no function object; call a tool by name with JSON object arguments."
    given, raw = function.get("name"), function.get("arguments") or "{}"
    name = given if isinstance(given, str) else ""
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as error:
        return f"Error: the tool arguments are not valid JSON ({error}); send them as a JSON object."
    except (ValueError, RecursionError):  # too many digits or too deep: the env's reader says which
        return f"Error: {parse_action({'name': name or '_', 'arguments': raw})[1]}"
    if not isinstance(arguments, dict):
        return f"Error: the tool arguments must be a JSON object, not {type(arguments).__name__}."
    _, problem = parse_action({"name": name or "_", "arguments": arguments})
    return f"Error: {problem}" if problem else await call_tool(name, arguments)


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


def load_environment(
    env_id: str = DEFAULT_ENV_ID,
    split: str = DEFAULT_SPLIT,
    sources: int = DEFAULT_SOURCES,
    *,
    taskset_id: str | None = None,
    **options: Any,
) -> Any:
    """The verifiers ``Env`` of one split of ``env_id`` (what a Hub package's ``load_environment`` returns):
    ``options`` are taskset fields (``tiers``, ``offer_finish``, ``tools``, ``task``). ``taskset_id`` is the
    installed package to load it as (each Hub package passes its own); by default ``verifiers-officegym``."""
    _load_extra()
    import verifiers.v1 as vf

    check_env_id(env_id)
    if taskset_id is None:
        ensure_plugin()
        taskset_id, options = PLUGIN_ID, {"env_id": env_id, **options}
    config = vf.resolve_env_config({"taskset": {"id": taskset_id, "split": split, "sources": sources, **options}})
    if config.taskset.env_id != env_id:
        raise ValueError(f"taskset {taskset_id!r} plays {config.taskset.env_id}, not {env_id}")
    return vf.load_environment(config)


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


def per_env_class(name: str) -> type[Any] | None:
    """``InvoiceApprovalV1Taskset`` / ``...TasksetConfig`` by name, or None when no env id has that name."""
    for env_id in registered_env_ids():
        prefix = class_prefix(env_id)
        if name == f"{prefix}Taskset":
            return env_taskset_type(env_id)
        if name == f"{prefix}TasksetConfig":
            return env_taskset_config_type(env_id)
    return None


def __getattr__(name: str) -> Any:
    """The classes above as module attributes, built on first use (``from ... import OfficeGymTaskset``;
    verifiers resolves ``module:Class`` references, such as a trace's task type, the same way)."""
    if name in BUILDERS:
        return BUILDERS[name]()
    found = per_env_class(name) if name[:1].isupper() else None
    if found is not None:
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def hub_exports(env_id: str) -> dict[str, Any]:
    """What an env id's Hub module exports under ``__all__`` for verifiers: its taskset, the harness and the env
    (exactly one subclass of each, as verifiers' loader requires)."""
    return {
        f"{class_prefix(env_id)}Taskset": env_taskset_type(env_id),
        "OfficeGymHarness": harness_type(),
        "OfficeGymEnv": env_type(),
    }


# --------------------------------------------------------------------------- the command line
def ensure_plugin() -> None:
    """Make the taskset id ``verifiers-officegym`` importable as verifiers expects (a top-level module): the
    installed ``verifiers_officegym`` when there is one, else this package's copy under that name."""
    if PLUGIN_MODULE not in sys.modules and importlib.util.find_spec(PLUGIN_MODULE) is None:
        sys.modules[PLUGIN_MODULE] = importlib.import_module("officegym.integrations.verifiers_officegym")


def eval_arguments(argv: Sequence[str]) -> list[str]:
    """vf-eval's arguments: a leading env id (it has a ``/``) becomes the taskset ``verifiers-officegym`` with
    that env."""
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
