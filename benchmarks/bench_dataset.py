"""Benchmark of the datasets feature: kernel, DuckDB and Spark engines, census.

Measures, on data generated here from the shared corpus of real robots.txt files:

* ingest: WARC response records per second per core (``read_warcs``, one process), against
  robotrules' parse throughput on the same bodies (the WARC reading must not dominate);
* the kernel, one core, on URL batches grouped by origin (files parsed beforehand): URL x agent
  verdicts per second with line, rule and reason; with the usage columns too; the core's plain
  loop (``is_allowed`` per URL and agent) and its batch API alone (``decide_many``) in the same
  run, for the ratios;
* the DuckDB engine end to end (read, origins, join, sort, kernel, Parquet) on 1 and 2 threads
  (with as many kernel processes), each run in its own process for its peak RSS and its kernel
  processes' peak; with ``--spark``, Spark ``local[1]`` and ``local[2]``;
* census: origins per second per core (every crawler of the registry assessed per origin);
* extrapolations: a 50-million-capture crawl and a 3-billion-URL verdict run.

Default sizes finish in a few minutes. The issue's full run is::

    PYTHONPATH=src python benchmarks/bench_dataset.py --origins 100000 --urls 10000000 --spark

Run: ``PYTHONPATH=src python benchmarks/bench_dataset.py [--origins N] [--urls N] [--spark]
[--json out.json]``. Nothing here is asserted; figures go to stdout (and ``--json``). Rates
are per CPU second (``time.process_time``: every thread of the measuring process; the DuckDB
runs add their kernel processes), i.e. per core, whatever else the machine runs; the DuckDB
runs give their wall time too. The plain loop is timed twice: on files parsed beforehand, and
with each origin's file parsed first (``parse(body).is_allowed(url)``, what ``verdicts`` does).
``--crawls DIR`` writes two crawls of ``--origins`` origins for timing ``census`` and
``history`` through the CLI (``/usr/bin/time -v`` for their peak memory).
``--docs-outcomes DIR`` prints the outcome table of docs/datasets.md; ``--examples DIR`` writes
the small example crawl of ``examples/dataset``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' WARC builder, one copy of the fixture code
SHARED = Path(os.environ.get("ROBOTRULES_SHARED", ROOT.parent / "shared"))

AGENTS = ("GPTBot", "Googlebot", "CCBot")
WORDS = ("", "p", "search", "wp-admin", "private", "api", "tag", "cart", "user", "img")


def corpus_bodies(limit: int = 2500) -> list[bytes]:
    sites = SHARED / "corpus" / "sites"
    files = sorted(sites.glob("*.txt"))[:limit] if sites.is_dir() else []
    if not files:
        return [b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n"]
    return [f.read_bytes() for f in files]


#: the group the second crawl of ``--crawls`` appends to a seeded share of the files
AI_BLOCK = b"\n\nUser-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n"


def build_warc(path: Path, origins: int, bodies: list[bytes], rng: random.Random,
               when: str = "2026-09-01T00:00:00Z", changed: float = 0.0) -> int:
    """One capture per origin (90 % 200 with a real body, 5 % 404, 5 % an http->https 301 whose
    target is another origin's 200), fetched at ``when``; a ``changed`` share of the bodies
    gets :data:`AI_BLOCK` appended. Returns the number of response records."""
    import gzip

    from tests.dataset._warcs import Capture, capture_records

    responses = 0
    with open(path, "wb") as f:
        for i in range(origins):
            host = f"site{i}.example"
            roll = rng.random()

            def body() -> bytes:
                got = rng.choice(bodies)
                return got + AI_BLOCK if changed and rng.random() < changed else got

            if roll < 0.05:
                caps = [Capture(f"https://{host}/robots.txt", 404, when=when)]
            elif roll < 0.10:
                caps = [Capture(f"http://{host}/robots.txt", 301, when=when,
                                headers={"Location": f"https://{host}/robots.txt"}),
                        Capture(f"https://{host}/robots.txt", 200, body(), when=when)]
            else:
                caps = [Capture(f"https://{host}/robots.txt", 200, body(), when=when)]
            for c in caps:
                for rec in capture_records(c):
                    f.write(gzip.compress(rec, compresslevel=1))
                responses += 1
    return responses


def build_urls(path: Path, n: int, origins: int, rng: random.Random) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetWriter(path, pa.schema([("url", pa.string())])) as w:
        done = 0
        while done < n:
            k = min(500_000, n - done)
            urls = [f"https://site{rng.randrange(origins)}.example/{rng.choice(WORDS)}/"
                    f"{rng.choice(WORDS)}{rng.randrange(1000)}?q={rng.randrange(9)}"
                    for _ in range(k)]
            w.write_table(pa.table({"url": urls}))
            done += k


def docs_census(out: Path) -> None:
    """The census shown in docs/datasets.md: the shared corpus's real files as crawl
    ``corpus``, and a *synthetic* later crawl ``corpus+ai`` where a seeded 15 % of the sites
    append a group blocking GPTBot, ClaudeBot and CCBot (to show the trend chart; the trend
    is made up, the first crawl is not)."""
    import shutil

    from tests.dataset._warcs import Capture, write_warc

    from robotrules.dataset import read_warcs, run_census

    sites = sorted((SHARED / "corpus" / "sites").glob("*.txt"))
    rng = random.Random(2026)
    first, second = [], []
    block = b"\n\nUser-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n"
    for f in sites:
        url = f"https://{f.stem.lower()}/robots.txt"
        body = f.read_bytes()
        first.append(Capture(url, 200, body, when="2026-09-01T00:00:00Z"))
        later = body + block if rng.random() < 0.15 else body
        second.append(Capture(url, 200, later, when="2026-10-01T00:00:00Z"))
    with tempfile.TemporaryDirectory(prefix="docs-census-") as name:
        tmp = Path(name)
        parquets = []
        for label, caps in (("corpus", first), ("corpus+ai", second)):
            robots = tmp / f"{label}.parquet"
            read_warcs([write_warc(tmp / f"{label}.warc.gz", caps)], robots)
            parquets.append(f"{label}={robots}")
        result = run_census(parquets, tmp / "census", purpose=None)
        out.mkdir(parents=True, exist_ok=True)
        for path in result.files:
            if path.suffix == ".png":
                shutil.copy(path, out / f"datasets-{path.name.replace('+', '-')}")
        import pyarrow.parquet as pq
        for name_ in ("agents", "groups", "outcomes"):
            table = pq.read_table(tmp / "census" / f"{name_}.parquet")
            print(f"## {name_}")
            for row in table.to_pylist():
                print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()
                       if v is not None})


def docs_outcomes() -> None:
    """The outcome table of docs/datasets.md: the shared corpus's sites as a ranked list (in
    file order), each given a seeded fate: no capture, 403, 5xx/429, 404/410/401, a redirect
    whose target is not archived, an HTML page, or its real robots.txt."""
    from tests.dataset._warcs import Capture, write_warc

    from robotrules.dataset import read_warcs
    from robotrules.dataset.outcomes import run_outcomes

    sites = sorted((SHARED / "corpus" / "sites").glob("*.txt"))
    rng = random.Random(22)
    caps, ranks = [], []
    for rank, f in enumerate(sites, start=1):
        host = f.stem.lower()
        ranks.append(f"{rank},{host}\n")
        url = f"https://{host}/robots.txt"
        roll = rng.random()
        if roll < 0.08:
            continue
        if roll < 0.11:
            caps.append(Capture(url, 403))
        elif roll < 0.13:
            caps.append(Capture(url, rng.choice([503, 500, 429])))
        elif roll < 0.23:
            caps.append(Capture(url, rng.choice([404, 404, 410, 401])))
        elif roll < 0.26:
            caps.append(Capture(url, 301, headers={"Location": f"https://lost.{host}/robots.txt"}))
        elif roll < 0.29:
            caps.append(Capture(url, 200, b"<!DOCTYPE html><html><body>Welcome</body></html>",
                                headers={"Content-Type": "text/html"}))
        else:
            caps.append(Capture(url, 200, f.read_bytes()))
    with tempfile.TemporaryDirectory(prefix="docs-outcomes-") as name:
        tmp = Path(name)
        robots = tmp / "robots.parquet"
        read_warcs([write_warc(tmp / "c.warc.gz", caps)], robots)
        (tmp / "ranks.csv").write_text("".join(ranks))
        result = run_outcomes([f"corpus={robots}"], str(tmp / "ranks.csv"), str(tmp / "o.csv"),
                              top=[100, 1000, len(sites)], dates={"corpus": "2026-09-01"})
        print((tmp / "o.csv").read_text())
        print((tmp / "o-rfc9309.csv").read_text())
        del result


def write_examples(out: Path) -> None:
    """examples/dataset: two small crawls (WARC), a URL list and a ranked host list."""
    from tests.dataset._warcs import Capture, write_warc

    out.mkdir(parents=True, exist_ok=True)
    sept, octo = "2026-09-01T00:00:00Z", "2026-10-01T00:00:00Z"
    shop = b"User-agent: *\nDisallow: /cart\nDisallow: /search\nAllow: /search/help\n"
    news1 = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /drafts/\n"
    news2 = (b"User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\n"
             b"Disallow: /drafts/\nContent-Signal: search=yes, ai-train=no\n")
    blog = b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n"
    one = [Capture("https://shop.example/robots.txt", 200, shop, when=sept),
           Capture("https://news.example/robots.txt", 200, news1, when=sept),
           Capture("https://blog.example/robots.txt", 200, blog, when=sept),
           Capture("https://gone.example/robots.txt", 404, when=sept),
           Capture("https://down.example/robots.txt", 503, when=sept),
           Capture("https://private.example/robots.txt", 403, when=sept),
           Capture("https://app.example/robots.txt", 200, b"<html><body>app</body></html>",
                   headers={"Content-Type": "text/html"}, when=sept)]
    two = [Capture("https://shop.example/robots.txt", 200, shop + b"Disallow: /account\n",
                   when=octo),
           Capture("https://news.example/robots.txt", 200, news2, when=octo),
           Capture("https://blog.example/robots.txt", 200, blog, when=octo),
           Capture("https://gone.example/robots.txt", 200, b"User-agent: *\nDisallow: /tmp/\n",
                   when=octo),
           Capture("https://down.example/robots.txt", 200, b"User-agent: *\nDisallow:\n",
                   when=octo),
           Capture("https://private.example/robots.txt", 403, when=octo)]
    write_warc(out / "crawl-1.warc.gz", one)
    write_warc(out / "crawl-2.warc.gz", two)
    paths = ["/", "/cart", "/search?q=shoes", "/search/help", "/drafts/x", "/2026/10/story",
             "/account"]
    hosts = ["shop", "news", "blog", "gone", "down", "private", "app", "nowhere"]
    lines = ["id,url"] + [f"{i},https://{h}.example{p}" for i, (h, p) in
                          enumerate((h, p) for h in hosts for p in paths)]
    (out / "urls.csv").write_text("\n".join(lines) + "\n")
    ranks = ["news", "shop", "blog", "gone", "down", "private", "app", "nowhere", "quiet",
             "other"]
    (out / "ranks.csv").write_text("".join(f"{i},{h}.example\n" for i, h in
                                           enumerate(ranks, start=1)))


def write_crawls(out: Path, origins: int) -> None:
    """Two crawls of the same ``origins`` a month apart, as robots.parquet files: the second
    draws its files again and appends :data:`AI_BLOCK` to a seeded 15 % of them (what
    ``census`` and ``history`` are timed on: every origin in both crawls, many files changed)."""
    from robotrules.dataset import read_warcs

    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(40)
    bodies = corpus_bodies()
    for n, (when, changed) in enumerate((("2026-09-01T00:00:00Z", 0.0),
                                          ("2026-10-01T00:00:00Z", 0.15)), start=1):
        warc = out / f"crawl-{n}.warc.gz"
        responses = build_warc(warc, origins, bodies, rng, when=when, changed=changed)
        secs, stats = timed(read_warcs, [warc], out / f"crawl-{n}.parquet")
        warc.unlink()
        print(f"crawl-{n}: {responses:,} responses, {stats.rows:,} rows in {secs:.1f} s",
              flush=True)


def rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # KiB on Linux


def timed(fn: Any, *args: Any, **kw: Any) -> tuple[float, Any]:
    """``fn``'s CPU seconds (every thread of this process) and its result: a rate per CPU
    second is a rate per core that other jobs on a shared machine do not distort."""
    t = time.process_time()
    out = fn(*args, **kw)
    return time.process_time() - t, out


_ENGINE_RUN = """
import json, resource, sys, time
from robotrules.dataset import run_verdicts
robots, urls, out, threads = sys.argv[1:5]
t, c = time.perf_counter(), time.process_time()
run = run_verdicts([robots], urls, out, {agents!r}, threads=int(threads), usage=False,
                   workers=int(threads), scratch_dir={scratch!r})
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print("BENCH " + json.dumps({{"wall_seconds": time.perf_counter() - t, "parses": run.parses,
                  "seconds": time.process_time() - c + kids.ru_utime + kids.ru_stime,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "workers_peak_rss_mb":
                      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}}))
