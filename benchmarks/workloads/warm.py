"""Workload (b), warm queries: the files parsed once, then each file's queries timed; the
untimed warm-up pass gives the answers the agreement section checks against Google."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import bench_libs as L
from bench_agreement import agreement
from bench_data import SiteFile
from bench_harness import SLICES
from bench_libs import Lib, Suite
from bench_report import Report, vs_cells, vs_dash, vs_data, vs_headers
from bench_timing import fmt_int, fmt_us, split, table, timed_rounds


def bench_warm(suite: Suite, files: list[SiteFile], rounds: int, rep: Report) -> None:
    nq = sum(len(f.queries) for f in files)
    parsed: dict[str, list[Any]] = {}
    answers: dict[str, list[bool]] = {}
    for lib in suite.parsing:
        assert lib.parse is not None
        assert lib.ask is not None
        objs = [lib.parse(f.body) for f in files]
        parsed[lib.name] = objs
        ask = lib.ask
        # the warm-up pass (compiles whatever is compiled lazily) gives the answers
        answers[lib.name] = [ask(o, a, u) for o, f in zip(objs, files, strict=True)
                             for a, u in f.queries]

    def task(lib: Lib) -> Callable[[int], None]:
        objs = parsed[lib.name]
        ask = lib.ask
        assert ask is not None
        pairs = list(zip(objs, [f.queries for f in files], strict=True))
        parts = [pairs[r.start:r.stop] for r in split(len(pairs), SLICES)]

        def run(k: int) -> None:
            for o, queries in parts[k]:
                for a, u in queries:
                    ask(o, a, u)
        return run

    tasks = {lib.name: task(lib) for lib in suite.parsing}
    gc.collect()
    gc.freeze()  # the parsed files are not garbage: keep the collections between timings short
    try:
        med = timed_rounds(tasks, rounds, SLICES)
    finally:
        gc.unfreeze()
    rows = [[name, fmt_us(t / nq), fmt_int(nq / t), *vs_cells(suite, med, name)]
            for name, t in med.items()]
    rows.append([L.GOOGLE.name, "n/a (no parsed object: see (c))", "-", *vs_dash(suite)])
    rep.out(f"## (b) warm queries: {nq:,} queries on {len(files):,} pre-parsed files, median of "
            f"{rounds} rounds")
    rep.out()
    rep.out(table(["library", "per query", "queries/s", *vs_headers(suite)], rows))
    rep.out()
    rep.data["warm"] = {name: {"seconds": t, "us_per_query": t / nq * 1e6,
                               "queries_per_s": nq / t, **vs_data(suite, med, name)}
                        for name, t in med.items()}
    parsed.clear()
    gc.collect()
    agreement(suite, files, answers, rep)
