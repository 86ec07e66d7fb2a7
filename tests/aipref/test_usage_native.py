"""``RobotsTxt.usage`` and ``usage_many`` on the native kernel against the pure peer.

The pure peer (:func:`robotrules._robots.reference`, :mod:`robotrules.aipref.usage`) is the
declared reference: on the native kernel the Content-Usage paths of a group are matched by the
kernel's own matcher (``PathSet``) and the answers are built from facts kept per agent, and
every answer must equal the reference's (categories, deciding lines, statements, path, and
the crawl verdict with its sentence) on generated files: Content-Usage rules with and without
paths, wildcards, ``$``, escapes, non-ASCII and non-UTF-8 bytes, ties, several groups,
Content-Signal lines, LLM-Policy and License lines, in both Content-Signal scopes and both
vocabularies (attach-05 3.1 and vocab-07 "Combining Preferences" are the rules both follow).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import _robots

pytestmark = pytest.mark.skipif(not robotrules.NATIVE, reason="native kernels not built")

PIECES = [b"/", b"a", b"b", b"*", b"$", b"%41", b"%2f", b"%", b"\xc3\xa9", b"\xff", b"?",
          b"=", b"x.html"]
PREFS = [b"train-ai=n", b"train-ai=y", b"search=n, train-ai=y", b"ai-use=n", b"bogus(",
         b"train-ai=y;q=1", b"search=y"]
AGENTS = ["*", "FooBot", "BarBot/2.0", "Other"]


def _path(rng: random.Random) -> bytes:
    return b"/" + b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 5)))


def _body(rng: random.Random) -> bytes:
    lines: list[bytes] = []
    if rng.random() < 0.3:
        lines.append(rng.choice([b"LLM-Policy: /llms.txt", b"License: https://x/l.xml",
                                 b"Content-Signal: search=yes"]))
    for _ in range(rng.randint(1, 4)):
        lines.append(b"User-agent: " + rng.choice([b"*", b"FooBot", b"BarBot"]))
        for _ in range(rng.randint(0, 6)):
            r = rng.random()
            if r < 0.3:
                lines.append(rng.choice([b"Allow: ", b"Disallow: "]) + _path(rng))
            elif r < 0.85:
                path = _path(rng) + b" " if rng.random() < 0.8 else b""
                lines.append(rng.choice([b"Content-Usage: ", b"content_usage: "]) + path
                             + rng.choice(PREFS))
            else:
                lines.append(b"Content-Signal: " + rng.choice(
                    [b"ai-train=no", b"search=yes, ai-input=no", b"use=reference"]))
        lines.append(b"")
    return b"\n".join(lines) + b"\n"


def _usage_agrees(fast: robotrules.RobotsTxt, slow: robotrules.RobotsTxt, agent: str,
                  urls: list[str]) -> None:
    """``usage`` of every URL for ``agent`` in both scopes and both vocabularies: the native
    answer equals the reference's, its verdict too, and that verdict is ``explain``'s."""
    for scope in ("group", "file"):
        for vocab in ("vocab-07", "vocab-08"):
            for url in urls:
                got = fast.usage(url, user_agent=agent, content_signal_scope=scope,
                                 vocabulary=vocab)
                want = slow.usage(url, user_agent=agent, content_signal_scope=scope,
                                  vocabulary=vocab)
                assert got == want, (url, agent, scope, vocab)
                assert got.verdict == want.verdict
                assert got.verdict == fast.explain(url, user_agent=agent)


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(seed=st.integers(0, 2**32))
def test_usage_equals_the_pure_peer(seed: int) -> None:
    rng = random.Random(seed)
    body = _body(rng)
    urls = [(_path(rng) + rng.choice([b"", b"?q=1"])).decode("utf-8", "surrogateescape")
            for _ in range(12)] + ["/robots.txt", "https://example.com/a%41b"]
    for dialect in ("rfc9309", "google"):
        fast = robotrules.parse(body, dialect)
        slow = _robots.reference(body, dialect)
        for agent in AGENTS:
            for _ in range(2):  # the facts are made, then read
                _usage_agrees(fast, slow, agent, urls)
            assert fast.usage_many(urls, user_agent=agent) == slow.usage_many(
                urls, user_agent=agent), (body, agent)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(seed=st.integers(0, 2**32))
def test_warm_usage_from_the_peers_memo_equals_the_pure_peer(seed: int) -> None:
    """A file that states no preferences: the native usage answers its warm calls from the
    peer's memo of the selection's usage answers (``known_usage``, one C call) and must still
    equal the reference, for bare tokens and full User-Agent headers, in both scopes and
    both vocabularies, URL after URL (attach-05 3.1: no preference attaches to a URL that may
    not be fetched; the crawl verdict is RFC 9309's)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randint(1, 4)):
        lines.append(b"User-agent: " + rng.choice([b"*", b"FooBot", b"BarBot"]))
        lines += [rng.choice([b"Allow: ", b"Disallow: "]) + _path(rng)
                  for _ in range(rng.randint(0, 6))]
    body = b"\n".join(lines) + b"\n"
    urls = [(_path(rng) + rng.choice([b"", b"?q=1"])).decode("utf-8", "surrogateescape")
            for _ in range(10)] + ["/robots.txt", "https://example.com/a%41b"]
    agents = [*AGENTS, "Mozilla/5.0 (compatible; FooBot/2.1; +http://x/)"]
    for dialect in ("rfc9309", "google"):
        fast = robotrules.parse(body, dialect)
        slow = _robots.reference(body, dialect)
        for _ in range(2):  # the memos filled, then read
            for agent in agents:
                _usage_agrees(fast, slow, agent, urls)


def test_bad_arguments_say_so_as_the_pure_peer_does() -> None:
    rules = robotrules.parse(b"User-agent: *\nContent-Usage: train-ai=n\n")
    rules.usage("/x")
    with pytest.raises(ValueError, match="content_signal_scope"):
        rules.usage("/x", content_signal_scope="site")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        rules.usage("/x", vocabulary="vocab-99")
    with pytest.raises(TypeError):
        rules.usage(b"/x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rules.usage("/x", user_agent=None)  # type: ignore[arg-type]
