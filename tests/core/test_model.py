"""robotrules._model: the public values, and ``Verdict.detail`` written on first read.

Issue 20: "the kernel's decision returns the facts (verdict, deciding line, rule, the group
lines, reason); explain writes its prose only when the detail is read". A verdict must still
behave exactly as the frozen dataclass it is (fields, equality, ``hash``, ``repr``,
``to_dict``, pickling, ``dataclasses.replace``): each test holds a lazily written verdict to
the same verdict written at once. The sentences expected are the wording ``explain`` has
always given (README.md's explain example; RFC 9309 2.2.2 for the sections cited), on both
peers.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

import robotrules
from robotrules import _model, _robots
from robotrules._model import Verdict, field_slots

PEERS = {"parse": robotrules.parse, "reference": _robots.reference}
BODY = b"User-agent: *\nDisallow: /a\nAllow: /a/b\n\nUser-agent: FooBot\nDisallow: /\n"


def _raw_detail(v: Verdict) -> object:
    return _model._DETAIL.__get__(v, Verdict)


def _eager(v: Verdict) -> Verdict:
    """The same verdict with its sentence written at once (through the dataclass' own
    constructor)."""
    return Verdict(v.allowed, v.line, v.rule, v.agents, v.reason, v.user_agent, v.path,
                   v.dialect, str(v.detail))


@pytest.mark.parametrize("peer", PEERS)
@pytest.mark.parametrize(("url", "agent", "sentence"), [
    ("/a/x", "*", "line 2 'Disallow: /a' disallows it (the '*' group (line 1) applies)"),
    ("/a/b", "OtherBot", "line 3 'Allow: /a/b' allows it (no group names 'OtherBot', so the "
     "'*' group (line 1) applies)"),
    ("/z", "*", "the '*' group (line 1) applies; none of its 2 rule(s) matches '/z', so it is "
     "allowed (a path no rule matches is allowed, RFC 9309 2.2.2)"),
    ("/robots.txt", "FooBot", "/robots.txt is always allowed (RFC 9309 2.2.2)"),
])
def test_detail_read_late_is_the_sentence(peer: str, url: str, agent: str,
                                           sentence: str) -> None:
    v = PEERS[peer](BODY).explain(url, user_agent=agent)  # type: ignore[operator]
    assert v.detail == sentence
    assert _raw_detail(v) == sentence  # kept once written


def test_no_group_and_google_empty_rule_sentences() -> None:
    for make in PEERS.values():
        none = make(b"User-agent: FooBot\nDisallow: /\n").explain("/x")  # type: ignore[operator]
        assert none.detail == "no group applies to this user agent: everything is allowed"
        # compat(google): robots.cc reports the empty rule's line (matching_line())
        empty = make(b"User-agent: *\nDisallow:\n", "google").explain("/x")  # type: ignore[operator]
        assert empty.detail == ("the '*' group (line 1) applies; no rule with a pattern "
                                "matches '/x', and line 2 'Disallow:' is empty: it allows "
                                "everything (RFC 9309 2.2.2)")


def test_a_sentence_naming_the_path_waits_until_read() -> None:
    v = robotrules.parse(BODY).explain("/z")
    assert type(_raw_detail(v)) is tuple  # the facts, not yet the prose
    assert "'/z'" in v.detail
    assert type(_raw_detail(v)) is str


def test_preferences_join_the_sentence_when_read() -> None:
    body = b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n"
    for make in PEERS.values():
        v = make(body).explain("/p")  # type: ignore[operator]
        assert v.detail == ("line 2 'Allow: /' allows it (the '*' group (line 1) applies); "
                            "usage preferences train-ai=n (line 3)")


@pytest.mark.parametrize("url", ["/a/x", "/z", "/robots.txt"])
def test_lazy_verdict_behaves_as_the_eager_one(url: str) -> None:
    lazy = [robotrules.parse(BODY).explain(url) for _ in range(2)]
    eager = _eager(robotrules.parse(BODY).explain(url))
    assert lazy[0] == eager
    assert eager == lazy[1]
    assert hash(lazy[1]) == hash(eager)
    assert repr(robotrules.parse(BODY).explain(url)) == repr(eager)
    assert robotrules.parse(BODY).explain(url).to_dict() == eager.to_dict()
    for v in (robotrules.parse(BODY).explain(url), eager):
        back = pickle.loads(pickle.dumps(v))
        assert back == eager
        assert type(_raw_detail(back)) is str
        assert copy.deepcopy(v) == eager
    assert dataclasses.replace(robotrules.parse(BODY).explain(url), detail="d").detail == "d"
    assert dataclasses.asdict(robotrules.parse(BODY).explain(url))["detail"] == eager.detail
    with pytest.raises(dataclasses.FrozenInstanceError):
        robotrules.parse(BODY).explain(url).detail = "x"  # type: ignore[misc]


def test_field_slots_are_the_raw_slots_in_field_order() -> None:
    slots = field_slots(Verdict)
    assert [s.__name__ for s in slots] == [f.name for f in dataclasses.fields(Verdict)]
    assert slots[-1] is _model._DETAIL
    assert isinstance(Verdict.__dict__["detail"], property)


# Record.directive: the directive a line is, as the tokenizer classified its key (issue 21: "a
# Record carries its directive kind so no module re-normalises keys"). The expectation is the
# key classification's one home, robotrules._directives.classify_key (extensions read "_" and
# " " as "-"; ABNF strings such as RFC 9309's field names are case-insensitive, RFC 5234 2.3),
# in each dialect (lenient keys for google and rfc9309, exact ones for 1994).
SPELLINGS = ["Content-Usage", "Content_Usage", "content usage", "CONTENT-USAGE", "ContentUsage",
             "content_signal", "LLM_Policy", "Licence", "X-Whatever"]


@pytest.mark.parametrize("peer", PEERS)
@pytest.mark.parametrize("dialect", ["rfc9309", "google", "1994"])
@pytest.mark.parametrize("key", SPELLINGS)
def test_record_carries_the_directive_its_key_names(peer: str, dialect: str, key: str) -> None:
    from robotrules import _directives

    rules = PEERS[peer](f"{key}: v\nUser-agent: *\n{key}: w\n".encode(), dialect)  # type: ignore[arg-type]
    kind, _ = _directives.classify_key(key, dialect != "1994")
    expected = _directives.KIND_NAMES.get(kind)
    outside, = rules.records
    inside, = rules.groups[0].records
    assert (outside.directive, inside.directive) == (expected, expected)
    assert (outside.line, inside.line) == (1, 3)


def test_record_directive_stays_out_of_equality_and_repr() -> None:
    # the value as before (tests/core/test_api.py builds records without it)
    rec, = robotrules.parse(b"Content_Usage: train-ai=n\n").records
    assert rec.directive == "content-usage"
    assert rec.key == "Content_Usage"  # the key as written is kept
    assert rec == robotrules.Record("Content_Usage", "train-ai=n", 1)
    assert repr(rec) == repr(robotrules.Record("Content_Usage", "train-ai=n", 1))
    assert pickle.loads(pickle.dumps(rec)).directive == "content-usage"
