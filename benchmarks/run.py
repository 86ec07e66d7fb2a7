"""robotrules benchmark: one command, every workload, every library side by side.

    python benchmarks/run.py                 # full run (about 5-10 minutes on 2 cores)
    python benchmarks/run.py --quick         # about 1.5 minutes: a sample of the corpus
    python benchmarks/run.py --only a,b      # some workloads only
    python benchmarks/run.py --json out.json --markdown docs/benchmarks.md

Workloads: (a) parse throughput, (b) warm queries, (c) cold crawler workload (parse + 20
queries per file), (d) memory retained per parsed file, (e) scaling on synthetic 5/50/500 KB
files and a 500 KB file of the worst shapes, (f) adversarial wildcard rules against long URLs,
(g) the matcher's worst realistic shapes (shared short literals, copies, 8 KB and 64 KB paths)
beside protego and fastrobots, (i) import time. Both robotrules builds (the installed one,
native when compiled, and the pure-Python core) are measured; fastrobots when it imports
(CPython 3.12). Answers are checked against Google's C++ matcher on the same queries (section
"agreement"). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import multiprocessing.connection
import shlex
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bench_builds
import bench_libs as L
import bench_proc
from bench_data import (
    SCALING_SIZES,
    SiteFile,
    adversarial_cases,
    site_files,
    synthetic_file,
    synthetic_queries,
)
from bench_libs import Lib, Query, Suite
from bench_timing import fmt_int, fmt_us, machine, speedup, split, table, timed_rounds
from bench_worst import worst_cases, worst_file, worst_queries

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "sites"
WORKLOADS = ("a", "b", "c", "d", "e", "f", "g", "i")
SLICES = 16  # the corpus workloads alternate the libraries every 1/16 of the corpus

Results = dict[str, Any]


class Report:
    """Collects printed sections (Markdown) and the JSON results."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.data: Results = {}

    def out(self, text: str = "") -> None:
        print(text, flush=True)
        self.parts.append(text)


def vs_headers(suite: Suite) -> list[str]:
    return [f"vs {b}" for b in suite.compared_with]


def vs_cells(suite: Suite, med: dict[str, float], name: str) -> list[str]:
    """The library's speed-up over protego and fastrobots (their time / its time)."""
    return [speedup(med.get(b), med[name]) for b in suite.compared_with]


def vs_data(suite: Suite, med: dict[str, float], name: str) -> dict[str, float]:
    return {f"vs_{b}": med[b] / med[name] for b in suite.compared_with}


def vs_dash(suite: Suite) -> list[str]:
    return ["-"] * len(suite.compared_with)


# -- (a) parse throughput ------------------------------------------------------------------


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


# -- (b) warm queries and agreement ---------------------------------------------------------


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


def agreement(suite: Suite, files: list[SiteFile], answers: dict[str, list[bool]],
              rep: Report) -> None:
    google: list[bool] = []
    for f in files:
        google.extend(L.GOOGLE.cold(f.body, f.queries))
    flat = [(f, a, u) for f in files for a, u in f.queries]
    rows = []
    data: Results = {}
    examples: list[str] = []
    google_dialect = {g.name for _, g in suite.builds}
    for name, got in answers.items():
        diff = [i for i, (g, r) in enumerate(zip(google, got, strict=True)) if g != r]
        pct = 100.0 * (len(got) - len(diff)) / max(1, len(got))
        files_off = len({flat[i][0].name for i in diff})
        rows.append([name, f"{pct:.3f}%", fmt_int(len(diff)), fmt_int(files_off)])
        data[name] = {"agree_pct": pct, "disagreements": len(diff), "files": files_off}
        if name in google_dialect:
            for i in diff[:10]:
                f, a, u = flat[i]
                examples.append(f"  {name} {f.name}: agent={a!r} url={u!r} google={google[i]}")
    rep.out(f"## agreement with Google's matcher on the same {len(google):,} queries")
    rep.out()
    rep.out(table(["library", "agree", "disagreements", "files"], rows))
    rep.out()
    rep.out("robotrules[google] must agree 100%. robotrules (rfc9309) differs from Google by "
            "design: percent-normalised paths and /robots.txt always allowed (RFC 9309 2.2.2).")
    if examples:
        rep.out()
        rep.out("robotrules google-dialect disagreements (first 10 per build):")
        rep.out("```")
        for e in examples:
            rep.out(e)
        rep.out("```")
    rep.out()
    rep.data["agreement"] = data


# -- (c) cold crawler workload --------------------------------------------------------------


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


# -- (d) memory -------------------------------------------------------------------------------


