"""The on-disk cache (``shared/cache.py``): where it lives, that it can be switched off, that a damaged or foreign
entry is rebuilt, and that processes filling one key at once leave one valid entry and all get the same bytes."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from officegym.envs.invoice_approval.shared import cache
from officegym.envs.invoice_approval.shared.cache import cache_root, cached, entry_path, read_entry

HANG_GUARD = 600  # seconds: only so that a broken barrier cannot hang the run; nothing here is timed
KEY = "test payload v=1"


def payload(size: int = 300_000) -> bytes:
    """Deterministic bytes, large enough that a write is many system calls."""
    blocks = [hashlib.sha256(str(n).encode()).digest() for n in range(size // 32)]
    return b"".join(blocks)


class Builds:
    """A build that counts its calls."""

    def __init__(self, data: bytes) -> None:
        self.data, self.calls = data, 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.data


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_folder_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "officegym"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "officegym"
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"


def test_an_empty_setting_switches_the_cache_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV_VAR, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    build = Builds(b"fresh")
    assert cached(KEY, build) == cached(KEY, build) == b"fresh"
    assert build.calls == 2
    assert list(tmp_path.iterdir()) == []


def test_a_second_read_is_served_from_the_entry(root: Path) -> None:
    build = Builds(payload())
    assert cached(KEY, build) == build.data
    assert cached(KEY, build) == build.data
    assert build.calls == 1
    assert read_entry(entry_path(root, KEY), KEY) == build.data
    assert [p.name for p in root.iterdir()] == [entry_path(root, KEY).name]  # no temp file left behind


def _flip_byte(data: bytes) -> bytes:
    at = len(data) - 1000
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


@pytest.mark.parametrize(
    "damage",
    [_flip_byte, lambda data: data[: len(data) // 2], lambda data: b"", lambda data: b"not an entry\n" + data],
    ids=["flipped byte", "truncated", "empty", "foreign header"],
)
def test_a_damaged_entry_is_rebuilt(root: Path, damage: Any) -> None:
    build = Builds(payload())
    cached(KEY, build)
    path = entry_path(root, KEY)
    path.write_bytes(damage(path.read_bytes()))
    assert read_entry(path, KEY) is None
    assert cached(KEY, build) == build.data
    assert build.calls == 2
    assert read_entry(path, KEY) == build.data  # rewritten whole


def test_another_keys_entry_is_not_served(root: Path) -> None:
    cached("another key", Builds(b"another payload"))
    entry_path(root, "another key").replace(entry_path(root, KEY))  # an entry under the wrong name
    build = Builds(b"mine")
    assert cached(KEY, build) == b"mine"
    assert build.calls == 1


def test_an_unwritable_cache_still_returns_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(cache.ENV_VAR, str(blocker / "cache"))
    assert cached(KEY, Builds(b"fresh")) == b"fresh"


def _fill(folder: str, barrier: Any, results: Any) -> None:
    """One process: every one of them misses (the barrier holds each inside its build until all are there),
    then all write the same key at once."""

    def build() -> bytes:
        barrier.wait(HANG_GUARD)
        return payload(2_000_000)

    os.environ[cache.ENV_VAR] = folder
    results.put(hashlib.sha256(cached(KEY, build)).hexdigest())


def test_concurrent_writers_leave_one_valid_entry(root: Path) -> None:
    writers = 4
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(writers), context.Queue()
    processes = [context.Process(target=_fill, args=(str(root), barrier, results)) for _ in range(writers)]
    for process in processes:
        process.start()
    digests = [results.get(timeout=HANG_GUARD) for _ in processes]
    for process in processes:
        process.join(HANG_GUARD)
        assert process.exitcode == 0
    expected = payload(2_000_000)
    assert digests == [hashlib.sha256(expected).hexdigest()] * writers
    assert read_entry(entry_path(root, KEY), KEY) == expected
    assert [p.name for p in root.iterdir()] == [entry_path(root, KEY).name]
