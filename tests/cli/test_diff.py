"""``robotrules diff``: rules added/removed per agent and verdicts that flip (issue 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import Server, one_line_error

OLD = "User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n"
NEW = "User-agent: *\nDisallow: /private/\nDisallow: /drafts/\n\nUser-agent: GPTBot\nAllow: /\n"


def _files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "old.txt").write_text(OLD)
    (tmp_path / "new.txt").write_text(NEW)
    return str(tmp_path / "old.txt"), str(tmp_path / "new.txt")


def test_diff_rules_and_flips(cli: Any, tmp_path: Path) -> None:
    old, new = _files(tmp_path)
    r = cli("diff", old, new)
    assert r.code == 1
    assert "+ Disallow: /drafts/" in r.out
    assert "- Disallow: /" in r.out
    assert "+ Allow: /" in r.out
    assert "/drafts/: allowed -> disallowed" in r.out


def test_diff_json_with_urls(cli: Any, tmp_path: Path) -> None:
    old, new = _files(tmp_path)
    urls = tmp_path / "urls.txt"
    urls.write_text("https://example.com/drafts/a\nhttps://example.com/home\n")
    r = cli("diff", old, new, "--agent", "GPTBot", "--urls", str(urls), "--json")
    rows = [json.loads(x) for x in r.out.splitlines()]
    flips = {x["url"]: x for x in rows if x["type"] == "flip"}
    assert set(flips) == {"https://example.com/drafts/a", "https://example.com/home"}
    assert flips["https://example.com/home"]["old_allowed"] is False
    assert flips["https://example.com/home"]["new_line"] == 6


def test_diff_same_file_exits_0(cli: Any, tmp_path: Path) -> None:
    old, _ = _files(tmp_path)
    r = cli("diff", old, old)
    assert r.code == 0
    assert "no difference" in r.out


def test_diff_across_dialects(cli: Any, tmp_path: Path) -> None:
    """RFC 9309 2.2.2 (longest match) vs the 1996 draft 3.2.2 (first match)."""
    p = tmp_path / "r.txt"
    p.write_text("User-agent: *\nDisallow: /shop/\nAllow: /shop/sale/\n")
    r = cli("diff", str(p), "--dialect", "rfc9309", "--vs-dialect", "1994", "--json")
    flips = [json.loads(x) for x in r.out.splitlines()]
    assert r.code == 1
    assert any(x["url"].endswith("/shop/sale/") and x["old_allowed"] and not x["new_allowed"]
               for x in flips)


def test_diff_old_from_a_server(cli: Any, server: Server, tmp_path: Path) -> None:
    server.robots(OLD)
    _, new = _files(tmp_path)
    r = cli("diff", server.base, new, "--agent", "GPTBot")
    assert r.code == 1
    assert "disallowed -> allowed" in r.out


def test_diff_needs_two_files_or_a_dialect(cli: Any, tmp_path: Path) -> None:
    old, _ = _files(tmp_path)
    assert one_line_error(cli("diff", old))
