"""``robotrules._dialects``: the three dialect specs, the one place where they differ.

Sources: RFC 9309 (``/work/shared/REFERENCE.md`` section 1), Google's ``robots.cc`` (REFERENCE
"Google-specific deltas" and table 2a), and the 1994/1996 legacy rules (``seeds/000``,
REFERENCE "Legacy behaviour").
"""

from __future__ import annotations

from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from robotrules import _dialects, _directives
from robotrules._types import Dialect

RFC, GOOGLE, LEGACY = (_dialects.SPECS[n] for n in ("rfc9309", "google", "1994"))


def test_names_and_specs() -> None:
    """Every ``Dialect`` has one spec; the default (rfc9309) is listed first."""
    assert set(_dialects.NAMES) == set(get_args(Dialect))
    assert _dialects.NAMES[0] == "rfc9309"
    for name in _dialects.NAMES:
        assert _dialects.spec(name) is _dialects.SPECS[name]
        assert _dialects.SPECS[name].name == name


@pytest.mark.parametrize("name", ["RFC9309", "robotstxt", "", "1996"])
def test_unknown_dialect_names_the_choices(name: str) -> None:
    with pytest.raises(ValueError, match="rfc9309, google, 1994"):
        _dialects.spec(name)


def test_legacy_switches() -> None:
    """REFERENCE "Legacy behaviour": "A legacy mode ... needs these switches: first-match,
    substring UA, blank line ends a record, ... no wildcards"; seeds/000: records are
    "separated by one or more blank lines"; exact keys only (no Google misspellings)."""
    assert LEGACY.first_match
    assert not LEGACY.token_agents
    assert LEGACY.blank_ends_group
    assert not LEGACY.wildcards
    assert not LEGACY.lenient_keys


@pytest.mark.parametrize("spec", [RFC, GOOGLE], ids=["rfc9309", "google"])
def test_rfc_and_google_switches(spec: _dialects.DialectSpec) -> None:
    """RFC 9309 2.2.2: "The most specific match MUST be used" (not first match); 2.1: "Blank
    lines do NOT end a group"; 2.2.1 product tokens; 2.2.3 ``*`` and ``$``; 2.2.4 lenient
    parsing MAY accept misspellings (Google delta "Typos")."""
    assert not spec.first_match
    assert spec.token_agents
    assert not spec.blank_ends_group
    assert spec.wildcards
    assert spec.lenient_keys


def test_only_rfc9309_always_allows_robots_txt() -> None:
    """RFC 9309 2.2.2: "/robots.txt is implicitly allowed"; REFERENCE 2a: google/robotstxt
    ✗ (not in the library), nor the 1994 standard."""
    assert RFC.robots_txt_allowed
    assert not GOOGLE.robots_txt_allowed
    assert not LEGACY.robots_txt_allowed


def test_paths() -> None:
    """RFC 9309 2.2.2: "/foo/bar/%62%61%7A matches /foo/bar/baz", %2F stays encoded; Google
    delta "Input contract": the library does not normalise the URL; MK1996: "%xx is
    unencoded prior to comparison unless it is '/'"."""
    url = "https://a.example/foo/bar/%62%61%7A?q=%2F#frag"
    assert RFC.path(url) == "/foo/bar/baz?q=%2F"
    assert GOOGLE.path(url) == "/foo/bar/%62%61%7A?q=%2F"
    assert LEGACY.path(url) == "/foo/bar/baz?q=%2F"
    assert LEGACY.path("/a%2Fb%7e") == "/a%2Fb~"


def test_patterns() -> None:
    """RFC 9309 2.2.3: ``/path/file-with-a-%2A.html`` matches a literal ``*`` (the encoding
    stays, so no wildcard); Google delta: hex is upper-cased (``%aa`` → ``%AA``), non-ASCII
    percent-encoded; MK1996: "%xx is unencoded ... unless it is '/'"."""
    assert RFC.pattern("/path/file-with-a-%2A.html") == "/path/file-with-a-%2A.html"
    assert RFC.pattern("/a%7eb%2F") == "/a~b%2F"
    assert GOOGLE.pattern("/a%7eb%2F") == "/a%7Eb%2F"
    assert GOOGLE.pattern("/ä".encode().decode("latin-1")) == "/%C3%A4"  # the stream's text
    assert LEGACY.pattern("/path/file-with-a-%2A.html") == "/path/file-with-a-*.html"
    assert LEGACY.pattern("/a%7eb%2F") == "/a~b%2F"


