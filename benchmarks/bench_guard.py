"""The site guard's speed: one decision for a crawler whose checks are cached, and the audit's
log lines per minute on one core (robotrules.guard; issue 23's targets: <= 20 us a decision,
>= 1,000,000 lines a minute).

    python benchmarks/bench_guard.py                  # 200,000 decisions, a 500,000-line log
    python benchmarks/bench_guard.py --lines 2000000 --decisions 1000000

Decisions: the example site's robots.txt (examples/guard_robots.txt), a Googlebot claim from an
address in a fresh published range (verified), GPTBot (disallowed: 403 in enforce mode), an
unknown bot, a browser; paths drawn from 50 (the path memo warm, as on a real site) and, for
the "cold" row, a new path every time; the "odd" row, a new path written with dot segments,
escapes, doubled slashes and a parameter (every form of the target asked). The audit: a
synthetic combined log (crawlers and browsers, 1% malformed) written to a temporary file, read
and tallied by the code ``robotrules audit`` runs. Times are CPU time of this process (one
core), so that other work on a shared machine does not count.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from robotrules.guard import Guard, RangeStore, Tally  # noqa: E402
from robotrules.guard.logs import LogStats, open_log, read_log  # noqa: E402
from robotrules.guard.ranges import parse_list  # noqa: E402
from robotrules.guard.registry import checks_for  # noqa: E402

AGENTS = [
    ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "66.249.66.1"),
    ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; "
     "+https://openai.com/gptbot)", "20.171.207.2"),
    ("Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", "54.36.148.10"),
    ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 "
     "Safari/537.36", "192.0.2.10"),
    ("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "157.55.39.1"),
    ("FooBot/1.0 (+https://foo.example/bot)", "198.51.100.3"),
]


def guard() -> Guard:
    ranges = RangeStore()
    url = checks_for("Googlebot").ranges_url
    assert url is not None
    ranges.add(parse_list('{"prefixes": [{"ipv4Prefix": "66.249.64.0/19"}]}', url=url,
                          fetched=time.time()))
    return Guard(ROOT / "examples" / "guard_robots.txt", mode="enforce", ranges=ranges)


def bench_decisions(n: int) -> None:
    g = guard()
    rng = random.Random(23)
    paths = [f"/blog/{i}" if i % 5 else f"/admin/{i}" for i in range(50)]
    for label, ua, ip in (("verified Googlebot", *AGENTS[0]), ("GPTBot, disallowed", *AGENTS[1]),
                          ("unknown bot", *AGENTS[5]), ("browser", *AGENTS[3])):
        headers = {"user-agent": ua, "host": "site.example", "accept": "*/*"}
        reqs = [paths[rng.randrange(50)] for _ in range(n)]
        for p in reqs[:1000]:
            g.decide("GET", p, headers, ip)
        t = time.process_time()
        for p in reqs:
            g.decide("GET", p, headers, ip)
        dt = time.process_time() - t
        print(f"decide  {label:<22} {dt / n * 1e6:7.2f} us/decision  ({n:,} decisions)")
    headers = {"user-agent": AGENTS[0][0]}

    def each_new(label: str, paths: list[str]) -> None:
        t = time.process_time()
        for p in paths:
            g.decide("GET", p, headers, AGENTS[0][1])
        dt = time.process_time() - t
        print(f"decide  {label:<22} {dt / len(paths) * 1e6:7.2f} us/decision  "
              f"({len(paths):,} decisions)")

    each_new("Googlebot, new paths", [f"/c/{i}/{rng.randrange(10**9)}" for i in range(n // 4)])
    # targets written as attackers write them (dot segments, escapes, doubled slashes): every
    # form of the target is read and asked (robotrules.guard.target), each new
    each_new("Googlebot, odd paths",
             [f"/x/..//%2e/c/{i}/%2E%2E/{rng.randrange(10**9)};p" for i in range(n // 4)])


def write_log(path: str, lines: int) -> None:
    rng = random.Random(9)
    with open(path, "w") as f:
        for i in range(lines):
            if rng.random() < 0.01:
                f.write("a malformed line\n")
                continue
            ua, ip = AGENTS[rng.randrange(len(AGENTS))]
            s = i % 86400
            p = rng.choice(("/", "/blog/one", "/blog/two", "/admin/x", "/private/y",
                            f"/p/{rng.randrange(5000)}", "/robots.txt"))
            f.write(f'{ip} - - [23/Nov/2026:{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d} '
                    f'+0000] "GET {p} HTTP/1.1" 200 {rng.randrange(99999)} "-" "{ua}"\n')


def bench_audit(lines: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "access.log")
        write_log(path, lines)
        g = guard()
        g.mode = "observe"
        tally = Tally()
        stats = LogStats()
        t = time.process_time()
        w = time.perf_counter()
        with open_log(path) as f:
            headers: dict[str, str] = {}
            for rec in read_log(f, stats):
                headers["user-agent"] = rec.user_agent
                tally.add(g.decide(rec.method, rec.path, headers, rec.ip, now=rec.time))
        cpu = time.process_time() - t
        wall = time.perf_counter() - w
    print(f"audit   {stats.lines:,} lines ({stats.malformed:,} malformed) in {cpu:.2f} s CPU "
          f"({wall:.2f} s wall): {stats.lines / cpu * 60:,.0f} lines/min/core")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=200_000)
    ap.add_argument("--lines", type=int, default=500_000)
    a = ap.parse_args()
    import robotrules

    print(f"robotrules {robotrules.__version__}, native kernels: {robotrules.NATIVE}, "
          f"Python {sys.version.split()[0]}")
    bench_decisions(a.decisions)
    bench_audit(a.lines)


if __name__ == "__main__":
    main()
