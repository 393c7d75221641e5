"""Supplier invoice numbers: the exact normalisation the policy's duplicate rule uses.

Suppliers spell the same number many ways (``RE-2026-0042``, ``re 2026 0042``, ``RE20260042``). The policy
fixes one rule, applied in this order: upper-case; drop every character that is not a letter or a digit;
drop the leading zeros of every run of digits that remains. The order matters: separators are dropped
before zeros, so ``RE-2026-0042`` becomes ``RE20260042`` (one run of digits), not ``RE202642``.
"""

from __future__ import annotations

import random
import re

_NOT_ALNUM = re.compile(r"[^A-Z0-9]")
_DIGIT_RUN = re.compile(r"[0-9]+")


def normalize_invoice_number(number: str) -> str:
    """The duplicate key of a supplier invoice number (see the module docstring)."""
    upper = _NOT_ALNUM.sub("", number.upper())
    return _DIGIT_RUN.sub(lambda m: m.group(0).lstrip("0") or "0", upper)


def spelling_variant(number: str, rng: random.Random) -> str:
    """Another spelling of ``number`` with the same normalised key (case, separators, leading zeros)."""
    for _ in range(50):
        candidate = _respell(number, rng)
        if candidate != number and normalize_invoice_number(candidate) == normalize_invoice_number(number):
            return candidate
    raise ValueError(f"no spelling variant found for {number!r}")


def _respell(number: str, rng: random.Random) -> str:
    key = normalize_invoice_number(number)
    parts = re.findall(r"[A-Z]+|[0-9]+", key)
    out = []
    for part in parts:
        if part.isdigit() and rng.random() < 0.6:
            part = "0" * rng.randint(1, 2) + part
        if part.isalpha() and rng.random() < 0.6:
            part = part.lower()
        out.append(part)
    separator = rng.choice([" ", "-", "/", "", ".", " - "])
    return separator.join(out)