def _retained(lib: Lib, files: list[SiteFile]) -> tuple[list[int], list[int], int, int]:
    """Per file bytes retained after parse and after its queries, and the totals with every
    parsed object kept alive."""
    assert lib.parse is not None
    assert lib.ask is not None
    parse, ask = lib.parse, lib.ask
    for f in files[:20]:  # warm module-level caches before tracing
        o = parse(f.body)
        for a, u in f.queries:
            ask(o, a, u)
    del o
    gc.collect()
    kept: list[Any] = []
    after_parse: list[int] = []
    after_queries: list[int] = []
    # The automatic collector is off while tracing and only the young generation is collected
    # after each step: everything a parse allocates is young, so its cyclic garbage is freed,
    # while the objects kept alive (older) are not traversed again and again.
    gc.disable()
    try:
        tracemalloc.start()
        gc.collect()
        start = tracemalloc.get_traced_memory()[0]
        for f in files:
            m0 = tracemalloc.get_traced_memory()[0]
            obj = parse(f.body)
            gc.collect(0)
            after_parse.append(tracemalloc.get_traced_memory()[0] - m0)
            kept.append(obj)
        gc.collect()
        total_parse = tracemalloc.get_traced_memory()[0] - start
        for f, obj in zip(files, kept, strict=True):
            m0 = tracemalloc.get_traced_memory()[0]
            for a, u in f.queries:
                ask(obj, a, u)
            gc.collect(0)
            after_queries.append(tracemalloc.get_traced_memory()[0] - m0)
        gc.collect()
        total_queries = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
        gc.enable()
    del kept
    gc.collect()
    return after_parse, after_queries, total_parse, total_queries


MIB = 1024 * 1024


def bench_memory(suite: Suite, files: list[SiteFile], rep: Report,
                 corpus: tuple[Path, int | None, int, int]) -> None:
    """tracemalloc in this process, then RSS in a fresh interpreter per library (``corpus``:
    the folder, number of files, queries per file and seed that gave ``files``)."""
    sizes = [len(f.body) for f in files]
    total_in = sum(sizes)
    rows = []
    data: Results = {}
    totals: dict[str, tuple[int, int]] = {}
    for lib in suite.parsing:
        ap, aq, tp, tq = _retained(lib, files)
        totals[lib.name] = (tp, tq)
        full = [p + q for p, q in zip(ap, aq, strict=True)]
        ratios_p = [r / s for r, s in zip(ap, sizes, strict=True) if s]
        ratios_q = [r / s for r, s in zip(full, sizes, strict=True) if s]
        rows.append([lib.name, fmt_int(statistics.median(ap)),
                     f"{statistics.median(ratios_p):.2f}x", f"{tp / total_in:.2f}x",
                     fmt_int(statistics.median(full)), f"{statistics.median(ratios_q):.2f}x",
                     f"{tq / total_in:.2f}x"])
        data[lib.name] = {"median_bytes_after_parse": statistics.median(ap),
                          "median_ratio_after_parse": statistics.median(ratios_p),
                          "total_ratio_after_parse": tp / total_in,
                          "median_bytes_after_queries": statistics.median(full),
                          "median_ratio_after_queries": statistics.median(ratios_q),
                          "total_ratio_after_queries": tq / total_in}
    rep.out(f"## (d) memory retained per parsed file: {len(files):,} files, "
            f"{total_in / 1e6:.2f} MB of input (tracemalloc, outputs kept alive)")
    rep.out()
    rep.out(table(["library", "after parse: median B", "median ratio", "total ratio",
                   "after queries: median B", "median ratio", "total ratio"], rows))
    rep.out()
    rep.out("ratio = retained bytes / input bytes (median over non-empty files; total = sum over "
            "all files). 'after queries' adds what the file's queries (several agents) left "
            "behind: robotrules builds its group index and an agent's matcher on first use; "
            "global caches count too (robotrules' bounded pattern memo, shared by all files; "
            "fnmatch's patterns for robotspy). Small files carry fixed overhead, so the median "
            "ratio is above the total ratio. tracemalloc only sees Python's allocator: what a "
            "C or Rust library mallocs (fastrobots' rules, Google's matcher) is invisible to "
            "it, hence the RSS columns below.")
    rep.out()
    rows = []
    for lib in suite.parsing:
        rss = bench_proc.rss_of(lib.name, *corpus)
        if rss["input_bytes"] != total_in:
            raise RuntimeError(f"RSS child of {lib.name} read {rss['input_bytes']} bytes, "
                               f"not {total_in}")
        rp = rss["after_parse"] - rss["before"]
        rq = rss["after_queries"] - rss["before"]
        tp, tq = totals[lib.name]
        rows.append([lib.name, f"{tp / MIB:.2f} MiB ({tp / total_in:.2f}x)",
                     f"{rp / MIB:.2f} MiB ({rp / total_in:.2f}x)",
                     f"{tq / MIB:.2f} MiB ({tq / total_in:.2f}x)",
                     f"{rq / MIB:.2f} MiB ({rq / total_in:.2f}x)"])
        data[lib.name].update({
            "rss_mib_after_parse": rp / MIB, "rss_ratio_after_parse": rp / total_in,
            "rss_mib_after_queries": rq / MIB, "rss_ratio_after_queries": rq / total_in,
            "tracemalloc_mib_after_parse": tp / MIB, "tracemalloc_mib_after_queries": tq / MIB,
            "rss_bytes": rss})
    rep.out(f"Whole corpus ({total_in / MIB:.2f} MiB of input), every parsed object kept alive: "
            "tracemalloc (this process) and resident memory (RSS; a fresh interpreter per "
            "library):")
    rep.out()
    rep.out(table(["library", "tracemalloc after parse", "RSS after parse",
                   "tracemalloc after queries", "RSS after queries"], rows))
    rep.out()
    rep.out("RSS = growth of the resident set (/proc/self/statm) from after the library's "
            "import and a 20-file warm-up to after parsing every file, then to after every "
            "file's queries; each reading follows gc.collect() and glibc's malloc_trim(0), so "
            "freed memory the allocator could give back is not counted. (ratio) = that growth "
            "/ input bytes. RSS counts what the library mallocs outside Python, and also "
            "allocator slack (partly used pages and arenas); it can also read below "
            "tracemalloc, when the parse reuses pages the warm-up freed.")
    rep.out()
    rep.data["memory"] = data


