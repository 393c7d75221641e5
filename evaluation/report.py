"""``officegym report RESULTS... -o report.html``: every episode of one or more eval runs in one HTML file.

The file is self-contained (inline CSS, script and SVG; its Content-Security-Policy forbids loading anything),
so it opens from a mail attachment or a CI artefact with no server. Runs sit side by side, one column per
results file; the figures are ``summarize``'s (those ``officegym show`` prints). The same results give the
same bytes: no clock, no host name, no unordered set reaches the page.

The page is written UTF-8; a lone surrogate (a model's broken ``\\uDXXX`` escape, which the results file keeps)
is written as its backslash escape, inside the JSON block a valid JSON escape of the same string.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from .commands import load
from .report_data import Run, report_data, run_names
from .report_html import page

TITLE = "officegym report"


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``officegym report`` (the CLI's parser calls this)."""
    parser.add_argument("results", nargs="+", help="results .jsonl file(s) written by officegym eval; one column each")
    parser.add_argument("-o", "--output", default="report.html", help="the HTML file to write (default report.html)")
    parser.add_argument("--pass-threshold", type=float, default=1.0, help="reward that counts as a pass")
    parser.add_argument("--title", default=TITLE, help=f"the page's title (default {TITLE!r})")


def build_report(paths: list[Path], threshold: float = 1.0, title: str = TITLE, errors: Console | None = None) -> str:
    """The report page of the results files at ``paths``."""
    quiet = errors or Console(stderr=True)
    runs = [Run(name, load(path, quiet)) for name, path in zip(run_names(paths), paths, strict=True)]
    return page(report_data(runs, threshold), title)


def write_report(html: str, output: Path) -> int:
    """Write the page (whole, then renamed into place, so a reader never sees half a file); its size."""
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.partial")
    partial.write_text(html, encoding="utf-8", errors="backslashreplace")
    partial.replace(output)
    return output.stat().st_size


def report_command(args: argparse.Namespace, console: Console, errors: Console) -> int:
    output = Path(args.output)
    if output.is_dir():
        raise ValueError(f"-o {output} is a directory; name the HTML file to write, e.g. -o {output / 'report.html'}")
    if not 0.0 <= args.pass_threshold <= 1.0:
        raise ValueError(f"--pass-threshold must be between 0 and 1 (rewards are in [0, 1]), got {args.pass_threshold}")
    inputs = [Path(p) for p in args.results]
    if any(path.resolve() == output.resolve() for path in inputs):
        raise ValueError(f"-o {output} is one of the results files; name another file for the report")
    html = build_report(inputs, args.pass_threshold, args.title, errors)
    size = write_report(html, output)
    console.print(f"report: {output} ({size:,} bytes)", markup=False, highlight=False, soft_wrap=True)
    return 0
