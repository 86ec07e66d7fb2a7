"""Load workloads of the web tester, on 127.0.0.1 only.

    python benchmarks/bench_web_load.py [--workload load] [--seconds 30] [--clients 200]
    python benchmarks/bench_web_load.py --workload attack [--clients 40] [--rounds 1]

Both start the tester's app under uvicorn in a child process on a free loopback port (the
socket made by ``robotrules serve``'s own ``bind``) and stop it afterwards.

``load`` (the default): Apache Bench (``ab``, Debian's ``apache2-utils``) posts the
realistic request to ``/api/check``: a 5.5 KB robots.txt of a typical site (five groups,
sitemaps, a few wildcard rules; made here, deterministic) with 15 URLs x 2 agents = 30 queries,
which the work estimate calls cheap (answered in the server process, no worker). Phase 1 runs
it alone with ``ab -c CLIENTS -t SECONDS``; phase 2 runs it again while a second ``ab`` posts
a costly check (the same file with 2,000 more wildcard rules, 100 URLs x 5 agents: queued
for a worker process) at ``-c COSTLY_CLIENTS``. For each kind it reports requests per second,
ab's failed requests and the count of each HTTP status (read from ``ab -v 2``'s log).

``attack``: ``--clients`` concurrent heavy requests (the legal 977 KB
``/api/check`` of 38,000 ``Disallow: /*ba`` lines, 45 URLs of 8 KB and 50 agents, mixed with
lint requests of a 950 KB file), while ``GET /`` is timed every 50 ms from a separate
process: the statuses of the heavy requests and the page's latency (median, p95, max).

Bounded: ab stops after ``--seconds``; every other request has a timeout.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

ATTACK = {
    "robots_txt": "User-agent: *\n" + "Disallow: /*ba\n" * 38_000,
    "urls": [f"/{i:02d}" + "a" * 8189 for i in range(45)],
    "agents": [f"Bot{i}" for i in range(50)],
    "dialect": "rfc9309",
}

_SERVER = (
    "import uvicorn\n"
    "from robotrules.web import create_app\n"
    "from robotrules.web._serve import bind\n"
    "sock = bind('127.0.0.1', 0)\n"
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


def realistic_file(size: int = 5_500) -> str:
    """A typical site's robots.txt of about ``size`` bytes: groups for all crawlers, Googlebot,
    Bingbot, two AI crawlers, prefix rules with a few wildcards, sitemaps."""
    rng = random.Random(25)
    sections = ["account", "cart", "checkout", "search", "api", "admin", "tmp", "print",
                "compare", "wishlist", "login", "preview", "internal", "feeds", "tag"]
    head = ["# robots.txt for www.shop.example", ""]
    groups = []
    for agent in ("*", "Googlebot", "Bingbot"):
        lines = [f"User-agent: {agent}"]
        for section in sections:
            lines.append(f"Disallow: /{section}/")
            lines.append(f"Allow: /{section}/help/")
        lines += ["Disallow: /*?sessionid=", "Disallow: /*.pdf$", "Disallow: /*&sort=",
                  "Allow: /*.css$", "Allow: /*.js$"]
        groups.append(lines)
    groups.append(["User-agent: GPTBot", "User-agent: CCBot", "Disallow: /"])
    text = "\n".join(head + [line for g in groups for line in [*g, ""]])
    while len(text) < size - 60:
        text += f"Disallow: /{rng.choice(sections)}/{rng.randrange(10**6)}/\n"
    text += "\nSitemap: https://www.shop.example/sitemap.xml\n"
    return text


def cheap_request() -> dict[str, Any]:
    urls = ["/", "/products/shoes/red-sneaker-42.html", "/cart/view", "/checkout/help/faq",
            "/search?q=boots&sort=price", "/docs/catalogue-2025.pdf", "/static/site.css",
            "/account/orders?sessionid=8a7f", "/blog/2025/11/launch", "/tag/sale/",
            "/api/v2/stock?id=7", "/print/order/17", "/compare?ids=1,2,3", "/help/returns",
            "/feeds/products.xml"]
    return {"robots_txt": realistic_file(), "urls": urls, "agents": ["Googlebot", "GPTBot"],
            "dialect": "rfc9309"}


def costly_request() -> dict[str, Any]:
    rng = random.Random(26)
    extra = "".join(f"Disallow: /*{rng.randrange(10**6)}*x\n" for _ in range(2_000))
    return {"robots_txt": realistic_file() + "User-agent: *\n" + extra,
            "urls": [f"/products/item-{i}/" + "p" * 80 for i in range(100)],
            "agents": ["Googlebot", "GPTBot", "Bingbot", "CCBot", "ClaudeBot"],
            "dialect": "rfc9309"}


class Server:
    """The tester in a child process on a free 127.0.0.1 port."""

    def __enter__(self) -> str:
        self.process = subprocess.Popen([sys.executable, "-c", _SERVER], stdout=subprocess.PIPE,
                                        text=True)
        assert self.process.stdout is not None
        base = f"http://127.0.0.1:{int(self.process.stdout.readline())}"
        for _ in range(200):
            try:
                httpx.get(base + "/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        return base

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=15)


def ab_command(url: str, body: Path, clients: int, seconds: int) -> list[str]:
    return ["ab", "-v", "2", "-r", "-l", "-c", str(clients), "-t", str(seconds), "-s", "30",
            "-p", str(body), "-T", "application/json", url]


def read_ab(lines: Iterable[str]) -> dict[str, Any]:
    """Requests per second, failures and status counts from ``ab -v 2``'s output, read as
    it streams (the log holds every response's head and start, megabytes a second)."""
    statuses: Counter[int] = Counter()
    tail: deque[str] = deque(maxlen=120)  # the summary comes last
    expect_status = False
    for line in lines:
        if expect_status:
            m = re.match(r"HTTP/1\.[01] (\d{3})", line)
            if m:
                statuses[int(m.group(1))] += 1
        expect_status = line.startswith("LOG: header received:")
        tail.append(line)
    summary = "".join(tail)

    def number(label: str) -> float:
        m = re.search(rf"^{label}:\s+([0-9.]+)", summary, re.MULTILINE)
        return float(m.group(1)) if m else 0.0
    return {"requests": int(number("Complete requests")),
            "requests_per_s": number("Requests per second"),
            "failed": int(number("Failed requests")),
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "mean_ms_per_request": number(r"Time per request"),
            }


def run_ab(commands: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Run the ab commands at once; each one's figures by name."""
    procs = {name: subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, errors="replace")
             for name, cmd in commands.items()}
    results: dict[str, dict[str, Any]] = {}

    def read(name: str) -> None:
        stdout = procs[name].stdout
        assert stdout is not None
        results[name] = read_ab(stdout)
    readers = [threading.Thread(target=read, args=(name,)) for name in procs]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(timeout=600)
    for proc in procs.values():
        proc.wait(timeout=60)
    return results


def run_load(seconds: int, clients: int, costly_clients: int) -> dict[str, Any]:
    if shutil.which("ab") is None:
        raise SystemExit("the load workload needs Apache Bench: apt-get install apache2-utils")
    with tempfile.TemporaryDirectory() as tmp, Server() as base:
        cheap = Path(tmp) / "cheap.json"
        cheap.write_text(json.dumps(cheap_request()))
        costly = Path(tmp) / "costly.json"
        costly.write_text(json.dumps(costly_request()))
        url = base + "/api/check"
        alone = run_ab({"cheap": ab_command(url, cheap, clients, seconds)})
        mixed = run_ab({"cheap": ab_command(url, cheap, clients, seconds),
                        "costly": ab_command(url, costly, costly_clients, seconds)})
    return {"seconds": seconds, "cheap_bytes": len(cheap_request()["robots_txt"]),
            "cheap_queries": 30, "cheap_alone": alone["cheap"],
            "mixed": mixed, "ab": " ".join(ab_command("URL", Path("BODY.json"), clients,
                                                      seconds))}


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


def run_attack(clients: int) -> dict[str, object]:
    with Server() as base:
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


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--workload", choices=("load", "attack"), default="load")
    p.add_argument("--seconds", type=int, default=30, help="load: ab's time limit per phase")
    p.add_argument("--clients", type=int, default=None,
                   help="concurrent clients (load: 200 cheap; attack: 40)")
    p.add_argument("--costly-clients", type=int, default=20,
                   help="load: concurrent costly clients in phase 2")
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args()
    for _ in range(args.rounds):
        if args.workload == "load":
            result: dict[str, Any] = run_load(args.seconds, args.clients or 200,
                                              args.costly_clients)
        else:
            result = run_attack(args.clients or 40)
        print(json.dumps(result))


if __name__ == "__main__":
    main()
