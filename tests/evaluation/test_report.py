"""``officegym report``: the page's numbers are the summary's, every text is escaped, the output is
deterministic, failure rows of any shape become one table, and bad input is one ``Error:`` line.

The browser half (the page loads, filters and searches in headless Chromium) is ``test_report_browser.py``;
both build their results with :func:`make_results`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from officegym.cli import main
from officegym.evaluation.records import read_records
from officegym.evaluation.report import build_report
from officegym.evaluation.report_data import failure_table
from officegym.evaluation.summary import ci95, mean_se, summarize

INVOICE_TASKS = "single-1,single-2,batch-1,long-1,hard-1"
VENDOR_TASKS = "vr-easy-01,vr-medium-01,vr-hard-01"
NEEDLE = "zanzibarquux"
"""A word that only one tool result holds: the search must find exactly that episode."""
HOSTILE = f"</script><script>window.pwned = 1</script><b>bold</b> $data ${{style}} & {NEEDLE} \udc80 \u2028"
"""A tool result that tries to close the data block, run a script, inject markup and a template name."""
ERROR_KEY = "hard-1#1"
HANG_GUARD = 600  # seconds: only stops a wedged subprocess, never a timing check


def make_results(folder: Path) -> list[Path]:
    """Three results files: InvoiceApproval-v0 oracle (with token usage, as an LLM run has) and random (one
    tool result made hostile, one episode an infrastructure error), VendorReview-v0 random (partial credit,
    field-level failure rows)."""
    runs = [
        ("officegym/InvoiceApproval-v0", "oracle", INVOICE_TASKS),
        ("officegym/InvoiceApproval-v0", "random", INVOICE_TASKS),
        ("officegym/VendorReview-v0", "random", VENDOR_TASKS),
    ]
    paths = []
    for env_id, policy, tasks in runs:
        out = folder / env_id.split("/")[1]
        argv = ["eval", env_id, "--policy", policy, "--task-ids", tasks, "-r", "2", "-c", "1", "-q", "-o", str(out)]
        assert main(argv) == 0
        paths.append(out / f"{env_id.split('/')[1]}__{policy}.jsonl")
    _rewrite(paths[0], _with_usage)
    _rewrite(paths[1], _hostile)
    return paths


def _rewrite(path: Path, change: Any) -> None:
    records, _ = read_records(path)
    lines = [json.dumps(change(record)) for record in records]  # ensure_ascii: a lone surrogate as \udc80
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _with_usage(record: dict[str, Any]) -> dict[str, Any]:
    turns = int(record.get("turns") or 0)
    return {**record, "usage": {"prompt_tokens": 900 * turns, "completion_tokens": 40 * turns}}


def _hostile(record: dict[str, Any]) -> dict[str, Any]:
    if record["key"] == "single-1#0":
        messages = [dict(m) for m in record["messages"]]
        tool = next(i for i, m in enumerate(messages) if m["role"] == "tool")
        messages[tool]["content"] = HOSTILE
        return {**record, "messages": messages}
    if record["key"] == ERROR_KEY:
        return {
            **record,
            "has_error": True,
            "error": "endpoint went away </script> mid-episode",
            "reward": None,
            "grade": {},
            "stop_reason": "error",
        }
    return record


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_results(tmp_path_factory.mktemp("report-results"))


@pytest.fixture(scope="module")
def html(results: list[Path]) -> str:
    return build_report(results)


def script_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


class Cells(HTMLParser):
    """Every ``data-metric`` cell of a page: (run, metric path, value as JSON, text shown)."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[list[str]] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if "data-metric" in found:
            self.cells.append([str(found["data-run"]), str(found["data-metric"]), str(found["data-value"]), ""])
            self._open = True

    def handle_data(self, data: str) -> None:
        if self._open:
            self.cells[-1][3] += data

    def handle_endtag(self, tag: str) -> None:
        self._open = False


