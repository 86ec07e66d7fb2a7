"""Reading the inputs of the datasets tools as streams of Arrow record batches.

URL lists come as Parquet, CSV (with a header line) or JSON Lines, chosen by the file name
(``.parquet``/``.pq``, ``.csv``, ``.jsonl``/``.ndjson``/``.json``; a ``.gz`` suffix is allowed
for CSV and JSON Lines). Every reader streams: memory is one batch, whatever the file size.
robots.parquet files are checked against the columns the tools need before any work starts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ._deps import DatasetError, require

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ROBOTS_NEEDED", "check_robots", "url_format", "url_reader"]

#: Columns of robots.parquet the verdict and census stages read.
ROBOTS_NEEDED = ("origin", "robots_url", "fetch_time", "outcome", "body", "warc_offset")


def url_format(path: str) -> str:
    """``parquet``, ``csv`` or ``json`` from the file name."""
    name = path.lower().removesuffix(".gz")
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "json"
    raise DatasetError(f"{path}: unknown URL file type (use .parquet, .csv or .jsonl)")


def _fail(path: str, exc: BaseException) -> DatasetError:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return DatasetError(f"cannot read {path}: {text}")


def url_reader(path: str, column: str, *, batch_rows: int = 65_536
               ) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """The schema of a URL file and a stream of its batches; its ``column`` must exist."""
    pa_ = require("pyarrow")
    if not os.path.isfile(path):
        raise DatasetError(f"no such URL file: {path}")
    kind = url_format(path)
    try:
        if kind == "parquet":
            pq = require("pyarrow.parquet")
            pf = pq.ParquetFile(path)
            schema = pf.schema_arrow
            batches: Iterator[Any] = pf.iter_batches(batch_size=batch_rows)
        elif kind == "csv":
            csv = require("pyarrow.csv")
            reader = csv.open_csv(path, read_options=csv.ReadOptions(block_size=1 << 22),
                                  convert_options=csv.ConvertOptions(
                                      column_types={column: pa_.string()}))
            schema = reader.schema
            batches = iter(reader)
        else:
            js = require("pyarrow.json")
            reader = js.open_json(path, read_options=js.ReadOptions(block_size=1 << 22),
                                  parse_options=js.ParseOptions(
                                      explicit_schema=None, newlines_in_values=False))
            schema = reader.schema
            batches = iter(reader)
    except (OSError, pa_.ArrowException) as exc:
        raise _fail(path, exc) from exc
    if column not in schema.names:
        raise DatasetError(
            f"{path} has no column {column!r} (columns: {', '.join(schema.names) or 'none'})")
    if not (pa_.types.is_string(schema.field(column).type)
            or pa_.types.is_large_string(schema.field(column).type)):
        raise DatasetError(f"{path}: column {column!r} is {schema.field(column).type}, not text")

    def stream() -> Iterator[pa.RecordBatch]:
        try:
            for batch in batches:
                if batch.num_rows:
                    yield batch
        except (OSError, pa_.ArrowException) as exc:
            raise _fail(path, exc) from exc

    return schema, stream()


def check_robots(paths: Sequence[str]) -> None:
    """Each path is a readable robots.parquet with the needed columns."""
    pq = require("pyarrow.parquet")
    pa_ = require("pyarrow")
    if not paths:
        raise DatasetError("no robots.parquet given")
    for path in paths:
        if not os.path.isfile(path):
            raise DatasetError(f"no such robots file: {path}")
        try:
            names = pq.ParquetFile(path).schema_arrow.names
        except (OSError, pa_.ArrowException) as exc:
            raise _fail(path, exc) from exc
        missing = [c for c in ROBOTS_NEEDED if c not in names]
        if missing:
            raise DatasetError(f"{path} is not a robots.parquet: no column {missing[0]!r}")