# -- (e) scaling ------------------------------------------------------------------------------


def _per_query(tasks: dict[str, Callable[[int], object]], counts: dict[str, int],
               rounds: int) -> dict[str, float]:
    def bind(task: Callable[[int], object], n: int) -> Callable[[int], object]:
        return lambda _k: task(n)

    med = timed_rounds({n: bind(t, counts[n]) for n, t in tasks.items()}, rounds)
    return {n: s / counts[n] for n, s in med.items()}


def _calibrate(run: Callable[[int], object], n_max: int, budget: float) -> int:
    t0 = time.perf_counter()
    run(3)
    est = (time.perf_counter() - t0) / 3
    return max(5, min(n_max, int(budget / max(est, 1e-9))))


def _scaling_child(tick: bench_proc.Tick, lib: Lib, body: bytes, queries: list[Query],
                   budget: float, rounds: int) -> dict[str, Any]:
    """(e) on one file in a bounded child: parse, first query, then a first pass over the
    queries in order until ``budget`` is spent (at least 20 queries: their answers are
    returned), and ``rounds - 1`` more passes over the same queries."""
    gc.collect()
    t0 = time.perf_counter()
    obj = lib.parse(body) if lib.parse is not None else None
    parse_s = time.perf_counter() - t0
    tick(force=True)
    ask = lib.ask

    def one(agent: str, url: str) -> bool:
        if obj is not None and ask is not None:
            return bool(ask(obj, agent, url))
        return lib.cold(body, [(agent, url)])[0]

    t0 = time.perf_counter()
    one(*queries[0])
    first_s = time.perf_counter() - t0
    tick(force=True)
    answers: list[bool] = []
    spent = 0.0
    for agent, url in queries:
        q0 = time.perf_counter()
        answers.append(one(agent, url))
        spent += time.perf_counter() - q0
        tick()
        if spent >= budget and len(answers) >= 20:
            break
    n = len(answers)
    passes = [spent / n]
    for _ in range(rounds - 1):
        gc.collect()
        spent = 0.0
        for agent, url in queries[:n]:
            q0 = time.perf_counter()
            one(agent, url)
            spent += time.perf_counter() - q0
            tick()
        passes.append(spent / n)
    return {"per_query": statistics.median(passes), "parse": parse_s, "first": first_s,
            "answers": answers, "queries": n}


def _scaling_worst(suite: Suite, seed: int, rounds: int, budget: float, nq: int,
                   timeout: float, size: int) -> tuple[Results, dict[str, str]]:
    """The worst-shape file of (e): every library in a bounded child (a query over
    ``timeout`` seconds stops it). Returns the JSON and each library's cell."""
    body, nrules = worst_file(size, seed)
    queries = worst_queries(body, nq, seed)
    per: dict[str, float | None] = {}
    parse_t: dict[str, float] = {}
    first_t: dict[str, float] = {}
    answers: dict[str, list[bool]] = {}
    counts: dict[str, int] = {}
    problems: dict[str, str] = {}
    for lib in (*suite.parsing, L.GOOGLE):
        status, got = bench_proc.run_limited(
            _scaling_child, (lib, body, queries, budget, rounds),
            start_limit=max(60.0, timeout), step_limit=timeout)
        if status != "ok":
            per[lib.name] = None
            problems[lib.name] = (f"> {timeout:g} s (stopped)" if status == "stopped"
                                  else f"error: {got}")
            continue
        per[lib.name] = got["per_query"]
        parse_t[lib.name] = got["parse"]
        first_t[lib.name] = got["first"]
        answers[lib.name] = got["answers"]
        counts[lib.name] = got["queries"]
    ref = answers.get(L.GOOGLE.name)
    agree: dict[str, str] = {}
    for name, got in answers.items():
        if ref is not None and name != L.GOOGLE.name:
            k = min(len(got), len(ref))
            agree[name] = f"{sum(a == b for a, b in zip(got[:k], ref[:k], strict=True))}/{k}"
    data: Results = {"bytes": len(body), "rules": nrules, "queries": nq,
                     "us_per_query": {n: None if t is None else t * 1e6 for n, t in per.items()},
                     "queries_timed": counts,
                     "parse_ms": {n: t * 1000 for n, t in parse_t.items()},
                     "first_query_ms": {n: t * 1000 for n, t in first_t.items()},
                     "stopped": problems, "agreement_with_google": agree}
    cells = {n: problems[n] if t is None else fmt_us(t) for n, t in per.items()}
    return data, cells


