"""Timing discipline and output helpers shared by the workloads.

Each task is timed once per round with ``time.perf_counter``; the libraries are alternated
(the starting library rotates every round and every other round runs in reverse) and garbage
is collected before every timing, so no library always runs on a warm or a dirty heap. The
figure reported is the median over rounds.
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence

Row = Sequence[str]


def timed_rounds(tasks: Mapping[str, Callable[[int], object]], rounds: int,
                 slices: int = 1) -> dict[str, float]:
    """Median seconds of each task over ``rounds`` rounds (see :func:`round_times`)."""
    return {name: statistics.median(ts)
            for name, ts in round_times(tasks, rounds, slices).items()}


def round_times(tasks: Mapping[str, Callable[[int], object]], rounds: int,
                slices: int = 1) -> dict[str, list[float]]:
    """Seconds of each task in each of ``rounds`` rounds.

    A round runs every task on each of ``slices`` parts of the workload (the task gets the
    slice index) and sums the parts: the libraries take turns every slice, so a burst of load
    from a neighbour on a shared machine falls on all of them rather than on one.
    """
    names = list(tasks)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        spent = dict.fromkeys(names, 0.0)
        for k in range(slices):
            shift = (r + k) % len(names)
            order = names[shift:] + names[:shift]
            if (r + k) % 2:
                order.reverse()
            for name in order:
                task = tasks[name]
                gc.collect()
                t0 = time.perf_counter()
                task(k)
                spent[name] += time.perf_counter() - t0
        for name in names:
            times[name].append(spent[name])
    return times


def ratio_spread(theirs: Sequence[float], ours: Sequence[float]) -> tuple[float, float, float]:
    """Median, lowest and highest of ``theirs[r] / ours[r]`` over the rounds ``r`` (both
    timed in the same round, so a noisy round moves both)."""
    ratios = [t / o for t, o in zip(theirs, ours, strict=True) if o > 0]
    return statistics.median(ratios), min(ratios), max(ratios)


def fmt_spread(spread: tuple[float, float, float] | None) -> str:
    if spread is None:
        return "-"
    med, lo, hi = spread
    return f"{med:.2f}x ({lo:.2f}-{hi:.2f})"


def split(n: int, slices: int) -> list[range]:
    """``range(n)`` cut into ``slices`` contiguous parts (some possibly empty)."""
    return [range(n * i // slices, n * (i + 1) // slices) for i in range(slices)]


def speedup(base: float | None, value: float | None) -> str:
    """How many times faster ``value`` is than ``base`` (both durations)."""
    if base is None or value is None or value <= 0:
        return "-"
    return f"{base / value:.2f}x"


def fmt_us(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    us = seconds * 1e6
    if us >= 10_000:
        return f"{us / 1000:,.1f} ms"
    if us >= 100:
        return f"{us:,.0f} us"
    return f"{us:.2f} us"


def fmt_int(n: float) -> str:
    return f"{n:,.0f}"


def table(headers: Row, rows: Sequence[Row]) -> str:
    """A Markdown table padded to line up in a terminal too."""
    widths = [max(len(headers[i]), *(len(r[i]) for r in rows)) if rows else len(headers[i])
              for i in range(len(headers))]

    def line(cells: Row) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def machine() -> dict[str, str]:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for raw in f:
                if raw.startswith("model name"):
                    cpu = raw.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "nproc": str(os.cpu_count()),
        "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
