"""``decide_strings``: the batch API on Arrow string buffers (``_kernel/arrow.pxi``, its
pure peer :func:`robotrules._pure.decide_strings`, the selector's
:func:`robotrules._peers.decide_strings`).

The named source of every expectation is the batch API on ``str`` (``Peer.decide_urls``, held
equal to ``explain`` per URL by tests/core/test_decide_many.py): entry ``r`` written by
``decide_strings`` equals ``decide_urls``' entry for the URL decoded from the buffers, the rule
numbered from ``base``. Both peers are run on the same buffers (native where built, the pure
one always) on generated files and URLs (tests/core/gen.py), with int32 (Arrow ``string``) and
int64 (``large_string``) offsets, an array that does not start at its first offset (a slice),
rows in any order and repeated. Hostile buffers (the issue's "offsets out of range or not
monotone" from a bad Parquet file) must give ValueError on both, never a read out of bounds.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import _peers, _pure, _robots
from robotrules._tables import REASON_INVALID_TEXT
from tests.core.gen import QUERY_AGENTS, rand_body, rand_url

Decide = Callable[..., tuple[int, ...]]
DECIDERS: dict[str, Decide] = {"pure": _pure.decide_strings}
if _peers.NATIVE:
    from robotrules import _native

    DECIDERS["native"] = _native.decide_strings


def _deciders(rules: robotrules.RobotsTxt) -> dict[str, Decide]:
    """The pure entry, and the native one for a file the native peer reads."""
    native = _peers.NativePeer is not None and isinstance(rules, _peers.NativePeer)
    return DECIDERS if native else {"pure": DECIDERS["pure"]}


def _buffers(urls: list[bytes], wide: bool, skip: int = 0) -> tuple[array[int], bytes]:
    """Arrow's layout of ``urls``: offsets (``skip`` junk strings first, then cut off, as a
    sliced array's offsets start past 0) and the data."""
    data = b"junk" * skip + b"".join(urls)
    offs = [4 * i for i in range(skip)]
    at = 4 * skip
    for u in urls:
        offs.append(at)
        at += len(u)
    offs.append(at)
    return array("q" if wide else "i", offs[skip:]), data


def _columns(n: int) -> tuple[array[int], array[int], array[int], array[int]]:
    return (array("B", [7]) * n, array("i", [7]) * n, array("i", [7]) * n, array("B", [7]) * n)


def _run(decide: Decide, rules: robotrules.RobotsTxt, urls: list[bytes], rows: list[int],
         agent: str, wide: bool, skip: int, base: int) -> tuple[list[list[int]], tuple[int, ...]]:
    offsets, data = _buffers(urls, wide, skip)
    out = _columns(len(urls))
    got = decide(rules, offsets, data, array("q", rows), agent, rules._no_match(agent), out,
                 base)
    return [list(c) for c in out], got


def _expected(rules: robotrules.RobotsTxt, urls: list[bytes], rows: list[int], agent: str,
              base: int) -> tuple[list[list[int]], tuple[int, ...]]:
    """decide_urls on the decoded URLs of ``rows`` (the source), written at their rows."""
    out = [[7] * len(urls) for _ in range(4)]
    texts, at = [], []
    for r in rows:
        try:
            texts.append(urls[r].decode("utf-8"))
            at.append(r)
        except UnicodeDecodeError:
            for c, v in zip(out, (0, 0, -1, REASON_INVALID_TEXT), strict=True):
                c[r] = v
    allowed, line, rule, reason, rules_ = rules.decide_urls(texts, agent,
                                                            rules._no_match(agent))
    for j, r in enumerate(at):
        out[0][r], out[1][r], out[3][r] = allowed[j], line[j], reason[j]
        out[2][r] = -1 if rule[j] < 0 else base + rule[j]
    return out, rules_


def _case(rng: random.Random) -> tuple[str, list[bytes], list[int]]:
    body = rand_body(rng)
    urls = [rand_url(rng).encode("utf-8", "surrogatepass") for _ in range(rng.randint(0, 30))]
    urls += [b"/robots.txt", b"http://e.com/\xff\xfe", b"http://e.com/caf\xc3\xa9",
             b"http://e.com/\xed\xa0\x80", b"", b"http://e.com/" + b"a%2F" * 200]
    rows = list(range(len(urls)))
    rng.shuffle(rows)
    rows = rows[: rng.randint(0, len(rows))] + rows[:3]  # a subset, some rows twice
    return body, urls, rows


@pytest.mark.parametrize("dialect", ["rfc9309", "google", "1994"])
@pytest.mark.parametrize("seed", range(40))
def test_both_peers_write_what_decide_urls_gives(seed: int, dialect: str) -> None:
    rng = random.Random(seed)
    body, urls, rows = _case(rng)
    agent = rng.choice(QUERY_AGENTS)
    wide, skip, base = rng.random() < 0.5, rng.randint(0, 3), rng.choice([0, 5, 1000])
    for make in (robotrules.parse, _robots.reference):
        rules = make(body, dialect)
        want = _expected(rules, urls, rows, agent, base)
        for name, decide in _deciders(rules).items():
            assert _run(decide, rules, urls, rows, agent, wide, skip, base) == want, name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.text(st.sampled_from("UuSsEeRr-AaGgNnTtDdIiLlOoWw:/*$?#\n\r\t %é"), max_size=120),
       urls=st.lists(st.binary(max_size=24).map(lambda b: b"/" + b)
                     | st.text(max_size=20).map(lambda s: ("/" + s).encode("utf-8",
                                                                           "surrogatepass")),
                     max_size=12),
       agent=st.sampled_from(QUERY_AGENTS))
