"""Result records: one JSON line per episode, appended as episodes finish, read back for resume/show/replay.

A record holds everything needed to judge and to audit an episode later: which env, task, seed, policy and
model; the whole transcript and the calls; the reward and every grade diagnostic; why it stopped; token
usage, timings and package versions. Episodes are keyed ``<task_id>#<rollout>``; a file may hold several
records of one key (an infrastructure error and its successful re-run), and the last one counts.

The file is only ever appended to, one ``write`` per line, flushed each time; a line cut off by a crash is
skipped on reading (and the next write starts on a fresh line), so an interrupted run loses at most the
episodes that were in flight. Lines are decoded one by one, so a line cut inside a multi-byte character, or
any byte that is not UTF-8, costs that line only, never the file. A lone surrogate (a model's broken
``\\uDXXX`` escape) is written as its JSON escape, so every record can be written and read back.

No credential reaches the file: every line passes :func:`~officegym.policies.chat.redact` (the key the
policy registered), and error texts also ``redact_text`` (``Authorization``/``Bearer`` values a server quoted).
"""

from __future__ import annotations

import json
import platform
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import IO, Any

from ..policies.chat import redact, redact_text
from .episode import EpisodeRun

SCHEMA = 1
RESUME_KEYS = ("env_id", "env_kwargs", "policy", "model", "sampling", "offer_finish", "base_seed")


@dataclass(frozen=True)
class Job:
    """One episode to run: a task, the rollout number, and the seed derived from both."""

    task_id: str
    rollout: int
    seed: int

    @property
    def key(self) -> str:
        return episode_key(self.task_id, self.rollout)


def episode_key(task_id: str, rollout: int) -> str:
    return f"{task_id}#{rollout}"


def episode_seed(base_seed: int, task_id: str, rollout: int) -> int:
    """A per-episode seed that depends only on the task and rollout (``crc32``, not the salted ``hash()``),
    so it is the same in any process, whatever other tasks are selected."""
    return (base_seed + zlib.crc32(episode_key(task_id, rollout).encode())) % 2**31


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for package in ("officegym", "gymnasium", "openai"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def make_record(
    config: dict[str, Any],
    job: Job,
    run: EpisodeRun | None,
    *,
    error: str | None = None,
    partial: EpisodeRun | None = None,
    attempts: int = 1,
    started_at: datetime | None = None,
) -> dict[str, Any]:
    """The JSON record of an episode; ``run`` is ``None`` when it failed on infrastructure (``error``), and
    ``partial`` then holds what happened before the failure (kept, never scored)."""
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "key": job.key,
        **config,
        "task_id": job.task_id,
        "rollout": job.rollout,
        "seed": job.seed,
        "has_error": run is None,
        "error": None if error is None else redact_text(error),
        "attempts": attempts,
        "started_at": (started_at or datetime.now(UTC)).isoformat(timespec="seconds"),
        "versions": versions(),
    }
    if run is None:
        return {**record, **_unscored(partial)}
    return {
        **record,
        "tier": run.tier,
        "reward": run.reward,
        "stop_reason": run.stop_reason,
        "stop_detail": redact_text(run.stop_detail) if run.stop_detail else None,
        "turns": run.chat.get("assistant_turns", 0),
        "env_steps": run.grade.get("turns"),
        "grade": run.grade,
        "failures": run.failures,
        **_activity(run),
        "timing": {"wall_s": round(run.wall_s, 4), "model_s": round(run.model_s, 4), "env_s": round(run.env_s, 4)},
        "messages": run.messages,
        "tool_calls": run.tool_calls,
    }


def _unscored(partial: EpisodeRun | None) -> dict[str, Any]:
    """The fields of an infrastructure error's record: no reward or grade, the transcript so far if any."""
    fields: dict[str, Any] = {"tier": None, "reward": None, "grade": {}, "stop_reason": "error", "messages": []}
    if partial is None:
        return fields
    return {
        **fields,
        "tier": partial.tier,
        "turns": partial.chat.get("assistant_turns", 0),
        **_activity(partial),
        "messages": partial.messages,
        "tool_calls": partial.tool_calls,
    }


def _activity(run: EpisodeRun) -> dict[str, Any]:
    return {
        "chat": run.chat,
        "usage": run.usage,
        "requests": run.requests,
        "retries": run.retries,
        "finish_reasons": dict(run.finish_reasons),
    }


