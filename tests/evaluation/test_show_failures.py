"""``show`` and ``replay`` as a person reads them at 80 columns: failure rows per record, the list in task order
without columns that say nothing, and a replay that says ``all N match`` and lists only differences."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from rich.console import Console

from officegym.cli import main
from officegym.evaluation.show import episode_list

from ..fake_openai_server import FakeOpenAIServer, ScriptBook, native
from .helpers import evaluate, only_file

V1 = "officegym/InvoiceApproval-v1"
WRONG = "ER-2026-00082"  # single-2's gold path rejects it (VAT_ERROR); the script approves it


def changed_book(env_id: str, task_ids: list[str]) -> ScriptBook:
    """Each task's gold path, one native call a message, with ``WRONG`` approved instead of rejected."""
    env = gym.make(env_id)
    scripts: dict[str, list[dict[str, Any]]] = {}
    for task_id in task_ids:
        opening, _ = env.reset(options={"task_id": task_id})
        calls = [_changed(action) for action in env.unwrapped.gold_actions(task_id)]  # type: ignore[attr-defined]
        scripts[opening] = [native(call, turn=turn) for turn, call in enumerate(calls)]
    env.close()
    return ScriptBook(scripts)


def _changed(action: dict[str, Any]) -> dict[str, Any]:
    if action["name"] == "reject_invoice" and action["arguments"]["invoice_id"] == WRONG:
        return {"name": "approve_invoice", "arguments": {"invoice_id": WRONG}}
    return action


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """single-2 (one decision changed) and single-1 (gold), two rollouts each, written in reverse task order."""
    out = tmp_path_factory.mktemp("show")
    with FakeOpenAIServer(changed_book(V1, ["single-1", "single-2"])) as server:
        assert evaluate(server, V1, out, "-r", "2", tasks=["single-2", "single-1"]) == 0
    path = only_file(out)
    lines = path.read_text().splitlines()
    path.write_text("".join(line + "\n" for line in sorted(lines, key=lambda line: json.loads(line)["key"])[::-1]))
    return path


def shown(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines()), max(out.splitlines(), key=len)
    return out


@pytest.fixture()
def columns_80(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def test_an_episode_shows_each_differing_field_grouped_by_record(
    results: Path, columns_80: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shown(capsys, "show", str(results), "--episode", "single-2#0")
    lines = [" ".join(line.split()) for line in out.splitlines()]
    start = lines.index("where it fell short (7)")
    assert lines[start + 1 : start + 12] == [
        f"invoice {WRONG} · rule 7: Tax",
        "field expected actual",
        "status rejected approved",
        "reason code VAT_ERROR (empty)",
        f"ledger line {WRONG} · rule 7: Tax",
        "account 1576 (none) debit 41.97 €",
        "account 1600 (none) credit 641.47 €",
        "account 4806 (none) debit 599.50 €",
        "purchase order 4500290989",
        "invoiced net 3,597.00 € 4,196.50 €",
        "line 1 invoiced quantity 6 7",
    ]


def test_a_wide_console_shows_the_rows_as_one_table(
    results: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["show", str(results), "--episode", "single-2#1"]) == 0
    out = capsys.readouterr().out.replace("┃", "│")
    cells = [[cell.strip() for cell in line.split("│")[1:-1]] for line in out.splitlines()]
    assert ["kind", "record", "field", "expected", "actual", "rule"] in cells
    assert ["invoice", WRONG, "status", "rejected", "approved", "rule 7: Tax"] in cells
    assert ["purchase order", "4500290989", "line 1 invoiced quantity", "6", "7", ""] in cells


def test_a_full_marks_episode_shows_no_failures(
    results: Path, columns_80: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "where it fell short" not in shown(capsys, "show", str(results), "--episode", "single-1#0")


def test_the_list_is_in_task_order_whatever_the_file_order(
    results: Path, columns_80: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shown(capsys, "show", str(results))
    keys = [word for line in out.splitlines() for word in line.split() if word.startswith("single-")]
    assert keys == ["single-1#0", "single-1#1", "single-2#0", "single-2#1"]
    header = next(line for line in out.splitlines() if " key " in line)
    assert "tokens" in header and "error" not in header  # an LLM's tokens say something; no run had an error


def test_a_scripted_policy_lists_no_all_zero_columns(
    tmp_path: Path, columns_80: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "oracle.jsonl"
    assert main(["eval", "officegym/VendorReview-v1", "--policy", "oracle", "-n", "3", "-o", str(path), "-q"]) == 0
    capsys.readouterr()
    out = shown(capsys, "show", str(path))
    header = next(line for line in out.splitlines() if " key " in line).split()
    assert [word for word in header if word.isalpha() or word == "#"] == ["#", "key", "tier", "reward", "stop", "turns"]


def test_replay_says_all_match_then_lists_only_what_differs(
    results: Path, tmp_path: Path, columns_80: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shown(capsys, "replay", str(results))
    assert "replay: all 4 match (grade and transcript)" in out and "single-" not in out
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    lines[0]["grade"]["ledger_mismatches"] = 7
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["replay", str(edited)]) == 1
    out = capsys.readouterr().out
    assert "replay: 3 of 4 match; 1 differ:" in out and "DIFFERS" in out
    assert all(len(line) <= 80 for line in out.splitlines())
    listed = {word for line in out.splitlines() for word in line.replace("│", " ").split() if "#" in word}
    assert listed == {lines[0]["key"]}


def test_a_list_too_wide_for_80_columns_leaves_out_the_least_useful_columns_and_says_so() -> None:
    def record(k: int) -> dict[str, Any]:
        return {
            "key": f"vr1-medium-{k:02d}#0",
            "env_id": "officegym/NotInstalled-v9",  # no task order to be had: file order
            "task_id": f"vr1-medium-{k:02d}",
            "rollout": 0,
            "tier": "medium",
            "reward": 0.5,
            "stop_reason": "context_length",
            "turns": 40,
            "chat": {"parse_errors": k},
            "usage": {"prompt_tokens": 123_456, "completion_tokens": 7_890},
            "error": "Error: the endpoint refused: 503 Service Unavailable" if k == 1 else None,
        }

    screen = Console(file=io.StringIO(), width=80)
    screen.print(episode_list([(number, record(k)) for number, k in enumerate((2, 0, 1))], width=80))
    drawn = screen.file.getvalue()  # type: ignore[attr-defined]
    assert all(len(line) <= 80 for line in drawn.splitlines())
    header = next(line for line in drawn.splitlines() if " key " in line)
    assert [word for word in header.replace("┃", " ").split()] == ["#", "key", "reward", "stop", "error"]
    assert "left out at 80 columns: tier, turns, parse errors, tokens" in drawn
    assert "vr1-medium-02#0" in drawn.split("vr1-medium-00#0")[0]  # file order kept when the env is unknown
    assert "Service Unavailable" in " ".join(drawn.split())
