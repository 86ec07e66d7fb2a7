"""Without Chromium, every browser test says it was skipped, and why (issue 34: about 19 tests
were reported as one skip, the module's, which hid how many tests did not run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

HERE = Path(__file__).resolve().parent
SUITES = [str(HERE / "test_browser.py"), str(HERE / "test_browser_ai.py")]


def test_each_browser_test_is_its_own_skip_with_the_reason(tmp_path: Path) -> None:
    env = {**os.environ, "ROBOTRULES_CHROMIUM": "/nonexistent/chromium"}
    common = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
              "-p", "no:randomly", *SUITES]
    listed = subprocess.run([*common, "--collect-only", "-q"], capture_output=True, text=True,
                            env=env, cwd=HERE.parents[1], timeout=300)
    tests = [line.rpartition("::")[2] for line in listed.stdout.splitlines() if "::" in line]
    assert len(tests) >= 20, listed.stdout  # every test is collected, none hidden
    report = tmp_path / "report.xml"
    subprocess.run([*common, f"--junitxml={report}"], capture_output=True, env=env,
                   cwd=HERE.parents[1], timeout=300, check=False)
    cases = ElementTree.parse(report).getroot().iter("testcase")
    skips = {case.get("name"): [s.get("message") for s in case.iter("skipped")]
             for case in cases}
    assert sorted(skips) == sorted(tests)  # one report per test
    reason = "no Chromium at /nonexistent/chromium (.ci/run installs Debian's chromium)"
    assert all(messages == [reason] for messages in skips.values()), skips
