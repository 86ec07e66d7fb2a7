"""Fixtures of the datasets tests: WARC files built here with FastWARC (never downloaded) from
real robots.txt files of the shared corpus, and one local Spark session per module that asks."""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="needs robotrules[dataset] (pyarrow)")
pytest.importorskip("fastwarc", reason="needs robotrules[dataset] (fastwarc)")
pytest.importorskip("duckdb", reason="needs robotrules[dataset] (duckdb)")

from tests.conftest import SHARED, missing

from ._warcs import Capture, write_warc

#: Agents of the agreement tests: named groups, fall-backs to * and a token no file names.
AGENTS = ("GPTBot", "Googlebot", "CCBot", "*", "robotrules-test")


@dataclass
class Crawl:
    warc: Path
    robots: Path
    urls: Path
    bodies: dict[str, bytes]  # origin -> robots.txt body


def _paths(body: bytes, rng: random.Random) -> list[str]:
    """URL paths that exercise a file: the paths its rules name (wildcards filled in, end
    anchors dropped), a step below each, and random ones."""
    found = re.findall(rb"(?im)^\s*(?:dis)?allow\s*:\s*(\S+)", body)
    paths = []
    for raw in found[:60]:
        p = raw.decode("utf-8", "replace").replace("*", "x").rstrip("$")
        if p.startswith("/"):
            paths += [p, p + "a/b?c=1"]
    paths += [f"/{rng.choice(['', 'p', 'search', 'wp-admin'])}/{rng.randint(0, 999)}"
              for _ in range(10)]
    return paths


def build_corpus_crawl(tmp: Path, *, sites: int = 80, per_origin: int = 40,
                       seed: int = 14) -> Crawl:
    """A WARC of ``sites`` real robots.txt files as https captures, its robots.parquet and a
    URL Parquet of about ``sites x per_origin`` URLs over them (and a few without capture)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from robotrules.dataset import read_warcs

    corpus = SHARED / "corpus" / "sites"
    if not corpus.is_dir():
        missing(f"shared corpus not found at {corpus}")
    files = sorted(corpus.glob("*.txt"))
    step = max(1, len(files) // sites)
    chosen = files[::step][:sites]
    rng = random.Random(seed)
    captures, bodies, urls = [], {}, []
    for f in chosen:
        host = f.stem.lower()
        origin = f"https://{host}"
        body = f.read_bytes()
        bodies[origin] = body
        captures.append(Capture(origin + "/robots.txt", 200, body))
        paths = _paths(body, rng)
        urls += [origin + rng.choice(paths) for _ in range(per_origin)]
    urls += ["https://no-capture.example/x", "mailto:someone@example.com"]
    warc = write_warc(tmp / "corpus.warc.gz", captures)
    robots = tmp / "robots.parquet"
    read_warcs([warc], robots)
    url_file = tmp / "urls.parquet"
    pq.write_table(pa.table({"url": urls, "n": list(range(len(urls)))}), url_file)
    return Crawl(warc, robots, url_file, bodies)


@pytest.fixture(scope="session")
def corpus_crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    return build_corpus_crawl(tmp_path_factory.mktemp("corpus-crawl"))


def spark_or_skip() -> Any:
    if shutil.which("java") is None:
        pytest.skip("no java on PATH: the Spark tests need a JRE (apt-get install "
                    "openjdk-17-jre-headless)")
    pytest.importorskip("pyspark", reason="needs robotrules[spark] (pyspark)")
    pytest.importorskip("pandas", reason="pyspark's Arrow UDFs need pandas")
    from robotrules.dataset.engines import spark_session
    return spark_session("local[2]", app="robotrules-tests")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    session = spark_or_skip()
    yield session
    session.stop()
