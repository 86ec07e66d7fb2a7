"""Workload (n), the native drivers (bench_native): parse + first query and the cold workload
with nzrsky's C++ fork called from C against robotrules' kernel called from a Cython loop, on
the data sets of (p); then the limit both ways, robotrules' parse per file against a memchr
line scan (both drivers in C) and against ``bytes.count`` (the Python API).

A round runs each driver for a few passes and keeps the median pass; the C driver runs in a
child process (its own untimed pass first), the Cython driver in this one, the order swapped
every round. Ratios are taken round by round: the median, the lowest and highest round.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType

import bench_libs as L
import bench_native as N
from bench_data import SiteFile
from bench_report import Report
from bench_timing import fmt_spread, fmt_us, ratio_spread, table

from workloads.first import data_sets

NZ = "nzrsky C++ (C driver)"
RR = "robotrules (Cython driver)"
RR_GOOGLE = "robotrules[google] (Cython driver)"
Pass = Callable[[], list[float]]


def _rounds(tasks: dict[str, Pass], rounds: int) -> dict[str, list[float]]:
    """Per task, the median pass of each round (the task order reversed every other round)."""
    names = list(tasks)
    out: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            out[name].append(statistics.median(tasks[name]()))
    return out


def _py_passes(run: Callable[[], object], passes: int, reset: Callable[[], None] | None
               ) -> list[float]:
    """CPU seconds (``time.process_time``) of ``passes`` passes of ``run`` after an untimed
    one, ``reset`` before each."""
    out = []
    for p in range(passes + 1):
        if reset is not None:
            reset()
        t0 = time.process_time()
        run()
        if p:
            out.append(time.process_time() - t0)
    return out


def _rows(times: dict[str, list[float]], n: int, ref: str
          ) -> tuple[list[list[str]], dict[str, object]]:
    rows = []
    data: dict[str, object] = {}
    for name, ts in times.items():
        spread = ratio_spread(times[ref], ts)
        rows.append([name, fmt_us(statistics.median(ts) / n), fmt_spread(spread)])
        data[name] = {"us_per_file": statistics.median(ts) / n * 1e6, f"vs_{ref}": spread,
                      "round_s": ts}
    return rows, data


def bench_native(robotrules: ModuleType, files: list[SiteFile], rounds: int, seed: int,
                 generated: int, rep: Report, passes: int = 5) -> None:
    rep.out("## (n) native drivers: nzrsky's C++ from C, robotrules' kernel from Cython, "
            f"CPU time; median of {rounds} rounds, each ratio with its lowest and highest round")
    rep.out()
    with tempfile.TemporaryDirectory(prefix="robotrules-native-") as tmp:
        drivers = N.build(Path(tmp), robotrules)
        if drivers.c is None or drivers.rr is None:
            for why in drivers.missing:
                rep.out(f"Skipped: {why}.")
            rep.out()
            rep.data["native"] = {"skipped": list(drivers.missing)}
            return
        _measure(drivers.c, drivers.rr, robotrules, files, rounds, seed, generated, rep,
                 passes, Path(tmp))


def _measure(exe: Path, rr: ModuleType, robotrules: ModuleType, files: list[SiteFile],
             rounds: int, seed: int, generated: int, rep: Report, passes: int,
             tmp: Path) -> None:
    reset = robotrules._compile.clear_caches
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    cost = {d: min(rr.call_cost(d, 20000) for _ in range(3)) for d in ("rfc9309", "google")}
    data: dict[str, object] = {"load_before": load,
                               "rr_call_cost_s": cost, "passes_per_round": passes}
    sets: list[tuple[str, Sequence[N.Case], str]] = [
        (title, [(body, (q,)) for body, q in pairs], "first")
        for title, pairs in data_sets(files, seed, generated)]
    sets.append((f"cold: parse + {len(files[0].queries) if files else 0} queries per file, "
                 "corpus", [(f.body, f.queries) for f in files], "cold"))
    agree: dict[str, object] = {}
    for k, (title, cases, mode) in enumerate(sets):
        path = tmp / f"cases-{k}.bin"
        N.write_cases(path, cases)
        bodies, queries = N.rr_inputs(cases)
        google = L.google_answers(cases)
        theirs = N.c_answers(exe, path)
        ours = rr.answers(bodies, queries, "google")
        same = {name: sum(a == b for a, b in zip(answers, google, strict=True))
                for name, answers in ((RR_GOOGLE, ours), (NZ, theirs))}
        agree[title] = {"queries": len(google), **same}
        run = rr.first if mode == "first" else rr.cold
        tasks: dict[str, Pass] = {
            NZ: partial(N.run_c, exe, mode, path, passes),
            RR: partial(run, bodies, queries, "rfc9309", passes, reset),
            RR_GOOGLE: partial(run, bodies, queries, "google", passes, reset),
        }
        times = _rounds(tasks, rounds)
        rows, cells = _rows(times, len(cases), NZ)
        rep.out(f"### {title}: {len(cases):,} files, "
                f"{sum(len(b) for b in bodies) / 1e6:.2f} MB")
        rep.out()
        rep.out(table(["driver", "per file", "vs nzrsky (C)"], rows))
        rep.out()
        rep.out(f"Agreement with Google's matcher (jwm-robotstxt) on the {len(google):,} "
                f"queries: robotrules[google] {same[RR_GOOGLE]:,}, nzrsky {same[NZ]:,}.")
        rep.out()
        data[title] = cells
    data["agreement"] = agree
    rep.out("'vs nzrsky (C)' = nzrsky's time / this driver's time, round by round. nzrsky's "
            "fork re-parses on every call: its figure is one call per query, one matcher per "
            "file. robotrules' driver calls the kernel's Doc and its is_allowed from C "
            "through Python's object calls (its .pxd does not declare the Doc class): "
            f"{cost['rfc9309'] * 1e6:.2f} us per parse + query of an empty body "
            f"({cost['google'] * 1e6:.2f} us google), in its figures once a file.")
    rep.out()
    _limit(exe, rr, robotrules, files, generated, seed, rounds, passes, tmp, rep, data)
    data["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rep.out(f"Load average before / after: {load} / {data['load_after']}.")
    rep.out()
    rep.data["native"] = data


def _limit(exe: Path, rr: ModuleType, robotrules: ModuleType, files: list[SiteFile],
           generated: int, seed: int, rounds: int, passes: int, tmp: Path, rep: Report,
           data: dict[str, object]) -> None:
    """Parse per file against the line scan, in C (memchr) and from Python (bytes.count)."""
    from bench_data import generated_files

    reset = robotrules._compile.clear_caches
    parse = robotrules.parse
    gen = [body for body, _ in generated_files(generated, seed)]
    out: dict[str, object] = {}
    for title, bodies in (("corpus", [f.body for f in files]),
                          (f"generated ({len(gen)})", gen)):
        path = tmp / f"scan-{title.split()[0]}.bin"
        N.write_cases(path, [(b, ()) for b in bodies])

        def count(bodies: list[bytes] = bodies) -> None:
            for b in bodies:
                b.count(b"\n")

        def py_parse(bodies: list[bytes] = bodies) -> None:
            for b in bodies:
                parse(b)

        tasks: dict[str, Pass] = {
            "memchr line scan (C driver)": partial(N.run_c, exe, "scan", path, passes),
            "memchr line scan (Cython driver)": partial(rr.scan, bodies, passes),
            "parse (Cython driver, Doc)": partial(rr.parse, bodies, "rfc9309", passes, reset),
            "its line scanner alone (Cython driver, kernel's scan)": partial(
                rr.tokenize, bodies, "rfc9309", passes, reset),
            "bytes.count(b'\\n') (Python)": partial(_py_passes, count, passes, None),
            "robotrules.parse (Python API)": partial(_py_passes, py_parse, passes, reset),
        }
        times = _rounds(tasks, rounds)
        n = len(bodies)
        pairs = (("parse (Cython driver, Doc)", "memchr line scan (C driver)"),
                 ("parse (Cython driver, Doc)", "memchr line scan (Cython driver)"),
                 ("its line scanner alone (Cython driver, kernel's scan)",
                  "memchr line scan (Cython driver)"),
                 ("robotrules.parse (Python API)", "bytes.count(b'\\n') (Python)"))
        rows = [[name, fmt_us(statistics.median(ts) / n)] for name, ts in times.items()]
        ratio_rows = []
        cells: dict[str, object] = {
            name: statistics.median(ts) / n * 1e6 for name, ts in times.items()}
        for ours, scan in pairs:
            spread = ratio_spread(times[scan], times[ours])
            ratio_rows.append([ours, scan, fmt_spread(spread)])
            cells[f"{scan} / {ours}"] = spread
        rep.out(f"### the limit, {title}: {n:,} files, "
                f"{sum(len(b) for b in bodies) / 1e6:.2f} MB")
        rep.out()
        rep.out(table(["pass", "per file"], rows))
        rep.out()
        rep.out(table(["parse", "line scan", "scan's time / parse's"], ratio_rows))
        rep.out()
        out[title] = cells
    rep.out("The line scan counts a body's lines with memchr (native/line_scan.h, both "
            "drivers) or `body.count(b'\\n')`; a parse at 1.00x would cost no more than it. "
            "'its line scanner alone' is the kernel's `scan` (cimported from _native.pxd), "
            "called as a parse calls it first: the directive stream, no Doc.")
    rep.out()
    data["limit"] = out
