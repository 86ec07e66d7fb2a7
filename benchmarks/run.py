"""robotrules benchmark: one command, every workload, every library side by side.

    python benchmarks/run.py                 # full run (about 5-10 minutes on 2 cores)
    python benchmarks/run.py --quick         # about 1.5 minutes: a sample of the corpus
    python benchmarks/run.py --only a,b      # some workloads only
    python benchmarks/run.py --json out.json --markdown docs/benchmarks.md

Workloads: (a) parse throughput, (b) warm queries, (c) cold crawler workload (parse + 20
queries per file), (d) memory retained per parsed file, (e) scaling on synthetic 5/50/500 KB
files and a 500 KB file of the worst shapes, (f) adversarial wildcard rules against long URLs,
(n) parse + first query and the cold
workload with nzrsky's C++ fork and robotrules' kernel each called from native code (compiled
by the run; skipped, saying why, without a compiler or fast-robotstxt), (g) the matcher's worst
realistic shapes (shared short literals, copies, 8 KB and 64 KB paths)
beside protego and fastrobots, (i) import time. Both robotrules builds (the installed one,
native when compiled, and the pure-Python core) are measured; fastrobots when it imports
(CPython 3.12). Answers are checked against Google's C++ matcher on the same queries (section
"agreement"). See benchmarks/README.md.

This module is the command line only: each workload lives in `workloads/` (one module per
workload), the shared timing in `bench_harness`, the agreement check in `bench_agreement`, the
printed report, header and targets in `bench_report`.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import bench_builds
import bench_libs as L
from bench_data import SiteFile, site_files
from bench_report import Report, header, targets
from workloads.adversarial import bench_adversarial
from workloads.cold import bench_cold
from workloads.first import bench_first
from workloads.imports import bench_import
from workloads.memory import bench_memory
from workloads.native import bench_native
from workloads.parse import bench_parse
from workloads.scaling import bench_scaling
from workloads.warm import bench_warm
from workloads.worst import bench_worst

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "sites"
WORKLOADS = ("a", "b", "c", "p", "n", "d", "e", "f", "g", "i")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--quick", action="store_true", help="a sample of the corpus, fewer rounds")
    p.add_argument("--only", default=",".join(WORKLOADS),
                   help="comma-separated workloads among a,b,c,p,n,d,e,f,g,i (default: all)")
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
    p.add_argument("--generated", type=int, default=400,
                   help="(p): generated files (300 B to 30 KB)")
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
    lean = (L.lean_lib(builds[0][1], builds[0][0]) if bench_builds.is_native(builds[0][1])
            else None)
    rep = Report()
    header(suite, note, any(bench_builds.is_native(m) for _, m in builds), args, rep, command)
    t_start = time.perf_counter()
    files: list[SiteFile] = []
    if only & {"a", "b", "c", "p", "n", "d"}:
        files = site_files(args.corpus, files_n, args.queries, args.seed)
        if not files:
            p.error(f"no *.txt files in {args.corpus}")
    steps: dict[str, Callable[[], None]] = {
        "a": lambda: bench_parse(suite, files, rounds, rep),
        "b": lambda: bench_warm(suite, files, rounds, rep),
        "c": lambda: bench_cold(suite, files, rounds, rep),
        "p": lambda: bench_first(suite, files, rounds, args.seed, args.generated, lean, rep),
        "n": lambda: bench_native(builds[0][1], files, rounds, args.seed, args.generated, rep),
        "d": lambda: bench_memory(suite, files, rep,
                                  (args.corpus, files_n, args.queries, args.seed), lean),
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
