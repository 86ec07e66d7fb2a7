"""Benchmark of the datasets feature (issue 14): ingest, verdicts, census, local vs Spark.

Measures, on data generated here from the shared corpus of real robots.txt files:

* ingest: WARC response records per second per core (``read_warcs``, one process), against
  robotrules' parse throughput on the same bodies (the WARC reading must not dominate);
* verdicts: URL x agent verdicts per second with the local engine on 1 and 2 worker processes
  (per core), and, with ``--spark``, Spark ``local[1]`` vs ``local[2]``; peak RSS of the workers;
* census: origins per second per core (every crawler of the registry assessed per origin);
* an extrapolation of a 50-million-capture crawl from the per-core rates.

Default sizes finish in a few minutes on a laptop. The issue's full run (10M URLs over 100k
origins) is::

    PYTHONPATH=src python benchmarks/bench_dataset.py --origins 100000 --urls 10000000 --spark

Run: ``PYTHONPATH=src python benchmarks/bench_dataset.py [--origins N] [--urls N] [--spark]
[--json out.json]``. Nothing here is asserted; figures go to stdout (and ``--json``).
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


def build_warc(path: Path, origins: int, bodies: list[bytes], rng: random.Random) -> int:
    """One capture per origin (90 % 200 with a real body, 5 % 404, 5 % an http->https 301 whose
    target is another origin's 200); returns the number of response records."""
    import gzip

    from tests.dataset._warcs import Capture, capture_records

    responses = 0
    with open(path, "wb") as f:
        for i in range(origins):
            host = f"site{i}.example"
            roll = rng.random()
            if roll < 0.05:
                caps = [Capture(f"https://{host}/robots.txt", 404)]
            elif roll < 0.10:
                caps = [Capture(f"http://{host}/robots.txt", 301,
                                headers={"Location": f"https://{host}/robots.txt"}),
                        Capture(f"https://{host}/robots.txt", 200, rng.choice(bodies))]
            else:
                caps = [Capture(f"https://{host}/robots.txt", 200, rng.choice(bodies))]
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


def rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # KiB on Linux


def timed(fn: Any, *args: Any, **kw: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--origins", type=int, default=5_000)
    ap.add_argument("--urls", type=int, default=300_000)
    ap.add_argument("--spark", action="store_true", help="also Spark local[1] vs local[2]")
    ap.add_argument("--price", type=float, default=0.05,
                    help="USD per vCPU-hour for the extrapolation (default: 0.05, on-demand "
                         "general-purpose cloud instances are ~0.04-0.05)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--no-census", action="store_true", help="skip the (slow) census timing")
    ap.add_argument("--docs-census", type=Path, default=None, metavar="DIR",
                    help="only write the census charts of docs/datasets.md into DIR")
    args = ap.parse_args()
    if args.docs_census:
        docs_census(args.docs_census)
        return

    import fastwarc.warc  # noqa: F401 - imports are not part of the measured rates
    import pandas  # noqa: F401 - pyarrow imports pandas on first conversion when present
    import pyarrow.parquet as pq

    import robotrules
    from robotrules.dataset import read_warcs, run_census, run_verdicts

    rng = random.Random(14)
    bodies = corpus_bodies()
    res: dict[str, Any] = {"origins": args.origins, "urls": args.urls, "agents": list(AGENTS),
                           "cpus": os.cpu_count(), "python": sys.version.split()[0]}
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
        res["local"] = {}
        for workers in (1, 2):
            out = tmp / f"v{workers}.parquet"
            before = rss_mb(resource.RUSAGE_SELF)
            secs_v, run = timed(run_verdicts, [str(robots)], str(urls), str(out), list(AGENTS),
                                workers=workers, usage=False)
            worker_rss = (rss_mb(resource.RUSAGE_CHILDREN) if workers > 1
                          else rss_mb(resource.RUSAGE_SELF))
            res["local"][workers] = {
                "seconds": secs_v, "verdicts_per_s": verdicts / secs_v,
                "verdicts_per_s_core": verdicts / secs_v / workers, "parses": run.parses,
                "buckets": run.buckets, "worker_peak_rss_mb": worker_rss,
                "driver_peak_rss_mb": rss_mb(resource.RUSAGE_SELF), "driver_rss_before": before}
            print(f"local x{workers}: {verdicts:,} verdicts in {secs_v:.1f} s = "
                  f"{verdicts / secs_v:,.0f}/s ({verdicts / secs_v / workers:,.0f}/s/core); "
                  f"worker peak RSS {worker_rss:.0f} MB", flush=True)

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
                secs_s, _ = timed(run_verdicts, [str(robots)], str(urls), str(out),
                                  list(AGENTS), engine="spark", spark=session, usage=False)
                session.stop()
                res["spark"][cores] = {"seconds": secs_s, "verdicts_per_s": verdicts / secs_s,
                                       "verdicts_per_s_core": verdicts / secs_s / cores}
                print(f"spark local[{cores}]: {verdicts / secs_s:,.0f} verdicts/s "
                      f"({verdicts / secs_s / cores:,.0f}/s/core, {secs_s:.1f} s incl. job "
                      "start-up)", flush=True)

    # --- extrapolation: a 50-million-capture crawl --------------------------------------
    captures = 50_000_000
    ingest_ch = captures / res["ingest"]["records_per_s_core"] / 3600
    census_ch = (captures / res["census"]["origins_per_s_core"] / 3600
                 if "census" in res else float("nan"))
    vps = res["local"][1]["verdicts_per_s_core"]
    verdict_ch = 1e9 / vps / 3600  # one billion URL x agent verdicts, a corpus-filtering job
    res["extrapolation"] = {
        "captures": captures, "price_usd_per_core_hour": args.price,
        "ingest_core_hours": ingest_ch, "census_core_hours": census_ch,
        "billion_verdicts_core_hours": verdict_ch,
        "usd": {"ingest": ingest_ch * args.price, "census": census_ch * args.price,
                "billion_verdicts": verdict_ch * args.price}}
    print(f"50M captures: ingest {ingest_ch:,.0f} core-h (${ingest_ch * args.price:,.0f}), "
          f"census {census_ch:,.0f} core-h (${census_ch * args.price:,.0f}); "
          f"1e9 verdicts {verdict_ch:,.0f} core-h (${verdict_ch * args.price:,.0f}) "
          f"at ${args.price}/core-h; wall time on 100 cores: "
          f"{(ingest_ch + census_ch) / 100:.1f} h + {verdict_ch / 100:.1f} h")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, default=str))


if __name__ == "__main__":
    main()
