"""The engines that run the batch kernel: ``duckdb`` (one machine, the default) and ``spark``.

Both compute the same thing: each URL's origin (RFC 9309 2.3, :func:`.kernel.url_origins`), the
origin's robots.parquet row chosen by the duplicate rule (:func:`.captures.chosen_sql`), a left
join of URLs with those rows by origin, and :func:`.kernel.evaluate` over the joined batches.
Output columns: the URL file's columns, ``origin``, ``robots_outcome``, ``robots_fetch_time``,
then the verdict columns.

``duckdb``. Theory of operation:

1. the robots.parquet files are read by DuckDB and the duplicate rule runs as one window query
   into a table ``chosen``;
2. the URL files (Parquet, CSV with a header line, JSON Lines; globs of them) are read by
   DuckDB's own readers. Each URL's origin key is cut in SQL (:func:`_keyed_sql`: the
   ``scheme://authority`` prefix :data:`.kernel.URL_PREFIX` takes, else the whole URL); one scan
   groups the keys, :func:`.kernel.url_origins` gives each distinct key its origin (no Python
   per row) and a small table ``__map`` gives it the origin's rank in origin order
   (``__oid``); a table ``__origins`` holds, per rank, the origin and its chosen capture. A
   second scan joins the URLs with ``__map`` by key and sorts them by that integer rank, then
   by the row's hash; rows next to each other with the same rank and hash are checked to be
   equal rows, else the run starts over with the row's own columns as further keys (equal sort
   keys are then equal rows: the output depends on the rows only, not on DuckDB's threads or
   the input order), so each origin's URLs arrive together and each robots.txt is parsed
   once. The join and the sort carry the URL row and its rank alone;
3. the sorted rows stream out as Arrow record batches; for each batch the origin columns of
   its rank range are read from ``__origins`` (a range scan, the table being in rank order)
   and taken per row, the bodies as a dictionary column (each file once per batch);
4. the kernel's batches are written to a temporary Parquet file next to ``out``, renamed to
   ``out`` only when the run succeeded (nothing is ever written half).

DuckDB runs the reading, the join and the sort on its threads (``threads``), out of core under
``memory_limit`` with a spill directory in the scratch directory; the kernel runs in the calling
Python thread. Memory: DuckDB's limit, plus one batch and its bodies. Output rows are in origin
order, then in an order fixed by their contents, not in the input's: keep an id column if
order matters.

``spark`` joins with Spark SQL and runs the kernel through ``mapInArrow``; the duplicate rule
runs once per partition of the robots rows repartitioned by origin (``mapInArrow``, the same
DuckDB query on the partition's rows: every capture of an origin is in one partition).
Nothing is collected on the driver: the executors write a Parquet directory at ``out``.
"""

from __future__ import annotations

import glob
import gzip
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import robotrules
from robotrules import Dialect
from robotrules.aipref.vocabulary import DEFAULT_VOCABULARY

from ._deps import DatasetError, require
from ._io import check_output, check_robots, url_format
from .captures import choose, chosen_sql
from .kernel import (
    URL_AUTHORITY,
    RulesCache,
    array_of,
    evaluate,
    numpy_of,
    output_schema,
    url_origins,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Engine", "Progress", "VerdictRun", "connect", "run_verdicts", "session_for",
           "spark_note", "spark_session"]

Engine = Literal["duckdb", "spark"]

#: ``progress(phase, done, total)``: rows done so far in a phase; ``total`` None when unknown.
Progress = Callable[[str, int, "int | None"], None]

_ROBOTS_READ = ("origin", "robots_url", "fetch_time", "outcome", "body", "warc_offset")
_JOINED = ("origin", "robots_outcome", "robots_fetch_time")
_BATCH = 1 << 17  # rows a batch: bigger batches split fewer origins between two calls


@dataclass
class VerdictRun:
    """What a run did: URL rows in and out, robots parses, engine, inputs."""

    engine: str
    urls: int = 0
    parses: int = 0
    files: int = 0
    bad_rows: int = 0
    where: str = ""  # Spark: which master and application ran the job (:func:`spark_note`)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def expand(paths: Sequence[str], what: str) -> list[str]:
    """Each path, a glob expanded (sorted); an error names a path or pattern matching nothing."""
    out: list[str] = []
    for path in paths:
        if glob.has_magic(path):
            found = sorted(p for p in glob.glob(path) if os.path.isfile(p))
            if not found:
                raise DatasetError(f"no {what} matches {path}")
            out += found
        elif os.path.isdir(path):
            raise DatasetError(f"{path} is a directory, not a {what}: give its files or a "
                               f"quoted glob ('{os.path.join(path, '*')}')")
        elif not os.path.isfile(path):
            raise DatasetError(f"no such {what}: {path}")
        else:
            out.append(path)
    return out


