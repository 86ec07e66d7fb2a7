"""The two peers behind one contract (issue 20): :class:`robotrules._peer.Peer`'s surface, run
over the pure peer and the native peer alike, and the selector that chooses between them.

Every test below takes ``peer``, the peer class under test, and uses only what the Protocol
declares (no private method of either peer): the answers must be the ones the named source
gives, on both. Without a built kernel (or with ``ROBOTRULES_PURE=1``) the native half is
skipped; the selector tests then check the pure choice.
"""

from __future__ import annotations

import types
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING

import hypothesis
import pytest
from hypothesis import strategies as st

import robotrules
from robotrules import Dialect, _peers, _token, _tokenize, _url
from robotrules._match import ALLOW_BIT, INDEX_MASK, NO_MATCH
from robotrules._peer import AGENTS_KEPT
from robotrules._pure import PurePeer
from tests.core import test_rfc9309

if TYPE_CHECKING:
    from robotrules._peer import Peer

_native = _peers.NativePeer
PEERS = [pytest.param(PurePeer, id="pure"),
         pytest.param(_native, id="native", marks=pytest.mark.skipif(
             _native is None, reason="the native peer is not in use in this build"))]

# RFC 9309 section 5.1, "Simple Example" (the file as the RFC prints it, kept in one place)
RFC_5_1 = test_rfc9309.RFC_5_1.encode()

Make = Callable[..., "Peer"]


@pytest.fixture(params=PEERS)
def peer(request: pytest.FixtureRequest) -> Make:
    cls = request.param
    assert cls is not None
    return cls  # type: ignore[no-any-return]


# -- verdicts ------------------------------------------------------------------------------


def test_is_allowed_follows_rfc_9309_section_5_1(peer: Make) -> None:
    """RFC 9309 5.1: foobot may fetch /example/page.html and /example/allowed.gif but not
    /example/disallowed.gif; barbot and bazbot may not fetch /example/page.html; quxbot,
    named by an empty group, may fetch everything; others fall to '*' (2.2.1)."""
    rules = peer(RFC_5_1, "rfc9309", None)
    assert rules.is_allowed("/example/page.html", user_agent="foobot")
    assert rules.is_allowed("/example/allowed.gif", user_agent="foobot")
    assert not rules.is_allowed("/example/disallowed.gif", user_agent="foobot")
    assert not rules.is_allowed("/example/page.html", user_agent="barbot")
    assert not rules.is_allowed("/example/page.html", user_agent="bazbot")
    assert rules.is_allowed("/example/page.html", user_agent="quxbot")
    assert rules.is_allowed("/publications/a", user_agent="otherbot")
    assert not rules.is_allowed("/example/a", user_agent="otherbot")
    assert not rules.is_allowed("/a.gif", user_agent="otherbot")


def test_robots_txt_is_implicitly_allowed(peer: Make) -> None:
    """RFC 9309 2.2.2: "The /robots.txt URI is implicitly allowed"; Google's matcher reads
    the file's rules for it (robots.cc has no such exception)."""
    body = b"User-agent: *\nDisallow: /\n"
    assert peer(body, "rfc9309", None).is_allowed("https://example.com/robots.txt")
    assert not peer(body, "google", None).is_allowed("https://example.com/robots.txt")
    rules = peer(body, "rfc9309", None)
    assert rules.url_key_path("https://example.com/robots.txt", "*") == (-1, "/robots.txt")
    key, path = rules.url_key_path("/x", "*")
    assert (key != -1, path) == (True, "/x")
    assert not key & ALLOW_BIT


# what a URL's path may hold: the bytes normalisation keeps, writes as escapes or decodes,
# escapes good and broken, characters of UTF-8 of 2 to 4 bytes, lone surrogates (a str may
# hold them: \udc80 stands for the byte 0x80), controls and the URL's own delimiters
_PATH_TEXT = st.lists(st.one_of(
    st.sampled_from(list("/ab%4A2f7E?=&~.-_:*$# \"<>{}|\\^`\x00\x7f\t")),
    st.sampled_from(["%2a", "%7E", "%41", "%zz", "%", "\u00e9", "\u20ac", "\U0001f600",
                     "\udc80", "\udcff", "\ud800", "\ud7ff", "\ue000"]),
    st.characters()), max_size=16).map("".join)


