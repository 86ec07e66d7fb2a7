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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robotrules import _compile, _match, _pure, _token
from robotrules._compile import (
    compile_groups,
    scan_groups,
    scan_spans,
    select,
    selection_lines,
    selection_spans,
)
from robotrules._dialects import SPECS
from robotrules._tokenize import MAX_LINE
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


@pytest.mark.parametrize("dialect", DIALECTS)
def test_scan_reads_a_rule_whose_first_six_bytes_may_still_match(dialect: str) -> None:
    """Where a rule's first two bytes are the path's, scan_rules passes it over on its first
    six only where the dialect reads them as they are: ``/se%61rch`` (RFC 9309 2.2.2: an
    escaped unreserved octet is compared decoded), ``/se*ch`` and ``/sea$`` (a star or an
    end mark inside the six) and Google's ``Allow: /sear/index.html`` (robots.cc HandleAllow:
    its ``/sear/$`` decides ``/sear/``) are read; the reference is the compiled matcher."""
    body = "\n".join(["User-agent: *", "Disallow: /se%61rch", "Disallow: /se*ch",
                      "Disallow: /sea$", "Allow: /sear/index.html", "Disallow: /sear",
                      "Disallow: /seasons", "Allow: /search/x", "Disallow: /se", ""])
    paths = ["/search", "/sea", "/sear/", "/search/x", "/seasons/1", "/seach", "/se", "/s"]
    _keys_agree(body, dialect, ["*"], paths)


_ODD_KEYS = ["Disallow", "disallow", "DISALLOW", "Allow", "allow", " Disallow", "Disallow\t",
             "dissallow", "Allowed"]
_ODD_SEPS = [": ", ":", ":  ", ":\t", " : ", " "]
_ATOMS = ["/", "s", "se", "sea", "search", "x", "*", "$", "%73", "%2A", "%", "\u00e9", "?",
          "=", "index.html", " ", "#c", "a", "se*", "sea%72", "sear$", "/sea"]


@st.composite
def _large_selection(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A file of a '*' group and a named one, 300 to 340 rules each (past _SCAN_MIN), whose
    values open like the paths asked (``/se...``) with escapes, stars, end marks, non-ASCII,
    empty values, Google's companion trigger, keys of odd case and spacing (hypothesis draws
    the shapes and a seed; the lines come from the seed, as drawing each is slow)."""
    rng = random.Random(draw(st.integers(0, 1 << 32)))
    atoms = draw(st.lists(st.sampled_from(_ATOMS), min_size=2, max_size=len(_ATOMS),
                          unique=True))
    lines = []
    for agent in ("*", "FooBot"):
        lines.append(f"User-agent: {agent}")
        for _ in range(rng.randint(300, 340)):
            value = "/" * (rng.random() < 0.8) + "".join(
                rng.choice(atoms) for _ in range(rng.randint(0, 5)))
            lines.append(rng.choice(_ODD_KEYS) + rng.choice(_ODD_SEPS) + value)
    paths = ["/" + "".join(rng.choice(["s", "e", "a", "sea", "rch", "/", "x", "%73", "\u00e9", "$"])
                           for _ in range(rng.randint(0, 6))) for _ in range(4)]
    return "\n".join(lines) + "\n", paths


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_large_selection(), st.sampled_from(["rfc9309", "google"]),
       st.sampled_from(["FooBot", "OtherBot"]))
def test_a_large_selections_first_query_is_the_compiled_answer(
        case: tuple[str, list[str]], dialect: str, agent: str) -> None:
    """Differential: a large file's first query (selection_spans, then scan_rules over the
    directive ranges) gives for each path what the compiled matcher of the same selection
    gives (the reference: RFC 9309 2.2.2's longest match, Allow on a tie; Google's
    companion rule), on generated selections whose values share the paths' first bytes."""
    body, paths = case
    data = body.encode("utf-8")
    want = _pure.PurePeer(data, dialect, None)._for_agent(agent)[0]  # type: ignore[arg-type]
    for path in paths:
        path = SPECS[dialect].path(path)  # type: ignore[index]
        peer = _pure.PurePeer(data, dialect, None)  # type: ignore[arg-type]
        assert peer.path_key(path, agent) == want.best(path), (dialect, agent, path)
        assert getattr(peer, "_index", None) is None  # (the first query read the spans)