def connect(threads: int | None = None, memory_limit: str | None = None,
            spill_dir: str | None = None) -> Any:
    """A DuckDB connection with the run's threads, memory limit and spill directory."""
    duckdb = require("duckdb")
    # DuckDB's own progress bar writes to stdout: progress is ours, on stderr, or none
    con = duckdb.connect(config={"preserve_insertion_order": False})
    con.execute("SET enable_progress_bar = false")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    if memory_limit:
        try:
            con.execute("SET memory_limit = ?", [memory_limit])
        except duckdb.Error as exc:
            con.close()
            raise DatasetError(f"bad memory limit {memory_limit!r}: {_one_line(exc)}") from exc
    if spill_dir:
        con.execute("SET temp_directory = ?", [spill_dir])
    return con


def url_relation(con: Any, paths: Sequence[str], column: str) -> tuple[Any, int | None]:
    """The URL files as one DuckDB relation, checked (files readable, ``column`` there and
    text), and their row count when the files tell it without a scan (Parquet)."""
    duckdb = require("duckdb")
    kinds = {url_format(p) for p in paths}
    if len(kinds) > 1:
        raise DatasetError("URL files of different kinds (" + ", ".join(sorted(kinds)) +
                           "); give one kind per run")
    kind = kinds.pop()
    files = list(paths)
    total: int | None = None
    try:
        if kind == "parquet":
            rel = con.read_parquet(files)
            rows = con.execute("SELECT sum(num_rows) FROM parquet_file_metadata(?)",
                               [files]).fetchall()
            total = int(rows[0][0] or 0)
        elif kind == "csv":
            for f in files:
                if _empty_text(f):
                    raise DatasetError(f"{f} is empty: a CSV needs a header line naming the "
                                       f"URL column ({column!r})")
            # a row that is not UTF-8 or not CSV is skipped and counted (reject_errors)
            rel = con.sql("SELECT * FROM read_csv(?, header = true, "
                          "ignore_errors = true, store_rejects = true)", params=[files])
        else:
            # a line that is not JSON (a lone surrogate ...) reads as all nulls: skipped
            # and counted (:func:`bad_url_rows`)
            raw = con.sql("SELECT * FROM read_json(?, format = 'newline_delimited', "
                          "ignore_errors = true)", params=[files])
            raw.create_view("__json_urls", replace=True)
            empty = " AND ".join(f"{_q(c)} IS NULL" for c in raw.columns)
            con.execute(f"CREATE OR REPLACE TEMP VIEW __json_good AS SELECT * FROM __json_urls "
                        f"WHERE NOT ({empty})")
            con.execute(f"CREATE OR REPLACE TEMP VIEW __json_bad AS SELECT count(*) AS n "
                        f"FROM __json_urls WHERE {empty}")
            rel = con.view("__json_good")
    except duckdb.Error as exc:
        raise DatasetError(f"cannot read {_name(files)}: {_one_line(exc)}") from exc
    if column not in rel.columns:
        raise DatasetError(f"{_name(files)} has no column {column!r} "
                           f"(columns: {', '.join(rel.columns) or 'none'})")
    kind_of = dict(zip(rel.columns, (str(t) for t in rel.types), strict=True))
    if kind_of[column] != "VARCHAR":
        raise DatasetError(f"{_name(files)}: column {column!r} is {kind_of[column]}, not text")
    for name in (*_JOINED, "robots_body"):
        if name in rel.columns:
            raise DatasetError(f"{_name(files)} already has a column {name!r}; rename it")
    return rel, total


def _empty_text(path: str) -> bool:
    """No header line: the file is empty or white space only (plain or gzip)."""
    try:
        with (gzip.open(path, "rb") if path.lower().endswith(".gz") else open(path, "rb")) as f:
            return not f.read(4096).strip()
    except (OSError, EOFError):
        return False  # DuckDB says what is wrong with it


