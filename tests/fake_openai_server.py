"""A small OpenAI-compatible HTTP server on loopback that answers from scripted assistant messages.

Tests drive it with the real ``openai`` client, so the whole path (request shapes, response parsing, errors,
retries, timeouts) is exercised without a network or a key. It binds port 0 on 127.0.0.1, serves in daemon
threads, answers at most ``max_requests`` requests and shuts itself down after ``lifetime`` seconds.

A script is chosen by the conversation's opening user message (each task's work order is unique) and picked
up at the number of assistant turns already in the request, so the server keeps no conversation state and
any number of conversations can run at once. Canned answers (``fail_next``) come first: 429, 500, slow
replies, ...; a canned answer with ``at_turn`` waits for a request at that turn.

Like vLLM, it re-parses the arguments of every tool call replayed in a request and answers HTTP 400 when one
is not valid JSON (``strict_arguments``). ``GET /v1/models`` answers the harness's preflight (those requests
are kept in ``probes``, apart from the model requests in ``seen``; ``models_status`` 403 plays a key without
the scope to list models, 404 a server without the route). With ``echo_headers`` every error body
quotes the request's headers, Authorization included, as careless servers and proxies do.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import gymnasium as gym

Message = dict[str, Any]
DONE: Message = {"role": "assistant", "content": "All listed work is done."}
MAX_DELAY = 5.0
REFUSAL = (
    "Function tools with reasoning_effort are not supported for this model in /v1/chat/completions. "
    "Please use /v1/responses instead."
)


@dataclass
class Canned:
    """A forced answer: status, JSON body, headers, and a delay before it (at most ``MAX_DELAY``)."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    answer: bool = False  # after the delay, answer from the script instead of ``body``
    at_turn: int | None = None  # only for a request at this turn (assistant messages in it); None: the next one
    raw: bytes | None = None  # sent instead of ``body`` as JSON: a reply that is not JSON, or not an object


def error(status: int, message: str, headers: dict[str, str] | None = None, *, at_turn: int | None = None) -> Canned:
    return Canned(status, {"error": {"message": message, "type": "test", "code": None}}, headers or {}, at_turn=at_turn)


def slow(delay: float) -> Canned:
    return Canned(delay=delay, answer=True)


@dataclass(frozen=True)
class Seen:
    path: str
    body: dict[str, Any]
    authorization: str
    headers: dict[str, str] = field(default_factory=dict)


