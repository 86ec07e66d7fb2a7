"""Workload (a), parse throughput: every corpus file parsed once per round, the libraries
taking turns slice by slice; files/s and MB/s."""

from __future__ import annotations

from collections.abc import Callable

import bench_libs as L
from bench_data import SiteFile
from bench_harness import SLICES
from bench_libs import Suite
from bench_report import Report, vs_cells, vs_dash, vs_data, vs_headers
from bench_timing import fmt_int, split, table, timed_rounds


def bench_parse(suite: Suite, files: list[SiteFile], rounds: int, rep: Report) -> None:
    bodies = [f.body for f in files]
    nbytes = sum(len(b) for b in bodies)

    parts = [bodies[r.start:r.stop] for r in split(len(bodies), SLICES)]

    def task(parse: Callable[[bytes], object]) -> Callable[[int], None]:
        def run(k: int) -> None:
            for body in parts[k]:
                parse(body)
        return run

    tasks = {lib.name: task(lib.parse) for lib in suite.parsing if lib.parse is not None}
    med = timed_rounds(tasks, rounds, SLICES)
    rows = [[name, f"{t * 1000:,.0f} ms", fmt_int(len(bodies) / t), f"{nbytes / t / 1e6:.2f}",
             *vs_cells(suite, med, name)] for name, t in med.items()]
    rows.append([L.GOOGLE.name, "n/a (re-parses on every query: see (c))", "-", "-",
                 *vs_dash(suite)])
    rep.out(f"## (a) parse throughput: {len(bodies):,} files, {nbytes / 1e6:.2f} MB, "
            f"median of {rounds} rounds")
    rep.out()
    rep.out(table(["library", "time", "files/s", "MB/s", *vs_headers(suite)], rows))
    rep.out()
    rep.out("Libraries that only take text decode the bytes (UTF-8, errors='replace') inside "
            "their timing; robotrules takes the bytes. robotrules' parse tokenizes; it builds "
            "the group index and an agent's matcher on first use, which is not in this figure "
            "but is in (c) and in the memory 'after queries' of (d).")
    rep.out()
    rep.data["parse"] = {name: {"seconds": t, "files_per_s": len(bodies) / t,
                                "mb_per_s": nbytes / t / 1e6, **vs_data(suite, med, name)}
                         for name, t in med.items()}
