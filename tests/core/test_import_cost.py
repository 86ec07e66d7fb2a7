"""``import robotrules`` loads the parser and nothing heavy (issue 15: "import under protego's").

Structural, not timed: a fresh interpreter imports robotrules, parses and answers a query, and
must not have loaded any module of :data:`HEAVY`. Modules the interpreter had already loaded
before robotrules (``site``, ``.pth`` files of the environment) do not count against it.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import robotrules

# What `import robotrules` and a first query must not load: the linter's and the fetcher's
# parts, the optional extras, and their third-party and stdlib dependencies.
HEAVY = frozenset({
    "robotrules.aipref",  # http_sf, json
    "robotrules.agents",
    "robotrules.compat",
    "robotrules.stores",
    "robotrules.fetch",
    "robotrules.cli",
    "robotrules.web",
    "robotrules.dataset",
    "robotrules.pacer",
    "robotrules.scrapy",
    "robotrules._policy",  # email.utils, the stores
    "robotrules._origin",  # idna on first use
    "robotrules._tdmrep_policy",
    "http_sf",
    "idna",
    "httpx",
    "click",
    "rich",
    "json",
    "email.utils",
    "logging",
    "socket",
})

# The child prints the modules it gained, one Python literal; a test failure shows it.
CHILD = """
import sys
before = set(sys.modules)
import robotrules
after_import = set(sys.modules) - before
names = dir(robotrules)
rules = robotrules.parse(b"User-agent: *\\nDisallow: /x")
verdict = rules.is_allowed("/x")
after_query = set(sys.modules) - before
print(repr((sorted(after_import), sorted(after_query), verdict, names)))
"""


def _child() -> tuple[set[str], set[str], bool, list[str]]:
    package_root = Path(robotrules.__file__).resolve().parent.parent  # src/ or site-packages
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(package_root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                         text=True, check=True).stdout
    imported, queried, verdict, names = ast.literal_eval(out.strip())
    return set(imported), set(queried), verdict, names


def test_import_and_first_query_load_nothing_heavy() -> None:
    imported, queried, verdict, names = _child()
    assert "robotrules._robots" in imported  # the child did import robotrules
    assert sorted(imported & HEAVY) == []
    assert sorted(queried & HEAVY) == []
    assert verdict is False  # Disallow: /x
    assert {"Statement", "Usage", "lint", "parse"} <= set(names)  # dir() loads nothing


def test_every_public_name_resolves() -> None:
    """The lazy names (PEP 562) resolve like the eager ones, and then stay bound."""
    for name in robotrules.__all__:
        assert getattr(robotrules, name) is not None, name
    from robotrules.aipref import Statement, Usage

    assert robotrules.Statement is Statement
    assert robotrules.Usage is Usage
    assert "Statement" in vars(robotrules)


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        robotrules.no_such_name  # type: ignore[attr-defined]  # noqa: B018
