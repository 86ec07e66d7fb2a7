"""Hostile shapes above the kernel: time and memory per input byte against a benign file.

Each row is one shape a remote site can serve, asked what a crawler, the guard or a
pre-commit hook asks, beside a benign file of the same size asked the same: the time of the
questions (the file parsed beforehand, imports warm), what the parsed file and the process
keep once they are answered (the memos of aipref and the matching layer included) and the
peak while they are (``tracemalloc``: Python objects and the kernel's C memory, which it
allocates through ``PyMem``), each per byte of the body. The shapes:

- ``explain-agents``: 1 MiB, 200 groups naming the same 250 agents, each agent asking
  ``explain`` once (what each agent derives is shared by the agents of one selection);
- ``usage-cu``: 500 KiB of Content-Usage lines (a distinct preference each), ``usage``'s
  first call;
- ``lint-groups``: 8,000 groups naming the same agent, each with a Content-Usage line,
  ``lint``;
- ``lint-cu``: ``lint`` of the 500 KiB of Content-Usage lines;
- ``lint-wild``: 500 KiB of wildcard rules in one group (``/*qN=x*``, ``/*.pN$``), ``lint``:
  each rule is compared with the rules whose literal prefix (here ``/``) is a prefix of its
  own, up to the cap (:func:`robotrules._patterns.deciders`).

``python benchmarks/bench_hostile.py`` (the native peer where built; ``--pure`` the pure
one; ``--rounds R`` the best of R timings).
"""

from __future__ import annotations

import argparse
import functools
import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

import robotrules
from robotrules._robots import reference

KIB = 1024


def _fill(head: str, size: int, line: Callable[[int], str]) -> str:
    out = [head]
    n = len(head)
    j = 0
    while n < size:
        text = line(j)
        out.append(text)
        n += len(text)
        j += 1
    return "".join(out)


def agents_file(size: int = 1024 * KIB, groups: int = 200, agents: int = 250) -> bytes:
    head = "".join(f"User-agent: bot{i:04d}\n" for i in range(agents))
    per = size // groups
    return "".join(_fill(head, per, functools.partial(_rule_of_group, g))
                   for g in range(groups)).encode()


def _rule_of_group(g: int, j: int) -> str:
    return f"Disallow: /g{g}/p{j}/x\n"


def benign_file(size: int) -> bytes:
    return _fill("User-agent: *\n", size, lambda j: f"Disallow: /p{j}/x\n").encode()


def content_usage_file(size: int = 500 * KIB) -> bytes:
    return _fill("User-agent: *\n", size,
                 lambda j: f"Content-Usage: /p{j}/ train-ai=n, search=y, k{j}=y\n").encode()


def wildcards_file(size: int = 500 * KIB) -> bytes:
    return _fill("User-agent: *\n", size, lambda j: f"Disallow: /*q{j}=x*\n" if j % 2
                 else f"Allow: /*.p{j}$\n").encode()


def reopen_file(size: int = 500 * KIB) -> bytes:
    """Half Allow rules that reopen nothing, half Content-Usage lines on disallowed paths: each
    line asks whether any Allow rule lies under its path (L038)."""
    return _fill("User-agent: *\nDisallow: /\n", size, lambda j: f"Allow: /a{j // 2}\n" if j % 2
                 else f"Content-Usage: /q{j // 2}/ train-ai=n\n").encode()


def groups_file(groups: int = 8000) -> bytes:
    return "".join(f"User-agent: samebot\nDisallow: /g{g}\nContent-Usage: /g{g}/a train-ai=n\n\n"
                   for g in range(groups)).encode()


Parse = Callable[[bytes], robotrules.RobotsTxt]


def ask_explain(rules: robotrules.RobotsTxt, body: bytes) -> None:
    for i in range(250):
        rules.explain(f"/g{i % 200}/p1/x", user_agent=f"bot{i:04d}")


def ask_usage(rules: robotrules.RobotsTxt, body: bytes) -> None:
    rules.usage("/p5/x", user_agent="bot")


def ask_lint(rules: robotrules.RobotsTxt, body: bytes) -> None:
    robotrules.lint(body, dialect=rules.dialect)


@dataclass(frozen=True)
class Shape:
    name: str
    body: Callable[[], bytes]
    ask: Callable[[robotrules.RobotsTxt, bytes], None]


SHAPES = (
    Shape("explain-agents", agents_file, ask_explain),
    Shape("usage-cu", content_usage_file, ask_usage),
    Shape("lint-groups", groups_file, ask_lint),
    Shape("lint-cu", content_usage_file, ask_lint),
    Shape("lint-wild", wildcards_file, ask_lint),
    Shape("lint-reopen", reopen_file, ask_lint),
)


def measure(parse: Parse, body: bytes, ask: Callable[[robotrules.RobotsTxt, bytes], None],
            rounds: int) -> tuple[float, int, int]:
    """The best time of ``rounds`` (a fresh parse each), what the file and the process keep
    once it is answered, and the peak while it is (from a fresh parse)."""
    best = float("inf")
    for _ in range(rounds):
        rules = parse(body)
        gc.collect()
        t0 = time.perf_counter()
        ask(rules, body)
        best = min(best, time.perf_counter() - t0)
        del rules
    _forget()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    rules = parse(body)
    ask(rules, body)
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del rules
    return best, kept - before, peak - before


def _forget() -> None:
    """Empty the process-wide memos that the answers fill, so that each row counts what it
    leaves in them (those memos are bounded by bytes; the bound is what a row shows)."""
    from robotrules import _patterns
    from robotrules.aipref import _paths, content_signal, content_usage
    content_usage.PREFERENCES.clear()
    content_signal.SIGNALS.clear()
    _paths.PATTERNS.clear()
    _patterns.PATTERNS.clear()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--pure", action="store_true", help="the pure peer (robotrules.reference)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated shape names")
    args = ap.parse_args(argv)
    parse: Parse = reference if args.pure else robotrules.parse
    warm = content_usage_file(4 * KIB)  # imports (aipref, http-sf) paid before any timing
    ask_usage(parse(warm), warm)
    ask_lint(parse(warm), warm)
    peer = "pure" if args.pure or not robotrules.NATIVE else "native"
    print(f"peer: {peer}; best of {args.rounds}; time in ms per KiB, kept and peak in bytes per "
          "byte; x: the shape over the benign file")
    print(f"{'shape':<16}{'bytes':>9}{'time s':>8}{'ms/KiB':>8}{'kept/B':>8}{'peak/B':>8}"
          f"{'benign s':>9}{'ms/KiB':>8}{'kept/B':>8}{'peak/B':>8}"
          f"{'time x':>8}{'kept x':>8}{'peak x':>8}")
    only = {s for s in args.only.split(",") if s}
    for shape in SHAPES:
        if only and shape.name not in only:
            continue
        body = shape.body()
        t, kept, peak = measure(parse, body, shape.ask, args.rounds)
        benign = benign_file(len(body))
        bt, bkept, bpeak = measure(parse, benign, shape.ask, args.rounds)
        kib = len(body) / KIB
        n = len(body)
        print(f"{shape.name:<16}{n:>9}{t:>8.3f}{1000 * t / kib:>8.3f}{kept / n:>8.2f}"
              f"{peak / n:>8.2f}{bt:>9.3f}{1000 * bt / kib:>8.3f}{bkept / n:>8.2f}"
              f"{bpeak / n:>8.2f}{t / bt:>8.1f}{kept / max(bkept, 1):>8.1f}"
              f"{peak / max(bpeak, 1):>8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
