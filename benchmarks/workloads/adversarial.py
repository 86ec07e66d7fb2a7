"""Workload (f), adversarial wildcard rules against long URLs: each library in a forked child,
stopped when one query takes longer than the timeout."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import statistics
import time

import bench_libs as L
from bench_data import adversarial_cases
from bench_harness import Results
from bench_libs import Lib, Suite
from bench_report import Report
from bench_timing import table


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
