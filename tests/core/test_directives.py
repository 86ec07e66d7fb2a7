"""``robotrules._directives``: the directive registry, key matching and value parsers.

Sources: RFC 9309 (``/work/shared/REFERENCE.md`` section 1), Google's ``robots.cc`` (REFERENCE
"Google-specific deltas", the ``jwm-robotstxt`` oracle), REFERENCE section 2b for the
non-standard directives, and the 1994 standard (``seeds/000``).
"""

from __future__ import annotations

from datetime import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from robotrules import _directives as D

GOOGLE_KEYS = ("user-agent", "allow", "disallow", "sitemap")


def test_kinds_are_registry_positions() -> None:
    """The module's contract: "A directive's position + 1 is its kind in the token stream"."""
    for n, d in enumerate(D.REGISTRY):
        assert D.kind_of(d.key) == n + 1
        assert D.directive(n + 1) is d
        assert D.KIND_NAMES[n + 1] == d.key
    assert D.directive(D.UNKNOWN) is None
    assert D.directive(D.BLANK) is None
    assert len(D.REGISTRY) < D.UNKNOWN < D.BLANK < 128  # 7 bits of kind


def test_kind_of_spellings_and_unknown_keys() -> None:
    assert D.kind_of("crawldelay") == D.kind_of("crawl-delay")
    with pytest.raises(KeyError):
        D.kind_of("no-such-field")


def test_only_googles_four_directives_are_acted_on_by_google() -> None:
    """REFERENCE 2a: Google's reporter lists crawl-delay, host, noindex, request-rate ... as
    "unused"; RFC 9309 2.2 defines user-agent, allow, disallow, and 2.2.4 names Sitemaps."""
    assert {d.key for d in D.REGISTRY if d.google} == set(GOOGLE_KEYS)
    assert D.REGISTRY[0].name == "User-agent"
    assert D.directive(D.kind_of("crawl-delay")).name == "Crawl-delay"  # type: ignore[union-attr]


def test_sitemap_and_extensions_never_end_a_group() -> None:
    """RFC 9309 2.2.4: "a Sitemaps record MUST NOT terminate a group"; only rules (2.1) and,
    in rfc9309, Content-Usage (attach draft, the dialect table) end a run of agents."""
    # (which keys end a run is each dialect's, DialectSpec.ends_agents: one home, issue 21)
    from robotrules._dialects import SPECS

    for d in D.REGISTRY:
        kind = D.kind_of(d.key)
        ends = {name for name, spec in SPECS.items() if kind in spec.ends_agents}
        if d.key in ("allow", "disallow"):
            assert ends == {"rfc9309", "google", "1994"}
        elif d.key == "content-usage":
            assert ends == {"rfc9309"}
        else:
            assert ends == set(), d.key


@pytest.mark.parametrize(("key", "canonical"), [
    ("user-agent", "user-agent"), ("User-Agent", "user-agent"), ("ALLOW", "allow"),
    ("Disallow", "disallow"), ("sitemap", "sitemap"), ("Crawl-delay", "crawl-delay"),
    ("crawl_delay", "crawl-delay"), ("crawl delay", "crawl-delay"), ("CrawlDelay", "crawl-delay"),
    ("Request-rate", "request-rate"), ("visit_time", "visit-time"), ("Host", "host"),
    ("Clean-param", "clean-param"), ("Content-Usage", "content-usage"), ("noindex", "noindex"),
])
@pytest.mark.parametrize("lenient", [True, False])
def test_exact_keys_in_both_modes(key: str, canonical: str, lenient: bool) -> None:
    """RFC 9309 2.2: keys are case-insensitive ABNF strings; seeds/000: "The field name is case
    insensitive"; REFERENCE 2a (Protego, texting_robots): "crawl delay" and ``_`` forms."""
    assert D.classify_key(key, lenient) == (D.kind_of(canonical), None)


@pytest.mark.parametrize(("key", "meant"), [
    ("useragent", "User-agent"), ("user agent", "User-agent"), ("dissallow", "Disallow"),
    ("dissalow", "Disallow"), ("disalow", "Disallow"), ("diasllow", "Disallow"),
    ("disallaw", "Disallow"), ("site-map", "Sitemap"),
    # robots.cc ParseKey matches by prefix: "Disallow-ai-training" is a Disallow line (oracle)
    ("disallow-ai-training", "Disallow"), ("user-agents", "User-agent"), ("Allowed", "Allow"),
])
def test_googles_misspellings_and_prefixes(key: str, meant: str) -> None:
    """Google delta "Typos": ``useragent``, ``user agent``; ``dissallow``, ``dissalow``,
    ``disalow``, ``diasllow``, ``disallaw``; ``site-map``; keys match by prefix. The 1994
    dialect (``lenient=False``) reads exact keys only."""
    assert D.classify_key(key, True) == (D.kind_of(meant.lower()), meant)
    kind, intended = D.classify_key(key, False)
    assert intended is None
    assert kind in (D.UNKNOWN, D.kind_of("disallow-ai-training"))


