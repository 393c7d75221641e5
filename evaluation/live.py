"""The live view of a running evaluation: a progress bar and a score table that fills in as episodes finish.

Long LLM runs are watched; a bar alone hides a broken run (every episode 0, or every episode an error)
until the end. The table shows per tier what has finished so far: episodes, infrastructure errors, mean
reward, pass rate; and below it tokens and throughput. It draws only on a terminal; piped or captured
output gets the final summary alone.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from .summary import tier_rank


class LiveView:
    """``with LiveView(console, title, total) as view: view.add(record)`` for each finished episode."""

    def __init__(
        self, console: Console, title: str, total: int, *, threshold: float = 1.0, enabled: bool = True
    ) -> None:
        self.console = console
        self.title = title
        self.threshold = threshold
        self.enabled = enabled and console.is_terminal
        self.rewards: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.tokens = [0, 0]
        self.retries = 0
        self.started = time.perf_counter()
        self.finished = 0
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
        )
        self.task = self.progress.add_task(title, total=total)
        self._live: Live | None = None

    def __enter__(self) -> LiveView:
        if self.enabled:
            self._live = Live(self._render(), console=self.console, refresh_per_second=4)
            self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()

    def add(self, record: dict[str, Any]) -> None:
        tier = str(record.get("tier") or "?")
        if record.get("has_error"):
            self.errors[tier] += 1
        else:
            self.rewards[tier].append(float(record["reward"]))
            usage = record.get("usage") or {}
            self.tokens[0] += int(usage.get("prompt_tokens", 0))
            self.tokens[1] += int(usage.get("completion_tokens", 0))
            self.retries += int(record.get("retries") or 0)
        self.finished += 1
        self.progress.advance(self.task)
        if self._live is not None:
            self._live.update(self._render())

    def _render(self) -> Group:
        table = Table(title=f"{self.title}: so far", title_justify="left")
        for column in ("tier", "done", "errors", "mean reward", "passed"):
            table.add_column(column, justify="left" if column == "tier" else "right")
        for tier in sorted({*self.rewards, *self.errors}, key=tier_rank):
            rewards = self.rewards[tier]
            mean = f"{sum(rewards) / len(rewards):.3f}" if rewards else "-"
            passed = f"{sum(r >= self.threshold for r in rewards)}/{len(rewards)}"
            table.add_row(tier, str(len(rewards)), str(self.errors[tier]), mean, passed)
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        footer = (
            f"tokens in {self.tokens[0]:,} / out {self.tokens[1]:,} · {self.retries} request retries · "
            f"{self.finished / elapsed:.2f} episodes/s"
        )
        return Group(self.progress, table, footer)
