"""``robotrules-lint`` (robotrules/precommit.py) and the hook ``.pre-commit-hooks.yaml`` offers.

Severities come from the lint catalogue (docs/lint.md: L003 a misspelt directive is a
warning). The hook itself is tested as pre-commit runs it: ``pre-commit try-repo`` on a
temporary git repository, which installs this checkout into a venv of pre-commit's own
(packages from the configured index), runs the hook on the staged files named robots.txt
only, and fails the commit on a warning by default; a site's ``args: [--fail-on=error]``
lets that commit through.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from robotrules.precommit import main

ROOT = Path(__file__).resolve().parents[2]
BLOCKS_ALL = "User-agent: *\nDisallow: /\n"  # L022, a warning: it works, maybe not as meant
CLEAN = "User-agent: *\nDisallow: /private/\n"


def test_a_warning_fails_by_default_and_not_with_fail_on_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    bad, good = tmp_path / "robots.txt", tmp_path / "ok" / "robots.txt"
    good.parent.mkdir()
    bad.write_text(BLOCKS_ALL)
    good.write_text(CLEAN)
    assert main([str(bad), str(good)]) == 1
    out = capsys.readouterr().out
    assert [line.split(" ")[:3] for line in out.splitlines()] == [
        [f"{bad}:2:11:", "warning", "L022"]]
    assert main(["--fail-on=error", str(bad), str(good)]) == 0
    assert "L022" in capsys.readouterr().out  # still reported
    assert main(["--fail-on=never", str(bad)]) == 0
    assert main([str(good)]) == 0


# Issue 39's reproduction: the recommended config (--fail-on=error) passed this file. Each line
# is ignored, never applies or is read as written only by some parsers (docs/lint.md,
# Severity): a rule before any user-agent (RFC 9309 2.2.2), 'Disalow' (read by Google only), a
# pattern that cannot match (no leading '/', RFC 9309 2.2 ABNF), 'Crawl-delay: fast', a relative
# Sitemap (sitemaps.org: a full URL), and a duplicate rule that can never decide.
MISTAKES = ("Disallow: /early/\n"
            "User-agent: *\n"
            "Disalow: /tmp/\n"
            "Disallow: private\n"
            "Crawl-delay: fast\n"
            "Sitemap: /sitemap.xml\n"
            "Disallow: /x/\n"
            "Disallow: /x/\n")


def test_the_recommended_config_fails_a_file_whose_rules_never_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_text(MISTAKES)
    assert main(["--fail-on=error", str(robots)]) == 1
    errors = {(line.split(":")[1], line.split(" ")[2]) for line in
              capsys.readouterr().out.splitlines() if line.split(" ")[1] == "error"}
    assert errors == {("1", "L005"), ("3", "L003"), ("4", "L008"), ("5", "L028"),
                      ("6", "L015"), ("8", "L011")}


def test_an_unreadable_file_is_exit_2(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "missing" / "robots.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("robotrules-lint: cannot read ")
    assert len(err.splitlines()) == 1


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed by pre-commit")
def test_the_hook_through_pre_commit_try_repo(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    repo = tmp_path / "site"
    (repo / "public").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "robots.txt").write_text(BLOCKS_ALL)
    (repo / "public" / "robots.txt").write_text(CLEAN)
    (repo / "notes.txt").write_text("Disalow: not a robots.txt, never linted\n")
    _git(repo, "add", "-A")
    # ROBOTRULES_PURE=1: the hook's venv skips compiling the kernel (a minute on a busy
    # machine; the wheel checks in .ci/run prove the native build), same findings.
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "NO_COLOR": "1", "ROBOTRULES_PURE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "robotrules-lint",
         "--all-files", "--color=never"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=900,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "robots.txt:2:11: warning L022 'Disallow: /' for every crawler" in run.stdout
    assert "notes.txt" not in run.stdout
    assert "public/robots.txt" not in run.stdout  # a clean file says nothing

    # The failing severity is the site's choice: args in its .pre-commit-config.yaml.
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {head}\n  hooks:\n  - id: robotrules-lint\n"
        "    args: [--fail-on=error]\n    verbose: true\n")
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color=never"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=900,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "warning L022" in run.stdout
