"""``robotrules check``: verdicts, the deciding line, JSON Lines and exit codes (issue 5).

Each test names its source: RFC 9309 sections, Google's spec, or the issue's contract.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Server, one_line_error

ROBOTS = """\
User-agent: *
Disallow: /private/
Allow: /private/public.html
Disallow: /*.pdf$

User-agent: GPTBot
Disallow: /
"""


@pytest.fixture
def robots(tmp_path: Path) -> Path:
    p = tmp_path / "robots.txt"
    p.write_text(ROBOTS)
    return p


def test_rfc9309_2_2_2_longest_match_allow_exits_0_and_quotes_line(cli: Any, robots: Path) -> None:
    r = cli("check", "--robots", str(robots), "--agent", "Googlebot",
            "https://example.com/private/public.html")
    assert r.code == 0, r.err
    assert "allowed" in r.out
    assert "disallowed" not in r.out
    assert 'line 3: "Allow: /private/public.html"' in r.out  # the deciding line, quoted
    assert "group" in r.out  # why: the group chosen


def test_rfc9309_2_2_2_disallow_exits_1(cli: Any, robots: Path) -> None:
    r = cli("check", "--robots", str(robots), "--agent", "Googlebot",
            "https://example.com/private/x", "https://example.com/ok")
    assert r.code == 1
    assert 'line 2: "Disallow: /private/"' in r.out


def test_issue5_json_lines_one_object_per_url(cli: Any, robots: Path) -> None:
    r = cli("check", "--robots", str(robots), "--agent", "Googlebot", "--json",
            "https://example.com/a.pdf", "https://example.com/b.html")
    assert r.code == 1
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert [(x["url"], x["allowed"], x["line"]) for x in rows] == [
        ("https://example.com/a.pdf", False, 4),
        ("https://example.com/b.html", True, None),
    ]
    assert rows[0]["text"] == "Disallow: /*.pdf$"


def test_rfc9309_2_2_1_full_user_agent_string_matches_its_token(cli: Any, robots: Path) -> None:
    ua = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
    r = cli("check", "--robots", str(robots), "--agent", ua, "--json", "https://example.com/x")
    row = json.loads(r.out)
    assert r.code == 1
    assert row["agent"] == "GPTBot"
    assert row["line"] == 7


def test_rfc9309_2_2_1_no_group_no_rules(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "r.txt"
    p.write_text("User-agent: OtherBot\nDisallow: /\n")
    r = cli("check", "--robots", str(p), "--agent", "MyBot", "--json", "https://e.com/x")
    assert r.code == 0
    assert json.loads(r.out)["line"] is None


@pytest.mark.parametrize(
    "args",
    [
        ("check", "https://example.com/"),  # no --agent
        ("check", "--robots", "/nonexistent/robots.txt", "--agent", "A", "https://e.com/"),
        ("check", "--agent", "A", "not-a-url"),
        ("check", "--agent", "A", "--dialect", "nope", "https://e.com/"),
        ("frobnicate",),
    ],
)
def test_issue5_usage_errors_exit_2_with_one_line(cli: Any, args: tuple[str, ...]) -> None:
    assert one_line_error(cli(*args))


def test_issue5_help_explains_with_an_example(cli: Any) -> None:
    r = cli("check", "--help")
    assert r.code == 0
    assert "example" in r.out
    assert "robotrules check" in r.out


def test_issue5_colour_only_on_a_terminal(cli: Any, robots: Path) -> None:
    args = ("check", "--robots", str(robots), "--agent", "A", "https://e.com/private/")
    assert "\x1b[" not in cli(*args).out  # a pipe: no colour
    assert "\x1b[" in cli("--color", "always", *args).out
    assert "\x1b[" not in cli("--color", "never", *args).out


def test_rfc9309_2_3_1_1_fetches_robots_and_decides(cli: Any, server: Server) -> None:
    server.robots("User-agent: *\nDisallow: /admin/\n")
    r = cli("check", "--agent", "MyBot", "--json", server.base + "/admin/x", server.base + "/y")
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert r.code == 1, r.err
    assert [x["allowed"] for x in rows] == [False, True]
    assert rows[0]["line"] == 2
    assert rows[0]["status"] == 200
    assert server.hits["/robots.txt"] == 1  # once per origin


def test_rfc9309_2_3_1_4_unreachable_503_disallows_all(cli: Any, server: Server) -> None:
    server.robots("oops", status=503)
    r = cli("check", "--agent", "MyBot", server.base + "/page")
    assert r.code == 3  # disallowed, and resting on an unreachable file (docs/cli.md)
    assert "disallowed" in r.out
    assert "503" in r.out
    assert "unreachable" in r.out
    r = cli("check", "--agent", "MyBot", "--no-fail-on-unreachable", server.base + "/page")
    assert r.code == 1  # the verdict alone: RFC 9309's disallow-all


def test_rfc9309_2_3_1_3_unavailable_404_allows_all(cli: Any, server: Server) -> None:
    r = cli("check", "--agent", "MyBot", "--json", server.base + "/page")
    row = json.loads(r.out)
    assert r.code == 0
    assert row["allowed"] is True
    assert row["line"] is None
    assert row["status"] == 404
    assert row["outcome"] == "allow-all"


def test_rfc9309_2_4_sqlite_cache_under_xdg_cache_home(cli: Any, server: Server,
                                                      tmp_path: Path) -> None:
    server.robots("User-agent: *\nDisallow: /x\n", **{"Cache-Control": "max-age=3600"})
    first = cli("check", "--agent", "A", "--json", server.base + "/x")
    second = cli("check", "--agent", "A", "--json", server.base + "/x")
    assert first.code == second.code == 1
    assert json.loads(second.out)["from_cache"] is True
    assert server.hits["/robots.txt"] == 1
    assert any((tmp_path / "cache").rglob("*")), "cache file under XDG_CACHE_HOME"


def test_rfc9309_2_2_1_full_ua_is_sent_as_the_header(cli: Any, server: Server) -> None:
    server.robots("User-agent: ExampleBot\nDisallow: /\n")
    ua = "ExampleBot/3.1 (+https://example.org/bot)"
    r = cli("check", "--agent", ua, "--no-cache", server.base + "/")
    assert r.code == 1
    assert server.agents == [ua]


def test_json_is_byte_exact(cli: Any, sample_robots: Path) -> None:
    """Issue 16: --json output unchanged for scripts (the fields and order of issue 5)."""
    r = cli("check", "--robots", str(sample_robots), "--agent", "GPTBot", "--json",
            "https://example.com/public/a")
    assert r.out == (
        '{"url": "https://example.com/public/a", "allowed": true, "line": 7, '
        '"text": "Allow: /public/", "agent": "GPTBot", "directive": "allow", '
        '"pattern": "/public/", "agents": ["GPTBot"], "reason": "rule", '
        '"user_agent": "GPTBot", "path": "/public/a", "dialect": "rfc9309", '
        '"detail": "line 7 \'Allow: /public/\' allows it (the group for \'GPTBot\' (line 5) '
        'applies)"}\n')


def test_check_explains_no_matching_rule_in_words(cli: Any, sample_robots: Path) -> None:
    """Issue 16 / RFC 9309 2.2.1-2.2.2: which group was chosen, why, and why nothing matched."""
    r = cli("check", "--robots", str(sample_robots), "--agent", "Googlebot", "https://e.com/blog/")
    assert r.code == 0
    assert "no group names 'Googlebot', so the '*' group (line 1) applies" in r.out
    assert "none of its 2 rule(s) matches '/blog/'" in r.out
    assert "a path no rule matches is allowed, RFC 9309 2.2.2" in r.out
    assert "no rule of the group at line" not in r.out  # the issue's wording, gone
    r = cli("check", "--robots", str(sample_robots), "--agent", "GPTBot", "https://e.com/public/x")
    assert "the group for 'GPTBot' (line 5) applies" in r.out


def test_check_no_group_at_all(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "r.txt"
    p.write_text("User-agent: OtherBot\nDisallow: /\n")
    r = cli("check", "--robots", str(p), "--agent", "MyBot", "https://e.com/x")
    assert r.code == 0
    assert "no group applies to this user agent: everything is allowed" in r.out


@pytest.mark.parametrize(("agent", "shown"), [("", "''"), ("***", "'***'")])
def test_odd_agents_answered_and_shown_honestly(cli: Any, sample_robots: Path, agent: str,
                                                shown: str) -> None:
    """Issue 16: '' and '***' keep their spec-test answers and never print "(agent )"."""
    r = cli("check", "--robots", str(sample_robots), "--agent", agent, "--dialect", "google",
            "https://e.com/private/x")
    assert r.code == 1  # the * group decides, as Google's matcher does
    assert f"(agent: {shown} \N{EM DASH} matches no named group, uses *)" in r.out
    assert "(agent )" not in r.out


@pytest.mark.parametrize("binary", ["png", "/dev/zero"])
def test_check_refuses_a_file_that_is_not_text(cli: Any, tmp_path: Path, binary: str) -> None:
    """Issue 39: ``check --robots`` on a binary file said "allowed", exit 0, no hint, where
    lint flags it (L048: NUL bytes, binary data; RFC 9309 2.3: a robots.txt is UTF-8 text);
    on /dev/zero it said "judged on its first 0 bytes" after "longer than that". A file that
    is not text is an input error: one line naming L048, exit 2."""
    path = "/dev/zero" if binary == "/dev/zero" else str(tmp_path / "logo.png")
    if binary == "png":
        Path(path).write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    r = cli("check", "--robots", path, "-a", "Bot", "https://example.com/a")
    assert one_line_error(r), r
    assert "not a robots.txt" in r.err
    assert "L048" in r.err
    assert "first 0 bytes" not in r.err
    assert r.out == ""


def test_check_says_why_a_file_with_no_line_end_judges_nothing(cli: Any,
                                                              tmp_path: Path) -> None:
    """RFC 9309 2.5: crawlers read 500 KiB and drop a line the limit cuts; one line of 600,000
    bytes leaves nothing. The note says so instead of "judged on its first 0 bytes"."""
    path = tmp_path / "robots.txt"
    path.write_text("Disallow: /" + "a" * 600_000)
    r = cli("check", "--robots", str(path), "-a", "Bot", "https://example.com/a")
    assert r.code == 0
    assert "first 0 bytes" not in r.err
    assert "no line ends in the first 512,000" in r.err