"""


def kernel_rates(robots: Path, urls: Path, sample: int) -> dict[str, Any]:
    """One core: the kernel on batches grouped by origin, the core's loop and batch API."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    import robotrules
    from robotrules.dataset.captures import choose
    from robotrules.dataset.kernel import RulesCache, evaluate, url_origins

    table = pq.read_table(urls).slice(0, sample)
    chosen = choose(pq.read_table(robots))
    origin = url_origins(table.column("url"))
    table = table.append_column("origin", origin).sort_by("origin")
    idx = pc.index_in(table.column("origin"), value_set=chosen.column("origin"))
    bodies = chosen.column("body").combine_chunks()
    joined = pa.table({
        "url": table.column("url"), "origin": table.column("origin"),
        "robots_outcome": chosen.column("outcome").combine_chunks().take(idx),
        "robots_fetch_time": chosen.column("fetch_time").combine_chunks().take(idx),
        "robots_body": pa.DictionaryArray.from_arrays(idx.combine_chunks(), bodies)})
    batches = joined.to_batches(max_chunksize=65_536)
    parsed = {o: robotrules.parse(b or b"", url=o + "/robots.txt") for o, b, oc in zip(
        chosen.column("origin").to_pylist(), bodies.to_pylist(),
        chosen.column("outcome").to_pylist(), strict=True) if oc == "rules"}
    times = dict(zip(chosen.column("origin").to_pylist(),
                     [t.value for t in chosen.column("fetch_time")], strict=True))
    cache = RulesCache(size=len(parsed) + 1)
    for o, rules in parsed.items():  # parsing is measured apart: the kernel's own cost here
        cache._items[(o, times[o])] = rules
    n = joined.num_rows
    verdicts = n * len(AGENTS)
    out: dict[str, Any] = {"urls": n, "verdicts": verdicts}
    # warm-up: each file builds its per-agent tables on first use (part of its parse cost,
    # like the parse itself kept out of these rates); every rate below is on warm files
    for b in batches:
        evaluate(b, list(AGENTS), cache=cache, usage=True)
    for usage in (False, True):
        secs, _ = timed(lambda u=usage: [evaluate(b, list(AGENTS), cache=cache, usage=u)
                                         for b in batches])
        out["kernel_usage" if usage else "kernel"] = verdicts / secs
    pairs = [(u, parsed.get(o)) for u, o in zip(joined.column("url").to_pylist(),
                                                 joined.column("origin").to_pylist(), strict=True)]
    pairs = [(u, r) for u, r in pairs if r is not None]

    def loop() -> None:
        for u, r in pairs:
            for a in AGENTS:
                r.is_allowed(u, user_agent=a)

    secs, _ = timed(loop)
    out["plain_loop"] = len(pairs) * len(AGENTS) / secs
    # the same loop with each origin's file parsed first, as a script would do it
    # (``parse(body).is_allowed(url)``): the parse and each agent's first use included
    by_origin: dict[str, list[str]] = {}
    for u, o in zip(joined.column("url").to_pylist(), joined.column("origin").to_pylist(),
                    strict=True):
        if o in parsed:
            by_origin.setdefault(o, []).append(u)
    body_of = dict(zip(chosen.column("origin").to_pylist(), bodies.to_pylist(), strict=True))

    def parse_loop() -> None:
        for o, us in by_origin.items():
            r = robotrules.parse(body_of[o] or b"", url=o + "/robots.txt")
            for u in us:
                for a in AGENTS:
                    r.is_allowed(u, user_agent=a)

    secs, _ = timed(parse_loop)
    out["parse_loop"] = len(pairs) * len(AGENTS) / secs
    groups: dict[Any, list[str]] = {}
    for u, r in pairs:
        groups.setdefault(id(r), [r, []])[1].append(u)  # type: ignore[call-overload]

    def batch_api(method: str) -> float:
        t = time.process_time()
        for r, us in groups.values():
            for a in AGENTS:
                getattr(r, method)(us, user_agent=a)
        return len(pairs) * len(AGENTS) / (time.process_time() - t)

    out["decide_many"] = batch_api("decide_many")
    out["usage_many"] = batch_api("usage_many")
    out["native"] = robotrules.NATIVE
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--origins", type=int, default=5_000)
    ap.add_argument("--urls", type=int, default=300_000)
    ap.add_argument("--kernel-sample", type=int, default=300_000,
                    help="URLs of the one-core kernel measurement (default 300,000)")
    ap.add_argument("--spark", action="store_true", help="also Spark local[1] vs local[2]")
    ap.add_argument("--spark-only", action="store_true",
                    help="only the Spark runs (after the ingest), e.g. to add them to a run")
    ap.add_argument("--price", type=float, default=0.05,
                    help="USD per vCPU-hour for the extrapolation (default: 0.05, on-demand "
                         "general-purpose cloud instances are ~0.04-0.05)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--no-census", action="store_true", help="skip the (slow) census timing")
    ap.add_argument("--docs-census", type=Path, default=None, metavar="DIR",
                    help="only write the census charts of docs/datasets.md into DIR")
    ap.add_argument("--docs-outcomes", action="store_true",
                    help="only print the outcome table of docs/datasets.md")
    ap.add_argument("--crawls", type=Path, default=None, metavar="DIR",
                    help="only write two crawls of --origins origins each into DIR "
                         "(crawl-1.parquet, crawl-2.parquet) for timing census and history")
    ap.add_argument("--examples", type=Path, default=None, metavar="DIR",
                    help="only write the example crawl of examples/dataset into DIR")
    args = ap.parse_args()
    if args.docs_census:
        docs_census(args.docs_census)
        return
    if args.docs_outcomes:
        docs_outcomes()
        return
    if args.examples:
        write_examples(args.examples)
        return
    if args.crawls:
        write_crawls(args.crawls, args.origins)
        return

    import subprocess

    import fastwarc.warc  # noqa: F401 - imports are not part of the measured rates
    import pyarrow.parquet as pq

    import robotrules
    from robotrules.dataset import read_warcs, run_census, run_verdicts

    rng = random.Random(14)
    bodies = corpus_bodies()
    res: dict[str, Any] = {"origins": args.origins, "urls": args.urls, "agents": list(AGENTS),
                           "cpus": os.cpu_count(), "python": sys.version.split()[0],
                           "native": robotrules.NATIVE}
    with tempfile.TemporaryDirectory(prefix="bench-dataset-") as name:
        tmp = Path(name)
        warc = tmp / "crawl.warc.gz"
        responses = build_warc(warc, args.origins, bodies, rng)
        robots = tmp / "robots.parquet"
        secs, stats = timed(read_warcs, [warc], robots)
        res["ingest"] = {"responses": responses, "rows": stats.rows, "seconds": secs,
                         "records_per_s_core": responses / secs,
                         "warc_mb": warc.stat().st_size / 1e6}
        table = pq.read_table(robots, columns=["body"])
        got = [b for b in table.column("body").to_pylist() if b]
        secs_p, _ = timed(lambda: [robotrules.parse(b) for b in got])
        res["parse"] = {"bodies": len(got), "seconds": secs_p,
                        "bodies_per_s_core": len(got) / secs_p,
                        "mean_body_bytes": sum(map(len, got)) / max(1, len(got))}
        print(f"ingest: {responses} responses in {secs:.2f} s = "
              f"{responses / secs:,.0f} records/s/core; parse of the same bodies: "
              f"{len(got) / secs_p:,.0f} bodies/s/core", flush=True)

        urls = tmp / "urls.parquet"
        build_urls(urls, args.urls, args.origins, rng)
        verdicts = args.urls * len(AGENTS)

        if args.spark_only:
            args.spark, args.no_census = True, True
        k = ({} if args.spark_only
             else kernel_rates(robots, urls, min(args.kernel_sample, args.urls)))
        res["kernel"] = k
        if k:
            print(f"kernel, 1 core, {k['verdicts']:,} verdicts (native core: {k['native']}): "
                  f"{k['kernel']:,.0f}/s with line, rule, reason; {k['kernel_usage']:,.0f}/s "
                  f"with usage columns; core plain loop (is_allowed) {k['plain_loop']:,.0f}/s, "
                  f"the same with each file parsed first {k['parse_loop']:,.0f}/s, "
                  f"decide_many alone {k['decide_many']:,.0f}/s, usage_many alone "
                  f"{k['usage_many']:,.0f}/s; kernel / plain loop = "
                  f"1/{k['plain_loop'] / k['kernel']:.1f}, with usage "
                  f"1/{k['plain_loop'] / k['kernel_usage']:.1f}", flush=True)

        res["duckdb"] = {}
        code = _ENGINE_RUN.format(agents=list(AGENTS), scratch=str(tmp))
        for threads in () if args.spark_only else (1, 2):
            out = tmp / f"d{threads}.parquet"
            done = subprocess.run([sys.executable, "-c", code, str(robots), str(urls), str(out),
                                   str(threads)], capture_output=True, text=True, check=True)
            r = json.loads(next(line for line in done.stdout.splitlines()
                                if "BENCH " in line).split("BENCH ", 1)[1])
            r["verdicts_per_s"] = verdicts / r["seconds"]
            res["duckdb"][threads] = r
            print(f"duckdb, {threads} thread(s) and kernel process(es): {verdicts:,} verdicts in "
                  f"{r['seconds']:.2f} CPU s (wall {r['wall_seconds']:.1f} s) = "
                  f"{r['verdicts_per_s']:,.0f}/CPU s end to end; "
                  f"{r['parses']} parses; peak RSS {r['peak_rss_mb']:.0f} MB (kernel processes: "
                  f"{r['workers_peak_rss_mb']:.0f} MB each at most)"
                  + (f"; end to end per core / plain loop = 1/"
                     f"{k['plain_loop'] / r['verdicts_per_s']:.1f}, / parse and "
                     f"loop = 1/{k['parse_loop'] / r['verdicts_per_s']:.1f}"
                     if k else ""),
                  flush=True)

        if not args.no_census:
            secs_c, census = timed(run_census, [str(robots)], tmp / "census", workers=1)
            origins_c = sum(census.origins.values())
            res["census"] = {"origins": origins_c, "seconds": secs_c,
                             "origins_per_s_core": origins_c / secs_c}
            print(f"census: {origins_c} origins x {len(robotrules.agents.known_agents())} "
                  f"crawlers in {secs_c:.1f} s = {origins_c / secs_c:,.0f} origins/s/core",
                  flush=True)

        if args.spark:
            from robotrules.dataset.engines import spark_session
            res["spark"] = {}
            for cores in (1, 2):
                session = spark_session(f"local[{cores}]", app=f"bench-{cores}")
                out = tmp / f"spark{cores}.parquet"
                t = time.perf_counter()  # wall: the work runs in the JVM and its workers
                run_verdicts([str(robots)], str(urls), str(out), list(AGENTS), engine="spark",
                             spark=session, usage=False)
                secs_s = time.perf_counter() - t
                session.stop()
                res["spark"][cores] = {"seconds": secs_s, "verdicts_per_s": verdicts / secs_s,
                                       "verdicts_per_s_core": verdicts / secs_s / cores}
                print(f"spark local[{cores}]: {verdicts / secs_s:,.0f} verdicts/s "
                      f"({verdicts / secs_s / cores:,.0f}/s/core, {secs_s:.1f} s incl. job "
                      "start-up)", flush=True)

    # --- extrapolations ----------------------------------------------------------------
    if args.spark_only:
        if args.json:
            args.json.write_text(json.dumps(res, indent=2, default=str))
        return
    captures = 50_000_000
    ingest_ch = captures / res["ingest"]["records_per_s_core"] / 3600
    census_ch = (captures / res["census"]["origins_per_s_core"] / 3600
                 if "census" in res else float("nan"))
    big = 3e9 * len(AGENTS)  # 3 billion URLs x the agents
    kernel_ch = big / k["kernel"] / 3600
    engine_ch = big / res["duckdb"][1]["verdicts_per_s"] / 3600
    res["extrapolation"] = {
        "captures": captures, "price_usd_per_core_hour": args.price,
        "ingest_core_hours": ingest_ch, "census_core_hours": census_ch,
        "verdicts_3e9_urls_kernel_core_hours": kernel_ch,
        "verdicts_3e9_urls_duckdb_core_hours": engine_ch}
    print(f"50M captures: ingest {ingest_ch:,.1f} core-h (${ingest_ch * args.price:,.2f}), "
          f"census {census_ch:,.0f} core-h (${census_ch * args.price:,.0f}); "
          f"3e9 URLs x {len(AGENTS)} agents: kernel {kernel_ch:,.0f} core-h "
          f"(${kernel_ch * args.price:,.0f}), DuckDB end to end on 1 thread {engine_ch:,.0f} "
          f"core-h (${engine_ch * args.price:,.0f}) at ${args.price}/core-h")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, default=str))


if __name__ == "__main__":
    main()
