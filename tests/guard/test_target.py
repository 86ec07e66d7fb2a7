"""The request target the guard judges (robotrules.guard.target): every form the application
may serve it in. Sources: RFC 3986 (2.3 unreserved characters, 5.2.4 remove_dot_segments,
6.2.2 syntax-based normalisation), PEP 3333 (PATH_INFO is the decoded bytes read as Latin-1),
the ASGI HTTP scope (``raw_path`` as sent, ``path`` decoded), and the issue's reproductions:
``//private/…``, ``/./private/…``, ``/x/../private/…``, ``/%2e/private/…`` served by Starlette's
StaticFiles while the guard matched the raw path (issue 35)."""

from __future__ import annotations

import pytest

from robotrules.guard.target import forms, remove_dot_segments


@pytest.mark.parametrize(("path", "result"), [
    # RFC 3986 5.4.2 abnormal examples, as paths
    ("/a/b/c/./../../g", "/a/g"),
    ("/mid/content=5/../6", "/mid/6"),
    ("/../g", "/g"),
    ("/./g", "/g"),
    ("/g.", "/g."),
    ("/.g", "/.g"),
    ("/g..", "/g.."),
    ("/..g", "/..g"),
    ("/a/.", "/a/"),
    ("/a/..", "/"),
    ("/", "/"),
])
def test_remove_dot_segments(path: str, result: str) -> None:
    assert remove_dot_segments(path) == result


@pytest.mark.parametrize("sent", [
    b"//private/x", b"///private/x", b"/./private/x", b"/x/../private/x", b"/%2e/private/x",
    b"/%2E%2E/private/x", b"/x/%2e%2e/private/x", b"/private%2Fx", b"/x/..%2Fprivate/x",
    b"/x\\..\\private/x", b"/%5Cprivate/x", b"/x/.%2E/private/x", b"/%70rivate/x",
])
def test_every_spelling_of_private_has_the_served_form(sent: bytes) -> None:
    # issue 35: the app serves /private/x for each of these (StaticFiles resolves dots and
    # merges slashes after uvicorn decoded %2F and %2e)
    assert any(f.startswith("/private/x") for f in forms(sent)), forms(sent)


def test_a_plain_target_is_one_form() -> None:
    assert forms(b"/blog/one", b"a=1") == ("/blog/one?a=1",)
    assert forms(b"/blog/one", served=b"/blog/one") == ("/blog/one",)


def test_the_sent_form_comes_first_and_is_kept() -> None:
    # the target as sent is always asked too (a rule written for the raw spelling)
    f = forms(b"/%7Euser/x")
    assert f[0] == "/%7Euser/x"
    assert "/~user/x" in f


def test_wsgi_path_info_is_bytes_as_latin1() -> None:
    # PEP 3333: "/caf%C3%A9" arrives as PATH_INFO "/caf\xc3\xa9"; read back as its bytes
    info = "/caf\u00c3\u00a9/x".encode("latin-1")
    assert forms(None, served=info) == ("/caf%C3%A9/x",)
    # a decoded "%" (sent as %25) is a character, not an escape
    assert forms(None, served=b"/100%/x") == ("/100%25/x",)


def test_query_is_kept_and_hash_written() -> None:
    assert forms(b"/a", b"q=/../x") == ("/a?q=/../x",)
    assert forms(b"/a#b") == ("/a%23b",)
    assert forms(b"/caf\xc3\xa9") == ("/caf%C3%A9",)


def test_bounded() -> None:
    # bad input is normal input: long and odd targets give forms in linear time, no error
    big = b"/" + b"%2e%2e/" * 20_000 + b"x"
    f = forms(big, b"q" * 10_000, served=b"/" + b"../" * 20_000)
    assert f[-1].startswith("/")
    assert forms(b"") == ("/",)
    assert forms(b"relative/x") == ("/relative/x",)


def test_path_parameters_are_a_form_too() -> None:
    # RFC 2396 3.3: ";" starts a segment's parameters; servlet containers strip them
    assert "/private/x" in forms(b"/private;jsessionid=1/x")
    assert "/private/x" in forms(b"/private;a/..;b/private/x")
    assert forms(b"/a;b") == ("/a;b", "/a")


def test_no_path_at_all_is_the_root() -> None:
    # an ASGI scope with neither raw_path nor path (not ASGI, but not a crash either)
    assert forms(None) == ("/",)
    assert forms(None, b"q") == ("/?q",)


@pytest.mark.parametrize("sent", [b"/x.pdf/", b"/x.pdf//", b"/x.pdf/.", b"/x.pdf%2F",
                                  b"/x.pdf/y/..", b"/x.pdf\\"])
def test_a_trailing_slash_is_a_form_without_it(sent: bytes) -> None:
    # os.path.normpath("x.pdf/") is "x.pdf": Starlette's StaticFiles and a normpath static
    # app serve the file /x.pdf for /x.pdf/ (seen against uvicorn and waitress), so the
    # form an anchored rule ("Disallow: /*.pdf$") is asked about must be there
    assert "/x.pdf" in forms(sent), forms(sent)


def test_the_root_and_a_plain_directory() -> None:
    assert forms(b"/") == ("/",)
    assert forms(b"/blog/") == ("/blog/", "/blog")


def test_escapes_are_upper_case_in_the_normal_form() -> None:
    # RFC 3986 6.2.2.1: "the hexadecimal digits within a percent-encoding triplet should be
    # normalized to use uppercase letters" (6.2.2, the normal form). Google's parser writes a
    # rule's escapes in upper case and compares bytes, so on a google-dialect file
    # "Disallow: /a%2Fb" let "/a%2fb" through, which the server decodes to the same path
    from robotrules.guard import Guard, RangeStore

    assert "/a%2Fb%3F" in forms(b"/a%2fb%3f")
    g = Guard("User-agent: *\nDisallow: /a%2Fb\n", mode="enforce", ranges=RangeStore(),
              dialect="google")
    for target in ("/a%2Fb", "/a%2fb", "/x/../a%2fb"):
        assert g.decide("GET", target, {"user-agent": "FooBot/1.0"}).status == 403, target


def test_the_query_is_normalised_too() -> None:
    # RFC 3986 6.2.2.2: escapes of unreserved characters are equivalent to the characters
    # "in any URI component" (the query too), and applications decode them (PHP's $_GET,
    # Python's parse_qs: "?%73=x" is s=x). On a google-dialect file, whose matcher compares
    # bytes, "Disallow: /*?s=" (WordPress's search) let "/?%73=x" through
    from robotrules.guard import Guard, RangeStore

    assert "/?s=x%2F" in forms(b"/", b"%73=x%2f")
    g = Guard("User-agent: *\nDisallow: /*?s=\nDisallow: /*sessionid\n", mode="enforce",
              ranges=RangeStore(), dialect="google")
    for target in ("/?s=x", "/?%73=x", "/p?%73essionid=1", "/p/?a=1&sess%69onid=1"):
        assert g.decide("GET", target, {"user-agent": "FooBot/1.0"}).status == 403, target
