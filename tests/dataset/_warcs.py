"""Builds small WARC files for the tests with FastWARC, the library the reader uses.

A capture is ``(url, status, headers, body, when)``; each becomes a WARC ``request`` and
``response`` pair as Common Crawl writes them (AI-PREFERENCES.md 3.1), per-record gzip.
"""

from __future__ import annotations

import gzip
import io
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fastwarc.warc import WarcRecord, WarcRecordType

REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found", 401: "Unauthorized",
           404: "Not Found", 429: "Too Many Requests", 503: "Service Unavailable"}


@dataclass
class Capture:
    url: str
    status: int = 200
    body: bytes = b""
    headers: dict[str, str | None] = field(default_factory=dict)  # None: header left out
    when: str = "2026-09-01T00:00:00Z"
    warc: dict[str, str] = field(default_factory=dict)  # extra WARC headers of the response


def _record(kind: WarcRecordType, url: str, when: str, block: bytes, ctype: str,
            extra: dict[str, str] | None = None) -> bytes:
    r = WarcRecord()
    r.init_headers(record_type=kind, record_urn=f"uuid:{uuid.uuid4()}".encode())
    r.headers["WARC-Target-URI"] = url
    r.headers["WARC-Date"] = when
    r.headers["Content-Type"] = ctype
    for k, v in (extra or {}).items():
        r.headers[k] = v
    r.set_bytes_content(block)
    out = io.BytesIO()
    r.write(out)
    return out.getvalue()


def http_response(c: Capture) -> bytes:
    head = [f"HTTP/1.1 {c.status} {REASONS.get(c.status, 'Status')}"]
    headers = {"Content-Type": "text/plain", **c.headers}
    head += [f"{k}: {v}" for k, v in headers.items() if v is not None]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + c.body


def capture_records(c: Capture) -> list[bytes]:
    request = (b"GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: CCBot/2.0\r\n\r\n")
    return [
        _record(WarcRecordType.request, c.url, c.when, request,
                "application/http; msgtype=request"),
        _record(WarcRecordType.response, c.url, c.when, http_response(c),
                "application/http; msgtype=response", c.warc),
    ]


def write_warc(path: Path, captures: Iterable[Capture], *, extra: bytes = b"") -> Path:
    """A .warc.gz of the captures (one gzip member per record), then ``extra`` raw bytes."""
    with open(path, "wb") as f:
        info = _record(WarcRecordType.warcinfo, "", "2026-09-01T00:00:00Z",
                       b"software: robotrules tests\r\n", "application/warc-fields")
        f.write(gzip.compress(info))
        for c in captures:
            for rec in capture_records(c):
                f.write(gzip.compress(rec))
        f.write(extra)
    return path
