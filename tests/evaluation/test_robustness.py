"""``officegym eval``, ``show`` and ``replay`` against what real models and endpoints send (issue 11): a
malformed native tool call, a server refusing the model's output, a failure mid-episode, torn and undecodable
results files, a wrong base URL, a server that echoes the Authorization header, ``OPENAI_BASE_URL``."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from officegym.cli import main
from officegym.evaluation.records import RecordWriter, read_records
from officegym.policies.chat import REDACTED
from officegym.wrappers.chat import UNPARSED_ARGUMENTS

from ..fake_openai_server import FakeOpenAIServer, ScriptBook, error, native, oracle_book
from .helpers import INVOICE, KEY_VAR, SECRET, evaluate, flat, only_file, records

SINGLE = ["single-1", "single-2", "single-3"]
BROKEN = '{"invoice_id": '


def broken_first_book(task_id: str) -> ScriptBook:
    """The gold path of ``task_id``, after a native call whose arguments are not JSON."""
    ((opening, gold),) = oracle_book(INVOICE, [task_id]).scripts.items()
    return ScriptBook({opening: [native({"name": "get_invoice", "arguments": BROKEN}, turn=99), *gold]})


def refused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# --------------------------------------------------------------------------- 1. malformed calls, refused output
@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_malformed_native_call_does_not_poison_the_conversation(
    api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fake server re-parses replayed arguments like vLLM: had the broken text gone back verbatim, every
    later request would be a 400 and the episode an unscored error."""
    with FakeOpenAIServer(broken_first_book("single-1")) as server:
        assert evaluate(server, INVOICE, tmp_path, "--api", api, tasks=["single-1"]) == 0
        requests = len(server.seen)
    (record,) = records(only_file(tmp_path))
    assert not record["has_error"] and record["reward"] == 1.0 and record["requests"] == requests
    sent = record["messages"][2]["tool_calls"][0]["function"]
    assert sent == {"name": "get_invoice", "arguments": json.dumps({UNPARSED_ARGUMENTS: BROKEN})}
    assert record["messages"][3]["content"].startswith("Error: the arguments of 'get_invoice' are not valid JSON")
    assert record["chat"]["parse_error_kinds"] == {"invalid_json": 1}
    assert main(["replay", str(only_file(tmp_path))]) == 0
    assert "replay: all 1 match" in capsys.readouterr().out


def test_a_request_refused_after_a_turn_ends_the_episode_as_the_models_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(oracle_book(INVOICE, ["single-1"])) as server:
        server.fail_next(error(400, "tool_calls[0].id must be 9 alphanumeric characters", at_turn=2))
        assert evaluate(server, INVOICE, tmp_path, tasks=["single-1"]) == 0
        assert len(server.seen) == 3  # never retried: the same transcript would be refused again
    path = only_file(tmp_path)
    (record,) = records(path)
    assert not record["has_error"] and record["stop_reason"] == "rejected_output" and record["turns"] == 2
    assert record["stop_detail"].startswith("HTTP 400: tool_calls[0].id must be")
    assert record["reward"] == record["grade"]["reward"] == 0.0
    summary = json.loads(only_file(tmp_path, ".summary.json").read_text())["summary"]
    assert (summary["episodes"], summary["errors"], summary["stop_reasons"]) == (1, 0, {"rejected_output": 1})
    assert main(["replay", str(path)]) == 0 and main(["show", str(path), "--episode", "0"]) == 0
    assert "stopped by: HTTP 400" in flat(capsys.readouterr().out)


