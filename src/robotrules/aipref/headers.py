"""Preferences and licence pointers carried by HTTP response headers (sans-I/O).

``Content-Usage`` (an SF Dictionary, attach-05 "HTTP Content-Usage Header Field"),
``tdm-reservation`` / ``tdm-policy`` (TDMRep sec-tdm-header) and ``Link: <...>; rel="license"``
(RSL 1.0 discovery; RFC 8288 link syntax). Names are case-insensitive; repeated fields are
joined with ``,`` as HTTP allows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .._url import resolved
from ._values import Statement, Tri
from .content_usage import parse_content_usage_header
from .vocabulary import DEFAULT_VOCABULARY, TDM

__all__ = ["from_headers", "license_links"]

Headers = Mapping[str, str] | Iterable[tuple[str, str]]


def _fields(headers: Headers) -> dict[str, list[str]]:
    items = headers.items() if isinstance(headers, Mapping) else headers
    fields: dict[str, list[str]] = {}
    for name, value in items:
        fields.setdefault(name.lower(), []).append(value)
    return fields


def from_headers(headers: Headers, *, vocabulary: str = DEFAULT_VOCABULARY
                 ) -> tuple[Statement, ...]:
    """Statements carried by response headers: ``Content-Usage`` and ``tdm-reservation`` /
    ``tdm-policy``."""
    fields = _fields(headers)
    out: list[Statement] = []
    if "content-usage" in fields:
        out.append(parse_content_usage_header(", ".join(fields["content-usage"]),
                                              vocabulary=vocabulary))
    if "tdm-reservation" in fields:
        raw = ", ".join(fields["tdm-reservation"]).strip()
        tri: Tri = True if raw == "0" else False if raw == "1" else None
        policy = ", ".join(fields.get("tdm-policy", [])).strip()
        out.append(Statement("http-tdm", None, raw, ((TDM, tri),),
                             extra=(("tdm-policy", policy),) if policy else (),
                             key="tdm-reservation"))
    return tuple(out)


def _split_links(value: str) -> list[str]:
    """A ``Link`` field value cut into link-values at commas outside ``<...>`` and quotes."""
    out: list[str] = []
    depth = quoted = False
    start = 0
    for i, ch in enumerate(value):
        if ch == '"' and not depth:
            quoted = not quoted
        elif ch == "<" and not quoted:
            depth = True
        elif ch == ">" and not quoted:
            depth = False
        elif ch == "," and not depth and not quoted:
            out.append(value[start:i])
            start = i + 1
    out.append(value[start:])
    return [v.strip() for v in out if v.strip()]


def license_links(headers: Headers, base: str | None = None) -> tuple[tuple[str, str | None], ...]:
    """``(url, type)`` of every ``Link`` with ``rel="license"`` (RFC 8288: ``rel`` holds
    space-separated relation types, compared case-insensitively), resolved against ``base``
    when given. RSL 1.0 uses ``type="application/rsl+xml"``; other licence links are kept with
    their type so callers can tell."""
    out: list[tuple[str, str | None]] = []
    for value in _fields(headers).get("link", []):
        for link in _split_links(value):
            if not link.startswith("<") or ">" not in link:
                continue
            target, _, params = link[1:].partition(">")
            rels: list[str] = []
            media: str | None = None
            for param in params.split(";"):
                name, eq, val = param.strip().partition("=")
                if not eq:
                    continue
                val = val.strip().strip('"')
                if name.strip().lower() == "rel":
                    rels = val.lower().split()
                elif name.strip().lower() == "type":
                    media = val.lower()
            url = resolved(target.strip(), base) if "license" in rels else None
            if url is not None:  # None: a target urllib cannot read names no licence
                out.append((url, media))
    return tuple(out)
