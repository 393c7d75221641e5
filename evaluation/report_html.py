"""The report page: the tables, charts and episode list as HTML, poured into ``assets/report/``'s template.

Everything a person reads first is plain HTML (the numbers and charts show with scripts off, and print); the
transcripts, which are most of the bytes, travel once as JSON (``report_data``'s string table) and the page's
script draws an episode when it is opened. Every number cell carries ``data-run`` (the run's column),
``data-metric`` (its path in the run's summary, ``tiers/<tier>/...`` or ``task/<id>/...``) and
``data-value`` (the summary's value as JSON), so a test reads the page against ``summarize``.

Escaping: every text goes through ``html.escape``; the JSON block has ``<``, ``>`` and ``&`` as ``\\u`` escapes,
so no tool result can close the ``<script>`` that holds it, whatever it contains. The template is filled in a
single pass (``string.Template``), so a ``$name`` inside the data is never substituted.
"""

from __future__ import annotations

import json
from html import escape
from string import Template
from typing import Any

from ..envs.core.assets import asset_path, read_text
from .report_charts import per_episode, reward_bins, reward_histogram
from .report_data import OUTCOMES


def page(data: dict[str, Any], title: str) -> str:
    """The whole self-contained HTML document."""
    style, script = _asset("report.css", "</style"), _asset("report.js", "</script")
    body = "\n".join(
        [
            _header(data, title),
            _section("runs", "Runs side by side", _runs_table(data)),
            _section("tiers", "Per tier", _tiers_table(data)),
            _section("pass-at-k", "pass@k and pass^k", _pass_k_table(data)),
            _section("charts", "Rewards, turns and tokens", _charts(data)),
            _section("tasks", "Per task", _tasks_table(data)),
            _section("episodes", "Episodes", _filters(data) + _episode_list(data)),
        ]
    )
    template = Template(read_text(asset_path("report", "report.html")))
    return template.substitute(
        title=escape(title), style=style, body=body, data=_json(_script_data(data)), script=script
    )


def _script_data(data: dict[str, Any]) -> dict[str, Any]:
    """What the page's script needs: the episodes and the string table (the tables are already HTML)."""
    return {"episodes": data["episodes"], "strings": data["strings"]}


def _asset(name: str, closing: str) -> str:
    text = read_text(asset_path("report", name))
    if closing in text.lower():
        raise ValueError(f"assets/report/{name} must not contain {closing!r}: it would end its inline block")
    return text


def _json(value: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``: ``<``, ``>``, ``&`` escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _section(anchor: str, heading: str, content: str) -> str:
    return f'<section id="{anchor}"><h2>{escape(heading)}</h2>\n{content}\n</section>'


def _header(data: dict[str, Any], title: str) -> str:
    runs = ", ".join(escape(run["name"]) for run in data["runs"])
    count = len(data["episodes"])
    return (
        f"<header><h1>{escape(title)}</h1><p>{count:,} episode(s) from {len(data['runs'])} results file(s): "
        f"{runs}. An episode passes when its reward reaches <b>{data['threshold']:g}</b>; intervals are 95 % "
        'confidence intervals (see the summary\'s docstring). <a href="#episodes">Episodes</a></p></header>'
    )


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return "-" if not value else f"{_fmt(value[0])}–{_fmt(value[1])}"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:.3f}"


def _metric(run: int, path: str, value: Any) -> str:
    """A number cell that says which summary value it shows."""
    return (
        f'<td class="num" data-run="{run}" data-metric="{escape(path)}" '
        f'data-value="{escape(json.dumps(value))}">{_fmt(value)}</td>'
    )


def _get(tree: Any, path: str) -> Any:
    for part in path.split("/"):
        if not isinstance(tree, dict) or part not in tree:
            return None
        tree = tree[part]
    return tree


def _run_head(data: dict[str, Any], span: int = 1) -> str:
    return "".join(f'<th colspan="{span}" class="run">{escape(run["name"])}</th>' for run in data["runs"])


