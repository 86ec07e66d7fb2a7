"""The report: the printed Markdown sections and the JSON results (`Report`), the 'vs protego /
vs fastrobots' cells every table shares, the header naming the machine and versions, and the
closing section holding this run's figures to the targets (parse, queries, memory, agreement,
import)."""

from __future__ import annotations

import argparse

import bench_libs as L
from bench_data import SCALING_SIZES
from bench_harness import Results
from bench_libs import Suite
from bench_timing import machine, speedup, table


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


# -- header -------------------------------------------------------------------------------------


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


# -- targets -----------------------------------------------------------------------------------


def _target_cells(d: Results, rr: str, rrg: str) -> dict[str, tuple[str, bool]]:
    """Target name -> (this run's figure, met?) for one robotrules build."""
    out: dict[str, tuple[str, bool]] = {}
    for key, label, goal in (("parse", "parse throughput", 2.0), ("warm", "warm queries", 3.0),
                             ("cold", "cold workload", 2.5)):
        if key in d and rr in d[key] and rrg in d[key]:
            x, xg = d[key][rr]["vs_protego"], d[key][rrg]["vs_protego"]
            out[f"{label} vs protego >= {goal:g}x"] = (f"{x:.2f}x (google {xg:.2f}x)",
                                                       x >= goal)
    if "cold" in d and rr in d["cold"]:
        g = d["cold"][L.GOOGLE.name]["seconds"]
        t = d["cold"][rr]["seconds"]
        out["cold workload: faster than Google C++"] = (f"{g / t:.2f}x", t < g)
    if "agreement" in d and rrg in d["agreement"]:
        a = d["agreement"][rrg]
        out["google dialect agrees with Google: 100%"] = (
            f"{a['agree_pct']:.3f}% ({a['disagreements']} off)", a["disagreements"] == 0)
    big = d.get("scaling", {}).get(SCALING_SIZES[-1][0])
    us = None if big is None else big["us_per_query"].get(rr)
    if big is not None and us is not None:
        out[f"query on {big['bytes'] / 1000:.0f} KB, {big['rules']:,} rules: <= 100 us"] = (
            f"{us:.1f} us (protego {big['us_per_query'][L.BASELINE]:.0f} us)", us <= 100)
    if "adversarial" in d:
        worst = 0.0
        for case in d["adversarial"].values():
            for name in (rr, rrg):
                cell = case["ms_per_query"].get(name)
                if cell is None:
                    continue
                worst = max(worst, float("inf") if cell.startswith(">") else float(cell))
        out["adversarial, worst case: <= 50 ms"] = (f"{worst:.3f} ms", worst <= 50)
    if "memory" in d and rr in d["memory"]:
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
    if "memory" in d and "rss_ratio_after_queries" in d["memory"].get(rr, {}):
        m = d["memory"][rr]
        x, t = m["rss_ratio_after_queries"], m["total_ratio_after_queries"]
        out["retained after queries: <= 2x input (RSS)"] = (
            f"{x:.2f}x (tracemalloc {t:.2f}x)", x <= 2)
    if "import" in d and rr in d["import"]:
        i = d["import"]
        out["import: under protego's"] = (
            f"{i[rr]['median_ms']:.1f} ms (protego {i[L.BASELINE]['median_ms']:.1f} ms)",
            i[rr]["median_ms"] < i[L.BASELINE]["median_ms"])
    return out


def _target_table(cells: dict[str, dict[str, tuple[str, bool]]]) -> list[list[str]]:
    """One row per target any build has; a build without that figure shows "-"."""
    keys = list(dict.fromkeys(k for c in cells.values() for k in c))

    def pair(n: str, key: str) -> tuple[str, str]:
        if key not in cells[n]:
            return "-", "-"
        value, ok = cells[n][key]
        return value, "met" if ok else "MISSED"

    return [[key, *(c for n in cells for c in pair(n, key))] for key in keys]


def targets(suite: Suite, rep: Report) -> None:
    """The issues' targets against this run's figures, per robotrules build."""
    ahead = {rfc.name: _ahead_cells(suite, rep.data, rfc.name) for rfc, _ in suite.builds}
    rows = _target_table(ahead)
    if rows:
        rep.out("## targets: ahead of every library, default dialect")
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
    rows = _target_table(cells)
    if not rows:
        return
    rep.out("## targets: against protego and Google, default dialect unless said")
    rep.out()
    rep.out(table(["target", *(h for n in names for h in (n, "status"))], rows))
    rep.out()
    rep.out("The issue's memory target is the retained size of a parsed file. The '(extra)' "
            "row is ours: it also counts what queries build on first use (group index, "
            "matchers) and the process-wide pattern memo.")
    rep.out()
    rep.data["targets"] = {n: {k: {"value": v, "met": ok} for k, (v, ok) in cells[n].items()}
                           for n in names}
