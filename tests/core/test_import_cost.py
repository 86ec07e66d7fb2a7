"""``import robotrules`` loads the parser and nothing heavy (issue 15: "import under protego's").

Structural, not timed: a fresh interpreter imports robotrules, parses and answers a query, and
must not have loaded any module of :data:`HEAVY`, on the native kernels and on the pure core
(``ROBOTRULES_PURE=1``) alike. Modules the interpreter had already loaded before robotrules
(``site``, ``.pth`` files of the environment) do not count against it.
"""

from __future__ import annotations

import ast
import dataclasses
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
    # The model's frozen dataclasses: dataclasses loads inspect, and inspect ast, dis and
    # tokenize (about 6 ms of the 17 ms `import robotrules` took); VisitTime needs datetime.
    "robotrules._model",
    "dataclasses",
    "inspect",
    "ast",
    "datetime",
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


def _child(pure: str = "0") -> tuple[set[str], set[str], bool, list[str]]:
    package_root = Path(robotrules.__file__).resolve().parent.parent  # src/ or site-packages
    env = {**os.environ, "ROBOTRULES_PURE": pure, "PYTHONPATH": os.pathsep.join(
        [str(package_root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                         text=True, check=True).stdout
    imported, queried, verdict, names = ast.literal_eval(out.strip())
    return set(imported), set(queried), verdict, names


@pytest.mark.parametrize("pure", ["0", "1"], ids=["native", "pure"])
def test_import_and_first_query_load_nothing_heavy(pure: str) -> None:
    imported, queried, verdict, names = _child(pure)
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


def test_model_types_stay_dataclasses() -> None:
    """Resolved on first access (PEP 562), the model types are the frozen dataclasses users
    may rely on: fields(), replace() and asdict() work on what explain() returns."""
    from robotrules import _model

    assert robotrules.Verdict is _model.Verdict
    verdict = robotrules.parse(b"User-agent: *\nDisallow: /x").explain("/x")
    assert type(verdict) is robotrules.Verdict
    assert dataclasses.is_dataclass(verdict)
    assert [f.name for f in dataclasses.fields(robotrules.Rule)] == ["directive", "pattern", "line"]
    assert dataclasses.replace(verdict, detail="d").detail == "d"
    assert dataclasses.asdict(verdict)["rule"] == {"directive": "disallow", "pattern": "/x",
                                                   "line": 2}
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.allowed = True  # type: ignore[misc]


# In a fresh interpreter: robotrules._robots holds stand-ins for the model classes until the
# first value is built, then the classes themselves (robotrules._later).
CHILD_LATER = """
import robotrules
from robotrules import _robots
before = type(_robots.Verdict).__name__
v = robotrules.parse(b"User-agent: *\\nDisallow: /x").explain("/x")
import robotrules._model as m
print(repr((before, type(v) is m.Verdict, _robots.Verdict is m.Verdict, type(v.rule) is m.Rule)))
"""


def test_first_value_replaces_the_stand_in() -> None:
    package_root = Path(robotrules.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(package_root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, "-c", CHILD_LATER], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert ast.literal_eval(out.strip()) == ("_Later", True, True, True)


# The import-cost engineering has one home, robotrules._later (issue 21: "the import-cost
# engineering in one place ... with the import-cost test as its guard"): no module of the core
# imports the model inside a function but _later, and AI usage preferences are imported inside
# a function only through the facade's one door (_robots._preferences) and by lint() when it
# runs. A new deferral goes there, or this test names it.
SRC = Path(robotrules.__file__).resolve().parent
DEFERRED_AIPREF = {("_robots.py", "_preferences"), ("lint/__init__.py", "lint")}


def _function_imports(path: Path) -> list[tuple[str, str]]:
    """``(function, module imported)`` for each import statement inside a function."""
    out: list[tuple[str, str]] = []
    for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    names = [f"{node.module or ''}.{a.name}" for a in node.names]
                    out.extend((fn.name, f"{'.' * node.level}{n}") for n in names)
    return out


def test_deferred_imports_live_in_one_place() -> None:
    core = [p for p in SRC.rglob("*.py") if p.parts[len(SRC.parts)] not in (
        "fetch", "stores", "cli", "web", "guard", "dataset")]
    assert len(core) > 20  # the package's core was found
    model, prefs = [], []
    for path in core:
        rel = path.relative_to(SRC).as_posix()
        for fn, name in _function_imports(path):
            bare = name.lstrip(".")
            if bare.startswith("_model") and rel != "_later.py":
                model.append((rel, fn))
            if bare.startswith("aipref") and not rel.startswith("aipref/") and (
                    (rel, fn) not in DEFERRED_AIPREF):
                prefs.append((rel, fn, name))
    assert model == []
    assert prefs == []


def test_later_model_and_resolve() -> None:
    from robotrules import _later, _model

    assert _later.model() is _model
    namespace: dict[str, object] = {}
    (stand_in,) = _later.stand_ins(namespace, "Rule")
    namespace["Rule"] = stand_in
    assert stand_in("allow", "/a", 1) == _model.Rule("allow", "/a", 1)
    assert namespace["Rule"] is _model.Rule  # the first call put the class in its place
    assert _later.resolve(namespace, "Rule") is _model.Rule
