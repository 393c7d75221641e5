"""Error bars in the summary, ``show --failed / --tier`` and several files side by side, and the live view's
in-flight turns and tokens."""

from __future__ import annotations

import argparse
import io
import threading
from math import sqrt
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from officegym.cli import main
from officegym.evaluation.commands import add_show_arguments, show_command
from officegym.evaluation.episode import EpisodeRun
from officegym.evaluation.jobs import EvalPlan, play
from officegym.evaluation.live import LiveView
from officegym.evaluation.records import Job
from officegym.evaluation.summary import Z95, ci95, clustered_se, comparison_table, mean_se, summarize, summary_table
from officegym.policies.chat import ScriptedChatPolicy
from officegym.policies.registry import make_policy

from .helpers import INVOICE, VENDOR, flat


def scored(task: str, reward: float, tier: str = "easy") -> dict[str, Any]:
    return {"task_id": task, "tier": tier, "reward": reward, "has_error": False, "stop_reason": "finish"}


# --------------------------------------------------------------------------- error bars
def test_standard_errors_treat_the_task_as_the_sampled_unit() -> None:
    rollouts = {"a": [1.0, 1.0], "b": [0.0, 0.0], "c": [1.0, 0.0], "d": [1.0, 1.0]}
    summary = summarize([scored(task, r) for task, values in rollouts.items() for r in values])
    # clustered: sqrt(T/(T-1) * sum over tasks of (sum of deviations)^2) / n, mean 5/8
    spread = 0.75**2 + 1.25**2 + 0.25**2 + 0.75**2
    assert summary["mean_reward"] == 0.625
    assert summary["mean_reward_se"] == pytest.approx(sqrt(4 / 3 * spread) / 8)
    low = 0.625 - Z95 * summary["mean_reward_se"]
    assert summary["mean_reward_ci95"] == pytest.approx([low, 1.0])  # clipped to the reward range
    # pass@k: the standard error of the mean of the per-task estimates (1, 0, 1/2, 1 and 1, 0, 1, 1)
    assert summary["pass_at_k"] == {"1": 0.625, "2": 0.75}
    assert summary["pass_at_k_se"]["1"] == pytest.approx(sqrt(0.6875 / 3) / 2)
    assert summary["pass_at_k_se"]["2"] == pytest.approx(0.25)
    assert summary["pass_at_k_ci95"]["2"] == pytest.approx([0.75 - Z95 * 0.25, 1.0])
    assert summary["tiers"]["easy"]["mean_reward_se"] == summary["mean_reward_se"]


def test_with_one_rollout_the_clustered_error_is_the_plain_one() -> None:
    values = [1.0, 0.0, 1.0, 1.0, 0.5]
    assert clustered_se([[v] for v in values]) == pytest.approx(mean_se(values))
    assert mean_se(values) == pytest.approx(
        sqrt(sum((v - 0.7) ** 2 for v in values) / 4 / 5)  # sample variance over n
    )


def test_intervals_need_two_tasks_and_stay_in_the_reward_range() -> None:
    assert clustered_se([[1.0, 0.0, 1.0]]) is None and mean_se([1.0]) is None
    one_task = summarize([scored("a", 1.0), scored("a", 0.0)])
    assert one_task["mean_reward_ci95"] is None and one_task["pass_at_k_ci95"] == {"1": None, "2": None}
    assert ci95(None, 0.1) is None and ci95(0.5, None) is None
    assert ci95(0.02, 0.1) == pytest.approx([0.0, 0.02 + Z95 * 0.1])
    assert summarize([])["mean_reward_se"] is None


def test_the_summary_table_shows_the_intervals() -> None:
    summary = summarize([scored("a", 1.0), scored("b", 0.0), scored("c", 1.0), scored("d", 1.0)])
    screen = Console(file=io.StringIO(), width=160)
    screen.print(summary_table(summary, "run"))
    drawn = screen.file.getvalue()  # type: ignore[attr-defined]
    low, high = summary["mean_reward_ci95"]
    assert "95% CI" in drawn and f"[{low:.3f}, {high:.3f}]" in drawn and "mean reward" in drawn


def test_files_are_compared_at_the_largest_k_they_all_have() -> None:
    three = summarize([scored(t, r) for t in "ab" for r in (1.0, 0.0, 1.0)])
    two = summarize([scored(t, r) for t in "ab" for r in (1.0, 1.0)])
    screen = Console(file=io.StringIO(), width=200)
    screen.print(comparison_table([("three.jsonl", three), ("two.jsonl", two)]))
    drawn = screen.file.getvalue()  # type: ignore[attr-defined]
    assert "pass@2" in drawn and "pass^2" in drawn and "pass@3" not in drawn
    assert cells(drawn, "three.jsonl")[4:6] == ["1.000", f"{three['pass_hat_k']['2']:.3f}"]


