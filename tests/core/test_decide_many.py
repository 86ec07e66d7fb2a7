"""``RobotsTxt.decide_many`` and ``usage_many``: the batch answers, column by column.

Their contract (docs/architecture.md, the batch API) is equality with the per-URL answers:
entry ``i`` of ``decide_many(urls)`` equals ``explain(urls[i])`` field by field (allowed,
line, rule, reason, Google's empty-rule report included), and ``usage_many(urls)[key][i]``
equals ``usage(urls[i])[key]`` (``crawl`` for the crawl verdict). The per-URL answers are the
named source; both peers are checked (:func:`robotrules.parse`, native where built, and
:func:`robotrules._robots.reference`, the pure core), on the shared corpus and on generated
files.
"""

from __future__ import annotations

import random
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import REASONS, Decisions, _pure, _robots, _tokenize
from tests.conftest import SHARED
from tests.core.gen import QUERY_AGENTS, rand_body, rand_url

CORPUS = sorted(Path(SHARED, "corpus", "sites").glob("*.txt"))
DIALECTS = ("rfc9309", "google", "1994")
PEERS = {"parse": robotrules.parse, "reference": _robots.reference}
AIPREF_LINES = [
    "Content-Usage: train-ai=n", "Content-Usage: /docs/ train-ai=y, search=n",
    "Content-Usage: /a*b$ search=y", "Content-Signal: search=yes, ai-train=no",
    "Content-Signal: ai-input=yes", "Content-Usage: bogus",
]


def _agree(rules: robotrules.RobotsTxt, urls: list[str], agent: str) -> None:
    got = rules.decide_many(urls, user_agent=agent)
    assert isinstance(got, Decisions)
    assert len(got) == len(urls)
    assert (got.allowed.typecode, got.line.typecode, got.rule.typecode,
            got.reason.typecode) == ("B", "q", "q", "B")
    assert len(set(got.rules)) == len(got.rules)  # each rule once
    for i, url in enumerate(urls):
        v = rules.explain(url, user_agent=agent)
        assert bool(got.allowed[i]) == v.allowed, (url, agent)
        assert got.line[i] == (v.line or 0), (url, agent)
        assert got.rule_of(i) == v.rule, (url, agent)
        assert REASONS[got.reason[i]] == v.reason, (url, agent)
    cols = rules.usage_many(urls, user_agent=agent)
    assert set(cols) == set(_robots.usage_keys())
    for col in cols.values():
        assert col.typecode == "b"
        assert len(col) == len(urls)
    for i, url in enumerate(urls):
        u = rules.usage(url, user_agent=agent)
        assert cols["crawl"][i] == int(u.crawl), (url, agent)
        for key in cols:
            if key != "crawl":
                want = u[key]
                assert cols[key][i] == (-1 if want is None else int(want)), (url, agent, key)


def _body(rng: random.Random) -> bytes:
    lines = rand_body(rng).split("\n")
    for _ in range(rng.randint(0, 3)):
        lines.insert(rng.randint(0, len(lines)), rng.choice(AIPREF_LINES))
    return "\n".join(lines).encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("peer", PEERS)
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(seed=st.integers(0, 2**32))
def test_generated_files_agree_with_explain_and_usage(peer: str, seed: int) -> None:
    rng = random.Random(seed)
    body = _body(rng)
    urls = [rand_url(rng) for _ in range(10)] + ["/robots.txt", "/docs/x", "/aXb"]
    for dialect in DIALECTS:
        rules = PEERS[peer](body, dialect)  # type: ignore[operator]
        for agent in QUERY_AGENTS[:5]:
            _agree(rules, urls, agent)


@pytest.mark.parametrize("peer", PEERS)
def test_corpus_agrees_with_explain_and_usage(peer: str) -> None:
    assert CORPUS, f"the shared corpus is missing at {SHARED}"
    rng = random.Random(20)
    for f in CORPUS[::25]:
        body = f.read_bytes()
        for dialect in DIALECTS:
            rules = PEERS[peer](body, dialect)  # type: ignore[operator]
            patterns = [r.pattern for g in rules.groups for r in g.rules][:20]
            urls = ["/", "/robots.txt", *(p.replace("*", "x").rstrip("$") or "/"
                                          for p in patterns)]
            urls += [rand_url(rng) for _ in range(5)]
            for agent in ("*", "Googlebot", "GPTBot"):
                _agree(rules, urls, agent)