# what scan_spans sifts on: a value's first two bytes (a star, an escape, an end mark, non-ASCII
# or the path's own), the two after a leading star, its length, Google's companion trigger
_SIFT_HEADS = ["", "/", "*", "/*", "**", "/**", "*%", "/*%", "/$", "$", "/%2A", "%73", "/\u00e9",
               "\u00e9", "/s", "/se", "/*/", "*.", "/a", "/*$", "* ", "/*\t", "/ ", "/\t"]
_SIFT_ATOMS = ["s", "e", "a", "r", "ch", "x", "/", ".", "?", "=", "*", "$", "%41", "%73",
               "\u00e9", " ", "\t", "/index.html", "index.htm", "se", "ea", "q", "\u00ff"]
_SIFT_PATH = ["s", "e", "a", "r", "ch", "x", "/", ".", "?", "=", "sea", "%73", "\u00e9", "\u00ff",
              "\u30c4", " ", "*", "$", "index.html", "q"]


@st.composite
def _sifted_selection(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A file whose FooBot groups (two, so their selection is two directive ranges) and '*'
    group hold 300 to 360 rules: values that open with a star, an escape, an end mark,
    non-ASCII or the paths' first bytes, a star followed by two bytes the path may or may not
    hold, one or two bytes long, Google's companion trigger, other directives between rules,
    and lines past Google's 16,663-byte cut whose value ends at the cut (the next byte is not
    white space), values of 256 bytes or more; with paths of 0 to 8 atoms (empty, ending in
    '/', characters past Latin-1) and long ones."""
    rng = random.Random(draw(st.integers(0, 1 << 32)))
    heads = draw(st.lists(st.sampled_from(_SIFT_HEADS), min_size=2, max_size=len(_SIFT_HEADS),
                          unique=True))
    atoms = draw(st.lists(st.sampled_from(_SIFT_ATOMS), min_size=2, max_size=len(_SIFT_ATOMS),
                          unique=True))
    lines = []
    for agent in ("FooBot", "*", "FooBot"):
        lines.append(f"User-agent: {agent}")
        for _ in range(rng.randint(150, 180)):
            value = rng.choice(heads) + "".join(
                rng.choice(atoms) for _ in range(rng.randint(0, 4)))
            key = rng.choice(["Allow", "Disallow", "allow", "Disallow", "Sitemap"])
            r = rng.random()
            if r < 0.03:  # 256 bytes or more: a length whose low byte is small
                value = "/s" + "e" * rng.choice([254, 255, 510]) + rng.choice(["", "*", "$"])
            if 0.03 <= r < 0.05 and value:  # the value ends at the cut ("zz" is not read)
                lines.append(key + ":" + " " * (MAX_LINE - len(key) - 1 - len(value))
                             + value + "zz")
            else:
                lines.append(key + rng.choice(_ODD_SEPS) + value
                             + rng.choice(["", "", " ", "\t# c", "#x"]))
    paths = ["".join(rng.choice(_SIFT_PATH) for _ in range(rng.randint(0, 8)))
             for _ in range(6)]
    paths = [("/" if rng.random() < 0.8 else "") + p + ("/" if rng.random() < 0.3 else "")
             for p in paths] + ["/s" + "e" * rng.choice([254, 255, 300, 520])]
    return "\n".join(lines) + "\n", paths


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sifted_selection(), st.sampled_from(["rfc9309", "google"]),
       st.sampled_from(["FooBot", "OtherBot"]))
def test_the_sifted_scan_is_the_compiled_answer(case: tuple[str, list[str]], dialect: str,
                                                agent: str) -> None:
    """Differential: scan_spans, which reads only the rules that C-level passes over the
    selection's first bytes leave (its literal prefix can still be the path's, a star's next
    two bytes occur in the path, or Google's companion may apply), gives for each path, as
    written and as the dialect reads it, the key the compiled matcher of the same selection
    gives (the reference: RFC 9309 2.2.2's longest match, Allow on a tie, the earliest line;
    robots.cc's companion ``/x/$`` of ``Allow: /x/index.html``)."""
    body, paths = case
    data = body.encode("utf-8")
    want = _pure.PurePeer(data, dialect, None)._for_agent(agent)[0]  # type: ignore[arg-type]
    peer = _pure.PurePeer(data, dialect, None)  # type: ignore[arg-type]
    found = selection_spans(peer._text, peer._dirs, dialect,  # type: ignore[arg-type]
                            _token.query_key(agent))
    assert found is not None
    _, spans, tags = found
    assert len(spans) == (2 if agent == "FooBot" else 1)
    for path in paths + [SPECS[dialect].path(p) for p in paths]:  # type: ignore[index]
        got = scan_spans(spans, tags, peer._dirs, peer._text, dialect, path)  # type: ignore[arg-type]
        assert got == want.best(path), (dialect, agent, path)


def _sifted(body: str, dialect: str, path: str) -> int:
    """scan_spans' key for ``path`` over the '*' group of ``body`` (and the compiled one)."""
    peer = _pure.PurePeer(body.encode("utf-8"), dialect, None)  # type: ignore[arg-type]
    found = selection_spans(peer._text, peer._dirs, dialect, "bot")  # type: ignore[arg-type]
    assert found is not None
    _, spans, tags = found
    got = scan_spans(spans, tags, peer._dirs, peer._text, dialect, path)  # type: ignore[arg-type]
    assert got == _pure.PurePeer(body.encode("utf-8"), dialect,  # type: ignore[arg-type]
                                 None)._for_agent("bot")[0].best(path)
    return got


_BOTH = ("rfc9309", "google")


@pytest.mark.parametrize(("rule", "path", "dialects"), [
    ("/*a", "/xa", _BOTH), ("*a", "/xa", _BOTH), ("/*ab", "/xab", _BOTH),
    ("*ab", "/xab", _BOTH), ("/*a$", "/xa", _BOTH), ("/s", "/search", _BOTH), ("/", "/x", _BOTH),
    ("/sea$", "/sea", _BOTH), ("/se*ch", "/search", _BOTH),
    ("/s" + "e" * 254, "/s" + "e" * 300, _BOTH), ("/s" + "e" * 510, "/s" + "e" * 510, _BOTH),
    ("/se%61rch", "/search", ("rfc9309",)), ("/sea%72ch", "/search", ("rfc9309",)),
    ("/*%61b", "/xab", ("rfc9309",)), ("/se%61rch", "/se%61rch", ("google",))],
    ids=lambda v: (v if len(v) < 24 else f"{v[:4]}...{len(v)}B") if isinstance(v, str) else "-")
def test_the_sifted_scan_reads_the_rule_that_decides(rule: str, path: str,
                                                     dialects: tuple[str, ...]) -> None:
    """Each rule here is the only one of 200 that matches its path (RFC 9309 2.2.3: "*"
    matches any run of characters and a final "$" ends the path; 2.2.2: octets are compared
    after decoding the escapes of unreserved characters, where Google's matcher compares
    them as written, robots.cc MaybeEscapePattern; a longer rule is no different):
    scan_spans keeps it whatever sifts it (a star run of one or two bytes, the value's end
    right after it, an escape or a star among its first bytes, 256 or 512 bytes long),
    and its key, the compiled matcher's, names it."""
    body = "User-agent: bot\n" + "".join(f"Disallow: /zz{i}\n" for i in range(200)) + (
        f"Disallow: {rule}\n")
    for dialect in dialects:
        key = _sifted(body, dialect, path)
        assert key & _match.INDEX_MASK == 201  # the rule's directive (the agent's is 0)


@pytest.mark.parametrize("dialect", ["rfc9309", "google"])
def test_the_companion_needs_its_trigger_as_written(dialect: str) -> None:
    """robots.cc HandleAllow derives ``/a/$`` from ``Allow: /a/index.html`` on the value as
    written (MaybeEscapePattern decodes nothing), and the native kernel reads the trigger so
    (robotrules._compile.may_have_companion): ``/a/ind%65x.html`` has no companion in either
    dialect, in the compiled matcher and the scan alike, so ``/a/`` stays disallowed."""
    pad = "".join(f"Disallow: /zz{i}\n" for i in range(200))
    for allow, allowed in (("/a/index.html", True), ("/a/ind%65x.html", False),
                           ("/a/index%2Ehtml", False)):
        body = f"User-agent: bot\nDisallow: /\n{pad}Allow: {allow}\n"
        key = _sifted(body, dialect, "/a/")
        assert _match.key_allows(key) is allowed, allow
