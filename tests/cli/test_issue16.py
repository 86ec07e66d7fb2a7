"""Issue 16: the CLI on Click and Rich, settings that are settings, output that says what
happened. Each test runs the real entry point (``python -m robotrules.cli`` in a subprocess,
or ``main()`` in-process where noted) against files and HTTP servers on 127.0.0.1.

Sources: the issue's own list (named per test), RFC 9309 (sections named), RFC 9111 4.2.1
(max-age), no-color.org, and Click's documented completion protocol.
"""

from __future__ import annotations

import json
import math
import os
import re
import socket
import sys
import time
import types
from pathlib import Path
from typing import Any

import click
import pytest

from robotrules.cli import COMMANDS, main
from robotrules.lint import CATALOGUE
from tests.cli.conftest import SRC, Reply, Server, one_line_error

ROBOTS = """\
User-agent: *
Disallow: /private/
Disallow: /tmp/

User-agent: GPTBot
Disallow: /
Allow: /public/
"""


@pytest.fixture
def robots(tmp_path: Path) -> Path:
    p = tmp_path / "robots.txt"
    p.write_text(ROBOTS)
    return p


# -- the command line itself ------------------------------------------------------------------


def test_no_arguments_short_usage_and_commands(cli: Any) -> None:
    """Issue 16: no arguments prints the short usage and the commands, not the whole help."""
    r = cli()
    assert r.code == 2
    lines = r.err.splitlines()
    assert lines[0].startswith("Usage: robotrules")
    assert len(lines) < 20
    for name in COMMANDS:
        assert any(x.strip().startswith(name + " ") for x in lines), name
    assert "--color" not in r.err  # the options are one --help away


def test_top_level_help_lists_serve_and_dataset_always(cli: Any) -> None:
    """Issue 16: docs/cli.md said serve is listed only with the web extra; it is always."""
    r = cli("--help")
    assert r.code == 0
    for name in ("serve", "dataset", "check", "bulk"):
        assert re.search(rf"^\s+{name}\s", r.out, re.M), name
    assert "examples:" in r.out


@pytest.mark.parametrize("command", ["serve", "diff", "agents"])
def test_help_of_every_command_has_examples(cli: Any, command: str) -> None:
    r = cli(command, "--help")
    assert r.code == 0
    assert f"robotrules {command}" in r.out
    assert "exit status" in r.out


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--frobnicate", "--agent", "A", "https://e.com/"),  # unknown option
        ("check", "--agent"),  # option without its value
        ("bulk", "-", "--agent", "A", "--concurrency", "many"),  # not an integer
        ("bulk", "-", "--agent", "A", "--concurrency", "0"),  # out of range
        ("lint", "--min-severity", "loud", "x.txt"),  # bad choice
        ("chek",),  # unknown command
        ("--color", "sometimes", "check"),
    ],
)
def test_click_usage_errors_are_one_line_exit_2(cli: Any, args: tuple[str, ...]) -> None:
    """Issue 16: Click's own usage errors follow the project's rule: one line, exit 2."""
    r = cli(*args)
    assert one_line_error(r), r.err
    assert "Usage:" not in r.err


def test_unknown_command_suggests_a_real_one(cli: Any) -> None:
    r = cli("chek")
    assert "did you mean 'check'" in r.err


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [
        (("check", "--agent", "A", "https://e.com/"), "--timeout", "-1"),
        (("check", "--agent", "A", "https://e.com/"), "--timeout", "nan"),
        (("check", "--agent", "A", "https://e.com/"), "--timeout", "inf"),
        (("check", "--agent", "A", "https://e.com/"), "--timeout", "0"),
        (("check", "--agent", "A", "https://e.com/"), "--min-ttl", "-5"),
        (("check", "--agent", "A", "https://e.com/"), "--min-ttl", "nan"),
        (("fetch", "https://e.com/"), "--timeout", "-inf"),
        (("lint", "https://e.com/"), "--min-ttl", "inf"),
        (("agents", "https://e.com/"), "--timeout", "ten"),
        (("diff", "https://e.com/", "https://f.com/"), "--timeout", "NaN"),
        (("bulk", "-", "--agent", "A"), "--timeout", "1e999"),
        (("bulk", "-", "--agent", "A"), "--min-ttl", "-0.5"),
    ],
)
def test_issue12_6_every_number_is_validated(cli: Any, command: tuple[str, ...], option: str,
                                             value: str) -> None:
    """Issue 12 item 6 and issue 16: one line naming the option, exit 2, nothing fetched."""
    r = cli(*command, option, value, input="")
    assert one_line_error(r), r.err
    assert option in r.err


