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

from robotrules import _compile, _pure, _token
from robotrules._compile import compile_groups, scan_groups, select, selection_lines
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


def _index_rule_lines(peer: _pure.PurePeer, key: str) -> tuple[str, list[int]]:
    idx = peer.group_index
    selection, groups = select(idx, key, peer.dialect)
    return selection, [v for g in groups for v in idx.block(g) if v & 3 in (1, 2)]


@pytest.mark.parametrize("dialect", ["rfc9309", "google"])
def test_selection_lines_are_the_index_selections_rules(dialect: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """selection_lines (a large file's first query, without the group index) gives
    ``select``'s cache key and exactly the rules, in file order, of the groups the group
    index (robotrules._index, the home of where a group ends) selects for each query key:
    RFC 9309 2.2.1 (a group's user-agent lines, then its rules; the same product token in
    several groups combines them; without a match, the '*' groups), on the generator's odd
    bodies (blank lines, rules before any group, Content-Usage, agents in headers)."""
    monkeypatch.setattr(_compile, "_UA_SHARE", 0)  # (read so however many groups)
    rng = random.Random(3822)
    # attach-05: a Content-Usage line is a rule of its group in rfc9309, so a user-agent line
    # after it opens another group (google reads it as an unknown line of the group)
    body = ("User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n"
            "User-agent: *\nAllow: /y\n")
    peer = _pure.PurePeer(body.encode(), dialect, None)  # type: ignore[arg-type]
    got = selection_lines(peer._text, peer._dirs, dialect, "a")  # type: ignore[arg-type]
    assert got == _index_rule_lines(peer, "a")
    assert got is not None
    assert (got[1] == []) == (dialect == "rfc9309")
    for n in range(300):
        body = rand_body(rng)
        if n % 3 == 0:  # blank lines and preference lines inside groups
            body = body.replace("Disallow: /a", "Disallow: /a\n\nDisallow: /b", 1).replace(
                "Allow:", "Content-Usage: train-ai=n\nAllow:", 1)
        peer = _pure.PurePeer(body.encode("utf-8", "surrogatepass"), dialect, None)  # type: ignore[arg-type]
        for agent in [*rng.sample(QUERY_AGENTS, 4), "*", ""]:
            key = _token.query_key(agent)
            got = selection_lines(peer._text, peer._dirs, dialect, key)  # type: ignore[arg-type]
            assert got == _index_rule_lines(peer, key), (body, agent)


def test_selection_lines_leave_1994_to_the_index() -> None:
    """The 1994 standard selects by a name inside the record's value, not by product token
    (robotrules._dialects): its selections come from the group index alone."""
    peer = _pure.PurePeer(b"User-agent: foo\nDisallow: /x\n", "1994", None)
    assert selection_lines(peer._text, peer._dirs, "1994", "foo") is None


def test_selection_lines_leave_a_file_of_many_groups_to_the_index() -> None:
    """Where more than one directive in eight is a user-agent line, the group index reads
    the groups at about the same cost: selection_lines leaves them to it."""
    body = "".join(f"User-agent: bot{i}\nDisallow: /{i}\n" for i in range(300)).encode()
    peer = _pure.PurePeer(body, "rfc9309", None)
    assert selection_lines(peer._text, peer._dirs, "rfc9309", "bot7") is None
    # (RFC 9309 2.2.2: the group of bot7 disallows /7 and nothing else)
    assert not peer.is_allowed("/7/x", user_agent="bot7")
    assert peer.is_allowed("/8/x", user_agent="bot7")


def test_a_large_files_first_query_builds_no_index() -> None:
    """Issue 38: "the pure core's first query on a 500 KB file no slower than protego's": a
    large file's first query reads its selection's rules without building the group index;
    the second query of the selection builds it and compiles; every answer is the compiled
    matcher's."""
    body = _rules_body(random.Random(8), 400).encode()
    peer = _pure.PurePeer(body, "google", None)
    paths = [SPECS["google"].path(rand_url(random.Random(i))) for i in range(12)]
    want = _pure.PurePeer(body, "google", None)._for_agent("FooBot")[0]
    assert peer.path_key(paths[0], "FooBot") == want.best(paths[0])
    assert getattr(peer, "_index", None) is None
    assert [peer.path_key(p, "FooBot") for p in paths[1:]] == [want.best(p) for p in paths[1:]]
    assert list(peer._matcher_of_selection) == ["foobot"]
