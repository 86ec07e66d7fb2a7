"""Workload (p), parse + first query: each file parsed and asked one question, every round
starting with the libraries' process-wide caches emptied, on three data sets (the corpus with
its first seeded query, the corpus with a query built from one of its rules, generated files);
each ratio with its spread over the rounds. Then the limit: a C line count over the same bytes,
one call a file, against robotrules' parse."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import bench_builds
import bench_libs as L
from bench_data import SiteFile, generated_cold, generated_files, rule_queries, rule_query
from bench_harness import SLICES
from bench_libs import Lib, Query, Suite
from bench_report import Report
from bench_timing import fmt_spread, fmt_us, ratio_spread, round_times, split, table

Pairs = list[tuple[bytes, Query]]
ColdPairs = list[tuple[bytes, tuple[Query, ...]]]


def data_sets(files: list[SiteFile], seed: int, generated: int) -> list[tuple[str, Pairs]]:
    corpus_first = [(f.body, f.queries[0]) for f in files if f.queries]
    from_rules: Pairs = []
    for f in files:
        q = rule_query(f.name, f.body, seed)
        if q is not None:
            from_rules.append((f.body, q))
    return [("corpus, the file's first query", corpus_first),
            ("corpus, a query from one of its rules", from_rules),
            (f"generated files ({generated}, 300 B to 30 KB)", generated_files(generated, seed))]


def cold_sets(files: list[SiteFile], seed: int, generated: int) -> list[tuple[str, ColdPairs]]:
    """The cold workload's data sets, as :func:`data_sets`' with 20 queries a file: the
    corpus with its seeded queries (60% from its rules), the corpus with every query built
    from one of its rules, the generated files."""
    n = len(files[0].queries) if files else 20
    from_rules = [(f.body, qs) for f in files if (qs := rule_queries(f.name, f.body, n, seed))]
    return [("corpus, its seeded queries", [(f.body, f.queries) for f in files]),
            ("corpus, queries from its rules", from_rules),
            (f"generated files ({generated}, 300 B to 30 KB)", generated_cold(generated, seed, n))]


def _libs(suite: Suite, lean: Lib | None) -> list[Lib]:
    names = {L.BASELINE, L.FASTROBOTS_NAME, L.GOOGLE.name}
    # the installed build (and the one it is compared with, if any): not the pure core
    libs = [lib for pair in suite.builds for lib in pair
            if lib.name.removesuffix("[google]") != bench_builds.PURE_LABEL]
    if lean is not None:
        libs.append(lean)
    libs += [lib for lib in suite.libs if lib.name in names]
    if L.NZRSKY is not None:
        libs.append(L.NZRSKY)
    return libs


def _task(lib: Lib, parts: list[Pairs]) -> Callable[[int], None]:
    cold, reset = lib.cold, lib.reset

    def run(k: int) -> None:
        if k == 0 and reset is not None:
            reset()
        for body, query in parts[k]:
            cold(body, (query,))
    return run


def bench_first(suite: Suite, files: list[SiteFile], rounds: int, seed: int, generated: int,
                lean: Lib | None, rep: Report) -> None:
    libs = _libs(suite, lean)
    refs = [n for n in (L.NZRSKY.name if L.NZRSKY else None, L.FASTROBOTS_NAME, L.GOOGLE.name,
                        L.BASELINE) if n is not None and any(lib.name == n for lib in libs)]
    rep.out(f"## (p) parse + first query, by data set: median of {rounds} rounds, each "
            "ratio with its lowest and highest round")
    rep.out()
    overhead = L.binding_overhead()
    data: dict[str, object] = {}
    for title, pairs in data_sets(files, seed, generated):
        parts = [pairs[r.start:r.stop] for r in split(len(pairs), SLICES)]
        times = round_times({lib.name: _task(lib, parts) for lib in libs}, rounds, SLICES)
        rows = []
        cells: dict[str, dict[str, object]] = {}
        for lib in libs:
            ts = times[lib.name]
            med = sorted(ts)[len(ts) // 2]
            spreads = {r: ratio_spread(times[r], ts) for r in refs}
            rows.append([lib.name, fmt_us(med / len(pairs)),
                         *(fmt_spread(spreads[r]) for r in refs)])
            cells[lib.name] = {"us_per_file": med / len(pairs) * 1e6,
                               **{f"vs_{r}": spreads[r] for r in refs}}
        rep.out(f"### {title}: {len(pairs):,} files, {sum(len(b) for b, _ in pairs) / 1e6:.2f} MB")
        rep.out()
        rep.out(table(["library", "per file", *(f"vs {r}" for r in refs)], rows))
        rep.out()
        data[title] = cells
    rep.out("'vs X' = X's time / this library's time, round by round: the median, then the "
            "lowest and highest round. The C++ libraries re-parse on every call: their figure "
            "is one call (parse + query). nzrsky's fork (fast-robotstxt) and Google's "
            "(jwm-robotstxt) are measured through their Python bindings; fast-robotstxt's "
            "ctypes call costs "
            + (f"{overhead * 1e6:.2f} us" if overhead is not None else "- (not installed)")
            + " on an empty body (in its figure, once a file).")
    rep.out()
    rep.data["first"] = {"data_sets": data, "binding_overhead_s": overhead}
    _line_scan(suite, files, rounds, rep)


def _line_scan(suite: Suite, files: list[SiteFile], rounds: int, rep: Report) -> None:
    """robotrules' parse against the cheapest Python-called C pass over the same bytes:
    ``bytes.count(b"\\n")`` (a C loop over every byte, one call a file)."""
    bodies = [f.body for f in files]
    parts = [bodies[r.start:r.stop] for r in split(len(bodies), SLICES)]

    def count(k: int) -> None:
        for b in parts[k]:
            b.count(b"\n")

    def parser(lib: Lib) -> Callable[[int], None]:
        parse = lib.parse
        assert parse is not None

        def run(k: int) -> None:
            for b in parts[k]:
                parse(b)
        return run

    tasks: dict[str, Callable[[int], object]] = {"line count (bytes.count)": count}
    for lib in suite.robotrules[:2]:
        tasks[lib.name] = parser(lib)
    times = round_times(tasks, rounds, SLICES)
    scan = times["line count (bytes.count)"]
    rows = []
    out = {}
    for name, ts in times.items():
        sp: Sequence[float] = ratio_spread(ts, scan)  # its time / the scan's
        rows.append([name, fmt_us(sorted(ts)[len(ts) // 2] / len(bodies)),
                     fmt_spread(ratio_spread(scan, ts))])
        out[name] = {"scan_over_this": ratio_spread(scan, ts), "this_over_scan": sp}
    rep.out(f"### the limit: parse against a C line count, {len(bodies):,} corpus files")
    rep.out()
    rep.out(table(["pass", "per file", "scan's time / this"], rows))
    rep.out()
    rep.out("The line count is `body.count(b'\\n')`: one call a file, a C loop over every "
            "byte, no object made; a parse at 1.00x would cost no more than that.")
    rep.out()
    rep.data["line_scan"] = out
