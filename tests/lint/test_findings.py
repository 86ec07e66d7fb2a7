"""The catalogue (``robotrules._findings``) against the docs, the CLI and the findings made.

Issue 26: the docs and the code disagreed: ``User-agent: Googlebot/2.1`` was an error (L006)
where docs/lint.md and ``lint --list`` said warning; the README said L001-L030 where the
catalogue ran to L041; L040 had another name in docs/ai-preferences.md; the line limit was
16,663 bytes in one place and 16,664 in another. The catalogue is the one source; these tests
hold every other place to it: codes, kinds (names), severities (the default first, and every
severity a finding is made with written in its row), byte figures, and every ``Lxxx–Lyyy``
range quoted in README.md and docs/*.md.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import robotrules
from robotrules._findings import CATALOGUE, code_range
from robotrules._tokenize import MAX_LINE
from tests.cli.conftest import SRC

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").glob("*.md"))
SEVERITIES = ("error", "warning", "info")


def _rows(path: Path) -> dict[str, list[str]]:
    """Table rows of a doc whose first cell is a code: code -> cells."""
    rows = {}
    for line in path.read_text("utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(r"L\d{3}", cells[0]):
            rows[cells[0]] = cells
    return rows


LINT_DOC = _rows(ROOT / "docs" / "lint.md")


def test_lint_doc_lists_every_code_with_its_kind() -> None:
    assert {code: cells[1] for code, cells in LINT_DOC.items()} == {
        code: e.kind for code, e in CATALOGUE.items()}


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_lint_doc_severity_starts_with_the_default(code: str) -> None:
    cell = LINT_DOC[code][2]
    assert cell.split()[0] == CATALOGUE[code].severity, (code, cell)


def test_other_docs_tables_use_the_catalogue_names() -> None:
    """docs/ai-preferences.md lists L031-L041 with kind and severity too."""
    checked = 0
    for path in DOCS:
        if path.name == "lint.md":
            continue
        for code, cells in _rows(path).items():
            assert code in CATALOGUE, (path.name, code)
            assert cells[1] == CATALOGUE[code].kind, (path.name, code, cells[1])
            assert cells[2].split()[0] == CATALOGUE[code].severity, (path.name, code)
            checked += 1
    assert checked >= 11  # the AI-preference rows at least


def test_every_quoted_code_range_is_the_catalogues() -> None:
    """A range that starts at L001 names the whole catalogue: it must end where it ends."""
    assert code_range() == f"{min(CATALOGUE)}\N{EN DASH}{max(CATALOGUE)}"
    found = 0
    for path in [ROOT / "README.md", *DOCS]:
        for m in re.finditer(r"L001\s*(?:[-\N{EN DASH}]|to|\.\.)\s*(L\d{3})",
                             path.read_text("utf-8")):
            assert m.group(1) == max(CATALOGUE), (path.name, m.group())
            found += 1
    assert found >= 1  # the README's


def test_byte_figures_agree() -> None:
    """The line limit is 16,663 bytes kept (robots.cc kMaxLineLen 2083 * 8 = 16,664, with the
    terminating NUL): the tokenizer, the catalogue and the docs say the same."""
    assert MAX_LINE == 2083 * 8 - 1
    assert f"{MAX_LINE:,}" in CATALOGUE["L019"].description
    assert f"{MAX_LINE:,}" in LINT_DOC["L019"][4]
    finding = next(f for f in robotrules.lint("User-agent: *\nDisallow: /" + "a" * 20_000
                                              + "\n") if f.code == "L019")
    assert f"{MAX_LINE:,}" in finding.message
    from robotrules._policy import DEFAULT_MAX_BYTES

    assert DEFAULT_MAX_BYTES == 500 * 1024  # RFC 9309 2.5: "at least 500 kibibytes (KiB)"
    for code in ("L018", "L049"):
        assert "500 KiB" in CATALOGUE[code].description + LINT_DOC[code][4], code


# Bodies that make every severity of the codes with more than one (the catalogue's note:
# "a call site may raise or lower the severity where the same check has graver and milder
# cases"), so that the docs' severity cells can be checked against what lint() makes.
BODIES = [
    "User-agent: Googlebot/2.1\nDisallow: /x\n",  # L006 warning: still names Googlebot
    "User-agent: /\nDisallow: /x\n",  # L006 error: names no crawler
    "User-agent: *\nDisallow: *.gif\nDisallow: x\n",  # L008 info and warning
    "User-agent: a\nDisallow: /x\n\nUser-agent: a\nDisallow: /y\n",  # L013
    "Sitemap: /s.xml\nSitemap: http://a.example/s\nSitemap: http://a.example/s\n",  # L015
    "\ufeffUser-agent: *\nDisallow: /x\n",  # L017 info
    "User-agent: *\nDisallow: /nul\0x\n",  # L029 error, L048
    "User-agent: *\nfoo bar\n",  # L029 warning
]


@pytest.mark.parametrize("dialect", ["rfc9309", "1994"])
def test_findings_take_only_the_severities_their_row_names(dialect: str) -> None:
    made = 0
    for body in BODIES:
        for f in robotrules.lint(body, dialect=dialect):  # type: ignore[arg-type]
            cell = LINT_DOC[f.code][2]
            assert f.severity in cell, (f.code, f.severity, cell, body)
            made += 1
    for status in (503, 404, 403, 301):
        for f in robotrules.lint("User-agent: *\n", status=status):
            assert f.severity in LINT_DOC[f.code][2], (f.code, f.severity)
            made += 1
    assert made >= 15


def test_l006_googlebot_2_1_is_a_warning() -> None:
    """The catalogue's intent: a value that still names its crawler (RFC 9309 2.2.1 reads
    'Googlebot/2.1' as the product token 'Googlebot') is written oddly but works: warning."""
    found = [f for f in robotrules.lint("User-agent: Googlebot/2.1\nDisallow: /x\n")
             if f.code == "L006"]
    assert [f.severity for f in found] == ["warning"]
    none = [f for f in robotrules.lint("User-agent: /\nDisallow: /x\n") if f.code == "L006"]
    assert [f.severity for f in none] == ["error"]


def test_lint_list_is_the_catalogue() -> None:
    p = subprocess.run([sys.executable, "-m", "robotrules.cli", "lint", "--list", "--json"],
                       capture_output=True, text=True, timeout=60, check=False,
                       env={"PYTHONPATH": SRC, "PATH": ""})
    assert p.returncode == 0, p.stderr
    listed = {r["code"]: (r["kind"], r["severity"]) for r in map(json.loads,
                                                                   p.stdout.splitlines())}
    assert listed == {c: (e.kind, e.severity) for c, e in CATALOGUE.items()}


def test_new_codes_are_appended() -> None:
    """Codes are stable: new ones come at the end, numbered in order without gaps."""
    assert list(CATALOGUE) == [f"L{i:03d}" for i in range(1, len(CATALOGUE) + 1)]
