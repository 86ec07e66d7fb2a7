"""Where ``robotrules.compat`` and each supported CPython's ``urllib.robotparser`` still differ.

Source: docs/compat.md's table "Where each stdlib still differs", whose rows this test reads:
each names a case below, the answer of the stdlib before RFC 9309 support (3.11, 3.12, 3.13
before the backport), the answer of a stdlib with python/cpython gh-138907 ("Support RFC 9309
in robotparser", backported to 3.13 by python/cpython#149376, May 2026), and robotrules'
(RFC 9309 2.2.1 for agents, 2.2.2 for rules and percent-encoding, 2.1 for groups). The stdlib
of the running interpreter answers in this process; every other installed supported CPython
(pyenv's, or ``ROBOTRULES_STDLIB_PYTHONS``) answers in a subprocess when its robotparser.py is
not byte-identical to this one. Which column applies is read off the stdlib's own answer to
``longest-match`` (RFC 9309 2.2.2: the longest match wins; the old stdlib takes the first).
"""

from __future__ import annotations

import glob
import hashlib
import inspect
import json
import os
import re
import subprocess
import sys
import urllib.robotparser
from pathlib import Path

import pytest

from robotrules.compat import RobotFileParser

DOC = Path(__file__).resolve().parents[2] / "docs" / "compat.md"

# name -> (robots.txt, agent, path: can_fetch's answer, or None: crawl_delay's)
CASES: dict[str, tuple[str, str, str | None]] = {
    "longest-match": ("User-agent: *\nDisallow: /\nAllow: /public/\n", "examplebot",
                      "/public/page"),
    "allow-wins-a-tie": ("User-agent: *\nDisallow: /page\nAllow: /page\n", "examplebot",
                         "/page"),
    "wildcards": ("User-agent: *\nDisallow: /*.pdf$\n", "examplebot", "/files/a.pdf"),
    "groups-merged": ("User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
                      "examplebot", "/b"),
    "blank-line-in-group": ("User-agent: examplebot\n\nDisallow: /x\n", "examplebot", "/x"),
    "robots-txt-allowed": ("User-agent: *\nDisallow: /\n", "examplebot", "/robots.txt"),
    "token-prefix": ("User-agent: googlebot\nDisallow: /\n", "Googlebot-News", "/page"),
    "token-in-full-header": (
        "User-agent: googlebot\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "/page"),
    "version-on-agent-line": ("User-agent: examplebot/1.0\nDisallow: /\n", "examplebot",
                              "/page"),
    "crawl-delay-only-group": ("User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n",
                               "a", "/x"),
    "encoded-slash": ("User-agent: *\nDisallow: /a%2Fb\n", "examplebot", "/a/b"),
    "encoded-tilde": ("User-agent: *\nDisallow: /%7Ejoe/\n", "examplebot", "/~joe/index.html"),
    "dollar-inside": ("User-agent: *\nDisallow: /a$b\n", "examplebot", "/a$b"),
    "fractional-crawl-delay": ("User-agent: *\nCrawl-delay: 0.5\nDisallow: /x\n", "examplebot",
                               None),
}


def ask(cls: type, cases: dict[str, tuple[str, str, str | None]]) -> dict[str, object]:
    """Every case's answer from a parser class (this source runs in the other CPythons too)."""
    out: dict[str, object] = {}
    for name, (text, agent, path) in cases.items():
        parser = cls()
        parser.parse(text.splitlines())
        if path is None:
            out[name] = parser.crawl_delay(agent)
        else:
            out[name] = parser.can_fetch(agent, "https://example.com" + path)
    return out


CHILD = "from __future__ import annotations\n" + inspect.getsource(ask) + """
import json, sys, urllib.robotparser
print(json.dumps(ask(urllib.robotparser.RobotFileParser, json.loads(sys.stdin.read()))))
"""

_WORDS = {"allowed": True, "disallowed": False, "None": None}


def _documented() -> dict[str, tuple[object, object, object]]:
    """docs/compat.md's rows: case -> (stdlib before RFC 9309, gh-138907, robotrules)."""
    rows = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\| `([a-z0-9-]+)` \|([^|]*)\|([^|]*)\|([^|]*)\|", line)
        if m and m[1] in CASES:
            cells = [cell.strip() for cell in m.groups()[1:]]
            rows[m[1]] = tuple(_WORDS[c] if c in _WORDS else float(c) for c in cells)
    return rows  # type: ignore[return-value]


def _answer(value: object) -> object:
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _generation(answers: dict[str, object]) -> int:
    """Column of the table: 0 before RFC 9309 support, 1 with gh-138907."""
    return 1 if answers["longest-match"] is True else 0


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _other_pythons() -> list[str]:
    """Installed supported CPythons (3.11 and later) other than this one."""
    listed = os.environ.get("ROBOTRULES_STDLIB_PYTHONS")
    if listed:
        found = listed.split(os.pathsep)
    else:
        root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
        found = sorted(glob.glob(os.path.join(root, "versions", "3.1[1-9]*", "bin", "python")))
    here = os.path.realpath(sys.executable)
    return [p for p in found if os.path.realpath(p) != here and os.access(p, os.X_OK)]


def test_the_table_lists_every_case() -> None:
    assert set(_documented()) == set(CASES)


def test_robotrules_answers_as_the_table_says() -> None:
    documented = _documented()
    ours = ask(RobotFileParser, CASES)
    assert {k: _answer(v) for k, v in ours.items()} == {k: v[2] for k, v in documented.items()}


def test_this_interpreters_stdlib_answers_as_the_table_says() -> None:
    documented = _documented()
    theirs = ask(urllib.robotparser.RobotFileParser, CASES)
    column = _generation(theirs)
    assert {k: _answer(v) for k, v in theirs.items()} == {
        k: v[column] for k, v in documented.items()}


def test_every_other_installed_stdlib_answers_as_the_table_says() -> None:
    """The other supported CPythons: those whose robotparser.py is this one's byte for byte
    answer as it does (the test above); the others run the cases in a subprocess."""
    pythons = _other_pythons()
    if not pythons:
        pytest.skip("no other CPython 3.11+ installed (pyenv, ROBOTRULES_STDLIB_PYTHONS)")
    here = _digest(urllib.robotparser.__file__)
    documented = _documented()
    for python in pythons:
        where = subprocess.run(
            [python, "-c", "import urllib.robotparser as r, sys; "
             "print(r.__file__, sys.version_info >= (3, 11))"],
            capture_output=True, text=True, timeout=60, check=True).stdout.split()
        if where[1] != "True" or _digest(where[0]) == here:
            continue
        done = subprocess.run([python, "-c", CHILD], input=json.dumps(CASES),
                              capture_output=True, text=True, timeout=60, check=True)
        theirs = json.loads(done.stdout)
        column = _generation(theirs)
        assert {k: _answer(v) for k, v in theirs.items()} == {
            k: v[column] for k, v in documented.items()}, python
