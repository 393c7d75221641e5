"""Failure analysis in results files: each episode records where it fell short, and ``show`` prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from officegym.cli import main
from officegym.envs.vendor_review.v0.tasks import scenarios

from .helpers import flat, only_file, records

VENDOR = "officegym/VendorReview-v0"
INVOICE = "officegym/InvoiceApproval-v0"


def test_a_failed_review_records_each_missed_gap_and_show_prints_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", VENDOR, "--policy", "lazy", "--task-ids", "vr-hard-01", "-o", str(tmp_path), "-q"]) == 0
    (record,) = records(only_file(tmp_path))
    missed = [row["record"] for row in record["failures"] if row["kind"] == "missed gap"]
    assert missed == sorted(scenarios()["vr-hard-01"].gap_ids)
    capsys.readouterr()
    assert main(["show", str(only_file(tmp_path)), "--episode", "0"]) == 0
    out = flat(capsys.readouterr().out)
    assert "where it fell short" in out and missed[0] in out


def test_a_solved_episode_records_no_failures(tmp_path: Path) -> None:
    assert main(["eval", INVOICE, "--policy", "oracle", "--task-ids", "single-1", "-o", str(tmp_path), "-q"]) == 0
    (record,) = records(only_file(tmp_path))
    assert record["reward"] == 1.0 and record["failures"] == []