class ScriptBook:
    """Assistant messages per conversation, keyed by the opening user message; ``DONE`` once a script ends."""

    def __init__(self, scripts: dict[str, list[Message]]) -> None:
        self.scripts = scripts

    def answer(self, opening: str, turn: int) -> Message:
        script = self.scripts.get(opening)
        if script is None:
            return {"role": "assistant", "content": "I do not know this task."}
        return script[turn] if turn < len(script) else DONE


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (a timeout test) closes the socket under a slow answer: not an error here."""


class FakeOpenAIServer:
    """``with FakeOpenAIServer(book) as server: OpenAI(base_url=server.base_url, ...)``."""

    def __init__(
        self,
        book: ScriptBook | None = None,
        *,
        api_key: str | None = None,
        lifetime: float = 900.0,  # a hang guard: a test on a busy machine may take minutes
        max_requests: int = 20_000,
        refuse_chat_tools: bool = False,
        strict_arguments: bool = True,
        echo_headers: bool = False,
        models_status: int = 200,
    ) -> None:
        self.book = book or ScriptBook({})
        self.api_key = api_key
        self.lifetime = lifetime
        self.max_requests = max_requests
        self.refuse_chat_tools = refuse_chat_tools
        self.strict_arguments = strict_arguments
        self.echo_headers = echo_headers
        self.models_status = models_status
        self.seen: list[Seen] = []
        self.probes: list[Seen] = []
        self._canned: deque[Canned] = deque()
        self._lock = threading.Lock()
        self._httpd: _QuietServer | None = None
        self._timer: threading.Timer | None = None

    # ----------------------------------------------------------------- lifecycle
    def __enter__(self) -> FakeOpenAIServer:
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self._timer = threading.Timer(self.lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        with self._lock:
            httpd, self._httpd = self._httpd, None
        if self._timer is not None:
            self._timer.cancel()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "the server is not running"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def fail_next(self, *answers: Canned) -> None:
        with self._lock:
            self._canned.extend(answers)

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]

    # ----------------------------------------------------------------- answering
    def handle(self, method: str, path: str, body: dict[str, Any], headers: dict[str, str]) -> Canned:
        answer = self._answer(method, path, body, headers)
        problem = answer.body.get("error")
        if self.echo_headers and isinstance(problem, dict):
            problem["message"] = f"{problem.get('message')} (request headers: {json.dumps(headers)})"
        return answer

    def _answer(self, method: str, path: str, body: dict[str, Any], headers: dict[str, str]) -> Canned:
        authorization = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
        seen = Seen(path, body, authorization, headers)
        with self._lock:
            (self.seen if method == "POST" else self.probes).append(seen)
            over_budget = len(self.seen) + len(self.probes) > self.max_requests
            canned = self._next_canned(path, body) if method == "POST" else None
        if over_budget:
            return error(503, "the test server's request budget is spent")
        if canned is not None:
            time.sleep(min(canned.delay, MAX_DELAY))
            if not canned.answer:
                return Canned(canned.status, json.loads(json.dumps(canned.body)), canned.headers, raw=canned.raw)
        if self.api_key is not None and seen.authorization != f"Bearer {self.api_key}":
            return error(401, "Incorrect API key provided.")
        return self._route(method, path, body)

    def _next_canned(self, path: str, body: dict[str, Any]) -> Canned | None:
        """The first canned answer, unless it waits for another turn (called under the lock)."""
        if not self._canned:
            return None
        wanted = self._canned[0].at_turn
        if wanted is not None and wanted != _turn(path, body):
            return None
        return self._canned.popleft()

    def _route(self, method: str, path: str, body: dict[str, Any]) -> Canned:
        if (method, path) == ("GET", "/v1/models"):
            if self.models_status != 200:
                return error(self.models_status, "listing models is not allowed here")
            return Canned(200, {"object": "list", "data": [{"id": "fake-model", "object": "model", "created": 0}]})
        if method == "POST" and path in ("/v1/chat/completions", "/v1/responses"):
            problem = _replayed_arguments_problem(body) if self.strict_arguments else None
            if problem is not None:
                return error(400, problem)
            if path == "/v1/responses":
                return Canned(200, self._response(body))
            if self.refuse_chat_tools and body.get("tools"):
                return error(400, REFUSAL)
            return Canned(200, self._completion(body))
        return error(404, f"no route {method} {path}")

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages", [])
        opening = next((m.get("content") for m in messages if m.get("role") == "user"), "")
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        message = self.book.answer(str(opening), turn)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return {
            "id": f"chatcmpl-{turn}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": _usage(messages, message),
        }

    def _response(self, body: dict[str, Any]) -> dict[str, Any]:
        items = body.get("input", [])
        opening = next((i.get("content") for i in items if i.get("role") == "user"), "")
        turn = _responses_turns(items)
        message = self.book.answer(str(opening), turn)
        usage = _usage(items, message)
        return {
            "id": f"resp_{turn}",
            "object": "response",
            "created_at": 0,
            "model": body.get("model"),
            "status": "completed",
            "output": list(_output_items(message, turn)),
            "error": None,
            "usage": {
                "input_tokens": usage["prompt_tokens"],
                "output_tokens": usage["completion_tokens"],
                "total_tokens": usage["total_tokens"],
                "output_tokens_details": {"reasoning_tokens": 3},
                "input_tokens_details": {"cached_tokens": 0},
            },
        }


def _handler_for(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stall
        # a hang guard, not a limit: a connection silent this long (idle keep-alive, or a client stalled
        # mid-request on a loaded machine) is closed; handler threads are daemons, so none outlives a test
        timeout = 600

        def do_GET(self) -> None:
            self._answer("GET", {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            self._answer("POST", body if isinstance(body, dict) else {})

        def _answer(self, method: str, body: dict[str, Any]) -> None:
            answer = server.handle(method, self.path, body, dict(self.headers.items()))
            payload = answer.raw if answer.raw is not None else json.dumps(answer.body).encode()
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read ``server.seen`` instead."""

    return Handler


def _turn(path: str, body: dict[str, Any]) -> int:
    """The number of assistant turns already in a request."""
    if path.endswith("/responses"):
        return _responses_turns(body.get("input", []))
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


def _replayed_arguments_problem(body: dict[str, Any]) -> str | None:
    """What vLLM says when a replayed tool call's arguments are not JSON (it ``json.loads`` each of them)."""
    chat_calls = [
        c for m in body.get("messages", []) if m.get("role") == "assistant" for c in m.get("tool_calls") or []
    ]
    arguments: list[Any] = [(c.get("function") or {}).get("arguments") for c in chat_calls]
    arguments += [i.get("arguments") for i in body.get("input", []) if i.get("type") == "function_call"]
    for text in arguments:
        try:
            json.loads(text)
        except (TypeError, ValueError) as problem:
            return f"1 validation error: tool call arguments are not valid JSON: {problem}"
    return None


