"""Workload (d), memory retained per parsed file: tracemalloc in this process, then resident
memory (RSS) in a fresh interpreter per library."""

from __future__ import annotations

import gc
import statistics
import tracemalloc
from pathlib import Path
from typing import Any

import bench_libs as L
import bench_proc
from bench_data import SiteFile
from bench_harness import Results
from bench_libs import Lib, Suite
from bench_report import Report
from bench_timing import fmt_int, table

MIB = 1024 * 1024


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




def bench_memory(suite: Suite, files: list[SiteFile], rep: Report,
                 corpus: tuple[Path, int | None, int, int], lean: Lib | None = None) -> None:
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
    _dropped(suite, rep, corpus, total_in, lean, data)
    rep.data["memory"] = data


def _dropped(suite: Suite, rep: Report, corpus: tuple[Path, int | None, int, int],
             total_in: int, lean: Lib | None, data: Results) -> None:
    """RSS again, the caller keeping no body: each file parsed from a fresh copy it drops."""
    rows = []
    libs = [*suite.parsing, *((lean,) if lean is not None else ())]
    for lib in libs:
        rss = bench_proc.rss_of(lib.name, *corpus, drop=True)
        rp = rss["after_parse"] - rss["before"]
        rq = rss["after_queries"] - rss["before"]
        rows.append([lib.name, f"{rp / MIB:.2f} MiB ({rp / total_in:.2f}x)",
                     f"{rq / MIB:.2f} MiB ({rq / total_in:.2f}x)"])
        data.setdefault(lib.name, {}).update({
            "rss_dropped_ratio_after_parse": rp / total_in,
            "rss_dropped_ratio_after_queries": rq / total_in, "rss_dropped_bytes": rss})
    rep.out("The same, the caller keeping no body (a crawler that caches parsed files): each "
            "file is parsed from a fresh copy of its bytes that the caller lets go of at once, "
            "so whatever a parsed object keeps of its input counts:")
    rep.out()
    rep.out(table(["library", "RSS after parse", "RSS after queries"], rows))
    rep.out()
    rep.out(f"{L.LEAN.strip('[]')} is `robotrules.parse(body, keep_text=False)`: the file "
            "keeps the agent and rule values its verdicts read and no reference to the body "
            "(its text, groups, findings and explanations are then not available). The "
            "default keeps the caller's bytes, which it reads for those answers and for "
            "`source()`: with the bodies held by the caller that costs nothing, dropped it "
            "costs the input.")
    rep.out()
