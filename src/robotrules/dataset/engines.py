"""The engines that run the batch kernel: ``local`` (processes on one machine) and ``spark``.

Both compute the same thing: each URL's origin (RFC 9309 2.3), the origin's robots.parquet row
chosen by the duplicate rule (:func:`.captures.choose`), a left join of URLs with those rows by
origin, and :func:`.kernel.evaluate` over the joined batches. Output columns: the URL file's
columns, ``origin``, ``robots_outcome``, ``robots_fetch_time``, then the verdict columns.

``local`` is a grace hash join. Theory of operation:

1. robots rows are split into B buckets by ``crc32(origin) % B`` (B grows with the robots
   files so a bucket's bodies stay near 128 MiB and its origins fit the 4096-file parse
   cache), written to scratch Parquet files;
2. URL batches are streamed from the input; a pool of worker processes computes their origins
   and buckets (the Python part), the driver appends each bucket's rows to its scratch file;
3. one task per bucket: the worker loads the bucket's robots rows, applies the duplicate rule,
   joins each URL batch of the bucket by origin (the body column dictionary-encoded, so a
   batch holds each body once) and runs the kernel with one parse cache for the bucket;
4. the driver concatenates the per-bucket outputs into ``out``.

Memory: the driver holds one URL batch and the Parquet writers' buffers; a worker one bucket of
robots rows plus one URL batch. Disk: about the size of the inputs, removed at the end.
Output row order is by bucket, not the input's.

``spark`` joins with Spark SQL and runs the kernel through ``mapInArrow``; the duplicate rule
runs per origin through ``groupBy("origin").applyInArrow`` (Spark 4). Nothing is collected on
the driver: the result is written by the executors as a Parquet directory at ``out``.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from robotrules import Dialect
from robotrules._origin import origin_of
from robotrules.errors import InvalidURL

from ._deps import DatasetError, require
from ._io import check_robots, url_reader
from .captures import choose
from .kernel import RulesCache, evaluate, output_schema

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Engine", "VerdictRun", "run_verdicts"]

Engine = Literal["local", "spark"]

_BUCKET_BYTES = 128 << 20
_CACHE = 4096  # parsed files a worker keeps (RulesCache's default size)
_ROBOTS_READ = ("origin", "robots_url", "fetch_time", "outcome", "body", "warc_offset")
_JOINED = ("origin", "robots_outcome", "robots_fetch_time")


@dataclass
class VerdictRun:
    """What a run did: URL rows in and out, buckets, robots parses, engine."""

    engine: str
    urls: int = 0
    buckets: int = 0
    parses: int = 0


def _origin_or_none(url: Any) -> str | None:
    if not isinstance(url, str):
        return None
    try:
        return origin_of(url)
    except InvalidURL:
        return None


def _bucket_of(origin: str, buckets: int) -> int:
    return zlib.crc32(origin.encode("utf-8", "surrogatepass")) % buckets


def _route(urls: list[Any], buckets: int) -> tuple[list[str | None], list[int]]:
    """Worker task: origin and bucket of each URL (an invalid URL goes to bucket 0)."""
    origins = [_origin_or_none(u) for u in urls]
    return origins, [_bucket_of(o, buckets) if o is not None else 0 for o in origins]


def _n_buckets(robots: Sequence[str], workers: int) -> int:
    """Enough buckets that one holds ~128 MiB of bodies and no more captures than a worker's
    parse cache keeps (URLs arrive in any order: a bucket with more origins than the cache
    would parse the same file again and again)."""
    pq = require("pyarrow.parquet")
    # compressed size x 4 approximates the bodies in memory; zstd shrinks text about that much
    total = sum(os.path.getsize(p) for p in robots) * 4
    rows = sum(pq.read_metadata(p).num_rows for p in robots)
    return int(max(workers, math.ceil(total / _BUCKET_BYTES), math.ceil(rows / _CACHE)))


def _split_robots(robots: Sequence[str], buckets: int, tmp: Path) -> None:
    pa_ = require("pyarrow")
    pq = require("pyarrow.parquet")
    pc = require("pyarrow.compute")
    writers: dict[int, Any] = {}
    try:
        for path in robots:
            pf = pq.ParquetFile(path)
            for batch in pf.iter_batches(batch_size=4096, columns=list(_ROBOTS_READ)):
                ids = pa_.array([_bucket_of(o, buckets) for o in batch.column(0).to_pylist()],
                                pa_.int32())
                for b in set(ids.to_pylist()):
                    part = batch.filter(pc.equal(ids, b))
                    if b not in writers:
                        writers[b] = pq.ParquetWriter(tmp / f"robots-{b}.parquet", part.schema)
                    writers[b].write_batch(part)
    finally:
        for w in writers.values():
            w.close()


def _split_urls(urls: str, column: str, buckets: int, tmp: Path, pool: ProcessPoolExecutor | None,
                workers: int, progress: Callable[[int], None] | None) -> tuple[pa.Schema, int]:
    pa_ = require("pyarrow")
    pq = require("pyarrow.parquet")
    pc = require("pyarrow.compute")
    schema, batches = url_reader(urls, column)
    for name in (*_JOINED, "robots_body"):
        if name in schema.names:
            raise DatasetError(f"{urls} already has a column {name!r}; rename it")
    out_schema = schema.append(pa_.field("origin", pa_.string()))
    writers: dict[int, Any] = {}
    total = 0

    def flush(batch: pa.RecordBatch, routed: tuple[list[str | None], list[int]]) -> None:
        nonlocal total
        origins, ids_list = routed
        ids = pa_.array(ids_list, pa_.int32())
        full = pa_.RecordBatch.from_arrays([*batch.columns, pa_.array(origins, pa_.string())],
                                           schema=out_schema)
        for b in set(ids_list):
            if b not in writers:
                writers[b] = pq.ParquetWriter(tmp / f"urls-{b}.parquet", out_schema)
            writers[b].write_batch(full.filter(pc.equal(ids, b)))
        total += batch.num_rows
        if progress is not None:
            progress(batch.num_rows)

    try:
        pending: list[tuple[pa.RecordBatch, Future[Any]]] = []
        for batch in batches:
            batch = batch.cast(schema) if batch.schema != schema else batch
            values = batch.column(column).to_pylist()
            if pool is None:
                flush(batch, _route(values, buckets))
                continue
            pending.append((batch, pool.submit(_route, values, buckets)))
            if len(pending) > 2 * workers:  # bounded in-flight work
                b0, f0 = pending.pop(0)
                flush(b0, f0.result())
        for b0, f0 in pending:
            flush(b0, f0.result())
    finally:
        for w in writers.values():
            w.close()
    return out_schema, total


def _join(batch: pa.RecordBatch, chosen: pa.Table) -> pa.RecordBatch:
    """``batch`` (with ``origin``) left-joined with one-row-per-origin ``chosen``."""
    pa_ = require("pyarrow")
    pc = require("pyarrow.compute")
    idx = pc.index_in(batch.column("origin"), value_set=chosen.column("origin"))
    bodies = chosen.column("body").combine_chunks()
    outcome = chosen.column("outcome").combine_chunks().take(idx)
    when = chosen.column("fetch_time").combine_chunks().take(idx)
    body = pa_.DictionaryArray.from_arrays(idx, bodies)  # each body once per batch
    return pa_.RecordBatch.from_arrays(
        [*batch.columns, outcome, when, body],
        names=[*batch.schema.names, "robots_outcome", "robots_fetch_time", "robots_body"])


def _empty_robots() -> pa.Table:
    from .captures import robots_schema
    schema = robots_schema()
    return schema.empty_table().select(list(_ROBOTS_READ))


def _bucket_task(tmp: str, b: int, agents: Sequence[str], column: str, usage: bool,
                 dialect: Dialect) -> tuple[int, int]:
    """Worker task: verdicts of bucket ``b`` into ``out-b.parquet``; (rows, parses)."""
    pq = require("pyarrow.parquet")
    base = Path(tmp)
    urls = base / f"urls-{b}.parquet"
    if not urls.exists():
        return 0, 0
    robots = base / f"robots-{b}.parquet"
    chosen = choose(pq.read_table(robots)) if robots.exists() else _empty_robots()
    cache = RulesCache(dialect, size=_CACHE)
    rows = 0
    writer = None
    try:
        for batch in pq.ParquetFile(urls).iter_batches(batch_size=8192):
            joined = _join(batch, chosen)
            result = evaluate(joined, agents, url_column=column, usage=usage, cache=cache)
            if writer is None:
                writer = pq.ParquetWriter(base / f"out-{b}.parquet", result.schema)
            writer.write_batch(result)
            rows += result.num_rows
    finally:
        if writer is not None:
            writer.close()
    return rows, cache.parses


def _joined_schema(url_schema: pa.Schema) -> pa.Schema:
    pa_ = require("pyarrow")
    return pa_.schema([*url_schema, pa_.field("robots_outcome", pa_.string()),
                       pa_.field("robots_fetch_time", pa_.timestamp("us", tz="UTC")),
                       pa_.field("robots_body", pa_.binary())])


def _local(robots: Sequence[str], urls: str, out: str, agents: Sequence[str], column: str,
           usage: bool, dialect: Dialect, workers: int,
           progress: Callable[[int], None] | None, scratch_dir: str | None) -> VerdictRun:
    pq = require("pyarrow.parquet")
    run = VerdictRun("local")
    with tempfile.TemporaryDirectory(prefix="robotrules-verdicts-", dir=scratch_dir) as name:
        tmp = Path(name)
        buckets = _n_buckets(robots, workers)
        run.buckets = buckets
        pool = (ProcessPoolExecutor(workers, mp_context=get_context("spawn"))
                if workers > 1 else None)
        try:
            _split_robots(robots, buckets, tmp)
            url_schema, run.urls = _split_urls(urls, column, buckets, tmp, pool, workers,
                                               progress)
            args = (agents, column, usage, dialect)
            if pool is None:
                results = [_bucket_task(name, b, *args) for b in range(buckets)]
            else:
                futures = [pool.submit(_bucket_task, name, b, *args) for b in range(buckets)]
                results = [f.result() for f in futures]
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
        run.parses = sum(p for _, p in results)
        schema = output_schema(_joined_schema(url_schema), agents, usage=usage)
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        with pq.ParquetWriter(out, schema, compression="zstd") as writer:
            for b in range(buckets):
                part = tmp / f"out-{b}.parquet"
                if part.exists():
                    for batch in pq.ParquetFile(part).iter_batches(batch_size=65_536):
                        writer.write_batch(batch)
    return run


def run_verdicts(
    robots: Sequence[str],
    urls: str,
    out: str,
    agents: Sequence[str],
    *,
    engine: Engine = "local",
    url_column: str = "url",
    usage: bool | None = None,
    dialect: Dialect = "rfc9309",
    workers: int | None = None,
    spark: Any = None,
    progress: Callable[[int], None] | None = None,
    scratch_dir: str | None = None,
) -> VerdictRun:
    """Verdicts of ``agents`` for every URL of ``urls`` against ``robots`` into ``out``.

    ``usage=None`` adds the usage-preference columns when this robotrules has them. ``workers``
    (local engine) defaults to the CPU count; ``spark`` is a SparkSession (one on ``local[*]``
    is made when None). ``progress`` is called with the number of URL rows read (local).
    """
    if not agents:
        raise DatasetError("give at least one --agent")
    use = True if usage is None else usage
    check_robots(robots)
    if engine == "local":
        return _local(robots, urls, out, agents, url_column, use, dialect,
                      workers or os.cpu_count() or 1, progress, scratch_dir)
    if engine == "spark":
        url_reader(urls, url_column)  # the same checks and errors as the local engine
        require("pyspark", "spark")
        return _spark(robots, urls, out, agents, url_column, use, dialect, spark)
    raise DatasetError(f"unknown engine {engine!r}; choose local or spark")


# --- spark ------------------------------------------------------------------------------------


def spark_session(master: str = "local[*]", app: str = "robotrules-dataset") -> Any:
    """A SparkSession with the settings the engine relies on (UTC, Arrow batch size)."""
    require("pyspark", "spark")
    os.environ.setdefault("PYSPARK_PYTHON", _python())
    if master.startswith("local"):
        # Python workers are new processes started by the JVM, from its working directory:
        # give them this robotrules by absolute path (a relative PYTHONPATH, or a source tree
        # that shadows an installed copy, would otherwise resolve differently or not at all).
        # On a cluster, robotrules[spark] must be installed on the executors.
        import robotrules
        root = str(Path(robotrules.__file__).resolve().parents[1])
        paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [root, *(os.path.abspath(p) for p in paths if os.path.abspath(p) != root)])
    from pyspark.sql import SparkSession
    return (SparkSession.builder.master(master).appName(app)
            .config("spark.sql.session.timeZone", "UTC")
            # a joined row carries its robots body: small Arrow batches bound worker memory
            .config("spark.sql.execution.arrow.maxRecordsPerBatch", "2048")
            .config("spark.sql.shuffle.partitions", str(max(2, os.cpu_count() or 2)))
            .config("spark.ui.enabled", "false")
            .getOrCreate())


def _python() -> str:
    import sys
    return sys.executable


def _choose_group(table: pa.Table) -> pa.Table:
    return choose(table)


def _add_origin(column: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def fn(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        pa_ = require("pyarrow")
        for batch in batches:
            origins = [_origin_or_none(u) for u in batch.column(column).to_pylist()]
            yield pa_.RecordBatch.from_arrays(
                [*batch.columns, pa_.array(origins, pa_.string())],
                names=[*batch.schema.names, "origin"])
    return fn


def _kernel(agents: Sequence[str], column: str, usage: bool, dialect: Dialect
            ) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def fn(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        cache = RulesCache(dialect)  # one per partition: an origin is parsed once per task
        for batch in batches:
            yield evaluate(batch, agents, url_column=column, usage=usage, cache=cache)
    return fn


def _spark_urls(spark: Any, path: str, column: str) -> Any:
    """The URL file as a DataFrame, typed as the local engine reads it (same output)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    from ._io import url_format
    kind = url_format(path)
    if kind == "parquet":
        return spark.read.parquet(path)
    schema = from_arrow_schema(url_reader(path, column)[0])
    if kind == "csv":
        return spark.read.option("header", True).schema(schema).csv(path)
    return spark.read.schema(schema).json(path)