def _usage(prompt: Any, message: Message) -> dict[str, int]:
    prompt_tokens = len(json.dumps(prompt)) // 4
    completion_tokens = len(json.dumps(message)) // 4
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _responses_turns(items: list[dict[str, Any]]) -> int:
    """Assistant turns in a Responses input: runs of assistant messages and function calls."""
    turns, inside = 0, False
    for item in items:
        mine = item.get("type") in ("function_call", "reasoning") or item.get("role") == "assistant"
        turns += mine and not inside
        inside = mine
    return turns


def _output_items(message: Message, turn: int) -> Iterator[dict[str, Any]]:
    if message.get("reasoning_content"):
        yield {
            "type": "reasoning",
            "id": f"rs_{turn}",
            "summary": [{"type": "summary_text", "text": message["reasoning_content"]}],
        }
    if message.get("content"):
        yield {
            "type": "message",
            "id": f"msg_{turn}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": message["content"], "annotations": []}],
        }
    for k, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        yield {
            "type": "function_call",
            "id": f"fc_{turn}_{k}",
            "call_id": call.get("id") or f"fc_{turn}_{k}",
            "name": function["name"],
            "arguments": function["arguments"],
            "status": "completed",
        }


# --------------------------------------------------------------------------- scripts
def native(*calls: dict[str, Any], ids: bool = True, turn: int = 0) -> Message:
    """An assistant message with OpenAI ``tool_calls`` (with or without ids)."""
    entries = []
    for k, call in enumerate(calls):
        arguments = call["arguments"] if isinstance(call["arguments"], str) else json.dumps(call["arguments"])
        entry: dict[str, Any] = {"type": "function", "function": {"name": call["name"], "arguments": arguments}}
        if ids:
            entry["id"] = f"srv_{turn}_{k}"
        entries.append(entry)
    return {"role": "assistant", "content": None, "tool_calls": entries}


def text(content: str, reasoning: str | None = None) -> Message:
    message: Message = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return message


def hermes(*calls: dict[str, Any]) -> str:
    return "Let me check.\n" + "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in calls)


def fenced(call: dict[str, Any]) -> str:
    return f"Next step:\n```json\n{json.dumps(call, indent=2)}\n```"


WRITTEN_FORMATS: list[Callable[[dict[str, Any]], Message]] = [
    lambda c: native(c),
    lambda c: native(c, ids=False),
    lambda c: text(hermes(c)),
    lambda c: text(fenced(c)),
    lambda c: text(json.dumps(c)),
    lambda c: text(f"<think>I should call {c['name']}.</think>{hermes(c)}"),
    lambda c: text(hermes(c), reasoning=f"Calling {c['name']} next."),
]

MALFORMED: list[tuple[str, Message]] = [  # (the parse error kind, an output of that kind)
    ("invalid_json", text('<tool_call>{"name": "whoami", "arguments": {}</tool_call>')),
    ("unclosed_tag", text('<tool_call>{"name": "get_invoice", "arguments": {"invoice_id": "ER-20')),
    ("empty_call", text("<tool_call>  </tool_call>")),
    ("not_an_object", text('```json\n["whoami"]\n```')),
    ("missing_name", text('{"tool": "whoami", "arguments": {}}')),
    ("invalid_arguments", native({"name": "whoami", "arguments": '["x"]'})),
    ("invalid_json", native({"name": "whoami", "arguments": '{"oops": '})),
]
UNKNOWN_TOOL = native({"name": "delete_everything", "arguments": {}})


def oracle_book(env_id: str, task_ids: list[str]) -> ScriptBook:
    """The gold path of each task, one native tool call per message."""
    return ScriptBook(
        {opening: [native(a, turn=t) for t, a in enumerate(gold)] for opening, gold in _gold_paths(env_id, task_ids)}
    )


def malformed_book(env_id: str, task_ids: list[str]) -> ScriptBook:
    """Each malformed output kind once, then the gold path written in every supported format in turn, with
    two calls in one message where the path allows."""
    scripts: dict[str, list[Message]] = {}
    for opening, gold in _gold_paths(env_id, task_ids):
        script = [message for _, message in MALFORMED] + [UNKNOWN_TOOL]
        calls = list(gold)
        if len(calls) >= 3:
            script.append(text(hermes(calls[0], calls[1]), reasoning="Two reads at once."))
            calls = calls[2:]
        script.extend(WRITTEN_FORMATS[k % len(WRITTEN_FORMATS)](call) for k, call in enumerate(calls))
        scripts[opening] = script
    return ScriptBook(scripts)


def _gold_paths(env_id: str, task_ids: list[str]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    env = gym.make(env_id)
    for task_id in task_ids:
        opening, _ = env.reset(options={"task_id": task_id})
        yield opening, env.unwrapped.gold_actions(task_id)  # type: ignore[attr-defined]
    env.close()
