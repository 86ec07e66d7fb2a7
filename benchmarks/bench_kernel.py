"""The native kernel's own figures (issue 20): every answer against ``is_allowed``, the batch
API against the per-call loop, line ends, and memory for hostile files asked by many agents.

    python benchmarks/bench_kernel.py                 # 300 corpus files x 15 queries
    python benchmarks/bench_kernel.py --files 100 --rounds 3

Ratios come from one run, in one process (medians of ``--rounds``); they are reported, never
asserted. Sections:

- **answers**: on the corpus (files parsed once, warm), the time of ``explain``,
  ``usage`` and ``decide_many`` per URL over ``is_allowed``'s (targets: explain within 3x,
  usage within 5x);
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_data import site_files

import robotrules
from robotrules import _robots

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "sites"


def _best(run: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def answers(files: int, queries: int, rounds: int, corpus: Path) -> dict[str, float]:
    sites = site_files(corpus, files, queries, 15)
    parsed = [(robotrules.parse(s.body), s.queries) for s in sites]
    # the batch API answers many URLs for one agent: per file, each agent with every URL of
    # the file's queries, 8 times over (a crawl frontier or a dataset's rows of one site)
    batches = []
    for rules, qs in parsed:
        urls = [url for _, url in qs] * 8
        batches.append((rules, [(agent, urls) for agent in sorted({a for a, _ in qs})]))
    nb = sum(len(urls) for _, groups in batches for _, urls in groups)
    n = sum(len(qs) for _, qs in parsed)

    def is_allowed() -> None:
        for rules, qs in parsed:
            for agent, url in qs:
                rules.is_allowed(url, user_agent=agent)

    def explain() -> None:
        for rules, qs in parsed:
            for agent, url in qs:
                rules.explain(url, user_agent=agent)

    def usage() -> None:
        for rules, qs in parsed:
            for agent, url in qs:
                rules.usage(url, user_agent=agent)

    def decide_many() -> None:
        for rules, groups in batches:
            for agent, urls in groups:
                rules.decide_many(urls, user_agent=agent)

    def usage_many() -> None:
        for rules, groups in batches:
            for agent, urls in groups:
                rules.usage_many(urls, user_agent=agent)

    def usage_loop() -> None:
        for rules, groups in batches:
            for agent, urls in groups:
                [rules.usage(u, user_agent=agent) for u in urls]

    def explain_loop() -> None:
        for rules, groups in batches:
            for agent, urls in groups:
                [rules.explain(u, user_agent=agent) for u in urls]

    def is_allowed_loop() -> None:
        for rules, groups in batches:
            for agent, urls in groups:
                [rules.is_allowed(u, user_agent=agent) for u in urls]

    for warm in (is_allowed, explain, usage, decide_many, usage_many):
        warm()
    t = {name: _best(f, rounds) / count * 1e6 for name, f, count in (
        ("is_allowed", is_allowed, n), ("explain", explain, n), ("usage", usage, n),
        ("decide_many", decide_many, nb), ("explain_loop", explain_loop, nb),
        ("is_allowed_loop", is_allowed_loop, nb), ("usage_many", usage_many, nb),
        ("usage_loop", usage_loop, nb))}
    prefs = sum(1 for s in sites if re.search(rb"(?i)content[-_ ](usage|signal)", s.body))
    print(f"answers: {len(sites)} files x {queries} queries ({n} URLs; batches: {nb} URLs), "
          f"native={robotrules.NATIVE}")
    for name, us in t.items():
        print(f"  {name:16s} {us:8.3f} us/URL   {us / t['is_allowed']:6.1f}x is_allowed")
    print(f"  explain / is_allowed       {t['explain'] / t['is_allowed']:.1f}x (target <= 3x)")
    print(f"  usage / is_allowed         {t['usage'] / t['is_allowed']:.1f}x (target <= 5x)")
    print(f"  decide_many vs explain loop   {t['explain_loop'] / t['decide_many']:.1f}x "
          "faster (target >= 3x)")
    print(f"  decide_many vs is_allowed loop {t['is_allowed_loop'] / t['decide_many']:.1f}x")
    print(f"  usage_many vs usage loop      {t['usage_loop'] / t['usage_many']:.1f}x "
          f"faster (target >= 3x; {prefs} of the {len(parsed)} files state preferences)")
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
    ap.add_argument("--only", default="answers,line-ends,memory")
    args = ap.parse_args(argv)
    only = set(args.only.split(","))
    if "answers" in only:
        answers(args.files, args.queries, args.rounds, args.corpus)
    if "line-ends" in only:
        line_ends(args.rounds)
    if "memory" in only:
        memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
