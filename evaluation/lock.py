"""One run at a time per results file: an OS file lock held for the whole ``officegym eval``.

Two evals writing one file at once would both read it before either wrote, then run and write every episode
twice (or, with other settings, mix two configurations in one file that ``show`` would summarise as one). The
lock is ``flock`` on a hidden sidecar file (``.<results>.lock``): the kernel releases it when the process ends,
however it ends, so a killed run never leaves a stale lock behind. Where ``fcntl`` does not exist (Windows) runs
are not locked.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


def lock_path(results: Path) -> Path:
    """The sidecar file whose lock owns ``results``."""
    return results.with_name(f".{results.name}.lock")


@contextlib.contextmanager
def results_lock(results: Path) -> Iterator[None]:
    """Hold the lock of ``results`` or fail at once with the fix: never wait behind a run of hours."""
    results.parent.mkdir(parents=True, exist_ok=True)
    with lock_path(results).open("a") as handle:
        if fcntl is not None:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ValueError(
                    f"another officegym eval is writing {results}; wait for it to finish, or use another --output"
                ) from None
        yield
