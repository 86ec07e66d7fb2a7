"""Hypothesis properties of combining and parsing (vocab-07 "Combining Preferences",
"Processing Algorithm", "Multiple Preferences"; attach-05 §3.1)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from robotrules import aipref, parse

CATS = st.sampled_from(["train-ai", "search", "ai-train", "ai-input", "x"])
TRI = st.sampled_from([True, False, None])
PREFS = st.dictionaries(CATS, TRI, max_size=5)


@given(st.lists(PREFS, max_size=6))
def test_combine_is_most_restrictive(statements: list[dict[str, bool | None]]) -> None:
    """Any n => n; else any y => y; else unknown."""
    out = aipref.combine(*statements)
    for cat in {c for s in statements for c in s}:
        values = [s[cat] for s in statements if cat in s]
        want = False if False in values else True if True in values else None
        assert out[cat] is want


@given(PREFS, PREFS, PREFS)
def test_combine_is_commutative_associative_idempotent(a: dict[str, bool | None],
                                                       b: dict[str, bool | None],
                                                       c: dict[str, bool | None]) -> None:
    assert aipref.combine(a, b) == aipref.combine(b, a)
    assert aipref.combine(aipref.combine(a, b), c) == aipref.combine(a, aipref.combine(b, c))
    assert aipref.combine(a, a) == aipref.combine(a)


@given(PREFS, PREFS)
def test_adding_a_statement_never_loosens(a: dict[str, bool | None],
                                          b: dict[str, bool | None]) -> None:
    """A further statement can only keep or tighten a stated n."""
    before = aipref.combine(a)
    after = aipref.combine(a, b)
    for cat, v in before.items():
        if v is False:
            assert after[cat] is False


KEY = st.from_regex(r"[a-zA-Z*][a-zA-Z0-9_.*-]{0,8}", fullmatch=True)
VAL = st.sampled_from(["y", "n", "yes", '"n"', "?1", "1", "y;p=1", "n;q"])
DICT = st.lists(st.tuples(KEY, VAL), max_size=5).map(
    lambda kvs: ", ".join(f"{k}={v}" for k, v in kvs))


@given(DICT)
def test_uppercase_key_means_everything_unknown(pref: str) -> None:
    """vocab "Multiple Preferences": a parse failure (e.g. an uppercase key) makes every
    preference unknown."""
    s = aipref.parse_content_usage(pref)
    if any(c.isupper() for c in pref.split("=")[0]) or any(
            part.strip()[:1].isupper() for part in pref.split(",")):
        assert s.prefs == ()
        assert s.error is not None
    if s.error is not None:
        assert s.prefs == ()


# keys RFC 9651 3.2 accepts (lcalpha or "*", then lcalpha, digits, "_-.*"), the two categories
# drawn often so that duplicates are common, and values that are all valid Items
VALID_KEY = st.one_of(st.sampled_from(["train-ai", "search"]),
                      st.from_regex(r"[a-z*][a-z0-9_.*-]{0,8}", fullmatch=True))
VALID_DICT = st.lists(st.tuples(VALID_KEY, VAL), min_size=1, max_size=6).map(
    lambda kvs: ", ".join(f"{k}={v}" for k, v in kvs))


@given(VALID_DICT)
def test_last_duplicate_wins(pref: str) -> None:
    """RFC 9651 4.2.2 (vocab "Multiple Preferences"): only the last value of a key applies."""
    s = aipref.parse_content_usage(pref)
    assert s.error is None, pref  # every member generated is a valid Dictionary member
    last: dict[str, str] = {}
    for part in pref.split(", "):
        k, _, v = part.partition("=")
        last[k] = v.split(";")[0]
    for cat in ("train-ai", "search"):
        want = (True if last[cat] == "y" else False if last[cat] == "n" else None
                ) if cat in last else None
        assert s.get(cat) is want


@settings(max_examples=60)
@given(st.text(max_size=120), st.text(max_size=30))
def test_any_file_any_url_gives_an_answer(body: str, path: str) -> None:
    """The parser is total (STYLE.md 3): usage() never raises; disallowed => nothing applies;
    crawl is what is_allowed says."""
    rules = parse("User-agent: *\n" + body)
    url = "/" + path
    for scope in ("group", "file"):
        u = rules.usage(url, user_agent="bot", content_signal_scope=scope)  # type: ignore[arg-type]
        assert u.crawl == rules.is_allowed(url, user_agent="bot")
        if not u.crawl:
            assert u.statements == ()
            assert u.lines == ()
        assert list(u.lines) == sorted(u.lines)
    aipref.lint_findings(rules)


@given(st.binary(max_size=200))
def test_tdmrep_total(body: bytes) -> None:
    rep = aipref.parse_tdmrep(body)
    rep.evaluate("/x")
