"""The live view of a running evaluation: a progress bar and a score table that fills in as episodes finish.

Long LLM runs are watched; a bar alone hides a broken run (every episode 0, or every episode an error)
until the end. The table shows per tier what has finished so far: episodes, infrastructure errors, mean
reward, pass rate; and below it the episodes in flight with their turns, tokens (finished and in flight) and
throughput. An episode of a hundred turns takes minutes, so turns and tokens are counted as they happen, not
only when an episode ends: a stuck or silent endpoint shows as a count that does not move. It draws only on a
terminal.

Piped into a file, a log or CI, a redrawn screen is unreadable, so there it prints a plain line instead every
``progress_every`` seconds and once at the end: episodes done of the total, episodes that did not pass,
infrastructure errors, tokens, episodes per second and the time left at that rate. Those seconds are the run's
own (``time.monotonic``) and only ever reach the screen, never a record or a grade.
"""

from __future__ import annotations

import math
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from .episode import EpisodeRun
from .summary import tier_rank

PROGRESS_EVERY = 10.0
"""Seconds between plain progress lines by default (``officegym eval --progress-every``)."""


class LiveView:
    """``with LiveView(console, title, total) as view:``; ``view.turn(key, run)`` after every turn of an episode
    (from any thread), ``view.add(record)`` when it is recorded. The screen is redrawn four times a second from
    the counters, so a turn costs a few additions, not a redraw."""

    def __init__(
        self,
        console: Console,
        title: str,
        total: int,
        *,
        threshold: float = 1.0,
        enabled: bool = True,
        progress_every: float = PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
        beat: bool = True,
    ) -> None:
        """``progress_every``: seconds between plain progress lines off a terminal (0: none); ``clock`` tells
        those seconds and ``beat`` starts the thread that prints them (a test passes a fake clock, no beat, and
        calls :meth:`tick` itself)."""
        if progress_every < 0:
            raise ValueError(f"--progress-every must be 0 (off) or more seconds, got {progress_every:g}")
        self.console = console
        self.title = title
        self.total = total
        self.threshold = threshold
        self.enabled = enabled and console.is_terminal
        self.plain = PlainProgress(self, progress_every, clock) if enabled and not console.is_terminal else None
        self._beat = beat and self.plain is not None and progress_every > 0
        self._stop = threading.Event()
        self._beater: threading.Thread | None = None
        self.passed = 0
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
        if self.plain is not None:
            self.plain.start()
            if self._beat:
                self._beater = threading.Thread(target=self._beating, name="officegym-progress", daemon=True)
                self._beater.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._beater is not None:
            self._beater.join()  # a line being printed is finished before the last one
        if self._live is not None:
            self._live.stop()  # draws the last state
        if self.plain is not None:
            self.plain.end()

    def tick(self) -> None:
        """Print a plain progress line if one is due (the beat thread calls this)."""
        if self.plain is not None:
            self.plain.tick()

    def _beating(self) -> None:
        assert self.plain is not None
        while not self._stop.wait(self.plain.wait()):
            self.tick()

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
                self.passed += float(record["reward"]) >= self.threshold
            self.tokens[0] += int(usage.get("prompt_tokens", 0))
            self.tokens[1] += int(usage.get("completion_tokens", 0))
            self.retries += int(record.get("retries") or 0)
            self.finished += 1
        self.progress.advance(self.task)

    def progress_line(self, elapsed: float) -> str:
        """One plain line of where the run stands after ``elapsed`` seconds."""
        with self._lock:
            flying = list(self.in_flight.values())
            tokens = self.tokens[0] + self.tokens[1] + sum(f[1] + f[2] for f in flying)
            done, errors, passed = self.finished, sum(self.errors.values()), self.passed
        rate = done / elapsed if elapsed > 0 else 0.0
        left = self.total - done
        eta = "0s" if left <= 0 else duration(math.ceil(left / rate)) if rate > 0 else "-"
        return (
            f"progress {duration(elapsed)}: {done}/{self.total} episodes · {done - errors - passed} not passed · "
            f"{errors} infra error(s) · {tokens:,} tokens · {rate:.2f} episodes/s · ETA {eta}"
        )

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


class PlainProgress:
    """The plain progress lines of a :class:`LiveView` off a terminal. A line is due at every multiple of
    ``every`` seconds after the start; a tick that comes late prints one line, not one per missed multiple, and
    the next is due at the next multiple, so the lines keep a steady beat however long a tick waited."""

    def __init__(self, view: LiveView, every: float, clock: Callable[[], float]) -> None:
        self.view = view
        self.every = every
        self.clock = clock
        self.started = 0.0
        self.due = math.inf
        self.shown = -1  # episodes done at the last line

    def start(self) -> None:
        self.started = self.clock()
        self.due = self.started + self.every if self.every > 0 else math.inf

    def wait(self) -> float:
        """Seconds until the next line is due (how long the beat thread sleeps)."""
        return max(0.0, self.due - self.clock())

    def tick(self) -> None:
        now = self.clock()
        if now < self.due:
            return
        self._print(now)
        self.due = self.started + (math.floor((now - self.started) / self.every) + 1) * self.every

    def end(self) -> None:
        """The last line, when the run had anything to run and the last tick did not already show it all."""
        if self.view.total and self.shown != self.view.finished:
            self._print(self.clock())

    def _print(self, now: float) -> None:
        self.shown = self.view.finished
        line = self.view.progress_line(now - self.started)
        self.view.console.print(line, markup=False, highlight=False, soft_wrap=True)


def duration(seconds: float) -> str:
    """``42s``, ``3m07s``, ``2h05m``: whole seconds, rounded down."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
