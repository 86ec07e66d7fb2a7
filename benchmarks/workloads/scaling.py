"""Workload (e), scaling: per-query cost on synthetic 5/50/500 KB files, and a 500 KB file of the
worst shapes run per library in a bounded child."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

import bench_builds
import bench_libs as L
import bench_proc
from bench_data import SCALING_SIZES, synthetic_file, synthetic_queries
from bench_harness import Results, calibrate, per_query
from bench_libs import Lib, Query, Suite
from bench_report import Report
from bench_timing import fmt_int, fmt_spread, fmt_us, ratio_spread, speedup, table
from bench_worst import worst_file, worst_queries


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


def _first_rounds(libs: list[Lib], body: bytes, query: Query, rounds: int
                  ) -> dict[str, tuple[list[float], list[float]]]:
    """Per library, each round's parse and first query on ``body`` (the library's caches
    emptied first, the order of the libraries reversed every other round)."""
    out: dict[str, tuple[list[float], list[float]]] = {lib.name: ([], []) for lib in libs}
    for r in range(rounds):
        for lib in libs if r % 2 else libs[::-1]:
            assert lib.parse is not None
            assert lib.ask is not None
            if lib.reset is not None:
                lib.reset()
            gc.collect()
            t0 = time.perf_counter()
            obj = lib.parse(body)
            t1 = time.perf_counter()
            lib.ask(obj, *query)
            t2 = time.perf_counter()
            out[lib.name][0].append(t1 - t0)
            out[lib.name][1].append(t2 - t1)
    return out


def _pure_first(suite: Suite, body: bytes, query: Query, rounds: int, label: str,
                rep: Report) -> dict[str, Any] | None:
    """The pure core's first query on the largest file against protego's (a user without a
    compiler picks between them), and parse + first query: each ratio over the rounds."""
    libs = [lib for lib in suite.parsing if lib.name in (bench_builds.PURE_LABEL, L.BASELINE)]
    if len(libs) != 2:
        return None
    times = _first_rounds(libs, body, query, rounds)
    pure, base = times[bench_builds.PURE_LABEL], times[L.BASELINE]
    first = ratio_spread(base[1], pure[1])
    both = ratio_spread([p + q for p, q in zip(*base, strict=True)],
                        [p + q for p, q in zip(*pure, strict=True)])
    rep.out(f"The pure core against protego on the {label} file, {rounds} rounds (each "
            "library's caches emptied first; protego's time / the pure core's, median with the "
            "lowest and highest round):")
    rep.out()
    rep.out(table(["", f"{bench_builds.PURE_LABEL} (ms)", f"{L.BASELINE} (ms)", "ratio"], [
        ["first query", f"{statistics.median(pure[1]) * 1000:.2f}",
         f"{statistics.median(base[1]) * 1000:.2f}", fmt_spread(first)],
        ["parse + first query",
         f"{statistics.median([a + b for a, b in zip(*pure, strict=True)]) * 1000:.2f}",
         f"{statistics.median([a + b for a, b in zip(*base, strict=True)]) * 1000:.2f}",
         fmt_spread(both)]]))
    rep.out()
    return {"first_query_vs_protego": first, "parse_first_query_vs_protego": both}


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
            counts[lib.name] = calibrate(run, len(queries), budget)

        def google(n: int, body: bytes = body, queries: list[Query] = queries) -> None:
            L.GOOGLE.cold(body, queries[:n])
        tasks[L.GOOGLE.name] = google
        counts[L.GOOGLE.name] = calibrate(google, len(queries), budget)
        per = per_query(tasks, counts, rounds)
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
    label, size = SCALING_SIZES[-1]
    body, patterns = synthetic_file(size, seed)
    pure = _pure_first(suite, body, synthetic_queries(patterns, 1, seed, size)[0],
                       max(rounds, 5), label, rep)
    if pure is not None:
        data["pure core first query, largest file"] = pure
    rep.out("Google-dialect agreement with Google's matcher on these queries: " + "; ".join(
        f"{k}: " + ", ".join(f"{n} {a}" for n, a in v["google_dialect_agreement"].items())
        for k, v in data.items() if "google_dialect_agreement" in v) + ". On the worst-shape "
        "file (the queries each library answered): " + ", ".join(
        f"{n} {a}" for n, a in worst["agreement_with_google"].items()) + ".")
    rep.out()
    rep.data["scaling"] = data
