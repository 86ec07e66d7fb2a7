"""The native kernel's own figures: every answer against ``is_allowed``, the batch
API against the per-call loop, line ends, and memory for hostile files asked by many agents.

    python benchmarks/bench_kernel.py                 # 300 corpus files x 15 queries
    python benchmarks/bench_kernel.py --files 100 --rounds 3
    ROBOTRULES_BEFORE=/tmp/old/src python benchmarks/bench_kernel.py --only answers --rounds 9

Ratios come from one run, in one process (medians of ``--rounds``); they are reported, never
asserted. Sections:

- **answers**: on the corpus (files parsed once, warm), the CPU time of ``explain`` and
  ``usage`` per URL over ``is_allowed``'s (targets: explain within 3x, usage within 5x), with
  the queries' bare product tokens, with full User-Agent headers, and on the same files
  with a Content-Usage and a Content-Signal line appended; per build: the installed one and,
  with ``ROBOTRULES_BEFORE=DIR``, another checkout's native build in the same run;
- **batch**: ``decide_many(urls)`` against the loop ``[explain(u) for u in urls]`` it equals,
  and against the ``is_allowed`` loop; ``usage_many(urls)`` against the ``usage`` loop
  (target: at least 3x the per-call loop);
- **line ends**: parsing 120,000 rules with CR-only and mixed line ends over LF (linear: near 1);
- **memory**: a 1 MiB file whose big group is named together with 100 small groups, asked by
  100 agents twice: what the parsed file keeps, over the body's size (``tracemalloc``; the
  bound of docs/architecture.md), for the native kernel and the pure peer.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_builds
from bench_data import site_files

# the builds are chosen before anything imports robotrules (ROBOTRULES_BEFORE adds another
# checkout's native build, measured in the same run)
BUILDS, BUILDS_NOTE = bench_builds.load()
import robotrules  # noqa: E402
from robotrules import _robots  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "sites"


def _best(run: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _header(agent: str) -> str:
    """A crawler's full User-Agent header for the product token ``agent``, in the form the
    registry's crawlers send (``Mozilla/5.0 (compatible; Token/1.0; +url)``)."""
    return f"Mozilla/5.0 (compatible; {agent}/1.0; +https://example.com/bot.html)"


#: appended to each file of the "prefs" variant (the corpus states no AI preferences): the
#: last group gains a Content-Usage rule and a Content-Signal line (AIPREF attach draft,
#: Cloudflare's Content Signals)
PREFS = b"\nContent-Usage: /private/ train-ai=n\nContent-Signal: search=yes, ai-train=no\n"
Pairs = list[tuple[object, str, str]]


def _answer_times(pairs: Pairs, rounds: int) -> dict[str, list[float]]:
    """CPU seconds per URL of each round of is_allowed, explain and usage over ``pairs``."""
    def run(method: str) -> float:
        t = time.process_time()
        for rules, agent, url in pairs:
            getattr(rules, method)(url, user_agent=agent)
        return (time.process_time() - t) / len(pairs)

    for method in ("is_allowed", "explain", "usage"):
        run(method)  # warm: what each answer derives on first use is made
    out: dict[str, list[float]] = {"is_allowed": [], "explain": [], "usage": []}
    for _ in range(rounds):
        for method in out:
            out[method].append(run(method))
    return out


def answer_ratios(builds: list[tuple[str, ModuleType]], files: int, queries: int, rounds: int,
                  corpus: Path) -> dict[str, dict[str, dict[str, float]]]:
    """explain and usage over is_allowed, per build and variant (the corpus's queries with
    bare product tokens, the same with full User-Agent headers, and both on the files with
    preference lines appended), in CPU seconds, builds alternating round by round."""
    sites = site_files(corpus, files, queries, 15)
    variants: dict[str, Callable[[ModuleType], Pairs]] = {
        "tokens": lambda m: [(r, a, u) for s in sites for r in (m.parse(s.body),)
                             for a, u in s.queries],
        "headers": lambda m: [(r, _header(a), u) for s in sites for r in (m.parse(s.body),)
                              for a, u in s.queries],
        "prefs": lambda m: [(r, agent, u) for s in sites for r in (m.parse(s.body + PREFS),)
                            for a, u in s.queries for agent in (a, _header(a))],
    }
    out: dict[str, dict[str, dict[str, float]]] = {}
    print(f"answers (CPU time, median of {rounds} rounds, builds alternating): {len(sites)} "
          f"files x {queries} queries; explain target <= 3x, usage <= 5x of is_allowed")
    for variant, make in variants.items():
        made = [(label, make(module)) for label, module in builds]
        got: dict[str, dict[str, list[float]]] = {label: {} for label, _ in builds}
        for _ in range(rounds):
            for label, pairs in made:
                for method, t in _answer_times(pairs, 1).items():
                    got[label].setdefault(method, []).extend(t)
        for label, _ in builds:
            med = {m: statistics.median(t) for m, t in got[label].items()}
            ratio = {m: [e / i for e, i in zip(got[label][m], got[label]["is_allowed"],
                                               strict=True)]
                     for m in ("explain", "usage")}
            out.setdefault(label, {})[variant] = {
                "is_allowed_ns": med["is_allowed"] * 1e9,
                "explain_x": statistics.median(ratio["explain"]),
                "usage_x": statistics.median(ratio["usage"])}
            print(f"  {variant:8s} {label:18s} is_allowed {med['is_allowed'] * 1e9:6.0f} ns   "
                  f"explain {statistics.median(ratio['explain']):4.2f}x "
                  f"({min(ratio['explain']):.2f}-{max(ratio['explain']):.2f})   "
                  f"usage {statistics.median(ratio['usage']):4.2f}x "
                  f"({min(ratio['usage']):.2f}-{max(ratio['usage']):.2f})")
    return out


