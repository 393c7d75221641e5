"""The score tables fit the screen: at 80 columns every number and header is whole, and wider screens get one
line per row. Checked on rich's recorded text and through a real pipe with ``COLUMNS=80``."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, RenderableType

from officegym.evaluation.summary import comparison_table, summarize, summary_table

HANG_GUARD = 600
TIERS = ("single", "batch", "medium", "long", "hard")


def records(rollouts: int, offset: float = 0.0) -> list[dict[str, Any]]:
    """Five tiers of three tasks, ``rollouts`` each, with rewards that give intervals of some width."""
    found = []
    for t, tier in enumerate(TIERS):
        for task in range(3):
            for r in range(rollouts):
                reward = min(1.0, ((t + task * 3 + r * 5) % 7) / 6 + offset)
                found.append({"task_id": f"{tier}-{task}", "tier": tier, "reward": reward, "usage": {}})
    found.append({"task_id": "single-0", "tier": "single", "has_error": True, "reward": None})
    for record in found:
        record["usage"] = {"prompt_tokens": 123_456, "completion_tokens": 7_890}
    return found


def drawn(renderable: RenderableType, width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def assert_fits(text: str, width: int) -> None:
    assert "…" not in text, text
    too_long = [line for line in text.splitlines() if len(line) > width]
    assert not too_long, "\n".join(too_long)


def numbers(summary: dict[str, Any]) -> list[str]:
    """Every figure of the overall row, as the table writes it."""
    k = max(int(x) for x in summary["pass_at_k"])
    low, high = summary["mean_reward_ci95"]
    p_low, p_high = summary["pass_at_k_ci95"]["1"]
    shown = [summary["mean_reward"], summary["pass_at_k"]["1"], summary["pass_at_k"][str(k)]]
    shown += [summary["pass_hat_k"][str(k)]]
    return [f"{value:.3f}" for value in shown] + [f"[{low:.3f}, {high:.3f}]", f"[{p_low:.3f}, {p_high:.3f}]"]


@pytest.mark.parametrize("rollouts", [1, 3, 10])
@pytest.mark.parametrize("width", [80, 120])
def test_the_summary_table_fits_with_every_number_whole(rollouts: int, width: int) -> None:
    summary = summarize(records(rollouts))
    text = drawn(summary_table(summary, "officegym/InvoiceApproval-v1 · some-long-model-name-2026"), width)
    assert_fits(text, width)
    for figure in numbers(summary):
        assert figure in text
    assert all(tier in text for tier in TIERS) and "95% CI" in text
    if rollouts > 1:
        assert f"pass@{rollouts}" in text and f"pass^{rollouts}" in text


def test_a_wide_screen_shows_one_line_per_row() -> None:
    summary = summarize(records(3))
    text = drawn(summary_table(summary, "run"), 120)
    overall = next(line for line in text.splitlines() if line.startswith("│ all"))
    low, high = summary["mean_reward_ci95"]
    assert f"{summary['mean_reward']:.3f} [{low:.3f}, {high:.3f}]" in overall
    assert "mean reward [95% CI]" in text
    narrow = drawn(summary_table(summary, "run"), 80)
    assert "mean reward [95% CI]" not in narrow and len(narrow.splitlines()) > len(text.splitlines())


@pytest.mark.parametrize("width", [80, 120])
def test_the_comparison_fits_with_long_file_names(width: int) -> None:
    first, second = summarize(records(3)), summarize(records(3, offset=0.2))
    names = ["results/InvoiceApproval-v1__openai-gpt-4.1-mini.jsonl", "results/InvoiceApproval-v1__solver_v1.jsonl"]
    text = drawn(comparison_table([(names[0], first), (names[1], second)]), width)
    assert_fits(text, width)
    for summary in (first, second):
        for figure in numbers(summary):
            assert figure in text
        tokens = summary["usage"]["prompt_tokens"] + summary["usage"]["completion_tokens"]
        assert f"{tokens:,}" in text  # scored episodes only
    first_column = "".join(line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│"))
    assert first_column == "".join(names)  # a long name folds onto more lines, whole


def test_an_eval_through_a_pipe_at_80_columns_cuts_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "80"}
    command = [sys.executable, "-m", "officegym.cli", "eval", "officegym/VendorReview-v0", "--policy", "lazy"]
    command += ["-r", "2", "-o", str(tmp_path), "--progress-every", "0"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=HANG_GUARD, check=False)
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if not line.startswith("progress ")]  # log lines stay whole
    assert_fits("\n".join(table), 80)
    assert "pass@2" in done.stdout and "pass^2" in done.stdout and "mean reward" in done.stdout
