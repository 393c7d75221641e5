"""``AnyText``: a text space that accepts any unicode string within length bounds.

Gymnasium's stock ``Text`` space checks every character against a charset, and its default charset rejects a
space, a newline, ``ü``, ``€`` and JSON: tool output fails it. A full-unicode charset pickles to ~47 MB, which
vector envs would ship to every worker. ``AnyText`` keeps a small charset only for ``sample()`` and checks
nothing but type and length in ``contains()``.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

SAMPLE_CHARSET = string.ascii_letters + string.digits + " .,:;-_/()[]{}\"'\n" + "äöüÄÖÜß€§"


class AnyText(spaces.Text):
    """Any ``str`` of ``min_length`` to ``max_length`` characters.

    ``sample()`` draws short strings (at most ``sample_max_length`` characters) from a small ASCII+German
    charset, so that random policies and checkers stay cheap even when ``max_length`` is a megabyte.
    """

    def __init__(
        self,
        max_length: int = 1 << 22,
        *,
        min_length: int = 0,
        sample_max_length: int = 64,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)
        self.sample_max_length = max(min_length, min(sample_max_length, max_length))

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random short string from the sample charset (``mask``/``probability`` as in ``Text``)."""
        if mask is None and probability is None:
            length = int(self.np_random.integers(self.min_length, self.sample_max_length + 1))
            chars = self.np_random.choice(list(SAMPLE_CHARSET), size=length)
            return "".join(chars.tolist())
        return super().sample(mask=mask, probability=probability)

    def contains(self, x: Any) -> bool:
        """True for any ``str`` within the length bounds, whatever its characters."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, AnyText) and other.min_length == self.min_length and other.max_length == self.max_length
        )

    def __hash__(self) -> int:
        return hash((AnyText, self.min_length, self.max_length))
