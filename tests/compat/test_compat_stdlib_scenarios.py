"""CPython's ``Lib/test/test_robotparser.py`` scenarios, run through ``robotrules.compat``.

Source of every case: the CPython test class named in ``source`` (3.11 branch), written out as
data. Where RFC 9309 rules differently from the stdlib, the expected answer is moved between
``good`` and ``bad`` and the case lists it in ``adapted`` with the RFC section. A second test
runs the same cases through the real ``urllib.robotparser`` and checks that it gives the
*opposite* answer exactly where a case says it was adapted, so every adaptation is real and
no other answer drifted from the stdlib's.
"""

from __future__ import annotations

import io
import urllib.robotparser
from dataclasses import dataclass, field

import pytest

from robotrules.compat import RequestRate, RobotFileParser

Url = str | tuple[str, str]  # a path, or (agent, path)


@dataclass(frozen=True)
class Scenario:
    source: str  # the CPython test class
    robots_txt: str
    good: tuple[Url, ...] = ()
    bad: tuple[Url, ...] = ()
    agent: str = "test_robotparser"
    site_maps: tuple[str, ...] | None = None
    crawl_delay: float | None = None
    request_rate: RequestRate | None = None
    check_rates: bool = False  # BaseRequestRateTest subclasses check crawl_delay/request_rate
    # url -> why RFC 9309 answers the opposite of the stdlib
    adapted: dict[Url, str] = field(default_factory=dict)


_CYBER = """\
# robots.txt for http://www.example.com/

User-agent: *
Crawl-delay: 1
Request-rate: 3/15
Disallow: /cyberworld/map/ # This is an infinite virtual URL space

# Cybermapper knows where to go.
User-agent: cybermapper
Disallow:
    """

_FIGTREE = """\
User-agent: figtree
Crawl-delay: 3
Request-rate: 9/30
Disallow: /tmp
Disallow: /a%3cd.html
Disallow: /a%2fb.html
Disallow: /%7ejoe/index.html
    """

_FIGTREE_BAD = (
    "/tmp", "/tmp.html", "/tmp/a.html", "/a%3cd.html", "/a%3Cd.html", "/a%2fb.html",
    "/~joe/index.html",
)  # fmt: skip

_GOOGLEBOT_ORDER = """\
User-agent: Googlebot
Disallow: /

User-agent: Googlebot-Mobile
Allow: /
    """