def test_min_ttl_zero_is_allowed(cli: Any, robots: Path) -> None:
    r = cli("check", "--robots", str(robots), "--agent", "A", "--min-ttl", "0", "/x")
    assert r.code == 0, r.err


def test_shell_completion_is_clicks(cli: Any) -> None:
    """Click's completion protocol: the script, then completions for a partial word."""
    script = cli(env={"_ROBOTRULES_COMPLETE": "bash_source"})
    assert script.code == 0
    assert "_robotrules_completion" in script.out
    words = cli(env={"_ROBOTRULES_COMPLETE": "bash_complete", "COMP_WORDS": "robotrules ch",
                     "COMP_CWORD": "1"})
    assert "check" in words.out
    opts = cli(env={"_ROBOTRULES_COMPLETE": "bash_complete",
                    "COMP_WORDS": "robotrules check --dia", "COMP_CWORD": "2"})
    assert "--dialect" in opts.out


def test_version(cli: Any) -> None:
    r = cli("--version")
    assert r.code == 0
    assert r.out.startswith("robotrules ")


def test_json_is_byte_exact(cli: Any, robots: Path) -> None:
    """Issue 16: --json output unchanged for scripts (the fields and order of issue 5)."""
    r = cli("check", "--robots", str(robots), "--agent", "GPTBot", "--json",
            "https://example.com/public/a")
    assert r.out == (
        '{"url": "https://example.com/public/a", "allowed": true, "line": 7, '
        '"text": "Allow: /public/", "agent": "GPTBot", "directive": "allow", '
        '"pattern": "/public/", "agents": ["GPTBot"], "reason": "rule", '
        '"user_agent": "GPTBot", "path": "/public/a", "dialect": "rfc9309", '
        '"detail": "line 7 \'Allow: /public/\' allows it (the group for \'GPTBot\' (line 5) '
        'applies)"}\n')


def test_color_always_and_never_and_no_color(cli: Any, robots: Path) -> None:
    """no-color.org: NO_COLOR turns colour off; an explicit --color always outranks it."""
    args = ("check", "--robots", str(robots), "--agent", "A", "https://e.com/private/")
    assert "\x1b[" in cli("--color", "always", *args).out
    assert "\x1b[" in cli(*args, "--color", "always").out  # after the command too
    assert "\x1b[" not in cli("--color", "never", *args).out
    assert "\x1b[" in cli("--color", "always", *args, env={"NO_COLOR": "1"}).out


# -- serve and dataset ----------------------------------------------------------------------


