"""Failure rows in the terminal (``officegym show --episode``): one table, or one block per record when narrow.

Where the console is wide enough, the rows are one table with the six columns of the format (kind, record,
field, expected, actual, rule). At 80 columns six columns do not fit without cutting values in the middle, and
a value cut across lines is what a person cannot read; so a narrow console gets the rows grouped by record
instead: a heading line per record (kind, record, rule: shared by its rows, so said once) and under it the
three columns that differ row by row (field, expected, actual), aligned across all records.
"""

from __future__ import annotations

from itertools import groupby

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .failures import COLUMNS

INDENT = 2
MIN_WIDTH = 24  # a column of the grouped view is as wide as its widest value, up to this


def failures_view(rows: list[dict[str, str]], width: int) -> RenderableType:
    """The rows for a console ``width`` columns wide: the flat table if it fits, else grouped by record."""
    title = f"where it fell short ({len(rows)})"
    return flat_table(rows, title) if _natural_width(rows) <= width else grouped(rows, title)


def flat_table(rows: list[dict[str, str]], title: str) -> Table:
    table = Table(title=title)
    for column in COLUMNS:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(row[column] for column in COLUMNS))
    return table


def grouped(rows: list[dict[str, str]], title: str) -> Group:
    """A heading per (kind, record, rule), its field/expected/actual rows beneath, columns aligned throughout."""
    widths = [max([len(header), *(len(row[header]) for row in rows)]) for header in ("field", "expected", "actual")]
    parts: list[RenderableType] = [Text(title, style="bold")]
    for index, ((kind, record, rule), members) in enumerate(
        groupby(rows, key=lambda row: (row["kind"], row["record"], row["rule"]))
    ):
        heading = Text(f"{kind} {record}", style="bold")
        if rule:
            heading.append(f" · {rule}", style="italic")
        parts += [heading, _fields(list(members), widths, header=index == 0)]
    return Group(*parts)


def _fields(rows: list[dict[str, str]], widths: list[int], *, header: bool) -> Padding:
    table = Table(box=None, show_header=header, padding=(0, 2, 0, 0), pad_edge=False, header_style="dim")
    for name, size in zip(("field", "expected", "actual"), widths, strict=True):
        table.add_column(name, min_width=min(size, MIN_WIDTH), overflow="fold")
    for row in rows:
        table.add_row(row["field"], row["expected"], row["actual"])
    return Padding(table, (0, 0, 0, INDENT), expand=False)


def _natural_width(rows: list[dict[str, str]]) -> int:
    """The width of the flat table when nothing wraps: the widest cell per column plus borders and padding."""
    widest = [max([len(column), *(len(row[column]) for row in rows)]) for column in COLUMNS]
    return sum(widest) + 3 * len(widest) + 1
