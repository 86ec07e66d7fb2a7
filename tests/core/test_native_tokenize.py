"""The native line scanner (robotrules._native.tokenize, the kernel's ``scan``) at the edges of
its steps, both ways it reads: sixteen bytes a compare where SSE2 is there, and a byte at a
time as on a CPU without SSE2 (``simd=False``, the fallback).

The expected stream is the pure tokenizer's, robotrules._tokenize.tokenize, the reference
(RFC 9309 2.2: a line ends at CR, LF or CRLF, the key ends at the first ':', '#' starts a
comment; robots.cc reads a line as a C string, so a NUL ends it). The scanner reads 32 and 16
bytes a step from each line's start, so each test puts the bytes it looks for at offsets 15,
16, 31, 32, 63 and 64 of a line and of the body, and at the body's very last byte.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import _robots
from robotrules import _tokenize as T
from tests.conftest import SHARED

_native = pytest.importorskip("robotrules._native")
pytestmark = pytest.mark.skipif(not robotrules.NATIVE, reason="native kernels turned off")

DIALECTS = ("rfc9309", "google", "1994")
CORPUS = sorted(Path(SHARED, "corpus", "sites").glob("*.txt"))
EDGES = (0, 1, 14, 15, 16, 17, 30, 31, 32, 33, 47, 48, 62, 63, 64, 65)
SPECIAL = (":", "#", "\r", "\n", "\r\n", "\0")


def _agree(body: bytes) -> None:
    """Both ways of the scanner give the pure tokenizer's stream and noted lines."""
    text = T.to_text(body)[0]
    for dialect in DIALECTS:
        odd: list[int] = []
        want = T.tokenize(text, dialect, odd=odd)  # type: ignore[arg-type]
        for simd in (True, False):
            got, notes = _native.tokenize(text, dialect, simd=simd)
            assert list(got) == list(want), (dialect, simd, body)
            assert list(notes) == odd, (dialect, simd, body)


def _line(size: int, at: int, byte: str) -> str:
    """A field line of ``size`` bytes after "Disallow" with ``byte`` at offset ``at`` of the
    line (its first ':' stays at offset 8 unless ``byte`` comes first)."""
    chars = list("Disallow:" + "/" + "a" * max(0, size))
    if at < len(chars):
        chars[at:at + 1] = [byte]
    else:
        chars.append(byte)
    return "".join(chars)


@pytest.mark.parametrize("byte", SPECIAL)
def test_a_special_byte_at_each_step_edge_of_a_line(byte: str) -> None:
    """':' (RFC 9309 2.2: the key ends at it), '#' (a comment), CR, LF, CRLF (line ends) and
    NUL (robots.cc ends a line there) at each offset around the 16- and 32-byte steps, in
    lines of every length around them, with LF, CR and CRLF line ends and none at the end."""
    for end in ("\n", "\r", "\r\n", ""):
        for size in (14, 15, 16, 30, 31, 32, 33, 62, 63, 64, 70):
            for at in EDGES:
                line = _line(size, at, byte)
                _agree(("User-agent: *" + end + line + end + line).encode("latin-1"))
                _agree((line + end + "Allow: /x" + end).encode("latin-1"))


@pytest.mark.parametrize("byte", SPECIAL)
def test_a_special_byte_as_the_last_byte_of_the_body(byte: str) -> None:
    """The body's very last byte (nothing may be read past it) is each special byte, in
    bodies of every length from 1 to 80: the scanner's tail, shorter than a step."""
    for size in range(1, 81):
        for head in ("Disallow: /", "User-agent: x", "# c", "key value ", "x"):
            body = (head + "b" * size)[:size - 1] + byte
            _agree(body.encode("latin-1"))


def test_the_fallback_reads_the_corpus_as_the_wide_scan() -> None:
    """Every corpus file (real robots.txt files, some of them HTML and CSS): the byte-at-a-
    time scan (a CPU without SSE2) gives the stream of the sixteen-byte one and of the pure
    tokenizer."""
    if not CORPUS:
        pytest.skip("shared/corpus not present")
    for path in CORPUS:
        _agree(path.read_bytes())


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(st.integers(0, 70), st.sampled_from(SPECIAL)), max_size=6),
       st.integers(0, 2**32))
def test_special_bytes_anywhere(places: list[tuple[int, str]], seed: int) -> None:
    """Field lines, comments and blanks with special bytes dropped at random offsets
    (hypothesis shrinks a failure to its offset), both scans against the pure tokenizer."""
    rng = random.Random(seed)
    chars = list("".join(rng.choice(["User-agent: *\n", "Disallow: /a/b/c?d=e\n", "  \t\n",
                                     "Allow:/x # note\r\n", "Sitemap: https://h/s.xml\r",
                                     "junk words here\n", "a" * 40 + ":" + "b" * 40 + "\n"])
                         for _ in range(4)))
    for at, byte in places:
        chars.insert(min(at, len(chars)), byte)
    _agree("".join(chars).encode("latin-1"))


@pytest.mark.parametrize("size", [15, 16, 17, 31, 32, 33, 63, 64, 65])
def test_parsed_files_ending_at_a_step_edge_answer_as_the_pure_core(size: int) -> None:
    """robotrules.parse (the kernel's Doc scans the caller's bytes as they are, with no
    trailing NUL read) on bodies of ``size`` bytes whose last rule ends at the body's last
    byte, against the pure core (the reference), keep_text both ways."""
    for tail in ("/p", "/p:", "/p#", "/p\r", "/p\n"):
        rule = "Disallow: " + tail
        head = "User-agent: *\n"
        fill = size - len(head) - len(rule)
        body = (head + "#" + "c" * (fill - 2) + "\n" + rule if fill >= 2 else
                head + rule).encode()
        ref = _robots.reference(body)
        for keep in (True, False):
            rules = robotrules.parse(body, keep_text=keep)
            assert rules.directive_count == ref.directive_count, (body, keep)
            for url in ("https://h/p", "https://h/q", "https://h/p:", "https://h/"):
                assert rules.is_allowed(url, user_agent="bot") == ref.is_allowed(
                    url, user_agent="bot"), (body, keep, url)