SCENARIOS = [
    Scenario(
        "UserAgentWildcardTest",
        """\
User-agent: *
Disallow: /cyberworld/map/ # This is an infinite virtual URL space
Disallow: /tmp/ # these will soon disappear
Disallow: /foo.html
    """,
        good=("/", "/test.html"),
        bad=("/cyberworld/map/index.html", "/tmp/xxx", "/foo.html"),
    ),
    Scenario(
        "CrawlDelayAndCustomAgentTest",
        _CYBER,
        good=("/", "/test.html", ("cybermapper", "/cyberworld/map/index.html")),
        bad=("/cyberworld/map/index.html",),
    ),
    Scenario(
        "SitemapTest",
        """\
# robots.txt for http://www.example.com/

User-agent: *
Sitemap: http://www.gstatic.com/s2/sitemaps/profiles-sitemap.xml
Sitemap: http://www.google.com/hostednews/sitemap_index.xml
Request-rate: 3/15
Disallow: /cyberworld/map/ # This is an infinite virtual URL space

    """,
        good=("/", "/test.html"),
        bad=("/cyberworld/map/index.html",),
        site_maps=(
            "http://www.gstatic.com/s2/sitemaps/profiles-sitemap.xml",
            "http://www.google.com/hostednews/sitemap_index.xml",
        ),
    ),
    Scenario(
        "RejectAllRobotsTest",
        """\
# go away
User-agent: *
Disallow: /
    """,
        good=("/robots.txt",),
        bad=("/cyberworld/map/index.html", "/", "/tmp/"),
        adapted={
            "/robots.txt": "added case: RFC 9309 2.2.2, /robots.txt is implicitly allowed",
        },
    ),
    Scenario("EmptyFileTest", "", good=("/foo",), check_rates=True),
    Scenario(
        "CrawlDelayAndRequestRateTest",
        _FIGTREE,
        agent="figtree",
        good=(("figtree", "/foo.html"),),
        bad=_FIGTREE_BAD,
        crawl_delay=3,
        request_rate=RequestRate(9, 30),
        check_rates=True,
    ),
    Scenario(
        "DifferentAgentTest",
        _FIGTREE,
        agent="FigTree Robot libwww-perl/5.04",
        good=(("figtree", "/foo.html"),),
        bad=_FIGTREE_BAD,
        crawl_delay=3,
        request_rate=RequestRate(9, 30),
        check_rates=True,
    ),
    Scenario(
        "InvalidRequestRateTest",
        """\
User-agent: *
Disallow: /tmp/
Disallow: /a%3Cd.html
Disallow: /a/b.html
Disallow: /%7ejoe/index.html
Crawl-delay: 3
Request-rate: 9/banana
    """,
        good=("/tmp",),
        bad=(
            "/tmp/",
            "/tmp/a.html",
            "/a%3cd.html",
            "/a%3Cd.html",
            "/a/b.html",
            "/%7Ejoe/index.html",
        ),
        crawl_delay=3,
        check_rates=True,
    ),
    Scenario(
        "InvalidCrawlDelayTest",
        """\
User-Agent: *
Disallow: /.
Crawl-delay: pears
    """,
        good=("/foo.html",),
        check_rates=True,
    ),
    Scenario(
        "AnotherInvalidRequestRateTest",
        """\
User-agent: Googlebot
Allow: /folder1/myfile.html
Disallow: /folder1/
Request-rate: whale/banana
    """,
        agent="Googlebot",
        good=("/folder1/myfile.html",),
        bad=("/folder1/anotherfile.html",),
        check_rates=True,
    ),
    Scenario("UserAgentOrderingTest", _GOOGLEBOT_ORDER, agent="Googlebot", bad=("/something.jpg",)),
    Scenario(
        "UserAgentGoogleMobileTest",
        _GOOGLEBOT_ORDER,
        agent="Googlebot-Mobile",
        good=("/something.jpg",),
        adapted={
            "/something.jpg": "RFC 9309 2.2.1: the product token matches its group exactly; "
            "the stdlib's substring match sends Googlebot-Mobile to the Googlebot group",
        },
    ),
    Scenario(
        "GoogleURLOrderingTest",
        """\
User-agent: Googlebot
Allow: /folder1/myfile.html
Disallow: /folder1/
    """,
        agent="googlebot",
        good=("/folder1/myfile.html",),
        bad=("/folder1/anotherfile.html",),
    ),
    Scenario(
        "DisallowQueryStringTest",
        """\
User-agent: *
Disallow: /some/path?name=value
    """,
        good=("/some/path",),
        bad=("/some/path?name=value",),
    ),
    Scenario(
        "UseFirstUserAgentWildcardTest",
        """\
User-agent: *
Disallow: /some/path

User-agent: *
Disallow: /another/path
    """,
        bad=("/some/path", "/another/path"),
        adapted={
            "/another/path": "RFC 9309 2.2.1: all groups naming the agent (here *) are "
            "merged; the stdlib obeys only the first * group",
        },
    ),
    Scenario(
        "EmptyQueryStringTest",
        """\
User-agent: *
Allow: /some/path?
Disallow: /another/path?
    """,
        good=("/some/path?",),
        bad=("/another/path?",),
    ),
    Scenario(
        "DefaultEntryTest",
        """\
User-agent: *
Crawl-delay: 1
Request-rate: 3/15
Disallow: /cyberworld/map/
    """,
        good=("/", "/test.html"),
        bad=("/cyberworld/map/index.html",),
        crawl_delay=1,
        request_rate=RequestRate(3, 15),
        check_rates=True,
    ),
]


def _agent_url(scenario: Scenario, url: Url) -> tuple[str, str]:
    return url if isinstance(url, tuple) else (scenario.agent, url)


def _lines(robots_txt: str) -> list[str]:
    return io.StringIO(robots_txt).readlines()  # exactly what the CPython tests feed parse()


def _cases() -> list[tuple[Scenario, Url, bool]]:
    return [(s, u, True) for s in SCENARIOS for u in s.good] + [
        (s, u, False) for s in SCENARIOS for u in s.bad
    ]


