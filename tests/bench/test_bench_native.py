"""Tests of benchmarks/bench_native.py and workload (n): the native drivers are built as the
benchmark builds them and run on three small corpus files with their seeded queries; their
answers must be the libraries' own and Google's (``jwm-robotstxt``, the oracle), or the timed
passes would be measuring something else. No timing is asserted.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_libs as L  # noqa: E402
import bench_native as N  # noqa: E402
from bench_data import SiteFile, make_queries  # noqa: E402
from bench_report import Report  # noqa: E402
from workloads.native import bench_native  # noqa: E402

import robotrules  # noqa: E402

# small files with several groups, wildcards and both verdicts among their 20 queries, on
# which nzrsky's fork answers as Google's matcher does (it differs on a URL ending in an
# empty query, "/search/?", which it reads as "/search/")
FILES = ("9gag.com.txt", "archiveofourown.org.txt", "hbr.org.txt")
SEED = 9309


@pytest.fixture(scope="module")
def cases(shared_dir: Path) -> list[N.Case]:
    out: list[N.Case] = []
    for name in FILES:
        body = (shared_dir / "corpus" / "sites" / name).read_bytes()
        out.append((body, make_queries(name, body, 20, SEED)))
    return out


@pytest.fixture(scope="module")
def drivers(tmp_path_factory: pytest.TempPathFactory) -> N.Drivers:
    if N.compiler() is None:
        pytest.skip("no C compiler: the benchmark skips workload (n) too")
    if N.nzrsky_dir() is None:
        pytest.skip("fast-robotstxt is not installed: the benchmark skips workload (n) too")
    if not robotrules.NATIVE:
        pytest.skip("robotrules' native kernel is not built")
    built = N.build(tmp_path_factory.mktemp("native"), robotrules)
    assert built.missing == ()
    return built


@pytest.fixture(scope="module")
def cases_file(cases: list[N.Case], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cases") / "cases.bin"
    N.write_cases(path, cases)
    return path


def _rr(drivers: N.Drivers) -> ModuleType:
    assert drivers.rr is not None
    return drivers.rr


def _exe(drivers: N.Drivers) -> Path:
    assert drivers.c is not None
    return drivers.c


def test_the_c_driver_answers_as_google_and_as_the_package(
    drivers: N.Drivers, cases: list[N.Case], cases_file: Path,
) -> None:
    """Oracle: Google's matcher (jwm-robotstxt) on the same bodies, agents and URLs; and the
    fast-robotstxt package's own binding of the library the driver links."""
    google = L.google_answers(cases)
    assert L.NZRSKY is not None
    binding = [a for body, qs in cases for a in L.NZRSKY.cold(body, qs)]
    answers = N.c_answers(_exe(drivers), cases_file)
    assert len(answers) == 60
    assert answers == google
    assert answers == binding
    assert 0 < sum(answers) < 60  # both verdicts are checked


def test_robotrules_driver_answers_as_the_python_api_and_google(
    drivers: N.Drivers, cases: list[N.Case],
) -> None:
    """Oracle: Google's matcher for the google dialect (robotrules[google] agrees with it by
    design, benchmarks/README.md "agreement"); robotrules.parse(...).is_allowed for both."""
    bodies, queries = N.rr_inputs(cases)
    for dialect in ("google", "rfc9309"):
        api = [robotrules.parse(body, dialect).is_allowed(url, user_agent=agent)
               for body, qs in cases for agent, url in qs]
        assert _rr(drivers).answers(bodies, queries, dialect) == api
    assert _rr(drivers).answers(bodies, queries, "google") == L.google_answers(cases)


def test_line_scan_counts_the_lines(drivers: N.Drivers, cases: list[N.Case]) -> None:
    """A line is what ends at LF, or the text after the last LF (the memchr scan's rule)."""
    bodies = [body for body, _ in cases] + [b"", b"a", b"a\n", b"\n\nb"]
    expected = [b.count(b"\n") + (not b.endswith(b"\n") and b != b"") for b in bodies]
    assert _rr(drivers).lines(bodies) == expected
    assert expected[-4:] == [0, 1, 1, 3]


def test_the_line_scanner_row_scans_as_a_parse_does(drivers: N.Drivers, cases: list[N.Case]
                                                    ) -> None:
    """The kernel's scan called from the driver writes the directive stream the parse counts
    (Doc.directive_count, three words a directive), for small and large bodies alike (a
    large one grows past the stack room, as in Doc._build)."""
    large = b"User-agent: *\n" + b"".join(b"Disallow: /p%d*x\n" % i for i in range(5000))
    bodies = [body for body, _ in cases] + [b"\xef\xbb\xbfUser-agent: *\nAllow: /\n", large]
    for dialect in ("rfc9309", "google"):
        expected = [3 * robotrules._native.Doc(b, dialect).directive_count for b in bodies]
        assert _rr(drivers).directive_words(bodies, dialect) == expected
    assert expected[-1] == 3 * 5001


def test_every_timed_pass_is_reported(
    drivers: N.Drivers, cases: list[N.Case], cases_file: Path,
) -> None:
    bodies, queries = N.rr_inputs(cases)
    for mode in ("first", "cold", "scan"):
        times = N.run_c(_exe(drivers), mode, cases_file, 3)
        assert len(times) == 3
        assert all(t >= 0 for t in times)
    rr = _rr(drivers)
    for times in (rr.first(bodies, queries, "rfc9309", 2), rr.cold(bodies, queries, "google", 2),
                  rr.parse(bodies, "rfc9309", 2), rr.scan(bodies, 2),
                  rr.tokenize(bodies, "google", 2)):
        assert len(times) == 2
        assert all(t >= 0 for t in times)
    assert rr.call_cost("rfc9309", 10) > 0


def test_the_c_driver_refuses_a_file_that_is_not_cases(drivers: N.Drivers, tmp_path: Path
                                                       ) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"User-agent: *\n")
    proc = subprocess.run([str(_exe(drivers)), "first", str(bad)], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 2
    assert "not a cases file" in proc.stderr


def test_the_workload_says_why_it_is_skipped_without_a_compiler(
    monkeypatch: pytest.MonkeyPatch, cases: list[N.Case],
) -> None:
    """The brief of workload (n): without a compiler it is skipped with the reason stated."""
    monkeypatch.setenv("CC", "no-such-compiler-robotrules")
    rep = Report()
    bench_native(robotrules, [], 1, SEED, 0, rep)
    text = "\n".join(rep.parts)
    assert "Skipped: the C driver (nzrsky, memchr): no C compiler" in text
    assert "Skipped: robotrules' Cython driver: no C compiler" in text
    assert len(rep.data["native"]["skipped"]) == 2


def test_the_workload_reports_every_data_set(drivers: N.Drivers, cases: list[N.Case]) -> None:
    files = [SiteFile(name, name.removesuffix(".txt"), body, tuple(qs))
             for name, (body, qs) in zip(FILES, cases, strict=True)]
    rep = Report()
    bench_native(robotrules, files, 1, SEED, 3, rep, passes=1)
    data = rep.data["native"]
    for title in ("corpus, the file's first query", "corpus, a query from one of its rules",
                  "generated files (3, 300 B to 30 KB)"):
        assert data[title]["robotrules (Cython driver)"]["us_per_file"] > 0
        agreement = data["agreement"][title]
        assert agreement["robotrules[google] (Cython driver)"] == agreement["queries"]
    assert set(data["limit"]) == {"corpus", "generated (3)"}