@hypothesis.settings(max_examples=600, deadline=None)
@hypothesis.given(_PATH_TEXT)
def test_rfc9309_path_is_rfc_path_for_any_text(text: str) -> None:
    """RFC 9309 2.2.2 (robotrules._url.rfc_path, the rule's one home): the path each peer
    matches for a URL is the normalised one, whatever the URL holds (the native peer
    normalises it in C, and asks rfc_path only for a lone surrogate)."""
    body = b"User-agent: *\nDisallow: /x\n"
    for cls in (PurePeer, _native):
        if cls is None:
            continue
        rules = cls(body, "rfc9309", None)
        for url in ("https://example.com/" + text, "/" + text, text):
            assert rules.url_key_path(url, "*")[1] == _url.rfc_path(url), (cls, url)


@hypothesis.settings(max_examples=400, deadline=None)
@hypothesis.given(st.lists(st.sampled_from(["foo", "FOO", "bot", "-", "_", "/", "1.0", " ", "(",
                                            ";", "\u00e9", "\u212a", "K", "x" * 60]),
                           max_size=8).map("".join))
def test_each_peer_selects_the_group_query_key_names(agent: str) -> None:
    """RFC 9309 2.2.1: the crawler's product token is matched case-insensitively against the
    user-agent lines (robotrules._token.query_key: a header's token, ASCII case only). The
    native peer lower-cases an ASCII agent without '/' in C and asks query_key for others;
    both must select the group the key names."""
    body = (b"User-agent: foo\nDisallow: /a\n\nUser-agent: foo-bot\nDisallow: /b\n\n"
            b"User-agent: foobot\nDisallow: /c\n\nUser-agent: *\nDisallow: /s\n")
    key = _token.query_key(agent)
    group = {"foo": "/a", "foo-bot": "/b", "foobot": "/c"}.get(key, "/s")
    for cls in (PurePeer, _native):
        if cls is None:
            continue
        rules = cls(body, "rfc9309", None)
        assert [rules.is_allowed(p, user_agent=agent) for p in ("/a", "/b", "/c", "/s")] == [
            p != group for p in ("/a", "/b", "/c", "/s")], (cls, agent)


@pytest.mark.parametrize("size", [1, 127, 128, 129, 4096])
def test_long_agents_select_their_group(peer: Make, size: int) -> None:
    """RFC 9309 2.2.1 (case-insensitive product tokens) at the lengths around the native
    peer's stack buffer for the lower-cased agent (128 bytes): a group named by a long token
    is selected by it in any case, and a longer or shorter agent falls to '*'."""
    token = ("Ab-" * size)[:size]
    body = (f"User-agent: {token}\nDisallow: /a\n\nUser-agent: *\nDisallow: /s\n").encode()
    rules = peer(body, "rfc9309", None)
    for agent in (token, token.upper(), token.lower()):
        assert not rules.is_allowed("/a", user_agent=agent)
        assert rules.is_allowed("/s", user_agent=agent)
    for other in (token + "x", token[:-1] + "x" if size > 1 else "x"):
        assert rules.is_allowed("/a", user_agent=other)
        assert not rules.is_allowed("/s", user_agent=other)


def test_hundreds_of_agents_select_their_groups(peer: Make) -> None:
    """RFC 9309 2.2.1 over many groups: each token selects its own group(s), the names
    sharing their first eight bytes ("crawlerbot-a", "crawlerbot-b") and named again in a
    later group (merged) included; an unnamed agent falls to '*'."""
    names = [f"crawlerbot-{i:03d}" if i % 3 else f"Bot{i}x" for i in range(240)]
    lines = [f"User-agent: {n}\nDisallow: /p{i}\n" for i, n in enumerate(names)]
    lines.append(f"User-agent: {names[5]}\nDisallow: /again\n")  # merged with group 5
    lines.append("User-agent: *\nDisallow: /star\n")
    rules = peer("\n".join(lines).encode(), "rfc9309", None)
    for i, n in enumerate(names):
        for agent in (n, n.upper()):
            assert not rules.is_allowed(f"/p{i}", user_agent=agent), agent
            assert rules.is_allowed(f"/p{(i + 1) % 240}", user_agent=agent), agent
            assert rules.is_allowed("/star", user_agent=agent), agent
            assert rules.is_allowed("/again", user_agent=agent) == (i != 5), agent
    assert not rules.is_allowed("/star", user_agent="crawlerbot-999")
    assert rules.is_allowed("/p1", user_agent="crawlerbot-99")


def test_longest_match_wins_and_allow_wins_a_tie(peer: Make) -> None:
    """RFC 9309 2.2.2: "the most specific match found MUST be used ... the number of octets";
    "If an allow rule and a disallow rule are equivalent, then the allow rule SHOULD be
    used"."""
    rules = peer(b"User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b\n", "rfc9309", None)
    assert not rules.is_allowed("/a/c")
    assert rules.is_allowed("/a/b/c")


