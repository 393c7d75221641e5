"""officegym's tools as an MCP server, for OpenEnv's ``MCPEnvironment`` (``integrations/openenv.py``).

OpenEnv's convention for tool-calling environments (RFC 003) is an ``MCPEnvironment`` that owns a FastMCP
server: ``ListToolsAction`` / ``CallToolAction`` steps (what OpenEnv's ``MCPToolClient`` sends over ``/ws``) and
JSON-RPC ``tools/list`` / ``tools/call`` on ``/mcp`` both reach that server's tools. Here the tools are made from
the env's own ``tool_schemas`` plus ``finish``, with no code per domain: a tool's name, description and input
schema are the function schema the env gives an LLM, and calling it is one ``env.step`` of that call.

What a call answers, so that a remote agent sees exactly what a local one does:

- the content is the env's observation text, and the result is that text (``structuredContent`` ``{"result":
  text}`` under FastMCP's wrapped-result convention, so ``MCPToolClient.call_tool`` returns the text itself);
- ``_meta["officegym"]`` carries the step's ``reward``, ``done``, ``truncated``, ``grade`` (on the episode's last
  step) and ``info`` (``turn``, ``is_error``);
- a refused call (unknown tool, wrong arguments, an invalid transition) is the env's ``Error: ...`` text as an
  ordinary result, not an MCP error: locally it is an observation, so it is one here too, and an MCP client that
  raises on ``isError`` (FastMCP's and OpenEnv's do) would otherwise end the agent's episode on a typo. The
  arguments are not checked against the schema before the env sees them, for the same reason (the env's own
  checks give the agent its usual message). ``info["is_error"]`` in the meta says it was refused.

Every tool runs on the event loop thread that calls it (the tools are coroutines that step the env directly), so
the server's rule that one thread makes every env call holds on the MCP paths too.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from ..envs.core.actions import FINISH_SCHEMA
from .openenv_session import Step, Turn

RESERVED: Final = frozenset({"reset", "step", "state", "close"})
"""OpenEnv's reserved names (``mcp_types.RESERVED_TOOL_NAMES``): an env with a tool of one of them cannot be served."""
META_KEY: Final = "officegym"
TEXT_RESULT: Final = {
    "type": "object",
    "properties": {"result": {"type": "string", "description": "the env's observation: a tool result or Error: ..."}},
    "required": ["result"],
    "x-fastmcp-wrap-result": True,
}
"""The output schema of every tool: a text, wrapped as FastMCP does for results that are not objects."""


def tool_specs(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"name", "description", "parameters"}`` of each env tool and of ``finish`` (the agent needs a way to say it
    is done: the gold paths end with it), in the env's order."""
    specs = [dict(schema["function"]) for schema in [*schemas, FINISH_SCHEMA]]
    clashes = sorted({spec["name"] for spec in specs} & RESERVED)
    if clashes:
        raise ValueError(f"tools named {', '.join(clashes)} cannot be served over OpenEnv (reserved names)")
    return specs


def episode_meta(turn: Turn) -> dict[str, Any]:
    """What a tool call did to the episode, for ``_meta["officegym"]``."""
    return {
        "reward": turn.reward,
        "done": turn.done,
        "truncated": turn.truncated,
        "grade": turn.grade,
        "info": turn.info,
    }


def tool_server(name: str, schemas: list[dict[str, Any]], step: Step) -> Any:
    """A FastMCP server whose tools are the env's, each one ``step`` of its call; unknown names reach the env too."""
    from fastmcp import FastMCP

    server = FastMCP(name)
    specs = tool_specs(schemas)
    tool_class = _tool_class()
    for spec in specs:
        server.add_tool(tool_class.made(spec, step))
    server.add_middleware(_middleware_class()({spec["name"] for spec in specs}, step))
    return server


def tool_result(turn: Turn) -> Any:
    """The MCP result of one env step (see the module docstring)."""
    from fastmcp.tools import ToolResult

    meta = {"fastmcp": {"wrap_result": True}, META_KEY: episode_meta(turn)}
    return ToolResult(content=turn.text, structured_content={"result": turn.text}, meta=meta)


