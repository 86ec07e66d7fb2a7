"""robotrules._tables: every table the native kernel reads, held to the pure home of its rule.

The kernel copies these tables on first use and asks the functions per input; a table that
drifted from its home would make the two peers disagree. Each test names the home (and, where
the rule comes from outside, its source).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robotrules import _compile, _dialects, _directives, _match, _tables, _token, _tokenize, _url


def test_whitespace_is_absl_ascii_isspace() -> None:
    """robots.cc strips absl::ascii_isspace: space, \\t, \\n, \\v, \\f, \\r."""
    ws = _tables.whitespace()
    assert len(ws) == 256
    assert [c for c in range(256) if ws[c]] == [9, 10, 11, 12, 13, 32]


def test_key_forms_are_the_registrys() -> None:
    """The kernel's names and prefixes are robotrules._directives.key_forms, as bytes: every
    registry key is one of the names, and Google's keys and typos are prefixes."""
    names, prefixes = _tables.key_forms()
    dnames, dprefixes = _directives.key_forms()
    assert set(names) == {n.encode() for n in dnames}
    assert prefixes == tuple(p.encode() for p in dprefixes)
    assert {b"user-agent", b"allow", b"disallow", b"sitemap", b"crawl-delay"} <= set(names)
    assert {b"user-agent", b"useragent", b"disallow", b"dissallow"} <= set(prefixes)


def test_key_heads_cover_every_registry_key() -> None:
    """A field name whose first two bytes no key of the registry starts with is unknown
    without a look-up (robotrules._directives.key_starts)."""
    one, two = _tables.key_heads()
    assert (len(one), len(two)) == (128, 128 * 128)
    for head in _directives.key_starts():
        if len(head) == 2 and head.isascii():
            assert two[128 * ord(head[0]) + ord(head[1])], head
    assert two[128 * ord("u") + ord("s")]  # user-agent
    assert not two[128 * ord("z") + ord("q")]


@pytest.mark.parametrize("dialect", _tables.NATIVE_DIALECTS)
def test_not_plain_is_the_spec_s(dialect: str) -> None:
    """RFC 9309 2.2.3: '*' and '$' are special in every natively matched dialect."""
    table = _tables.not_plain(dialect)  # type: ignore[arg-type]
    spec = _dialects.SPECS[dialect]  # type: ignore[index]
    assert table == bytes(spec.not_plain(chr(c)) is not None for c in range(256))
    assert table[ord("*")]
    assert table[ord("$")]
    assert not table[ord("a")]
    assert not table[ord("/")]


@pytest.mark.parametrize("dialect", _tables.NATIVE_DIALECTS)
def test_token_bytes_are_the_agent_token_rule(dialect: str) -> None:
    """RFC 9309 2.2.1: a product token is made of "a-zA-Z_-" (robotrules._token)."""
    table = _tables.token_bytes(dialect)  # type: ignore[arg-type]
    assert table == _token.line_token_bytes(dialect)  # type: ignore[arg-type]
    for c in "azAZ_-":
        assert table[ord(c)], c
    for c in " /;*":
        assert not table[ord(c)], c


def test_roles_and_dialect_flags() -> None:
    """robotrules._index.build's roles of kinds; the 1994 draft ends a record at a blank line
    ("records are separated by one or more blank lines"), RFC 9309 does not."""
    for dialect in _tables.CODES:
        roles, lenient, blank_ends = _tables.roles(dialect)
        assert len(roles) == 128
        assert roles[_tokenize.UA] == _tables.ROLE_UA
        assert roles[_tokenize.ALLOW] == _tables.ROLE_ALLOW
        assert roles[_tokenize.DISALLOW] == _tables.ROLE_DISALLOW
        assert roles[_tokenize.BLANK] == _tables.ROLE_BLANK
        spec = _dialects.SPECS[dialect]
        assert (lenient, blank_ends) == (spec.lenient_keys, spec.blank_ends_group)
    assert _tables.roles("1994")[2]
    assert not _tables.roles("rfc9309")[2]


def test_pattern_growth_is_a_non_utf8_byte() -> None:
    """RFC 3986 2.1 as RFC 9309 2.2.2 applies it: a byte that is not UTF-8 becomes U+FFFD's
    or the Latin-1 character's escape, ``%C3%BF``: six bytes for one."""
    assert _tables.pattern_growth() == 6


