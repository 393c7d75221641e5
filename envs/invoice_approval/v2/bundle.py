"""A v2 company and its tasks: v1's, loaded by v1 (same seed, same bytes, same task ids), gold replayed by v2.

v2 changes tools, not the world, so it generates nothing: ``load_bundle`` takes v1's company as v1 loads it
(the shipped one, or a generated one from v1's caches: generating is the costly part, done once for both
versions), gives its gold paths v2's page cursors (``gold_paths.py``) and v2's gold replay. Gold books are
replayed through v2's tools and kept per v2 bundle, never shared with v1's, so each version's grades are its own
tools'. Like v1, v2 stores its gold deltas in the on-disk cache (``shared/gold_cache.py``), under its own key:
``v2`` and the digest of v2's and v1's code (v2's replays run v1's tools too), never v1's entry, which v1's
replays and v1's code alone made. Rendered documents are the same text in both versions, so that cache is shared.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from typing import Any

from ..shared.gold_cache import prefetch_gold, tasks_source
from ..v1 import bundle as v1
from ..v1.db import CANONICAL_SEED
from .gold_paths import v2_tasks
from .sandbox import replay

VERSION = "v2"
_OWN = frozenset({"_gold", "_gold_delta", "_gold_stored"})
"""v1's per-bundle gold caches, which a v2 bundle starts empty."""


@dataclass
class Bundle(v1.Bundle):
    """v1's bundle with v2's replay of gold paths."""

    replay_path = staticmethod(replay)


def load_bundle(company_seed: int = CANONICAL_SEED, tasks_path: str | None = None, company_scale: int = 1) -> Bundle:
    return _load(company_seed, tasks_path, company_scale)


@cache
def _load(company_seed: int, tasks_path: str | None, company_scale: int) -> Bundle:
    made = v1.load_bundle(company_seed, tasks_path, company_scale)
    kept: dict[str, Any] = {f.name: getattr(made, f.name) for f in fields(made) if f.init and f.name not in _OWN}
    kept["tasks"] = v2_tasks(made.template, made.tasks.values())
    bundle = Bundle(**kept)
    shipped = company_seed == CANONICAL_SEED and company_scale == 1
    prefetch_gold(bundle, VERSION, tasks_source("shipped" if shipped else "generated", tasks_path), (v1.VERSION,))
    return bundle