def test_google_companion_rule(peer: Make) -> None:
    """robots.cc (HandleAllow): ``Allow: /x/index.html`` also allows ``/x/`` itself."""
    rules = peer(b"User-agent: *\nDisallow: /x/\nAllow: /x/index.html\n", "google", None)
    assert rules.is_allowed("/x/")
    assert not rules.is_allowed("/x/y")


def test_path_key_names_the_deciding_line(peer: Make) -> None:
    """The key of robotrules._match: the directive index inside, the allow bit, NO_MATCH when
    no rule matches (RFC 9309 2.2.2: "If no match is found, ... the URI is allowed")."""
    rules = peer(b"User-agent: *\nAllow: /a/b\nDisallow: /a\n", "rfc9309", None)
    dirs = rules.directives
    key = rules.path_key("/a/c", "*")
    assert key != NO_MATCH
    assert not key & ALLOW_BIT
    assert dirs[3 * (key & INDEX_MASK)] & _tokenize.LINE_MASK == 3  # line 3: Disallow: /a
    allow = rules.path_key("/a/b", "*")
    assert allow & ALLOW_BIT
    assert dirs[3 * (allow & INDEX_MASK)] & _tokenize.LINE_MASK == 2
    assert rules.path_key("/z", "*") == NO_MATCH


def test_wrong_types_raise_type_error(peer: Make) -> None:
    """The surface's types are ``str``: anything else is a TypeError, never a crash."""
    rules = peer(b"User-agent: *\nDisallow: /a\n", "rfc9309", None)
    for call in (lambda: rules.is_allowed(None),  # type: ignore[arg-type]
                 lambda: rules.is_allowed("/", user_agent=3),  # type: ignore[arg-type]
                 lambda: rules.path_key(b"/a", "*"),  # type: ignore[arg-type]
                 lambda: rules.url_key_path(None, "*"),  # type: ignore[arg-type]
                 lambda: rules.selected_groups(None)):  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            call()


# -- groups ----------------------------------------------------------------------------------


def test_selected_groups_merge_and_fall_back(peer: Make) -> None:
    """RFC 9309 2.2.1: groups naming the same product token are combined; a crawler no group
    names obeys the '*' group; matching is case-insensitive."""
    body = (b"User-agent: a\nDisallow: /1\n\nUser-agent: *\nDisallow: /2\n\n"
            b"User-agent: A\nDisallow: /3\n")
    rules = peer(body, "rfc9309", None)
    idx = rules.group_index
    assert idx.count == 3
    assert rules.selected_groups("a") == (0, 2)
    assert rules.selected_groups("A/2.0") == (0, 2)
    assert rules.selected_groups("other") == (1,)
    assert rules.directive_count == 6


def test_1994_first_record_on_the_pure_peer() -> None:
    """The 1994 draft: "the first record whose User-agent value contains the robot's name";
    only the pure peer reads it (the selector's choice)."""
    rules = PurePeer(b"User-agent: foobot\nDisallow: /a\n\nUser-agent: foo\nDisallow: /b\n",
                     "1994", None)
    assert rules.selected_groups("foo") == (0,)
    assert not rules.is_allowed("/a", user_agent="foo")


# -- the reading -----------------------------------------------------------------------------


@pytest.mark.parametrize(("dialect", "body", "first", "then"), [
    ("google", b"User-agent: googlebot\nDisallow: /\n", "\x00googlebot", "googlebot"),
    ("rfc9309", b"User-agent: googlebot\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
     "\x00googlebot", "googlebot"),
    ("1994", b"User-agent: a\nDisallow: /\n", "\x000", "a"),
], ids=["google", "rfc9309-star-group", "1994"])
def test_no_agent_string_reaches_a_selection_s_memo(peer: Make, dialect: Dialect, body: bytes,
                                                    first: str, then: str) -> None:
    """The reproduction of issue 41: an agent starting with NUL, asked first, made the pure
    peer's one memo give ``googlebot`` the matcher of the agent's own selection (``*``), so
    ``User-agent: googlebot`` / ``Disallow: /`` answered allowed; in 1994 ``"\x000"``
    poisoned group 0. RFC 9309 2.2.1: the group that names the agent applies, whatever was
    asked before (and so ``then`` is disallowed ``/x``, asked first or after)."""
    if peer is not PurePeer and dialect not in _peers.NATIVE_DIALECTS:
        pytest.skip("the native peer does not read this dialect (the selector: 1994 is pure)")
    fresh = peer(body, dialect, None)
    assert not fresh.is_allowed("/x", user_agent=then)
    rules = peer(body, dialect, None)
    rules.is_allowed("/x", user_agent=first)
    assert not rules.is_allowed("/x", user_agent=then)
    assert rules.selected_groups(then) == fresh.selected_groups(then) == (0,)
    assert rules.url_key_path("/x", then) == fresh.url_key_path("/x", then)


