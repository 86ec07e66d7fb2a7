"""The harness shared by the workloads: the JSON results' type, the corpus slicing that makes
the libraries take turns, and the per-query timing of a fixed number of queries calibrated to a
time budget (the rounds and medians themselves are `bench_timing.timed_rounds`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bench_timing import timed_rounds

SLICES = 16  # the corpus workloads alternate the libraries every 1/16 of the corpus

Results = dict[str, Any]


def per_query(tasks: dict[str, Callable[[int], object]], counts: dict[str, int],
              rounds: int) -> dict[str, float]:
    """Seconds per query of each task, ``task(n)`` running ``counts[name]`` queries, median of
    ``rounds`` rounds taken in turns."""
    def bind(task: Callable[[int], object], n: int) -> Callable[[int], object]:
        return lambda _k: task(n)

    med = timed_rounds({n: bind(t, counts[n]) for n, t in tasks.items()}, rounds)
    return {n: s / counts[n] for n, s in med.items()}


def calibrate(run: Callable[[int], object], n_max: int, budget: float) -> int:
    """How many queries (at least 5, at most ``n_max``) ``run(n)`` answers in about ``budget``
    seconds, estimated from three."""
    t0 = time.perf_counter()
    run(3)
    est = (time.perf_counter() - t0) / 3
    return max(5, min(n_max, int(budget / max(est, 1e-9))))
