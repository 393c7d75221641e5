"""Progress where there is no terminal: plain lines at a steady beat of the run's own clock, and at the end.

The clock is injected, so the lines are checked exactly without sleeping; the beat thread is left off in those
tests (``beat=False``) and :meth:`LiveView.tick` is called at the fake times instead. A finished run asked again
says so and shows its table. Subprocess limits are hang guards, not speed checks.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from officegym.cli import main
from officegym.evaluation.episode import EpisodeRun
from officegym.evaluation.live import LiveView, duration

HANG_GUARD = 600
INVOICE = "officegym/InvoiceApproval-v0"


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def record(key: str, reward: float | None, tokens: int = 0) -> dict[str, Any]:
    usage = {"prompt_tokens": tokens, "completion_tokens": tokens // 10}
    return {"key": key, "tier": "single", "has_error": reward is None, "reward": reward, "usage": usage}


def piped() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=200, color_system=None), out


def test_lines_come_at_each_multiple_of_the_interval_and_at_the_end() -> None:
    console, out = piped()
    clock = FakeClock(1000.0)
    view = LiveView(console, "run", 4, progress_every=10, clock=clock, beat=False)
    with view:
        clock.now = 1003.0
        view.add(record("a#0", 1.0, tokens=1000))
        clock.now = 1009.9
        view.tick()  # not due yet
        clock.now = 1010.0
        view.tick()
        running = EpisodeRun("c", "single", usage={"prompt_tokens": 500, "completion_tokens": 5})
        view.turn("c#0", running)  # tokens in flight count too
        view.add(record("b#0", None))
        clock.now = 1025.0
        view.tick()  # late: one line, and the next is due at 1030, not 1035
        clock.now = 1029.0
        view.tick()
        view.add(record("c#0", 0.0, tokens=500))
        clock.now = 1030.0
        view.tick()
        clock.now = 1042.0
        view.add(record("d#0", 1.0))
    assert out.getvalue().splitlines() == [
        "progress 10s: 1/4 episodes · 0 not passed · 0 infra error(s) · 1,100 tokens · 0.10 episodes/s · ETA 30s",
        "progress 25s: 2/4 episodes · 0 not passed · 1 infra error(s) · 1,605 tokens · 0.08 episodes/s · ETA 25s",
        "progress 30s: 3/4 episodes · 1 not passed · 1 infra error(s) · 1,650 tokens · 0.10 episodes/s · ETA 10s",
        "progress 42s: 4/4 episodes · 1 not passed · 1 infra error(s) · 1,650 tokens · 0.10 episodes/s · ETA 0s",
    ]


def test_no_episode_done_yet_has_no_eta_and_a_last_line_is_not_repeated() -> None:
    console, out = piped()
    clock = FakeClock(0.0)
    with LiveView(console, "run", 1, progress_every=5, clock=clock, beat=False) as view:
        clock.now = 5.0
        view.tick()
        view.add(record("a#0", 1.0))
        clock.now = 10.0
        view.tick()  # shows the run complete: the end adds nothing
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].endswith(
        "0/1 episodes · 0 not passed · 0 infra error(s) · 0 tokens · 0.00 episodes/s · ETA -"
    )
    assert lines[1].startswith("progress 10s: 1/1 episodes")


def test_zero_interval_prints_only_the_end_and_a_terminal_keeps_the_live_view() -> None:
    console, out = piped()
    clock = FakeClock(0.0)
    with LiveView(console, "run", 1, progress_every=0, clock=clock, beat=False) as view:
        clock.now = 100.0
        view.tick()
        view.add(record("a#0", 0.5))
    assert out.getvalue().splitlines() == [
        "progress 1m40s: 1/1 episodes · 1 not passed · 0 infra error(s) · 0 tokens · 0.01 episodes/s · ETA 0s"
    ]
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, color_system=None, width=120)
    with LiveView(terminal, "run", 1, clock=FakeClock(0.0), beat=False) as view:
        view.add(record("a#0", 1.0))
    assert "progress " not in screen.getvalue() and "1/1" in screen.getvalue()
    quiet, out = piped()
    with LiveView(quiet, "run", 1, enabled=False, beat=False) as view:
        view.add(record("a#0", 1.0))
    assert out.getvalue() == ""


def test_durations_read_as_a_person_says_them() -> None:
    assert [duration(s) for s in (0, 59.9, 60, 187, 3599, 3600, 7500)] == [
        "0s",
        "59s",
        "1m00s",
        "3m07s",
        "59m59s",
        "1h00m",
        "2h05m",
    ]


def test_a_negative_interval_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", INVOICE, "--policy", "oracle", "-n", "1", "-o", str(tmp_path), "--progress-every", "-1"]
    assert main(argv) == 2
    assert "Error: --progress-every must be 0" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing written
    with pytest.raises(ValueError, match="--progress-every"):
        LiveView(Console(file=io.StringIO()), "run", 1, progress_every=-1)


def test_a_finished_run_says_so_and_prints_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", INVOICE, "--policy", "oracle", "-n", "2", "-r", "2", "-o", str(tmp_path / "o.jsonl")]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "already done" not in first and "progress " in first
    assert main(argv) == 0
    again = capsys.readouterr().out
    assert "all 4 episodes already done" in again and "progress " not in again
    assert "mean reward" in again and "(0 episode(s) run, 4 already there)" in again


def test_a_piped_eval_prints_plain_progress(tmp_path: Path) -> None:
    """Through a real pipe: the process's stdout is no terminal. The interval is an hour, so the only line is
    the last one."""
    env = {**os.environ, "COLUMNS": "80"}
    command = [sys.executable, "-m", "officegym.cli", "eval", INVOICE, "--policy", "random", "-n", "3"]
    command += ["-o", str(tmp_path), "--progress-every", "3600"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=HANG_GUARD, check=False)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("progress ")]
    assert len(lines) == 1 and re.fullmatch(
        r"progress \d+s: 3/3 episodes · [0-3] not passed · 0 infra error\(s\) · 0 tokens · [\d.]+ episodes/s · ETA 0s",
        lines[0],
    )
