"""``officegym eval --rows`` and ``--split``: every row of a split, played by the eval CLI, is its own world (the
record's opening message is the row's, the oracle scores full marks), and rows that cannot share one results
file are refused with the fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from officegym.cli import main
from officegym.evaluation.records import read_records
from officegym.splits import task_rows

SPLITS = [
    ("officegym/InvoiceApproval-v0", "train"),
    ("officegym/InvoiceApproval-v1", "train"),
    ("officegym/VendorReview-v2", "train"),
    ("officegym/VendorReview-v2", "test"),
]


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def played(directory: Path) -> list[dict[str, Any]]:
    (path,) = directory.glob("*.jsonl")
    records, bad = read_records(path)
    assert bad == 0
    return records


@pytest.mark.parametrize(("env_id", "split"), SPLITS)
def test_every_row_of_a_split_plays_its_own_world_in_eval(env_id: str, split: str, tmp_path: Path) -> None:
    rows = task_rows(env_id, split, sources=1)
    rows_file = write_rows(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "out"
    assert main(["eval", env_id, "--policy", "oracle", "--rows", str(rows_file), "-o", str(out), "-q"]) == 0
    records = {r["task_id"]: r for r in played(out)}  # in completion order: episodes run 4 at a time
    assert sorted(records) == sorted(row["task_id"] for row in rows)
    for row in rows:
        record = records[row["task_id"]]
        assert record["messages"][:2] == row["prompt"] and record["reward"] == 1.0
        assert json.dumps(record["env_kwargs"], sort_keys=True, separators=(",", ":")) == row["env_kwargs"]


def test_split_and_source_pick_the_same_world_as_the_rows(tmp_path: Path) -> None:
    env_id = "officegym/InvoiceApproval-v0"
    rows = task_rows(env_id, "train", sources=2)[60:63]  # the second company's first three tasks
    argv = ["eval", env_id, "--policy", "oracle", "-q"]
    assert main([*argv, "--split", "train", "--source", "1", "-n", "3", "-o", str(tmp_path / "a")]) == 0
    assert main([*argv, "--rows", str(write_rows(tmp_path / "r.jsonl", rows)), "-o", str(tmp_path / "b")]) == 0
    by_split = {r["task_id"]: r["messages"][:2] for r in played(tmp_path / "a")}
    by_rows = {r["task_id"]: r["messages"][:2] for r in played(tmp_path / "b")}
    assert by_split == by_rows == {row["task_id"]: row["prompt"] for row in rows}
    (name,) = [p.name for p in (tmp_path / "a").glob("*.jsonl")]
    assert name == f"InvoiceApproval-v0__oracle__{rows[0]['source'].replace(' ', '-')}.jsonl"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--split", "train", "--source", "1000"], "--source must be between 0 and"),
        (["--split", "train", "--source", "-1"], "--source must be between 0 and"),
        (["--split", "train", "--env-kwargs", '{"company_seed": 3}'], "must not set company_seed with --split"),
        (["--split", "test", "--rows", "ROWS"], "--rows and --split both pick the tasks"),
        (["--rows", "ROWS", "--task-ids", "single-1"], "--rows and --task-ids both pick the tasks"),
        (["--rows", "MIXED"], "rows of 2 worlds"),
        (["--rows", "OTHER"], "rows of officegym/VendorReview-v0, this eval is of"),
        (["--rows", "BROKEN"], "BROKEN.jsonl:2: not a JSON row"),
        (["--rows", "NESTED"], "NESTED.jsonl:1: not a JSON row"),
        (["--rows", "EMPTY"], "no rows"),
        (["--rows", "MISSING"], "cannot read it"),
        (["--rows", "NOWORLD"], "task row lacks env_id, env_kwargs"),
    ],
)
def test_rows_and_splits_that_cannot_be_one_run_are_refused(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env_id = "officegym/InvoiceApproval-v0"
    test, train = task_rows(env_id, "test")[:2], task_rows(env_id, "train", sources=1)[:2]
    files = {
        "ROWS": write_rows(tmp_path / "ROWS.jsonl", test),
        "MIXED": write_rows(tmp_path / "MIXED.jsonl", test + train),
        "OTHER": write_rows(tmp_path / "OTHER.jsonl", task_rows("officegym/VendorReview-v0", "test")[:1]),
        "BROKEN": tmp_path / "BROKEN.jsonl",
        "NESTED": tmp_path / "NESTED.jsonl",
        "EMPTY": tmp_path / "EMPTY.jsonl",
        "MISSING": tmp_path / "MISSING.jsonl",
        "NOWORLD": write_rows(tmp_path / "NOWORLD.jsonl", [{"task_id": "single-1"}]),
    }
    files["BROKEN"].write_text(json.dumps(test[0]) + "\n{\n", encoding="utf-8")
    files["NESTED"].write_text("[" * 100_000 + "\n", encoding="utf-8")
    files["EMPTY"].write_text("\n\n", encoding="utf-8")
    argv = [str(files[a]) if a in files else a for a in extra]
    out = tmp_path / "out"
    assert main(["eval", env_id, "--policy", "oracle", *argv, "-o", str(out), "-q"]) == 2
    assert "".join(message.split()) in "".join(capsys.readouterr().err.split())  # rich wraps long paths anywhere
    assert not out.exists()  # nothing was run or written
