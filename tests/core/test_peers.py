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

import pytest

import robotrules
from robotrules import _peers, _tokenize
from robotrules._match import ALLOW_BIT, INDEX_MASK, NO_MATCH
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
    keys = peer(body, "rfc9309", None).url_keys(["/robots.txt", "/x"], "*")
    assert keys[0] == -1
    assert keys[1] != -1
    assert not keys[1] & ALLOW_BIT


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


def test_url_keys_are_path_keys_in_input_order(peer: Make) -> None:
    rules = peer(RFC_5_1, "rfc9309", None)
    urls = ["https://example.com/example/page.html", "/publications/x?y", "/", "/a.gif"]
    for agent in ("foobot", "barbot", "x"):
        keys = rules.url_keys(urls, agent)
        assert isinstance(keys, array)
        assert keys.typecode == "q"
        assert list(keys) == [rules.path_key(p, agent)
                              for p in ("/example/page.html", "/publications/x?y", "/", "/a.gif")]
        assert [bool(k & ALLOW_BIT) for k in keys] == [rules.is_allowed(u, user_agent=agent)
                                                       for u in urls]


def test_wrong_types_raise_type_error(peer: Make) -> None:
    """The surface's types are ``str``: anything else is a TypeError, never a crash."""
    rules = peer(b"User-agent: *\nDisallow: /a\n", "rfc9309", None)
    for call in (lambda: rules.is_allowed(None),  # type: ignore[arg-type]
                 lambda: rules.is_allowed("/", user_agent=3),  # type: ignore[arg-type]
                 lambda: rules.path_key(b"/a", "*"),  # type: ignore[arg-type]
                 lambda: rules.url_keys([None], "*"),  # type: ignore[list-item]
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
    assert list(again.url_keys(urls, "*")) == list(rules.url_keys(urls, "*"))
    assert again.bom_length == rules.bom_length == 2


def test_evictions_start_at_zero(peer: Make) -> None:
    """The memory budget (docs/architecture.md) is not reached by a small file."""
    rules = peer(RFC_5_1, "rfc9309", None)
    for agent in ("foobot", "barbot", "x"):
        rules.is_allowed("/", user_agent=agent)
    assert rules.evictions == 0


def test_batch_loops(peer: Make) -> None:
    keys = array("q", [5, -1, 5, 7, -1])
    table = peer.distinct_keys(keys)  # type: ignore[attr-defined]
    assert list(table) == [-1, 5, 7]
    allowed, line, rule, reason = peer.fill_columns(  # type: ignore[attr-defined]
        keys, table, bytes([1, 0, 1]), array("q", [0, 3, 4]), array("q", [-1, 0, 1]),
        bytes([3, 0, 0]))
    assert list(allowed) == [0, 1, 0, 1, 1]
    assert list(line) == [3, 0, 3, 4, 0]
    assert list(rule) == [0, -1, 0, 1, -1]
    assert list(reason) == [0, 3, 0, 0, 3]
    with pytest.raises(ValueError, match="one fact per table entry"):
        peer.fill_columns(keys, table, b"", array("q"), array("q"), b"")  # type: ignore[attr-defined]


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
