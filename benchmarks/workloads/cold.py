"""Workload (c), the cold crawler workload: parse plus the file's queries, every round starting
with the libraries' process-wide caches emptied."""

from __future__ import annotations

from collections.abc import Callable

from bench_data import SiteFile
from bench_harness import SLICES
from bench_libs import Lib, Suite
from bench_report import Report, vs_cells, vs_data, vs_headers
from bench_timing import fmt_int, fmt_us, split, table, timed_rounds


def bench_cold(suite: Suite, files: list[SiteFile], rounds: int, rep: Report) -> None:
    nq = sum(len(f.queries) for f in files)

    pairs = [(f.body, f.queries) for f in files]
    parts = [pairs[r.start:r.stop] for r in split(len(pairs), SLICES)]

    def task(lib: Lib) -> Callable[[int], None]:
        cold = lib.cold
        reset = lib.reset

        def run(k: int) -> None:
            if k == 0 and reset is not None:
                reset()  # every round starts with empty caches (slice 0 runs first)
            for body, queries in parts[k]:
                cold(body, queries)
        return run

    med = timed_rounds({lib.name: task(lib) for lib in suite.libs}, rounds, SLICES)
    per = nq // max(1, len(files))
    rows = [[name, f"{t * 1000:,.0f} ms", fmt_us(t / len(files)), fmt_int(len(files) / t),
             *vs_cells(suite, med, name)] for name, t in med.items()]
    rep.out(f"## (c) cold crawler workload: parse + {per} queries per file, {len(files):,} "
            f"files, median of {rounds} rounds")
    rep.out()
    rep.out(table(["library", "time", "per file", "files/s", *vs_headers(suite)], rows))
    rep.out()
    rep.out("Google's matcher is called once per query on the raw bytes (it re-parses each "
            "time), one RobotsMatcher per file. Every round starts with the libraries' "
            "process-wide caches emptied (robotrules' pattern memo, fnmatch's cache for "
            "robotspy): a round sees each file for the first time, as a crawler would.")
    rep.out()
    rep.data["cold"] = {name: {"seconds": t, "us_per_file": t / len(files) * 1e6,
                               "files_per_s": len(files) / t, **vs_data(suite, med, name)}
                        for name, t in med.items()}
