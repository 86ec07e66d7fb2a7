"""``check --robots FILE --agent A URL`` as the CLI google/robotstxt-spec-test drives.

Expected answers: ../shared/conformance/spec_test_cases.json (every expectation of
google/robotstxt-spec-test; Google's C++ matcher agrees with all of them). A sample runs
through a real subprocess; every case runs through ``main()`` in-process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from robotrules.cli import main


def _cases(shared_dir: Path, name: str = "spec_test_cases.json") -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads((shared_dir / "conformance" / name).read_text())
    assert cases, f"no cases in {name}"  # the loops over them check something
    return cases


def _write(tmp_path: Path, case: dict[str, Any]) -> Path:
    p = tmp_path / "robots.txt"
    p.write_bytes(case["robots_txt"].encode("utf-8", "surrogateescape"))
    return p


@pytest.mark.parametrize("name", ["spec_test_cases.json", "google_robots_test.json"])
def test_every_case_in_process(shared_dir: Path, tmp_path: Path, name: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """Both tables (robotstxt-spec-test, robots_test.cc) through the CLI's check."""
    wrong = []
    for case in _cases(shared_dir, name):
        p = _write(tmp_path, case)
        code = main(["check", "--robots", str(p), "--agent", case["user_agent"],
                     "--dialect", "google", case["url"]])
        capsys.readouterr()
        if code != (0 if case["allowed"] else 1):
            wrong.append(case["id"])
    assert not wrong, wrong[:10]


def test_spec_test_sample_by_subprocess(shared_dir: Path, tmp_path: Path, cli: Any) -> None:
    cases = _cases(shared_dir)[::40]
    for case in cases:
        p = _write(tmp_path, case)
        r = cli("check", "--robots", str(p), "--agent", case["user_agent"], "--dialect",
                "google", case["url"])
        assert r.code == (0 if case["allowed"] else 1), (case["id"], r.out, r.err)
