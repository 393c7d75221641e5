"""What an episode changed in the graded books, read from change logs instead of from the whole company.

Why: grading by reading every invoice, PO and ledger line costs time in proportion to the company (46 ms for
the longest task at 100x), while an episode changes a few dozen records. Two logs say which records can differ
from the template, both kept by SQLite triggers, so they see every write whoever makes it (a tool, a test that
plants a change with raw SQL, anything on the connection) and roll back with it:

- invoices and purchase orders: the record view's ``record_changes`` table (``read_model.py``), part of the
  episode template;
- the ledger: ``ledger_changes``, a log of every line added (+1) or removed (-1), also in the template.

(Why not TEMP triggers, which would leave the template as it was: ``deserialize``, which every reset does,
re-opens the main database under its TEMP triggers, and they silently stop firing.)

``BookDelta`` holds the graded state of the changed records only (``None`` for a deleted record) and the ledger
as signed counts (+1 a line added, -1 a line removed). Together with the template's state it is the whole
books: ``graded_states`` gives ``grading.compare`` what it needs to grade exactly as from the whole books.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, TypeVar

from .grading import GradedBooks, LedgerKey

S = TypeVar("S")
B = TypeVar("B", bound=GradedBooks)
G = TypeVar("G", bound=GradedBooks)
State = tuple[Any, ...]
CHANGE_LOG = "record_changes"
"""The table the template's triggers append every changed record's key to (v0's record view reads it too)."""
LEDGER_LOG = "ledger_changes"
_LINE = "{row}.invoice_id, {row}.account, {row}.debit_cents, {row}.credit_cents"


@dataclass(frozen=True)
class BookDelta:
    """The graded state of every record that differs, or may differ, from the template (see the module
    docstring). ``invoices`` and ``purchase_orders`` map a key to its state now, ``None`` if deleted."""

    invoices: dict[str, State | None]
    purchase_orders: dict[str, State | None]
    ledger: Counter[LedgerKey]


def delta_to_json(delta: BookDelta) -> str:
    """A delta as JSON, every mapping a list of pairs so that its order survives (the gold cache's form)."""
    records = [list(delta.invoices.items()), list(delta.purchase_orders.items()), list(delta.ledger.items())]
    return json.dumps(records, ensure_ascii=False)


def delta_from_json(text: str) -> BookDelta:
    """Inverse of ``delta_to_json``: the same states, as tuples, in the same order."""
    invoices, pos, ledger = json.loads(text)
    return BookDelta(
        {key: _tuples(state) for key, state in invoices},
        {key: _tuples(state) for key, state in pos},
        Counter({_tuples(key): count for key, count in ledger}),
    )


def _tuples(value: Any) -> Any:
    """JSON lists back into the tuples a graded state is made of (states hold only scalars and tuples)."""
    return tuple(_tuples(item) for item in value) if isinstance(value, list) else value


def add_ledger_log(conn: sqlite3.Connection) -> None:
    """Create the (empty) ledger log and the triggers that fill it, in the episode template."""
    log = f"INSERT INTO {LEDGER_LOG} VALUES"
    conn.executescript(f"""
        CREATE TABLE {LEDGER_LOG} (sign INTEGER NOT NULL, invoice_id TEXT, account TEXT, debit_cents INTEGER,
            credit_cents INTEGER);
        CREATE TRIGGER ledger_logged_insert AFTER INSERT ON ledger BEGIN {log} (1, {_LINE.format(row="NEW")}); END;
        CREATE TRIGGER ledger_logged_delete AFTER DELETE ON ledger BEGIN {log} (-1, {_LINE.format(row="OLD")}); END;
        CREATE TRIGGER ledger_logged_update AFTER UPDATE ON ledger BEGIN
            {log} (-1, {_LINE.format(row="OLD")}); {log} (1, {_LINE.format(row="NEW")}); END;
    """)


def add_record_log(conn: sqlite3.Connection, tables: Mapping[str, str]) -> None:
    """Create the (empty) record log and the triggers that fill it with the key of every row an INSERT, UPDATE
    or DELETE touches, for each ``table -> key column`` (v1's template; v0's comes with its record view)."""
    conn.execute(f"CREATE TABLE {CHANGE_LOG} (tbl TEXT NOT NULL, key TEXT NOT NULL)")
    for table, key in tables.items():
        log = f"INSERT INTO {CHANGE_LOG} VALUES ('{table}', "
        conn.executescript(f"""
            CREATE TRIGGER {table}_logged_insert AFTER INSERT ON {table} BEGIN {log}NEW.{key}); END;
            CREATE TRIGGER {table}_logged_update AFTER UPDATE ON {table} BEGIN {log}OLD.{key}); {log}NEW.{key}); END;
            CREATE TRIGGER {table}_logged_delete AFTER DELETE ON {table} BEGIN {log}OLD.{key}); END;
        """)


def logged_records(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Every (table, key) the record log names, once each, in a fixed order."""
    return conn.execute(f"SELECT DISTINCT tbl, key FROM {CHANGE_LOG} ORDER BY tbl, key").fetchall()


def ledger_changes(conn: sqlite3.Connection) -> Counter[LedgerKey]:
    """The ledger lines added (+1) and removed (-1) since reset, from the ledger log; zero counts dropped."""
    ledger: Counter[LedgerKey] = Counter()
    for sign, *line in conn.execute(
        f"SELECT sign, invoice_id, account, debit_cents, credit_cents FROM {LEDGER_LOG}"
    ).fetchall():
        ledger[(line[0], line[1], line[2], line[3])] += sign
    return _nonzero(ledger)


def book_delta(conn: sqlite3.Connection) -> BookDelta:
    """The episode's changes to the graded books, from the two logs (cost follows the changes)."""
    invoices: dict[str, State | None] = {}
    pos: dict[str, State | None] = {}
    for table, key in logged_records(conn):
        if table == "invoices":
            row = conn.execute(
                "SELECT status, reason_code, assigned_to FROM invoices WHERE invoice_id = ?", (key,)
            ).fetchone()
            invoices[key] = None if row is None else (row[0], row[1], row[2])
        elif table == "purchase_orders":
            row = conn.execute(
                "SELECT net_invoiced_cents, status FROM purchase_orders WHERE po_number = ?", (key,)
            ).fetchone()
            pos[key] = None if row is None else (row[0], row[1])
    return BookDelta(invoices, pos, ledger_changes(conn))


def state_delta(final: GradedBooks, template: GradedBooks) -> BookDelta:
    """The same delta computed from two whole states (once per task for the gold books; and in tests)."""
    invoices = {k: final.invoices.get(k) for k in final.invoices.keys() | template.invoices.keys()}
    pos = {k: final.purchase_orders.get(k) for k in final.purchase_orders.keys() | template.purchase_orders.keys()}
    ledger = Counter(final.ledger)
    ledger.subtract(template.ledger)
    return BookDelta(
        {k: v for k, v in sorted(invoices.items()) if v != template.invoices.get(k)},
        {k: v for k, v in sorted(pos.items()) if v != template.purchase_orders.get(k)},
        _nonzero(ledger),
    )


def _nonzero(counts: Counter[LedgerKey]) -> Counter[LedgerKey]:
    return Counter({key: count for key, count in counts.items() if count})


def graded_states(final: BookDelta, gold: BookDelta, template: B, scope: Sequence[str]) -> tuple[B, B]:
    """The final and gold books restricted to the records where they can differ (the work order's invoices and
    every record either delta names), ledgers as signed changes. Every other record equals the template on both
    sides, so ``grading.compare``, ``grading.failure_report`` and the progress measures give on these exactly
    what they give on the whole books (the tests compare both ways on every gold and wrong path)."""
    invoice_keys = [*scope, *final.invoices, *gold.invoices]
    po_keys = [*final.purchase_orders, *gold.purchase_orders]
    books = type(template)  # each version's BookState: (invoices, purchase_orders, ledger)
    return (
        books(  # type: ignore[call-arg]
            _overlay(invoice_keys, final.invoices, template.invoices),
            _overlay(po_keys, final.purchase_orders, template.purchase_orders),
            final.ledger,
        ),
        books(  # type: ignore[call-arg]
            _overlay(invoice_keys, gold.invoices, template.invoices),
            _overlay(po_keys, gold.purchase_orders, template.purchase_orders),
            gold.ledger,
        ),
    )


def _overlay(keys: Iterable[str], changed: Mapping[str, S | None], base: Mapping[str, S]) -> dict[str, S]:
    """Each key's state: the changed one if logged, else the template's; deleted or unknown keys left out (as
    the whole books would leave them out)."""
    states: dict[str, S] = {}
    for key in keys:
        state = changed[key] if key in changed else base.get(key)
        if state is not None:
            states[key] = state
    return states


class GoldDeltas(Generic[G]):
    """For a version's bundle: the template's graded books, each task's books after its gold path, and what
    that path changes, each computed once per process. The bundle supplies ``template``, ``tasks``, the
    ``_gold`` and ``_gold_delta`` dicts, ``read_books`` (its version's whole-books reader) and ``replay_path``
    (its version's ``sandbox.replay``)."""

    template: bytes
    tasks: Mapping[str, Any]
    _gold: dict[str, G]
    _gold_delta: dict[str, BookDelta]
    _gold_stored: dict[str, str]  # task ID -> its gold delta as JSON, read from the cache (``gold_cache.py``)

    def read_books(self, conn: sqlite3.Connection) -> G:
        raise NotImplementedError

    replay_path: Callable[..., Any]  # the version's sandbox.replay(template, actor, actions) -> episode

    def gold_state(self, task_id: str) -> G:
        """The books after the task's gold path (replayed once per process, then cached)."""
        if task_id not in self._gold:
            task = self.tasks[task_id]
            episode = self.replay_path(self.template, task.actor, task.gold_actions)
            self._gold[task_id] = self.read_books(episode.conn)
            episode.conn.close()
        return self._gold[task_id]

    @cached_property
    def template_state(self) -> G:
        """The graded books as the template holds them (read from a throwaway copy)."""
        conn = sqlite3.connect(":memory:")
        conn.deserialize(self.template)
        try:
            return self.read_books(conn)
        finally:
            conn.close()

    def gold_delta(self, task_id: str) -> BookDelta:
        """What the task's gold path changes in the graded books: decoded from the cache's copy if the company
        came with one (``gold_cache.prefetch_gold``), else from the gold path replayed."""
        if task_id not in self._gold_delta:
            stored = self._gold_stored.get(task_id)
            self._gold_delta[task_id] = (
                state_delta(self.gold_state(task_id), self.template_state)
                if stored is None
                else delta_from_json(stored)
            )
        return self._gold_delta[task_id]
