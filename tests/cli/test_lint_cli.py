"""``robotrules lint``: findings, JSON Lines and exit codes; files and real servers (issue 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from robotrules._findings import CATALOGUE
from tests.cli.conftest import Server, one_line_error

ROOT = Path(__file__).resolve().parents[2]

CLEAN = ("User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\n"
         "Sitemap: https://example.com/wp-sitemap.xml\n")
BROKEN = "Disallow: /early\nUser-agent: *\nDissalow: /x\nDisallow: /a\nDisallow: /a\n"


def test_lint_clean_file_exits_0(cli: Any, tmp_path: Path) -> None:
    """Issue 5: a clean, ordinary file (WordPress's default) gets no warning."""
    p = tmp_path / "robots.txt"
    p.write_text(CLEAN)
    r = cli("lint", str(p))
    assert r.code == 0, r.out
    assert "0 errors, 0 warnings" in r.out


def test_lint_findings_with_line_column_code_fix(cli: Any, tmp_path: Path) -> None:
    """REFERENCE.md L003 (typo, with the intended word), L005, L011 (duplicate)."""
    p = tmp_path / "robots.txt"
    p.write_text(BROKEN)
    r = cli("lint", str(p))
    assert r.code == 1
    assert f"{p}:3:1: error L003" in r.out  # docs/lint.md, Severity
    assert "L005" in r.out
    assert "L011" in r.out
    assert "fix:" in r.out


def test_lint_json_lines(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "robots.txt"
    p.write_text(BROKEN)
    r = cli("lint", "--json", str(p))
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert r.code == 1
    assert {"line", "column", "severity", "code", "message", "fix"} <= set(rows[0])
    assert [x["line"] for x in rows] == sorted(x["line"] for x in rows)
    assert {x["code"] for x in rows} >= {"L003", "L005", "L011"}


def test_lint_stdin(cli: Any) -> None:
    r = cli("lint", "-", input="User-agent: *\nDisallow: /\n")
    assert r.code == 1
    assert "L022" in r.out


def test_lint_list_catalogue(cli: Any) -> None:
    r = cli("lint", "--list", "--json")
    codes = [json.loads(x)["code"] for x in r.out.splitlines()]
    assert codes == sorted(CATALOGUE)  # the one catalogue (robotrules._findings)


def test_rfc9309_2_3_lint_url_html_served(cli: Any, server: Server) -> None:
    """RFC 9309 2.3: text/plain. A catch-all route answering HTML is L020, an error."""
    server.robots("<!DOCTYPE html><html><body>Home</body></html>",
                  **{"Content-Type": "text/html; charset=utf-8"})
    r = cli("lint", "--json", server.base + "/")
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert r.code == 1
    assert [x["code"] for x in rows if x["severity"] == "error"] == ["L020"]


def test_rfc9309_2_3_1_4_lint_url_503(cli: Any, server: Server) -> None:
    server.robots("down", status=503)
    r = cli("lint", "--json", server.base + "/robots.txt")
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert r.code == 3  # nothing was linted: the file could not be fetched (issue 26)
    assert any(x["code"] == "L021" and x["severity"] == "error" for x in rows)


def test_lint_missing_file_is_one_line(cli: Any) -> None:
    assert one_line_error(cli("lint", "/no/such/robots.txt"))


def test_lint_help_has_example(cli: Any) -> None:
    r = cli("lint", "--help")
    assert r.code == 0
    assert "robotrules lint examples/robots.txt" in r.out


def test_lint_dev_zero_is_not_ok(cli: Any) -> None:
    """Issue 26: `lint /dev/zero` said "ok: 0 errors" and that it read 0 bytes."""
    r = cli("lint", "/dev/zero")
    assert r.code == 1
    assert "L048" in r.out
    assert "L049" in r.out
    last = r.out.strip().splitlines()[-1]
    assert "problems found" in last
    assert "read the first 577,536 bytes" in last  # 500 KiB + 64 KiB, said


def test_lint_short_line_then_nul_bytes(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "r.txt"
    p.write_bytes(b"User-agent: *\nDisallow: /x/\n" + b"\0" * 600_000)
    r = cli("lint", "--json", str(p))
    codes = {json.loads(x)["code"]: json.loads(x) for x in r.out.splitlines()}
    assert r.code == 1
    assert {"L018", "L048", "L049"} <= set(codes)
    assert "600,028 bytes" in codes["L018"]["message"]  # the file's size (L018, issue 26)


def test_lint_says_how_many_bytes_it_read(cli: Any) -> None:
    size = (ROOT / "examples" / "robots.txt").stat().st_size
    r = cli("lint", str(ROOT / "examples" / "robots.txt"))
    assert f"read {size:,} bytes" in r.out.strip().splitlines()[-1]


def test_lint_url_of_one_endless_line(cli: Any, server: Server) -> None:
    """A served robots.txt of 600,000 bytes without a line end: the fetcher keeps nothing
    (RFC 9309 2.5: the line the limit cuts is dropped), and lint says why (L049, L018)."""
    server.robots(b"x" * 600_000)
    r = cli("lint", "--json", server.base + "/robots.txt")
    codes = {json.loads(x)["code"]: json.loads(x) for x in r.out.splitlines()}
    assert r.code == 1
    assert {"L018", "L049"} <= set(codes)
    assert "600,000 bytes" in codes["L018"]["message"]  # Content-Length: the file's size


def test_lint_help_states_the_catalogue_range(cli: Any) -> None:
    """Issue 16: the help said L001-L029 where the catalogue reaches L030."""
    r = cli("lint", "--help")
    assert f"{min(CATALOGUE)}\N{EN DASH}{max(CATALOGUE)}" in r.out