def test_the_reading_is_the_tokenizer_s(peer: Make) -> None:
    """robots.cc: a byte-order mark (or a prefix of one) is skipped; CR and CRLF end lines.
    The text, the stream and the noted lines are robotrules._tokenize's, on both peers."""
    body = b"\xef\xbb\xbfUser-agent: *\r\nDisalow: /x\rAllow /y\n"
    rules = peer(body, "google", "https://example.com/robots.txt")
    text, bom = _tokenize.to_text(body)
    assert rules.latin1_text == text
    assert rules.bom_length == bom == 3
    odd: list[int] = []
    assert rules.directives == _tokenize.tokenize(text, "google", odd=odd)
    assert list(rules.noted_lines) == odd
    assert rules.dialect == "google"
    assert rules.size == len(body)
    assert rules.base_url == "https://example.com/robots.txt"


def test_source_parses_to_the_same_answers(peer: Make) -> None:
    body = b"\xef\xbbUser-agent: *\r\nDisallow: /x\r\nAllow: /x/y\r\n"
    rules = peer(body, "rfc9309", None)
    again = peer(rules.source(), "rfc9309", None)
    urls = ["/x", "/x/y", "/z"]
    assert [again.url_key_path(u, "*") for u in urls] == [rules.url_key_path(u, "*")
                                                           for u in urls]
    assert again.bom_length == rules.bom_length == 2


def test_evictions_start_at_zero(peer: Make) -> None:
    """The memory budget (docs/architecture.md) is not reached by a small file."""
    rules = peer(RFC_5_1, "rfc9309", None)
    for agent in ("foobot", "barbot", "x"):
        rules.is_allowed("/", user_agent=agent)
    assert rules.evictions == 0


# -- the batch API ---------------------------------------------------------------------------
#
# decide_urls (robotrules._peer.Peer.decide_urls): entry i holds the facts of the key that
# decides urls[i] (the key url_key_path gives, -1 for RFC 9309's /robots.txt), found from the
# key alone: allowed by the allow bit (-1 and NO_MATCH: allowed, RFC 9309 2.2.2), the line
# of the key's directive, the reason index (0 rule, 3 robots.txt: robotrules._model.REASONS);
# NO_MATCH's rule and reason as the caller gives them (no_match); the rules each once, as
# directive indices, in the order of the sorted keys. The facade builds
# RobotsTxt.decide_many on it (tests/core/test_decide_many.py: entry i equals explain(urls[i])).

_NO_MATCH_FACTS = (-1, 1)  # no rule, "no-matching-rule"


def _facts(rules: Peer, key: int, no_match: tuple[int, int]) -> tuple[int, int, int, int]:
    """``(allowed, line, rule, reason)`` of a key, by the contract."""
    if key == -1:
        allowed, rule, reason = 1, -1, 3
    elif key == NO_MATCH:
        allowed, (rule, reason) = 1, no_match
    else:
        allowed, rule, reason = int(key & ALLOW_BIT != 0), key & INDEX_MASK, 0
    line = 0 if rule < 0 else rules.directives[3 * rule] & _tokenize.LINE_MASK
    return allowed, line, rule, reason


def _want(rules: Peer, urls: list[str], agent: str,
          no_match: tuple[int, int] = _NO_MATCH_FACTS) -> tuple[object, ...]:
    """The columns decide_urls gives, by the contract: from url_key_path per URL."""
    keys = [rules.url_key_path(u, agent)[0] for u in urls]
    facts = {k: _facts(rules, k, no_match) for k in keys}
    order: list[int] = []
    for k in sorted(facts):
        r = facts[k][2]
        if r >= 0 and r not in order:
            order.append(r)
    index = [-1 if facts[k][2] < 0 else order.index(facts[k][2]) for k in keys]
    return (array("B", [facts[k][0] for k in keys]), array("q", [facts[k][1] for k in keys]),
            array("q", index), array("B", [facts[k][3] for k in keys]), tuple(order))


