"""Load workload (issue 12): the web tester under the CPU attack, on 127.0.0.1 only.

    python benchmarks/bench_web_load.py [--clients 40] [--rounds 1]

Starts ``robotrules serve``'s app under uvicorn in a child process on a free loopback port,
sends ``--clients`` concurrent heavy requests (the issue's legal 977 KB ``/api/check`` of
38,000 ``Disallow: /*ba`` lines, 45 URLs of 8 KB and 50 agents, mixed with lint requests of a
950 KB file), and meanwhile times ``GET /`` every 50 ms from a separate process. Reports the
statuses of the heavy requests and the page's latency (median, 95th percentile, maximum).
Bounded: every request has a timeout and the run stops by itself.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx

ATTACK = {
    "robots_txt": "User-agent: *\n" + "Disallow: /*ba\n" * 38_000,
    "urls": [f"/{i:02d}" + "a" * 8189 for i in range(45)],
    "agents": [f"Bot{i}" for i in range(50)],
    "dialect": "rfc9309",
}

_SERVER = (
    "import socket, sys, uvicorn\n"
    "from robotrules.web import create_app\n"
    "sock = socket.socket(); sock.bind(('127.0.0.1', 0)); sock.listen(128)\n"
    "print(sock.getsockname()[1], flush=True)\n"
    "uvicorn.Server(uvicorn.Config(create_app(), log_level='warning', access_log=False,"
    " lifespan='on')).run(sockets=[sock])\n"
)
_WATCHER = (
    "import sys, time, httpx, threading\n"
    "url = sys.argv[1]; times = []; stop = threading.Event()\n"
    "def watch():\n"
    "    with httpx.Client(timeout=10) as c:\n"
    "        while not stop.is_set():\n"
    "            t = time.monotonic(); c.get(url); times.append(time.monotonic() - t)\n"
    "            time.sleep(0.05)\n"
    "th = threading.Thread(target=watch); th.start(); print('ready', flush=True)\n"
    "sys.stdin.readline(); stop.set(); th.join(); print(' '.join(f'{t:.4f}' for t in times))\n"
)


def lint_file(size: int = 950_000) -> dict[str, str]:
    rng = random.Random(2)
    lines = ["User-agent: *"]
    total = 0
    while total < size:
        line = rng.choice([f"Disallow: /*{rng.randrange(10**6)}",
                           f"Allow: /a{rng.randrange(10**8)}/b",
                           f"Disallow: /d{rng.randrange(10**8)}"])
        lines.append(line)
        total += len(line) + 1
    return {"robots_txt": "\n".join(lines), "dialect": "rfc9309"}


def run(clients: int) -> dict[str, object]:
    server = subprocess.Popen([sys.executable, "-c", _SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{int(server.stdout.readline())}"
        for _ in range(200):
            try:
                httpx.get(base + "/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        watcher = subprocess.Popen([sys.executable, "-c", _WATCHER, base + "/"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert watcher.stdout is not None
        watcher.stdout.readline()
        attack = json.dumps(ATTACK).encode()
        lint = json.dumps(lint_file()).encode()
        statuses: list[int] = []
        started = time.monotonic()
        with httpx.Client(timeout=60, limits=httpx.Limits(max_connections=clients)) as c:
            def heavy(i: int) -> None:
                path, body = ("/api/lint", lint) if i % 4 == 0 else ("/api/check", attack)
                statuses.append(c.post(base + path, content=body,
                                       headers={"content-type": "application/json"}).status_code)
            with ThreadPoolExecutor(max_workers=clients) as pool:
                list(pool.map(heavy, range(clients), timeout=180))
        elapsed = time.monotonic() - started
        out, _ = watcher.communicate("stop\n", timeout=30)
        page = sorted(float(t) for t in out.split())
        return {"clients": clients, "seconds": round(elapsed, 2),
                "statuses": dict(Counter(statuses)),
                "page_answers": len(page),
                "page_median_s": round(statistics.median(page), 4),
                "page_p95_s": round(page[int(len(page) * 0.95) - 1], 4),
                "page_max_s": round(page[-1], 4)}
    finally:
        server.terminate()
        server.wait(timeout=15)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=40)
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args()
    for _ in range(args.rounds):
        print(json.dumps(run(args.clients)))


if __name__ == "__main__":
    main()