@pytest.mark.parametrize("dialect", _tables.NATIVE_DIALECTS)
def test_pattern_bytes_are_the_normaliser_s(dialect: str) -> None:
    kept, slow, decodes = _tables.pattern_bytes(dialect)  # type: ignore[arg-type]
    pattern = _dialects.SPECS[dialect].pattern  # type: ignore[index]
    for c in range(256):
        if kept[c]:
            assert pattern("/a" + chr(c) + "b") == "/a" + chr(c) + "b"
            assert not slow[c]
        if decodes[c]:
            assert pattern(f"/%{c:02x}") == "/" + chr(c)
    assert not kept[ord("%")]
    assert not slow[ord("%")]  # the kernel reads escapes itself
    assert not slow[0xE9]  # and the bytes above 127 (pattern_escapes)
    assert kept[ord("a")]
    encodes, latin1 = _tables.pattern_escapes(dialect)  # type: ignore[arg-type]
    for c in range(128):
        if encodes[c]:
            assert pattern("/a" + chr(c) + "b") == f"/a%{c:02X}b"
            assert not kept[c]
            assert not slow[c]
    # RFC 9309 2.2.2 reads a file that is not UTF-8 as Latin-1 ("/caf\xe9": %C3%A9);
    # robots.cc MaybeEscapePattern escapes each octet (%E9)
    assert latin1 == (dialect == "rfc9309")
    assert pattern("/caf\xe9") == ("/caf%C3%A9" if latin1 else "/caf%E9")
    assert pattern("/caf\xc3\xa9") == "/caf%C3%A9"  # UTF-8: its own octets, both dialects


def test_rfc9309_escapes_what_it_does_not_keep() -> None:
    """RFC 9309 2.2.2: octets outside the URI characters (a space, ``"``, ``{`` ...) are
    percent-encoded, and ``$`` too where it does not end the pattern; the kernel writes them
    in C (no byte of a value is left to the pure reading)."""
    encodes, _ = _tables.pattern_escapes("rfc9309")
    assert all(encodes[ord(c)] for c in ' {$"')
    assert not any(encodes[ord(c)] for c in "a*%")
    assert not any(_tables.pattern_bytes("rfc9309")[1])
    assert not any(_tables.pattern_bytes("google")[1])


def test_rfc9309_decodes_unreserved_escapes_only() -> None:
    """RFC 3986 6.2.2.2: percent-encoded unreserved characters are decoded; others (``%2F``)
    are kept, upper-cased."""
    decodes = _tables.pattern_bytes("rfc9309")[2]
    assert decodes[ord("A")]
    assert decodes[ord("~")]
    assert not decodes[ord("/")]
    assert _tables.decoded_escapes() == _url.decoded_escape_bytes()
    assert _tables.path_bytes_kept() == _url.normal_path_bytes()


def test_rfc9309_path_escapes_are_read_off_rfc_normalize() -> None:
    """RFC 9309 2.2.2: a URL's octets outside the URI characters are percent-encoded
    (``/a b`` is ``/a%20b``), and a literal ``*`` or ``$`` is written ``%2A`` / ``%24``
    (robotrules._url); every other byte is kept or is '%'. The kernel reads this table."""
    escapes = _tables.path_escapes()
    assert escapes == _url.escaped_path_bytes()
    assert all(escapes[ord(c)] for c in ' "<>{}|\\^`*$\x00\x7f')
    assert not any(escapes[ord(c)] for c in "aZ09-._~:/?#[]@!&'()+,;=%")
    assert all(escapes[c] for c in range(128, 256))  # UTF-8 octets: their own escapes
    kept = _tables.path_bytes_kept()
    assert all(kept[c] != escapes[c] for c in range(256) if c != ord("%"))


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(max_codepoint=127), max_size=40))
def test_an_agent_without_the_header_mark_is_its_own_token(agent: str) -> None:
    """robotrules._token.product_token: a user agent that is no header (no '/') is its own
    product token, so its key is the agent lower-cased; the kernel computes that in C."""
    assert _tables.AGENT_HEADER_MARK == _token.HEADER_MARK == "/"
    if "/" not in agent:
        assert _tables.query_key(agent) == agent.lower()


def test_companion_mark_and_bom_have_one_home() -> None:
    """robots.cc HandleAllow (``/index.htm``) and its byte-order-mark skip: the kernel reads
    both from their pure homes."""
    assert _tables.COMPANION_MARK == _compile.COMPANION_MARK.encode() == b"/index.htm"
    assert _compile.may_have_companion("/a/index.html", True)
    assert not _compile.may_have_companion("/a/index.html", False)
    assert _tables.bom_length is _tokenize.bom_length
    assert [_tokenize.bom_length(b) for b in (b"\xef\xbb\xbfx", b"\xef\xbbx", b"\xefx", b"x",
                                              b"", b"x\xef\xbb\xbf")] == [3, 2, 1, 0, 0, 0]


def test_numbers_the_kernel_checks_its_own_against() -> None:
    assert _match.INDEX_MASK.bit_length() == _tables.INDEX_BITS
    assert _tables.NO_MATCH == _match.NO_MATCH
    assert _tables.KIND_SHIFT == _tokenize.KIND_SHIFT
    assert _tables.CODES[:2] == _tables.NATIVE_DIALECTS == ("rfc9309", "google")