def test_decide_urls_answers_each_url_in_input_order(peer: Make) -> None:
    """RFC 9309 5.1 (the verdicts: is_allowed's), RFC 9309 2.2.2 (/robots.txt allowed); the
    keys are url_key_path's, the lines those of the rules they name."""
    rules = peer(RFC_5_1, "rfc9309", None)
    urls = ["https://example.com/example/page.html", "/publications/x?y", "/", "/a.gif",
            "/example/page.html", "/robots.txt"] * 3  # duplicates
    for agent in ("foobot", "barbot", "x"):
        paths: list[str] = []
        got = rules.decide_urls(urls, agent, _NO_MATCH_FACTS, paths)
        assert got == _want(rules, urls, agent)
        assert [a.typecode for a in got[:4]] == ["B", "q", "q", "B"]
        assert list(got[0]) == [rules.is_allowed(u, user_agent=agent) for u in urls]
        assert paths == [rules.url_key_path(u, agent)[1] for u in urls]
        assert rules.decide_urls(urls, agent, _NO_MATCH_FACTS) == got


def test_decide_urls_takes_str_subclasses_tuples_and_sequences(peer: Make) -> None:
    """The surface's types are ``str``: a subclass's text is read; any sequence of URLs."""
    from collections import UserList

    class Url(str):
        pass

    rules = peer(RFC_5_1, "rfc9309", None)
    urls = ["/example/page.html", "/publications/x", "/", "/robots.txt", "/"]
    want = _want(rules, urls, "foobot")
    for given in ([Url(u) for u in urls], tuple(urls), UserList(urls)):
        paths: list[str] = []
        got = rules.decide_urls(given, "foobot", _NO_MATCH_FACTS, paths)
        assert got == want
        assert all(type(p) is str for p in paths)
    assert rules.decide_urls(urls, Url("foobot"), _NO_MATCH_FACTS) == want


def test_decide_urls_of_no_urls(peer: Make) -> None:
    rules = peer(RFC_5_1, "rfc9309", None)
    got = rules.decide_urls([], "*", _NO_MATCH_FACTS)
    assert got == (array("B"), array("q"), array("q"), array("B"), ())


def test_decide_urls_with_a_thousand_distinct_keys(peer: Make) -> None:
    """One call deciding 1,000 URLs by 1,000 rules, in shuffled order with repeats (the
    kernel's table of distinct keys grows past its first size many times)."""
    import random

    n = 1000
    body = b"User-agent: *\n" + b"".join(
        (b"Allow: /p%d/\n" if i % 3 == 0 else b"Disallow: /p%d/\n") % i for i in range(n))
    rules = peer(body, "rfc9309", None)
    urls = [f"/p{i}/x" for i in range(n)] * 2 + ["/elsewhere", "/robots.txt"]
    random.Random(9).shuffle(urls)
    got = rules.decide_urls(urls, "*", _NO_MATCH_FACTS)
    assert got == _want(rules, urls, "*")
    assert len(got[4]) == n
    # RFC 9309 2.2.2: the longest match decides; each URL's rule is the one on its line
    for i, u in enumerate(urls[:50]):
        if u.startswith("/p"):
            j = int(u[2:].split("/")[0])
            assert got[1][i] == j + 2
            assert got[0][i] == (j % 3 == 0)


def test_decide_urls_counts_a_shared_rule_once(peer: Make) -> None:
    """NO_MATCH given a rule (Google's empty-rule report, robots.cc's matching_line) that a
    key also names: ``rules`` holds it once, both entries point at it."""
    rules = peer(b"User-agent: *\nDisallow: /a\nDisallow:\n", "google", None)
    got = rules.decide_urls(["/a", "/c", "/", "/a"], "*", (2, 0))
    assert got[4] == (1, 2)  # the directives of 'Disallow: /a' and 'Disallow:'
    assert list(got[2]) == [0, 1, 1, 0]
    assert list(got[1]) == [2, 3, 3, 2]
    assert list(got[0]) == [0, 1, 1, 0]
    assert got == _want(rules, ["/a", "/c", "/", "/a"], "*", (2, 0))