def bad_url_rows(con: Any, kind: str) -> int:
    """URL rows skipped as unreadable (not UTF-8, not CSV, not JSON) once the run has read
    them: DuckDB's rejects for CSV, the all-null lines for JSON Lines."""
    try:
        if kind == "csv":
            # each scan of the files (the origin keys, then the join) logs the same rejects
            return int(con.execute("SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n "
                                   "FROM reject_errors GROUP BY scan_id)").fetchall()[0][0])
        if kind == "json":
            return int(con.execute("SELECT n FROM __json_bad").fetchall()[0][0])
    except Exception:
        return 0
    return 0


def _name(files: Sequence[str]) -> str:
    return files[0] if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more)"


def _keyed_sql(column: str, source: str) -> str:
    """SQL for the rows of ``source`` with their URL's origin key ``__k``: the
    ``scheme://authority`` prefix :data:`.kernel.URL_PREFIX` takes (its run,
    :data:`.kernel.URL_AUTHORITY`, cut once per row, then what follows it tested: the end, or
    a path, query or fragment), or the whole URL when the pattern does not take it; NULL for a
    NULL URL. Equal keys have equal origins, so the origin is computed once per distinct key
    (:func:`_origin_map`)."""
    url = _q(column)
    run = URL_AUTHORITY.replace("'", "''")
    return (f"SELECT * EXCLUDE (__kp), CASE WHEN {url} IS NULL THEN NULL WHEN __kp <> '' AND "
            f"(length(__kp) = length({url}) OR substr({url}, length(__kp) + 1, 1) IN "
            f"('/', '?', '#')) THEN __kp ELSE {url} END AS __k "
            f"FROM (SELECT *, regexp_extract({url}, '^{run}', 0) AS __kp FROM {source})")


def _origin_map(con: Any) -> int:
    """Tables ``__map``, per distinct origin key of the URLs (``__urls.__k``:
    :func:`_keyed_sql`), its origin's rank in origin order (``__oid``: RFC 9309 2.3's origin
    by :func:`.kernel.url_origins`, once per key; keys without an origin are left out), and
    ``__origins``, per rank (in rank order) the origin and its chosen capture (outcome, fetch
    time, body; NULL without one). The join and sort carry the rank alone; each batch reads
    its ranks' rows here (:func:`_with_origins`). Returns the number of URL rows."""
    pa_ = require("pyarrow")
    pc = require("pyarrow.compute")
    keys = con.sql("SELECT __k AS k, count(*) AS n FROM __urls GROUP BY k").to_arrow_table()
    rows = int(pc.sum(keys.column("n")).as_py() or 0)
    keys = keys.filter(keys.column("k").is_valid())
    found = pa_.table({"k": keys.column("k"), "origin": url_origins(keys.column("k"))})
    con.register("__keys", found)
    con.execute("CREATE TEMP TABLE __map AS SELECT k, origin, "
                "dense_rank() OVER (ORDER BY origin) AS __oid FROM __keys "
                "WHERE origin IS NOT NULL")
    con.unregister("__keys")
    con.execute("CREATE TABLE __origins AS SELECT m.__oid, m.origin, c.outcome, "
                "c.fetch_time, c.body FROM (SELECT DISTINCT __oid, origin FROM __map) m "
                "LEFT JOIN chosen c USING (origin) ORDER BY m.__oid")
    con.execute("DROP TABLE chosen")  # its bodies live on in __origins, those of the URLs'
    return rows


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class _Job:
    """What the kernel computes for each batch (:func:`.kernel.evaluate`'s arguments) and in
    how many processes."""

    agents: tuple[str, ...]
    column: str
    usage: bool
    dialect: Dialect
    vocabulary: str
    workers: int


