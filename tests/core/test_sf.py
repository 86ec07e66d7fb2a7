"""robotrules._sf: the project's one Structured Fields parse (RFC 9651, through http-sf).

Issue 21: "the Structured Fields dictionary parsed twice" (aipref's Content-Usage reader and the
guard's Web Bot Auth reader each called http-sf their own way). Every expectation here is a
sentence of RFC 9651 or of vocab-07 "Processing Algorithm", which leans on it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import _sf
from robotrules.aipref import content_usage
from robotrules.guard import webbotauth


def test_dictionary_members_and_parameters() -> None:
    """RFC 9651 3.2: a Dictionary maps keys to Items or Inner Lists, each with parameters;
    :func:`_sf.bare` drops the parameters (vocab-07: "parameters MUST be ignored")."""
    d = _sf.parse_dictionary("train-ai=n;why=1, search=y, x=(a b)")
    assert d.error is None
    assert d.members is not None
    assert _sf.token(_sf.bare(d.members["train-ai"])) == "n"
    assert _sf.token(_sf.bare(d.members["search"])) == "y"
    assert isinstance(_sf.bare(d.members["x"]), list)


def test_last_duplicate_wins_and_is_reported() -> None:
    """RFC 9651 4.2.2: "If dictionary already contains a key ... overwrite its value"."""
    d = _sf.parse_dictionary("train-ai=y, train-ai=n")
    assert d.members is not None
    assert _sf.token(_sf.bare(d.members["train-ai"])) == "n"
    assert d.duplicates == ("train-ai",)


@pytest.mark.parametrize("text", ["Train-AI=n", "train-ai=n,", "a=\"x", "é=y", "a=\u20ac",
                                  "a=\udce9", "a=y;", "=y"])
def test_failure_is_a_value(text: str) -> None:
    """RFC 9651 4.2: a parser "MUST fail" on the whole field (an upper-case key, a trailing
    comma, a non-ASCII character); here the failure is a value with a reason, never an
    exception."""
    d = _sf.parse_dictionary(text)
    assert d.members is None
    assert d.error


def test_token_only_for_tokens() -> None:
    """vocab-07 "Preference Labels": only the Tokens y / n count; "n" (a String), 1 (an
    Integer) and ?1 (a Boolean) are other types."""
    d = _sf.parse_dictionary('a="n", b=1, c=?1, d=yes')
    assert d.members is not None
    assert [_sf.token(_sf.bare(d.members[k])) for k in "abcd"] == [None, None, None, "yes"]


def test_item() -> None:
    """RFC 9651 3.3: an Item is a bare value with parameters (a Signature-Agent sf-string)."""
    assert _sf.parse_item('"https://agent.example"') == ("https://agent.example", {})
    assert _sf.parse_item("not an item,") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_never_raises(text: str) -> None:
    """Bad input is normal input: any text gives members or an error, never an exception."""
    d = _sf.parse_dictionary(text)
    assert (d.members is None) is (d.error is not None)
    _sf.parse_item(text)


def test_readers_share_the_parse() -> None:
    """One parse serves every reader: aipref's preference reader and the guard's Web Bot Auth
    reader both answer from it (same members, same failures)."""
    assert content_usage.raw_token("train-ai=n;x=1", "train-ai") == "n"
    assert content_usage.parse_preference("Train-AI=n")[2] == \
        _sf.parse_dictionary("Train-AI=n").error
    assert webbotauth.parse_signature_agent('sig1="https://a.example"', "sig1") == \
        "https://a.example"
    assert webbotauth.parse_signature_agent("sig1=", "sig1") is None


def test_http_sf_imported_only_here() -> None:
    """Issue 21 ("the Structured Fields dictionary parsed twice"): no module but ``_sf`` calls
    http-sf, so a second reading of a Structured Field cannot creep back."""
    root = Path(robotrules.__file__).parent
    users = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "http_sf" for n in names):
                users.append(path.relative_to(root).as_posix())
    assert users == ["_sf.py"]


# the characters a simple Dictionary is made of, and some that end the fast reading
_SF_PIECES = st.sampled_from(["a", "b", "y", "n", "train-ai", "search", "*", "k.1", "_", "-",
                              "=", ",", " ", "\t", ";", "Y", "A", ":", "/", '"', "1", "?",
                              "=y", ", ", "=n"])


@settings(max_examples=600, deadline=None)
@given(st.lists(_SF_PIECES, max_size=12).map("".join))
def test_the_fast_reading_is_http_sf_s(text: str) -> None:
    """RFC 9651 3.2 (Dictionary), 3.1.2 (Key), 3.3.4 (Token): a Dictionary of keys alone or
    ``=`` a Token, read by its grammar (``_sf.parse_dictionary``'s fast path), gives what
    http-sf gives for the same text (members, values, duplicates), and fails where it fails."""
    fast, slow = _sf.parse_dictionary(text), _sf._parsed_dictionary(text)
    assert fast == slow
    assert list((fast.members or {}).items()) == list((slow.members or {}).items())  # order