def read_records(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The last record of every key, in the order keys first appear, and the number of unreadable lines."""
    records, bad = read_records_with_lines(path)
    return records, len(bad)


def read_records_with_lines(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """The last record of every key, in the order keys first appear, and the numbers of the lines skipped: torn,
    not UTF-8, not JSON (or nested too deep to read), or not an episode record (a field missing or of the wrong
    type, or a key that is not its own ``task_id#rollout``): a reader uses what it can and says where the rest is."""
    latest: dict[str, dict[str, Any]] = {}
    bad: list[int] = []
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            record = _decode(line)
            if is_record(record):
                latest[record["key"]] = record
            else:
                bad.append(number)
    return list(latest.values()), bad


_RECORD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "key": str,
    "env_id": str,
    "task_id": str,
    "rollout": int,
    "has_error": bool,
    "grade": dict,
    "messages": list,
}


_OPTIONAL_FIELDS: dict[str, type | tuple[type, ...]] = {  # read by show/replay/the summary when present
    "env_kwargs": dict,
    "tier": (str, type(None)),  # None on an infrastructure error's record without a transcript
    "seed": (int, type(None)),
    "chat": dict,
    "usage": dict,
    "timing": dict,
    "sampling": dict,
    "endpoint": dict,
    "failures": list,
    "tool_calls": list,
    "error": (str, type(None)),
    "stop_reason": (str, type(None)),
}
_LISTS_OF_OBJECTS = ("messages", "tool_calls", "failures")


def is_record(value: Any) -> bool:
    """Whether ``value`` has the fields every reader (resume, ``show``, ``replay``, the summary) relies on."""
    if not isinstance(value, dict):
        return False
    if any(not isinstance(value.get(name), kind) for name, kind in _RECORD_FIELDS.items()):
        return False
    if any(name in value and not isinstance(value[name], kind) for name, kind in _OPTIONAL_FIELDS.items()):
        return False
    if any(not isinstance(item, dict) for name in _LISTS_OF_OBJECTS for item in value.get(name) or []):
        return False
    reward = value.get("reward")
    if reward is not None and (isinstance(reward, bool) or not isinstance(reward, int | float)):
        return False
    if not value["has_error"] and reward is None:
        return False
    return bool(value["key"] == episode_key(value["task_id"], value["rollout"]))


def describe_lines(numbers: list[int], limit: int = 10) -> str:
    """``line 3`` / ``lines 3, 7, 12 and 4 more``, for warnings that say where a file was skipped."""
    shown = ", ".join(str(n) for n in numbers[:limit])
    more = f" and {len(numbers) - limit} more" if len(numbers) > limit else ""
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{more}"


def _decode(line: bytes) -> Any:
    """One line as JSON, ``None`` when it is not (torn, not UTF-8, nested past Python's recursion limit):
    decoded line by line, so a bad line costs that line only (``UnicodeDecodeError`` is a ``ValueError``)."""
    try:
        return json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def check_resumable(existing: list[dict[str, Any]], config: dict[str, Any], path: Path) -> None:
    """Refuse to mix episodes run with other settings into one file (their scores would not be comparable)."""
    for record in existing:
        for key in RESUME_KEYS:
            if record.get(key) != config.get(key):
                raise ValueError(
                    f"{path} holds episodes run with another {key} ({record.get(key)!r}, now "
                    f"{config.get(key)!r}); use another --output, or --restart to replace it"
                )


class RecordWriter:
    """Appends records to a JSONL file, one flushed line each."""

    def __init__(self, path: Path, *, restart: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # backslashreplace: in UTF-8 only lone surrogates cannot be encoded, and json.dumps puts characters
        # only inside strings, where their \uXXXX escape is valid JSON that reads back as the same string
        self._handle: IO[str] = path.open("w" if restart else "a", encoding="utf-8", errors="backslashreplace")
        if not restart and path.stat().st_size and not _ends_with_newline(path):
            self._handle.write("\n")  # the last line was cut off: do not glue the next record to it

    def write(self, record: dict[str, Any]) -> None:
        self._handle.write(redact(json.dumps(record, ensure_ascii=False, default=str)) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, 2)
        return handle.read(1) == b"\n"