def test_decide_urls_refuses_wrong_types(peer: Make) -> None:
    """The surface's types: anything else is a TypeError (ValueError for facts out of
    range), never a crash."""
    rules = peer(b"User-agent: *\nDisallow: /a\n", "rfc9309", None)
    for bad in ("/a", b"/a", None, 3, [None], [b"/a"], ["/a", 5]):
        with pytest.raises(TypeError):
            rules.decide_urls(bad, "*", _NO_MATCH_FACTS)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rules.decide_urls(["/a"], None, _NO_MATCH_FACTS)  # type: ignore[arg-type]
    for bad_facts, error in (((-1,), ValueError), ((-1, 1, 0), ValueError), (None, TypeError),
                             ((-2, 1), ValueError), ((-1, 256), ValueError),
                             ((1 << 40, 0), ValueError), (("1", 0), TypeError)):
        with pytest.raises(error):
            rules.decide_urls(["/a"], "*", bad_facts)  # type: ignore[arg-type]


def test_peers_decide_urls_alike() -> None:
    """The native peer's columns are the pure peer's (the differential contract)."""
    if _native is None:
        pytest.skip("the native peer is not in use in this build")
    import random

    from tests.core.gen import QUERY_AGENTS, rand_body, rand_url

    rng = random.Random(20)
    for _ in range(30):
        body = rand_body(rng).encode("utf-8", "surrogatepass")
        urls = [rand_url(rng) for _ in range(20)] * 2
        for dialect in ("rfc9309", "google"):
            a, b = PurePeer(body, dialect, None), _native(body, dialect, None)
            for agent in QUERY_AGENTS[:4]:
                pa: list[str] = []
                pb: list[str] = []
                assert a.decide_urls(urls, agent, _NO_MATCH_FACTS, pa) == (
                    b.decide_urls(urls, agent, _NO_MATCH_FACTS, pb))
                assert pa == pb


def test_selected_groups_are_the_selection_the_verdicts_use() -> None:
    """One selection per answer (issue 37): the native peer's groups are those of the C
    selection its keys are matched by, and they equal the pure home of the choice
    (robotrules._compile.select: RFC 9309 2.2.1, the groups whose line names the agent's
    product token, merged; else the '*' groups; Google's parser as the google dialect) on
    generated files and agents (bare tokens and full User-Agent headers), in every dialect
    the native peer reads; the pure peer's are _compile.select's in every dialect."""
    import random

    from robotrules import _dialects
    from robotrules._compile import select
    from tests.core.gen import AGENTS, QUERY_AGENTS, rand_body

    agents = [*QUERY_AGENTS, *AGENTS, "Mozilla/5.0 (compatible; FooBot/2.1; +http://x/)",
              "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1)"]
    rng = random.Random(37)
    for _ in range(150):
        body = rand_body(rng).encode("utf-8", "surrogatepass")
        for dialect in _dialects.NAMES:
            pure = PurePeer(body, dialect, None)
            native = (_native(body, dialect, None) if _native is not None
                      and _peers.peer_for(body, dialect) is _native else None)
            for agent in rng.sample(agents, 8):
                want = select(pure.group_index, _token.query_key(agent), dialect)[1]
                assert pure.selected_groups(agent) == want
                if native is not None:
                    assert native.selected_groups(agent) == want, (body, dialect, agent)
                    native.is_allowed("/", user_agent=agent)  # (the selection compiled)
                    assert native.selected_groups(agent) == want


def test_known_verdict_answers_from_the_peers_memo(peer: Make) -> None:
    """verdict_memo/keep_verdicts/known_verdict (robotrules._peer.Peer): None while no memo
    is kept for the agent, or while its memo keeps no facts for the deciding key
    (url_key_path's); once kept by one call with the seven values, ``make(*facts,
    user_agent, path)`` from one call with the URL and the agent; the memo keeps at most its
    bound, and an emptied memo answers nothing."""
    made: list[tuple[object, ...]] = []

    def make(*values: object) -> tuple[object, ...]:
        made.append(values)
        return values

    rules = peer(RFC_5_1, "rfc9309", None)
    native_memo = _native is not None and peer is not PurePeer
    maker = _peers.fast_constructor(robotrules.Verdict, ("allowed", "line", "rule", "agents",
                                    "reason", "dialect", "detail", "user_agent", "path"))
    memo = rules.verdict_memo(maker if native_memo else make, 2)
    url = "https://example.com/example/page.html"
    assert rules.known_verdict(url, "foobot") is None  # no memo kept for the agent
    key, path = rules.url_key_path(url, "foobot")
    facts = (False, 9, None, ("foobot",), "rule", "rfc9309", "a sentence")
    memo.keep(key, facts)
    assert rules.known_verdict(url, "foobot") is None  # still none bound to foobot
    rules.keep_verdicts("foobot", memo)
    got = rules.known_verdict(url, "foobot")
    if native_memo:
        assert got == robotrules.Verdict(*facts[:5], "foobot", path, "rfc9309", "a sentence")
    else:
        assert got == (*facts, "foobot", path)
    assert rules.known_verdict(url, "barbot") is None  # the memo is foobot's
    assert rules.known_verdict("https://example.com/", "foobot") is None  # no facts kept
    for k in (1, 2, 3):
        memo.keep(k, facts)
    assert len(memo) <= 2
    memo.keep(key, facts)
    memo.clear()
    assert len(memo) == 0
    assert rules.known_verdict(url, "foobot") is None
    with pytest.raises(ValueError):
        memo.keep(key, facts[:6])
    with pytest.raises(ValueError):
        rules.verdict_memo(maker if native_memo else make, 0)
    with pytest.raises(TypeError):
        rules.keep_verdicts("foobot", {})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rules.known_verdict(b"/x", "foobot")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rules.known_verdict(url, None)  # type: ignore[arg-type]


