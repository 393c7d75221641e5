"""``officegym eval``, ``show`` and ``replay`` end to end: the real ``openai`` client against the loopback
server on both domains, malformed output, infrastructure errors, resume, audit; and the summary's math."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from officegym.cli import main
from officegym.evaluation.jobs import EvalPlan
from officegym.evaluation.live import LiveView
from officegym.evaluation.records import episode_seed, read_records
from officegym.evaluation.runner import run_eval
from officegym.evaluation.summary import pass_at_k, pass_hat_k, summarize
from officegym.policies.chat import Reply, ScriptedChatPolicy
from officegym.policies.registry import make_policy

from ..fake_openai_server import MALFORMED, FakeOpenAIServer, error, malformed_book, oracle_book
from .helpers import INVOICE, KEY_VAR, RECORD_FIELDS, SECRET, TASKS, VENDOR, evaluate, flat, only_file, records


# --------------------------------------------------------------------------- the full path, both domains
@pytest.mark.parametrize("env_id", [INVOICE, VENDOR])
def test_the_oracle_through_the_openai_client_scores_one_everywhere(
    env_id: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, SECRET)
    with FakeOpenAIServer(oracle_book(env_id, TASKS[env_id]), api_key=SECRET) as server:
        assert evaluate(server, env_id, tmp_path, "-r", "2", "-c", "3", "--temperature", "0") == 0
    path = only_file(tmp_path)
    found = records(path)
    assert sorted(r["key"] for r in found) == sorted(f"{t}#{k}" for t in TASKS[env_id] for k in (0, 1))
    for record in found:
        assert set(record) >= RECORD_FIELDS and not record["has_error"]
        assert record["reward"] == 1.0 == record["grade"]["reward"] and record["stop_reason"] in (
            "finish",
            "terminal_tool",
        )
        assert record["seed"] == episode_seed(0, record["task_id"], record["rollout"])
        assert (record["policy"], record["model"], record["sampling"]["temperature"]) == ("openai", "fake-model", 0.0)
        assert record["endpoint"]["api_key_var"] == KEY_VAR and record["versions"]["officegym"]
        assert record["usage"]["prompt_tokens"] > 0 and record["requests"] == record["turns"]
        assert [m["role"] for m in record["messages"][:3]] == ["system", "user", "assistant"]
        assert len(record["tool_calls"]) == record["grade"]["turns"] - (record["stop_reason"] == "finish")
    summary = json.loads(only_file(tmp_path, ".summary.json").read_text())
    assert summary["summary"]["mean_reward"] == 1.0 and summary["summary"]["episodes"] == 6
    assert summary["summary"]["pass_at_k"] == {"1": 1.0, "2": 1.0} == summary["summary"]["pass_hat_k"]
    assert set(summary["summary"]["tiers"]) == {r["tier"] for r in found} and summary["tools"]
    output = capsys.readouterr()
    assert "pass^2" in output.out and "6 episode(s) run" in output.out
    written = "".join(p.read_text() for p in tmp_path.iterdir())
    assert SECRET not in written + output.out + output.err


@pytest.mark.parametrize("env_id", [INVOICE, VENDOR])
def test_every_malformed_output_kind_is_an_error_observation_and_counted(env_id: str, tmp_path: Path) -> None:
    tasks = TASKS[env_id][:2]
    with FakeOpenAIServer(malformed_book(env_id, tasks)) as server:
        assert evaluate(server, env_id, tmp_path, "--max-turns", "200", tasks=tasks) == 0
    for record in records(only_file(tmp_path)):
        chat = record["chat"]
        assert record["reward"] == 1.0
        assert chat["parse_errors"] == len(MALFORMED)
        assert chat["parse_error_kinds"] == dict(sorted(Counter(kind for kind, _ in MALFORMED).items()))
        assert record["grade"]["invalid_calls"] == len(MALFORMED) + 1  # and one unknown tool
        assert {"tool_calls", "hermes", "fenced_json", "bare_json"} <= set(chat["formats"])
        assert chat["reasoning_turns"] > 0
        errors = [m["content"] for m in record["messages"] if str(m.get("content")).startswith("Error:")]
        assert len(errors) == len(MALFORMED) + 1 and all("<tool_call>" in e for e in errors[: len(MALFORMED)])


def test_scripted_policies_run_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", VENDOR, "--policy", "oracle", "-n", "3", "-o", str(tmp_path / "o.jsonl"), "-q"]) == 0
    assert [r["reward"] for r in records(tmp_path / "o.jsonl")] == [1.0, 1.0, 1.0]
    assert main(["eval", VENDOR, "--policy", "lazy", "-n", "3", "-o", str(tmp_path), "-q"]) == 0
    lazy = records(tmp_path / "VendorReview-v0__lazy.jsonl")
    assert all(r["reward"] < 1.0 and r["model"] is None for r in lazy)
    assert main(["eval", VENDOR, "--policy", "solver", "-o", str(tmp_path), "-q"]) == 2
    assert "Error: the solver policy plays officegym/InvoiceApproval-v0 only" in capsys.readouterr().err


# --------------------------------------------------------------------------- errors, resume
def test_infrastructure_errors_are_recorded_unscored_and_rerun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(oracle_book(INVOICE, TASKS[INVOICE])) as server:
        server.fail_next(error(500, "boom"), error(503, "down"))
        flags = ("-c", "1", "--max-retries", "0", "--episode-retries", "0")
        assert evaluate(server, INVOICE, tmp_path, *flags) == 1
        assert "Error: 2 episode(s) failed on infrastructure" in capsys.readouterr().err
        path = only_file(tmp_path)
        failed = [r for r in records(path) if r["has_error"]]
        assert len(failed) == 2 and failed[0]["reward"] is None and "HTTP 500: boom" in failed[0]["error"]
        summary = json.loads(only_file(tmp_path, ".summary.json").read_text())["summary"]
        assert (summary["episodes"], summary["errors"], summary["mean_reward"]) == (1, 2, 1.0)
        assert main(["show", str(path), "--episode", failed[0]["key"]]) == 0
        assert "infrastructure error (not scored)" in capsys.readouterr().out
        before = len(server.seen)
        assert evaluate(server, INVOICE, tmp_path, *flags) == 0
        rerun = {s.body["messages"][1]["content"] for s in server.seen[before:]}
    assert len(rerun) == 2 and all(not r["has_error"] and r["reward"] == 1.0 for r in records(path))
    assert len(path.read_text().splitlines()) == 5


def test_episode_retries_absorb_transient_failures(tmp_path: Path) -> None:
    with FakeOpenAIServer(oracle_book(INVOICE, ["single-1"])) as server:
        server.fail_next(error(500, "boom"))
        assert evaluate(server, INVOICE, tmp_path, "--max-retries", "0", tasks=["single-1"]) == 0
    (record,) = records(only_file(tmp_path))
    assert record["attempts"] == 2 and record["reward"] == 1.0


def test_a_policy_that_crashes_is_recorded_as_an_error(tmp_path: Path) -> None:
    class Broken:
        name: str = "broken"
        model: str | None = None

        def reset(self, observation: str, info: dict[str, Any]) -> None: ...

        def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
            raise RuntimeError("policy bug")

        def describe(self) -> dict[str, Any]:
            return {"policy": "broken", "model": None, "sampling": {}, "endpoint": {}}

    plan = EvalPlan(INVOICE, ["single-1"], Broken().describe(), tmp_path / "b.jsonl", episode_retries=1)
    outcome = run_eval(plan, lambda env, seed: Broken(), Console(file=io.StringIO()))
    (record,) = records(tmp_path / "b.jsonl")
    assert record["has_error"] and record["error"] == "RuntimeError: policy bug" and record["attempts"] == 2
    assert outcome.summary["errors"] == 1 and outcome.summary["episodes"] == 0


def test_a_refused_key_stops_the_run_before_any_episode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, "sk-wrong")
    with FakeOpenAIServer(oracle_book(INVOICE, TASKS[INVOICE]), api_key=SECRET) as server:
        assert evaluate(server, INVOICE, tmp_path, "-c", "1", "--max-retries", "0") == 2
        assert server.seen == [] and len(server.probes) == 1  # the preflight only
        url = server.base_url
    err = flat(capsys.readouterr().err)
    assert f"Error: the model endpoint {url} refused the API key from {KEY_VAR} (HTTP 401" in err
    assert "sk-wrong" not in err and not list(tmp_path.iterdir())


def test_a_key_refused_during_the_run_stops_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, SECRET)
    with FakeOpenAIServer(oracle_book(INVOICE, TASKS[INVOICE]), api_key=SECRET) as server:
        server.fail_next(error(401, "key revoked"))
        assert evaluate(server, INVOICE, tmp_path, "-c", "1", "--max-retries", "0") == 2
        assert len(server.seen) <= 2  # the worker may have started the next episode before the run stopped
    err = capsys.readouterr().err
    assert "Error: the model endpoint refused the run (HTTP 401: key revoked" in err
    assert records(only_file(tmp_path)) == []


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    with FakeOpenAIServer(oracle_book(INVOICE, TASKS[INVOICE])) as server:
        assert evaluate(server, INVOICE, tmp_path, "-c", "1") == 0
        path = only_file(tmp_path)
        lines = path.read_text().splitlines()
        path.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])  # killed while writing the second
        before = len(server.seen)
        assert evaluate(server, INVOICE, tmp_path, "-c", "2") == 0
        resumed = {s.body["messages"][1]["content"] for s in server.seen[before:]}
    assert len(resumed) == 2
    found, unreadable = read_records(path)
    assert unreadable == 1 and len(found) == 3 and all(r["reward"] == 1.0 for r in found)
    assert main(["replay", str(path)]) == 0


def test_ctrl_c_keeps_finished_episodes_and_the_next_run_completes(tmp_path: Path) -> None:
    class Interrupted:
        name: str = "oracle"
        model: str | None = None

        def __init__(self, env: Any, seed: int, interrupt: bool) -> None:
            self.inner = ScriptedChatPolicy(make_policy("oracle", env, seed))
            self.interrupt = interrupt and env.unwrapped.task_ids == ["batch-1"]

        def reset(self, observation: str, info: dict[str, Any]) -> None:
            self.inner.reset(observation, info)

        def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
            if self.interrupt and len(messages) > 6:  # Ctrl-C in the middle of the second episode
                raise KeyboardInterrupt
            reply: Reply = self.inner.respond(messages, tools)
            return reply

        def describe(self) -> dict[str, Any]:
            return {"policy": "oracle"}

    plan = EvalPlan(INVOICE, TASKS[INVOICE], {"policy": "oracle"}, tmp_path / "i.jsonl", concurrency=1)
    with pytest.raises(KeyboardInterrupt):
        run_eval(plan, lambda env, seed: Interrupted(env, seed, True), Console(file=io.StringIO()))
    assert [r["key"] for r in records(tmp_path / "i.jsonl")] == ["single-1#0"]
    outcome = run_eval(plan, lambda env, seed: Interrupted(env, seed, False), Console(file=io.StringIO()))
    assert (outcome.ran, outcome.skipped, outcome.summary["mean_reward"]) == (2, 1, 1.0)


def test_resuming_with_other_settings_is_refused_unless_restarted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = ["single-1"]
    with FakeOpenAIServer(oracle_book(INVOICE, tasks)) as server:
        assert evaluate(server, INVOICE, tmp_path, tasks=tasks) == 0
        assert evaluate(server, INVOICE, tmp_path, "--temperature", "0.7", tasks=tasks) == 2
        assert "holds episodes run with another sampling" in capsys.readouterr().err
        assert evaluate(server, INVOICE, tmp_path, "--temperature", "0.7", "--restart", tasks=tasks) == 0
    (record,) = records(only_file(tmp_path))
    assert record["sampling"]["temperature"] == 0.7


# --------------------------------------------------------------------------- show and replay
@pytest.fixture()
def results(tmp_path: Path) -> Path:
    with FakeOpenAIServer(malformed_book(INVOICE, ["single-1", "single-2"])) as server:
        assert evaluate(server, INVOICE, tmp_path, tasks=["single-1", "single-2"]) == 0
    return only_file(tmp_path)


def test_show_lists_episodes_and_renders_one(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(results)]) == 0
    listing = capsys.readouterr().out
    assert "single-1#0" in listing and "single-2#0" in listing and "mean reward" in listing
    assert main(["show", str(results), "--episode", "single-2#0"]) == 0
    shown = capsys.readouterr().out
    assert "single-2#0" in shown and "assistant" in shown and "whoami" in shown and "state_matches" in shown
    assert "Error: the tool call is not valid JSON" in shown
    assert main(["show", str(results), "--episode", "1", "--full"]) == 0
    assert "Invoice approval policy" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--episode", "7"], "--episode 7 is out of range: the file has 2 episode(s)"),
        (["--episode", "hard-9#3"], "no episode 'hard-9#3' in the file"),
    ],
)
def test_show_refuses_unknown_episodes(
    results: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["show", str(results), *argv]) == 2
    assert f"Error: {message}" in capsys.readouterr().err


def test_show_and_replay_refuse_missing_or_empty_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(tmp_path / "none.jsonl")]) == 2
    (tmp_path / "empty.jsonl").write_text("not json\n")
    assert main(["replay", str(tmp_path / "empty.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "Error: no results file at" in err and "holds no episode records" in err and "skipped 1 unreadable" in err


def test_replay_reproduces_stored_grades(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(results)]) == 0
    assert "replay: all 2 match (grade and transcript)" in capsys.readouterr().out
    assert main(["replay", str(results), "--episode", "single-1"]) == 0


def test_replay_catches_an_edited_grade_and_an_edited_transcript(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    lines[0]["grade"]["ledger_mismatches"] = 7
    decision = next(
        m
        for m in lines[1]["messages"]
        if m["role"] == "assistant"
        and any(
            c["function"]["name"].endswith("_invoice") and c["function"]["name"] != "get_invoice"
            for c in m.get("tool_calls") or []
        )
    )
    decision["tool_calls"] = [{"id": "edited", "type": "function", "function": {"name": "whoami", "arguments": "{}"}}]
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["replay", str(results)]) == 1
    captured = capsys.readouterr()
    assert "Error: 2 of 2 episode(s) did not reproduce their stored grade" in captured.err
    assert "DIFFERS" in captured.out


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--policy", "oracle", "-n", "0"], "-n/--num-tasks must be at least 1"),
        (["--policy", "oracle", "-r", "0"], "-r/--rollouts must be at least 1"),
        (["--policy", "oracle", "-c", "0"], "-c/--concurrency must be at least 1"),
        (["--policy", "oracle", "--episode-retries", "-1"], "--episode-retries must be 0 or more"),
        (["--policy", "oracle", "--task-ids", "single-1,nope"], "unknown task id(s) ['nope']"),
        (["--policy", "oracle", "--tier", "impossible"], "unknown tier 'impossible'"),
        (["--policy", "oracle", "--max-turns", "3"], "max_turns=3 is below the gold path"),
        (["--policy", "oracle", "--env-kwargs", "[1]"], "--env-kwargs must be a JSON object, got list"),
        (["--policy", "oracle", "--env-kwargs", "{oops"], "--env-kwargs must be a JSON object"),
        (["--policy", "oracle", "--env-kwargs", '{"tier": "long"}'], "--env-kwargs must not set tier"),
        (["--policy", "openai"], "--model is required with --policy openai"),
        (["-m", "x", "--timeout", "0"], "--timeout must be a positive number"),
        (["-m", "x", "--extra-body", "3"], "--extra-body must be a JSON object, got int"),
    ],
)
def test_eval_refuses_bad_input_with_an_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["eval", INVOICE, "-b", "http://127.0.0.1:9/v1", "-o", str(tmp_path), "-q", *argv]) == 2
    assert f"Error: {message}" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_unknown_env_and_bad_numbers_are_usage_errors() -> None:
    with pytest.raises(SystemExit):
        main(["eval", "officegym/Nope-v0", "--policy", "oracle"])
    with pytest.raises(SystemExit):
        main(["eval", INVOICE, "-n", "many"])


# --------------------------------------------------------------------------- summary and live view
def test_pass_at_k_and_pass_hat_k() -> None:
    assert pass_at_k(4, 2, 1) == pytest.approx(0.5) and pass_hat_k(4, 2, 1) == pytest.approx(0.5)
    assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6) and pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_at_k(3, 0, 3) == 0.0 and pass_hat_k(3, 3, 3) == 1.0 and pass_at_k(3, 1, 3) == 1.0
    with pytest.raises(ValueError, match=r"k must be in 1\.\.n"):
        pass_at_k(2, 1, 3)


def test_summary_per_tier_with_partial_credit_and_errors() -> None:
    def record(task: str, tier: str, reward: float | None) -> dict[str, Any]:
        return {
            "task_id": task,
            "tier": tier,
            "reward": reward,
            "has_error": reward is None,
            "stop_reason": "finish",
            "usage": {"prompt_tokens": 10},
            "chat": {"parse_errors": 1},
        }

    found = [
        record("a", "easy", 1.0),
        record("a", "easy", 0.0),
        record("b", "hard", 0.9),
        record("b", "hard", 1.0),
        record("c", "hard", None),
    ]
    summary = summarize(found)
    assert (summary["episodes"], summary["errors"], summary["tasks"]) == (4, 1, 2)
    assert summary["mean_reward"] == pytest.approx(0.725) and summary["tiers"]["hard"]["mean_reward"] == 0.95
    assert summary["pass_at_k"] == {"1": 0.5, "2": 1.0} and summary["pass_hat_k"] == {"1": 0.5, "2": 0.0}
    assert list(summary["tiers"]) == ["easy", "hard"] and summary["usage"] == {"prompt_tokens": 40}
    assert summarize(found, threshold=0.9)["pass_hat_k"]["2"] == 0.5
    assert summarize([])["mean_reward"] is None


def test_the_live_view_draws_progress_and_scores_on_a_terminal() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, color_system=None, width=100)
    with LiveView(console, "run", 2) as view:
        view.add({"tier": "easy", "has_error": False, "reward": 1.0, "usage": {"prompt_tokens": 1200}})
        view.add({"tier": "easy", "has_error": True, "reward": None})
    drawn = screen.getvalue()
    assert "2/2" in drawn and "1/1" in drawn and "tokens in 1,200" in drawn