PLAIN = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=20).map(
    lambda s: "/" + s)


@given(PLAIN, st.sampled_from(_dialects.NAMES))
def test_a_plain_pattern_is_used_as_written(raw: str, name: Dialect) -> None:
    """DialectSpec.not_plain's contract: a value it does not flag is used as it is, as a plain
    prefix (the dialect's pattern() leaves it unchanged)."""
    spec = _dialects.spec(name)
    if spec.not_plain(raw) is None:
        assert spec.pattern(raw) == raw


@pytest.mark.parametrize(("spec", "raw"), [
    (RFC, "/a*b"), (RFC, "/a$"), (RFC, "/%41"), (RFC, "/ä"), (RFC, "/a b"),
    (GOOGLE, "/a*"), (GOOGLE, "/a$"), (GOOGLE, "/%7e"), (GOOGLE, "/\xe4"),
    (LEGACY, "/%7e"), (LEGACY, "/\xe4"),
])
def test_special_characters_are_not_plain(spec: _dialects.DialectSpec, raw: str) -> None:
    """RFC 9309 2.2.3 (``*``, ``$``) and 2.2.2 (percent-encoding) give these values meaning
    beyond their characters; the 1994 standard has no wildcards (REFERENCE), so only ``%``
    and non-ASCII need work there."""
    assert spec.not_plain(raw) is not None


def test_1994_wildcards_are_plain() -> None:
    """REFERENCE "Legacy behaviour": "Wildcards: None" in 1994."""
    assert LEGACY.not_plain("/a*b$") is None
    assert LEGACY.pattern("/a*b$") == "/a*b$"


def test_what_ends_a_run_of_agents() -> None:
    """RFC 9309 2.1: a group ends at a user-agent line after rules; 2.2.4: other records (a
    Sitemap) MUST NOT end it; rfc9309 reads Content-Usage as a rule (the dialect table)."""
    rules = {_directives.kind_of("allow"), _directives.kind_of("disallow")}
    usage = _directives.kind_of("content-usage")
    assert RFC.ends_agents == rules | {usage}
    assert GOOGLE.ends_agents == rules
    assert LEGACY.ends_agents == rules


def test_agent_tokens_and_group_merging_are_the_specs() -> None:
    """robots.cc ``ExtractUserAgent``: Google's token is the leading ``[A-Za-z_-]`` run; RFC
    9309 2.2.4 lets rfc9309 (and 1994) keep digits and dots (``MJ12bot``); RFC 9309 2.2.1
    merges the groups of one agent, the 1994 standard obeys the first record."""
    assert GOOGLE.agent_token.match("MJ12bot/1.0").group(0) == "MJ"
    assert RFC.agent_token.match("MJ12bot/1.0").group(0) == "MJ12bot"
    assert LEGACY.agent_token.match("archive.org_bot x").group(0) == "archive.org_bot"
    assert (RFC.merge_groups, GOOGLE.merge_groups, LEGACY.merge_groups) == (True, True, False)


def test_only_rfc9309_always_allows_the_robots_txt_path() -> None:
    """RFC 9309 2.2.2: "The /robots.txt URI is implicitly allowed"; robots.cc has no such
    exception (google), nor has the 1994 text: the one test is the spec's."""
    from robotrules._dialects import SPECS
    from robotrules._url import ROBOTS_TXT_PATH

    assert ROBOTS_TXT_PATH == "/robots.txt"
    assert SPECS["rfc9309"].implicitly_allowed("/robots.txt")
    assert not SPECS["rfc9309"].implicitly_allowed("/robots.txt?x")
    assert not SPECS["rfc9309"].implicitly_allowed("/ROBOTS.TXT")
    assert not SPECS["google"].implicitly_allowed("/robots.txt")
    assert not SPECS["1994"].implicitly_allowed("/robots.txt")
