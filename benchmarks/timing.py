"""Small timing helpers: repeated measurements summarised as percentiles in microseconds."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def sample_us(fn: Callable[[], Any], repeats: int, warmup: int = 20) -> np.ndarray:
    """Run ``fn`` ``repeats`` times (after ``warmup`` untimed runs); return each duration in µs."""
    for _ in range(warmup):
        fn()
    out = np.empty(repeats)
    for i in range(repeats):
        start = time.perf_counter_ns()
        fn()
        out[i] = (time.perf_counter_ns() - start) / 1000
    return out


def summary(samples_us: np.ndarray) -> dict[str, float]:
    return {
        "p50_us": round(float(np.percentile(samples_us, 50)), 1),
        "p95_us": round(float(np.percentile(samples_us, 95)), 1),
        "p99_us": round(float(np.percentile(samples_us, 99)), 1),
        "n": int(samples_us.size),
    }
