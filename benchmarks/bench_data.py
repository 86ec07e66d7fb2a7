"""Inputs of the benchmark: the corpus, seeded queries, synthetic and adversarial files.

Everything here is deterministic: each file's queries come from ``random.Random`` seeded with
the run seed and the file name (string seeds are hashed with SHA-512, not ``hash()``), so two
runs, and every library in one run, see exactly the same queries.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from bench_libs import Query

# Agents every query set draws from: big crawlers, an AI crawler and bots that fall back to
# the ``*`` group in most files; the file's own agent tokens are added per file.
COMMON_AGENTS: tuple[str, ...] = ("Googlebot", "Bingbot", "GPTBot", "AcmeCrawler", "Slurp")
_RULE = re.compile(rb"^[ \t]*(?:dis)?allow[ \t]*:[ \t]*([^#\r\n]*)", re.I | re.M)
_UA = re.compile(rb"^[ \t]*user-agent[ \t]*:[ \t]*([A-Za-z_-]+)", re.I | re.M)
_PATH_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_"
# What a crawler's URLs look like: non-ASCII and spaces percent-encoded, the rest as is.
_SAFE = "".join(chr(c) for c in range(33, 127) if chr(c) not in "#%")


@dataclass(frozen=True)
class SiteFile:
    name: str
    host: str
    body: bytes
    queries: tuple[Query, ...]


def load_corpus(corpus: Path, limit: int | None) -> list[tuple[str, bytes]]:
    """``(file name, body)`` sorted by name; ``limit`` takes an evenly spaced sample."""
    files = sorted(corpus.glob("*.txt"))
    if limit is not None and limit < len(files):
        step = len(files) / limit
        files = [files[int(i * step)] for i in range(limit)]
    return [(f.name, f.read_bytes()) for f in files]


def _word(rng: random.Random, lo: int = 1, hi: int = 10) -> str:
    return "".join(rng.choice(_PATH_CHARS) for _ in range(rng.randint(lo, hi)))


def random_path(rng: random.Random) -> str:
    depth = rng.randint(1, 5)
    path = "/" + "/".join(_word(rng) for _ in range(depth))
    r = rng.random()
    if r < 0.2:
        path += "/"
    elif r < 0.35:
        path += rng.choice((".html", ".php", ".pdf", ".jpg", ".js"))
    if rng.random() < 0.25:
        path += f"?{_word(rng, 1, 6)}={_word(rng, 1, 8)}"
    if rng.random() < 0.05:
        path += f"&x=%{rng.randrange(256):02X}"
    return path


def path_from_rule(pattern: str, rng: random.Random) -> str:
    """A path that a rule's pattern is likely to match (or nearly match)."""
    anchored = pattern.endswith("$")
    if anchored:
        pattern = pattern[:-1]
    parts = pattern.split("*")
    path = parts[0]
    for part in parts[1:]:
        path += (_word(rng, 0, 8) if rng.random() < 0.8 else "") + part
    r = rng.random()
    if r < 0.45 and not (anchored and rng.random() < 0.5):
        path += rng.choice(("", "/", "x", "/" + _word(rng), "?id=" + _word(rng, 1, 5),
                            "/" + _word(rng) + ".html"))
    elif r < 0.65 and len(path) > 1:
        path = path[: rng.randint(1, len(path))]  # truncated: often a near miss
    if not path.startswith("/"):
        path = "/" + path
    return quote(path, safe=_SAFE)


def make_queries(name: str, body: bytes, n: int, seed: int) -> tuple[Query, ...]:
    """``n`` queries for one file: about 60% derived from its own rules, the rest random."""
    rng = random.Random(f"{seed}:{name}")
    host = name.removesuffix(".txt")
    patterns = [m.group(1).decode("utf-8", "replace").strip() for m in _RULE.finditer(body)]
    patterns = [p for p in patterns if p]
    own = sorted({m.group(1).decode() for m in _UA.finditer(body)})
    own = [a for a in own if a.lower() not in {c.lower() for c in COMMON_AGENTS}]
    agents = list(COMMON_AGENTS) + rng.sample(own, min(3, len(own)))
    out: list[Query] = []
    for _ in range(n):
        r = rng.random()
        if patterns and r < 0.6:
            path = path_from_rule(rng.choice(patterns), rng)
        elif r < 0.62:
            path = "/robots.txt"
        else:
            path = random_path(rng)
        out.append((rng.choice(agents), f"https://{host}{path}"))
    return tuple(out)


def rule_query(name: str, body: bytes, seed: int) -> Query | None:
    """One query built from one of the file's own rules (a path it likely matches or nearly
    matches) for one of the file's own agents, else a common agent; None for a file with no
    rule."""
    got = rule_queries(name, body, 1, seed)
    return got[0] if got else None


def rule_queries(name: str, body: bytes, n: int, seed: int) -> tuple[Query, ...]:
    """``n`` queries as :func:`rule_query` builds one (its first), each from one of the
    file's rules; none for a file with no rule."""
    rng = random.Random(f"{seed}:rule-query:{name}")
    patterns = [m.group(1).decode("utf-8", "replace").strip() for m in _RULE.finditer(body)]
    patterns = [p for p in patterns if p]
    if not patterns:
        return ()
    own = sorted({m.group(1).decode() for m in _UA.finditer(body)})
    host = name.removesuffix(".txt")
    out: list[Query] = []
    for _ in range(n):
        agent = rng.choice(own) if own and rng.random() < 0.5 else rng.choice(COMMON_AGENTS)
        out.append((agent, f"https://{host}{path_from_rule(rng.choice(patterns), rng)}"))
    return tuple(out)