def _duckdb(robots: Sequence[str], urls: Sequence[str], out: str, agents: Sequence[str],
            column: str, usage: bool, dialect: Dialect, threads: int | None,
            memory_limit: str | None, progress: Progress | None,
            scratch_dir: str | None, workers: int, vocabulary: str) -> VerdictRun:
    duckdb = require("duckdb")
    job = _Job(tuple(agents), column, usage, dialect, vocabulary, workers)
    run = VerdictRun("duckdb", files=len(urls))
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    if scratch_dir:
        os.makedirs(scratch_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="robotrules-verdicts-", dir=scratch_dir) as tmp:
        con = connect(threads, memory_limit, os.path.join(tmp, "spill"))
        partial = target.parent / f".{target.name}.{os.getpid()}.partial"
        try:
            rel, rows = _load_tables(con, robots, urls, column, progress)
            cache = RulesCache(dialect, size=64)
            pool_parses = [0]
            try:
                done = _write_sorted(con, rel, partial, job, cache, pool_parses, rows,
                                     progress, exact=False)
            except _Collision:
                done = _write_sorted(con, rel, partial, job, cache, pool_parses, rows,
                                     progress, exact=True)
            os.replace(partial, target)
            run.urls, run.parses = done, cache.parses + pool_parses[0]
            run.bad_rows = bad_url_rows(con, url_format(urls[0]))
        except duckdb.Error as exc:
            if _interrupted(exc):
                raise KeyboardInterrupt from exc
            raise DatasetError(_one_line(exc)) from exc
        finally:
            if partial.exists():
                partial.unlink()
            con.close()
    return run


def _load_tables(con: Any, robots: Sequence[str], urls: Sequence[str], column: str,
                 progress: Progress | None) -> tuple[Any, int]:
    """Steps 1 and 2 of the theory of operation: the table ``chosen``, the URLs with their
    origin keys (``__urls``) and the origin tables; returns the URL relation and its rows."""
    duckdb = require("duckdb")
    rel, total = url_relation(con, urls, column)
    con.register("url_rel", rel)
    source = f"(SELECT {', '.join(_ROBOTS_READ)} FROM read_parquet(?))"
    try:
        con.execute(f"CREATE TABLE chosen AS {chosen_sql(source)}", [list(robots)])
    except duckdb.Error as exc:
        raise DatasetError(_which_robots(con, robots, exc)) from exc
    if progress is not None:
        progress("reading URLs", 0, total)
    # one scan of the URL files (DuckDB's threads), each row's origin key computed once: the
    # key table and the join read this table
    con.execute(f"CREATE TEMP TABLE __urls AS {_keyed_sql(column, 'url_rel')}")
    rows = _origin_map(con)
    if progress is not None:
        progress("reading URLs", rows, rows)
    return rel, rows


def _write_sorted(con: Any, rel: Any, partial: Path, job: _Job, cache: RulesCache,
                  pool_parses: list[int], rows: int, progress: Progress | None, *,
                  exact: bool) -> int:
    """Steps 2 to 4: the URLs joined with their origin ranks and sorted, the kernel's
    batches written to ``partial``; returns the rows written. Origin order (an integer
    rank), then the row's hash, then (``exact``) the row itself: equal sort keys are equal
    rows, so the output is the same whatever DuckDB's threads do. Without the row's columns
    as keys (they cost a third of the sort) two rows of an origin with one hash could come
    in either order: the batches are checked (_settled), and a pair of different rows with
    one hash, which a 64-bit hash all but never gives, raises _Collision (start over
    ``exact``)."""
    pq = require("pyarrow.parquet")
    cols = ", ".join(f"u.{_q(c)}" for c in rel.columns)
    every = [f"u.{_q(c)}" for c in rel.columns]
    ties = "".join(f", {c} NULLS LAST" for c in every) if exact else ""
    stream = con.sql(
        f"SELECT {cols}, m.__oid, {_ROW_HASH.format(', '.join(every))} AS __h "
        f"FROM __urls u LEFT JOIN __map m ON u.__k = m.k "
        f"ORDER BY m.__oid NULLS LAST, __h{ties}").to_arrow_reader(_BATCH)
    sorted_ = stream if exact else _settled(stream)
    bodies = con.cursor()
    joined = (_with_origins(b.drop_columns(["__h"]), bodies) for b in sorted_)
    writer = None
    done = 0
    try:
        for result in _verdict_batches(joined, job, cache, pool_parses):
            if writer is None:
                writer = pq.ParquetWriter(partial, result.schema, compression="zstd")
            writer.write_batch(result)
            done += result.num_rows
            if progress is not None:
                progress("verdicts", done, rows)
        if writer is None:  # no URL at all: an empty table with the right columns
            schema = output_schema(_joined_schema(rel, con), job.agents, usage=job.usage,
                                   vocabulary=job.vocabulary)
            writer = pq.ParquetWriter(partial, schema, compression="zstd")
    finally:
        if writer is not None:
            writer.close()
        stream.close()  # (a reader left open holds the connection)
        bodies.close()
    return done


