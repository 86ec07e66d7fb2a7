"""Smoke test of the benchmark harness: 20 corpus files, a tiny budget, every section printed.

No timing is asserted (the machine is shared and noisy); only that the one command runs every
workload and checks its answers against Google's matcher.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the whole benchmark once (some 15 s, more on a loaded machine): with the slow tests, which
# CI runs (pytest -m slow); the default run leaves it out (issue 21)
pytestmark = pytest.mark.slow
SECTIONS = (
    "## (a) parse throughput",
    "## (b) warm queries",
    "## agreement with Google's matcher",
    "## (c) cold crawler workload",
    "## (d) memory retained per parsed file",
    "## (e) scaling",
    "## (f) adversarial",
    "## (i) import time",
    "RSS after parse",
    "worst shapes",
    "(p) parse + first query",
    "the caller keeping no body",
    "the limit: parse against a C line count",
    "The pure core against protego",
    # the closing targets, which stopped on a build without a (e) row (docs/benchmarks.md's
    # run of 2026-11-28 06:40: "The closing targets section did not print")
    "## targets: ahead of every library",
    "## targets: against protego and Google",
)


@pytest.fixture(scope="module")
def bench_run(
    shared_dir: Path, tmp_path_factory: pytest.TempPathFactory,
) -> tuple[str, dict[str, Any]]:
    pytest.importorskip("protego")
    pytest.importorskip("robots")
    pytest.importorskip("jwm.robotstxt")
    out = tmp_path_factory.mktemp("bench") / "results.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"),
         "--corpus", str(shared_dir / "corpus" / "sites"), "--files", "20", "--queries", "5",
         "--rounds", "1", "--budget", "0.002", "--scale-queries", "20", "--timeout", "5",
         "--only", "a,b,c,p,d,e,f,i", "--import-runs", "1", "--generated", "5",
         "--json", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, json.loads(out.read_text(encoding="utf-8"))


def test_every_section_is_printed(bench_run: tuple[str, dict[str, Any]]) -> None:
    stdout, _ = bench_run
    for section in SECTIONS:
        assert section in stdout, section
    for name in ("robotrules", "protego", "urllib.robotparser", "robotspy", "google C++"):
        assert name in stdout


def test_results_are_saved(bench_run: tuple[str, dict[str, Any]]) -> None:
    _, data = bench_run
    assert {"parse", "warm", "agreement", "cold", "first", "line_scan", "memory", "scaling",
            "adversarial", "import"} <= set(data)
    assert data["memory"]["robotrules"]["rss_dropped_ratio_after_queries"] >= 0
    assert "robotrules[google]" in data["agreement"]
    assert data["memory"]["robotrules"]["rss_mib_after_parse"] >= 0
    assert "500 KB worst shapes" in data["scaling"]


def test_worst_shapes_section_runs(shared_dir: Path, tmp_path: Path) -> None:
    """Workload (g) forks a child per library and case and waits up to --timeout for Google's
    matcher on long paths: slow, so it runs with the slow tests (CI: pytest -m slow)."""
    pytest.importorskip("protego")
    pytest.importorskip("jwm.robotstxt")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"),
         "--corpus", str(shared_dir / "corpus" / "sites"), "--files", "20", "--rounds", "1",
         "--timeout", "1", "--only", "g", "--json", str(tmp_path / "g.json")],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "## (g)" in proc.stdout
