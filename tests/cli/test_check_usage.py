"""``robotrules check --json``: each row carries the AI usage signals of its URL (issue 24),
including a non-Latin Content-Usage path (attach-05 3.1; it used to crash the command)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def test_json_rows_carry_usage(cli: Any, tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_text("License: https://example.com/license.xml\nUser-agent: *\nAllow: /\n"
                      "Content-Usage: /€ train-ai=n\n"
                      "Content-Signal: search=yes, use=reference\n", "utf-8")
    r = cli("check", "--robots", str(robots), "--agent", "GPTBot", "--json",
            "https://example.com/%E2%82%AC", "https://example.com/other")
    assert r.code == 0, r.err
    rows = [json.loads(x) for x in r.out.splitlines()]
    euro, other = rows[0]["usage"], rows[1]["usage"]
    assert euro["categories"] == {"train-ai": False, "search": True}
    assert euro["lines"] == [4, 5]
    assert (euro["use"], euro["licenses"]) == ("reference", ["https://example.com/license.xml"])
    assert other["categories"] == {"search": True}


def test_rows_without_usage_signals_are_unchanged(cli: Any, tmp_path: Path) -> None:
    """Issue 16's byte-exact rows stay so for files without AI-preference lines."""
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /x\n", "utf-8")
    r = cli("check", "--robots", str(robots), "--agent", "GPTBot", "--json",
            "https://example.com/a")
    assert "usage" not in json.loads(r.out)
