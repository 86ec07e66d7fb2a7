"""The WARC reader: robots.txt captures of a web archive (Common Crawl's ``robotstxt`` subset)
into robots.parquet, one row per robots.txt capture (see :mod:`.captures` for the schema and the
duplicate rule).

Theory of operation. Two passes, both in bounded memory.

1. Every ``response`` record of every WARC file (read with FastWARC; chunked transfer coding
   undone by it) becomes one row of a scratch SQLite table on disk: normalised URL key
   (:func:`origin_of` + path), fetch time (``WARC-Date``), HTTP status, the three headers that
   matter (Location, Content-Encoding, Content-Type) and, for 2xx only, the raw payload capped
   at the fetch policy's raw limit (2 x 512,000 + 64 KiB). Other record types (request,
   warcinfo, metadata) are counted and passed over.
2. Each capture whose path is ``/robots.txt`` is replayed through the fetch policy's
   :class:`Attempt`, the same state machine the live fetcher uses: it maps the status to the
   RFC 9309 outcome (2xx rules 2.3.1.1, 3xx follow 2.3.1.2, 4xx allow-all 2.3.1.3, 5xx and 429
   disallow-all 2.3.1.4), decodes Content-Encoding with its bounded decoder and caps the body
   at 512,000 bytes (2.5, ``truncated`` says so). A redirect is followed *within the archive*:
   the capture of the target URL nearest in time at or after the redirecting one (else the
   latest before it), up to 5 hops (2.3.1.2); loops and a sixth hop end as allow-all, as the
   live fetcher does. A target the archive does not hold is unreachable (2.3.1.4:
   disallow-all, ``error`` says why): give the reader all the WARC files of a crawl.

Bad input is normal input: a record that cannot be read is a counted skip, an HTTP response
that cannot be parsed is an error row (disallow-all, ``error`` set), a broken file ends that
file only (counted in :attr:`IngestStats.broken_files`); the run goes on.

Costs: pass 1 is O(archive bytes) time and O(1) memory (rows go to SQLite in chunks); pass 2 is
O(robots captures x hops) indexed look-ups, and writes Parquet in batches of ``batch_rows``
rows, so memory is O(batch_rows x 512,000) at most. Disk: the scratch table holds the capped
payloads of 2xx responses (about the uncompressed size of the archive's robots bodies).
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from robotrules._origin import origin_of
from robotrules._policy import DEFAULT_MAX_BYTES as MAX_BYTES
from robotrules._policy import Attempt, BodyDecoder
from robotrules._url import path_of
from robotrules.errors import InvalidURL

from ._deps import DatasetError, require
from .captures import OUTCOME_OF_KIND, captures_path, index_schema, robots_schema
from .outcomes import cc_robotstxt_mime, cc_ruleset_agents

__all__ = ["IngestStats", "captures_path", "read_warcs"]

_CHUNK = 65_536
_INSERT_EVERY = 2_000


@dataclass
class IngestStats:
    """What a run read: records by type, captures written, skips by reason, broken files."""

    records: int = 0
    responses: int = 0
    rows: int = 0
    rows_seen: int = 0  # robots.txt captures found in pass 1
    error_rows: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    broken_files: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def summary(self) -> list[str]:
        """What was skipped, as lines for a person (none when nothing was)."""
        lines = []
        if self.skipped:
            total = sum(self.skipped.values())
            why = ", ".join(f"{n} {reason}" for reason, n in self.skipped.most_common())
            lines.append(f"skipped {total} record{'s' if total != 1 else ''}: {why}")
        lines += [f"warning: broken file (read up to the break): {b}"
                  for b in self.broken_files]
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {"records": self.records, "responses": self.responses, "rows": self.rows,
                "error_rows": self.error_rows, "skipped": dict(self.skipped),
                "broken_files": list(self.broken_files)}


def _key(url: str) -> tuple[str, str]:
    """(origin, origin + path?query): the look-up key of a URL; raises InvalidURL."""
    origin = origin_of(url)
    return origin, origin + path_of(url)


def _fatal(exc: BaseException) -> bool:
    # FastWARC is Rust: a malformed stream can surface as pyo3's PanicException, which derives
    # from BaseException; everything but a real interrupt is the file's fault, not ours
    return isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit | MemoryError)


def _records(path: str, stats: IngestStats) -> Iterator[Any]:
    warc = require("fastwarc.warc")
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below, also when iteration breaks
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc.strerror or exc}") from exc
    with stream:
        try:
            it = warc.ArchiveIterator(stream, parse_http=True, auto_decode="transfer")
            yield from it
        except BaseException as exc:
            if _fatal(exc):
                raise
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            stats.broken_files.append(f"{path}: {why}")


def _capture(record: Any, path: str, stats: IngestStats, raw_limit: int) -> tuple[Any, ...] | None:
    uri = (record.headers.get("WARC-Target-URI") or "").strip().strip("<>")
    if not uri:
        stats.skipped["response without WARC-Target-URI"] += 1
        return None
    try:
        origin, key = _key(uri)
    except InvalidURL:
        stats.skipped["target URI not http(s)"] += 1
        return None
    cut = (record.headers.get("WARC-Truncated") or "").strip().lower() or None
    detected = (record.headers.get("WARC-Identified-Payload-Type") or "").strip() or None
    when = record.record_date
    micros = int(when.timestamp() * 1_000_000) if when is not None else None
    http = record.http_headers if record.is_http_parsed else None
    status: int | None = None
    location = encoding = ctype = None
    raw: bytes | None = None
    complete = 1
    error: str | None = None
    if http is None or not http.status_code:
        error = "no parsable HTTP response in the record"
    else:
        status = int(http.status_code)
        headers = {str(k).lower(): str(v) for k, v in http.items()}
        location = headers.get("location")
        encoding = headers.get("content-encoding", "")
        ctype = headers.get("content-type")
        if 200 <= status < 300:
            chunks: list[bytes] = []
            size = 0
            while size <= raw_limit:
                chunk = record.reader.read(_CHUNK)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            else:
                complete = 0
            raw = b"".join(chunks)
    # the rest of the block, to see whether the file holds all of it (a file cut mid-record
    # ends a record early without an error from FastWARC)
    while record.reader.read(_CHUNK):
        pass
    # (a chunked body is read decoded, shorter than the block: its length proves nothing)
    chunked = http is not None and "chunked" in str(
        http.get("Transfer-Encoding") or "").lower()
    if not chunked and record.reader.tell() < record.content_length:
        cut = _CUT_SHORT
        stats.broken_files.append(f"{path}: ends inside the record at offset "
                                  f"{record.stream_pos} ({uri})")
    cc = None
    if status == 200 and raw is not None:
        agents = cc_ruleset_agents(_decoded(raw, encoding or ""), detected, ctype)
        cc = None if agents is None else json.dumps(agents)
    return (key, origin, uri, micros, status, location, encoding, ctype, raw, complete, error,
            path, int(record.stream_pos), cut, detected, cc)


def _decoded(raw: bytes, encoding: str) -> bytes:
    """The payload with its Content-Encoding undone (bounded, as the fetch policy decodes)."""
    if not encoding.strip() or encoding.strip().lower() == "identity":
        return raw
    decoder = BodyDecoder(encoding, MAX_BYTES)
    if decoder.error is not None:
        return raw
    try:
        decoder.feed(raw)
        return decoder.finish(complete=False)[0]
    except ValueError:
        return b""


_CUT_SHORT = "file ends inside the record"  # our WARC-Truncated value for a cut file

_COLUMNS = ("key, origin, url, t, status, location, encoding, ctype, raw, complete, error, "
            "warc_file, warc_offset, wtrunc, detected, cc")


def _scratch(directory: str) -> sqlite3.Connection:
    db = sqlite3.connect(os.path.join(directory, "captures.sqlite"))
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute(f"CREATE TABLE cap ({_COLUMNS}, robots INTEGER)")
    return db


def _pass1(paths: Iterable[str], db: sqlite3.Connection, stats: IngestStats,
           raw_limit: int, progress: Callable[[int], None] | None) -> None:
    pending: list[tuple[Any, ...]] = []
    sql = f"INSERT INTO cap ({_COLUMNS}, robots) VALUES ({', '.join('?' * 17)})"
    response = require("fastwarc.warc").WarcRecordType.response
    for path in paths:
        for record in _records(path, stats):
            stats.records += 1
            if record.record_type != response:
                continue
            stats.responses += 1
            try:
                row = _capture(record, path, stats, raw_limit)
            except BaseException as exc:
                if _fatal(exc):
                    raise
                stats.skipped[f"unreadable record ({type(exc).__name__})"] += 1
                continue
            if row is None:
                continue
            is_robots = int(row[0] == row[1] + "/robots.txt")
            pending.append((*row, is_robots))
            stats.rows_seen += is_robots
            if len(pending) >= _INSERT_EVERY:
                db.executemany(sql, pending)
                pending.clear()
        if progress is not None:
            progress(_size(path))
    db.executemany(sql, pending)
    db.execute("CREATE INDEX cap_key ON cap (key, t)")
    db.commit()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


_Row = tuple[Any, ...]  # a row of cap, in _COLUMNS order


def _next_hop(db: sqlite3.Connection, url: str, after: int | None) -> _Row | None:
    try:
        _, key = _key(url)
    except InvalidURL:
        return None
    t = after if after is not None else 0
    return db.execute(  # type: ignore[no-any-return]
        f"SELECT {_COLUMNS} FROM cap WHERE key = ? "
        "ORDER BY (t IS NULL OR t < ?), abs(coalesce(t, 0) - ?) LIMIT 1", (key, t, t)).fetchone()


def _replay(db: sqlite3.Connection, first: _Row, max_bytes: int) -> dict[str, Any]:
    origin = first[1]
    attempt = Attempt(origin, max_bytes=max_bytes)
    cap: _Row | None = first
    redirect: str | None = None
    while attempt.result is None:
        if cap is None:
            attempt.on_error("redirect target not in the archive")
            break
        (_, _, url, t, status, location, encoding, _, raw, complete, error, _, _, cut, _,
         _) = cap
        if status is None:
            attempt.on_error(error or "no HTTP response")
            break
        if cut is not None and cut != "length" and 200 <= status < 300:
            # the crawler stopped reading (WARC-Truncated: time, disconnect, ...): as the live
            # fetcher, whose transfer cut mid-body is unreachable (RFC 9309 2.3.1.4)
            attempt.on_error("the WARC file ends inside the record" if cut == _CUT_SHORT else
                             f"capture truncated by the crawler (WARC-Truncated: {cut})")
            break
        headers = {"content-encoding": encoding or ""}
        if location is not None:
            headers["location"] = location
        attempt.url = url  # the archived spelling, so relative Locations resolve against it
        step = attempt.on_response(status, headers)
        if step == "read-body":
            stop = attempt.feed(raw or b"")
            if attempt.result is None:
                attempt.on_body_end(complete=bool(complete) and not stop)
        elif step == "redirect":
            if redirect is None:
                redirect = attempt.url
            cap = _next_hop(db, attempt.url, t)
    result = attempt.result
    assert result is not None
    if redirect is None and first[4] is not None and 300 <= first[4] < 400 and first[5]:
        redirect = urljoin(first[2], first[5].strip())  # a redirect the policy refused
    outcome = OUTCOME_OF_KIND[result.kind]
    final_ctype = cap[7] if cap is not None else None
    body, truncated = result.body, result.truncated
    if outcome == "rules" and cap is not None and cap[13] == "length" and not truncated:
        # the crawler's own size cap cut the file: as RFC 9309 2.5's limit, the cut line goes
        truncated = True
        body = body[: max(body.rfind(b"\n"), body.rfind(b"\r")) + 1]
    return {
        "origin": origin,
        "robots_url": first[2],
        "fetch_time": (datetime.fromtimestamp(first[3] / 1_000_000, UTC)
                       if first[3] is not None else None),
        "status": first[4],
        "redirect": redirect,
        "final_url": result.final_url,
        "final_status": result.status,
        "hops": len(result.redirects),
        "outcome": outcome,
        "body": body if outcome == "rules" else None,
        "truncated": truncated,
        "error": result.error,
        "content_type": final_ctype,
        "warc_file": first[11],
        "warc_offset": first[12],
    }


def read_warcs(
    paths: Iterable[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    max_bytes: int = MAX_BYTES,
    batch_rows: int = 1024,
    scratch_dir: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> IngestStats:
    """Read WARC files (plain or gzip, per-record or whole) into robots.parquet at ``out``.

    ``progress`` is called with each file's size in bytes once that file is read. Raises
    :class:`DatasetError` for a file that cannot be opened, and when not one record of any file
    could be read (then nothing is written); everything else that is wrong inside a file is
    counted in the returned :class:`IngestStats`. ``out`` appears only when the run succeeded.
    """
    pa = require("pyarrow")
    pq = require("pyarrow.parquet")
    names = [os.fspath(p) for p in paths]
    for name in names:
        if not os.path.isfile(name):
            raise DatasetError(f"no such WARC file: {name}")
    stats = IngestStats()
    schema = robots_schema()
    raw_limit = 2 * max_bytes + 65_536  # what the fetch policy's decoder reads at most
    target = Path(out)
    partial = target.parent / f".{target.name}.{os.getpid()}.partial"
    with tempfile.TemporaryDirectory(prefix="robotrules-warc-", dir=scratch_dir) as tmp:
        db = _scratch(tmp)
        try:
            _pass1(names, db, stats, raw_limit, progress)
            if stats.records == 0:  # nothing could be read: no output, exit 2 in the CLI
                why = "; ".join(stats.broken_files[:3]) + (
                    " ..." if len(stats.broken_files) > 3 else "")
                raise DatasetError("no WARC record could be read: " + (
                    why or ", ".join(names[:3]) + (" ..." if len(names) > 3 else "") +
                    (" is empty" if len(names) == 1 else " are empty")))
            if stats.rows_seen == 0 and stats.broken_files:  # a broken file, no capture read
                raise DatasetError("no robots.txt capture could be read: "
                                   + "; ".join(stats.broken_files[:3]))
            target.parent.mkdir(parents=True, exist_ok=True)
            with pq.ParquetWriter(os.fspath(partial), schema, compression="zstd") as writer:
                rows: list[dict[str, Any]] = []
                cursor = db.execute(
                    f"SELECT {_COLUMNS} FROM cap WHERE robots = 1 ORDER BY origin, t, rowid")
                for first in cursor:
                    row = _replay(db, first, max_bytes)
                    stats.rows += 1
                    stats.error_rows += row["error"] is not None
                    rows.append(row)
                    if len(rows) >= batch_rows:
                        writer.write_batch(pa.RecordBatch.from_pylist(rows, schema=schema))
                        rows.clear()
                if rows or stats.rows == 0:
                    writer.write_batch(pa.RecordBatch.from_pylist(rows, schema=schema))
            side = captures_path(target)
            side_partial = side.parent / f".{side.name}.{os.getpid()}.partial"
            try:
                _write_captures(db, side_partial)
                os.replace(partial, target)
                os.replace(side_partial, side)
            finally:
                if side_partial.exists():
                    side_partial.unlink()
            stats.files = [target, side]
        finally:
            db.close()
            if partial.exists():
                partial.unlink()
    return stats


def _target(url: str, location: str | None) -> str | None:
    """Where Common Crawl's procedure looks a redirect up: the Location as written when it
    starts with ``http://`` or ``https://``, else resolved against the URL; none when empty."""
    if not location:
        return None
    if location.startswith(("http://", "https://")):
        return location
    try:
        return urljoin(url, location)
    except ValueError:
        return None


