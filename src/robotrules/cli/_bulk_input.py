"""``bulk``'s input: bytes to lines to URLs, each line read on its own (no Click, no I/O).

:func:`split_lines` cuts a binary stream into lines (``\\n``, ``\\r\\n`` or a lone ``\\r``; at
most :data:`MAX_LINE` bytes each, a longer line an error whose bytes are never stored);
:func:`records` reads each line as plain text, CSV or JSON Lines (detected from the first
non-blank line) and yields ``(line number, URL or preview, error or None, drained)``.

Bad input is normal input: a line that cannot be read (an unbalanced CSV quote, broken JSON,
a NUL byte, bytes that are not UTF-8, a line over the cap) gives an error with its line number,
and the lines after it are read as usual, because each line is parsed alone (a CSV field cannot
span lines). Each input byte is looked at a constant number of times.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import IO

__all__ = ["MAX_LINE", "LineError", "records", "split_lines"]

MAX_LINE = 65_536  # bytes; a URL is at most a few KiB (RFC 9110 recommends 8,000 octets)
_PREVIEW = 200  # characters of a bad line kept in its error row


class LineError(Exception):
    """A line that cannot be read; the message becomes its error row's reason."""


def split_lines(stream: IO[bytes], *, chunk: int = 1 << 16,
                max_line: int = MAX_LINE) -> Iterator[tuple[int, bytes | LineError, bool]]:
    """``(line number, bytes or error, drained)`` for each line of a binary stream.

    Lines end at LF, CRLF or a lone CR. A line longer than ``max_line`` bytes is an error (its
    bytes are skipped, never stored). ``drained`` is true when no more input was waiting, so
    that the caller hands over what it has before blocking on a slow pipe.
    """
    read1 = getattr(stream, "read1", None) or stream.read
    pending = bytearray()
    n = 0
    skipping = False  # inside an overlong line: drop bytes until its end
    after_cr = False  # the previous chunk ended with CR: a leading LF belongs to it
    first = True
    while True:
        data = read1(chunk)
        if not data:
            break
        if first:
            first = False
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
        start = 0
        if after_cr and data[:1] == b"\n":
            start = 1
        after_cr = False
        size = len(data)
        i = start
        while i < size:
            cr = data.find(b"\r", i)
            lf = data.find(b"\n", i)
            ends = [p for p in (cr, lf) if p >= 0]
            if not ends:
                if not skipping:
                    pending += data[i:]
                    if len(pending) > max_line:
                        n += 1
                        yield n, _too_long(max_line), False
                        pending.clear()
                        skipping = True
                break
            end = min(ends)
            nxt = end + 1
            if data[end] == 0x0D:
                if nxt < size and data[nxt] == 0x0A:
                    nxt += 1
                elif nxt == size:
                    after_cr = True
            if skipping:
                skipping = False
            else:
                pending += data[i:end]
                n += 1
                if len(pending) > max_line:
                    yield n, _too_long(max_line), nxt >= size
                else:
                    yield n, bytes(pending), nxt >= size
            pending.clear()
            i = nxt
    if pending and not skipping:
        n += 1
        yield n, bytes(pending), True


def _too_long(max_line: int) -> LineError:
    return LineError(f"line longer than {max_line:,} bytes")


def _text(raw: bytes) -> str:
    if b"\x00" in raw:
        raise LineError("binary data (NUL byte), not text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LineError(f"not UTF-8 text (byte {exc.start + 1})") from None


def records(lines: Iterator[tuple[int, bytes | LineError, bool]]
            ) -> Iterator[tuple[int, str, str | None, bool]]:
    """``(line number, URL or preview, error or None, drained)``: URLs from plain lines, CSV
    (a 'url' column, else the first) or JSON Lines, detected from the first non-blank line."""
    kind: str | None = None
    column = 0
    for n, raw, drained in lines:
        if isinstance(raw, LineError):
            yield n, "", str(raw), drained
            continue
        try:
            text = _text(raw)
        except LineError as exc:
            yield n, raw[:_PREVIEW].decode("utf-8", "replace"), str(exc), drained
            continue
        line = text.strip()
        if not line:
            continue
        if kind is None:
            if line.startswith("{"):
                kind = "jsonl"
            elif "," in line or line.lower() == "url":
                kind = "csv"
                try:
                    header = [h.strip().lower() for h in next(csv.reader([text], strict=True))]
                except csv.Error:
                    header = []
                if "url" in header:
                    column = header.index("url")
                    continue
            else:
                kind = "lines"
        if kind == "lines":
            if not line.startswith("#"):
                yield n, line, None, drained
        elif kind == "jsonl":
            yield (n, *_json_url(line), drained)
        else:
            yield (n, *_csv_url(text, column), drained)


def _json_url(line: str) -> tuple[str, str | None]:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return line[:_PREVIEW], f"not JSON ({exc.msg} at column {exc.colno})"
    except ValueError as exc:  # e.g. a number too long to convert
        return line[:_PREVIEW], f"not JSON ({exc})"
    except RecursionError:
        return line[:_PREVIEW], "not JSON (nested too deeply)"
    url = obj.get("url") if isinstance(obj, dict) else None
    if not isinstance(url, str):
        return line[:_PREVIEW], 'not a JSON object with a "url" string'
    return url.strip(), None


def _csv_url(text: str, column: int) -> tuple[str, str | None]:
    try:
        row = next(csv.reader([text], strict=True), [])
    except csv.Error as exc:
        return text.strip()[:_PREVIEW], f"CSV: {exc} (a quote not closed on its line?)"
    if len(row) <= column or not row[column].strip():
        return text.strip()[:_PREVIEW], f"CSV: no URL in column {column + 1}"
    return row[column].strip(), None
