"""Lint's checks of what came with the body: its size, its bytes, its media type and status.

L018 (over the 500 KiB crawlers read), L020 (HTML, or not served as text/plain), L021 (the
HTTP status and what crawlers make of it), L048 (NUL bytes: binary data) and L049 (a line
with no end within what was read). They look at the bytes and the HTTP facts, never at the
groups (those are :mod:`robotrules.lint._semantic`'s). The size limit and the status classes
are the HTTP policy's (:mod:`robotrules._policy`), imported when a check runs: the policy
imports ``email.utils``, which ``import robotrules`` (it binds lint) must not pay for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from .._findings import finding
from .._tokenize import strip_bom

if TYPE_CHECKING:
    from .._model import Finding

__all__ = ["HTML_NOISE", "looks_html", "not_text", "transport", "whole_size"]

# (text that re's own cache compiles on first use: `import robotrules` binds lint)
_HTML: Final = rb"(?i)^\s*(?:<!doctype\s+html|<html|<head|<body|<\?xml)"
#: The parser's findings that an HTML page raises on every line of markup (one L020 says it).
HTML_NOISE: Final = frozenset({"L001", "L004", "L016", "L020", "L029"})


def looks_html(raw: bytes) -> bool:
    """Whether the body starts like an HTML (or XML) page, after a byte-order mark."""
    return bool(re.match(_HTML, strip_bom(raw[:1024])[0]))


def whole_size(raw: bytes, tail: bytes, size: int | None, truncated: bool) -> str | None:
    """The file's size in words when it is over the crawlers' limit (L018), else None."""
    from .._policy import DEFAULT_MAX_BYTES as max_bytes

    read = len(raw) + len(tail)
    if size is not None and size > max_bytes:
        return f"{size:,} bytes"
    if truncated and size is None:
        return f"more than {read:,} bytes"
    return f"{read:,} bytes" if read > max_bytes else None


def not_text(raw: bytes, tail: bytes, truncated: bool) -> Iterator[Finding]:
    """L048: NUL bytes (binary data, not text); L049: a line with no end past the cap."""
    from .._policy import DEFAULT_MAX_BYTES as max_bytes

    nuls = raw.count(0) + tail.count(0)
    if nuls:
        first = raw.find(0)
        line = raw.count(b"\n", 0, first) + 1 if first >= 0 else raw.count(b"\n") + 1
        yield finding(
            "L048", line, 1,
            f"the file holds {nuls:,} NUL byte(s) (the first on line {line}): binary data, not "
            "text; a robots.txt is UTF-8 text (RFC 9309 2.3), and parsers stop a line at NUL",
            "serve the robots.txt text file itself (is this an image, an archive, a device?)")
    if truncated and (tail or not raw) and len(raw) <= max_bytes:
        line = raw.count(b"\n") + 1
        # (a fetched body arrives already cut at its last line end: then only its emptiness
        # tells that no line ended within the limit)
        read = f"the {len(raw) + len(tail):,} bytes read" if tail else "what was read"
        yield finding(
            "L049", line, 1,
            f"line {line} has no end within {read}: the {max_bytes:,} bytes crawlers read "
            "(500 KiB, RFC 9309 2.5) end inside it, and they drop a line the limit cuts, so "
            "nothing from here on counts",
            "end every line with a newline, and keep the file under 500 KiB")


def transport(raw: bytes, content_type: str | None, status: int | None,
               whole: str | None = None) -> Iterator[Finding]:
    from .._policy import DEFAULT_MAX_BYTES as max_bytes  # RFC 9309 2.5: at least 500 KiB
    from .._policy import classify_status

    if whole is not None:
        cut = raw.count(b"\n", 0, max_bytes) + 1
        yield finding(
            "L018", cut, 1,
            f"the file is {whole}; crawlers read only the first {max_bytes:,} "
            f"(500 KiB, RFC 9309 2.5) and ignore everything from about line {cut} on",
            "shorten the file: merge rules with * patterns, drop rules for retired paths",
        )
    media = (content_type or "").split(";", 1)[0].strip().lower()
    html = looks_html(raw)
    if media and media != "text/plain":
        what = "HTML" if "html" in media else f"'{media}'"
        yield finding(
            "L020", 0, 0,
            f"served as {what}, not text/plain (RFC 9309 2.3)"
            + ("; the body is an HTML page" if html else ""),
            "serve the file as 'Content-Type: text/plain; charset=utf-8'",
        )
    elif html:
        yield finding(
            "L020", 1, 1,
            "the body is an HTML page, not a robots.txt (often an error page or a catch-all "
            "route); crawlers find no rules in it",
            "serve a plain-text robots.txt at /robots.txt",
        )
    if status is None:
        return
    what = classify_status(status)
    if what == "ok":
        return
    if what in ("unreachable", "invalid"):
        yield finding(
            "L021", 0, 0,
            f"HTTP {status}: the file is unreachable, so crawlers must assume everything is "
            "disallowed (RFC 9309 2.3.1.4; Google treats 429 the same way)",
            "serve /robots.txt with status 200 (or 404 if there are no rules)",
        )
    elif classify_status(status, auth_failure="disallow") == "auth-disallow":  # MK1996 3.1
        yield finding(
            "L021", 0, 0,
            f"HTTP {status}: RFC 9309 and Google treat this as 'no robots.txt' and crawl "
            "everything; older crawlers (1996 draft) treat it as disallow all",
            "serve /robots.txt with status 200 and say what you mean in it",
            severity="warning",
        )
    elif what == "unavailable":
        yield finding(
            "L021", 0, 0,
            f"HTTP {status}: no robots.txt, so everything may be crawled (RFC 9309 2.3.1.3)",
            severity="info",
        )
    else:  # a redirect
        yield finding(
            "L021", 0, 0,
            f"HTTP {status}: redirect not followed to a file (RFC 9309 2.3.1.2: follow at "
            "least five redirects)",
            severity="warning",
        )