def test_a_peer_keeps_memos_for_a_bounded_number_of_agents(peer: Make) -> None:
    """keep_verdicts (robotrules._peer.Peer): the agent strings a peer keeps a memo for are
    at most AGENTS_KEPT (past it, every one is dropped before the next is kept), whatever
    the number of agents that ask."""
    rules = peer(RFC_5_1, "rfc9309", None)
    maker = _peers.fast_constructor(robotrules.Verdict, ("allowed", "line", "rule", "agents",
                                    "reason", "dialect", "detail", "user_agent", "path"))
    memo = rules.verdict_memo(maker, 4)
    key, _ = rules.url_key_path("/x", "bot0")
    memo.keep(key, (True, None, None, ("*",), "no-matching-rule", "rfc9309", "a sentence"))
    agents = [f"bot{i}" for i in range(AGENTS_KEPT + 1)]
    for agent in agents:
        rules.keep_verdicts(agent, memo)
    known = [a for a in agents if rules.known_verdict("/x", a) is not None]
    assert 1 <= len(known) <= AGENTS_KEPT
    assert agents[-1] in known


def test_known_usage_answers_from_the_peers_memo(peer: Make) -> None:
    """usage_memo/keep_usages/known_usage (robotrules._peer.Peer): None while no usage memo
    of the scope and vocabulary asked is kept for the agent, while the memo of the
    selection's verdicts keeps no facts for the deciding key (url_key_path's), or, where they
    allow, while the usage memo keeps no answer for the rules that decide the path; then
    ``make(crawl, categories, lines, statements, user_agent, path, scope, verdict,
    vocabulary)``, each answer its own copy of the categories, and a URL that may not be
    fetched with no preferences (attach-05 3.1: preferences attach to what may be crawled);
    at most its bound answers. The path matcher is the peer's usage_paths (here over ``/b``:
    Content-Usage paths match as Allow/Disallow patterns)."""
    from robotrules.aipref._paths import pattern
    from robotrules.aipref.usage import Usage

    rules = peer(RFC_5_1, "rfc9309", None)
    native_memo = _native is not None and peer is not PurePeer
    vmake = _peers.fast_constructor(robotrules.Verdict, (
        "allowed", "line", "rule", "agents", "reason", "dialect", "detail", "user_agent",
        "path"))
    umake = _peers.fast_constructor(Usage)
    verdicts = rules.verdict_memo(vmake, 4)
    paths = rules.usage_paths([pattern("/b", "rfc9309")])  # rule 0 decides /b/...
    memo = rules.usage_memo(verdicts, paths, umake, "group", "vocab-07", 2)
    url, barred = "https://example.com/b/page.html", "https://example.com/example/page.html"
    assert rules.known_usage(url, "foobot", "group", "vocab-07") is None  # no memo bound
    rules.keep_usages("foobot", memo)
    assert rules.known_usage(url, "foobot", "group", "vocab-07") is None  # no verdict facts
    key, path = rules.url_key_path(url, "foobot")
    facts = (True, None, None, ("foobot",), "no-matching-rule", "rfc9309", "a sentence")
    verdicts.keep(key, facts)
    assert rules.known_usage(url, "foobot", "group", "vocab-07") is None  # no answer for (0,)
    cats: dict[str, bool | None] = {"train-ai": False}
    memo.keep((0,), (cats, (3,), ()))
    got = rules.known_usage(url, "foobot", "group", "vocab-07")
    verdict = robotrules.Verdict(*facts[:5], "foobot", path, "rfc9309", "a sentence")
    assert type(got) is Usage
    assert got == Usage(True, cats, (3,), (), "foobot", path, "group", verdict, "vocab-07")
    assert got.verdict == verdict
    assert got.categories is not cats
    # another scope or vocabulary is another memo's
    assert rules.known_usage(url, "foobot", "file", "vocab-07") is None
    assert rules.known_usage(url, "foobot", "group", "vocab-08") is None
    assert rules.known_usage(url, "barbot", "group", "vocab-07") is None
    bkey, bpath = rules.url_key_path(barred, "foobot")
    verdicts.keep(bkey, (False, 9, None, ("foobot",), "rule", "rfc9309", "a sentence"))
    assert rules.known_usage(barred, "foobot", "group", "vocab-07") == Usage(
        False, {}, (), (), "foobot", bpath, "group",
        robotrules.Verdict(False, 9, None, ("foobot",), "rule", "foobot", bpath, "rfc9309",
                           "a sentence"), "vocab-07")
    for chosen in ((), (1,), (2,)):
        memo.keep(chosen, (cats, (), ()))
    assert len(memo) <= 2
    memo.clear()
    assert len(memo) == 0
    with pytest.raises(ValueError):
        memo.keep((), (cats, [], ()))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        rules.usage_memo(verdicts, paths, umake, "group", "vocab-07", 0)
    with pytest.raises(TypeError):
        rules.keep_usages("foobot", verdicts)  # type: ignore[arg-type]
    assert native_memo == (type(memo).__module__ == "robotrules._native")


