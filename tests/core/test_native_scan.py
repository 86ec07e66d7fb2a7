"""A selection's first query answered without compiling it (robotrules._native.Doc._scan).

Issue 38: "A first query that costs little more than the parse: ... answer the first queries
of a group without compiling it". A selection of SCAN_MIN (32) rules or more answers its
queries by reading its rules one by one until the readings have cost about a compile, then
compiles; both answers must be the compiled matcher's, that is the pure core's (the
reference). Each check here parses the file again for every query, so every answer below is
a first one.
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
        body = _rules_body(rng, rng.choice([32, 33, 45, 80]))
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


def test_the_later_queries_compile_and_agree() -> None:
    """The first queries read the rules, a later one compiles them: the same answers."""
    body = _rules_body(random.Random(5), 40)
    ref = _robots.reference(body)
    rules = robotrules.parse(body)
    urls = [rand_url(random.Random(i)) for i in range(30)]
    assert [rules.is_allowed(u, user_agent="FooBot") for u in urls] == [
        ref.is_allowed(u, user_agent="FooBot") for u in urls]


def _sizes_while_asked(body: bytes, url: str, times: int) -> list[int]:
    """What the Doc holds (``__sizeof__``) after each of ``times`` queries of ``url``, each
    answer checked against the reference."""
    ref = _robots.reference(body)
    rules = robotrules.parse(body)
    assert isinstance(rules, _native.Doc)  # the facade is a subclass of its peer
    sizes = []
    for _ in range(times):
        assert rules.is_allowed(url, user_agent="X") == ref.is_allowed(url, user_agent="X")
        sizes.append(rules.__sizeof__())
    return sizes


def test_a_selection_passed_over_compiles_after_16_readings() -> None:
    """_native.pxd: a selection of SCAN_MIN rules or more is read until its readings have
    cost SCAN_WORK (16) units per rule, a rule passed over costing one. Forty rules the path
    parts from on their first two bytes cost 40 a reading: 16 readings, and the 17th query
    compiles. With one group the Doc's compile input (its Build) is freed once that group is
    compiled, so what the Doc holds stays the same for 16 queries and changes with the
    17th."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /x%d/\n" % i for i in range(40))
    sizes = _sizes_while_asked(body, "https://h/a/b", 17)
    assert len(set(sizes[:16])) == 1
    assert sizes[16] != sizes[15]


def test_a_selection_read_whole_compiles_on_its_second_query() -> None:
    """_native.pxd: a rule a reading reads costs READ_WORK (16) units, so a reading that
    reads every rule of a selection costs a compile's worth and the second query compiles
    (the worst-shape file of benchmarks/bench_worst.py: no reading passes a rule over)."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /a*%dx\n" % i for i in range(40))
    sizes = _sizes_while_asked(body, "https://h/a/b", 3)
    assert sizes[1] != sizes[0]
    assert sizes[2] == sizes[1]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_first_answers_equal_the_reference_where_a_star_needs_two_bytes(dialect: str) -> None:
    """Doc._scan passes over a rule whose first '*' is followed by two clean bytes the path
    does not hold side by side (RFC 9309 2.2.3: '*' matches any run, the bytes after it must
    follow in the path). Rules whose pair the path holds only apart, whose pair is an escape,
    '$' or non-ASCII, and Google's companion rule (an allow rule holding "/index.htm" also
    allows its prefix ending in '/', which lacks the pair) must still be read."""
    rng = random.Random(3820)
    tails = ["ab", "ba", "a", "b", "%61b", "a$", "$", "\u00e9b", "/index.html", "/index.htm",
             "x/ab", ".pdf", "?ab=", ""]
    for _ in range(40):
        lines = ["User-agent: *"]
        for _ in range(rng.choice([32, 40, 64])):
            head = rng.choice(["", "/", "/a", "/x/", "*", "/*/"])
            lines.append(f"{rng.choice(['Allow', 'Disallow'])}: {head}*{rng.choice(tails)}"
                         f"{rng.choice(['', '*', '$', '*b'])}")
        body = "\n".join(lines).encode("utf-8")
        paths = ["/ab", "/a/b", "/ba", "/x/", "/x/ab", "/%61b", "/\u00e9b", "/q.pdf",
                 "/q?ab=1", "/a", "/", "/x/index.html", "/y/"]
        _first_answers_agree(body, dialect, ["*"], ["https://h" + p for p in paths])


def _parting_body(rng: random.Random, paths: list[str], n: int) -> bytes:
    """A '*' group of ``n`` rules made from the query paths: a path's first bytes, then where
    it parts from the path a byte read as it is, an escape (of the path's next byte, or of
    another), '*', '$', a non-ASCII character or Google's companion trigger."""
    tails = ["x", "%{:02x}", "%{:02X}", "%41", "*", "$", "*$", "\u00e9", "index.html",
             "/index.htm", ""]
    lines = ["User-agent: *"]
    for _ in range(n):
        path = rng.choice(paths)
        cut = rng.randint(0, len(path))
        tail = rng.choice(tails)
        if "{" in tail:
            tail = tail.format(ord(path[cut]) if cut < len(path) else 0x7E)
        lines.append(f"{rng.choice(['Allow', 'Disallow'])}: {path[:cut]}{tail}")
    return "\n".join(lines).encode("utf-8")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_first_answers_equal_the_reference_where_rules_part_from_the_path(
        dialect: str) -> None:
    """Doc._scan passes over a rule whose value parts from the path at a byte read as it is;
    a value that parts at an escape ('%41' against a path's 'A'), a '*', a '$' or a
    non-ASCII byte, or that the path ends inside (a companion '/x/' of 'Allow: /x/index.html'),
    must still be read (RFC 9309 2.2.2: the pattern is compared in its normalised form)."""
    rng = random.Random(3819)
    for _ in range(60):
        paths = ["/" + "/".join(rng.choice(["a", "A", "~", "x", "b.c", "dir", "\u00e9"])
                                for _ in range(rng.randint(1, 3))) + rng.choice(["", "/"])
                 for _ in range(4)]
        body = _parting_body(rng, paths, rng.choice([32, 40, 64]))
        _first_answers_agree(body, dialect, ["*"], ["https://h" + p for p in paths] + [
            "https://h" + p + "index.html" for p in paths if p.endswith("/")])