def bench_scaling(suite: Suite, seed: int, rounds: int, budget: float, nq: int,
                  timeout: float, rep: Report) -> None:
    rr_names = [rfc.name for rfc, _ in suite.builds]
    ratio_heads = [f"{n} vs {b}" for n in rr_names for b in suite.compared_with]
    headers = ["file", "rules", *(lib.name for lib in suite.parsing),
               f"{L.GOOGLE.name} (parse+query)", *ratio_heads]
    rows_q: list[list[str]] = []
    rows_p: list[list[str]] = []
    data: Results = {}
    for label, size in SCALING_SIZES:
        body, patterns = synthetic_file(size, seed)
        queries = synthetic_queries(patterns, nq, seed, size)
        tasks: dict[str, Callable[[int], object]] = {}
        counts: dict[str, int] = {}
        parse_t: dict[str, float] = {}
        first_t: dict[str, float] = {}
        for lib in suite.parsing:
            assert lib.parse is not None
            assert lib.ask is not None
            parse, ask = lib.parse, lib.ask
            reps = []
            for _ in range(3):
                gc.collect()
                t0 = time.perf_counter()
                obj = parse(body)
                reps.append(time.perf_counter() - t0)
            parse_t[lib.name] = statistics.median(reps)
            t0 = time.perf_counter()
            ask(obj, *queries[0])
            first_t[lib.name] = time.perf_counter() - t0
            for agent in ("Googlebot", "Bingbot", "GPTBot", "AcmeCrawler"):
                ask(obj, agent, queries[0][1])

            def run(n: int, obj: Any = obj, ask: Callable[[Any, str, str], bool] = ask,
                    queries: list[Query] = queries) -> None:
                for a, u in queries[:n]:
                    ask(obj, a, u)
            tasks[lib.name] = run
            counts[lib.name] = _calibrate(run, len(queries), budget)

        def google(n: int, body: bytes = body, queries: list[Query] = queries) -> None:
            L.GOOGLE.cold(body, queries[:n])
        tasks[L.GOOGLE.name] = google
        counts[L.GOOGLE.name] = _calibrate(google, len(queries), budget)
        per = _per_query(tasks, counts, rounds)
        nrules = len(patterns)
        rows_q.append([f"{label} ({len(body):,} B)", fmt_int(nrules),
                       *(fmt_us(per[lib.name]) for lib in suite.parsing),
                       fmt_us(per[L.GOOGLE.name]),
                       *(speedup(per[b], per[n]) for n in rr_names for b in suite.compared_with)])
        rows_p.append([f"{label} ({len(body):,} B)", fmt_int(nrules),
                       *(f"{parse_t[lib.name] * 1000:.2f} / {first_t[lib.name] * 1000:.2f}"
                         for lib in suite.parsing),
                       *(speedup(parse_t[b], parse_t[n]) for n in rr_names
                         for b in suite.compared_with)])
        # agreement on these queries
        gans = L.GOOGLE.cold(body, queries)
        agree = {g.name: sum(a == b for a, b in zip(gans, g.cold(body, queries), strict=True))
                 for _, g in suite.builds}
        data[label] = {"bytes": len(body), "rules": nrules,
                       "us_per_query": {n: s * 1e6 for n, s in per.items()},
                       "queries_timed": counts,
                       "parse_ms": {n: s * 1000 for n, s in parse_t.items()},
                       "first_query_ms": {n: s * 1000 for n, s in first_t.items()},
                       "google_dialect_agreement": {n: f"{a}/{len(queries)}"
                                                    for n, a in agree.items()}}
    worst_size = SCALING_SIZES[-1][1]
    worst, cells = _scaling_worst(suite, seed, rounds, budget, nq, timeout, worst_size)
    wlabel = f"{worst_size // 1000} KB worst shapes ({worst['bytes']:,} B)"
    wper = {n: t / 1e6 if t is not None else None for n, t in worst["us_per_query"].items()}
    wparse = {n: t / 1000 for n, t in worst["parse_ms"].items()}
    rows_q.append([wlabel, fmt_int(worst["rules"]),
                   *(cells[lib.name] for lib in suite.parsing), cells[L.GOOGLE.name],
                   *(speedup(wper.get(b), wper.get(n)) for n in rr_names
                     for b in suite.compared_with)])
    rows_p.append([wlabel, fmt_int(worst["rules"]),
                   *(f"{worst['parse_ms'][lib.name]:.2f} / {worst['first_query_ms'][lib.name]:.2f}"
                     if lib.name in worst["parse_ms"] else cells[lib.name]
                     for lib in suite.parsing),
                   *(speedup(wparse.get(b), wparse.get(n)) for n in rr_names
                     for b in suite.compared_with)])
    data[f"{worst_size // 1000} KB worst shapes"] = worst
    rep.out(f"## (e) scaling: synthetic files, per-query cost (warm, median of {rounds} rounds)")
    rep.out()
    rep.out(table(headers, rows_q))
    rep.out()
    rep.out("Google's matcher re-parses the whole file on every call, so its column is parse + "
            "query per call. The worst-shape file holds only rules like '/*ba*x7k2' and "
            "'*?sort=*ab$' (one or two short literals from a shared set, then the rule's own "
            "word; a quarter start with '*'; benchmarks/bench_worst.py), asked ordinary URLs "
            "full of those literals and paths derived from its rules; each library runs it in "
            f"a child process, stopped when one query takes more than {timeout:g} s.")
    rep.out()
    rep.out("Parse / first query (ms; the first query includes lazy compilation):")
    rep.out()
    parse_headers = ["file", "rules", *(lib.name for lib in suite.parsing),
                     *(f"{n} parse vs {b}" for n in rr_names for b in suite.compared_with)]
    rep.out(table(parse_headers, rows_p))
    rep.out()
    rep.out("Google-dialect agreement with Google's matcher on these queries: " + "; ".join(
        f"{k}: " + ", ".join(f"{n} {a}" for n, a in v["google_dialect_agreement"].items())
        for k, v in data.items() if "google_dialect_agreement" in v) + ". On the worst-shape "
        "file (the queries each library answered): " + ", ".join(
        f"{n} {a}" for n, a in worst["agreement_with_google"].items()) + ".")
    rep.out()
    rep.data["scaling"] = data