def summary_tree(path: Path) -> dict[str, Any]:
    """What a ``data-metric`` path is read against: the run's summary, with ``task/<id>`` the summary of that
    task's episodes alone (computed here from ``summarize``, independently of the page)."""
    records, _ = read_records(path)
    tasks = {}
    for task in dict.fromkeys(str(r["task_id"]) for r in records):
        chosen = [r for r in records if r["task_id"] == task]
        rewards = [float(r["reward"]) for r in chosen if not r["has_error"]]
        passes = [float(x >= 1.0) for x in rewards]
        summary = summarize(chosen)
        tasks[task] = {
            **summary,
            "rollout_ci95": {
                "mean_reward": ci95(summary["mean_reward"], mean_se(rewards)),
                "pass_at_1": ci95(summary["pass_at_k"].get("1"), mean_se(passes)),
            },
        }
    return {**summarize(records), "task": tasks}


def lookup(tree: Any, path: str) -> Any:
    for part in path.split("/"):
        if not isinstance(tree, dict) or part not in tree:
            return None
        tree = tree[part]
    return tree


def test_every_number_on_the_page_is_the_summarys(results: list[Path], html: str) -> None:
    parser = Cells()
    parser.feed(html)
    trees = [summary_tree(path) for path in results]
    assert len(parser.cells) > 100
    for run, metric, value, _ in parser.cells:
        assert json.loads(value) == lookup(trees[int(run)], metric), (run, metric)
    shown = {(run, metric): text for run, metric, _, text in parser.cells}
    oracle, random_run = trees[0], trees[1]
    assert shown[("0", "mean_reward")] == f"{oracle['mean_reward']:.3f}"
    assert shown[("1", "errors")] == "1" == str(random_run["errors"])
    assert ("0", "pass_at_k/2") in shown and ("0", "pass_hat_k/2") in shown  # two rollouts: pass@2 and pass^2
    assert ("2", "tiers/medium/mean_reward_ci95") in shown  # VendorReview's tiers beside InvoiceApproval's


def test_a_hostile_tool_result_is_text_not_markup(html: str) -> None:
    assert html.count("</script>") == 2  # the data block's end and the script's end, nothing a record wrote
    assert "window.pwned" in html and "<script>window.pwned" not in html
    assert "<b>bold</b>" not in html
    data = script_data(html)
    assert HOSTILE.replace("\udc80", "\\udc80") not in data["strings"]  # written as its escape
    assert any(NEEDLE in text and "</script><script>window.pwned = 1</script>" in text for text in data["strings"])
    assert "endpoint went away </script> mid-episode" in data["strings"]


def test_a_file_name_is_text_too(results: list[Path], tmp_path: Path) -> None:
    hostile = tmp_path / 'run <i>one & "two".jsonl'
    hostile.write_bytes(results[1].read_bytes())
    page = build_report([hostile, results[0]])
    assert "<i>one" not in page and "run &lt;i&gt;one &amp; &quot;two&quot;" in page


def test_each_text_is_stored_once(results: list[Path], html: str) -> None:
    """The policy text opens all 10 oracle transcripts (and the random run's): the page holds it once."""
    records, _ = read_records(results[0])
    policy_text = records[0]["messages"][0]["content"]
    assert len(policy_text) > 4000 and sum(r["messages"][0]["content"] == policy_text for r in records) == 10
    data = script_data(html)
    assert data["strings"].count(policy_text) == 1
    assert len(html) < sum(path.stat().st_size for path in results) / 2


def test_the_same_results_give_the_same_bytes(results: list[Path], tmp_path: Path) -> None:
    """In this process and in another with another hash seed (no set order or salted hash reaches the page)."""
    assert main(["report", *map(str, results), "-o", str(tmp_path / "a.html")]) == 0
    command = [sys.executable, "-m", "officegym.cli", "report", *map(str, results), "-o", str(tmp_path / "b.html")]
    environment = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run(command, check=True, capture_output=True, env=environment, timeout=HANG_GUARD)
    pages = [(tmp_path / name).read_bytes() for name in ("a.html", "b.html")]
    assert pages[0] == pages[1]
    assert b"http://" not in pages[0] and b"https://" not in pages[0]  # nothing to fetch, no link out


