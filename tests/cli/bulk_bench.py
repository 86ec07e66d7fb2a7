"""Throughput and peak memory of ``robotrules bulk`` on many local origins (not a test).

    python tests/cli/bulk_bench.py --urls 100000 --ips 250 --ports 4 --concurrency 64

Starts many_origins.py (origins = loopback address x port, all this machine), writes the URL
file, runs the CLI as a user would and prints URLs/s and the CLI's peak RSS (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--urls", type=int, default=100_000)
    ap.add_argument("--ips", type=int, default=250)
    ap.add_argument("--ports", type=int, default=4)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--agents", default="Googlebot,GPTBot")
    args = ap.parse_args()
    server = subprocess.Popen([sys.executable, str(HERE / "many_origins.py"), "--ips",
                               str(args.ips), "--ports", str(args.ports)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    assert server.stdin is not None
    origins: list[str] = json.loads(server.stdout.readline())
    paths = ["/", "/private/x", "/private/ok", "/a/b?q=1", "/blog/2024/post"]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "urls.txt"
        k = len(origins)
        with src.open("w") as fh:
            for i in range(args.urls):
                fh.write(f"{origins[i % k]}{paths[(i // k) % len(paths)]}?i={i}\n")
        out = Path(tmp) / "out.csv"
        # a private cache: bulk shares check's SQLite cache by default, and a second run
        # would otherwise read what the first one stored
        env = dict(os.environ, PYTHONPATH=str(SRC), NO_PROXY="*", XDG_CACHE_HOME=tmp)
        cmd = [sys.executable, "-m", "robotrules.cli", "bulk", str(src), "--concurrency",
               str(args.concurrency), "--summary", str(Path(tmp) / "s.jsonl")]
        for a in args.agents.split(","):
            cmd += ["--agent", a]
        t0 = time.perf_counter()
        with out.open("w") as fh:
            p = subprocess.run(cmd, stdout=fh, stderr=subprocess.PIPE, text=True, env=env,
                               check=False)
        dt = time.perf_counter() - t0
        rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        rows = sum(1 for _ in out.open()) - 1
        server.stdin.write("stats\n")
        server.stdin.flush()
        hits = json.loads(server.stdout.readline())
    server.stdin.close()
    server.wait()
    print(p.stderr.splitlines()[-1] if p.stderr else "", file=sys.stderr)
    print(json.dumps({
        "urls": args.urls, "origins": k, "agents": len(args.agents.split(",")), "rows": rows,
        "exit": p.returncode, "seconds": round(dt, 2), "urls_per_s": round(args.urls / dt),
        "peak_rss_mib": round(rss_kib / 1024, 1), "robots_requests": sum(hits.values()),
        "max_requests_per_origin": max(hits.values()) if hits else 0,
    }))


if __name__ == "__main__":
    main()
