"""The Spark engine on a real local Spark (``local[2]``): the same output as the DuckDB engine,
verdict and usage columns included.

One SparkSession for the module (starting the JVM is most of the cost). Skipped, with the
reason, only where java or pyspark is missing. Slow (the JVM and its jobs): the default run
leaves the module out, CI runs it with the slow tests (``pytest -m slow``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from robotrules.dataset import run_verdicts
from robotrules.dataset.kernel import USAGE_KEYS

from .conftest import AGENTS, Crawl

pytestmark = pytest.mark.slow

_VERDICT_COLUMNS = ("allowed", "line", "rule", "reason", *USAGE_KEYS)


def _normal(table: pa.Table) -> list[tuple[Any, ...]]:
    names = ["n", "url", "origin", "robots_outcome"] + [
        f"{a}__{c}" for a in AGENTS for c in _VERDICT_COLUMNS]
    cols = table.select(names).to_pydict()
    times = [t.timestamp() if t is not None else None
             for t in table.column("robots_fetch_time").to_pylist()]
    return sorted(zip(*(cols[n] for n in names), times, strict=True))


def test_spark_and_duckdb_give_the_same_verdicts(spark: Any, corpus_crawl: Crawl,
                                                tmp_path: Path) -> None:
    # every 3rd URL: all 80 origins, ~1,100 URLs x 5 agents (the JVM round trips cost the time)
    urls = tmp_path / "urls.parquet"
    table = pq.read_table(corpus_crawl.urls)
    pq.write_table(table.take(list(range(0, table.num_rows, 3))), urls)
    local, remote = tmp_path / "duckdb.parquet", tmp_path / "spark.parquet"
    run_verdicts([str(corpus_crawl.robots)], str(urls), str(local), list(AGENTS),
                 threads=2, usage=True)
    run_verdicts([str(corpus_crawl.robots)], str(urls), str(remote), list(AGENTS),
                 engine="spark", spark=spark, usage=True)
    a, b = pq.read_table(local), pq.read_table(remote)
    assert a.num_rows == b.num_rows
    assert set(a.schema.names) == set(b.schema.names)
    assert _normal(a) == _normal(b)


def test_spark_csv_duplicates_and_missing_origins(spark: Any, tmp_path: Path) -> None:
    from robotrules.dataset import read_warcs

    from ._warcs import Capture, write_warc

    warc = write_warc(tmp_path / "d.warc.gz", [
        Capture("https://d.example/robots.txt", 200, b"User-agent: *\nDisallow: /old\n",
                when="2026-09-01T00:00:00Z"),
        Capture("https://d.example/robots.txt", 200, b"User-agent: *\nDisallow: /new\n",
                when="2026-09-02T00:00:00Z"),
        Capture("https://d.example/robots.txt", 503, when="2026-09-03T00:00:00Z"),
        Capture("http://d.example/robots.txt", 404),
    ])
    robots = tmp_path / "robots.parquet"
    read_warcs([warc], robots)
    urls = tmp_path / "urls.csv"
    urls.write_text("n,url\n0,https://d.example/old\n1,https://d.example/new\n"
                    "2,http://d.example/new\n3,https://nowhere.example/\n4,not a url\n")
    outs = {}
    for engine in ("duckdb", "spark"):
        out = tmp_path / f"{engine}.parquet"
        run_verdicts([str(robots)], str(urls), str(out), ["*"], engine=engine,  # type: ignore[arg-type]
                     spark=spark, threads=1, usage=False)
        outs[engine] = {r["n"]: (r["*__allowed"], r["*__reason"])
                        for r in pq.read_table(out).to_pylist()}
    # the 503 of 09-03 falls back to the 09-02 copy (RFC 9309 2.3.1.4); http is its own origin
    assert outs["duckdb"] == outs["spark"] == {
        0: (True, "no-matching-rule"), 1: (False, "rule"), 2: (True, "allow-all"),
        3: (None, "no-capture"), 4: (None, "invalid-url")}


# two Spark jobs per crawl (minutes on a loaded machine)
def test_census_on_spark_equals_duckdb(spark: Any, corpus_crawl: Crawl, tmp_path: Path) -> None:
    from robotrules.dataset import run_census

    tables = {}
    for engine in ("duckdb", "spark"):
        out = tmp_path / engine
        run_census([f"corpus={corpus_crawl.robots}"], out, purpose="training", workers=1,
                   engine=engine, spark=spark)
        tables[engine] = {name: pq.read_table(out / f"{name}.parquet").to_pylist()
                          for name in ("agents", "groups", "outcomes", "signals")}
    assert tables["duckdb"] == tables["spark"]
    assert tables["duckdb"]["outcomes"][0]["origins"] == len(corpus_crawl.bodies)