def test_disallow_prefix_against_google() -> None:
    oracle = pytest.importorskip("tests.core.oracle")
    body = b"User-agent: *\nDisallow-ai-training: /\n"
    assert oracle.google_allowed(body, "x", "/a") is False
    assert oracle.google_allowed(b"User-agent: *\nDissalow: /\n", "x", "/a") is False


def test_no_misspellings_of_allow() -> None:
    """Google delta: "There are no typos for ``allow``"."""
    assert D.classify_key("alow", True) == (D.UNKNOWN, None)
    assert D.classify_key("allwo", True) == (D.UNKNOWN, None)


def test_google_keys_take_no_underscore() -> None:
    """robots.cc does not read ``_`` for ``-`` in its own keys (the module docstring; the
    oracle ignores ``User_agent``)."""
    assert D.classify_key("user_agent", True) == (D.UNKNOWN, None)
    oracle = pytest.importorskip("tests.core.oracle")
    assert oracle.google_allowed(b"User_agent: *\nDisallow: /\n", "x", "/a") is True


@given(st.text(max_size=24), st.booleans())
def test_key_starts_covers_every_readable_key(key: str, lenient: bool) -> None:
    """key_starts()'s contract: a name that starts otherwise is UNKNOWN."""
    kind, _ = D.classify_key(key, lenient)
    if key[:2].lower() not in D.key_starts():
        assert kind == D.UNKNOWN


_FRAGMENTS = ["user", "-", "_", " ", "agent", "dis", "allow", "sitemap", "site-map", "crawl",
              "delay", "content", "usage", "signal", "noindex", "host", "x", "USER", "Allow",
              "\u00e9", "clean", "param", "request", "rate", "visit", "time", "ai", "training"]


@given(st.one_of(st.text(max_size=24),
                 st.lists(st.sampled_from(_FRAGMENTS), max_size=5).map("".join)),
       st.booleans())
def test_key_forms_cover_every_readable_key(key: str, lenient: bool) -> None:
    """key_forms()'s contract: a field name classify_key reads as a directive is one of the
    names ("-" for "_" and " "), or, read leniently, starts with one of the prefixes."""
    kind, _ = D.classify_key(key, lenient)
    if kind != D.UNKNOWN:
        names, prefixes = D.key_forms()
        low = key.lower()
        assert low.replace("_", "-").replace(" ", "-") in names or (
            lenient and low.startswith(prefixes)), key


def test_key_starts_is_small_and_has_the_four() -> None:
    starts = D.key_starts()
    assert {"us", "al", "di", "si", "cr"} <= starts
    assert "<h" not in starts


# --- value parsers (REFERENCE 2b: ``Crawl-delay: N``; ``Request-rate: n/t [hhmm-hhmm]``,
# ``Visit-time: hhmm-hhmm``) --------------------------------------------------------------

@pytest.mark.parametrize(("value", "seconds"), [
    ("10", 10.0), ("0", 0.0), ("0.5", 0.5), (".5", 0.5), ("2.", 2.0),
    ("-1", None), ("ten", None), ("1e3", None), ("", None), ("1,5", None),
])
def test_parse_crawl_delay(value: str, seconds: float | None) -> None:
    assert D.parse_crawl_delay(value) == seconds


@pytest.mark.parametrize(("value", "requests", "seconds"), [
    ("1/5", 1, 5.0), ("1/5s", 1, 5.0), ("3/2m", 3, 120.0), ("1/1h", 1, 3600.0),
    ("2 / 1d", 2, 86400.0), ("1/5s 0600-0845", 1, 5.0), ("1/0.5S", 1, 0.5),
])
def test_parse_request_rate(value: str, requests: int, seconds: float) -> None:
    rate = D.parse_request_rate(value)
    assert rate is not None
    assert (rate.requests, rate.seconds) == (requests, seconds)


@pytest.mark.parametrize("value", ["0/5", "1/0", "5", "1/5x", "a/b", ""])
def test_unreadable_request_rate(value: str) -> None:
    assert D.parse_request_rate(value) is None


@pytest.mark.parametrize(("value", "start", "end"), [
    ("0600-0845", time(6, 0), time(8, 45)), ("06:00 - 08:45 UTC", time(6, 0), time(8, 45)),
    ("2300-0100", time(23, 0), time(1, 0)),
])
def test_parse_visit_time(value: str, start: time, end: time) -> None:
    window = D.parse_visit_time(value)
    assert window is not None
    assert (window.start, window.end) == (start, end)


@pytest.mark.parametrize("value", ["2400-0100", "0660-0700", "600-845", "morning", ""])
def test_unreadable_visit_time(value: str) -> None:
    assert D.parse_visit_time(value) is None


def test_parsers_and_expectations_go_together() -> None:
    """A directive with a value parser says what a readable value looks like (L028)."""
    for d in D.REGISTRY:
        assert (d.parse is None) == (d.expect == ""), d.key
        assert d.note, d.key
