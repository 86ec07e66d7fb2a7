"""Workload (g), the matcher's worst realistic shapes: shared short literals,
copies, 8 KB and 64 KB paths, each library in a bounded child."""

from __future__ import annotations

import statistics
import time

import bench_libs as L
import bench_proc
from bench_harness import Results
from bench_libs import Lib, Suite
from bench_report import Report
from bench_timing import fmt_int, fmt_us, speedup, table
from bench_worst import worst_cases


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
