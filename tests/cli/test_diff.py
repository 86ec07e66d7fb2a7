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


def test_vs_dialect_labels_sides_by_dialect(cli: Any, tmp_path: Path) -> None:
    """With --vs-dialect both sides are one file: they are named by their dialects, not
    old/new (RFC 9309 2.2.2 longest match vs the 1996 draft 3.2.2 first match)."""
    p = tmp_path / "r.txt"
    p.write_text("User-agent: *\nDisallow: /shop/\nAllow: /shop/sale/\n")
    r = cli("diff", str(p), "--dialect", "rfc9309", "--vs-dialect", "1994")
    assert r.code == 1
    assert "read as rfc9309 (-) and as 1994 (+)" in r.out
    assert "/shop/sale/: allowed -> disallowed" in r.out
    assert "(1994 line 2 'Disallow: /shop/')" in r.out
    assert "old line" not in r.out
    assert "new line" not in r.out
    rows = [json.loads(x) for x in cli("diff", str(p), "--vs-dialect", "1994", "--json")
            .out.splitlines()]
    assert rows
    assert all(x["old_dialect"] == "rfc9309" and x["new_dialect"] == "1994"
                        for x in rows)


# -- work grows linearly with the file (counted, not timed) --------------------------------


def _generated(groups: int) -> bytes:
    """``groups`` groups of 20 rules each, allow and disallow interleaved so that the first
    match (1994) and the longest match (RFC 9309) disagree on some paths; agent names end in
    digits so that Google's token rule (letters only) merges them."""
    lines = []
    for g in range(groups):
        lines.append(f"User-agent: bot{g}")
        for i in range(20):
            lines.append(f"Disallow: /g{g}/s{i}/")
            lines.append(f"Allow: /g{g}/s{i}/open")
            if i % 5 == 0:
                lines.append(f"Disallow: /g{g}/*.pdf$")
        lines.append("")
    return "\n".join(lines).encode()


def _work(monkeypatch: Any, body: bytes, vs: str) -> tuple[int, int]:
    """(verdicts asked, rows written) by ``diff FILE --vs-dialect vs --json``."""
    import contextlib
    import io

    import robotrules
    from robotrules import _compile, _robots
    from robotrules.cli import _diff
    from robotrules.cli._common import Source

    work = {"n": 0}
    real_explain = robotrules.RobotsTxt.explain
    real_best = _compile._FirstMatch.best

    def counted(real: Any) -> Any:
        def is_allowed(self: Any, url: str, *, user_agent: str = "*") -> bool:
            work["n"] += 1
            return real(self, url, user_agent=user_agent)
        return is_allowed

    def explain(self: Any, url: str, *, user_agent: str = "*") -> Any:
        work["n"] += 1
        return real_explain(self, url, user_agent=user_agent)

    def best(self: Any, path: str) -> int:
        work["n"] += len(self._lengths)  # one table look-up per distinct prefix length
        return real_best(self, path)

    # is_allowed is each peer's own (robotrules._peer): counted on both concrete classes
    for cls in (_robots.PureRobotsTxt, _robots.NativeRobotsTxt):
        monkeypatch.setattr(cls, "is_allowed", counted(cls.is_allowed))
    monkeypatch.setattr(robotrules.RobotsTxt, "explain", explain)
    monkeypatch.setattr(_compile._FirstMatch, "best", best)
    src = Source("gen.txt", body)
    sides = (_diff.Side(src, "rfc9309", "rfc9309"), _diff.Side(src, vs, vs))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = _diff._compare(None, sides, (), None)
    rows = out.getvalue().splitlines()
    assert code == (1 if rows else 0)
    return work["n"], len(rows)


def test_vs_dialect_work_is_linear(monkeypatch: Any) -> None:
    """Issue 25: ``diff --vs-dialect`` took 12.9 s for 4,000 rules (every agent was asked about
    every path every group suggests). Four times the groups must cost about four times the
    verdicts (the old way cost sixteen times), with the 1994 matcher's look-ups counted too."""
    for vs in ("1994", "google"):
        small, rows_small = _work(monkeypatch, _generated(25), vs)
        big, rows_big = _work(monkeypatch, _generated(100), vs)
        assert rows_small > 0  # the dialects do disagree on these files
        assert rows_big >= 3 * rows_small
        assert big <= 4.5 * small, (vs, small, big)
