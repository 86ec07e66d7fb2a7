"""Done-when of issue 7: a urllib-based script switches with one line and keeps working.

Source: ``urllib_crawler.py`` beside this file, run against a local site once as written and
once with its import line replaced; the outputs must be identical.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import robotrules

if TYPE_CHECKING:
    from conftest import Site

HERE = Path(__file__).parent
STDLIB_IMPORT = "from urllib.robotparser import RobotFileParser"
SWITCHED_IMPORT = "from robotrules.compat import RobotFileParser"

ROBOTS = b"""\
User-agent: *
Disallow: /private/

User-agent: examplebot
Crawl-delay: 2
Request-rate: 1/5
Disallow: /private/
Disallow: /drafts/

Sitemap: http://127.0.0.1/sitemap.xml
"""
PATHS = ["/", "/about.html", "/private/x.html", "/drafts/y.html", "/blog/"]


def _run(script: Path, site: Site) -> str:
    src = str(Path(robotrules.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(script), site.base, *PATHS],
        capture_output=True, text=True, timeout=60, env=env, check=True,
    )  # fmt: skip
    return done.stdout


def test_one_line_switch_keeps_the_script_working(site: Site, tmp_path: Path) -> None:
    site.routes["/robots.txt"] = (200, ROBOTS, {})
    for path in ("/", "/about.html", "/blog/"):
        site.routes[path] = (200, b"<html>page</html>", {"Content-Type": "text/html"})
    original = HERE / "urllib_crawler.py"
    text = original.read_text()
    assert text.count(STDLIB_IMPORT) == 1
    switched = tmp_path / "urllib_crawler.py"
    switched.write_text(text.replace(STDLIB_IMPORT, SWITCHED_IMPORT))
    diff = [
        (a, b)
        for a, b in zip(text.splitlines(), switched.read_text().splitlines(), strict=True)
        if a != b
    ]
    assert len(diff) == 1  # the one line

    before = _run(original, site)
    after = _run(switched, site)
    assert after == before
    assert after.splitlines() == [
        "crawl-delay 2",
        "request-rate (1, 5)",
        "sitemaps ['http://127.0.0.1/sitemap.xml']",
        "got / 200",
        "got /about.html 200",
        "skip /private/x.html",
        "skip /drafts/y.html",
        "got /blog/ 200",
    ]
