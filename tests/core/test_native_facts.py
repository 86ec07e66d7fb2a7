"""robotrules._kernel/facts.pxi: what the native kernel's answers are built from.

The pure peer is the declared reference: ``Maker(cls, field_slots(cls))(*values)`` must equal
``cls(*values)``; ``PathSet(forms).deciding(path)`` must equal
:func:`robotrules.aipref.usage.deciding` (attach-05 3.1: Content-Usage paths match "using the
same path prefix matching rules as defined for Allow and Disallow", the longest path decides,
identical lengths combine) on generated rules and paths; ``gather`` is the column lookup it
names. ``explain`` and ``usage`` take only plain values from the peer (issue 37: "the kernel
reads no facade state and calls nothing back to answer").
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import _peers, _robots
from robotrules._compile import _native_form
from robotrules._dialects import SPECS
from robotrules._model import Rule, Verdict, field_slots
from robotrules.aipref import parse_content_usage
from robotrules.aipref._paths import pattern
from robotrules.aipref.usage import Usage, deciding

pytestmark = pytest.mark.skipif(not robotrules.NATIVE, reason="native kernels not built")
native = _peers._native
_T = TypeVar("_T")

PIECES = ["/", "a", "b", "*", "$", "%41", "%2F", "%", "\u00e9", "?", "=", "x.html", "\udcff"]


def test_maker_builds_what_the_class_builds() -> None:
    assert native is not None
    make = native.Maker(Verdict, field_slots(Verdict))
    rule = Rule("allow", "/a", 3)
    values = (True, 3, rule, ("*",), "rule", "*", "/a", "rfc9309", "d")
    assert make(*values) == Verdict(*values)
    assert type(make(*values)) is Verdict
    with pytest.raises(TypeError):
        make(*values[:-1])  # every field given


def test_maker_refuses_what_is_not_an_object_slot_of_the_class() -> None:
    assert native is not None
    with pytest.raises(TypeError):
        native.Maker(Verdict, field_slots(Rule))  # another class' slots
    with pytest.raises(TypeError):
        native.Maker(Verdict, [Verdict.__dict__["detail"]])  # the property, not a slot
    with pytest.raises(TypeError):
        native.Maker(Verdict, [])
    with pytest.raises(TypeError):
        native.Maker(object(), field_slots(Verdict))  # type: ignore[arg-type]


def _path_text(rng: random.Random) -> str:
    return "/" + "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), dialect=st.sampled_from(["rfc9309", "google"]))
def test_pathset_decides_as_the_pure_precedence(seed: int, dialect: str) -> None:
    assert native is not None
    rng = random.Random(seed)
    rules = [parse_content_usage(
        (_path_text(rng) + " " if rng.random() < 0.8 else "") + "train-ai=n", line=i + 1)
        for i in range(rng.randint(1, 8))]
    ps = native.PathSet([None if s.path is None else _native_form(pattern(s.path, dialect))
                         for s in rules])
    spec = SPECS[dialect]
    paths = [spec.path(_path_text(rng)) for _ in range(20)]
    for path in paths:
        assert ps.deciding(path) == deciding(rules, path, dialect), path
    allowed = array("B", [rng.random() < 0.8 for _ in paths])
    classes, sets = ps.classify(paths, allowed)
    for i, path in enumerate(paths):
        if allowed[i]:
            assert sets[classes[i]] == deciding(rules, path, dialect)
        else:
            assert classes[i] == -1


def test_pathset_past_one_word_of_rules() -> None:
    """More than 64 rules: the tie set spans several 64-bit words."""
    assert native is not None
    rules = [parse_content_usage(f"/p{i % 3} train-ai=y", line=i + 1) for i in range(150)]
    ps = native.PathSet([_native_form(pattern(s.path or "", "rfc9309")) for s in rules])
    for path in ("/p0x", "/p1", "/p2/z", "/q"):
        assert ps.deciding(path) == deciding(rules, path, "rfc9309")


def test_gather() -> None:
    assert native is not None
    got = native.gather(array("l", [0, -1, 2, 1]), array("b", [1, 0, -1]))
    assert got == array("b", [1, -1, -1, 0])
    with pytest.raises(IndexError):
        native.gather(array("l", [3]), array("b", [1]))


def _profiled(run: Callable[[], _T]) -> tuple[_T, list[tuple[str, str]]]:
    """What ``run`` gives, and the Python frames (``py``) and C functions (``c``) it enters,
    in order (``sys.setprofile``; the lambda's own frame left out)."""
    import sys

    calls: list[tuple[str, str]] = []

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "call":
            calls.append(("py", frame.f_code.co_name))  # type: ignore[attr-defined]
        elif event == "c_call":
            calls.append(("c", getattr(arg, "__name__", "?")))

    sys.setprofile(profile)
    try:
        got = run()
    finally:
        sys.setprofile(None)
    return got, [c for c in calls if c != ("py", "<lambda>")]


def test_explain_and_usage_take_plain_values_from_the_peer() -> None:
    """Issue 37: "the kernel reads no facade state and calls nothing back to answer". The
    native peer's surface takes none of the facade's caches or callbacks: a warm ``explain``
    is one call of ``known_verdict`` with the URL and the agent, answered from the memo of
    the agent's selection the peer keeps (its facts kept by one call per key, the memo bound
    to the agent by one call), a warm ``usage`` one call of ``known_usage`` with the URL, the
    agent, the scope and the vocabulary (its answers kept by one call each), each running no
    Python frame but its own; ``explain`` and ``usage`` equal the pure peer's answers."""

    body = b"User-agent: *\nDisallow: /a\nContent-Usage: /b train-ai=n\n"
    rules = robotrules.parse(body)
    assert not hasattr(rules, "fact_memo")
    for name in ("verdict_of", "usage_of", "FactMemo"):
        assert not hasattr(native, name)
    pure = _robots.reference(body)
    for _ in range(2):  # cold, then warm
        v = rules.explain("/a/x")
        assert type(v) is Verdict
        assert v == pure.explain("/a/x")
        u = rules.usage("/b")
        assert type(u) is Usage
        assert u == pure.usage("/b")
        assert rules.usage("/b").categories is not u.categories  # each answer its own mapping
    plain_body = b"User-agent: *\nDisallow: /a\n"  # no preferences stated
    plain = robotrules.parse(plain_body)
    for url in ("/a/x", "/b"):  # cold (the memos filled), then warm
        plain.explain(url)
        plain.usage(url)
        plain.usage(url)
    (got, used), calls = _profiled(lambda: (
        plain.explain("/a/x"), (plain.usage("/a/x"), plain.usage("/b"))))
    # each answer: its own frame, then one call of the peer with the URL and the agent (the
    # peer finds the agent's memo)
    usage_calls = [("py", "usage"), ("c", "known_usage")]
    assert calls[:2] == [("py", "explain"), ("c", "known_verdict")]
    assert calls[2:] == usage_calls + usage_calls + [("c", "setprofile")]
    want = _robots.reference(plain_body)
    assert got == want.explain("/a/x")
    for url, u in zip(("/a/x", "/b"), used, strict=True):
        assert type(u) is Usage
        assert u == want.usage(url)
        assert u.verdict == want.explain(url)
        assert u.categories is not plain.usage(url).categories


def test_a_file_stating_preferences_answers_warm_from_the_peers_memo() -> None:
    """Issue 37's ratios are measured on real files, and files state AI preferences
    (Content-Usage, Content-Signal): their warm ``explain`` and ``usage`` are one call of the
    peer as well (the preferences' words kept as plain values in the verdict facts, not the
    file), with the same answers, sentence included, as the pure peer (attach-05 3.1: no
    preference attaches to a URL that may not be fetched; the allowed verdict's sentence
    names the preferences that apply)."""

    body = (b"User-agent: *\nDisallow: /a\nContent-Usage: /b train-ai=n\n"
            b"Content-Signal: search=yes, ai-train=no\n")
    rules = robotrules.parse(body)
    want = _robots.reference(body)
    urls = ("/a/x", "/b/y", "https://example.com/c")
    for _ in range(2):  # cold (the memos filled), then warm
        for url in urls:
            for agent in ("*", "FooBot", "Mozilla/5.0 (compatible; FooBot/2.1)"):
                assert rules.explain(url, user_agent=agent) == want.explain(
                    url, user_agent=agent)
                assert rules.usage(url, user_agent=agent) == want.usage(url, user_agent=agent)
    got, calls = _profiled(lambda: [
        (rules.explain(url, user_agent="FooBot"), rules.usage(url, user_agent="FooBot"))
        for url in urls])
    per_url = [("py", "explain"), ("c", "known_verdict"), ("py", "usage"),
               ("c", "known_usage")]
    # (CPython before 3.12 runs the list comprehension in a frame of its own: PEP 709)
    assert [c for c in calls if c != ("py", "<listcomp>")] == [*per_url * 3,
                                                               ("c", "setprofile")]
    for url, (v, u) in zip(urls, got, strict=True):
        assert v == want.explain(url, user_agent="FooBot")
        assert v.detail == want.explain(url, user_agent="FooBot").detail
        assert u == want.usage(url, user_agent="FooBot")
    assert "train-ai" in got[1][0].detail or "ai-train" in got[1][0].detail
