"""The report's charts as inline SVG: a reward histogram and one bar per episode (turns, tokens).

Inline SVG needs no script and no library, prints, and stays inside the one HTML file. Each bar carries a
``<title>`` (the browser's tooltip: the episode's key and value). The charts of one metric share their y
scale across runs (``y_max``), so runs side by side compare by eye. Coordinates are rounded to 0.01 so the
same data gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH = 320
HEIGHT = 120
PAD = 24
BINS = 10


def reward_bins(rewards: Sequence[float], bins: int = BINS) -> list[int]:
    """How many rewards fall in each of ``bins`` equal bins of [0, 1] (1.0 in the last bin)."""
    counts = [0] * bins
    for reward in rewards:
        counts[min(bins - 1, max(0, int(reward * bins)))] += 1
    return counts


def reward_histogram(rewards: Sequence[float], y_max: int) -> str:
    """The reward histogram: ten bins of width 0.1, each bar titled with its range and count."""
    counts = reward_bins(rewards)
    labels = [f"reward {i / BINS:.1f}-{(i + 1) / BINS:.1f}: {c} episode(s)" for i, c in enumerate(counts)]
    return bar_chart([float(c) for c in counts], labels, "reward", max(1, y_max), ("0", "1"))


def per_episode(values: Sequence[float], keys: Sequence[str], what: str, y_max: float, episodes: Sequence[int]) -> str:
    """One bar per episode (in the episode list's order), each titled ``key: value what``; a click on a bar opens
    that episode (``data-episode``: its number in the list)."""
    if not values or not any(values):
        return _empty(f"no {what} recorded")
    labels = [f"{key}: {value:,.0f} {what}" for key, value in zip(keys, values, strict=True)]
    return bar_chart(list(values), labels, what, max(1.0, y_max), ("first", "last episode"), episodes)


def bar_chart(
    values: Sequence[float],
    labels: Sequence[str],
    title: str,
    y_max: float,
    ends: tuple[str, str],
    episodes: Sequence[int] | None = None,
) -> str:
    """Bars from left to right, scaled to ``y_max``, with the y maximum and the x ends written on the axes."""
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    step = inner_w / len(values)
    bars = []
    for index, (value, label) in enumerate(zip(values, labels, strict=True)):
        height = inner_h * value / y_max
        x, y = PAD + index * step, PAD + inner_h - height
        target = "" if episodes is None else f' data-episode="{episodes[index]}"'
        bars.append(
            f'<rect x="{x:.2f}" y="{y:.2f}" width="{max(step - 1, 0.5):.2f}" height="{height:.2f}"{target}>'
            f"<title>{escape(label)}</title></rect>"
        )
    top = _short(y_max)
    axes = (
        f'<line x1="{PAD}" y1="{PAD + inner_h}" x2="{PAD + inner_w}" y2="{PAD + inner_h}"/>'
        f'<text x="{PAD - 4}" y="{PAD + 4}" text-anchor="end">{escape(top)}</text>'
        f'<text x="{PAD}" y="{HEIGHT - 6}">{escape(ends[0])}</text>'
        f'<text x="{PAD + inner_w}" y="{HEIGHT - 6}" text-anchor="end">{escape(ends[1])}</text>'
        f'<text x="{WIDTH / 2:.0f}" y="{PAD - 8}" text-anchor="middle">{escape(title)}</text>'
    )
    return _svg(axes + "".join(bars), title)


def _short(value: float) -> str:
    """``118k``, ``1.2M``: an axis label that fits beside the axis."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:g}"


def _empty(message: str) -> str:
    text = f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" text-anchor="middle">{escape(message)}</text>'
    return _svg(text, message)


def _svg(body: str, label: str) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(label)}">{body}</svg>'
    )
