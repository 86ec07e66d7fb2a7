"""The public API: names, explain(), extensions and findings.

Sources are named per test: the issue's interface, RFC 9309, the seed article (003) for
Crawl-delay, and REFERENCE.md section 2b for Request-rate, Visit-time, Host and Clean-param.
"""

from __future__ import annotations

import os
from datetime import time

import robotrules
from robotrules import RequestRate, VisitTime
from robotrules._pure import PurePeer


def test_all_is_complete_and_sorted() -> None:
    """STYLE (httpx): a test that __all__ is complete and sorted."""
    import types

    public = {n for n in dir(robotrules) if not n.startswith("_")
              and not isinstance(getattr(robotrules, n), types.ModuleType)} - {"annotations"}
    assert sorted(robotrules.__all__) == list(robotrules.__all__)
    assert public <= set(robotrules.__all__)
    import importlib

    lint_module = importlib.import_module("robotrules.lint")

    # issue 26: `robotrules.lint` is the module, and calling it runs the function
    assert robotrules.lint is lint_module
    assert callable(robotrules.lint)
    assert robotrules.lint("User-agent: *\nDisallow: /x\n/x\n") == lint_module.lint(
        "User-agent: *\nDisallow: /x\n/x\n")
    for name in robotrules.__all__:
        assert getattr(robotrules, name) is not None


def test_explain_gives_line_rule_and_agents() -> None:
    """Issue 2 interface: .allowed, .line (1-based), the rule (directive, pattern), the
    group's agents."""
    rules = robotrules.parse(
        "# comment\nUser-agent: ExampleBot\nUser-agent: OtherBot\nDisallow: /private\n"
        "Allow: /private/public\n")
    v = rules.explain("https://example.com/private/x", user_agent="ExampleBot")
    assert not v.allowed
    assert v.line == 4
    assert v.rule is not None
    assert (v.rule.directive, v.rule.pattern) == ("disallow", "/private")
    assert (v.directive, v.pattern) == ("disallow", "/private")
    assert v.agents == ("ExampleBot", "OtherBot")
    assert v.reason == "rule"
    assert "line 4" in v.detail
    allowed = rules.explain("/private/public/a", user_agent="otherbot")
    assert allowed.allowed
    assert allowed.line == 5
    none = rules.explain("/elsewhere", user_agent="ExampleBot")
    assert none.allowed
    assert none.line is None
    assert none.reason == "no-matching-rule"
    assert v.to_dict()["line"] == 4


def test_line_text_and_group_for() -> None:
    rules = robotrules.parse("User-agent: a\r\nDisallow: /x # why\r\n")
    assert rules.line_text(2) == "Disallow: /x # why"
    assert rules.line_text(99) == ""
    group = rules.group_for("a")
    assert group is not None
    assert group.rules[0].pattern == "/x"
    assert rules.group_for("b") is None


def test_crawl_delay_request_rate_visit_time() -> None:
    """003: "Crawl-delay parameter, set to the number of seconds to wait"; Request-rate and
    Visit-time from the 1996 extended standard (REFERENCE.md 2b)."""
    rules = robotrules.parse(
        "User-agent: *\nCrawl-delay: 2.5\nRequest-rate: 1/10s 0800-1700\nVisit-time: 0600-0845\n"
        "Disallow: /tmp/\n\nUser-agent: slow\nCrawl-delay: 60\nRequest-rate: 3/1m\nDisallow:\n"
        "\nUser-agent: bad\n"
        "Crawl-delay: soon\nCrawl-delay: 7\n")
    assert rules.crawl_delay(user_agent="any") == 2.5
    assert rules.request_rate(user_agent="any") == RequestRate(1, 10.0)
    assert rules.visit_time(user_agent="any") == VisitTime(time(6, 0), time(8, 45))
    assert rules.crawl_delay(user_agent="slow") == 60.0
    assert rules.request_rate(user_agent="slow") == RequestRate(3, 60.0)
    assert rules.crawl_delay(user_agent="bad") == 7.0  # first *valid* value
    assert any(f.code == "L028" for f in rules.findings)
    assert robotrules.parse("User-agent: *\nDisallow: /\n").crawl_delay() is None


