"""What ``officegym report`` shows, as plain data: each run's summary and per-task rows, and every episode.

The numbers are :func:`~officegym.evaluation.summary.summarize`'s, the same ones ``officegym show`` prints: a
run's headline, per-tier and pass@k figures are its summary, and a task's row is the summary of that task's
episodes alone. A task's interval comes from the summary module's own ``mean_se``/``ci95`` over its rollouts
(the summary's interval is over tasks, which a single task does not have): ``None`` with one rollout.

Episodes are kept compact for a page that must stay small at 1,000 episodes: every text (message contents,
tool-call arguments, errors) is stored once in a string table and referred to by its index, so the policy text
that opens every transcript, and a tool result that many episodes read alike, cost their bytes once. The table
grows in first-seen order, so the same input gives the same page byte for byte.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..policies.chat import redact_text
from .summary import ci95, mean_se, summarize, tier_rank

OUTCOMES = ("pass", "fail", "error")


@dataclass(frozen=True)
class Run:
    """One results file: the name its column is headed with, and its records (the last of each episode)."""

    name: str
    records: list[dict[str, Any]]


@dataclass
class Strings:
    """The page's string table: each distinct text once, referred to by index, in first-seen order."""

    texts: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)

    def ref(self, text: Any) -> int:
        value = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
        if value not in self.index:
            self.index[value] = len(self.texts)
            self.texts.append(value)
        return self.index[value]


def run_names(paths: list[Path]) -> list[str]:
    """File names without ``.jsonl``, or the whole paths when two files share a name (as ``show`` does)."""
    names = [path.name.removesuffix(".jsonl") for path in paths]
    if len(set(names)) < len(names):
        names = [str(path) for path in paths]
    return names


def outcome(record: dict[str, Any], threshold: float) -> str:
    """``error`` (infrastructure, never scored), ``pass`` (reward reaches the threshold) or ``fail``."""
    if record.get("has_error"):
        return "error"
    return "pass" if float(record.get("reward") or 0.0) >= threshold else "fail"


def tokens(record: dict[str, Any]) -> int:
    usage = record.get("usage") or {}
    return int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))


def _natural(text: str) -> tuple[Any, ...]:
    """``single-2`` before ``single-10``: digit runs compare as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def episode_order(record: dict[str, Any]) -> tuple[Any, ...]:
    """Tasks by tier (easiest first), then by id, then rollout: the order tables and the episode list use."""
    return (tier_rank(str(record.get("tier") or "")), _natural(str(record["task_id"])), record["rollout"])


def task_order(runs: list[Run]) -> list[tuple[str, str]]:
    """Every task of every run with its tier, in :func:`episode_order`."""
    found: dict[str, str] = {}
    for run in runs:
        for record in sorted(run.records, key=episode_order):
            found.setdefault(str(record["task_id"]), str(record.get("tier") or ""))
    return sorted(found.items(), key=lambda item: (tier_rank(item[1]), _natural(item[0])))


def tier_names(summaries: list[dict[str, Any]]) -> list[str]:
    """The tiers of every run's summary, easiest first."""
    names = {tier for summary in summaries for tier in summary.get("tiers", {})}
    return sorted(names, key=tier_rank)


def task_summaries(records: list[dict[str, Any]], threshold: float) -> dict[str, dict[str, Any]]:
    """Per task: the summary of its episodes alone, plus ``rollout_ci95`` (mean reward and pass@1 over its
    rollouts)."""
    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_task[str(record["task_id"])].append(record)
    result = {}
    for task, chosen in by_task.items():
        summary = summarize(chosen, threshold)
        rewards = [float(r["reward"]) for r in chosen if not r.get("has_error")]
        passes = [1.0 if x >= threshold else 0.0 for x in rewards]
        summary["rollout_ci95"] = {
            "mean_reward": ci95(summary.get("mean_reward"), mean_se(rewards)),
            "pass_at_1": ci95((summary.get("pass_at_k") or {}).get("1"), mean_se(passes)),
        }
        result[task] = summary
    return result


