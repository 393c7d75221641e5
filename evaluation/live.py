"""The live view of a running evaluation: a progress bar and a score table that fills in as episodes finish.

Long LLM runs are watched; a bar alone hides a broken run (every episode 0, or every episode an error)
until the end. The table shows per tier what has finished so far: episodes, infrastructure errors, mean
reward, pass rate; and below it the episodes in flight with their turns, tokens (finished and in flight) and
throughput. An episode of a hundred turns takes minutes, so turns and tokens are counted as they happen, not
only when an episode ends: a stuck or silent endpoint shows as a count that does not move. It draws only on a
terminal; piped or captured output gets the final summary alone.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from .episode import EpisodeRun
from .summary import tier_rank


class LiveView:
    """``with LiveView(console, title, total) as view:``; ``view.turn(key, run)`` after every turn of an episode
    (from any thread), ``view.add(record)`` when it is recorded. The screen is redrawn four times a second from
    the counters, so a turn costs a few additions, not a redraw."""

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
        self.in_flight: dict[str, tuple[int, int, int, int]] = {}  # key: turns, tokens in, tokens out, retries
        self.started = time.perf_counter()
        self.finished = 0
        self._lock = threading.Lock()
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
            self._live = Live(console=self.console, refresh_per_second=4, get_renderable=self.renderable)
            self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()  # draws the last state

    def turn(self, key: str, run: EpisodeRun) -> None:
        """An episode in flight took a turn: its counts so far replace the last ones (a retried episode
        starts again from zero)."""
        usage = run.usage
        counts = (
            int(run.chat.get("assistant_turns", 0)),
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
            run.retries,
        )
        with self._lock:
            self.in_flight[key] = counts

    def add(self, record: dict[str, Any]) -> None:
        tier = str(record.get("tier") or "?")
        usage = record.get("usage") or {}
        with self._lock:
            self.in_flight.pop(str(record.get("key")), None)
            if record.get("has_error"):
                self.errors[tier] += 1
            else:
                self.rewards[tier].append(float(record["reward"]))
            self.tokens[0] += int(usage.get("prompt_tokens", 0))
            self.tokens[1] += int(usage.get("completion_tokens", 0))
            self.retries += int(record.get("retries") or 0)
            self.finished += 1
        self.progress.advance(self.task)

    def renderable(self) -> Group:
        """What the screen shows now (called by the refresh thread)."""
        with self._lock:
            return Group(self.progress, self._table(), self._footer())

    def _table(self) -> Table:
        table = Table(title=f"{self.title}: so far", title_justify="left")
        for column in ("tier", "done", "errors", "mean reward", "passed"):
            table.add_column(column, justify="left" if column == "tier" else "right")
        for tier in sorted({*self.rewards, *self.errors}, key=tier_rank):
            rewards = self.rewards[tier]
            mean = f"{sum(rewards) / len(rewards):.3f}" if rewards else "-"
            passed = f"{sum(r >= self.threshold for r in rewards)}/{len(rewards)}"
            table.add_row(tier, str(len(rewards)), str(self.errors[tier]), mean, passed)
        return table

    def _footer(self) -> str:
        flying = list(self.in_flight.values())
        tokens_in = self.tokens[0] + sum(f[1] for f in flying)
        tokens_out = self.tokens[1] + sum(f[2] for f in flying)
        retries = self.retries + sum(f[3] for f in flying)
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        return (
            f"in flight: {len(flying)} episode(s), {sum(f[0] for f in flying)} turn(s) · "
            f"tokens in {tokens_in:,} / out {tokens_out:,} · {retries} request retries · "
            f"{self.finished / elapsed:.2f} episodes/s"
        )
