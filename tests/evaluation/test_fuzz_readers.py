"""A fuzz of the results readers: every hostile line is skipped with its line number, and nothing crashes.

A results file is written by one run, but it is read back by resume, ``show`` and ``replay`` after crashes,
hand edits and copies: torn lines, garbage bytes, JSON nested 100,000 deep, numbers of thousands of digits,
lone surrogates, and records forged from a real one with a field of the wrong kind. Each case here is one
seeded hostile line after two real records. Every reader (``show``, ``show --episode``, ``replay``, the resume
of ``eval``) must use the two real records and either skip the hostile line, naming its number, or read it as a
record it can show and replay: exit code 0 (all fine), 1 (a replay that does not reproduce) or 2 (an ``Error:``
line), never an exception.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from officegym.cli import main
from officegym.evaluation.records import read_records_with_lines

INVOICE = "officegym/InvoiceApproval-v0"
SEED = 27
# a record's fields as of schema 1 (one a record lacks is added: a forged line may do that too)
FIELDS = [
    "attempts",
    "base_seed",
    "chat",
    "endpoint",
    "env_id",
    "env_kwargs",
    "env_steps",
    "error",
    "failures",
    "finish_reasons",
    "grade",
    "has_error",
    "key",
    "messages",
    "model",
    "offer_finish",
    "policy",
    "requests",
    "retries",
    "reward",
    "rollout",
    "sampling",
    "schema",
    "seed",
    "started_at",
    "stop_detail",
    "stop_reason",
    "task_id",
    "tier",
    "timing",
    "tool_calls",
    "turns",
    "usage",
    "versions",
]
GARBAGE, FORGED = 37, len(FIELDS) * 3 + 7 * 3 + 4 * 2 + 2  # the lines each generator makes
_NOT_NEWLINE = [b for b in range(256) if b != ord("\n")]  # one hostile line stays one line
VALUES: list[Any] = [None, True, 0, -1, 1.5, 10**30, "", "x", "\ud800", [], {}, [1, "a"], {"a": 1}, [[[[]]]]]


@pytest.fixture(scope="module")
def good_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = tmp_path_factory.mktemp("fuzz") / "oracle.jsonl"
    assert main(["eval", INVOICE, "--policy", "oracle", "--task-ids", "single-1,single-2", "-q", "-o", str(path)]) == 0
    return path.read_text(encoding="utf-8").splitlines()


def garbage(rng: random.Random, good: str) -> list[bytes]:
    """Lines that are not records at all: bytes, torn lines, deep nesting, huge numbers, surrogates."""
    lines = [bytes(rng.choice(_NOT_NEWLINE) for _ in range(rng.randrange(1, 200))) for _ in range(12)]
    lines += [good.encode()[: rng.randrange(1, len(good))] for _ in range(12)]
    lines += [b"[" * n for n in (1_000, 100_000)] + [b"{" * 50_000, b'{"a":' * 20_000]
    lines += [b"9" * 5_000, b'{"rollout": ' + b"9" * 5_000 + b"}", b"1e999", b"NaN", b"-Infinity"]
    lines += ["\ud800".encode("utf-8", "surrogatepass"), b'"\\ud800"', b"\xff\xfe", b"\x00" * 50]
    return lines


def forged(rng: random.Random, good: str) -> list[bytes]:
    """A real record with one field (top level, or one level down) replaced by a value of another kind."""
    record = json.loads(good)
    out = []
    for field in FIELDS:
        for value in rng.sample(VALUES, 3):
            out.append({**record, field: value})
    for field in ("grade", "chat", "usage", "timing", "sampling", "endpoint", "env_kwargs"):
        inner = record.get(field) if isinstance(record.get(field), dict) else {}
        for key in [*sorted(inner), "x", "y", "z"][:3]:
            out.append({**record, field: {**inner, key: rng.choice(VALUES)}})
    messages = record["messages"]
    for index in range(4):  # system, user, the first call and its result
        for value in rng.sample(VALUES, 2):
            out.append({**record, "messages": [*messages[:index], value, *messages[index + 1 :]]})
    out.append({**record, "key": "single-2#0"})  # another episode's key, not its own task_id#rollout
    out.append({**record, "messages": [{"role": "assistant", "content": "\ud800", "tool_calls": [{"id": 5}]}]})
    return [json.dumps(r, ensure_ascii=False).encode("utf-8", "surrogatepass") for r in out]


def hostile_lines() -> list[tuple[str, int]]:
    """(case id, index) of every hostile line: built from the seed, so the ids are the same every run."""
    return [("garbage", k) for k in range(GARBAGE)] + [("forged", k) for k in range(FORGED)]


@pytest.mark.parametrize(("kind", "index"), hostile_lines(), ids=[f"{k}-{i}" for k, i in hostile_lines()])
def test_a_hostile_line_never_crashes_a_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], good_lines: list[str], kind: str, index: int
) -> None:
    rng = random.Random(SEED)
    lines = (garbage if kind == "garbage" else forged)(rng, good_lines[0])
    assert len(lines) == (GARBAGE if kind == "garbage" else FORGED)
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join([good.encode() for good in good_lines] + [lines[index]]) + b"\n")
    records, bad = read_records_with_lines(path)
    assert bad in ([], [3]) and {"single-2#0"} <= {r["key"] for r in records}
    resume = ["eval", INVOICE, "--policy", "oracle", "--task-ids", "single-1,single-2", "-q", "-o", str(path)]
    for argv in (["show", str(path)], ["show", str(path), "--episode", "0"], ["replay", str(path)], resume):
        assert main(argv) in (0, 1, 2), argv
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if bad:
        assert "line 3" in err