@functools.cache
def _tool_class() -> Any:
    from fastmcp.tools import Tool
    from pydantic import PrivateAttr

    class OfficeTool(Tool):
        """One env tool: the call goes to the env as sent (the env checks its arguments)."""

        _step: Step = PrivateAttr()

        @classmethod
        def made(cls, spec: dict[str, Any], step: Step) -> OfficeTool:
            tool = cls(
                name=spec["name"],
                description=spec.get("description", ""),
                parameters=spec.get("parameters") or {"type": "object", "properties": {}},
                output_schema=TEXT_RESULT,
            )
            tool._step = step
            return tool

        async def run(self, arguments: dict[str, Any]) -> Any:
            return tool_result(self._step({"name": self.name, "arguments": arguments}))

    return OfficeTool


@functools.cache
def _middleware_class() -> Any:
    from fastmcp.server.middleware import Middleware

    class UnknownToolsToTheEnv(Middleware):
        """A call of a tool the server does not have goes to the env, which answers its own ``Error: ...``
        (FastMCP would answer a protocol error, which MCP clients raise)."""

        def __init__(self, names: set[str], step: Step) -> None:
            self.names, self.step = names, step

        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            message = context.message
            if message.name in self.names:
                return await call_next(context)
            arguments = {} if message.arguments is None else message.arguments
            return tool_result(self.step({"name": message.name, "arguments": arguments}))

    return UnknownToolsToTheEnv


# --------------------------------------------------------------------------- MCP actions over /ws
def result_payload(turn: Turn) -> dict[str, Any]:
    """The MCP result of a step as a ``CallToolObservation`` carries it: FastMCP's client result fields (its
    ``data`` is what ``MCPToolClient.call_tool`` returns), as plain JSON."""
    return {
        "content": [{"type": "text", "text": turn.text}],
        "structured_content": {"result": turn.text},
        "meta": {META_KEY: episode_meta(turn)},
        "data": turn.text,
        "is_error": False,
    }


def turn_of(result: Any) -> Turn | None:
    """The step an MCP result reports (from its ``_meta``), or None if the env was never reached."""
    meta = getattr(result, "meta", None) or {}
    episode = meta.get(META_KEY)
    if not isinstance(episode, dict):
        return None
    text = getattr(result, "data", None)
    if not isinstance(text, str):
        text = next((block.text for block in getattr(result, "content", []) if hasattr(block, "text")), "")
    return Turn(
        text=text,
        reward=episode["reward"],
        done=episode["done"],
        truncated=episode["truncated"],
        grade=episode["grade"],
        info=episode["info"],
    )


def env_call(payload: dict[str, Any]) -> dict[str, Any]:
    """A ``call_tool`` payload that is not a valid ``CallToolAction`` (a non-string name, arguments that are not
    an object, extra keys), as the tool call it stands for, for the env to judge and answer ``Error: ...``."""
    call = {key: value for key, value in payload.items() if key not in ("type", "tool_name", "metadata")}
    if "tool_name" in payload:
        call["name"] = payload["tool_name"]
    return call


# --------------------------------------------------------------------------- connecting only when used
class LazyClient:
    """FastMCP's in-memory client of one session's tool server, connected on its first call.

    OpenEnv holds every session's ``mcp_session()`` open for the session's lifetime, which with FastMCP's own
    client means an MCP handshake per session on the event loop: about 35 ms a session on this project's
    2-core machine, which made 80 sessions opening at once overrun OpenEnv's 10 s WebSocket connect timeout.
    Most sessions (a trainer's tool calls over ``/ws``) never use MCP, so this client connects on its first
    ``list_tools`` or ``call_tool`` and the environment disconnects it when its outermost ``mcp_session()``
    exits (``disconnect``). It answers what OpenEnv's server and ``MCPEnvironment`` ask of a client.
    """

    def __init__(self, server: Any) -> None:
        from fastmcp import Client

        self.client = Client(server)
        self._stack: Any = None

    def is_connected(self) -> bool:
        connected: bool = self.client.is_connected()
        return connected

    async def connected(self) -> Any:
        """The FastMCP client, connected (now, if it was not)."""
        if not self.client.is_connected():
            from contextlib import AsyncExitStack

            stack = AsyncExitStack()
            await stack.enter_async_context(self.client)
            self._stack = stack
        return self.client

    async def list_tools(self) -> Any:
        return await (await self.connected()).list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> Any:
        return await (await self.connected()).call_tool(name, arguments, **options)

    async def disconnect(self) -> None:
        """End the connection, if one was made."""
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()
