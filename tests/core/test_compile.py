"""Compiling a selection and reading it without compiling (robotrules._compile).

Issue 38: "the pure core's first query on a 500 KB file no slower than protego's ... answer the
first queries of a group without compiling it". ``scan_groups`` must give the key the compiled
matcher (``compile_groups``) gives for every path: RFC 9309 2.2.2's most specific match (allow
on a tie, then the earliest line), Google's companion ``/x/$`` of ``Allow: /x/index.html``
(robots.cc HandleAllow), and the 1994 standard's first match in file order.
"""

from __future__ import annotations

import random

import pytest

from robotrules import _pure, _token
from robotrules._compile import compile_groups, scan_groups, select
from robotrules._dialects import SPECS
from tests.core.gen import PATH_ATOMS, QUERY_AGENTS, rand_body, rand_url

DIALECTS = ("rfc9309", "google", "1994")


def _rules_body(rng: random.Random, n: int) -> str:
    """A '*' group and a named one of ``n`` rules each: plain prefixes, wildcards, '$',
    escapes, duplicates, empty values, Google's companion trigger, non-ASCII."""
    lines = []
    for agent in ("*", "FooBot"):
        lines.append(f"User-agent: {agent}")
        for _ in range(n):
            value = "".join(rng.choice(PATH_ATOMS) for _ in range(rng.randint(0, 4)))
            value = rng.choice(["/", "", "*", "/a", "/\u00e9", "/%61"]) + value + rng.choice(
                ["", "$", "*", "/index.html"])
            lines.append(f"{rng.choice(['Allow', 'Disallow'])}: {value}")
        lines.append("")
    return "\n".join(lines)


def _keys_agree(body: str, dialect: str, agents: list[str], paths: list[str]) -> None:
    peer = _pure.PurePeer(body.encode("utf-8", "surrogatepass"), dialect, None)  # type: ignore[arg-type]
    idx = peer.group_index
    for agent in agents:
        _, groups = select(idx, _token.query_key(agent), dialect)  # type: ignore[arg-type]
        m = compile_groups(idx, groups, peer._text, peer._dirs, dialect)  # type: ignore[arg-type]
        for path in paths:
            assert scan_groups(idx, groups, peer._text, peer._dirs, dialect,  # type: ignore[arg-type]
                               path) == m.best(path), (dialect, agent, path)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_scan_gives_the_compiled_key_on_generated_groups(dialect: str) -> None:
    rng = random.Random(3820)
    for _ in range(60):
        body = _rules_body(rng, rng.choice([3, 20, 40]))
        paths = ["/", "/a", "/x/", "/\u00e9", "/%61", "/a/index.html"] + [
            SPECS[dialect].path(rand_url(rng)) for _ in range(10)]  # type: ignore[index]
        _keys_agree(body, dialect, ["FooBot", "*", "BarBot"], paths)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_scan_gives_the_compiled_key_on_odd_files(dialect: str) -> None:
    """The generator's bodies (tests/core/gen.py): odd lines, groups, agents."""
    rng = random.Random(3821)
    for _ in range(80):
        paths = [SPECS[dialect].path(rand_url(rng)) for _ in range(6)]  # type: ignore[index]
        _keys_agree(rand_body(rng), dialect, rng.sample(QUERY_AGENTS, 3), paths)


def test_the_pure_peer_reads_a_large_selection_first_then_compiles() -> None:
    """The first query of a selection of _SCAN_MIN (256) lines or more compiles nothing; the second
    compiles it; both answers are the compiled matcher's."""
    body = _rules_body(random.Random(7), 300).encode()
    peer = _pure.PurePeer(body, "rfc9309", None)
    paths = [SPECS["rfc9309"].path(rand_url(random.Random(i))) for i in range(20)]
    first = peer.path_key(paths[0], "FooBot")
    assert peer._matcher_of_selection == {}
    assert [first] + [peer.path_key(p, "FooBot") for p in paths[1:]] == [
        _pure.PurePeer(body, "rfc9309", None)._for_agent("FooBot")[0].best(p) for p in paths]
    assert list(peer._matcher_of_selection) == ["foobot"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_scan_reads_every_rule_whose_first_two_bytes_may_still_match(dialect: str) -> None:
    """scan_groups passes over a rule on its first two bytes only where the dialect reads
    them as they are and they are not the path's: a rule opening with an escape (``/%73``,
    RFC 9309 2.2.2: octets compared after decoding unreserved ones), a star or an end mark
    is read, and so is Google's ``Allow: /index.html``, whose companion ``/$`` decides ``/``
    (robots.cc HandleAllow); each answer is the compiled matcher's."""
    body = "\n".join(["User-agent: *", "Allow: /index.html", "Disallow: /%73earch",
                      "Disallow: /*rch", "Disallow: *arch/x", "Disallow: /$", "Disallow: /q",
                      "Allow: /se", "Disallow: /sea", ""])
    paths = ["/", "/search", "/search/x", "/s", "/q", "/index.html", "/t"]
    _keys_agree(body, dialect, ["*", "FooBot"], paths)