def _buffer_columns(rules: robotrules.RobotsTxt, urls: list[str], agent: str, base: int
                    ) -> tuple[tuple[array[int], ...], tuple[robotrules.Rule, ...]]:
    """``decide_buffers`` on Arrow's layout of ``urls`` (int64 offsets, the rows reversed)."""
    encoded = [u.encode("utf-8", "surrogatepass") for u in urls]
    offsets = array("q", [0])
    for u in encoded:
        offsets.append(offsets[-1] + len(u))
    rows = array("q", reversed(range(len(urls))))
    out = (array("B", [9]) * len(urls), array("i", [9]) * len(urls),
           array("i", [9]) * len(urls), array("B", [9]) * len(urls))
    return out, rules.decide_buffers(offsets, b"".join(encoded), rows, out, user_agent=agent,
                                     base=base)


@pytest.mark.parametrize("peer", PEERS)
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(seed=st.integers(0, 2**32))
def test_decide_buffers_equals_decide_many(peer: str, seed: int) -> None:
    # its docstring: decide_many over an Arrow string array's buffers, the rule numbered
    # from base; decide_many (held to explain above) is the named source
    rng = random.Random(seed)
    body = _body(rng)
    urls = [rand_url(rng) for _ in range(10)] + ["/robots.txt", "/docs/x", "/aXb"]
    base = rng.randint(0, 5)
    for dialect in DIALECTS:
        rules = PEERS[peer](body, dialect)  # type: ignore[operator]
        for agent in QUERY_AGENTS[:4]:
            want = rules.decide_many(urls, user_agent=agent)
            (allowed, line, rule, reason), numbered = _buffer_columns(rules, urls, agent, base)
            assert list(allowed) == list(want.allowed), agent
            assert list(line) == list(want.line), agent
            assert list(reason) == list(want.reason), agent
            for i in range(len(urls)):
                got = None if rule[i] < 0 else numbered[rule[i] - base]
                assert got == want.rule_of(i), (urls[i], agent)


def test_google_empty_rule_report() -> None:
    """robots.cc reports an empty rule's line though it decides nothing (explain's case)."""
    for peer in PEERS.values():
        rules = peer(b"User-agent: *\nDisallow:\nAllow: /x$\n", "google")  # type: ignore[operator]
        got = rules.decide_many(["/a", "/x"])
        assert list(got.line) == [2, 3]
        assert [got.reason_of(i) for i in range(2)] == ["rule", "rule"]
        assert got.rules[got.rule[0]].pattern == ""