def test_serve_port_taken_exits_2(cli: Any) -> None:
    """Issue 16: a busy port is an environment error (2), not "disallowed" (1)."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = cli("serve", "--port", str(port))
    assert one_line_error(r), r.err
    assert str(port) in r.err


def test_serve_without_the_web_extra(cli: Any, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "uvicorn.py").write_text("raise ImportError('no uvicorn', name='uvicorn')\n")
    r = cli("serve", env={"PYTHONPATH": f"{shadow}{os.pathsep}{SRC}"})
    assert one_line_error(r), r.err
    assert "robotrules[web]" in r.err


def _dataset_importable() -> bool:
    try:
        import robotrules.dataset.cli  # noqa: F401
    except ImportError:
        return False
    return True


def test_dataset_missing_says_what_to_install(cli: Any, tmp_path: Path) -> None:
    """When ``robotrules.dataset.cli`` cannot be imported: one line, exit 2."""
    # A stand-in package raising ImportError, found before the real robotrules.dataset (if
    # any) by a meta-path hook: the only way to remove one subpackage for one process.
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoDataset:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'robotrules.dataset' or name.startswith('robotrules.dataset.'):\n"
        "            raise ImportError('no dataset extra', name=name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _NoDataset())\n")
    for args in (("dataset",), ("dataset", "census", "--help"), ("dataset", "--help")):
        r = cli(*args, env={"PYTHONPATH": f"{hook}{os.pathsep}{SRC}"})
        assert one_line_error(r), (args, r.err)
        assert "robotrules[dataset]" in r.err


def test_dataset_group_attached_lazily(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """When the module is importable its Click group runs as ``robotrules dataset``.

    The real group is another branch's work; a group of the same shape stands in here."""
    @click.group("dataset")
    def group() -> None:
        """stand-in"""

    @group.command("hello")
    @click.argument("name")
    def hello(name: str) -> None:
        click.echo(f"hello {name}")

    module = types.ModuleType("robotrules.dataset.cli")
    module.dataset = group  # type: ignore[attr-defined]
    package = types.ModuleType("robotrules.dataset")
    package.__path__ = []
    monkeypatch.setitem(sys.modules, "robotrules.dataset", package)
    monkeypatch.setitem(sys.modules, "robotrules.dataset.cli", module)
    assert main(["dataset", "hello", "world"]) == 0
    assert capsys.readouterr().out == "hello world\n"
    assert main(["dataset", "nope"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.skipif(not _dataset_importable(), reason="robotrules.dataset is another branch")
def test_real_dataset_group_runs(cli: Any) -> None:
    r = cli("dataset", "--help")
    assert r.code == 0
    assert "census" in r.out


# -- settings: min_ttl, the shared cache ----------------------------------------------------


def test_rfc9111_max_age_honoured_down_to_min_ttl(cli: Any, make_server: Any) -> None:
    """RFC 9111 4.2.1 (max-age) within RFC 9309 2.4: with --min-ttl 0 a max-age=1 answer is
    fetched again once it is stale; with the default 60 s floor it is not. (The floor is
    applied when an answer is stored, so each origin keeps the setting it was fetched with.)"""
    floor: Server = make_server()
    exact: Server = make_server()
    for s in (floor, exact):
        s.robots("User-agent: *\nDisallow: /x\n", **{"Cache-Control": "max-age=1"})
    for _ in range(2):
        assert cli("check", "--agent", "A", floor.base + "/x").code == 1
        assert cli("check", "--agent", "A", "--min-ttl", "0", exact.base + "/x").code == 1
        time.sleep(1.2)
    assert floor.hits["/robots.txt"] == 1  # the 60 s floor
    assert exact.hits["/robots.txt"] == 2  # stale after 1 s: fetched again
    r = cli("fetch", exact.base, "--min-ttl", "0", "--json")
    row = json.loads(r.out)
    assert row["expires_at"] - row["fetched_at"] == pytest.approx(1.0)


def test_bulk_uses_the_same_cache_as_check(cli: Any, server: Server) -> None:
    """Issue 16: two bulk runs in a row fetch each robots.txt once; --no-cache skips it."""
    server.robots("User-agent: *\nDisallow: /x\n", **{"Cache-Control": "max-age=3600"})
    urls = f"{server.base}/x\n{server.base}/y\n"
    for _ in range(2):
        r = cli("bulk", "-", "--agent", "A", input=urls)
        assert r.code == 1, r.err
    assert server.hits["/robots.txt"] == 1
    assert cli("check", "--agent", "A", server.base + "/y").code == 0
    assert server.hits["/robots.txt"] == 1  # check reads what bulk cached
    cli("bulk", "-", "--agent", "A", "--no-cache", input=urls)
    assert server.hits["/robots.txt"] == 2


def test_clients_reject_bad_numbers_by_name() -> None:
    """Issue 12 item 6: ``timeout=nan`` once cached "disallow all"; constructors refuse it."""
    from robotrules.fetch import AsyncRobotsClient, RobotsClient

    cases = [("timeout", math.nan), ("timeout", -1.0), ("timeout", math.inf),
             ("connect_timeout", 0.0), ("min_ttl", -5.0), ("min_ttl", math.nan),
             ("min_ttl", math.inf), ("min_ttl", 90_000.0), ("max_bytes", 0),
             ("max_redirects", -1)]
    for cls in (RobotsClient, AsyncRobotsClient):
        for name, value in cases:
            with pytest.raises(ValueError, match=name):
                cls(**{name: value})  # type: ignore[arg-type]
    RobotsClient(min_ttl=0).close()


def test_min_ttl_flows_into_freshness(server: Server) -> None:
    """RFC 9309 2.4 / RFC 9111 4.2.1: the client's floor, not a module constant."""
    from robotrules.fetch import RobotsClient

    server.robots("User-agent: *\nDisallow: /x\n", **{"Cache-Control": "max-age=1"})
    now = [1_000_000.0]
    for floor, expect in ((0.0, 1.0), (30.0, 30.0), (60.0, 60.0)):
        with RobotsClient(min_ttl=floor, clock=lambda: now[0]) as client:
            f = client.rules_for(server.base + "/")
            assert f.expires_at - f.fetched_at == expect
    with RobotsClient(clock=lambda: now[0]) as client:
        assert client.min_ttl == 60.0


# -- output that says what happened -------------------------------------------------------


def test_check_explains_no_matching_rule_in_words(cli: Any, robots: Path) -> None:
    """Issue 16 / RFC 9309 2.2.1-2.2.2: which group was chosen, why, and why nothing matched."""
    r = cli("check", "--robots", str(robots), "--agent", "Googlebot", "https://e.com/blog/")
    assert r.code == 0
    assert "no group names 'Googlebot', so the '*' group (line 1) applies" in r.out
    assert "none of its 2 rule(s) matches '/blog/'" in r.out
    assert "a path no rule matches is allowed, RFC 9309 2.2.2" in r.out
    assert "no rule of the group at line" not in r.out  # the issue's wording, gone
    r = cli("check", "--robots", str(robots), "--agent", "GPTBot", "https://e.com/public/x")
    assert "the group for 'GPTBot' (line 5) applies" in r.out


def test_check_no_group_at_all(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "r.txt"
    p.write_text("User-agent: OtherBot\nDisallow: /\n")
    r = cli("check", "--robots", str(p), "--agent", "MyBot", "https://e.com/x")
    assert r.code == 0
    assert "no group applies to this user agent: everything is allowed" in r.out


@pytest.mark.parametrize(("agent", "shown"), [("", "''"), ("***", "'***'")])
def test_odd_agents_answered_and_shown_honestly(cli: Any, robots: Path, agent: str,
                                                shown: str) -> None:
    """Issue 16: '' and '***' keep their spec-test answers and never print "(agent )"."""
    r = cli("check", "--robots", str(robots), "--agent", agent, "--dialect", "google",
            "https://e.com/private/x")
    assert r.code == 1  # the * group decides, as Google's matcher does
    assert f"(agent: {shown} \N{EM DASH} matches no named group, uses *)" in r.out
    assert "(agent )" not in r.out


@pytest.mark.parametrize("bad", ["/relative/path", "not a url"])
def test_no_invalid_did_you_mean(cli: Any, bad: str) -> None:
    """Issue 16: never suggest 'https:///relative/path' or 'https://not a url'."""
    r = cli("fetch", bad)
    assert one_line_error(r)
    assert "did you mean" not in r.err
    b = cli("bulk", "-", "--agent", "A", input=bad + "\n")
    assert b.code == 2
    assert "did you mean" not in b.out
    assert "invalid URL" in b.out


def test_valid_did_you_mean_is_kept(cli: Any) -> None:
    b = cli("bulk", "-", "--agent", "A", "--format", "jsonl", input="example.com\n")
    assert "did you mean 'https://example.com'" in json.loads(b.out)["reason"]


def test_bulk_counts_invalid_urls_apart(cli: Any, server: Server) -> None:
    """Issue 16: 10 rows, 3 invalid, 2 agents: 7 URLs x 2 = 14 verdicts, 3 invalid."""
    server.robots("User-agent: *\nDisallow: /x\n")
    good = [f"{server.base}/p{i}" for i in range(7)]
    rows = [*good[:3], "not a url", *good[3:5], "ftp://e.com/", "https:///x", *good[5:]]
    r = cli("bulk", "-", "-a", "A", "-a", "B", input="\n".join(rows) + "\n")
    assert r.code == 2
    assert "10 input rows: 7 URLs x 2 agent(s) = 14 verdicts" in r.err
    assert "3 invalid URL(s)" in r.err
    assert "input line 4, 7, 8" in r.err


def test_bulk_summary_never_cuts_words(cli: Any, make_server: Any, tmp_path: Path) -> None:
    """Issue 16: the per-origin summary wraps reasons between words, never inside one."""
    servers = [make_server() for _ in range(3)]
    servers[0].robots("User-agent: *\nDisallow: /x\n")
    servers[1].robots("busy", status=503)
    urls = "".join(f"{s.base}/a\n" for s in servers)
    summary = tmp_path / "origins.jsonl"
    r = cli("bulk", "-", "-a", "A", "--summary", str(summary), input=urls,
            env={"COLUMNS": "60"})
    reasons = [json.loads(x)["summary"] for x in summary.read_text().splitlines()]
    assert len(reasons) == 3
    for word in re.findall(r"[\w,]+", " ".join(reasons)):
        assert re.search(rf"(?<![\w,]){re.escape(word)}(?![\w,])", r.err), (word, r.err)


def test_agents_each_purpose_heading_once(cli: Any, robots: Path) -> None:
    """Issue 16: ``agents`` repeated category headings; issue 13: grouped by purpose (each
    crawler under its first purpose)."""
    from robotrules.agents import known_agents, purposes_of

    r = cli("agents", str(robots))
    assert r.code == 0
    for purpose in {purposes_of(a)[0] for a in known_agents()}:
        n = sum(1 for x in r.out.splitlines() if re.match(rf"{purpose} \(\d+\)\s*$", x))
        assert n == 1, (purpose, r.out)


def test_agents_purpose_filter_and_usage(cli: Any, tmp_path: Path) -> None:
    """Issue 13: ``--purpose training`` keeps the training crawlers; each row gives the usage
    preferences the file states for it (attach-05: the * group's Content-Usage applies to a
    crawler without its own group, and not to one with its own group)."""
    import json

    f = tmp_path / "robots.txt"
    f.write_text("User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: GPTBot\n"
                 "Disallow: /\n", "utf-8")
    r = cli("agents", str(f), "--purpose", "training", "--json")
    assert r.code == 0
    rows = {d["token"]: d for d in map(json.loads, r.out.splitlines())}
    assert all("training" in d["purposes"] for d in rows.values())
    assert rows["GPTBot"]["access"] == "blocked"
    assert rows["GPTBot"]["usage"] == {}  # may not crawl /: no preference applies
    assert rows["ClaudeBot"]["usage"] == {"train-ai": False}


def test_fetch_html_page_counts_findings_as_lint(cli: Any, server: Server) -> None:
    """Issue 16: fetch said 2 findings where lint said 1 (RFC 9309 2.3: text/plain)."""
    server.robots("<!DOCTYPE html><html><body>Home</body></html>",
                  **{"Content-Type": "text/html; charset=utf-8"})
    lint = cli("lint", "--json", server.base)
    n = len(lint.out.splitlines())
    fetch = cli("fetch", server.base)
    assert f"{n} finding(s): run 'robotrules lint" in fetch.out


def test_lint_help_states_the_catalogue_range(cli: Any) -> None:
    """Issue 16: the help said L001-L029 where the catalogue reaches L030."""
    r = cli("lint", "--help")
    assert f"{min(CATALOGUE)}\N{EN DASH}{max(CATALOGUE)}" in r.out


def test_rich_markup_in_files_is_text(cli: Any, tmp_path: Path) -> None:
    """File content is never read as Rich markup: '[bold]' stays as written."""
    p = tmp_path / "r.txt"
    p.write_text("User-agent: *\nDisallow: /[red]x[/red]\n")
    r = cli("check", "--robots", str(p), "--agent", "A", "--color", "always",
            "https://e.com/[red]x[/red]")
    assert "/[red]x[/red]" in r.out
    lint = cli("lint", str(p))
    assert "[red]" in lint.out or lint.code in (0, 1)


def test_fetch_shows_the_ttl_floor(cli: Any, server: Server) -> None:
    server.routes["/robots.txt"] = Reply(200, b"User-agent: *\nDisallow:\n",
                                         {"Cache-Control": "max-age=5"})
    r = cli("fetch", server.base, "--min-ttl", "2")
    assert "(5 s; RFC 9309 2.4 caps it at 24 h, the floor is 2 s)" in r.out