def _largest_k(data: dict[str, Any]) -> int:
    return max((int(k) for run in data["runs"] for k in run["summary"].get("pass_at_k", {})), default=1)


def _runs_table(data: dict[str, Any]) -> str:
    """One column per results file, one row per headline figure."""
    rows: list[tuple[str, str]] = [
        ("episodes scored", "episodes"),
        ("infrastructure errors", "errors"),
        ("tasks", "tasks"),
        ("mean reward", "mean_reward"),
        ("95% CI", "mean_reward_ci95"),
        ("pass@1", "pass_at_k/1"),
        ("95% CI", "pass_at_k_ci95/1"),
    ]
    k = _largest_k(data)
    if k > 1:
        rows += [(f"pass@{k}", f"pass_at_k/{k}"), (f"pass^{k}", f"pass_hat_k/{k}")]
    rows += [
        ("parse errors", "parse_errors"),
        ("prompt tokens", "usage/prompt_tokens"),
        ("completion tokens", "usage/completion_tokens"),
    ]
    body = "".join(
        f"<tr><th>{escape(label)}</th>"
        + "".join(_metric(i, path, _get(run["summary"], path)) for i, run in enumerate(data["runs"]))
        + "</tr>"
        for label, path in rows
    )
    head = f"<thead><tr><th></th>{_run_head(data)}</tr></thead>"
    return f'<div class="wide"><table class="metrics">{head}<tbody>{body}</tbody></table></div>'


