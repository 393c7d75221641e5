"""The manual's pictures of ``officegym report``: ``docs/assets/report.png`` and ``report-episode.png``.

``.venv/bin/python docs/make_report_screenshot.py`` evaluates the oracle and the random policy three times on every
InvoiceApproval-v0 task (scripted, no network, a few seconds) into a temporary folder, writes their report,
opens it in headless Chromium (``tests/browser.py``, the driver the report's browser test uses) and saves
two pictures: the top of the page (runs side by side, per-tier table, pass@k, charts) and one failed episode
opened (its failure report and the start of its transcript). Needs Chromium (``make browser`` installs it).
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the browser driver lives beside the tests that use it

from browser import Browser, find_chromium  # noqa: E402

from officegym.cli import main as officegym  # noqa: E402
from officegym.evaluation.report import build_report, write_report  # noqa: E402

ENV_ID = "officegym/InvoiceApproval-v0"
POLICIES = ("oracle", "random")
OUT = ROOT / "docs" / "assets"
WIDTH = 1280
OPEN_EPISODE = (
    '(() => { const e = document.querySelector(\'details.ep[data-run="1"][data-outcome="fail"]\');'
    " e.open = true; e.scrollIntoView(); return window.scrollY; })()"
)


def results(folder: Path) -> list[Path]:
    """Run each policy on every task (quietly) and return the results files."""
    paths = []
    for policy in POLICIES:
        with contextlib.redirect_stdout(io.StringIO()):
            code = officegym(["eval", ENV_ID, "--policy", policy, "-r", "3", "-q", "-c", "1", "-o", str(folder)])
        if code != 0:
            raise SystemExit(f"Error: officegym eval --policy {policy} failed (exit {code})")
        paths.append(folder / f"{ENV_ID.split('/')[1]}__{policy}.jsonl")
    return paths


def main() -> int:
    executable = find_chromium()
    if executable is None:
        print("Error: no Chromium found: run `make browser` (apt-get install -y chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        page_path = Path(folder) / "report.html"
        write_report(build_report(results(Path(folder))), page_path)
        with Browser(executable) as browser:
            page = browser.open(page_path.as_uri(), WIDTH, 900)
            if page.errors():
                print(f"Error: the report logged errors: {page.errors()}", file=sys.stderr)
                return 1
            top = page.screenshot(OUT / "report.png", WIDTH, 1500)
            y = int(page.evaluate(OPEN_EPISODE))
            episode = page.screenshot(OUT / "report-episode.png", WIDTH, 900, top=y)
    for path in (top, episode):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