# -- the selector ------------------------------------------------------------------------------


def test_the_selector_takes_the_native_fast_path_where_it_should() -> None:
    """Issue 20: google and rfc9309 files go to the native peer where it is in use, and
    is_allowed is then its C method, with no Python frame in between; 1994 files and bodies
    past the kernel's cap go to the pure peer."""
    body = b"User-agent: *\nDisallow: /x\n"
    if _native is None:
        for dialect in ("rfc9309", "google", "1994"):
            assert _peers.peer_for(body, dialect) is PurePeer  # type: ignore[arg-type]
            assert isinstance(robotrules.parse(body, dialect), PurePeer)  # type: ignore[arg-type]
        return
    assert _peers.NATIVE
    assert robotrules.NATIVE
    for dialect in ("rfc9309", "google"):
        assert _peers.peer_for(body, dialect) is _native  # type: ignore[arg-type]
        rules = robotrules.parse(body, dialect)  # type: ignore[arg-type]
        assert isinstance(rules, _native)
        assert isinstance(rules, robotrules.RobotsTxt)
        assert type(rules).is_allowed is _native.is_allowed  # the C method itself
        assert not isinstance(type(rules).is_allowed, types.FunctionType)  # compiled, in C
    assert _peers.peer_for(body, "1994") is PurePeer
    assert isinstance(robotrules.parse(body, "1994"), PurePeer)
    assert isinstance(robotrules.parse(body, "1994"), robotrules.RobotsTxt)
    past_cap = bytes(_peers.MAX_NATIVE_BODY + 1)  # zero pages: cheap to make, never parsed
    assert _peers.peer_for(past_cap, "google") is PurePeer
    assert _peers.peer_for(past_cap, "rfc9309") is PurePeer


def test_the_native_peer_refuses_what_it_does_not_read() -> None:
    """The selector never gives the native peer a 1994 file: built directly, it says so."""
    if _native is None:
        pytest.skip("the native peer is not in use in this build")
    with pytest.raises(ValueError, match="pure peer"):
        _native(b"User-agent: *\n", "1994", None)
    with pytest.raises(TypeError):
        _native("User-agent: *\n", "google", None)  # type: ignore[arg-type]


def test_only_the_selector_chooses() -> None:
    """One selector (issue 20): no module but robotrules._peers imports the kernel to run it
    (type-only imports aside), and no trace of the old switch remains (``_native_on``, the
    callback ``_pure_is_allowed``)."""
    import ast
    from pathlib import Path

    root = Path(robotrules.__file__).parent
    importers = set()
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert "_native_on" not in source, path
        assert "_pure_is_allowed" not in source, path
        tree = ast.parse(source)
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and "TYPE_CHECKING" in ast.unparse(node.test)
                       for stmt in node.body for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and (
                    node.module == "_native" or any(a.name == "_native" for a in node.names)):
                importers.add(path.relative_to(root).as_posix())
    assert importers == {"_peers.py"}
    for part in sorted((root / "_kernel").glob("*.pxi")):
        assert "_pure_is_allowed" not in part.read_text(encoding="utf-8"), part