def _scan_empty(rules: robotrules.RobotsTxt) -> bool:
    """The directive stream's own answer: an Allow or Disallow with an empty value."""
    d = rules.directives
    kinds = (_tokenize.ALLOW, _tokenize.DISALLOW)
    return any(d[i + 2] == 0 and d[i] >> _tokenize.KIND_SHIFT in kinds
               for i in range(0, len(d), 3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.text(st.sampled_from("AaLlOoWwDdIiSs:# \t\n\r\x0b\x0c\x00\x85\x1c/x"),
                    max_size=60),
       dialect=st.sampled_from(["rfc9309", "google", "1994"]))
def test_a_body_without_a_bare_colon_has_no_empty_rule(body: str, dialect: str) -> None:
    """_robots._has_empty_rule skips the directive stream where no ':' is followed only by
    white space to its line's end (_MAYBE_EMPTY); the stream itself (robotrules._tokenize,
    the one reading of a line) is the source: the skip is never taken where it has one."""
    for make in (robotrules.parse, _robots.reference):
        rules = make(body, dialect)
        assert rules._has_empty_rule() == _scan_empty(rules), repr(body)


def test_the_corpus_empty_rules_are_found_whatever_the_skip() -> None:
    # every file of the shared corpus (real robots.txt): the directive stream is the source
    for path in CORPUS:
        rules = robotrules.parse(path.read_bytes())
        assert rules._has_empty_rule() == _scan_empty(rules), path.name


def test_a_files_empty_rules_are_looked_for_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fact is the file's: with many agents (the dataset's 197), their first batch calls
    look for it once (data3's note on issue 40: 197 scans where one would do)."""
    looked: list[bytes] = []
    real = _robots._MAYBE_EMPTY

    class Counting:
        def search(self, body: bytes) -> object:
            looked.append(body)
            return real.search(body)

    monkeypatch.setattr(_robots, "_MAYBE_EMPTY", Counting())
    for make in (robotrules.parse, _robots.reference):
        looked.clear()
        rules = make(b"User-agent: a\nDisallow:\n\nUser-agent: *\nDisallow: /x\n")
        for agent in ("a", "b", "c", "d", "*"):
            rules.decide_many(["/x", "/y"], user_agent=agent)
        assert len(looked) == 1


def test_first_call_without_a_selection_agrees_with_explain() -> None:
    """A file's first ``decide_many`` for an agent, before any other query (no kept
    selection: the peer's own choice of groups), equals ``explain`` (the named source) where
    no group applies (RFC 9309 2.2.1: no matching group and no ``*`` group, nothing
    disallowed), where no rule matches in a file without an empty value, and where an empty
    rule of the agent's group or of another group is in the file (robots.cc reports the
    first empty Allow, else Disallow, of the groups that apply); a file without an empty
    value keeps no selection for the batch answer."""
    bodies = [b"User-agent: a\nDisallow: /x\n",
              b"User-agent: *\nDisallow: /x\n",
              b"User-agent: b\nDisallow:\n\nUser-agent: *\nDisallow: /x\n",
              b"User-agent: *\nDisallow: /x\nAllow:\nDisallow:\n"]
    urls = ["/", "/x", "/y", "/robots.txt"]
    dialects: tuple[robotrules.Dialect, ...] = ("rfc9309", "google", "1994")
    for body in bodies:
        for dialect in dialects:
            for make in (robotrules.parse, _robots.reference):
                for agent in ("*", "a", "b", "zz"):
                    rules = make(body, dialect)
                    got = rules.decide_many(urls, user_agent=agent)
                    if b":\n" not in body:
                        kept = getattr(rules, "_kept_", None)
                        assert kept is None or agent not in kept.selection_of_agent
                    for i, url in enumerate(urls):
                        v = rules.explain(url, user_agent=agent)
                        assert got.line[i] == (v.line or 0), (body, dialect, agent, url)
                        assert got.rule_of(i) == v.rule, (body, dialect, agent, url)
                        assert REASONS[got.reason[i]] == v.reason, (body, dialect, agent, url)
                        assert bool(got.allowed[i]) == v.allowed, (body, dialect, agent, url)


def test_peers_give_equal_columns() -> None:
    rng = random.Random(7)
    for _ in range(20):
        body = _body(rng)
        urls = [rand_url(rng) for _ in range(15)]
        for dialect in DIALECTS:
            a = robotrules.parse(body, dialect)
            b = _robots.reference(body, dialect)
            for agent in QUERY_AGENTS[:4]:
                assert a.decide_many(urls, user_agent=agent) == b.decide_many(
                    urls, user_agent=agent)
                assert a.usage_many(urls, user_agent=agent) == b.usage_many(
                    urls, user_agent=agent)


def test_arguments_are_checked() -> None:
    rules = robotrules.parse(b"User-agent: *\nDisallow: /a\n")
    for bad in ("/a", b"/a", None, 3, ["/a", None], [b"/a"]):
        with pytest.raises(TypeError):
            rules.decide_many(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            rules.usage_many(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rules.decide_many(["/a"], user_agent=None)  # type: ignore[arg-type]
    empty = rules.decide_many([])
    assert len(empty) == 0
    assert empty.rules == ()
    assert rules.decide_many(("/a", "/b")).allowed == array("B", [0, 1])


def test_reason_indexes_are_the_model_order() -> None:
    """``Decisions.reason`` indexes ``REASONS``: the facade's table agrees with it."""
    assert {r: i for i, r in enumerate(REASONS)} == _robots._REASON_INDEX
    # and the peers' own (the native peer's are held to the pure's by tests/core/test_peers.py)
    assert REASONS.index("rule") == _pure._REASON_RULE
    assert REASONS.index("robots-txt") == _pure._REASON_ROBOTS_TXT


def test_more_distinct_rules_than_the_facts_kept_per_agent() -> None:
    """More deciding rules in one call than the facts a file keeps per agent
    (``_robots._SAID_MAX``): every entry still equals ``explain`` (the named source), on
    both peers."""
    n = _robots._SAID_MAX + 500
    body = b"User-agent: *\n" + b"".join(b"Disallow: /p%d/\n" % i for i in range(n))
    urls = [f"/p{i}/x" for i in range(n)] + ["/elsewhere", "/robots.txt"]
    for make in PEERS.values():
        rules = make(body)  # type: ignore[operator]
        got = rules.decide_many(urls)
        assert len(got.rules) == n
        for i in (0, n // 2, n - 1, n, n + 1):
            v = rules.explain(urls[i])
            assert got.rule_of(i) == v.rule
            assert REASONS[got.reason[i]] == v.reason
            assert bool(got.allowed[i]) == v.allowed


def test_memo_overflows_inside_one_call_and_stays_bounded() -> None:
    """A selection whose kept facts overflow inside one call (``_robots._SAID_MAX``): every
    entry equals ``explain`` (the named source), call after call, and neither memo of the
    agent grows past the bound, on both peers."""
    n = _robots._SAID_MAX + 300
    body = b"User-agent: *\n" + b"".join(b"Allow: /p%d/\n" % i for i in range(n))
    urls = [f"/p{i}/x" for i in reversed(range(n))]
    urls += ["/robots.txt", "/p0/x"]
    for make in PEERS.values():
        rules = make(body)  # type: ignore[operator]
        for _ in range(2):
            got = rules.decide_many(urls)
            for i in (0, 1, n // 2, n - 1, n, n + 1):
                v = rules.explain(urls[i])
                assert got.rule_of(i) == v.rule
                assert got.line[i] == (v.line or 0)
                assert REASONS[got.reason[i]] == v.reason
                assert bool(got.allowed[i]) == v.allowed
            sel = rules._kept().selection_of_agent["*"]
            assert len(sel.facts) <= _robots._SAID_MAX


def test_duplicates_subclasses_and_sequences() -> None:
    """Entry ``i`` equals ``explain(urls[i])`` for repeated URLs, ``str`` subclasses, and any
    sequence of URLs (tuple, ``UserList``), on both peers, cold and warm."""
    from collections import UserList

    class Url(str):
        pass

    body = b"User-agent: *\nDisallow: /a\nAllow: /a/b\n\nUser-agent: bot\nDisallow: /\n"
    urls = ["/a", "/a/b", "/c", "/a", "/robots.txt", "/a/b", "/a"]
    for make in PEERS.values():
        for agent in ("*", "bot", Url("bot")):
            want = make(body).decide_many(urls, user_agent=agent)  # type: ignore[operator]
            rules = make(body)  # type: ignore[operator]
            for seq in ([Url(u) for u in urls], tuple(urls), UserList(urls), urls):
                got = rules.decide_many(seq, user_agent=agent)
                assert got == want
            _agree(rules, [Url(u) for u in urls], agent)


@pytest.mark.skipif(not robotrules.NATIVE, reason="native kernels not built")
def test_the_batch_runs_no_python_frame_per_url() -> None:
    """Issue 20: "A batch API answers many URLs for one file and agent without a Python frame
    per URL"; issue 37: the kernel "calls nothing back to answer". On the native peer
    ``decide_many`` is one call of the kernel's ``decide_urls``, which runs no Python frame
    at all, cold or warm; the facade's frames around it (the rules named, each once) are as
    many for 200 URLs as for 5."""
    import sys

    from robotrules import _peers

    body = b"User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /c$\n"
    few = ["/a", "/a/b", "/c", "/d", "/robots.txt"]
    frames: list[str] = []

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "call":
            frames.append(frame.f_code.co_name)  # type: ignore[attr-defined]

    def run(call: object, *args: object) -> list[str]:
        frames.clear()
        sys.setprofile(profile)
        try:
            call(*args)  # type: ignore[operator]
        finally:
            sys.setprofile(None)
        return list(frames)

    doc = _peers.NativePeer(body, "rfc9309", None)  # type: ignore[misc]
    doc.directives  # noqa: B018 - the directive stream, made (the pure tokenizer's tables)
    for _ in range(2):  # cold, then warm
        assert run(doc.decide_urls, few * 40, "*", (-1, 1)) == []
    rules = robotrules.parse(body)
    assert type(rules).decide_urls is _peers.NativePeer.decide_urls  # type: ignore[union-attr]
    rules.explain("/x")  # the agent's selection and the model's makers, made
    rules.decide_many(few)  # and the rules
    warm = run(rules.decide_many, few)
    assert warm.count("decide_many") == 1
    assert run(rules.decide_many, few * 40) == warm
    assert rules.decide_many(few * 40) == _robots.reference(body).decide_many(few * 40)
