"""Access logs, read line by line: nginx / Apache "combined" (and "common") format, and JSON
Lines as nginx ``escape=json`` or Caddy-style loggers write them; gzip-compressed files too.

:func:`read_log` yields one :class:`LogRecord` per good line and counts the rest
(:class:`LogStats`): a malformed line is skipped, never fatal. Lines are read as bytes and
decoded as Latin-1 after parsing (byte-exact and never fails), longer than ``max_line`` bytes
(64 KiB) are skipped as malformed, so memory stays bounded whatever the file holds.

Combined format (Apache ``LogFormat "%h %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\"
\\"%{User-agent}i\\"" combined``, nginx's default ``combined``)::

    203.0.113.9 - - [10/Oct/2026:13:55:36 +0000] "GET /a?b HTTP/1.1" 200 2326 "-" "UA"

JSON Lines: one object per line; the address from ``remote_addr`` / ``client_ip`` / ``ip`` /
``client``, the time from ``time_local`` / ``time_iso8601`` / ``time`` / ``timestamp`` /
``@timestamp`` / ``ts`` (text or epoch seconds, milliseconds past 1e11; a time outside
1970-9999 makes the line malformed), the request from ``request`` ("GET /a HTTP/1.1") or
``method`` plus ``uri`` / ``request_uri`` / ``path`` / ``url``, the status (100-999, a number
or its text) from ``status``, the agent from ``http_user_agent`` / ``user_agent`` / ``ua`` /
``agent``. A line that is none of these, nested too deep, or whose values are out of range is
malformed: counted and skipped.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import re
import sys
from calendar import timegm
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any

__all__ = ["LogRecord", "LogStats", "open_log", "parse_line", "read_log"]

MAX_LINE = 65_536
_COMBINED = re.compile(
    rb'(\S+) \S+ \S+ \[([^\]]{1,64})\] "([A-Z]{1,16}) ([^" ]{1,16384})(?: [^"]{0,32})?" '
    rb'(\d{3}) \S+(?: "(?:[^"\\]|\\.){0,16384}" "((?:[^"\\]|\\.){0,16384})")?')
_MONTHS = {m.encode(): i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_TIMES: dict[bytes | str, float] = {}
_MAX_TIME = 253_402_300_800.0  # 10000-01-01T00:00:00Z: past it no date can be shown


@dataclass(frozen=True, slots=True)
class LogRecord:
    ip: str
    time: float
    method: str
    path: str
    status: int
    user_agent: str


@dataclass(slots=True)
class LogStats:
    lines: int = 0
    records: int = 0
    malformed: int = 0
    bytes_read: int = 0


def _clf_time(text: bytes) -> float | None:
    """``10/Oct/2026:13:55:36 +0000`` -> epoch seconds (memoised: logs repeat seconds)."""
    hit = _TIMES.get(text)
    if hit is not None:
        return hit
    try:
        day, mon, rest = text.split(b"/", 2)
        year, hh, mm, ss_zone = rest.split(b":", 3)
        ss, _, zone = ss_zone.partition(b" ")
        t = timegm((int(year), _MONTHS[mon], int(day), int(hh), int(mm), int(ss), 0, 0, 0))
        if zone:
            sign = -1 if zone[:1] == b"-" else 1
            t -= sign * (int(zone[1:3]) * 3600 + int(zone[3:5]) * 60)
    except (ValueError, KeyError, IndexError, OverflowError):
        return None
    if _epoch(float(t)) is None:
        return None
    if len(_TIMES) > 100_000:
        _TIMES.clear()
    _TIMES[text] = float(t)
    return float(t)


def _epoch(t: float) -> float | None:
    """``t`` when it is a time a log line can carry (1970 to 9999), else ``None``: a line
    with ``"ts": 1e300``, ``NaN`` or a negative time is malformed, not a date that breaks
    the report later."""
    return t if 0.0 <= t < _MAX_TIME else None


def _json_time(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        n = float(value)
        if not math.isfinite(n):
            return None
        return _epoch(n / (1000.0 if n > 1e11 else 1.0))
    if not isinstance(value, str) or len(value) > 64:
        return None
    hit = _TIMES.get(value)
    if hit is not None:
        return hit
    t = _clf_time(value.encode("latin-1", "replace"))
    if t is None:
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
            t = _epoch(dt.timestamp() if dt.tzinfo else float(timegm(dt.timetuple())))
        except (ValueError, OverflowError, OSError):
            return None
        if t is None:
            return None
    _TIMES[value] = t
    return t


def _status(value: Any) -> int | None:
    """An HTTP status code (100-999) from a JSON value: ``200``, ``"200"``, ``200.0``;
    ``None`` for anything else (``1e400`` is infinity, ``true`` a boolean)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not (math.isfinite(value) and value.is_integer()):
            return None
        value = int(value)
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 3:
        value = int(value)
    return value if isinstance(value, int) and 100 <= value <= 999 else None