def _spark(robots: Sequence[str], urls: str, out: str, agents: Sequence[str], column: str,
           usage: bool, dialect: Dialect, spark: Any) -> VerdictRun:
    require("pyspark", "spark")
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    session = spark if spark is not None else spark_session()
    raw = session.read.parquet(*robots).select(*_ROBOTS_READ)
    chosen = raw.groupBy("origin").applyInArrow(_choose_group, raw.schema)
    right = chosen.select(
        "origin", F.col("outcome").alias("robots_outcome"),
        F.col("fetch_time").alias("robots_fetch_time"), F.col("body").alias("robots_body"))
    left = _spark_urls(session, urls, column)
    for name in (*_JOINED, "robots_body"):
        if name in left.columns:
            raise DatasetError(f"{urls} already has a column {name!r}; rename it")
    pa_ = require("pyarrow")
    left_arrow = to_arrow_schema(left.schema, timezone="UTC")
    with_origin = left.mapInArrow(
        _add_origin(column),
        from_arrow_schema(left_arrow.append(pa_.field("origin", pa_.string()))))
    joined = with_origin.join(right, on="origin", how="left").select(
        *left.columns, "origin", "robots_outcome", "robots_fetch_time", "robots_body")
    schema = output_schema(to_arrow_schema(joined.schema, timezone="UTC"), agents, usage=usage)
    result = joined.mapInArrow(_kernel(agents, column, usage, dialect), from_arrow_schema(schema))
    if os.path.isdir(out):
        shutil.rmtree(out)
    elif os.path.exists(out):
        os.remove(out)
    result.write.parquet(out)
    return VerdictRun("spark")
