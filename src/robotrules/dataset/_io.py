"""The inputs of the datasets tools: URL file kinds and robots.parquet checks.

URL lists come as Parquet, CSV (with a header line) or JSON Lines, chosen by the file name
(``.parquet``/``.pq``, ``.csv``, ``.jsonl``/``.ndjson``/``.json``; a ``.gz`` suffix is allowed
for CSV and JSON Lines); DuckDB reads them (:func:`.engines.url_relation`). robots.parquet files
are checked against the columns the tools need before any work starts.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ._deps import DatasetError, require

__all__ = ["ROBOTS_NEEDED", "check_robots", "url_format"]

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