def generated_files(count: int, seed: int) -> list[tuple[bytes, Query]]:
    """``count`` synthetic files (as (e) makes them) of 300 bytes to 30 KB, spread evenly on
    a log scale, each with one query (60% from its rules)."""
    return [(body, queries[0]) for body, queries in generated_cold(count, seed, 1)]


def generated_cold(count: int, seed: int, n: int) -> list[tuple[bytes, tuple[Query, ...]]]:
    """:func:`generated_files` with ``n`` queries each (the first is the one it gives)."""
    out = []
    for i in range(count):
        size = int(300 * 100 ** (i / max(1, count - 1)))
        body, patterns = synthetic_file(size, seed + i)
        out.append((body, tuple(synthetic_queries(patterns, n, seed + i, size))))
    return out


def site_files(corpus: Path, limit: int | None, queries: int, seed: int) -> list[SiteFile]:
    return [SiteFile(name, name.removesuffix(".txt"), body, make_queries(name, body, queries,
                                                                       seed))
            for name, body in load_corpus(corpus, limit)]


# -- (e) synthetic scaling files ----------------------------------------------------------

SCALING_SIZES: tuple[tuple[str, int], ...] = (("5 KB", 5_000), ("50 KB", 50_000),
                                              ("500 KB", 500_000))
_SECTIONS = ("products", "search", "account", "cart", "checkout", "api", "static", "media",
             "blog", "news", "help", "tag", "category", "user", "admin", "private", "print")


def _synth_pattern(rng: random.Random) -> str:
    depth = rng.randint(1, 4)
    base = "/" + rng.choice(_SECTIONS) + "".join("/" + _word(rng, 2, 9) for _ in range(depth))
    r = rng.random()
    if r < 0.62:  # plain prefix
        return base + rng.choice(("", "/", ".html", "/index"))
    if r < 0.8:  # a wildcard in the middle
        return base + "/*" + rng.choice(("/print", ".pdf", "?sort=", "/amp", "_" + _word(rng)))
    if r < 0.9:  # query-parameter rule
        return "/*?" + _word(rng, 2, 8) + "=*" + rng.choice(("", "&" + _word(rng, 2, 6) + "="))
    if r < 0.96:  # end-anchored
        return base + rng.choice((".php$", "/$", ".json$", "*.gif$"))
    return "/*" + _word(rng, 3, 8) + "*" + _word(rng, 2, 5)


def synthetic_file(size: int, seed: int) -> tuple[bytes, list[str]]:
    """A robots.txt of about ``size`` bytes (``*`` group plus a few named groups)."""
    rng = random.Random(f"{seed}:synthetic:{size}")
    lines = ["# synthetic benchmark file", "User-agent: *"]
    patterns: list[str] = []
    total = 0
    groups: tuple[str, ...] = ("Googlebot", "Bingbot", "GPTBot")
    next_group = size // 4
    while total < size:
        if total > next_group and groups:
            lines += ["", f"User-agent: {groups[0]}"]
            groups = groups[1:]
            next_group += size // 4
        pattern = _synth_pattern(rng)
        verb = "Allow" if rng.random() < 0.2 else "Disallow"
        line = f"{verb}: {pattern}"
        lines.append(line)
        patterns.append(pattern)
        total += len(line) + 1
    body = ("\n".join(lines) + "\n").encode()
    return body, patterns


def synthetic_queries(patterns: list[str], n: int, seed: int, size: int) -> list[Query]:
    rng = random.Random(f"{seed}:synthetic-queries:{size}")
    agents = ("Googlebot", "Bingbot", "GPTBot", "AcmeCrawler")
    out: list[Query] = []
    for _ in range(n):
        if rng.random() < 0.6:
            path = path_from_rule(rng.choice(patterns), rng)
        else:
            path = "/" + rng.choice(_SECTIONS) + random_path(rng)
        out.append((rng.choice(agents), "https://www.example.com" + path))
    return out


# -- (f) adversarial shapes ----------------------------------------------------------------


@dataclass(frozen=True)
class Adversarial:
    name: str
    body: bytes
    url: str


def adversarial_cases() -> list[Adversarial]:
    """Pathological rule/URL pairs: many wildcards against long near-miss URLs."""
    url_a = "https://www.example.com/" + "a" * 4000

    def one(rule: str) -> bytes:
        return f"User-agent: *\nDisallow: {rule}\n".encode()

    return [
        Adversarial("/*a x30 ...*b vs 4000 a", one("/" + "*a" * 30 + "*b"), url_a),
        Adversarial("/*a x100 ...*b vs 4000 a", one("/" + "*a" * 100 + "*b"), url_a),
        Adversarial("/*a x100 ...*b$ vs 4000 a", one("/" + "*a" * 100 + "*b$"), url_a),
        Adversarial("/a*a*...(1000 stars)*b", one("/" + "a*" * 1000 + "b"), url_a),
        Adversarial("/**...(500 *)b$ vs 4000 a", one("/" + "*" * 500 + "b$"), url_a),
        Adversarial("/(a*1999)b literal vs 4000 a", one("/" + "a" * 1999 + "b"), url_a),
        Adversarial("200 rules /*a*a*a*a*a*b", ("User-agent: *\n" + "".join(
            f"Disallow: /{i}*a*a*a*a*a*b\nDisallow: /*a*a*a*a*a*b{i}\n" for i in range(100))
        ).encode(), url_a),
        Adversarial("/*ab x50 ...*c vs (ab)x2000",
                    one("/" + "*ab" * 50 + "*c"), "https://www.example.com/" + "ab" * 2000),
    ]
