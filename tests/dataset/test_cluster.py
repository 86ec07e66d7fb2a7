"""``--engine spark`` on a real Spark standalone cluster: a master and two workers started here on
127.0.0.1 (``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``, as
Spark's standalone-mode guide starts them by hand), stopped after the module.

The issue's reproduction (issue 40): a master given through ``--master``, ``spark-submit`` or
``spark-defaults.conf`` must receive the application (the master's JSON at its web UI lists it),
the output says which master ran the job, and the output equals DuckDB's: the same schema
(``robots_fetch_time`` a UTC microsecond timestamp on both) and the same rows.

Slow: three JVMs start before the first job (minutes on a loaded 2-core machine).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from robotrules.dataset import read_warcs, run_census, run_verdicts

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).parents[2] / "examples" / "dataset"
SRC = str(Path(__file__).parents[2] / "src")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    url: str
    ui: int

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ui}/json/", timeout=10) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]

    def apps(self) -> list[dict[str, Any]]:
        s = self.state()
        return [*s["activeapps"], *s["completedapps"]]


def _wait(what: str, check: Any, seconds: float = 240) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(1)
    pytest.fail(f"the Spark {what} did not come up in {seconds} s")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if shutil.which("java") is None:
        pytest.skip("no java on PATH: the Spark tests need a JRE")
    pyspark = pytest.importorskip("pyspark", reason="needs robotrules[spark] (pyspark)")
    pytest.importorskip("pandas", reason="pyspark's Arrow UDFs need pandas")
    home = Path(pyspark.__file__).parent
    tmp = tmp_path_factory.mktemp("cluster")
    props = tmp / "daemon.conf"
    props.write_text("spark.master.rest.enabled false\nspark.ui.showConsoleProgress false\n")
    port, ui = _port(), _port()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_LOCAL_DIRS": str(tmp), "PYTHONPATH": SRC, "PYSPARK_PYTHON": sys.executable,
           "SPARK_LOG_DIR": str(tmp)}
    procs: list[subprocess.Popen[bytes]] = []

    def start(name: str, *args: str) -> None:
        log = open(tmp / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        procs.append(subprocess.Popen(
            [str(home / "bin" / "spark-class"), *args, "--properties-file", str(props)],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))

    start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
          "--port", str(port), "--webui-port", str(ui))
    found = Cluster(f"spark://127.0.0.1:{port}", ui)
    try:
        _wait("master", lambda: found.state()["status"] == "ALIVE")
        for n in (1, 2):
            start(f"worker{n}", "org.apache.spark.deploy.worker.Worker", found.url,
                  "--host", "127.0.0.1", "--cores", "1", "--memory", "1g",
                  "--webui-port", str(_port()), "--work-dir", str(tmp / f"w{n}"))
        _wait("workers", lambda: found.state()["aliveworkers"] == 2)
        yield found
    finally:
        for p in procs:  # spark-class execs java: each is its own process group
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)


def _rows(table: pa.Table) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in table.to_pylist())


def test_verdicts_with_master_run_on_the_cluster(cluster: Cluster, tmp_path: Path) -> None:
    robots = tmp_path / "robots.parquet"
    read_warcs([EXAMPLES / "crawl-1.warc.gz"], robots)
    local = tmp_path / "duckdb.parquet"
    run_verdicts([str(robots)], str(EXAMPLES / "urls.csv"), str(local), ["GPTBot", "*"])
    remote = tmp_path / "spark.parquet"
    before = {a["id"] for a in cluster.apps()}
    # executor memory through PYSPARK_SUBMIT_ARGS, as pyspark users give Spark settings
    env = {**os.environ, "PYTHONPATH": SRC, "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_SUBMIT_ARGS": "--conf spark.executor.memory=512m pyspark-shell"}
    done = subprocess.run(
        [sys.executable, "-m", "robotrules.dataset", "verdicts", "--engine", "spark",
         "--master", cluster.url, "--robots", str(robots), "--urls",
         str(EXAMPLES / "urls.csv"), "--agent", "GPTBot", "--agent", "*", "-o", str(remote)],
        env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"master {cluster.url}, application app-" in done.stderr
    new = [a for a in cluster.apps() if a["id"] not in before]
    assert [a["name"] for a in new] == ["robotrules-dataset"]
    assert new[0]["id"] in done.stderr
    a, b = pq.read_table(local), pq.read_table(remote)
    # the same schema: names, order and types (robots_fetch_time: timestamp[us, tz=UTC])
    assert [(f.name, f.type) for f in a.schema] == [(f.name, f.type) for f in b.schema]
    assert b.schema.field("robots_fetch_time").type == pa.timestamp("us", tz="UTC")
    assert _rows(a) == _rows(b)
    assert a.num_rows == 56


def test_spark_submit_and_spark_defaults(cluster: Cluster, tmp_path: Path) -> None:
    # spark-submit --master, with settings from SPARK_CONF_DIR/spark-defaults.conf
    robots = tmp_path / "robots.parquet"
    read_warcs([EXAMPLES / "crawl-2.warc.gz"], robots)
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text("spark.executor.memory 512m\n")
    import pyspark

    import robotrules.dataset.__main__ as program
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = {**os.environ, "PYTHONPATH": SRC, "PYSPARK_PYTHON": sys.executable,
           "SPARK_CONF_DIR": str(conf)}
    out = tmp_path / "spark"
    before = {a["id"] for a in cluster.apps()}
    done = subprocess.run(
        [str(submit), "--master", cluster.url, program.__file__, "census", "--engine",
         "spark", "--purpose", "training", "--robots", f"2026-10={robots}", "-o", str(out)],
        env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    new = [a for a in cluster.apps() if a["id"] not in before]
    # spark-submit's Python runner sends the program's stderr to its stdout
    said = done.stdout + done.stderr
    assert len(new) == 1
    assert new[0]["id"] in said
    assert f"ran on spark, master {cluster.url}, application {new[0]['id']}" in said
    local = tmp_path / "duckdb"
    run_census([f"2026-10={robots}"], local, purpose="training", workers=1)
    for name in ("agents", "groups", "outcomes", "signals"):
        assert pq.read_table(out / f"{name}.parquet").to_pylist() == \
            pq.read_table(local / f"{name}.parquet").to_pylist(), name