def test_native_and_pure_agree_on_any_bytes(body: str, urls: list[bytes], agent: str) -> None:
    rules = robotrules.parse(body)
    rows = list(range(len(urls)))
    want = _expected(rules, urls, rows, agent, 3)
    for name, decide in DECIDERS.items():
        assert _run(decide, rules, urls, rows, agent, True, 1, 3) == want, name


def test_a_url_not_utf8_is_flagged_not_raised() -> None:
    rules = robotrules.parse("User-agent: *\nDisallow: /private\n")
    urls = [b"http://e.com/private/\xff", b"http://e.com/private/x"]
    for name, decide in DECIDERS.items():
        out, got = _run(decide, rules, urls, [0, 1], "*", False, 0, 0)
        # the second row: decide_urls' own answer, the rule of line 2 (RFC 9309 2.2.2)
        assert out == [[0, 0], [0, 2], [-1, 0], [REASON_INVALID_TEXT, 0]], name
        assert len(got) == 1, name


def _hostile(decide: Decide, rules: Any, offsets: Any, data: Any, rows: Any,
             out: Any = None) -> None:
    decide(rules, offsets, data, rows, "*", rules._no_match("*"),
           _columns(4) if out is None else out, 0)


HOSTILE = {
    # offsets past the data (a Parquet page claiming more bytes than it holds)
    "past the end": (array("i", [0, 5, 1 << 30]), b"hello", array("q", [1])),
    "negative": (array("q", [-8, 3]), b"abc", array("q", [0])),
    "not monotone": (array("i", [0, 9, 3]), b"abcdefghij", array("q", [0, 1])),
    "row past the strings": (array("i", [0, 1]), b"a", array("q", [1])),
    "negative row": (array("i", [0, 1]), b"a", array("q", [-1])),
    "no offsets": (array("i"), b"", array("q", [])),
    "16-bit offsets": (array("h", [0, 1]), b"a", array("q", [0])),
    "32-bit rows": (array("i", [0, 1]), b"a", array("i", [0])),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("peer", sorted(DECIDERS))
def test_hostile_buffers_raise_value_error(peer: str, case: str) -> None:
    rules = robotrules.parse("User-agent: *\nDisallow: /a\n")
    offsets, data, rows = HOSTILE[case]
    with pytest.raises(ValueError, match="decide_strings"):
        _hostile(DECIDERS[peer], rules, offsets, data, rows)


@pytest.mark.parametrize("peer", sorted(DECIDERS))
def test_columns_too_short_or_of_the_wrong_width_raise(peer: str) -> None:
    rules = robotrules.parse("User-agent: *\nDisallow: /a\n")
    offsets, data = _buffers([b"/a", b"/b", b"/c"], False)
    rows = array("q", [2])
    short = (array("B", [0]) * 2, array("i", [0]) * 3, array("i", [0]) * 3, array("B", [0]) * 3)
    wide = (array("B", [0]) * 3, array("q", [0]) * 3, array("i", [0]) * 3, array("B", [0]) * 3)
    for out in (short, wide):
        with pytest.raises(ValueError, match="decide_strings"):
            _hostile(DECIDERS[peer], rules, offsets, data, rows, out)
    with pytest.raises(ValueError, match="decide_strings"):  # read-only columns
        _hostile(DECIDERS[peer], rules, offsets, data, rows,
                 (bytes(3), bytes(12), bytes(12), bytes(3)))


@settings(max_examples=200, deadline=None)
@given(offsets=st.lists(st.integers(-(1 << 40), 1 << 40), min_size=1, max_size=6),
       data=st.binary(max_size=16), rows=st.lists(st.integers(-3, 8), max_size=6),
       wide=st.booleans())
def test_any_offsets_give_answers_or_value_error(offsets: list[int], data: bytes,
                                                 rows: list[int], wide: bool) -> None:
    rules = robotrules.parse("User-agent: *\nDisallow: /a\nAllow: /a/b\n")
    offs = array("q" if wide else "i", [o if wide else max(-(1 << 31), min(o, (1 << 31) - 1))
                                        for o in offsets])
    outcomes = []
    for decide in DECIDERS.values():
        out = _columns(max(rows, default=0) + 1 if rows else 1)
        try:
            decide(rules, offs, data, array("q", rows), "*", rules._no_match("*"), out, 0)
            outcomes.append([list(c) for c in out])
        except ValueError:
            outcomes.append(None)
    assert all(o == outcomes[0] for o in outcomes)


def test_the_selector_takes_each_peers_own() -> None:
    # robotrules._peers: the native kernel's entry for a file the native peer reads, the pure
    # one's for a file the pure peer reads (the 1994 dialect: never native)
    offsets, data = _buffers([b"http://e.com/a/b"], True)
    for rules in (robotrules.parse("User-agent: *\nDisallow: /a\n", "1994"),
                  robotrules.parse("User-agent: *\nDisallow: /a\n")):
        out = _columns(1)
        _peers.decide_strings(rules, offsets, data, array("q", [0]), "*",
                              rules._no_match("*"), out, 0)
        assert [list(c) for c in out] == [[0], [2], [0], [0]]