def failure_table(rows: Any) -> dict[str, Any]:
    """A failure report as a table: the columns are the union of the rows' keys in first-seen order, so any
    shape of row (item-level today, field-level tomorrow) reads without code that knows it."""
    if not isinstance(rows, list):
        return {"columns": [], "rows": []}
    dicts = [row if isinstance(row, dict) else {"value": row} for row in rows]
    columns = list(dict.fromkeys(str(key) for row in dicts for key in row))
    cells = [[_cell(row.get(column)) for column in columns] for row in dicts]
    return {"columns": columns, "rows": cells}


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def episode_view(run: int, record: dict[str, Any], threshold: float, strings: Strings) -> dict[str, Any]:
    """One episode as the page's script reads it: list fields, header, grade, failures, transcript."""
    failures = failure_table(record.get("failures"))
    return {
        "run": run,
        "key": str(record["key"]),
        "task": str(record["task_id"]),
        "tier": str(record.get("tier") or ""),
        "outcome": outcome(record, threshold),
        "reward": record.get("reward"),
        "stop": str(record.get("stop_reason")),
        "turns": int(record.get("turns") or 0),
        "tokens": tokens(record),
        "head": [[label, strings.ref(value)] for label, value in _header(record)],
        "error": strings.ref(redact_text(str(record["error"]))) if record.get("has_error") else None,
        "grade": [[str(k), strings.ref(v)] for k, v in (record.get("grade") or {}).items()],
        "failures": {
            "columns": failures["columns"],
            "rows": [[strings.ref(cell) for cell in row] for row in failures["rows"]],
        },
        "messages": [_message(m, strings) for m in record.get("messages") or [] if isinstance(m, dict)],
    }


def _header(record: dict[str, Any]) -> list[tuple[str, Any]]:
    timing = record.get("timing") or {}
    usage = record.get("usage") or {}
    fields: list[tuple[str, Any]] = [
        ("env", record.get("env_id")),
        ("policy", record.get("policy")),
        ("model", record.get("model") or "-"),
        ("seed", record.get("seed")),
        ("stop", record.get("stop_reason")),
        ("tokens in / out", f"{usage.get('prompt_tokens', 0):,} / {usage.get('completion_tokens', 0):,}"),
        ("wall s", timing.get("wall_s", "-")),
    ]
    if record.get("stop_detail"):
        fields.append(("stopped by", redact_text(str(record["stop_detail"]))))
    return [(label, "-" if value is None else value) for label, value in fields]


def _message(message: dict[str, Any], strings: Strings) -> list[Any]:
    """``[role, content, tool_call_id, calls, reasoning]`` (trailing empty fields dropped): a list, since an
    oracle's episode holds a hundred messages and key names would be a third of the page. A call is
    ``[name, arguments, id]``; texts are string-table indices."""
    calls = []
    for call in message.get("tool_calls") or []:
        call = call if isinstance(call, dict) else {}
        function: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else {}
        arguments = _pretty(function.get("arguments"))
        calls.append([str(function.get("name")), strings.ref(arguments), str(call.get("id", ""))])
    reasoning = message.get("reasoning_content")
    view: list[Any] = [
        str(message.get("role")),
        strings.ref(message.get("content") or ""),
        str(message["tool_call_id"]) if message.get("tool_call_id") else None,
        calls or None,
        strings.ref(reasoning) if reasoning else None,
    ]
    while view[-1] is None:
        view.pop()
    return view


def _pretty(arguments: Any) -> str:
    """Tool-call arguments as indented JSON (as the model sent them when they are not JSON)."""
    value = arguments
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except ValueError:
            return arguments
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)


def report_data(runs: list[Run], threshold: float) -> dict[str, Any]:
    """Everything the page shows: per run its summary and task rows; every episode; the string table."""
    strings = Strings()
    summaries = [summarize(run.records, threshold) for run in runs]
    episodes = [
        episode_view(index, record, threshold, strings)
        for index, run in enumerate(runs)
        for record in sorted(run.records, key=episode_order)
    ]
    return {
        "threshold": threshold,
        "runs": [
            {"name": run.name, "summary": summary, "tasks": task_summaries(run.records, threshold)}
            for run, summary in zip(runs, summaries, strict=True)
        ],
        "tiers": tier_names(summaries),
        "task_order": task_order(runs),
        "episodes": episodes,
        "strings": strings.texts,
    }