def _grouped(data: dict[str, Any], first: str, columns: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """A table with one group of ``columns`` per run; each row is a label and the metric paths of a group."""
    span = len(columns)
    head = f'<tr><th rowspan="2">{escape(first)}</th>{_run_head(data, span)}</tr>'
    head += "<tr>" + "".join(f"<th>{escape(c)}</th>" for _ in data["runs"] for c in columns) + "</tr>"
    trees = [{**run["summary"], "task": run["tasks"]} for run in data["runs"]]
    body = []
    for label, paths in rows:
        cells = "".join(_metric(i, path, _get(tree, path)) for i, tree in enumerate(trees) for path in paths)
        body.append(f"<tr><th>{escape(label)}</th>{cells}</tr>")
    return f'<div class="wide"><table class="metrics"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table></div>'


def _tiers_table(data: dict[str, Any]) -> str:
    columns = ["episodes", "mean reward", "95% CI", "pass@1", "95% CI"]
    fields = ["episodes", "mean_reward", "mean_reward_ci95", "pass_at_k/1", "pass_at_k_ci95/1"]
    rows = [(tier or "-", [f"tiers/{tier}/{f}" for f in fields]) for tier in data["tiers"]]
    return _grouped(data, "tier", columns, [*rows, ("all", fields)])


def _pass_k_table(data: dict[str, Any]) -> str:
    rows = [
        (f"k = {k}", [f"pass_at_k/{k}", f"pass_at_k_ci95/{k}", f"pass_hat_k/{k}"])
        for k in range(1, _largest_k(data) + 1)
    ]
    note = (
        "<p>pass@k: the chance that at least one of k rollouts of a task passes; pass^k: that all k pass "
        "(averaged over the tasks with at least k rollouts).</p>"
    )
    return note + _grouped(data, "k", ["pass@k", "95% CI", "pass^k"], rows)


def _tasks_table(data: dict[str, Any]) -> str:
    k = _largest_k(data)
    columns = ["episodes", "mean reward", "95% CI", "pass@1", "95% CI"] + ([f"pass@{k}"] if k > 1 else [])
    rows = []
    for task, tier in data["task_order"]:
        base = f"task/{task}"
        paths = [
            f"{base}/episodes",
            f"{base}/mean_reward",
            f"{base}/rollout_ci95/mean_reward",
            f"{base}/pass_at_k/1",
            f"{base}/rollout_ci95/pass_at_1",
        ] + ([f"{base}/pass_at_k/{k}"] if k > 1 else [])
        rows.append((f"{task} ({tier})" if tier else task, paths))
    note = "<p>A task's intervals are over its rollouts (none with one rollout).</p>"
    return note + _grouped(data, "task", columns, rows)


def _charts(data: dict[str, Any]) -> str:
    """Per run: the reward histogram, turns and tokens per episode, each metric on one scale for all runs."""
    numbered = list(enumerate(data["episodes"]))
    per_run = [[(n, e) for n, e in numbered if e["run"] == i] for i in range(len(data["runs"]))]
    scored = [[float(e["reward"]) for _, e in eps if e["outcome"] != "error"] for eps in per_run]
    top_bin = max((max(reward_bins(r)) for r in scored), default=1)
    top_turns = max((float(e["turns"]) for e in data["episodes"]), default=1.0)
    top_tokens = max((float(e["tokens"]) for e in data["episodes"]), default=1.0)
    rows = []
    for run, eps, rewards in zip(data["runs"], per_run, scored, strict=True):
        keys, numbers = [e["key"] for _, e in eps], [n for n, _ in eps]
        charts = [
            reward_histogram(rewards, top_bin),
            per_episode([float(e["turns"]) for _, e in eps], keys, "turns", top_turns, numbers),
            per_episode([float(e["tokens"]) for _, e in eps], keys, "tokens", top_tokens, numbers),
        ]
        cells = "".join(f"<figure>{chart}</figure>" for chart in charts)
        rows.append(f'<div class="chart-row"><h3>{escape(run["name"])}</h3>{cells}</div>')
    return "".join(rows)


def _select(name: str, label: str, options: list[tuple[str, str]]) -> str:
    choices = "".join(f'<option value="{escape(v)}">{escape(t)}</option>' for v, t in options)
    return f'<label>{escape(label)} <select id="filter-{name}"><option value="">all</option>{choices}</select></label>'


def _filters(data: dict[str, Any]) -> str:
    runs = [(str(i), run["name"]) for i, run in enumerate(data["runs"])]
    tiers = [(tier, tier or "-") for tier in data["tiers"]]
    tasks = [(task, task) for task, _ in data["task_order"]]
    controls = [
        _select("run", "run", runs) if len(runs) > 1 else "",
        _select("tier", "tier", tiers),
        _select("outcome", "outcome", [(o, o) for o in OUTCOMES]),
        _select("task", "task", tasks),
        '<label>search <input id="filter-search" type="search" placeholder="any word in a transcript"></label>',
        f'<output id="shown">{len(data["episodes"]):,} of {len(data["episodes"]):,} episodes</output>',
    ]
    return (
        '<div class="filters">' + "".join(controls) + "</div>"
        "<noscript><p>Transcripts, filters and search need JavaScript; the tables above do not.</p></noscript>"
    )


def _episode_list(data: dict[str, Any]) -> str:
    names = [run["name"] for run in data["runs"]]
    return '<div id="episode-list">' + "".join(_episode(i, e, names) for i, e in enumerate(data["episodes"])) + "</div>"


def _episode(index: int, episode: dict[str, Any], names: list[str]) -> str:
    reward = "-" if episode["reward"] is None else f"{episode['reward']:.3f}"
    run = f'<span class="run">{escape(names[episode["run"]])}</span> ' if len(names) > 1 else ""
    attributes = " ".join(
        f'data-{name}="{escape(str(episode[field]))}"'
        for name, field in (("run", "run"), ("tier", "tier"), ("task", "task"), ("outcome", "outcome"), ("key", "key"))
    )
    return (
        f'<details class="ep" id="episode-{index}" data-i="{index}" {attributes}>'
        f'<summary><span class="o {episode["outcome"]}">'
        f"{episode['outcome']}</span> {run}<b>{escape(episode['key'])}</b> <i>{escape(episode['tier'] or '-')}</i> "
        f"reward {reward} · {escape(episode['stop'])} · {episode['turns']} turns · {episode['tokens']:,} tokens"
        '</summary><div class="body"></div></details>'
    )