def test_user_agent_after_extension_lines_joins_the_group() -> None:
    """RFC 9309 2.1/2.2.4 and robots.cc: a group ends only at a user-agent line after a rule,
    so a crawl-delay-only group absorbs the next user-agent (google/robotstxt#51); reported."""
    rules = robotrules.parse("User-agent: *\nCrawl-delay: 10\n\nUser-agent: slow\n"
                             "Disallow: /x\n")
    assert len(rules.groups) == 1
    assert not rules.is_allowed("/x", user_agent="anyone")
    assert rules.crawl_delay(user_agent="slow") == 10.0
    assert any(f.code == "L030" and f.line == 4 for f in rules.findings)


def test_host_clean_param_and_unknown_records_are_kept() -> None:
    """Issue 2: "global Sitemap, Host, Clean-param; unknown records kept as data"."""
    rules = robotrules.parse(
        "Host: www.example.com\nClean-param: ref /articles/\nUser-agent: *\nDisallow: /x\n"
        "Noindex: /y\nX-Custom: 1\n")
    assert rules.host == "www.example.com"
    assert [r.value for r in rules.clean_params] == ["ref /articles/"]
    group = rules.groups[0]
    assert [(r.key, r.value) for r in group.records] == [("Noindex", "/y"), ("X-Custom", "1")]
    codes = {f.code for f in rules.findings}
    assert {"L001", "L002"} <= codes


def test_findings_carry_line_column_and_fix() -> None:
    """Issue 2: "Every oddity the parser meets becomes a finding on its line (kind, line,
    column, message)"."""
    rules = robotrules.parse("User-agent: *\nDissallow: /a\nDisallow /b\nDisallow: c$d\n")
    by_code = {f.code: f for f in rules.findings}
    assert by_code["L003"].line == 2
    assert by_code["L003"].fix == "Disallow: /a"
    assert by_code["L004"].line == 3
    assert by_code["L008"].line == 4
    assert by_code["L009"].line == 4
    assert by_code["L009"].column == 12
    # Google reads the misspelt and colon-less lines all the same
    assert not rules.is_allowed("/a", user_agent="x")
    assert not rules.is_allowed("/b", user_agent="x")


def test_sitemaps_absolute_in_order_without_duplicates() -> None:
    """Issue 2: "list of absolute URL strings, file order, no duplicates"."""
    rules = robotrules.parse("Sitemap: https://e.com/b.xml\nsitemap: https://e.com/a.xml\n"
                             "Site-map: https://e.com/b.xml\nSitemap: relative.xml\n")
    assert rules.sitemaps == ["https://e.com/b.xml", "https://e.com/a.xml"]
    rules.sitemaps.append("mutating the copy changes nothing")
    assert len(rules.sitemaps) == 2


def test_bytes_and_text_give_the_same_answers() -> None:
    text = "User-agent: *\nDisallow: /caf\u00e9\n"
    for dialect in ("rfc9309", "google", "1994"):
        a = robotrules.parse(text, dialect)
        b = robotrules.parse(text.encode(), dialect)
        for url in ("/caf\u00e9", "/caf%C3%A9", "/cafe"):
            assert a.is_allowed(url, user_agent="x") is b.is_allowed(url, user_agent="x")


def test_large_group_index_agrees_with_linear_scan() -> None:
    """The prefix index (groups of more than 12 rules) must pick what a scan of all rules
    picks: longest pattern, allow on ties, earliest line (RFC 9309 2.2.2, robots.cc)."""
    lines = ["User-agent: *"]
    for i in range(300):
        lines.append(f"Disallow: /d{i % 37}/x{i}")
        lines.append(f"Allow: /d{i % 37}/x{i}")
        lines.append(f"Disallow: /*{i % 11}.html$")
    lines.append("Allow: /d1/x1*")
    body = "\n".join(lines) + "\n"
    big = robotrules.parse(body, "google")
    from tests.core.oracle import google_allowed

    for path in ("/d1/x1", "/d1/x10", "/d1/x1.html", "/q/5.html", "/d3/x3/5.html", "/zz",
                 "/d2/x39.html", "/d2/x39"):
        assert big.is_allowed(path, user_agent="a") is google_allowed(body.encode(), "a", path)


