"""Structural findings: what the parser notices about single lines and about the whole file.

The group index's findings pass (:func:`robotrules._index.structural_findings`) calls these,
when findings are asked for; the semantic checks that need whole groups live in
:mod:`robotrules.lint`. Every finding is made by the catalogue's factory
(:mod:`robotrules._findings`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from . import _directives, _token, _tokenize
from ._findings import finding
from ._url import resolved

if TYPE_CHECKING:
    from ._model import Finding

__all__ = ["add_sitemap", "check_agent", "check_other", "check_pattern", "check_value",
           "file_findings"]


def file_findings(text: str, bom: int, out: list[Finding]) -> None:
    """L017: the byte-order mark and the encoding of the whole file."""
    if bom == 3:
        out.append(finding("L017", 1, 1,
                           "byte-order mark at the start of the file (skipped)",
                           "save the file as UTF-8 without BOM"))
    elif bom:
        out.append(finding("L017", 1, 1,
                           "a partial byte-order mark at the start of the file (skipped)",
                           severity="warning"))
    if text.startswith(("\xff\xfe", "\xfe\xff")):
        out.append(finding("L017", 1, 1,
                           "the file looks like UTF-16; robots.txt must be UTF-8 "
                           "(RFC 9309 2.3)", "save the file as UTF-8", severity="error"))
        return
    if not text.isascii():
        try:
            text.encode("latin-1").decode("utf-8")
        except UnicodeDecodeError as exc:
            line = text.count("\n", 0, exc.start) + 1
            out.append(finding("L017", line, 1,
                               "the file is not valid UTF-8 (RFC 9309 2.3); non-UTF-8 "
                               "bytes were read as Latin-1", "save the file as UTF-8",
                               severity="error"))


def add_sitemap(raw: str, line: int, base_url: str | None, findings: list[Finding] | None,
                sitemaps: list[str], seen: set[str]) -> None:
    """Add the sitemap URL of a ``Sitemap:`` value to ``sitemaps`` (absolute, resolved against
    the file's URL, no duplicates), or say why not (L015)."""
    value = _tokenize.display(raw).strip()
    url = resolved(value, base_url) if value else ""
    if url is None:  # urllib refuses it outright ("http://[::1")
        if findings is not None:
            findings.append(finding("L015", line, 1,
                                    f"sitemap '{value}' cannot be read as a URL; ignored",
                                    "Sitemap: https://example.com/sitemap.xml"))
        return
    parts = urlsplit(value) if value else None
    if parts is None or not (parts.scheme and parts.netloc):
        if not (base_url and value):
            if findings is not None:
                findings.append(finding(
                    "L015", line, 1,
                    f"sitemap '{value}' is not an absolute URL; ignored",
                    "Sitemap: https://example.com/sitemap.xml"))
            return
    elif parts.scheme.lower() not in ("http", "https", "ftp"):
        if findings is not None:
            findings.append(finding("L015", line, 1,
                                    f"sitemap URL scheme '{parts.scheme}' is not http(s)"))
        return
    if url in seen:
        if findings is not None:
            findings.append(finding("L015", line, 1,
                                    f"sitemap '{url}' listed twice", severity="info"))
        return
    seen.add(url)
    sitemaps.append(url)


def check_agent(value: str, token: str, line: int, findings: list[Finding]) -> None:
    if not value:
        findings.append(finding("L007", line, 1,
                                "empty user-agent value: the group applies to no crawler",
                                "User-agent: *"))
        return
    google = _token.line_token(value, "google")
    shown = _tokenize.display(value)
    if token != value:
        if token:
            msg = f"'{shown}' is not a product token; matched as '{token}'"
            if google != token:
                msg += f" (Google reads '{google}')" if google else " (Google: no crawler)"
            fix: str | None = f"User-agent: {token}"
        else:
            msg = f"'{shown}' is not a product token and matches no crawler"
            fix = None
        # The catalogue's warning when the value still names its crawler (Googlebot/2.1 is
        # matched as Googlebot: the group works, written oddly); an error when it names none.
        findings.append(finding("L006", line, 1, msg, fix,
                                severity=None if token else "error"))
    elif google != token:
        # RFC 9309 2.2.1 product tokens hold only letters, '-' and '_'; Google's parser cuts
        # the value at the first other character (robots.cc ExtractUserAgent)
        findings.append(finding(
            "L006", line, 1,
            f"'{shown}' is read as '{google}' by Google (RFC 9309 2.2.1 tokens hold only "
            "letters, '-' and '_'), so Google applies this group to a different crawler",
            None))


def check_pattern(text: str, value: str, start: int, k: int, line: int,
                   findings: list[Finding]) -> None:
    if not value:
        return
    col = start - text.rfind("\n", 0, start)
    if value[0] != "/":
        if value[0] == "*":
            findings.append(finding(
                "L008", line, col,
                "pattern starts with '*' rather than '/' (allowed by RFC 9309 5.1)", None,
                severity="info"))
        else:
            findings.append(finding(
                "L008", line, col,
                f"pattern '{_tokenize.display(value)}' does not start with '/': it never matches",
                f"{_tokenize.KIND_NAMES[k].capitalize()}: /{_tokenize.display(value)}"))
    dollar = value.find("$")
    if 0 <= dollar < len(value) - 1:
        findings.append(finding(
            "L009", line, col + dollar,
            "'$' only anchors at the end of a pattern; here it is a literal '$'", None))


def check_value(raw: str, k: int, line: int, findings: list[Finding]) -> None:
    """L028 for a value its directive's parser cannot read (registry: parse, expect)."""
    d = _directives.directive(k)
    if d is None or d.parse is None:
        return
    value = _tokenize.display(raw)
    if d.parse(value) is None:
        findings.append(finding("L028", line, 1,
                                f"{d.key} '{value}' is not {d.expect}; ignored"))


def check_other(text: str, value: str, start: int, k: int, line: int,
                 findings: list[Finding]) -> None:
    key = _tokenize.display(_tokenize.key_of(text, start))
    if k == _tokenize.UNKNOWN:
        if key.lower() in ("http", "https") and value.startswith("//"):
            findings.append(finding("L016", line, 1,
                                    "a bare URL line is not a directive; ignored",
                                    f"Sitemap: {key}:{_tokenize.display(value)}"))
        else:
            findings.append(finding("L001", line, 1,
                                    f"unknown field '{key}'; ignored"))
    else:
        d = _directives.directive(k)
        note = f": {d.note}" if d is not None and d.note else ""
        findings.append(finding("L002", line, 1,
                                f"'{key}' is not part of RFC 9309 and is ignored by Google"
                                + note))
