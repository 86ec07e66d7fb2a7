"""``robotrules.lint._transport``: what came with the body (L018, L020, L021, L048, L049)."""

from __future__ import annotations

import pytest

from robotrules.lint import lint


def test_L018_file_over_500_kib() -> None:
    """RFC 9309 2.5: a parsing limit of at least 500 KiB; Google ignores what follows."""
    body = "User-agent: *\n" + "".join(f"Disallow: /p{i:07d}/\n" for i in range(30000))
    f = next(f for f in lint(body) if f.code == "L018")
    assert f.severity == "error"
    assert f.line > 20000


def test_L020_html_body_once() -> None:
    """RFC 9309 2.3: text/plain; an HTML page served as robots.txt is one error, not 100."""
    body = "<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n" + "<p>x</p>\n" * 100
    found = lint(body)
    assert [f.code for f in found if f.severity != "info"] == ["L020"]


def test_L020_content_type() -> None:
    f = lint("User-agent: *\nDisallow: /x\n", content_type="text/html; charset=utf-8")
    assert [x.code for x in f if x.code == "L020"] == ["L020"]
    assert not [x for x in lint("User-agent: *\n", content_type="text/plain; charset=utf-8")
                if x.code == "L020"]


@pytest.mark.parametrize(("status", "severity"), [(503, "error"), (429, "error"),
                                                  (403, "warning"), (404, "info")])
def test_L021_status(status: int, severity: str) -> None:
    """RFC 9309 2.3.1.3 (4xx: allow all) and 2.3.1.4 (5xx: disallow all); Google: 429."""
    f = next(f for f in lint(b"", status=status) if f.code == "L021")
    assert f.severity == severity


# -- issue 26: what is not text, and the size of what was cut --------------------------------


def test_l048_nul_bytes_are_binary_data() -> None:
    """RFC 9309 2.3: the file is UTF-8 text; NUL bytes make it binary data (once a file)."""
    found = lint(b"User-agent: *\nDisallow: /a\0b\n" + b"\0" * 100 + b"\n")
    l048 = [f for f in found if f.code == "L048"]
    assert len(l048) == 1
    assert (l048[0].severity, l048[0].line) == ("error", 2)
    assert "101 NUL byte(s)" in l048[0].message


def test_l043_a_line_past_the_limit_without_an_end() -> None:
    """RFC 9309 2.5: crawlers read 500 KiB and drop a line the limit cuts: a short valid
    file followed by 600,000 NUL bytes, as read by lint (500 KiB + 64 KiB), is not "ok"."""
    read = (b"User-agent: *\nDisallow: /x/\n" + b"\0" * 600_000)[: 512_000 + 65_536]
    found = lint(read, truncated=True, size=600_028)
    codes = {f.code: f for f in found}
    assert {"L018", "L048", "L049"} <= set(codes)
    assert "600,028 bytes" in codes["L018"].message  # the file's size, not what was read
    assert codes["L049"].line == 3
    assert all(f.severity == "error" for f in found if f.code in ("L018", "L048", "L049"))


def test_l043_nothing_but_one_endless_line() -> None:
    found = lint(b"\0" * (512_000 + 65_536), truncated=True)
    codes = {f.code for f in found}
    assert {"L018", "L048", "L049"} <= codes
    assert "more than 577,536 bytes" in next(f for f in found if f.code == "L018").message


def test_truncated_file_of_ordinary_lines_is_only_too_big() -> None:
    """A big file of good lines cut mid-line: the cut line is dropped quietly (L018 only)."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /p%07d/\n" % i for i in range(40_000))
    found = lint(body[: 512_000 + 65_536], truncated=True, size=len(body))
    assert {f.code for f in found if f.severity != "info"} == {"L018"}
    assert f"{len(body):,} bytes" in next(f for f in found if f.code == "L018").message


def test_l018_untruncated_body_reports_its_own_size() -> None:
    body = b"User-agent: *\n" + b"Disallow: /x\n" * 50_000
    l018 = [f for f in lint(body) if f.code == "L018"]
    assert len(l018) == 1
    assert f"{len(body):,} bytes" in l018[0].message


def test_L020_html_after_a_byte_order_mark_only() -> None:
    """An HTML page is recognised after a UTF-8 byte-order mark, skipped as robots.cc skips
    it (``_tokenize.strip_bom``: the mark or a prefix of it, once), not after any run of its
    bytes (lint stripped every 0xEF, 0xBB and 0xBF before)."""
    page = b"<!DOCTYPE html>\n<html></html>\n"

    def whole_page(body: bytes) -> list[int]:  # the one L020 for a page (not per line)
        return [f.line for f in lint(body) if f.code == "L020" and "an HTML page" in f.message]

    assert whole_page(b"\xef\xbb\xbf" + page) == [1]
    assert whole_page(b"\xef\xbb" + page) == [1]  # a prefix of the mark, as robots.cc
    assert whole_page(b"\xbb\xef" + page) == []