def _id(case: tuple[Scenario, Url, bool]) -> str:
    scenario, url, expected = case
    agent, path = _agent_url(scenario, url)
    mark = "+adapted" if url in scenario.adapted else ""
    return f"cpython:{scenario.source}:{'good' if expected else 'bad'}:{agent}:{path}{mark}"


@pytest.mark.parametrize(("scenario", "url", "expected"), _cases(), ids=[_id(c) for c in _cases()])
def test_can_fetch(scenario: Scenario, url: Url, expected: bool) -> None:
    parser = RobotFileParser()
    parser.parse(_lines(scenario.robots_txt))
    agent, path = _agent_url(scenario, url)
    assert parser.can_fetch(agent, path) is expected, scenario.adapted.get(url, "")


def _stdlib_has_rfc9309() -> bool:
    """Does this interpreter's stdlib have gh-138907 (RFC 9309 matching: the longest match
    wins)? Its answers then follow the "stdlib with gh-138907" column of docs/compat.md,
    checked by test_compat_stdlib_versions.py, not the adaptations here."""
    stdlib = urllib.robotparser.RobotFileParser()
    stdlib.parse(["User-agent: *", "Disallow: /", "Allow: /public/"])
    return stdlib.can_fetch("examplebot", "/public/page")


@pytest.mark.skipif(_stdlib_has_rfc9309(), reason="this stdlib has RFC 9309 matching "
                    "(gh-138907): test_compat_stdlib_versions.py compares it")
@pytest.mark.parametrize(("scenario", "url", "expected"), _cases(), ids=[_id(c) for c in _cases()])
def test_stdlib_differs_exactly_where_adapted(scenario: Scenario, url: Url, expected: bool) -> None:
    stdlib = urllib.robotparser.RobotFileParser()
    stdlib.parse(_lines(scenario.robots_txt))
    agent, path = _agent_url(scenario, url)
    adapted = url in scenario.adapted
    assert stdlib.can_fetch(agent, path) is (expected ^ adapted)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[f"cpython:{s.source}" for s in SCENARIOS])
def test_site_maps(scenario: Scenario) -> None:
    parser = RobotFileParser()
    parser.parse(_lines(scenario.robots_txt))
    expected = None if scenario.site_maps is None else list(scenario.site_maps)
    assert parser.site_maps() == expected


@pytest.mark.parametrize(
    "scenario",
    [s for s in SCENARIOS if s.check_rates],
    ids=[f"cpython:{s.source}" for s in SCENARIOS if s.check_rates],
)
def test_request_rate(scenario: Scenario) -> None:
    """Source: CPython ``BaseRequestRateTest.test_request_rate``."""
    parser = RobotFileParser()
    parser.parse(_lines(scenario.robots_txt))
    assert scenario.good + scenario.bad  # the loop below checks something
    for url in scenario.good + scenario.bad:
        agent, _ = _agent_url(scenario, url)
        assert parser.crawl_delay(agent) == scenario.crawl_delay
        rate = parser.request_rate(agent)
        assert rate == scenario.request_rate
        if scenario.request_rate is not None:
            # the stdlib's own named tuple, so isinstance checks in user code keep working
            assert isinstance(rate, urllib.robotparser.RequestRate)
            assert rate.requests == scenario.request_rate.requests
            assert rate.seconds == scenario.request_rate.seconds


def test_string_formatting() -> None:
    """Source: CPython ``StringFormattingTest``: specific groups first, then the default."""
    parser = RobotFileParser()
    parser.parse(
        _lines("""\
User-agent: *
Crawl-delay: 1
Request-rate: 3/15
Disallow: /cyberworld/map/ # This is an infinite virtual URL space

# Cybermapper knows where to go.
User-agent: cybermapper
Disallow: /some/path
    """)
    )
    assert str(parser) == (
        "User-agent: cybermapper\n"
        "Disallow: /some/path\n"
        "\n"
        "User-agent: *\n"
        "Crawl-delay: 1\n"
        "Request-rate: 3/15\n"
        "Disallow: /cyberworld/map/"
    )