def _verdict_batches(joined: Iterator[pa.RecordBatch], job: _Job, cache: RulesCache,
                     pool_parses: list[int]) -> Iterator[pa.RecordBatch]:
    """The kernel over the joined batches: in this process with ``cache``, or in
    ``job.workers`` processes (their parses counted in ``pool_parses``)."""
    if job.workers > 1:
        return _pool_evaluate(joined, job.workers, job.agents, job.column, job.usage,
                              job.dialect, pool_parses, job.vocabulary)
    return (evaluate(b, job.agents, url_column=job.column, usage=job.usage, cache=cache,
                     vocabulary=job.vocabulary) for b in joined)


def _which_robots(con: Any, robots: Sequence[str], exc: BaseException) -> str:
    """The error of reading robots.parquet files, naming the file that fails alone."""
    duckdb = require("duckdb")
    if _interrupted(exc):
        raise KeyboardInterrupt from exc
    for path in robots:
        try:
            con.execute(f"SELECT sum(hash({', '.join(_ROBOTS_READ)})) FROM read_parquet(?)",
                        [path])
        except duckdb.Error as one:
            return f"cannot read {path} (a robots.parquet): {_one_line(one)}"
    return f"cannot read the robots files: {_one_line(exc)}"


def _interrupted(exc: BaseException) -> bool:
    """DuckDB's report of a Ctrl-C: an interrupted query, or a KeyboardInterrupt it relays."""
    duckdb = require("duckdb")
    return isinstance(exc, duckdb.InterruptException) or "KeyboardInterrupt" in str(exc)


def _with_origins(batch: pa.RecordBatch, origins: Any) -> pa.RecordBatch:
    """A sorted batch of URL rows (their origin's rank ``__oid`` last) with the columns of
    their origin read from ``__origins``: one range read (the batch is in rank order and
    ranks are dense, so row ``r`` takes entry ``__oid[r] - first``); ``robots_body`` a
    dictionary column (each file once per batch)."""
    pa_ = require("pyarrow")
    np = require("numpy")
    oid = batch.column("__oid")
    ids = oid.drop_null()
    names = [*batch.schema.names[:-1], *_JOINED, "robots_body"]
    if len(ids):
        lo, hi = int(ids[0].as_py()), int(ids[-1].as_py())
        got = origins.sql("SELECT origin, outcome, fetch_time, body FROM __origins "
                          "WHERE __oid BETWEEN ? AND ? ORDER BY __oid",
                          params=[lo, hi]).to_arrow_table().combine_chunks()
        at = array_of((numpy_of(oid, lo) - lo).astype(np.int32),
                      mask=numpy_of(oid.is_null()) if oid.null_count else None)
        joined = [got.column(c).chunk(0).take(at) for c in ("origin", "outcome", "fetch_time")]
        body = pa_.DictionaryArray.from_arrays(at, got.column("body").chunk(0))
    else:
        joined = [pa_.nulls(batch.num_rows, pa_.string()),
                  pa_.nulls(batch.num_rows, pa_.string()),
                  pa_.nulls(batch.num_rows, pa_.timestamp("us"))]
        body = pa_.nulls(batch.num_rows, pa_.binary())
    # DuckDB names its session zone (Etc/UTC ...): the output says UTC, as Spark's does
    joined[2] = joined[2].cast(pa_.timestamp("us", tz="UTC"))
    return pa_.RecordBatch.from_arrays([*batch.columns[:-1], *joined, body], names=names)


#: The sort's hash of a URL row's columns (a format string: the columns, comma-separated)
_ROW_HASH = "hash({})"


class _Collision(Exception):
    """Two different URL rows of one origin have the same row hash (:func:`_settled`)."""