def _first(obj: dict[str, Any], *keys: str) -> Any:
    for k in keys:
        v = obj.get(k)
        if v is not None and v != "":
            return v
    return None


def _unescape(ua: bytes) -> str:
    text = ua.decode("latin-1")
    return text.replace('\\"', '"').replace("\\\\", "\\") if "\\" in text else text


def parse_line(line: bytes) -> LogRecord | None:
    """One log line (combined or JSON) as a record, or ``None`` when it is neither."""
    s = line.strip()
    if not s:
        return None
    if s[:1] == b"{":
        return _parse_json(s)
    m = _COMBINED.match(s)
    if m is None:
        return None
    ip, when, method, target, status, ua = m.groups()
    t = _clf_time(when)
    if t is None:
        return None
    return LogRecord(ip.decode("latin-1"), t, method.decode("latin-1"),
                     target.decode("latin-1"), int(status),
                     _unescape(ua) if ua is not None and ua != b"-" else "")


def _parse_json(s: bytes) -> LogRecord | None:
    try:
        obj = json.loads(s)
    except (ValueError, RecursionError):  # RecursionError: [[[[... nested past the limit
        return None
    if not isinstance(obj, dict):
        return None
    ip = _first(obj, "remote_addr", "client_ip", "ip", "client", "remote_ip")
    t = _json_time(_first(obj, "time_local", "time_iso8601", "time", "timestamp",
                          "@timestamp", "ts"))
    method = _first(obj, "method", "request_method")
    path = _first(obj, "uri", "request_uri", "path", "url")
    req = obj.get("request")
    if (method is None or path is None) and isinstance(req, str):
        parts = req.split(" ")
        if len(parts) >= 2:
            method, path = parts[0], parts[1]
    ua = _first(obj, "http_user_agent", "user_agent", "ua", "agent") or ""
    status = _first(obj, "status", "status_code")
    code = _status(status) if status is not None else 0
    if code is None:
        return None
    if not (isinstance(ip, str) and t is not None and isinstance(method, str)
            and isinstance(path, str) and isinstance(ua, str)) or len(ip) > 64 \
            or not 0 < len(method) <= 16 or len(path) > 16_384 or len(ua) > 16_384:
        return None
    return LogRecord(ip, t, method, path, code, ua)


def open_log(path: str) -> IO[bytes]:
    """A log file as bytes: ``-`` is stdin; gzip (by its magic bytes) is decompressed."""

    raw: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    head = raw.peek(2)[:2] if isinstance(raw, io.BufferedReader) else b""
    if head == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


def read_log(stream: IO[bytes], stats: LogStats, *, max_line: int = MAX_LINE
             ) -> Iterator[LogRecord]:
    """The records of ``stream``; bad and over-long lines are counted in ``stats``."""
    readline = stream.readline
    while True:
        try:
            line = readline(max_line + 1)
        except (OSError, EOFError):  # a truncated gzip member ends the file
            stats.malformed += 1
            return
        if not line:
            return
        stats.lines += 1
        stats.bytes_read += len(line)
        if len(line) > max_line and not line.endswith(b"\n"):
            stats.malformed += 1
            while line and not line.endswith(b"\n"):  # skip the rest of the long line
                line = readline(max_line)
                stats.bytes_read += len(line)
            continue
        try:
            rec = parse_line(line)
        except (ValueError, TypeError, OverflowError, RecursionError):  # never fatal
            rec = None
        if rec is None:
            if line.strip():
                stats.malformed += 1
            continue
        stats.records += 1
        yield rec