def batch(files: int, queries: int, rounds: int, corpus: Path) -> dict[str, float]:
    """The batch API against the per-call loops it equals (wall clock, the installed build):
    per file, each agent with every URL of the file's queries, 8 times over (a crawl
    frontier or a dataset's rows of one site)."""
    sites = site_files(corpus, files, queries, 15)
    batches = []
    for s in sites:
        rules = robotrules.parse(s.body)
        urls = [url for _, url in s.queries] * 8
        batches.append((rules, [(agent, urls) for agent in sorted({a for a, _ in s.queries})]))
    nb = sum(len(urls) for _, groups in batches for _, urls in groups)

    def each(call: Callable[[robotrules.RobotsTxt, str, list[str]], object]) -> Callable[[], None]:
        def run() -> None:
            for rules, groups in batches:
                for agent, urls in groups:
                    call(rules, agent, urls)
        return run

    runs = {
        "decide_many": each(lambda r, a, us: r.decide_many(us, user_agent=a)),
        "explain_loop": each(lambda r, a, us: [r.explain(u, user_agent=a) for u in us]),
        "is_allowed_loop": each(lambda r, a, us: [r.is_allowed(u, user_agent=a) for u in us]),
        "usage_many": each(lambda r, a, us: r.usage_many(us, user_agent=a)),
        "usage_loop": each(lambda r, a, us: [r.usage(u, user_agent=a) for u in us]),
    }
    for run in runs.values():
        run()  # warm
    t = {name: _best(run, rounds) / nb * 1e6 for name, run in runs.items()}
    prefs = sum(1 for s in sites if re.search(rb"(?i)content[-_ ](usage|signal)", s.body))
    print(f"batch: {len(sites)} files, {nb} URLs in batches, native={robotrules.NATIVE}")
    for name, us in t.items():
        print(f"  {name:16s} {us:8.3f} us/URL")
    print(f"  decide_many vs explain loop    {t['explain_loop'] / t['decide_many']:.1f}x "
          "faster (target >= 3x)")
    print(f"  decide_many vs is_allowed loop {t['is_allowed_loop'] / t['decide_many']:.1f}x")
    print(f"  usage_many vs usage loop       {t['usage_loop'] / t['usage_many']:.1f}x "
          f"faster (target >= 3x; {prefs} of the {len(sites)} files state preferences)")
    return t


def line_ends(rounds: int) -> dict[str, float]:
    out = {}
    rules = [b"Disallow: /p%d/" % i for i in range(120_000)]
    robotrules.parse(b"\n".join(rules), "google").is_allowed("/x")  # warm-up
    for name, eol in (("LF", b"\n"), ("CR", b"\r"), ("CRLF", b"\r\n"), ("mixed", b"\n\r")):
        body = b"User-agent: *" + eol + eol.join(rules) + eol
        out[name] = _best(lambda body=body: robotrules.parse(body, "google").is_allowed("/x"),
                          rounds)
    print("line ends: 120,000 rules, parse + one query, over LF")
    for name, s in out.items():
        print(f"  {name:6s} {s * 1e3:8.1f} ms  {s / out['LF']:5.2f}x")
    return out


def memory() -> dict[str, float]:
    agents = [b"bot" + bytes([97 + i % 26, 97 + i // 26]) for i in range(100)]
    big = b"".join(b"Disallow: /p%d/*x%d\n" % (i, i) for i in range(50_000))
    body = b"".join(b"User-agent: %s\n" % a for a in agents) + big + b"".join(
        b"User-agent: %s\nDisallow: /s%d\n\n" % (a, i) for i, a in enumerate(agents))
    out = {}
    for name, make, rounds in (("native", robotrules.parse, 2),
                               ("pure", _robots.reference, 1)):
        if name == "native" and not robotrules.NATIVE:
            continue
        tracemalloc.start()
        rules = make(body, "google")
        base = tracemalloc.get_traced_memory()[0]
        t = time.perf_counter()
        asked = agents * rounds if name == "native" else agents[:12]
        for a in asked:
            rules.is_allowed("/p7/ax7", user_agent=a.decode())
        elapsed = time.perf_counter() - t
        kept = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        out[name] = kept / len(body)
        print(f"memory ({name}): {len(body) / 2**20:.2f} MiB body, {len(asked)} queries by "
              f"{len(set(asked))} agents: keeps {kept / len(body):.1f}x the body "
              f"(parse {base / len(body):.1f}x, queries {elapsed:.1f} s)")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--queries", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--only", default="answers,batch,line-ends,memory")
    args = ap.parse_args(argv)
    only = set(args.only.split(","))
    if "answers" in only:
        print(BUILDS_NOTE)
        native = [(label, m) for label, m in BUILDS if label != bench_builds.PURE_LABEL]
        answer_ratios(native, args.files, args.queries, args.rounds, args.corpus)
    if "batch" in only:
        batch(args.files, args.queries, args.rounds, args.corpus)
    if "line-ends" in only:
        line_ends(args.rounds)
    if "memory" in only:
        memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
