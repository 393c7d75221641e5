"""Text to a fixed-length vector: a hashed bag of words that is the same in every process.

Tool results are text (mostly JSON), and SB3 policies need a ``Box``. The feature hashing trick maps every
token to one of ``dim`` buckets and sets it to 1 (presence, not counts: a long list result should not drown
a short one). Buckets come from ``zlib.crc32`` of the token's UTF-8 bytes, never from Python's ``hash()``,
which is salted per process and would give each SubprocVecEnv worker, and each run, different features.

Tokens are the lower-cased words of the text (runs of letters and digits, so ``ER-2026-00042`` gives
``er``, ``2026``, ``00042``), plus, for JSON results, one ``key=value`` token per scalar field
(``is_blocked=true``, ``status=closed``, ``po_number=null``): a word alone cannot say which field it was.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

WORD = re.compile(r"[^\W_]+")
MAX_VALUE_CHARS = 40
MAX_DEPTH = 4


def words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits."""
    return WORD.findall(text.lower())


def json_fields(text: str) -> list[str]:
    """``key=value`` tokens of the scalar fields of a JSON text (nested objects and lists included)."""
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return []
    try:
        value = json.loads(stripped)
    except ValueError:
        return []
    found: list[str] = []
    _collect(value, found, 0)
    return found


def _collect(value: Any, found: list[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        return
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(item, dict | list):
            _collect(item, found, depth + 1)
        elif isinstance(key, str):
            found.append(f"{key.lower()}={_scalar(item)}")


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).lower()[:MAX_VALUE_CHARS]


def tokens(text: str) -> list[str]:
    """Every token of a text: its words, then its JSON fields."""
    return words(text) + json_fields(text)


def bucket(token: str, dim: int) -> int:
    """The token's bucket: crc32 of its UTF-8 bytes modulo ``dim`` (stable across processes and machines)."""
    return zlib.crc32(token.encode("utf-8")) % dim


@dataclass(frozen=True)
class HashedBagOfWords:
    """A ``dim``-bucket presence vector of a text's tokens, values in {0, 1}."""

    dim: int = 256

    def __post_init__(self) -> None:
        if self.dim < 1:
            raise ValueError(f"dim must be at least 1, got {self.dim}")

    def encode(self, text: str) -> NDArray[np.float32]:
        vector = np.zeros(self.dim, dtype=np.float32)
        for token in tokens(text):
            vector[bucket(token, self.dim)] = 1.0
        return vector