# -- (f) adversarial ------------------------------------------------------------------------


def _adv_child(conn: multiprocessing.connection.Connection, lib: Lib, body: bytes,
               url: str, budget: float) -> None:
    agent = "Googlebot"
    times: list[float] = []
    answer = None
    if lib.parse is not None and lib.ask is not None:
        obj = lib.parse(body)
        ask = lib.ask
        spent = 0.0
        while not times or (spent < budget and len(times) < 50):
            t0 = time.perf_counter()
            answer = ask(obj, agent, url)
            dt = time.perf_counter() - t0
            times.append(dt)
            spent += dt
    else:
        spent = 0.0
        while not times or (spent < budget and len(times) < 50):
            t0 = time.perf_counter()
            answer = lib.cold(body, [(agent, url)])[0]
            dt = time.perf_counter() - t0
            times.append(dt)
            spent += dt
    conn.send((times, answer))
    conn.close()


def bench_adversarial(suite: Suite, timeout: float, budget: float, rep: Report) -> None:
    ctx = multiprocessing.get_context("fork")  # the child inherits the libraries as loaded
    libs = suite.libs
    rows = []
    data: Results = {}
    skipped: list[str] = []
    for case in adversarial_cases():
        cells: dict[str, str] = {}
        answers: dict[str, bool | None] = {}
        for lib in libs:
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_adv_child,
                               args=(send, lib, case.body, case.url, budget))
            proc.start()
            send.close()
            result = None
            if recv.poll(timeout + budget + 2.0):
                try:
                    result = recv.recv()
                except EOFError:
                    result = None
            if result is None:
                proc.terminate()
            proc.join(5)
            recv.close()
            if result is None:
                cells[lib.name] = f"> {timeout:g} s (stopped)"
                answers[lib.name] = None
                skipped.append(f"{lib.name} on {case.name}")
                continue
            times, answer = result
            cells[lib.name] = f"{statistics.median(times) * 1000:.3f}"
            answers[lib.name] = answer
        ref = answers.get(L.GOOGLE.name)
        marks = {n: ("" if a is None or ref is None or a == ref else " (wrong)")
                 for n, a in answers.items()}
        rows.append([case.name, *(cells[lib.name] + marks[lib.name] for lib in libs)])
        data[case.name] = {"ms_per_query": cells, "answers": answers}
    rep.out("## (f) adversarial: ms per query (median; Google re-parses per call)")
    rep.out()
    rep.out(table(["case", *(lib.name for lib in libs)], rows))
    rep.out()
    rep.out("'(wrong)' marks an answer that differs from Google's matcher. URL length 4,000+ "
            f"characters. A library is stopped for a case when one query takes > {timeout:g} s "
            f"(measured in a child process).")
    if skipped:
        rep.out("Stopped: " + "; ".join(skipped) + ".")
    rep.out()
    rep.data["adversarial"] = data


# -- (g) worst shapes (issue 12) --------------------------------------------------------------


def _worst_child(tick: bench_proc.Tick, lib: Lib, body: bytes, urls: tuple[str, ...],
                 budget: float) -> tuple[list[float], float, list[bool]]:
    """Parse and the first query (which compiles robotrules' matcher) timed together, then
    per-query times, URLs in turn, every URL at least once."""
    agent = "Googlebot"
    times: list[float] = []
    answers: list[bool] = []
    t0 = time.perf_counter()
    obj = lib.parse(body) if lib.parse is not None else None
    tick(force=True)  # parsed: from here on every query (the first too) has the per-query limit
    ask = lib.ask

    def one(url: str) -> bool:
        if obj is not None and ask is not None:
            return bool(ask(obj, agent, url))
        return lib.cold(body, [(agent, url)])[0]

    answers.append(one(urls[0]))
    first = time.perf_counter() - t0
    tick(force=True)
    spent = 0.0
    k = 0
    while not times or (spent < budget and len(times) < 200) or k < len(urls):
        url = urls[k % len(urls)]
        q0 = time.perf_counter()
        answer = one(url)
        dt = time.perf_counter() - q0
        times.append(dt)
        if 0 < k < len(urls):
            answers.append(answer)
        spent += dt
        k += 1
        tick()
    return times, first, answers