def _write_captures(db: sqlite3.Connection, path: Path) -> None:
    """Every response record of the crawl as Common Crawl's URL index describes it
    (:func:`.captures.index_schema`), no bodies: what Common Crawl's outcome procedure reads."""
    pa = require("pyarrow")
    pq = require("pyarrow.parquet")

    schema = index_schema()
    with pq.ParquetWriter(os.fspath(path), schema, compression="zstd") as writer:
        cursor = db.execute("SELECT url, t, status, location, ctype, detected, cc, wtrunc, "
                            "warc_file, warc_offset FROM cap ORDER BY rowid")
        while rows := cursor.fetchmany(8192):
            cols: dict[str, list[Any]] = {f.name: [] for f in schema}
            for url, t, status, location, ctype, detected, cc, cut, wfile, woff in rows:
                parts = urlsplit(url)
                try:
                    host = parts.hostname
                except ValueError:
                    host = None
                cols["url"].append(url)
                cols["url_host_name"].append(host)
                cols["url_path"].append(parts.path)
                cols["url_query"].append(parts.query or None)
                cols["fetch_time"].append(t)
                cols["fetch_status"].append(status)
                loc = location.strip() if location is not None else None
                cols["fetch_redirect"].append(loc)
                cols["redirect_target"].append(_target(url, loc))
                mime = ctype.split(";")[0].strip() or None if ctype is not None else None
                cols["content_mime_type"].append(mime)
                cols["content_mime_detected"].append(detected)
                agents = None if cc is None else json.loads(cc)
                cols["ruleset_agents"].append(agents)
                cols["is_robotstxt_mime"].append(cc_robotstxt_mime(detected, mime))
                cols["has_ruleset"].append(bool(agents))
                cols["warc_truncated"].append(cut)
                cols["warc_file"].append(wfile)
                cols["warc_offset"].append(woff)
            arrays = [pa.array(cols[f.name], f.type) if f.name != "fetch_time" else
                      pa.array(cols["fetch_time"], pa.int64()).cast(f.type) for f in schema]
            writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))