def _settled(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``batches`` (sorted by origin rank ``__oid`` and row hash ``__h``, the last two
    columns) as they come, checked: rows next to each other with the same rank and hash are
    equal rows (so their order does not show), else :class:`_Collision`."""
    np = require("numpy")
    tail: pa.RecordBatch | None = None
    for batch in batches:
        n = batch.num_rows
        if not n:
            continue
        oid = numpy_of(batch.column("__oid"), -1)
        h = numpy_of(batch.column("__h"))
        at = np.flatnonzero((oid[1:] == oid[:-1]) & (h[1:] == h[:-1]))
        if len(at) and _differ(batch, at, batch, at + 1):
            raise _Collision
        if tail is not None:
            last = tail.num_rows - 1
            if (numpy_of(tail.column("__oid"), -1)[last] == oid[0]
                    and numpy_of(tail.column("__h"))[last] == h[0]
                    and _differ(tail, np.array([last]), batch, np.array([0]))):
                raise _Collision
        tail = batch.slice(n - 1, 1)
        yield batch


def _differ(a: pa.RecordBatch, rows_a: Any, b: pa.RecordBatch, rows_b: Any) -> bool:
    """Whether row ``rows_a[i]`` of ``a`` and row ``rows_b[i]`` of ``b`` differ for some
    ``i``, in a column of the URL files (all but the last two); nulls equal nulls. Where
    Arrow cannot compare a type, the values as Python objects (a NaN differs from itself:
    the run starts over exact, which costs time only)."""
    pa_ = require("pyarrow")
    pc = require("pyarrow.compute")
    ia, ib = array_of(rows_a), array_of(rows_b)
    for j in range(a.num_columns - 2):
        x, y = a.column(j).take(ia), b.column(j).take(ib)
        try:
            same = pc.or_kleene(pc.equal(x, y), pc.and_(pc.is_null(x), pc.is_null(y)))
            if not pc.all(pc.fill_null(same, False)).as_py():
                return True
        except pa_.ArrowNotImplementedError:
            if x.to_pylist() != y.to_pylist():
                return True
    return False


_WORKER_CACHE: dict[str, RulesCache] = {}


def _evaluate_task(batch: pa.RecordBatch, agents: Sequence[str], column: str, usage: bool,
                   dialect: Dialect, vocabulary: str) -> tuple[pa.RecordBatch, int]:
    """Worker process: the kernel on one batch with the process's parse cache; the batch and
    the files parsed for it."""
    cache = _WORKER_CACHE.setdefault(dialect, RulesCache(dialect, size=64))
    before = cache.parses
    return evaluate(batch, agents, url_column=column, usage=usage, cache=cache,
                         vocabulary=vocabulary), \
        cache.parses - before


def _pool_evaluate(batches: Iterator[pa.RecordBatch], workers: int, agents: Sequence[str],
                   column: str, usage: bool, dialect: Dialect, parses: list[int],
                   vocabulary: str) -> Iterator[pa.RecordBatch]:
    """The kernel over ``batches`` in ``workers`` processes, results in input order, at most
    2 x workers batches in flight (Arrow batches pickle as their buffers)."""

    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        pending: list[Future[tuple[pa.RecordBatch, int]]] = []

        def take(f: Future[tuple[pa.RecordBatch, int]]) -> pa.RecordBatch:
            batch, parsed = f.result()
            parses[0] += parsed
            return batch

        for batch in batches:
            pending.append(pool.submit(_evaluate_task, batch, list(agents), column, usage,
                                       dialect, vocabulary))
            if len(pending) >= 2 * workers:
                yield take(pending.pop(0))
        for f in pending:
            yield take(f)


def _joined_schema(rel: Any, con: Any) -> pa.Schema:
    pa_ = require("pyarrow")
    base = rel.limit(0).to_arrow_table().schema
    return pa_.schema([*base, pa_.field("origin", pa_.string()),
                       pa_.field("robots_outcome", pa_.string()),
                       pa_.field("robots_fetch_time", pa_.timestamp("us", tz="UTC")),
                       pa_.field("robots_body", pa_.binary())])


def run_verdicts(
    robots: Sequence[str],
    urls: str | Sequence[str],
    out: str,
    agents: Sequence[str],
    *,
    engine: Engine = "duckdb",
    url_column: str = "url",
    usage: bool | None = None,
    dialect: Dialect = "rfc9309",
    threads: int | None = None,
    memory_limit: str | None = None,
    workers: int = 1,
    spark: Any = None,
    progress: Progress | None = None,
    scratch_dir: str | None = None,
    master: str | None = None,
    vocabulary: str = DEFAULT_VOCABULARY,
) -> VerdictRun:
    """Verdicts of ``agents`` for every URL of ``urls`` against ``robots`` into ``out``.

    ``urls``: one or more files or globs (Parquet, CSV with a header line, JSON Lines).
    ``usage=None`` adds the usage-preference columns, those of the AIPREF ``vocabulary``
    (``vocab-08`` adds ``ai-use``). ``threads`` and ``memory_limit`` (e.g.
    ``"4GB"``) are DuckDB's; ``workers`` > 1 runs the kernel in that many processes (DuckDB's
    threads read, join and sort; the kernel is Python); ``spark`` is a SparkSession (when
    None, one on ``master``: :func:`spark_session`). ``progress`` is called as
    ``progress(phase, rows_done, total_or_None)``.
    """
    if not agents:
        raise DatasetError("give at least one --agent")
    use = True if usage is None else usage
    robot_files = expand(robots, "robots file")
    check_robots(robot_files)
    url_files = expand([urls] if isinstance(urls, str) else list(urls), "URL file")
    check_output(out, directory=engine == "spark")
    if engine == "duckdb":
        if master is not None:
            raise DatasetError("--master is Spark's: give --engine spark with it")
        return _duckdb(robot_files, url_files, out, agents, url_column, use, dialect, threads,
                       memory_limit, progress, scratch_dir, workers, vocabulary)
    if engine == "spark":
        con = connect()
        try:
            url_relation(con, url_files, url_column)  # the same checks and errors as duckdb
        finally:
            con.close()
        require("pyspark", "spark")
        return _spark(robot_files, url_files, out, agents, url_column, use, dialect,
                      session_for("spark", spark, master), vocabulary)
    raise DatasetError(f"unknown engine {engine!r}; choose duckdb or spark")


# --- spark ------------------------------------------------------------------------------------


def spark_session(master: str | None = None, app: str = "robotrules-dataset") -> Any:
    """A SparkSession with the settings the engine relies on (UTC, Arrow batch size, Parquet
    timestamps as DuckDB writes them), on the master Spark users give it.

    The master is, first to last: ``master`` (the CLI's ``--master``); the one the running
    Spark application was given (``spark-submit --master``, a session already running in this
    process); what Spark's own launcher reads: ``--master`` in ``PYSPARK_SUBMIT_ARGS``,
    ``spark.master`` in ``spark-defaults.conf`` (``SPARK_CONF_DIR``, else
    ``SPARK_HOME/conf``), the ``MASTER`` environment variable; else ``local[*]``. Other
    settings come the same ways (``--conf`` in ``PYSPARK_SUBMIT_ARGS``, spark-defaults.conf).
    :func:`spark_note` says which master a session runs on.
    """
    require("pyspark", "spark")
    # Python workers of a local master and of workers on this machine are processes started
    # from the JVM's environment: give them this robotrules by absolute path (a relative
    # PYTHONPATH, or a source tree that shadows an installed copy, would otherwise resolve
    # differently or not at all). Executors elsewhere need robotrules[spark] installed.
    root = str(Path(robotrules.__file__).resolve().parents[1])
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [root, *(os.path.abspath(p) for p in paths if os.path.abspath(p) != root)])
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and (master is None or active.sparkContext.master == master):
        return active
    from pyspark.core.context import SparkContext
    SparkContext._ensure_initialized()  # launches spark-submit: its master and conf files
    launched = SparkConf().get("spark.master", None)
    chosen = master or launched or os.environ.get("MASTER") or "local[*]"
    if _same_machine(chosen):
        os.environ.setdefault("PYSPARK_PYTHON", _python())
    builder = (SparkSession.builder.appName(app)
               .config("spark.sql.session.timeZone", "UTC")
               # Parquet timestamps as DuckDB writes them: microseconds, UTC (not INT96)
               .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
               # a joined row carries its robots body: small Arrow batches bound worker memory
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "2048")
               .config("spark.ui.enabled", "false"))
    if master is not None or launched is None:
        builder = builder.master(chosen)
    if chosen.startswith("local"):
        builder = builder.config("spark.sql.shuffle.partitions",
                                 str(max(2, os.cpu_count() or 2)))
    try:
        return builder.getOrCreate()
    except Exception as exc:  # Py4JJavaError and kin: Spark's own words, first line
        text = str(getattr(exc, "java_exception", "") or exc).strip().splitlines()
        raise DatasetError(f"Spark could not start on {chosen}: "
                           f"{text[0] if text else type(exc).__name__}") from exc


def _same_machine(master: str) -> bool:
    host = master.partition("://")[2].split(":")[0].split(",")[0]
    return master.startswith("local") or host in ("127.0.0.1", "localhost", "::1", "[::1]")


def spark_note(session: Any) -> str:
    """``spark, master spark://h:7077, application app-2026...``: which master ran a job."""
    sc = session.sparkContext
    return f"spark, master {sc.master}, application {sc.applicationId}"


def session_for(engine: str, spark: Any = None, master: str | None = None) -> Any:
    """The Spark session a dataset command runs on: ``spark`` (the caller's) or a new
    :func:`spark_session` on ``master`` for ``engine="spark"``, ``None`` for DuckDB; any
    other engine is a :class:`DatasetError` naming the two."""
    if engine == "spark":
        require("pyspark", "spark")
        return spark if spark is not None else spark_session(master)
    if engine != "duckdb":
        raise DatasetError(f"unknown engine {engine!r}; choose duckdb or spark")
    if master is not None:
        raise DatasetError("--master is Spark's: give --engine spark with it")
    return None


def _python() -> str:
    return sys.executable


def _choose_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The duplicate rule over one partition (all captures of its origins)."""
    pa_ = require("pyarrow")
    parts = list(batches)
    if parts:
        yield from choose(pa_.Table.from_batches(parts)).to_batches()


def _add_origin(column: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def fn(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        pa_ = require("pyarrow")
        for batch in batches:
            yield pa_.RecordBatch.from_arrays(
                [*batch.columns, url_origins(batch.column(column))],
                names=[*batch.schema.names, "origin"])
    return fn


def _kernel(agents: Sequence[str], column: str, usage: bool, dialect: Dialect, vocabulary: str
            ) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def fn(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        cache = RulesCache(dialect)  # one per partition: an origin is parsed once per task
        for batch in batches:
            yield evaluate(batch, agents, url_column=column, usage=usage, cache=cache,
                         vocabulary=vocabulary)
    return fn


def _spark_urls(spark: Any, paths: Sequence[str], column: str) -> Any:
    """The URL files as a DataFrame, typed as DuckDB reads them (the same output)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    kind = url_format(paths[0])
    if kind == "parquet":
        return spark.read.parquet(*paths)
    con = connect()
    try:
        rel, _ = url_relation(con, paths, column)
        schema = from_arrow_schema(rel.limit(0).to_arrow_table().schema)
    finally:
        con.close()
    if kind == "csv":
        return spark.read.option("header", True).schema(schema).csv(list(paths))
    return spark.read.schema(schema).json(list(paths))


def _spark(robots: Sequence[str], urls: Sequence[str], out: str, agents: Sequence[str], column: str,
           usage: bool, dialect: Dialect, spark: Any, vocabulary: str) -> VerdictRun:
    require("pyspark", "spark")
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    session = spark
    raw = session.read.parquet(*robots).select(*_ROBOTS_READ)
    chosen = raw.repartition("origin").mapInArrow(_choose_partition, raw.schema)
    right = chosen.select(
        "origin", F.col("outcome").alias("robots_outcome"),
        F.col("fetch_time").alias("robots_fetch_time"), F.col("body").alias("robots_body"))
    left = _spark_urls(session, urls, column)
    for name in (*_JOINED, "robots_body"):
        if name in left.columns:
            raise DatasetError(f"{urls[0]} already has a column {name!r}; rename it")
    pa_ = require("pyarrow")
    left_arrow = to_arrow_schema(left.schema, timezone="UTC")
    with_origin = left.mapInArrow(
        _add_origin(column),
        from_arrow_schema(left_arrow.append(pa_.field("origin", pa_.string()))))
    joined = with_origin.join(right, on="origin", how="left").select(
        *left.columns, "origin", "robots_outcome", "robots_fetch_time", "robots_body")
    schema = output_schema(to_arrow_schema(joined.schema, timezone="UTC"), agents, usage=usage,
                           vocabulary=vocabulary)
    result = joined.sortWithinPartitions("origin").mapInArrow(
        _kernel(agents, column, usage, dialect, vocabulary), from_arrow_schema(schema))
    partial = f"{out.rstrip(os.sep)}.partial"
    if os.path.isdir(partial):
        shutil.rmtree(partial)
    result.write.parquet(partial)
    if os.path.isdir(out):
        shutil.rmtree(out)
    elif os.path.exists(out):
        os.remove(out)
    os.replace(partial, out)
    return VerdictRun("spark", files=len(urls), where=spark_note(session))