def bench_worst(suite: Suite, seed: int, timeout: float, budget: float, rep: Report) -> None:
    fast = (L.FASTROBOTS,) if L.FASTROBOTS is not None else ()
    libs = [*suite.robotrules, L.PROTEGO, *fast, L.GOOGLE]
    rows = []
    data: Results = {}
    skipped: list[str] = []
    for case in worst_cases(seed):
        per: dict[str, float | None] = {}
        firsts: dict[str, float] = {}
        answers: dict[str, list[bool] | None] = {}
        for lib in libs:
            # the parse within max(60 s, timeout), then each query within timeout
            status, result = bench_proc.run_limited(
                _worst_child, (lib, case.body, case.urls, budget),
                start_limit=max(60.0, timeout), step_limit=timeout)
            if status != "ok":
                per[lib.name] = None
                answers[lib.name] = None
                skipped.append(f"{lib.name} on {case.name}"
                               + ("" if status == "stopped" else f" ({result})"))
                continue
            times, first, got = result
            per[lib.name] = statistics.median(times)
            firsts[lib.name] = first
            answers[lib.name] = got
        ref = answers.get(L.GOOGLE.name)

        cells = []
        for lib in libs:
            t, a = per[lib.name], answers[lib.name]
            wrong = lib.name.endswith("[google]") and None not in (a, ref) and a != ref
            cells.append(f"> {timeout:g} s (stopped)" if t is None else
                         fmt_us(t) + (" (wrong)" if wrong else ""))
        rows.append([case.name, fmt_int(case.rules), *cells,
                     *(speedup(per.get(b), per[lib.name]) for lib in suite.robotrules
                       for b in suite.compared_with)])
        data[case.name] = {
            "bytes": len(case.body), "rules": case.rules, "urls": len(case.urls),
            "path_chars": max(len(u) for u in case.urls),
            "us_per_query": {n: None if t is None else t * 1e6 for n, t in per.items()},
            "parse_and_first_query_ms": {n: t * 1000 for n, t in firsts.items()},
            # None when Google's matcher was skipped (nothing to compare with)
            "google_dialect_agrees": {pair[1].name: None if ref is None
                                      else answers[pair[1].name] == ref
                                      for pair in suite.builds},
            "agrees_with_google": {n: None if ref is None or a is None else a == ref
                                   for n, a in answers.items()},
        }
    rep.out("## (g) worst shapes: per query (median; Google re-parses per call)")
    rep.out()
    rep.out(table(["case", "rules", *(lib.name for lib in libs),
                   *(f"{lib.name} vs {b}" for lib in suite.robotrules
                     for b in suite.compared_with)], rows))
    rep.out()
    rep.out("Shapes of issue 12: rules sharing short literals ('/*ba'), exact copies, a 500 KB "
            "file whose quarter of '/*' rules is built from shared literals, paths of 8 KB and "
            "64 KB (benchmarks/bench_worst.py). '(wrong)' marks a google-dialect answer that "
            "differs from Google's matcher. A library is stopped for a case when one of its "
            f"queries takes more than {timeout:g} s (the parse: {max(60.0, timeout):g} s).")
    if skipped:
        rep.out("Stopped: " + "; ".join(skipped) + ".")
    rep.out()
    rep.data["worst"] = data


# -- (i) import time ---------------------------------------------------------------------------


def bench_import(suite: Suite, runs: int, rep: Report) -> None:
    """``import <library>`` in fresh interpreters, perf_counter around the statement."""
    statements: dict[str, tuple[str, dict[str, str]]] = {}
    for rfc, _ in suite.builds:
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


# -- targets (issues 3 and 15) -------------------------------------------------------------------


def _check(ok: bool) -> str:
    return "met" if ok else "MISSED"


def _target_cells(d: Results, rr: str, rrg: str) -> dict[str, tuple[str, bool]]:
    """Target name -> (this run's figure, met?) for one robotrules build."""
    out: dict[str, tuple[str, bool]] = {}
    for key, label, goal in (("parse", "parse throughput", 2.0), ("warm", "warm queries", 3.0),
                             ("cold", "cold workload", 2.5)):
        if key in d:
            x, xg = d[key][rr]["vs_protego"], d[key][rrg]["vs_protego"]
            out[f"{label} vs protego >= {goal:g}x"] = (f"{x:.2f}x (google {xg:.2f}x)",
                                                       x >= goal)
    if "cold" in d:
        g = d["cold"][L.GOOGLE.name]["seconds"]
        t = d["cold"][rr]["seconds"]
        out["cold workload: faster than Google C++"] = (f"{g / t:.2f}x", t < g)
    if "agreement" in d:
        a = d["agreement"][rrg]
        out["google dialect agrees with Google: 100%"] = (
            f"{a['agree_pct']:.3f}% ({a['disagreements']} off)", a["disagreements"] == 0)
    if "scaling" in d:
        big = d["scaling"][SCALING_SIZES[-1][0]]
        us = big["us_per_query"][rr]
        out[f"query on {big['bytes'] / 1000:.0f} KB, {big['rules']:,} rules: <= 100 us"] = (
            f"{us:.1f} us (protego {big['us_per_query'][L.BASELINE]:.0f} us)", us <= 100)
    if "adversarial" in d:
        worst = 0.0
        for case in d["adversarial"].values():
            for name in (rr, rrg):
                cell = case["ms_per_query"][name]
                worst = max(worst, float("inf") if cell.startswith(">") else float(cell))
        out["adversarial, worst case: <= 50 ms"] = (f"{worst:.3f} ms", worst <= 50)
    if "memory" in d:
        m = d["memory"][rr]
        p = d["memory"][L.BASELINE]
        for when, label in (("parse", "memory after parse: <= 2x input (total)"),
                            ("queries", "(extra) memory after queries: <= 2x input")):
            x = m[f"total_ratio_after_{when}"]
            out[label] = (
                f"{x:.2f}x (median/file {m[f'median_ratio_after_{when}']:.2f}x; protego "
                f"{p[f'total_ratio_after_{when}']:.2f}x)", x <= 2)
    return out


