"""``officegym run`` and the demo show what the agent saw: JSON laid out whole, documents whole, ``--full`` for
everything, and the policies each env takes, with the default, in ``run --help``.

The env's own ``render()`` is not what is checked here: its "ansi" text is part of v0's frozen behaviour
(``tests/frozen``) and stays as released; the CLI prints through ``ShowSteps`` instead.
"""

from __future__ import annotations

import io
import json
from typing import Any

import gymnasium as gym
import pytest
from rich.console import Console

import officegym
from officegym.cli import main
from officegym.envs.core.rendering import MAX_JSON_LINES, ShowSteps, action_call, json_lines, json_value
from officegym.policies import run_episode
from officegym.policies.registry import make_policy, policies_for

INVOICE_V1 = "officegym/InvoiceApproval-v1"
VENDOR = "officegym/VendorReview-v0"
NESTED: dict[str, Any] = {
    "total": 3,
    "note": "Lieferung an Halle 3, bitte vor Freitag prüfen (Skonto bis 14. März)",
    "invoices": [
        {"invoice_id": f"ER-2026-0{n:04d}", "gross_cents": 117754 * n, "status": "received", "po": None}
        for n in range(1, 4)
    ],
    "empty": {},
    "flags": [True, False, None, 1.5, -2],
    "{odd key}": ['a "quoted" word', "tab\there"],
}


def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, str]:
    monkeypatch.setenv("COLUMNS", "80")
    code = main(list(argv))
    return code, capsys.readouterr().out


# ----------------------------------------------------------------- the JSON layout
@pytest.mark.parametrize("width", [1, 20, 40, 80, 120, 400])
def test_laid_out_json_is_the_same_json_and_breaks_only_between_tokens(width: int) -> None:
    lines = json_lines(NESTED, width)
    assert json.loads("\n".join(lines)) == NESTED  # a line break inside a string would not parse
    tokens = json.dumps(NESTED, ensure_ascii=False)
    for line in lines:
        if len(line) > width:  # only where one token (after its key) is wider than the screen
            assert line.strip().rstrip(",").count('"') <= 4, line
    assert all(line.strip() in tokens or line.strip().rstrip(",") in tokens or len(line) <= width for line in lines)


def test_what_fits_stays_on_one_line() -> None:
    assert json_lines({"invoice_id": "ER-2026-00214"}, 80) == ['{"invoice_id": "ER-2026-00214"}']
    lines = json_lines(NESTED, 80)
    assert max(len(line) for line in lines) <= 80 and '  "empty": {}, "flags": [true, false, null, 1.5, -2],' in lines
    assert '    {"invoice_id": "ER-2026-00001", "gross_cents": 117754, "status": "received", "po": null},' in (
        json_lines(NESTED, 100)
    )


def test_only_objects_and_arrays_are_laid_out_and_actions_are_read_for_display() -> None:
    assert json_value('{"a": 1}') == {"a": 1} and json_value("[1]") == [1]
    assert json_value("Approved ER-2026-00211.") is None and json_value("{not json") is None
    assert json_value("3") is None
    assert action_call('{"name": "get_invoice", "arguments": {"invoice_id": "X"}}') == (
        "get_invoice",
        {"invoice_id": "X"},
    )
    assert action_call({"name": "finish"}) == ("finish", {})
    assert action_call("garbage")[0] == "<malformed>" and action_call({"name": "x", "arguments": 3})[1] == {
        "arguments": 3
    }


# ----------------------------------------------------------------- run and demo
def test_run_shows_json_whole_and_the_v1_document_with_its_totals(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = run_cli(
        capsys, monkeypatch, "run", INVOICE_V1, "--policy", "solver_v1", "--task-id", "single-7", "--render"
    )
    assert code == 0
    assert all(len(line) <= 80 for line in out.splitlines()) and "…" not in out
    assert '"name": "Eder Normen- und Regelwerkservice GmbH",' in out  # a string token is never cut
    for total in ("Nettobetrag", "Bruttobetrag", "1.073,75 EUR", "Bankverbindung"):  # the whole document
        assert total in out
    assert "turn 4: get_document" in out and '{"invoice_id": "ER-2026-00214"}' in out
    assert "more lines (run --full shows them)" in out  # the approver list is long
    assert "grade" in out and '"get_document": 2' in out


def test_run_full_shows_every_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run_cli(
        capsys, monkeypatch, "run", INVOICE_V1, "--policy", "solver_v1", "--task-id", "single-7", "--full"
    )
    assert code == 0 and "more lines" not in out and "turn 2: list_approvers" in out
    env = gym.make(INVOICE_V1)
    env.reset(options={"task_id": "single-7"})
    approvers = json.loads(env.step({"name": "list_approvers", "arguments": {}})[0])["approvers"]
    env.close()
    assert len(approvers) > MAX_JSON_LINES // 4 and all(a["approver_id"] in out for a in approvers)


def test_run_without_render_prints_only_the_score_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = run_cli(capsys, monkeypatch, "run", VENDOR, "--task-id", "vr-easy-01")
    assert code == 0 and "oracle on officegym/VendorReview-v0" in out and "turn 1" not in out


def test_run_help_lists_each_envs_policies_and_the_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and "(default: oracle)" in out and "--full" in out
    text = " ".join(out.split())
    for env_id in officegym.ENV_IDS:
        assert f"{env_id} {', '.join(policies_for(env_id))}" in text
    assert "{oracle," not in out  # no list of every policy of every env


def test_a_policy_the_env_does_not_take_is_refused_with_its_choices(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = run_cli(capsys, monkeypatch, "run", VENDOR, "--policy", "solver")
    assert code == 2
    assert out.strip() == (
        "Error: the solver policy plays officegym/InvoiceApproval-v0 only; officegym/VendorReview-v0 takes "
        "--policy oracle, random, paranoid, lazy"
    )
    code, out = run_cli(capsys, monkeypatch, "run", VENDOR, "--policy", "nope")
    assert code == 2 and out.startswith("Error: unknown policy 'nope'; officegym/VendorReview-v0 takes")


def test_show_steps_leaves_the_episode_as_it_was() -> None:
    """The same grade and observations with and without the view, and the view prints every step."""
    screen = Console(file=io.StringIO(), width=100)
    plain, shown = gym.make(VENDOR), ShowSteps(gym.make(VENDOR), screen)
    results = [run_episode(env, make_policy("oracle", env), task_id="vr-hard-01", seed=0) for env in (plain, shown)]
    assert results[0] == results[1]
    drawn = screen.file.getvalue()  # type: ignore[attr-defined]
    assert "work order" in drawn and f"turn {results[0].turns}: " in drawn and "grade" in drawn
