"""Differential fuzz of the native kernels against the pure peer, bounded in time.

Usage::

    python tools/fuzz_native.py --seconds 120 --seed 20      # what .ci/run runs (sanitizer build)
    python tools/fuzz_native.py --cases 50                   # a fixed number of cases instead

Every case is a robots.txt body, a few agents and URLs from one deterministic generator
(``random.Random(seed * 1_000_003 + case)``), parsed by :func:`robotrules.parse` (native where
built) and by :func:`robotrules._robots.reference` (the pure peer, the reference), in the
``rfc9309`` and ``google`` dialects. They must agree on every verdict (``explain``, field by
field, ``is_allowed``, ``decide_many``; ``usage`` and ``usage_many`` too, with a family of
Content-Usage and Content-Signal lines whose paths the kernel matches) and on the directive
stream (``_native.tokenize``
against ``_tokenize.tokenize``). The generator's families reach the shapes issue 20 names:
rules normalising past 64 KiB, runs of bytes that are not UTF-8, CR-only and mixed line ends,
NUL bytes, 100,000 rules, thousands of groups and agents, 1 MB paths, and lengths and counts
on both sides of every width and threshold the kernel uses (the 16-bit lengths it had, the
line cap, the field-name memo, the small-path buffer, the matcher's thresholds, the agent
memos), and rules sharing long prefixes, chains of prefixes and copies (the prefix index's
ordering). Widths too large to reach in memory (2 ** 32) are bounded by arithmetic in
``_kernel/tables.pxi`` (the integer widths) instead.

On the first disagreement it prints the case number, writes the body to
``fuzz-native-failure.txt`` and exits 1; a crash is the process dying (under the sanitizer
build: AddressSanitizer's or UBSan's report).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import robotrules
from robotrules import _robots
from robotrules import _tokenize as T

DIALECTS = ("rfc9309", "google")
AGENTS = ["*", "FooBot", "foobot/1.0", "BarBot", "Googlebot", "", "Qux-Bot", "b\u00f6t"]
EOLS = [b"\n", b"\r", b"\r\n", b"\n\r", b"\r\r\n"]
# widths and thresholds of the kernel (see _native.pxd): probe below, at and above each
KERNEL_EDGES = [16, 48, 255, 256, 511, 512, 2048, 16663, 65535, 65536]


def _near(rng: random.Random, n: int) -> int:
    return max(0, n + rng.randint(-2, 2))


def _piece(rng: random.Random) -> bytes:
    """A few bytes of a pattern: ASCII, escapes, wildcards, bytes that are not UTF-8, NUL."""
    return rng.choice([b"a", b"b", b"/", b"*", b"$", b"%41", b"%2f", b"%", b"%C3%A9", b"\xff",
                       b"\xe9", b"\xc3\xa9", b"\x00", b"?", b"=", b"index.html", b" ", b"#x",
                       b"\xef\xbb\xbf", b"\t", b":"])


def _pattern(rng: random.Random, long: bool = False) -> bytes:
    if long:  # normalises past 64 KiB in rfc9309 (each 0xFF byte becomes "%C3%BF")
        n = _near(rng, rng.choice([10922, 10923, 11000, 16000]))
        mid = b"*" if rng.random() < 0.5 else b""
        return b"/" + rng.choice([b"\xff", b"\xe9", b"a"]) * n + mid + rng.choice(
            [b"", b"$", b"*", b"aaa\xe9", b"x" * _near(rng, 5600)])
    return b"/" + b"".join(_piece(rng) for _ in range(rng.randint(0, 8)))


def _rule(rng: random.Random, long: bool = False) -> bytes:
    key = rng.choice([b"Disallow", b"Allow", b"disallow", b"ALLOW", b"Dissallow", b"allow "])
    return key + rng.choice([b": ", b":", b" "]) + _pattern(rng, long)


def _body(rng: random.Random, case: int) -> tuple[bytes, list[str], list[str]]:
    """One case: the body, agents to ask, URLs to ask."""
    family = case % 14
    eol = rng.choice(EOLS) if rng.random() < 0.6 else b"\n"
    lines: list[bytes] = []
    agents = list(AGENTS)
    urls = ["/", "/robots.txt", "/a", "/a/b?c=d", "http://x.com/%41b", "/\u00ff\u00ff",
            "/x\x00y", "//x.com/a", "/" + "\u00ff" * 12]
    if family in (0, 10):  # long rules, normalising past every former width
        lines += [b"User-agent: *", b"Disallow: /"]
        for _ in range(rng.randint(1, 14)):
            rule = _rule(rng, long=True)
            lines.append(rule)
            pattern = rule[rule.index(b"/"):].decode("latin-1").rstrip("$")
            urls += [pattern.replace("*", rng.choice(["", "b", "zz\u00ff"])) + tail
                     for tail in ("", "b", "\u00e9")]
        urls += ["/" + "\u00ff" * _near(rng, 10923) + rng.choice(["", "b", "aaa\u00e9"]),
                 "/abx\u00e9", "/x" + "\u00ff" * 3]
    elif family == 1:  # many rules (100,000 once in a while, else thousands)
        n = 100_000 if rng.random() < 0.08 else rng.randint(1000, 5000)
        lines.append(b"User-agent: *")
        lines += [b"Disallow: /p%d/%s" % (i, rng.choice([b"", b"*x", b"a$", b"*%d" % i]))
                  for i in range(n)]
        urls += [f"/p{rng.randrange(n)}/ax" for _ in range(20)]
    elif family == 2:  # thousands of groups and agents
        n = rng.randint(1000, 4000)
        for i in range(n):
            lines.append(b"User-agent: bot%s" % bytes([97 + i % 26, 97 + i // 26 % 26,
                                                       97 + i // 676 % 26]))
            if rng.random() < 0.5:
                lines.append(_rule(rng))
        agents += ["bot" + "".join(chr(97 + rng.randrange(26)) for _ in range(3))
                   for _ in range(40)]
    elif family == 3:  # 1 MB paths, and paths on both sides of the small-path buffer
        lines += [b"User-agent: *", *(_rule(rng) for _ in range(60)), b"Allow: /*a$"]
        urls += ["/" + "a" * _near(rng, 1 << 20), "/" + "\u00e9" * _near(rng, 1 << 18)]
        urls += ["/" + "ab%41" * (_near(rng, n) // 5) for n in (255, 256, 511, 512)]
    elif family == 4:  # lines and field names at the kernel's caps
        lines.append(b"User-agent: *")
        for _ in range(8):
            n = rng.choice([16663, 16664, 16662, 27, 28, 26])
            lines.append(rng.choice([b"Disallow: /", b"x" * n + b": /", b"Allow: /"]) + (
                rng.choice([b"a", b"\xff", b"*"]) * _near(rng, n)))
        lines += [b"k%d: v" % i for i in range(rng.choice([0, 1100]))]  # past the key memo
    elif family == 5:  # the matcher's thresholds: lists of wildcard rules around each
        n = rng.choice([15, 16, 17, 47, 48, 49, 511, 512, 513, 2047, 2049])
        lines.append(b"User-agent: *")
        lines += [b"Disallow: /%s*%s" % (rng.choice([b"", b"ab", b"q"]), _pattern(rng)[1:])
                  for _ in range(n)]
        urls += ["/ab" + "x" * _near(rng, 256) + "a", *("/q" + "ba" * k for k in range(20))]
    elif family == 6:  # NUL bytes and control bytes anywhere
        for _ in range(rng.randint(5, 40)):
            lines.append(rng.choice([b"User-agent: *", b"User-agent: Foo\x00Bot", _rule(rng),
                                     b"\x00", b"Disallow: /a\x00b", b"Allow:\x00/x"]))
    elif family == 7:  # a big group named with many small ones (the memory shape)
        names = [b"bot" + bytes([97 + i % 26, 97 + i // 26]) for i in range(60)]
        lines += [b"User-agent: " + a for a in names]
        lines += [b"Disallow: /p%d/*x%d" % (i, i) for i in range(rng.randint(100, 3000))]
        for i, a in enumerate(names):
            lines += [b"", b"User-agent: " + a, b"Disallow: /s%d" % i]
        agents += [a.decode() for a in names]
    elif family == 8:  # the agent memos: more agents than the per-file and process memos
        lines += [b"User-agent: a%d\nDisallow: /%d" % (i, i) for i in range(50)]
        agents += [f"a{i}" for i in range(rng.choice([5, 50]))]
    elif family == 12:  # AI usage preferences: Content-Usage paths matched by the kernel
        for _ in range(rng.randint(1, 6)):
            lines.append(b"User-agent: " + rng.choice([b"*", b"FooBot", b"BarBot"]))
            for _ in range(rng.randint(0, 10)):
                r = rng.random()
                if r < 0.3:
                    lines.append(_rule(rng, long=rng.random() < 0.02))
                elif r < 0.85:
                    path = _pattern(rng, long=rng.random() < 0.02) + b" " if (
                        rng.random() < 0.8) else b""
                    lines.append(b"Content-Usage: " + path + rng.choice(
                        [b"train-ai=n", b"train-ai=y, search=n", b"search=y", b"x("]))
                else:
                    lines.append(b"Content-Signal: " + rng.choice(
                        [b"ai-train=no", b"search=yes, ai-input=no"]))
        urls += ["/" + "".join(_piece(rng).decode("latin-1") for _ in range(6))
                 for _ in range(10)]
    elif family == 13:  # prefixes sharing long stems (the prefix index files them eight
        # bytes at a time), chains of prefixes and copies; white space runs around them
        stem = b"/" + b"s" * rng.choice([0, 7, 8, 9, 15, 16, 17, 24, 25, 100])
        lines.append(b"User-agent: *")
        for _ in range(rng.choice([17, 40, 300, 2000])):
            r = rng.random()
            tail = (b"a" * rng.randint(0, 60) if r < 0.3 else b"" if r < 0.4 else
                    bytes(rng.choice(b"ab-/%*$") for _ in range(rng.randint(0, 12))))
            ws = rng.choice([b"", b" " * _near(rng, 16), b"\t" * _near(rng, 32), b" \x0b\x0c"])
            lines.append(ws + rng.choice([b"Disallow:", b"Allow:"]) + ws + stem + tail + ws)
        urls += [stem.decode() + "a" * k + t for k in (0, 1, 30, 61) for t in ("", "b", "-")]
    else:  # mixed: generated groups with every oddity
        for _ in range(rng.randint(1, 30)):
            lines.append(b"User-agent: " + rng.choice([b"*", b"FooBot", b"Bar\xe9Bot",
                                                       b"foobot/1.0 (x)", b"*bot"]))
            lines += [_rule(rng, long=rng.random() < 0.02) for _ in range(rng.randint(0, 12))]
            if rng.random() < 0.2:
                lines.append(rng.choice([b"", b"# c", b"Sitemap: /s.xml", b"Crawl-delay: 1"]))
        urls += ["/" + "".join(_piece(rng).decode("latin-1") for _ in range(6))
                 for _ in range(10)]
    body = eol.join(lines) + eol
    if rng.random() < 0.05:
        body = b"\xef\xbb\xbf" + body
    return body, agents, urls


def _check(body: bytes, agents: list[str], urls: list[str]) -> str | None:
    """The first disagreement between the peers, in words, or None."""
    text = T.to_text(body)[0]
    native = getattr(_robots, "_native", None)
    for dialect in DIALECTS:
        if native is not None:
            odd: list[int] = []
            if list(native.tokenize(text, dialect)[0]) != list(
                    T.tokenize(text, dialect, odd=odd)):  # type: ignore[arg-type]
                return f"directive stream ({dialect})"
        fast = robotrules.parse(body, dialect)
        lean = robotrules.parse(body, dialect, keep_text=False)  # the values only, no body
        slow = _robots.reference(body, dialect)
        for agent in agents:
            for url in urls:
                want = slow.explain(url, user_agent=agent)
                if fast.is_allowed(url, user_agent=agent) != want.allowed:
                    return f"is_allowed({url[:60]!r}, {agent!r}) ({dialect})"
                if lean.is_allowed(url, user_agent=agent) != want.allowed:
                    return f"is_allowed({url[:60]!r}, {agent!r}) ({dialect}, keep_text=False)"
                if fast.explain(url, user_agent=agent) != want:
                    return f"explain({url[:60]!r}, {agent!r}) ({dialect})"
        for agent in agents[:3]:
            if fast.decide_many(urls, user_agent=agent) != slow.decide_many(
                    urls, user_agent=agent):
                return f"decide_many({agent!r}) ({dialect})"
            if fast.usage_many(urls, user_agent=agent) != slow.usage_many(
                    urls, user_agent=agent):
                return f"usage_many({agent!r}) ({dialect})"
        if b"ontent" in body:  # AI usage preferences: every answer, both scopes
            for agent in agents[:3]:
                for url in urls[:12]:
                    for scope in ("group", "file"):
                        want_u = slow.usage(url, user_agent=agent, content_signal_scope=scope)
                        got_u = fast.usage(url, user_agent=agent, content_signal_scope=scope)
                        if got_u != want_u or got_u.verdict != want_u.verdict:
                            return f"usage({url[:60]!r}, {agent!r}, {scope}) ({dialect})"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="stop starting cases after this")
    ap.add_argument("--cases", type=int, default=0, help="run exactly this many cases instead")
    ap.add_argument("--seed", type=int, default=20)
    args = ap.parse_args(argv)
    if not robotrules.NATIVE:
        print("fuzz_native: the native kernels are not built; nothing to compare",
              file=sys.stderr)
        return 2
    start = time.monotonic()
    case = 0
    done: Callable[[], bool] = (lambda: case >= args.cases) if args.cases else (
        lambda: time.monotonic() - start >= args.seconds)
    while not done():
        rng = random.Random(args.seed * 1_000_003 + case)
        body, agents, urls = _body(rng, case)
        problem = _check(body, agents, urls)
        if problem is not None:
            Path("fuzz-native-failure.txt").write_bytes(body)
            print(f"fuzz_native: case {case} (seed {args.seed}): the peers disagree on "
                  f"{problem}; body in fuzz-native-failure.txt", file=sys.stderr)
            return 1
        case += 1
    print(f"fuzz_native: {case} cases agree (seed {args.seed}, "
          f"{time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
