"""``robotrules._tokenize``: bytes to lines to the directive stream.

Sources: RFC 9309 (``/work/shared/REFERENCE.md`` section 1), Google's ``robots.cc`` (REFERENCE
"Google-specific deltas", checked against the ``jwm-robotstxt`` oracle where it can say) and
the 1994 standard (``seeds/000``). In the h11 manner, one file split at every line-ending
style must give the same directive stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from robotrules import _tokenize as T

if TYPE_CHECKING:
    from robotrules._model import Finding
    from robotrules._types import Dialect

DIALECTS: tuple[Dialect, ...] = ("rfc9309", "google", "1994")


def stream(text: str, dialect: Dialect, *, careful: bool = False) -> list[tuple[str, int, str]]:
    """The directive stream as (kind name, line, value) triples."""
    findings: list[Finding] | None = [] if careful else None
    dirs = T.tokenize(text, dialect, findings)
    out = []
    for i in range(0, len(dirs), 3):
        head, vstart, vlen = dirs[i], dirs[i + 1], dirs[i + 2]
        kind = head >> T.KIND_SHIFT
        name = {T.UNKNOWN: "?", T.BLANK: ""}.get(kind, T.KIND_NAMES.get(kind, "!"))
        out.append((name, head & T.LINE_MASK, text[vstart : vstart + vlen]))
    return out


def read(body: bytes, dialect: Dialect = "rfc9309") -> list[tuple[str, int, str]]:
    text, _ = T.to_text(body)
    return stream(text, dialect)


# --- line endings (RFC 9309 2.2: NL = CR / LF / CRLF; seeds/000: "terminated by CR, CR/NL,
# or NL") ---------------------------------------------------------------------------------

LINE = st.one_of(
    st.sampled_from([
        "User-agent: *", "user-agent:FooBot", "Disallow: /private", "Allow: /$",
        "Disallow:", "  Disallow : /x  ", "# a comment", "Disallow: /a # trailing", "",
        "   ", "Sitemap: https://a.example/s.xml", "Crawl-delay: 5", "Disallow /x",
        "useragent: b", "Noindex: /n", "<html>", "Disallow\t/tab",
    ]),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=30),
)


@given(st.lists(LINE, min_size=1, max_size=12), st.sampled_from(DIALECTS))
def test_every_line_ending_gives_one_stream(lines: list[str], dialect: Dialect) -> None:
    """RFC 9309 2.2 ``NL = CR / LF / CRLF``; seeds/000 "terminated by CR, CR/NL, or NL"."""
    bodies = [sep.join(lines).encode("latin-1") for sep in ("\n", "\r\n", "\r")]
    expected = read(bodies[0], dialect)
    for body in bodies[1:]:
        assert read(body, dialect) == expected


@given(st.lists(LINE, min_size=2, max_size=12), st.data(), st.sampled_from(DIALECTS))
def test_mixed_line_endings_give_one_stream(lines: list[str], data: st.DataObject,
                                            dialect: Dialect) -> None:
    """RFC 9309 2.2 ``NL = CR / LF / CRLF``: each line may end its own way."""
    seps = [data.draw(st.sampled_from(["\n", "\r\n", "\r"])) for _ in lines[1:]]
    # CR, an empty line, then LF would be one CRLF: a different file, not a different style
    assume(not any(seps[i] == "\r" and lines[i + 1] == "" and seps[i + 1][0] == "\n"
                   for i in range(len(seps) - 1)))
    body = lines[0] + "".join(s + line for s, line in zip(seps, lines[1:], strict=True))
    assert read(body.encode("latin-1"), dialect) == read(
        "\n".join(lines).encode("latin-1"), dialect)


def test_line_numbers_count_cr_lf_and_crlf_alike() -> None:
    """RFC 9309 2.2 ``NL = CR / LF / CRLF``; robots.cc: ``\\n\\r`` is two line ends."""
    body = b"User-agent: a\rDisallow: /1\r\nDisallow: /2\nDisallow: /3\n\rDisallow: /5"
    assert read(body) == [("user-agent", 1, "a"), ("disallow", 2, "/1"),
                          ("disallow", 3, "/2"), ("disallow", 4, "/3"), ("disallow", 6, "/5")]


def test_to_text_normalises_line_ends_to_lf() -> None:
    assert T.to_text(b"a\r\nb\rc\n\rd") == ("a\nb\nc\n\nd", 0)


# --- the rules of robots.cc --------------------------------------------------------------

def test_bom_and_its_prefixes_are_skipped_at_the_start_only() -> None:
    """Google delta "BOM. Skipped" (robots.cc skips any prefix of the UTF-8 BOM; the oracle
    disallows ``/`` after a two-byte prefix, checked in test_partial_bom_against_google)."""
    assert T.strip_bom(b"\xef\xbb\xbfUser-agent: *") == (b"User-agent: *", 3)
    assert T.strip_bom(b"\xef\xbbUser-agent: *") == (b"User-agent: *", 2)
    assert T.strip_bom(b"\xefX") == (b"X", 1)
    assert T.strip_bom(b"\xef\xbb\xbf\xef\xbb\xbfX") == (b"\xef\xbb\xbfX", 3)
    assert T.strip_bom(b"X\xef\xbb\xbf") == (b"X\xef\xbb\xbf", 0)
    assert T.to_text(b"\xef\xbb\xbfDisallow: /") == ("Disallow: /", 3)


def test_partial_bom_against_google() -> None:
    oracle = pytest.importorskip("tests.core.oracle")
    body = b"\xef\xbbUser-agent: *\nDisallow: /\n"
    assert oracle.google_allowed(body, "x", "/") is False
    assert read(body) == [("user-agent", 1, "*"), ("disallow", 2, "/")]


def test_nul_ends_the_line() -> None:
    """robots.cc stops a line at NUL; the oracle: ``Disallow: /a\\0b`` disallows ``/ac``."""
    body = b"User-agent: *\nDisallow: /a\0b\n"
    oracle = pytest.importorskip("tests.core.oracle")
    assert oracle.google_allowed(body, "x", "/ac") is False
    assert read(body, "google") == [("user-agent", 1, "*"), ("disallow", 2, "/a")]


def test_only_the_first_max_line_bytes_of_a_line_are_read() -> None:
    """Google delta: lines are capped at 2083×8 bytes (robots.cc keeps 16,663 of them and
    the terminator); the oracle reads a pattern cut at that length."""
    assert T.MAX_LINE == 2083 * 8 - 1
    head = "Disallow: /"
    kept = "a" * (T.MAX_LINE - len(head))
    body = f"User-agent: *\n{head}{kept}b\n".encode()
    oracle = pytest.importorskip("tests.core.oracle")
    assert oracle.google_allowed(body, "x", f"/{kept}c") is False
    assert read(body, "google")[1] == ("disallow", 2, "/" + kept)


def test_comments_and_white_space() -> None:
    """RFC 9309 2.2 ABNF: ``comment = "#" ...`` may end any line, ``*WS`` around key and
    value; seeds/000: "the '#' character is used to indicate that preceding space (if any)
    and the remainder of the line up to the line termination is discarded"."""
    body = b"# head\n  User-agent :\tFooBot  # who\nDisallow:/x#y\n\t\n"
    assert read(body) == [("user-agent", 2, "FooBot"), ("disallow", 3, "/x")]