def test_an_infrastructure_failure_keeps_the_transcript_so_far(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ("--max-retries", "0", "--episode-retries", "0")
    with FakeOpenAIServer(oracle_book(INVOICE, ["single-1"])) as server:
        server.fail_next(error(500, "the GPU fell over", at_turn=2))
        assert evaluate(server, INVOICE, tmp_path, *flags, tasks=["single-1"]) == 1
        path = only_file(tmp_path)
        (failed,) = records(path)
        assert failed["has_error"] and failed["reward"] is None and "HTTP 500: the GPU fell over" in failed["error"]
        roles = [m["role"] for m in failed["messages"]]
        assert roles == ["system", "user", "assistant", "tool", "assistant", "tool"] and failed["turns"] == 2
        assert failed["tier"] == "single" and failed["usage"]["prompt_tokens"] > 0
        assert main(["show", str(path), "--episode", "0"]) == 0
        shown = capsys.readouterr().out
        assert "infrastructure error (not scored)" in shown and "whoami" in shown
        assert evaluate(server, INVOICE, tmp_path, *flags, tasks=["single-1"]) == 0
    (rerun,) = records(path)
    assert not rerun["has_error"] and rerun["reward"] == 1.0


# --------------------------------------------------------------------------- 2. torn and undecodable lines
def tear(path: Path) -> None:
    """Put an invalid UTF-8 byte inside the second record, and cut the last one inside a multi-byte
    character (as a crash in the middle of a write leaves it)."""
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 3
    middle = len(lines[1]) // 2
    lines[1] = lines[1][:middle] + b"\xff" + lines[1][middle + 1 :]
    multibyte = next(i for i, byte in enumerate(lines[2]) if byte >= 0xC2)  # the lead byte of a character
    lines[2] = lines[2][: multibyte + 1]
    path.write_bytes(b"".join(lines))


def test_torn_and_undecodable_lines_are_skipped_by_eval_show_and_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(oracle_book(INVOICE, SINGLE)) as server:
        assert evaluate(server, INVOICE, tmp_path, "-c", "1", tasks=SINGLE) == 0
        path = only_file(tmp_path)
        tear(path)
        with pytest.raises(UnicodeDecodeError):
            path.read_text(encoding="utf-8")
        assert [len(found) for found in [read_records(path)[0]]] == [1] and read_records(path)[1] == 2
        capsys.readouterr()
        assert main(["show", str(path)]) == 0
        assert main(["replay", str(path)]) == 0
        out, err = capsys.readouterr()
        assert "single-1#0" in out and "replay: all 1 match" in out
        assert err.count(f"warning: skipped 2 unreadable line(s) in {path}") == 2
        before = len(server.seen)
        assert evaluate(server, INVOICE, tmp_path, "-c", "1", tasks=SINGLE) == 0
        resumed = {s.body["messages"][1]["content"] for s in server.seen[before:]}
    assert "warning: skipped 2 unreadable line(s)" in flat(capsys.readouterr().err) and len(resumed) == 2
    found, unreadable = read_records(path)
    assert unreadable == 2 and sorted(r["key"] for r in found) == [f"{t}#0" for t in SINGLE]
    assert all(r["reward"] == 1.0 for r in found)


def test_a_lone_surrogate_from_a_model_is_written_and_read_back(tmp_path: Path) -> None:
    """A server may send ``\\udcff`` in its JSON; Python decodes it to a lone surrogate, which UTF-8 cannot
    encode. The record keeps it as its JSON escape instead of failing the write."""
    message = {"role": "assistant", "content": "a \udcff b \\ \udcff"}
    record: dict[str, Any] = {
        "key": "t#0",
        "env_id": "e",
        "task_id": "t",
        "rollout": 0,
        "has_error": True,
        "grade": {},
        "messages": [message],
    }
    writer = RecordWriter(tmp_path / "r.jsonl")
    writer.write(record)
    writer.close()
    assert read_records(tmp_path / "r.jsonl") == ([record], 0)


# --------------------------------------------------------------------------- 3. a wrong base URL
def test_a_refused_base_url_ends_the_run_at_once_naming_the_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the default retries (6, from 1 s) a refused port used to cost minutes; the preflight ends it before
    any episode asks the model (counted, not timed: a time limit fails on a busy machine)."""
    from officegym.policies.openai_policy import OpenAIPolicy

    asked: list[int] = []
    respond = OpenAIPolicy.respond

    def counted(self: OpenAIPolicy, *args: Any) -> Any:
        asked.append(1)
        return respond(self, *args)

    monkeypatch.setattr(OpenAIPolicy, "respond", counted)
    url = f"http://127.0.0.1:{refused_port()}/v1"
    argv = ["eval", INVOICE, "-m", "fake-model", "-b", url, "--task-ids", "single-1,single-2", "-o", str(tmp_path)]
    assert main([*argv, "-q"]) == 2
    err = flat(capsys.readouterr().err)
    assert f"Error: cannot connect to the model endpoint {url}" in err and "check --base-url" in err
    assert not list(tmp_path.iterdir())
    assert asked == []  # no episode started, so none retried: the preflight's one request ended the run


def test_a_base_url_without_the_api_ends_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer(oracle_book(INVOICE, ["single-1"])) as server:
        wrong = server.base_url.removesuffix("/v1")
        argv = ["eval", INVOICE, "-m", "fake-model", "-b", wrong, "--task-ids", "single-1", "-o", str(tmp_path)]
        assert main([*argv, "-q"]) == 2
    err = flat(capsys.readouterr().err)
    assert f"Error: the model endpoint {wrong} has no OpenAI-compatible API (HTTP 404" in err
    assert "usually end it in /v1" in err and not list(tmp_path.iterdir())


def test_openai_base_url_is_honoured_and_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OFFICEGYM_EVAL_UNSET_KEY", raising=False)
    with FakeOpenAIServer(oracle_book(INVOICE, ["single-1"])) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        argv = ["eval", INVOICE, "-m", "fake-model", "-k", "OFFICEGYM_EVAL_UNSET_KEY", "--task-ids", "single-1"]
        assert main([*argv, "-o", str(tmp_path), "-q"]) == 0
        assert server.seen[0].authorization == "Bearer EMPTY"  # a local endpoint needs no key
        url = server.base_url
    (record,) = records(only_file(tmp_path))
    assert record["endpoint"]["base_url"] == url and record["reward"] == 1.0


# --------------------------------------------------------------------------- 4. secrets
def test_the_key_never_reaches_a_file_or_the_terminal_when_the_server_echoes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, SECRET)
    tasks = ["single-1", "single-2"]
    flags = ("-c", "1", "--max-retries", "0", "--episode-retries", "0")
    with FakeOpenAIServer(oracle_book(INVOICE, tasks), api_key=SECRET, echo_headers=True) as server:
        server.fail_next(error(500, "boom", at_turn=1), error(400, "cannot read that call", at_turn=2))
        assert evaluate(server, INVOICE, tmp_path, *flags, tasks=tasks) == 1
    path = only_file(tmp_path)
    failed, rejected = sorted(records(path), key=lambda r: not r["has_error"])
    assert failed["has_error"] and "request headers" in failed["error"]
    assert rejected["stop_reason"] == "rejected_output" and "request headers" in rejected["stop_detail"]
    for key in ("0", "1"):
        assert main(["show", str(path), "--episode", key]) == 0
    assert main(["show", str(path)]) == 0
    output = capsys.readouterr()
    written = "".join(p.read_text(encoding="utf-8") for p in tmp_path.iterdir())
    assert f"Bearer {REDACTED}" in written  # the server did echo it, and it was redacted
    assert SECRET not in written + output.out + output.err