def test_the_page_holds_every_episode_once_in_order(results: list[Path], html: str) -> None:
    episodes = script_data(html)["episodes"]
    keys = [(e["run"], e["key"]) for e in episodes]
    expected = [(run, r["key"]) for run, path in enumerate(results) for r in read_records(path)[0]]
    assert sorted(keys) == sorted(expected) and len(set(keys)) == len(keys)
    assert [k for run, k in keys if run == 0][:4] == ["single-1#0", "single-1#1", "single-2#0", "single-2#1"]
    outcomes = {(e["run"], e["key"]): e["outcome"] for e in episodes}
    assert outcomes[(1, ERROR_KEY)] == "error" and outcomes[(0, "hard-1#0")] == "pass"
    assert html.count('<details class="ep"') == len(episodes)


def test_failure_rows_of_any_shape_become_one_table() -> None:
    rows = [
        {"kind": "invoice", "item": "ER-1", "expected": "approved", "actual": "rejected"},
        {"kind": "invoice", "record": "ER-2", "field": "status", "expected": "approved", "actual": None, "rule": 3},
        {"kind": "gap", "expected": ["a", "b"]},
    ]
    table = failure_table(rows)
    assert table["columns"] == ["kind", "item", "expected", "actual", "record", "field", "rule"]
    assert table["rows"][1] == ["invoice", "", "approved", "", "ER-2", "status", "3"]
    assert table["rows"][2][2] == '["a", "b"]'
    assert failure_table(None) == {"columns": [], "rows": []}


def test_field_level_failures_reach_the_page(html: str) -> None:
    data = script_data(html)
    vendor = [e for e in data["episodes"] if e["run"] == 2 and e["failures"]["rows"]]
    assert vendor, "the VendorReview run should have failure rows"
    columns = vendor[0]["failures"]["columns"]
    assert columns[0] == "kind" and {"expected", "actual"} <= set(columns)
    cells = [data["strings"][ref] for ref in vendor[0]["failures"]["rows"][0]]
    assert cells[0] == "missed gap"


def test_bad_input_is_one_error_line(results: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "r.html")]) == 2
    assert "Error: no results file at" in capsys.readouterr().err
    assert main(["report", str(results[0]), "-o", str(tmp_path)]) == 2
    assert "is a directory; name the HTML file" in " ".join(capsys.readouterr().err.split())
    assert main(["report", str(results[0]), "--pass-threshold", "2", "-o", str(tmp_path / "r.html")]) == 2
    assert "--pass-threshold must be between 0 and 1" in capsys.readouterr().err
    assert main(["report", str(results[0]), "-o", str(results[0])]) == 2
    assert "is one of the results files" in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "r.html").exists() and read_records(results[0])[0]


def test_a_run_of_errors_only_and_odd_messages_still_render(results: list[Path], tmp_path: Path) -> None:
    record = read_records(results[1])[0][0]
    broken = {**record, "has_error": True, "reward": None, "grade": {}, "error": "refused"}
    del broken["tier"]
    broken["messages"] = [*record["messages"][:2], {"role": "assistant", "tool_calls": ["not a call", {"id": 7}]}]
    path = tmp_path / "errors.jsonl"
    path.write_text(json.dumps(broken) + "\n", encoding="utf-8")
    page = build_report([path])
    data = script_data(page)
    assert [e["outcome"] for e in data["episodes"]] == ["error"]
    null_arguments = data["strings"].index("null")
    assert data["episodes"][0]["messages"][-1][3] == [["None", null_arguments, ""], ["None", null_arguments, "7"]]
    assert 'data-metric="mean_reward" data-value="null">-<' in page