def test_everything_disallowed_before_read() -> None:
    """Source: stdlib docs and ``can_fetch``'s comment: before ``read()``, nothing is allowed."""
    parser = RobotFileParser("http://127.0.0.1:9/robots.txt")
    assert parser.can_fetch("*", "/") is False
    assert parser.mtime() == 0
    assert parser.crawl_delay("*") is None
    assert parser.request_rate("*") is None
    assert parser.site_maps() is None
    assert parser.explain("*", "/").reason == "not-fetched"


def test_parse_sets_mtime_and_modified_updates_it() -> None:
    """Source: stdlib docs for ``mtime()`` / ``modified()``."""
    parser = RobotFileParser()
    parser.parse([])
    first = parser.mtime()
    assert first > 0
    parser.last_checked = 1.0
    parser.modified()
    assert parser.mtime() >= first


def test_set_url_splits_host_and_path() -> None:
    """Source: stdlib ``set_url`` sets ``url``, ``host`` and ``path``."""
    parser = RobotFileParser()
    parser.set_url("http://example.com:8080/elsewhere/robots.txt")
    assert (parser.url, parser.host, parser.path) == (
        "http://example.com:8080/elsewhere/robots.txt",
        "example.com:8080",
        "/elsewhere/robots.txt",
    )


@pytest.mark.parametrize(
    "lines",
    [
        ["User-agent: *\n", "Disallow: /x\n"],
        ["User-agent: *\r\n", "Disallow: /x\r\n"],
        ["User-agent: *", "Disallow: /x"],
        "User-agent: *\nDisallow: /x\n",
        b"User-agent: *\nDisallow: /x\n",
        [b"User-agent: *\n", b"Disallow: /x\n"],
    ],
    ids=["readlines", "crlf-lines", "splitlines", "str-body", "bytes-body", "bytes-lines"],
)
def test_parse_accepts_lines_and_bodies(lines: list[str] | list[bytes] | str | bytes) -> None:
    """Own case: whatever callers of the stdlib pass to ``parse`` works."""
    parser = RobotFileParser()
    parser.parse(lines)
    assert parser.can_fetch("bot", "/x") is False
    assert parser.can_fetch("bot", "/y") is True


def test_parse_tolerates_bad_utf8_where_stdlib_read_would_raise() -> None:
    """Own case: the stdlib's ``read()`` raises UnicodeDecodeError on bad bytes; parse is total."""
    parser = RobotFileParser()
    parser.parse(b"User-agent: *\nDisallow: /\xff\xfe\nDisallow: /x\n")
    assert parser.can_fetch("bot", "/x") is False


def test_full_urls_are_answered_like_paths() -> None:
    """Source: CPython ``NetworkTestCase.test_can_fetch`` passes full URLs."""
    parser = RobotFileParser()
    parser.parse(_lines(_CYBER))
    assert parser.can_fetch("*", "http://www.example.com/cyberworld/map/index.html") is False
    assert parser.can_fetch("*", "http://www.example.com/") is True


def test_explain_names_the_rule() -> None:
    """Own case: ``explain`` is the one addition; it returns the core's Verdict."""
    parser = RobotFileParser()
    parser.parse(_lines(_CYBER))
    verdict = parser.explain("*", "/cyberworld/map/x")
    assert verdict.allowed is False
    assert verdict.line == 6
    assert verdict.pattern == "/cyberworld/map/"


def test_dialect_1994_restores_first_match() -> None:
    """Source: CPython ``GoogleURLOrderingTest`` comment; MK1996 3.2.2 "the first match found
    is used": with ``dialect="1994"`` a file ordered general-first denies the specific URL."""
    parser = RobotFileParser(dialect="1994")
    parser.parse(["User-agent: Googlebot", "Disallow: /folder1/", "Allow: /folder1/myfile.html"])
    assert parser.can_fetch("googlebot", "/folder1/myfile.html") is False
    rfc = RobotFileParser()
    rfc.parse(["User-agent: Googlebot", "Disallow: /folder1/", "Allow: /folder1/myfile.html"])
    assert rfc.can_fetch("googlebot", "/folder1/myfile.html") is True


def test_bad_auth_failure_value() -> None:
    with pytest.raises(ValueError, match="auth_failure"):
        RobotFileParser(auth_failure="maybe")  # type: ignore[arg-type]
