"""A selection's first query answered without compiling it (robotrules._native.Doc._scan).

Issue 38: "A first query that costs little more than the parse: ... answer the first queries
of a group without compiling it". A selection of SCAN_MIN (17) rules or more answers its first
query by reading its rules one by one, and compiles on its second; both answers must be the
compiled matcher's, that is the pure core's (the reference). Each check here parses the file
again for every query, so every answer below is a first one.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import robotrules
from robotrules import _robots
from robotrules._dialects import SPECS
from tests.conftest import SHARED
from tests.core.gen import PATH_ATOMS, QUERY_AGENTS, rand_body, rand_url

_native = pytest.importorskip("robotrules._native")
pytestmark = pytest.mark.skipif(not robotrules.NATIVE, reason="native kernels turned off")

DIALECTS = ("rfc9309", "google")
CORPUS = sorted(Path(SHARED, "corpus", "sites").glob("*.txt"))


def _first_answers_agree(body: bytes, dialect: str, agents: list[str], urls: list[str]) -> None:
    ref = _robots.reference(body, dialect)
    for agent in agents:
        for url in urls:
            path = SPECS[dialect].path(url)  # type: ignore[index]
            assert robotrules.parse(body, dialect).path_key(path, agent) == ref.path_key(
                path, agent), (dialect, agent, url)
            assert robotrules.parse(body, dialect).is_allowed(url, user_agent=agent) == (
                ref.is_allowed(url, user_agent=agent)), (dialect, agent, url)


def _rules_body(rng: random.Random, n: int) -> bytes:
    """A '*' group and a named one of ``n`` rules each: plain prefixes, wildcards, '$',
    escapes, duplicates, empty values, Google's companion trigger, non-ASCII bytes."""
    lines = []
    for agent in ("*", "FooBot"):
        lines.append(f"User-agent: {agent}")
        for _ in range(n):
            value = "".join(rng.choice(PATH_ATOMS) for _ in range(rng.randint(0, 4)))
            value = rng.choice(["/", "", "*", "/a"]) + value + rng.choice(["", "$", "*"])
            lines.append(f"{rng.choice(['Allow', 'Disallow'])}: {value}")
        lines.append("Allow: /index.html" if rng.random() < 0.3 else "")
    return "\n".join(lines).encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_first_answers_equal_the_reference_on_generated_groups(dialect: str) -> None:
    rng = random.Random(3817)
    for _ in range(40):
        body = _rules_body(rng, rng.choice([17, 18, 30, 80]))
        _first_answers_agree(body, dialect, ["FooBot", "BarBot", "*"],
                             [rand_url(rng) for _ in range(8)])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_first_answers_equal_the_reference_on_odd_files(dialect: str) -> None:
    """The generator's bodies (tests/core/gen.py), most of them small (compiled at once)."""
    rng = random.Random(3818)
    for _ in range(60):
        body = rand_body(rng).encode("utf-8", "surrogatepass")
        _first_answers_agree(body, dialect, rng.sample(QUERY_AGENTS, 3),
                             [rand_url(rng) for _ in range(4)])


def test_first_answers_equal_the_reference_on_the_corpus() -> None:
    """Every 25th corpus file, both dialects, paths built from its rules."""
    for path in CORPUS[::25]:
        body = path.read_bytes()
        ref = _robots.reference(body)
        urls = ["https://h/", "https://h/robots.txt"] + [
            "https://h" + r.pattern.replace("*", "x").rstrip("$")
            for g in ref.groups[:3] for r in g.rules[:8] if r.pattern.startswith("/")]
        for dialect in DIALECTS:
            _first_answers_agree(body, dialect, ["*", "Googlebot", "GPTBot"], urls)


def test_the_second_query_compiles_and_agrees() -> None:
    """The first query reads the rules, the second compiles them: the same answers."""
    body = _rules_body(random.Random(5), 40)
    ref = _robots.reference(body)
    rules = robotrules.parse(body)
    urls = [rand_url(random.Random(i)) for i in range(30)]
    assert [rules.is_allowed(u, user_agent="FooBot") for u in urls] == [
        ref.is_allowed(u, user_agent="FooBot") for u in urls]
