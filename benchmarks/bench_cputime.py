"""Workloads (p), (c) (on each data set), the line scan and (n) timed in CPU seconds
(``time.process_time``), for a shared machine whose load makes wall-clock rounds unusable:
the time a process is not on a CPU is not counted. Every library is called in this one
process, one after the other per round (the order reversed every other round). Needs
``ROBOTRULES_BEFORE`` (the build to compare with, see bench_builds) and fastrobots and
fast-robotstxt (CPython 3.12: venv312.sh).

    ROBOTRULES_BEFORE=/path/to/old/src .venv312/bin/python benchmarks/bench_cputime.py 7
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_builds
import bench_libs as L
from bench_data import site_files
from bench_report import Report
from workloads.first import cold_sets, data_sets
from workloads.native import bench_native

builds, _ = bench_builds.load()
suite = L.suite(builds)
lean = L.lean_lib(builds[0][1], builds[0][0])
byname = {lib.name: lib for lib in suite.libs}
names = [
    "robotrules",
    "robotrules-before",
    "robotrules[google]",
    "fastrobots",
    L.NZRSKY.name,
    L.GOOGLE.name,
]
libs = [byname[n] for n in names] + [lean]
files = site_files(
    Path(__file__).resolve().parents[2] / "shared" / "corpus" / "sites", None, 20, 9309
)
rounds = int(sys.argv[1])


def spread(theirs: list[float], ours: list[float]) -> str:
    rs = sorted(a / b for a, b in zip(theirs, ours, strict=True))
    return f"{statistics.median(rs):.2f}x ({rs[0]:.2f}-{rs[-1]:.2f})"


for title, pairs in data_sets(files, 9309, 400):
    t = {lib.name: [] for lib in libs}
    for r in range(rounds):
        order = libs if r % 2 else libs[::-1]
        for lib in order:
            if lib.reset:
                lib.reset()
            cold = lib.cold
            t0 = time.process_time()
            for body, q in pairs:
                cold(body, (q,))
            t[lib.name].append(time.process_time() - t0)
    print(f"## {title}: {len(pairs)} files")
    for lib in libs:
        ts = t[lib.name]
        cells = " ".join(f"vs {ref} {spread(t[ref], ts)}" for ref in (
            L.NZRSKY.name, "fastrobots", "robotrules-before"))
        print(f"  {lib.name:30s} {statistics.median(ts) / len(pairs) * 1e6:8.2f} us/file {cells}")
# cold, per library, CPU time, on each data set
for title, cold_pairs in cold_sets(files, 9309, 400):
    t = {lib.name: [] for lib in libs}
    for r in range(rounds):
        for lib in libs if r % 2 else libs[::-1]:
            if lib.reset:
                lib.reset()
            t0 = time.process_time()
            for body, qs in cold_pairs:
                lib.cold(body, qs)
            t[lib.name].append(time.process_time() - t0)
    print(f"## cold (parse + {len(cold_pairs[0][1])} queries), {title}: {len(cold_pairs)} files")
    for lib in libs:
        ts = t[lib.name]
        cells = " ".join(f"vs {ref} {spread(t[ref], ts)}" for ref in (
            "fastrobots", "robotrules-before"))
        per = statistics.median(ts) / len(cold_pairs) * 1e6
        print(f"  {lib.name:30s} {per:8.2f} us/file {cells}")
# line scan
bodies = [f.body for f in files]
parse = builds[0][1].parse
pb = dict(builds)["robotrules-before"].parse
ts = {"count": [], "parse": [], "before": []}
for _ in range(rounds):
    t0 = time.process_time()
    for b in bodies:
        b.count(b"\n")
    ts["count"].append(time.process_time() - t0)
    t0 = time.process_time()
    for b in bodies:
        parse(b)
    ts["parse"].append(time.process_time() - t0)
    t0 = time.process_time()
    for b in bodies:
        pb(b)
    ts["before"].append(time.process_time() - t0)
for k in ("parse", "before"):
    per = statistics.median(ts[k]) / len(bodies) * 1e6
    print(f"line count / {k}: {spread(ts['count'], ts[k])}; {k} {per:.2f} us/file")
print("binding overhead", L.binding_overhead())
# workload (n): nzrsky's fork from C, robotrules' kernel from Cython (bench_native), CPU time
bench_native(builds[0][1], files, rounds, 9309, 400, Report())