# --------------------------------------------------------------------------- show
@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """VendorReview's first 8 deals (6 easy, then vr-hard-01 and 02), in file order: the oracle passes all,
    the lazy policy none."""
    out = tmp_path_factory.mktemp("runs")
    for policy in ("oracle", "lazy"):
        path = out / f"{policy}.jsonl"
        assert main(["eval", VENDOR, "--policy", policy, "-n", "8", "-c", "1", "-o", str(path), "-q"]) == 0
    return out / "oracle.jsonl", out / "lazy.jsonl"


def cells(drawn: str, name: str) -> list[str]:
    """The cells of the table row that holds ``name``."""
    line = next(line for line in drawn.splitlines() if name in line)
    return [cell.strip() for cell in line.strip("│ ").split("│")]


def show(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    add_show_arguments(parser)
    screen = Console(file=io.StringIO(), width=220)
    code = show_command(parser.parse_args(argv), screen, Console(file=io.StringIO()))
    return code, screen.file.getvalue()  # type: ignore[attr-defined]


def test_show_failed_lists_only_episodes_that_did_not_pass(runs: tuple[Path, Path]) -> None:
    oracle, lazy = runs
    code, drawn = show(str(oracle), "--failed")
    assert code == 0 and "episodes that did not pass" in drawn and "vr-easy-01#0" not in drawn
    code, drawn = show(str(lazy), "--failed")
    assert code == 0 and all(f"vr-easy-0{k}#0" in drawn for k in range(1, 7))


def test_show_tier_narrows_list_and_summary_and_keeps_file_numbers(runs: tuple[Path, Path]) -> None:
    _, lazy = runs
    code, drawn = show(str(lazy), "--tier", "hard", "--failed")
    assert code == 0 and "vr-hard-02#0" in drawn and "vr-easy-01#0" not in drawn
    assert cells(drawn, "vr-hard-01#0")[0] == "6"  # its number in the file, which --episode takes
    assert "summary (hard)" in drawn and "easy" not in drawn.split("summary (hard)")[1]
    code, drawn = show(str(lazy), "--episode", "6")
    assert code == 0 and "vr-hard-01#0" in drawn


def test_show_several_files_side_by_side(runs: tuple[Path, Path]) -> None:
    oracle, lazy = runs
    code, drawn = show(str(oracle), str(lazy))
    assert code == 0 and "side by side" in drawn
    assert cells(drawn, oracle.name)[1:4] == ["8", "1.000 [1.000, 1.000]", "1.000 [1.000, 1.000]"]  # zero width
    lazy_row = cells(drawn, lazy.name)
    assert lazy_row[1] == "8" and float(lazy_row[2].split()[0]) < 0.2 and "[" in lazy_row[2]
    code, drawn = show(str(oracle), str(lazy), "--tier", "hard", "--failed")
    assert code == 0 and "side by side (hard)" in drawn and "vr-hard-02#0" in drawn
    with pytest.raises(ValueError, match="--episode shows one episode of one results file"):
        show(str(oracle), str(lazy), "--episode", "0")


def test_the_cli_show_still_takes_one_file(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(runs[0])]) == 0
    assert "95% CI" in capsys.readouterr().out


# --------------------------------------------------------------------------- live view
def test_the_live_view_shows_turns_and_tokens_in_flight() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, color_system=None, width=120)
    run = EpisodeRun("single-1", "single", usage={"prompt_tokens": 1500, "completion_tokens": 40}, retries=1)
    run.chat = {"assistant_turns": 3}
    with LiveView(console, "run", 2) as view:
        view.add({"key": "batch-1#0", "tier": "batch", "has_error": False, "reward": 1.0, "usage": {}})
        view.turn("single-1#0", run)
    drawn = flat(screen.getvalue())
    assert "in flight: 1 episode(s), 3 turn(s)" in drawn and "tokens in 1,500 / out 40" in drawn
    assert "1 request retries" in drawn and "1/2" in drawn
    view.add({"key": "single-1#0", "tier": "single", "has_error": False, "reward": 1.0, "usage": run.usage})
    after = Console(file=io.StringIO(), width=120)
    after.print(view.renderable())
    assert "in flight: 0 episode(s), 0 turn(s) · tokens in 1,500" in flat(after.file.getvalue())  # type: ignore[attr-defined]


def test_episodes_report_every_turn_while_they_run() -> None:
    heard: list[tuple[str, int]] = []

    def on_turn(job: Job, run: EpisodeRun) -> None:
        heard.append((job.key, run.chat.get("assistant_turns", 0)))

    plan = EvalPlan(INVOICE, ["single-1"], {"policy": "oracle"}, Path("unused.jsonl"))
    job = Job("single-1", 0, 0)
    factory = lambda env, seed: ScriptedChatPolicy(make_policy("oracle", env, seed))  # noqa: E731
    record = play(plan, job, factory, {}, threading.Event(), on_turn)
    assert record is not None and record["reward"] == 1.0
    assert heard == [("single-1#0", turn) for turn in range(record["turns"] + 1)]