def _ahead_cells(suite: Suite, d: Results, rr: str) -> dict[str, tuple[str, bool]]:
    """Issue 15's targets for one robotrules build: ahead of fastrobots and of every other
    library, retained memory, import time."""
    out: dict[str, tuple[str, bool]] = {}
    fast = L.FASTROBOTS.name if L.FASTROBOTS is not None else None
    mine = {lib.name for lib in suite.robotrules}
    for key, label in (("parse", "parse"), ("warm", "warm queries"), ("cold", "cold workload")):
        if key not in d:
            continue
        sec = d[key]
        if fast is not None:
            x = sec[rr]["vs_fastrobots"]
            out[f"{label}: faster than fastrobots"] = (f"{x:.2f}x", x > 1)
        others = {n: v["seconds"] for n, v in sec.items() if n not in mine}
        best = min(others, key=others.__getitem__)
        x = others[best] / sec[rr]["seconds"]
        out[f"{label}: faster than every other library"] = (f"{x:.2f}x ({best} next)", x > 1)
    if "scaling" in d and fast is not None:
        for label, big in d["scaling"].items():
            if not label.startswith("500 KB"):
                continue
            us = big["us_per_query"]
            a, b = us.get(rr), us.get(fast)
            ok = a is not None and (b is None or a < b)
            out[f"{label} file, per query: faster than fastrobots"] = (
                "-" if a is None else f"{a:.1f} us (fastrobots "
                + ("stopped" if b is None else f"{b:.1f} us") + ")", ok)
    if "memory" in d and "rss_ratio_after_queries" in d["memory"][rr]:
        m = d["memory"][rr]
        x, t = m["rss_ratio_after_queries"], m["total_ratio_after_queries"]
        out["retained after queries: <= 2x input (RSS)"] = (
            f"{x:.2f}x (tracemalloc {t:.2f}x)", x <= 2)
    if "import" in d:
        i = d["import"]
        out["import: under protego's"] = (
            f"{i[rr]['median_ms']:.1f} ms (protego {i[L.BASELINE]['median_ms']:.1f} ms)",
            i[rr]["median_ms"] < i[L.BASELINE]["median_ms"])
    return out


def _target_table(cells: dict[str, dict[str, tuple[str, bool]]]) -> list[list[str]]:
    names = list(cells)
    keys = list(cells[names[0]]) if names else []
    return [[key, *(c for n in names for c in (cells[n][key][0],
                                               "met" if cells[n][key][1] else "MISSED"))]
            for key in keys]


def targets(suite: Suite, rep: Report) -> None:
    """The issues' targets against this run's figures, per robotrules build."""
    ahead = {rfc.name: _ahead_cells(suite, rep.data, rfc.name) for rfc, _ in suite.builds}
    rows = _target_table(ahead)
    if rows:
        rep.out("## targets (issue 15): default dialect")
        rep.out()
        rep.out(table(["target", *(h for n in ahead for h in (n, "status"))], rows))
        rep.out()
        if L.FASTROBOTS is None:
            rep.out(f"{L.FASTROBOTS_MISSING}: the rows against it need a CPython 3.12 run "
                    "(sh benchmarks/venv312.sh).")
            rep.out()
        rep.data["targets_issue15"] = {
            n: {k: {"value": v, "met": ok} for k, (v, ok) in c.items()} for n, c in ahead.items()}
    cells = {rfc.name: _target_cells(rep.data, rfc.name, g.name) for rfc, g in suite.builds}
    names = list(cells)
    keys = list(cells[names[0]])
    if not keys:
        return
    rows = [[key, *(c for n in names for c in (cells[n][key][0],
                                               "met" if cells[n][key][1] else "MISSED"))]
            for key in keys]
    rep.out("## targets (issue 3): default dialect unless said")
    rep.out()
    rep.out(table(["target", *(h for n in names for h in (n, "status"))], rows))
    rep.out()
    rep.out("The issue's memory target is the retained size of a parsed file. The '(extra)' "
            "row is ours: it also counts what queries build on first use (group index, "
            "matchers) and the process-wide pattern memo.")
    rep.out()
    rep.data["targets"] = {n: {k: {"value": v, "met": ok} for k, (v, ok) in cells[n].items()}
                           for n in names}


# -- main -------------------------------------------------------------------------------------


