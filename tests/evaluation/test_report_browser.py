"""The report in a real headless Chromium (``tests/browser.py``): it loads with no console error, its numbers
are the summary's as the browser reads them, the filters show exactly the right episodes, the search finds an
episode by a word of one tool result, an opened episode draws its transcript and failure table, and a
screenshot is kept (``tests/artifacts/report.png``, ignored by git) for a person to look at.

``make test`` installs Debian's ``chromium`` first; without it this test skips with the command to run, except
under CI (``CI`` set), where a missing browser fails it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from officegym.evaluation.records import read_records
from officegym.evaluation.report import build_report, write_report
from officegym.evaluation.report_data import outcome

from ..browser import Browser, Page, find_chromium
from .test_report import ERROR_KEY, NEEDLE, lookup, make_results, summary_tree

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
VISIBLE = (
    "[...document.querySelectorAll('details.ep')].filter(e => !e.hidden).map(e => e.dataset.run + ' ' + e.dataset.key)"
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_results(tmp_path_factory.mktemp("report-browser"))


@pytest.fixture(scope="module")
def page(results: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    executable = find_chromium()
    if executable is None:
        message = "Chromium is not installed: apt-get install -y chromium (make test does it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    output = tmp_path_factory.mktemp("report-page") / "report.html"
    write_report(build_report(results), output)
    with Browser(executable) as browser:
        yield browser.open(output.as_uri())


def expected(results: list[Path], keep: Any) -> list[str]:
    """``run key`` of every episode ``keep(run, record)`` accepts, in the page's order."""
    found = []
    for run, path in enumerate(results):
        for record in read_records(path)[0]:
            if keep(run, record):
                found.append(f"{run} {record['key']}")
    return found


def choose(page: Page, **filters: str) -> list[str]:
    """Set the filter controls as a person would (a change event each), then the visible episodes."""
    script = "".join(
        f"(n => {{ n.value = {json.dumps(value)}; n.dispatchEvent(new Event("
        f"{json.dumps('input' if name == 'search' else 'change')})); }})(document.getElementById('filter-{name}'));"
        for name, value in filters.items()
    )
    page.evaluate(script)
    return sorted(page.evaluate(VISIBLE))


def test_the_page_loads_without_a_console_error(page: Page) -> None:
    assert page.errors() == []
    assert page.evaluate("document.title") == "officegym report"
    assert page.evaluate("window.pwned === undefined")  # the hostile tool result stayed text


def test_the_numbers_in_the_dom_are_the_summarys(page: Page, results: list[Path]) -> None:
    cells = page.evaluate(
        "[...document.querySelectorAll('[data-metric]')].map(c => [c.dataset.run, c.dataset.metric, "
        "c.dataset.value, c.textContent])"
    )
    trees = [summary_tree(path) for path in results]
    assert len(cells) > 100
    for run, metric, value, text in cells:
        assert json.loads(value) == lookup(trees[int(run)], metric), (run, metric)
        if metric == "mean_reward":
            assert text == f"{trees[int(run)]['mean_reward']:.3f}"


def test_filters_show_exactly_the_right_episodes(page: Page, results: list[Path]) -> None:
    everything = sorted(expected(results, lambda run, record: True))
    assert choose(page) == everything
    for tier in ("single", "batch", "easy", "hard"):
        want = expected(results, lambda run, record, tier=tier: record.get("tier") == tier)
        assert choose(page, tier=tier) == sorted(want), tier
    choose(page, tier="")
    for kind in ("pass", "fail", "error"):
        want = expected(results, lambda run, record, kind=kind: outcome(record, 1.0) == kind)
        assert choose(page, outcome=kind) == sorted(want), kind
    assert choose(page, outcome="error") == [f"1 {ERROR_KEY}"]
    choose(page, outcome="")
    want = expected(results, lambda run, record: record["task_id"] == "batch-1" and run == 1)
    assert choose(page, task="batch-1", run="1") == sorted(want) == ["1 batch-1#0", "1 batch-1#1"]
    assert page.evaluate("document.getElementById('shown').textContent") == f"2 of {len(everything)} episodes"
    assert choose(page, task="", run="") == everything


def test_search_finds_an_episode_by_a_tool_result_word(page: Page) -> None:
    assert choose(page, search=NEEDLE.upper()) == ["1 single-1#0"]
    assert choose(page, search="no such word anywhere") == []
    choose(page, search="")


def test_an_opened_episode_shows_its_transcript_and_failures(page: Page) -> None:
    opened = page.evaluate(
        '(() => { const e = document.querySelector(\'details.ep[data-run="1"][data-key="single-1#0"]\');'
        " e.open = true; return new Promise(r => setTimeout(() => r(e.querySelector('.body').innerText), 50)); })()"
    )
    assert NEEDLE in opened and "</script><script>window.pwned = 1</script>" in opened
    assert "where it fell short" in opened and "expected" in opened
    assert page.evaluate("document.querySelectorAll('details.msg.role-system').length") >= 1
    assert page.errors() == []


def test_a_bar_of_a_chart_opens_its_episode(page: Page) -> None:
    opened = page.evaluate(
        "(() => { const bar = document.querySelectorAll('rect[data-episode]')[3];"
        " bar.dispatchEvent(new MouseEvent('click', {bubbles: true}));"
        " const e = document.getElementById('episode-' + bar.getAttribute('data-episode'));"
        " return [e.open, bar.querySelector('title').textContent.split(':')[0], e.dataset.key,"
        " e.querySelectorAll('details.msg').length]; })()"
    )
    assert opened[0] is True and opened[1] == opened[2] and opened[3] > 2
    assert page.errors() == []


def test_a_screenshot_is_kept(page: Page) -> None:
    page.evaluate("document.querySelector('details.ep[data-outcome=\"fail\"]').open = true")
    path = page.screenshot(ARTIFACTS / "report.png", 1280, 2400)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
