"""An on-disk cache of built bytes shared by every process of a user: a generated company costs seconds to
build, and a trainer that samples many companies would pay that in every process.

Where: ``$OFFICEGYM_CACHE_DIR`` if set (set to the empty string, the cache is off), else
``$XDG_CACHE_HOME/officegym``, else ``~/.cache/officegym`` (the platformdirs convention on Linux, without the
dependency). One file per key, named after the key's sha256, holding a header line with the key itself, the
payload's size and its sha256, then the payload. Why one file and not the bytes with a fingerprint file beside
them: one ``os.replace`` then publishes both at once, so a reader never pairs new bytes with an old fingerprint.

Safe under concurrent writers: each writes a temp file in the same folder and renames it over the entry; every
writer of a key writes the same bytes (the builds are deterministic), so whichever rename lands last, the entry
is whole and valid. A reader checks the header's key, size and sha256, and treats any mismatch (a flipped byte,
a truncated file, another key's entry) as a miss: it rebuilds and overwrites. A cache that cannot be written
(read-only home, full disk) is a miss every time, never an error: the build's bytes are still returned.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Final

ENV_VAR: Final = "OFFICEGYM_CACHE_DIR"
MAGIC: Final = b"officegym-cache 1\n"
PACKAGE_ROOT: Final = Path(__file__).resolve().parents[3]
"""The installed ``officegym`` folder (this file is ``officegym/envs/invoice_approval/shared/cache.py``)."""


def cache_root() -> Path | None:
    """The cache folder, or None when the cache is off (``OFFICEGYM_CACHE_DIR=""``). Read on every call, so a
    test (or a user) can switch it with the environment variable at any time."""
    configured = os.environ.get(ENV_VAR)
    if configured is not None:
        return Path(configured) if configured.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "officegym"


def entry_path(root: Path, key: str) -> Path:
    """Where ``key``'s entry lives: a name from the key's sha256 (keys hold spaces and ``=``)."""
    return root / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.entry"


def cached(key: str, build: Callable[[], bytes]) -> bytes:
    """``key``'s bytes from the cache, else ``build()``'s, stored for the next process (see the module
    docstring). With the cache off this is just ``build()``."""
    root = cache_root()
    if root is None:
        return build()
    path = entry_path(root, key)
    payload = read_entry(path, key)
    if payload is None:
        payload = build()
        write_entry(path, key, payload)
    return payload


def read_entry(path: Path, key: str) -> bytes | None:
    """The entry's payload if it is whole and made for ``key``; None for a missing, damaged or foreign entry."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    header_end = data.find(b"\n", len(MAGIC))
    if header_end < 0:
        return None
    try:
        header = json.loads(data[len(MAGIC) : header_end])
    except (ValueError, UnicodeDecodeError):
        return None
    payload = data[header_end + 1 :]
    if not isinstance(header, dict) or header.get("key") != key or header.get("size") != len(payload):
        return None
    return payload if header.get("sha256") == hashlib.sha256(payload).hexdigest() else None


def write_entry(path: Path, key: str, payload: bytes) -> None:
    """Publish the entry atomically: a temp file in the same folder, flushed, then renamed over the entry."""
    header = json.dumps({"key": key, "size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(MAGIC + header.encode() + b"\n" + payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except OSError:
        Path(temp).unlink(missing_ok=True)


@cache
def code_digest(*folders: str) -> str:
    """The sha256 of every file under the package ``folders`` (``.py`` sources and top-level assets: JSON,
    Markdown, SQLite), by path and content in path order: part of every key, so that a changed generator, tool
    or asset never serves bytes an older one built. Computed once per process."""
    digest = hashlib.sha256()
    for path in _code_files(PACKAGE_ROOT / folder for folder in folders):
        digest.update(str(path.relative_to(PACKAGE_ROOT)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _code_files(folders: Iterable[Path]) -> list[Path]:
    files: set[Path] = set()
    for folder in folders:
        if folder.is_dir():
            files.update(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)
            files.update(p for p in folder.iterdir() if p.suffix in (".json", ".md", ".sqlite", ".jsonl"))
    return sorted(files)