def test_empty_value_is_a_directive() -> None:
    """RFC 9309 2.2: ``empty-pattern = *WS`` is a rule (it matches nothing)."""
    text = "User-agent: *\nDisallow:   \n"
    dirs = T.tokenize(text, "rfc9309")
    assert stream(text, "rfc9309")[1] == ("disallow", 2, "")
    assert dirs[4] == text.index("Disallow:") + len("Disallow:")  # right after the colon


def test_value_splits_at_the_first_colon() -> None:
    """RFC 9309 2.2: a line is ``key *WS ":" *WS value``; the value may hold colons."""
    assert read(b"Sitemap: https://a.example/s.xml\n") == [
        ("sitemap", 1, "https://a.example/s.xml")]


@pytest.mark.parametrize("dialect", ["rfc9309", "google"])
def test_missing_colon_two_words_read_as_key_value(dialect: Dialect) -> None:
    """Google delta: "Missing colon. Accepted when the line has exactly two
    whitespace-separated tokens (``Disallow /x``)"."""
    body = b"User-agent *\nDisallow /x\nDisallow /y /z\nAllow\t/t\n"
    assert read(body, dialect) == [("user-agent", 1, "*"), ("disallow", 2, "/x"),
                                   ("allow", 4, "/t")]


def test_missing_colon_is_not_read_in_1994() -> None:
    """seeds/000: lines are of the form ``"<field>:<optionalspace><value>"``."""
    assert read(b"User-agent: *\nDisallow /x", "1994") == [("user-agent", 1, "*")]


def test_blank_line_ends_a_record_only_in_1994() -> None:
    """seeds/000: records are "separated by one or more blank lines" and "Lines containing
    only a comment are discarded completely, and therefore do not indicate a record
    boundary"; RFC 9309 2.1 (REFERENCE): "Blank lines do NOT end a group"."""
    body = b"User-agent: a\n\nDisallow: /\n# only a comment\n   \t\n  # indented comment"
    assert read(body, "1994") == [("user-agent", 1, "a"), ("", 2, ""), ("disallow", 3, "/"),
                                  ("", 5, "")]
    assert read(body, "rfc9309") == [("user-agent", 1, "a"), ("disallow", 3, "/")]