def header(suite: Suite, note: str, native: bool, args: argparse.Namespace, rep: Report,
           command: str) -> None:
    m = machine()
    versions = ", ".join(f"{lib.name} {lib.version}" for lib in suite.libs
                         if not lib.name.endswith("[google]"))
    rep.out("# robotrules benchmark")
    rep.out()
    rep.out("Produced by the command below (method and options: benchmarks/README.md). Every "
            "library runs in the same process on the same inputs; the figures of a shared "
            "machine move from run to run, the ratios much less.")
    rep.out()
    rep.out(f"- command: `{command}`")
    rep.out(f"- machine: {m['cpu']}, {m['nproc']} cores (nproc), {m['platform']}")
    rep.out(f"- Python: {m['python']}; {versions}")
    rep.out(f"- {note}")
    if L.FASTROBOTS is None:
        rep.out(f"- {L.FASTROBOTS_MISSING}; `sh benchmarks/venv312.sh` makes a 3.12 environment "
                "with it")
    rep.out(f"- date: {m['date']}; load average at start {m['load']}; seed {args.seed}")
    rep.out("- ratios ('vs protego', 'vs fastrobots') are that library's time / this one's in "
            "the same run (higher is faster)")
    rep.out()
    rep.data["machine"] = m
    rep.data["command"] = command
    rep.data["versions"] = {lib.name: lib.version for lib in suite.libs}
    rep.data["builds"] = note
    rep.data["native"] = native
    rep.data["fastrobots"] = L.FASTROBOTS.version if L.FASTROBOTS is not None else None


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--quick", action="store_true", help="a sample of the corpus, fewer rounds")
    p.add_argument("--only", default=",".join(WORKLOADS),
                   help="comma-separated workloads among a,b,c,d,e,f,g,i (default: all)")
    p.add_argument("--json", type=Path, help="write the results as JSON to this file")
    p.add_argument("--markdown", type=Path, help="write the report as Markdown to this file")
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    p.add_argument("--files", type=int, help="use an evenly spaced sample of N corpus files")
    p.add_argument("--rounds", type=int, help="timed rounds per workload (median reported)")
    p.add_argument("--queries", type=int, default=20, help="queries per corpus file")
    p.add_argument("--scale-queries", type=int, default=300,
                   help="(e): queries per synthetic file (all checked against Google)")
    p.add_argument("--budget", type=float,
                   help="seconds per library per round in (e) and per case in (f)")
    p.add_argument("--timeout", type=float,
                   help="(e) worst shapes, (f), (g): stop a library for a case when one query "
                        "exceeds this many seconds (default 5, 2 with --quick)")
    p.add_argument("--seed", type=int, default=9309)
    p.add_argument("--import-runs", type=int,
                   help="(i): fresh interpreters per library (default 7, 15 in a full run)")
    args = p.parse_args(argv)
    only = {w.strip() for w in args.only.split(",") if w.strip()}
    if not only <= set(WORKLOADS):
        p.error(f"--only takes a subset of {','.join(WORKLOADS)}")
    files_n = args.files if args.files is not None else (300 if args.quick else None)
    rounds = args.rounds if args.rounds is not None else (3 if args.quick else 5)
    budget = args.budget if args.budget is not None else (0.05 if args.quick else 0.25)
    command = "python benchmarks/run.py" + "".join(
        " " + shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))

    timeout = args.timeout if args.timeout is not None else (2.0 if args.quick else 5.0)
    args.timeout = timeout
    import_runs = args.import_runs if args.import_runs is not None else (7 if args.quick else 15)
    builds, note = bench_builds.load()
    suite = L.suite(builds)
    rep = Report()
    header(suite, note, any(bench_builds.is_native(m) for _, m in builds), args, rep, command)
    t_start = time.perf_counter()
    files: list[SiteFile] = []
    if only & {"a", "b", "c", "d"}:
        files = site_files(args.corpus, files_n, args.queries, args.seed)
        if not files:
            p.error(f"no *.txt files in {args.corpus}")
    steps: dict[str, Callable[[], None]] = {
        "a": lambda: bench_parse(suite, files, rounds, rep),
        "b": lambda: bench_warm(suite, files, rounds, rep),
        "c": lambda: bench_cold(suite, files, rounds, rep),
        "d": lambda: bench_memory(suite, files, rep,
                                  (args.corpus, files_n, args.queries, args.seed)),
        "e": lambda: bench_scaling(suite, args.seed, rounds, budget, args.scale_queries,
                                   args.timeout, rep),
        "f": lambda: bench_adversarial(suite, args.timeout, 4 * budget, rep),
        "g": lambda: bench_worst(suite, args.seed, args.timeout, 4 * budget, rep),
        "i": lambda: bench_import(suite, import_runs, rep),
    }
    spent: dict[str, float] = {}
    for name, step in steps.items():
        if name in only:
            t0 = time.perf_counter()
            step()
            spent[name] = time.perf_counter() - t0
            print(f"[({name}) took {spent[name]:.0f} s]", file=sys.stderr, flush=True)
    rep.data["section_seconds"] = spent
    targets(suite, rep)
    rep.out(f"(total benchmark time {time.perf_counter() - t_start:,.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(rep.data, indent=2, default=str) + "\n",
                             encoding="utf-8")
    if args.markdown:
        args.markdown.write_text("\n".join(rep.parts) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