def test_the_build_under_test_is_the_expected_one() -> None:
    """.ci/run runs the suite on the native build (ROBOTRULES_EXPECT_NATIVE=1) and tests/core
    again on the pure core (ROBOTRULES_PURE=1, ROBOTRULES_EXPECT_NATIVE=0): this makes sure
    each run really used the build it names."""
    import os

    expect = os.environ.get("ROBOTRULES_EXPECT_NATIVE")
    if expect == "1":
        assert robotrules.NATIVE
        assert not isinstance(robotrules.parse(b"User-agent: *\nDisallow: /x"), PurePeer)
    elif expect == "0":
        assert not robotrules.NATIVE
        assert isinstance(robotrules.parse(b"User-agent: *\nDisallow: /x"), PurePeer)
    assert not hasattr(robotrules, "COMPILED")  # one name for the flag: NATIVE


def test_a_missing_kernel_is_said_not_silent() -> None:
    """Issue 26: without the compiled kernel (an install with no C compiler) robotrules says
    so once, at import, and answers on the pure core; ROBOTRULES_PURE=1, the choice made on
    purpose, is silent."""
    import subprocess
    import sys

    hide = ("import sys; sys.modules['robotrules._native'] = None; import robotrules; "
            "print(robotrules.NATIVE)")
    env = {k: v for k, v in os.environ.items() if k != "ROBOTRULES_PURE"}
    run = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True,
                         env=env, check=True)
    assert run.stdout.strip() == "False"
    assert "native kernels are not built" in run.stderr
    assert run.stderr.count("RuntimeWarning") == 1
    chosen = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True,
                            env={**env, "ROBOTRULES_PURE": "1"}, check=True)
    assert chosen.stdout.strip() == "False"
    assert chosen.stderr == ""


def test_record_keeps_the_octets_of_a_value_that_is_not_ascii() -> None:
    """Record.value is readable text (U+FFFD for bytes that are not UTF-8); Record.octets is
    the value's bytes as the core keeps them (Latin-1 text, one character per byte), so a path
    written in such a line can be read like an Allow/Disallow pattern with the same bytes
    (attach-05 3.1). ASCII values carry none; equality ignores the field."""
    rules = robotrules.parse(b"User-agent: *\nX-Thing: /\xe9 a\nX-Other: /\xc3\xa9\nX-Plain: /a\n")
    bad, utf8, plain = rules.groups[0].records
    assert bad.value == "/\ufffd a"
    assert bad.octets == "/\xe9 a"
    assert utf8.value == "/é"
    assert utf8.octets == "/\xc3\xa9"
    assert plain.octets is None
    assert bad == robotrules.Record(bad.key, bad.value, bad.line)


def test_what_the_readers_read_of_a_parsed_file() -> None:
    """``ParsedFile`` (robotrules._parsed), what aipref and the analyses read: every record
    (the groups' in group order, then those outside), each user-agent line as written, and
    where a line's value starts (RFC 9309 2.2: ``key: value``, white space around the colon
    allowed)."""
    rules = robotrules.parse("Host: a.test\nUser-agent: A\nUser-agent:  B/1.0\n"
                             "Crawl-delay: 2\nDisallow: /x\n")
    assert rules.agent_lines == ((2, "A"), (3, "B/1.0"))
    assert [(r.key, r.line) for r in rules.all_records] == [("crawl-delay", 4), ("host", 1)]
    assert rules.value_column(3) == 14
    assert rules.value_column(5) == 11
    assert rules.value_column(99) == 1  # no directive there