def test_keys_are_case_insensitive() -> None:
    """RFC 9309 2.2: keys are ABNF literal strings (case-insensitive); seeds/000: "The
    field name is case insensitive"."""
    for dialect in DIALECTS:
        assert read(b"USER-AGENT: a\ndisALLOW: /x\nallow: /y", dialect) == [
            ("user-agent", 1, "a"), ("disallow", 2, "/x"), ("allow", 3, "/y")]


@pytest.mark.parametrize(("key", "meant"), [
    ("useragent", "User-agent"), ("user agent", "User-agent"), ("dissallow", "Disallow"),
    ("dissalow", "Disallow"), ("disalow", "Disallow"), ("diasllow", "Disallow"),
    ("disallaw", "Disallow"), ("site-map", "Sitemap")])
def test_google_misspellings(key: str, meant: str) -> None:
    """Google delta "Typos": robots.cc accepts exactly these; the 1994 dialect reads exact
    keys only (seeds/000 names the fields ``User-agent`` and ``Disallow``)."""
    kind, intended = T.classify_key(key, "google")
    assert T.KIND_NAMES[kind] == meant.lower()
    assert intended == meant
    assert T.classify_key(key, "rfc9309") == (kind, intended)
    assert T.classify_key(key, "1994") == (T.UNKNOWN, None)
    assert T.key_class(key, True) == (kind, True)
    assert T.key_class(key, False) == (T.UNKNOWN, False)


def test_exact_keys_are_not_lenient() -> None:
    assert T.classify_key("Disallow", "google") == (T.DISALLOW, None)
    assert T.key_class("allow", True) == (T.ALLOW, False)
    assert T.classify_key("crawl-delay", "1994") == (T.CRAWL_DELAY, None)


def test_unknown_and_value_without_key() -> None:
    """RFC 9309 2.3.1.5: "Try to parse each line, and use the parseable rules": an
    unknown key is kept in the stream (for the linter), a value without a key is not."""
    assert read(b"Foo: bar\n: /x\n") == [("?", 1, "bar")]


# --- the careful path and recheck ---------------------------------------------------------

@given(st.lists(LINE, max_size=12), st.sampled_from(DIALECTS))
def test_careful_and_fast_paths_agree(lines: list[str], dialect: Dialect) -> None:
    """tokenize()'s contract: with a findings list it "yields the same directives"."""
    text = "\n".join(lines)
    assert stream(text, dialect) == stream(text, dialect, careful=True)


@given(st.lists(LINE, max_size=12), st.sampled_from(DIALECTS))
def test_recheck_gives_the_careful_findings(lines: list[str], dialect: Dialect) -> None:
    """recheck()'s contract: the lines tokenize() noted carry every careful-path finding."""
    text = "\n".join(lines)
    careful: list[Finding] = []
    T.tokenize(text, dialect, careful)
    odd: list[int] = []
    T.tokenize(text, dialect, odd=odd)
    later: list[Finding] = []
    T.recheck(text, dialect, odd, later)
    assert later == careful


def test_careful_path_findings() -> None:
    """Google delta "Typos" (L003) and "Missing colon" (L004); lines the RFC grammar does
    not have are reported, not fatal (RFC 9309 2.3.1.5)."""
    text = "Useragent: a\nDisallow /x\n<html>\nDisallow /a /b\n"
    findings: list[Finding] = []
    T.tokenize(text, "google", findings)
    assert [(f.code, f.line) for f in findings] == [("L003", 1), ("L004", 2), ("L020", 3),
                                                    ("L004", 4)]


# --- helpers --------------------------------------------------------------------------------

def test_to_bytes_and_display_round_trip_utf8() -> None:
    """RFC 9309 2.3: the file MUST be UTF-8; the stream reads bytes as Latin-1 and
    display() shows them as UTF-8 again, U+FFFD where they are not UTF-8."""
    assert T.to_bytes("Disallow: /ä") == "Disallow: /ä".encode()
    assert T.to_bytes(bytearray(b"ab")) == b"ab"
    assert T.to_bytes(memoryview(b"ab")) == b"ab"
    assert T.to_bytes("\udcff") == b"\xff"  # surrogateescape: the byte it stood for
    assert T.display("/ä".encode().decode("latin-1")) == "/ä"
    assert T.display("/\xff") == "/\ufffd"
    assert T.display("plain") == "plain"


@given(st.text(st.characters(codec="utf-8"), max_size=20))
def test_display_inverts_utf8_as_latin1(s: str) -> None:
    assert T.display(s.encode("utf-8").decode("latin-1")) == s


def test_key_of_rereads_the_key() -> None:
    text = "User-agent: a\n  Crawl_Delay :  5\nDisallow /x\n"
    dirs = T.tokenize(text, "google")
    assert [T.key_of(text, dirs[i]) for i in range(1, len(dirs), 3)] == [
        "User-agent", "Crawl_Delay", "Disallow"]
