"""Inputs of workload (g): the matcher's worst realistic shapes.

Rules that share short literals (``/*ba``), many rules starting with ``/*`` or ``*``, exact
duplicates, and long paths (8 KB and 64 KB). Each case is a body and a list of URLs; every
library answers each URL for ``Googlebot`` (no such group: the ``*`` group decides).
Deterministic for a given seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bench_data import _synth_pattern, _word, path_from_rule
from bench_libs import Query

_HOST = "https://www.example.com"
# short literals that real query-string and file-type rules share
_SHARED = ("ba", "ab", "a", "b", "?", "=", "&", ".", "_", "-", "id", "sort", "page", "ref",
           "utm_", "s=", ".php", ".pdf", "?q=", "&p=")


@dataclass(frozen=True)
class WorstCase:
    name: str
    body: bytes
    urls: tuple[str, ...]
    rules: int


def _long_path(rng: random.Random, size: int, avoid: str = "") -> str:
    """A path of about ``size`` characters: words, separators and parameters, full of the
    shared short literals but (when ``avoid`` is given) never containing ``avoid``."""
    parts = ["/"]
    n = 1
    while n < size:
        w = rng.choice((_word(rng, 1, 8), rng.choice(_SHARED), "=" + _word(rng, 1, 4)))
        sep = rng.choice(("/", "&", "?", "-", ".", "_", "="))
        piece = w + sep
        if avoid and avoid in parts[-1][-len(avoid):] + piece:
            continue
        if avoid and avoid in piece:
            continue
        parts.append(piece)
        n += len(piece)
    path = "".join(parts)[:size]
    while avoid and avoid in path:  # a seam between two pieces
        path = path.replace(avoid, avoid[0])
    return path


def _rules_body(rules: list[str]) -> bytes:
    lines = ["User-agent: *"]
    lines += [f"{'Allow' if i % 5 == 0 else 'Disallow'}: {r}" for i, r in enumerate(rules)]
    return ("\n".join(lines) + "\n").encode()


def ba_copies(n: int = 30_000) -> bytes:
    """``n`` copies of ``Disallow: /*ba`` (the body of issue 12's request attack)."""
    return ("User-agent: *\n" + "Disallow: /*ba\n" * n).encode()


def ba_style(n: int, seed: int) -> bytes:
    """``n`` distinct rules like ``/*ba*x7k2``, ``*?sort=*ab$``: one or two literals from a
    small shared set, then a rule-specific word; a quarter start with ``*``."""
    rng = random.Random(f"{seed}:worst:ba:{n}")
    seen: set[str] = set()
    rules: list[str] = []
    while len(rules) < n:
        lead = "*" if rng.random() < 0.25 else "/*"
        shared = "*".join(rng.choice(_SHARED) for _ in range(rng.randint(1, 2)))
        own = _word(rng, 3, 7)
        rule = lead + shared + rng.choice(("*", "")) + own + rng.choice(("", "", "$", "*"))
        if rule not in seen:
            seen.add(rule)
            rules.append(rule)
    return _rules_body(rules)


def worst_file(size: int, seed: int) -> tuple[bytes, int]:
    """About ``size`` bytes of :func:`ba_style` rules only (the scaling workload's worst-shape
    file): every rule a wildcard rule built from the shared short literals, a quarter of them
    starting with ``*``, three in four with ``/*``."""
    n = size // 24  # a rule line is about 24 bytes
    body = ba_style(n, seed)
    while len(body) < size:
        n += max(1, (size - len(body)) // 24 + 1)
        body = ba_style(n, seed)
    return body, n


def mixed_file(size: int, seed: int) -> tuple[bytes, int]:
    """About ``size`` bytes of mixed rules, a quarter starting with ``/*`` built from shared
    short literals (``/*?sort=*``, ``/*ba*.pdf$``), one in twenty an exact duplicate; the
    rest are (e)'s synthetic site rules."""
    rng = random.Random(f"{seed}:worst:mixed:{size}")
    rules: list[str] = []
    total = 0
    while total < size:
        r = rng.random()
        if r < 0.05 and rules:
            rule = rng.choice(rules)
        elif r < 0.30:
            lits = [rng.choice(_SHARED) for _ in range(rng.randint(1, 3))]
            if rng.random() < 0.5:
                lits.append(_word(rng, 2, 6))
            rule = "/*" + "*".join(lits) + rng.choice(("", "", "$", "*"))
        else:
            rule = _synth_pattern(rng)
        rules.append(rule)
        total += len(rule) + 11
    return _rules_body(rules), len(rules)


def mixed_urls(n: int, seed: int) -> tuple[str, ...]:
    """Ordinary URLs (up to ~120 characters) that mention the shared literals."""
    rng = random.Random(f"{seed}:worst:mixed-urls:{n}")
    out = []
    for _ in range(n):
        path = "/" + "/".join(_word(rng, 2, 9) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.5:
            path += rng.choice(("?", "/?", ".php?")) + "&".join(
                rng.choice(_SHARED) + "=" + _word(rng, 1, 6) for _ in range(rng.randint(1, 4)))
        out.append(_HOST + path)
    return tuple(out)


def worst_queries(body: bytes, n: int, seed: int) -> list[Query]:
    """``n`` queries for :func:`worst_file`: half ordinary URLs full of the shared literals
    (:func:`mixed_urls`), half paths derived from the file's own rules; agents that all fall
    to the ``*`` group, as in (e)."""
    rng = random.Random(f"{seed}:worst:queries:{n}")
    rules = [line.split(":", 1)[1].strip() for line in body.decode().splitlines()[1:]]
    ordinary = mixed_urls(n, seed)
    agents = ("Googlebot", "Bingbot", "GPTBot", "AcmeCrawler")
    out: list[Query] = []
    for i in range(n):
        url = _HOST + path_from_rule(rng.choice(rules), rng) if i % 2 else ordinary[i]
        out.append((rng.choice(agents), url))
    return out


def worst_cases(seed: int) -> list[WorstCase]:
    """The cases of workload (g), in the order they are reported."""
    rng = random.Random(f"{seed}:worst:paths")
    p8 = tuple(_HOST + _long_path(rng, 8_000, avoid="ba") for _ in range(4))
    p64 = tuple(_HOST + _long_path(rng, 64_000, avoid="ba") for _ in range(2))
    m8 = tuple(_HOST + _long_path(rng, 8_000) for _ in range(4))
    m64 = tuple(_HOST + _long_path(rng, 64_000) for _ in range(2))
    copies = ba_copies()
    distinct = ba_style(30_000, seed)
    mixed, n_mixed = mixed_file(500_000, seed)
    return [
        WorstCase("30,000 x '/*ba' (copies), 8 KB path without 'ba'", copies, p8, 30_000),
        WorstCase("30,000 x '/*ba' (copies), 64 KB path without 'ba'", copies, p64, 30_000),
        WorstCase("30,000 '/*ba'-style rules, 8 KB path", distinct, m8, 30_000),
        WorstCase("30,000 '/*ba'-style rules, 64 KB path", distinct, m64, 30_000),
        WorstCase(f"500 KB mixed ({n_mixed:,} rules, 25% '/*'), ordinary URLs", mixed,
                  mixed_urls(200, seed), n_mixed),
        WorstCase("500 KB mixed, 8 KB path", mixed, m8, n_mixed),
    ]
