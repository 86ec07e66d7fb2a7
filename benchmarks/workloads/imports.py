"""Workload (i), import time: ``import <library>`` in fresh interpreters, the libraries
taking turns run by run."""

from __future__ import annotations

import statistics

import bench_builds
import bench_libs as L
import bench_proc
from bench_libs import Suite
from bench_report import Report, vs_cells, vs_data, vs_headers
from bench_timing import table


def bench_import(suite: Suite, runs: int, rep: Report) -> None:
    """``import <library>`` in fresh interpreters, perf_counter around the statement."""
    statements: dict[str, tuple[str, dict[str, str]]] = {}
    for rfc, _ in suite.builds:
        if rfc.name == bench_builds.BEFORE_LABEL:
            continue  # (another checkout: `import robotrules` would not reach it)
        env = {bench_builds.PURE_ENV: "1"} if rfc.name == bench_builds.PURE_LABEL else {}
        statements[rfc.name] = ("import robotrules", env)
    for lib in suite.libs:
        if lib.name in L.IMPORTS:
            statements[lib.name] = (L.IMPORTS[lib.name], {})
    times = bench_proc.import_times(statements, runs)
    preloaded = bench_proc.startup_modules()
    med = {name: statistics.median(ts) for name, ts in times.items()}
    rows = [[name, f"`{statements[name][0]}`" + (" (ROBOTRULES_PURE=1)"
                                                   if statements[name][1] else ""),
             f"{t * 1000:.1f} ms", f"{min(times[name]) * 1000:.1f} ms",
             *vs_cells(suite, med, name)] for name, t in med.items()]
    rep.out(f"## (i) import time: median of {runs} fresh interpreters per library")
    rep.out()
    rep.out(table(["library", "statement", "median", "fastest", *vs_headers(suite)], rows))
    rep.out()
    rep.out("time.perf_counter() around the statement in `python -c` (interpreter start-up not "
            "counted), the libraries taking turns run by run; 'vs' = their time / this one's "
            "(higher is faster). robotrules-pure is the installed package imported with "
            f"ROBOTRULES_PURE=1. This interpreter starts with {len(preloaded)} modules loaded "
            f"({'including' if {'re', 'typing'} & set(preloaded) else 'without'} re and typing"
            "), which no library pays for here; a plain CPython starts with about 30.")
    rep.out()
    rep.data["import"] = {name: {"median_ms": t * 1000, "runs_ms": [x * 1000 for x in times[name]],
                                 **vs_data(suite, med, name)} for name, t in med.items()}
    rep.data["import_preloaded_modules"] = preloaded
