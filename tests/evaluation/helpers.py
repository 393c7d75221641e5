"""What the evaluation tests share: the tasks they run, a fake key, and ``officegym eval`` against the
loopback server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from officegym.cli import main
from officegym.evaluation.records import read_records

from ..fake_openai_server import FakeOpenAIServer

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
TASKS = {INVOICE: ["single-1", "batch-1", "hard-2"], VENDOR: ["vr-easy-01", "vr-medium-01", "vr-hard-01"]}
KEY_VAR = "OFFICEGYM_EVAL_TEST_KEY"
SECRET = "sk-eval-test-secret-4242"
RECORD_FIELDS = {
    "env_id",
    "env_kwargs",
    "task_id",
    "tier",
    "rollout",
    "seed",
    "policy",
    "model",
    "sampling",
    "endpoint",
    "has_error",
    "reward",
    "grade",
    "stop_reason",
    "turns",
    "env_steps",
    "chat",
    "usage",
    "requests",
    "retries",
    "timing",
    "versions",
    "messages",
    "tool_calls",
    "started_at",
    "attempts",
}


def evaluate(server: FakeOpenAIServer, env_id: str, out: Path, *extra: str, tasks: list[str] | None = None) -> int:
    argv = [
        "eval",
        env_id,
        "-m",
        "fake-model",
        "-b",
        server.base_url,
        "-k",
        KEY_VAR,
        "--backoff",
        "0",
        "--task-ids",
        ",".join(tasks or TASKS[env_id]),
        "-o",
        str(out),
        "-q",
        *extra,
    ]
    code: int = main(argv)
    return code


def records(path: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = read_records(path)[0]
    return found


def only_file(out: Path, suffix: str = ".jsonl") -> Path:
    (path,) = out.glob(f"*{suffix}")
    return path


def flat(text: str) -> str:
    """Console output with its line wrapping undone (rich wraps long error lines at the terminal width)."""
    return " ".join(text.split())
