"""Results files: one eval owns a file at a time (an OS lock), and every reader (resume, ``show``, ``replay``)
skips a line it cannot use and says which line, however the line is broken or forged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from officegym.cli import main
from officegym.evaluation.lock import lock_path, results_lock
from officegym.evaluation.records import is_record, read_records_with_lines

from .helpers import INVOICE, flat

ORACLE = ["eval", INVOICE, "--policy", "oracle", "--task-ids", "single-1,single-2", "-q"]
HOLD = (
    "import sys, time; from pathlib import Path; from officegym.evaluation.lock import results_lock\n"
    "with results_lock(Path(sys.argv[1])):\n    print('held', flush=True); sys.stdin.read()\n"
)
HANG_GUARD = 600


def oracle_file(tmp_path: Path) -> Path:
    path = tmp_path / "r.jsonl"
    assert main([*ORACLE, "-o", str(path)]) == 0
    return path


def test_a_second_eval_into_the_same_file_is_refused_while_the_first_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert main([*ORACLE, "-o", str(path)]) == 2
        assert "another officegym eval is writing" in flat(capsys.readouterr().err)
        assert not path.exists()  # the refused run wrote nothing
    finally:
        holder.communicate("", timeout=HANG_GUARD)
    assert main([*ORACLE, "-o", str(path)]) == 0  # the lock ends with the process that held it
    assert len(read_records_with_lines(path)[0]) == 2


def test_the_lock_is_held_for_the_run_and_released_after(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "r.jsonl"
    with results_lock(path):
        assert lock_path(path).exists()
        with pytest.raises(ValueError, match="another officegym eval is writing"), results_lock(path):
            pass
    with results_lock(path):
        pass


GOOD = {
    "key": "single-1#0",
    "env_id": INVOICE,
    "task_id": "single-1",
    "rollout": 0,
    "has_error": False,
    "reward": 1.0,
    "grade": {},
    "messages": [],
}
FORGED = [
    "[" * 100_000,
    "{" * 50_000,
    json.dumps({"key": "single-1#0"}),
    json.dumps({**GOOD, "key": "single-2#0"}),  # a key that is not its own task_id#rollout
    json.dumps({**GOOD, "rollout": "0"}),
    json.dumps({**GOOD, "reward": "1"}),
    json.dumps({**GOOD, "reward": None}),  # scored, without a reward
    "7",
    "null",
    '"single-1#0"',
    "\ud800".encode("utf-8", "surrogatepass").decode("latin-1"),
]


def test_forged_and_hostile_lines_are_skipped_with_their_numbers_by_every_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = oracle_file(tmp_path)
    good = path.read_text(encoding="utf-8")
    path.write_text(good + "\n".join(FORGED) + "\n", encoding="utf-8")
    records, bad = read_records_with_lines(path)
    assert [r["key"] for r in records] == ["single-1#0", "single-2#0"] or sorted(r["key"] for r in records) == [
        "single-1#0",
        "single-2#0",
    ]
    assert all(r["reward"] == 1.0 for r in records)
    assert bad == list(range(3, 3 + len(FORGED)))
    capsys.readouterr()
    assert main(["show", str(path)]) == 0
    assert main(["show", str(path), "--episode", "single-1#0"]) == 0
    assert main(["replay", str(path)]) == 0
    assert main([*ORACLE, "-o", str(path)]) == 0  # resume: nothing to run, the forged lines change nothing
    out, err = capsys.readouterr()
    assert "replay: all 2 match" in out
    assert flat(err).count(f"skipped {len(FORGED)} unreadable line(s)") == 4
    assert "lines 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 and 1 more" in flat(err)


def test_a_real_record_is_a_record() -> None:
    record = {
        "key": "a#1",
        "env_id": "x",
        "task_id": "a",
        "rollout": 1,
        "has_error": True,
        "reward": None,
        "grade": {},
        "messages": [],
    }
    assert is_record(record)
    assert not is_record({**record, "has_error": 1})
    assert not is_record({**record, "reward": True})
