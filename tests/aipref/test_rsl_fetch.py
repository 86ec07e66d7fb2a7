"""robotrules.aipref.rsl_fetch and the fetch clients' RSL hooks, against a real HTTP server on
127.0.0.1 (tests/aipref/conftest.py).

RSL 1.0 (AI-PREFERENCES.md 7.2): discovery by robots.txt ``License:`` or a ``Link: <...>;
rel="license"; type="application/rsl+xml"`` header; a crawler without a licence token gets
"401 or 402 with ``WWW-Authenticate: License``". The document is fetched "with the same care as
robots.txt" (issue 24): size cap, timeouts, cache.
"""

from __future__ import annotations

from robotrules.aipref.rsl_fetch import RslFetcher, media_type_findings
from robotrules.fetch import RobotsClient

from .conftest import Reply, Server

RSL = (b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
       b'<permits type="usage">search</permits><prohibits type="usage">ai-train</prohibits>'
       b"</license></content></rsl>")
RSL_TYPE = {"Content-Type": "application/rsl+xml"}


def test_fetch_parse_and_cache(server: Server) -> None:
    server.routes["/license.xml"] = Reply(200, RSL, {**RSL_TYPE, "Cache-Control": "max-age=600"})
    with RslFetcher() as f:
        got = f.fetch(server.base + "/license.xml")
        again = f.fetch(server.base + "/license.xml")
    assert got.document is not None
    assert got.document.terms(server.base + "/a").permits("ai-train") is False
    assert got.media_type_ok
    assert got.error is None
    assert (got.from_cache, again.from_cache) == (False, True)
    assert server.hits["/license.xml"] == 1
    assert media_type_findings(got) == []


def test_wrong_media_type_is_reported_l044(server: Server) -> None:
    server.routes["/license.xml"] = Reply(200, RSL, {"Content-Type": "text/html"})
    with RslFetcher() as f:
        got = f.fetch(server.base + "/license.xml")
    assert got.document is not None  # still read
    assert not got.media_type_ok
    found = media_type_findings(got, line=3)
    assert [(x.code, x.line, x.severity) for x in found] == [("L044", 3, "warning")]


def test_size_cap_stops_the_transfer(server: Server) -> None:
    server.routes["/big.xml"] = Reply(200, RSL + b" " * 100_000, RSL_TYPE)
    with RslFetcher(max_bytes=10_000) as f:
        got = f.fetch(server.base + "/big.xml")
    assert got.document is None
    assert "larger than 10,000 bytes" in (got.error or "")


def test_timeout_is_a_clear_failure(server: Server) -> None:
    server.routes["/slow.xml"] = Reply(200, RSL, RSL_TYPE, delay=1.0)
    with RslFetcher(timeout=0.2) as f:
        got = f.fetch(server.base + "/slow.xml")
    assert got.document is None
    assert "Timeout" in (got.error or "")


def test_licence_challenge_on_the_document(server: Server) -> None:
    server.routes["/paid.xml"] = Reply(402, b"", {"WWW-Authenticate": 'License realm="x"'})
    with RslFetcher() as f:
        got = f.fetch(server.base + "/paid.xml")
    assert got.licence_required is not None
    assert "licence required" in got.licence_required
    assert got.status == 402


def test_hostile_document_over_http_is_refused(server: Server) -> None:
    evil = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b'<rsl xmlns="https://rslstandard.org/rsl">&x;</rsl>')
    server.routes["/evil.xml"] = Reply(200, evil, RSL_TYPE)
    with RslFetcher() as f:
        got = f.fetch(server.base + "/evil.xml")
    assert got.document is None
    assert "refused" in (got.error or "")


def test_client_reports_licence_required_not_a_generic_error(server: Server) -> None:
    """A robots.txt answered 401/402 with WWW-Authenticate: License."""
    server.routes["/robots.txt"] = Reply(402, b"", {"WWW-Authenticate": "License"})
    with RobotsClient() as client:
        fetched = client.rules_for(server.base + "/x")
    assert fetched.licence_required is not None
    assert "licence required" in fetched.summary
    assert fetched.outcome == "allow-all"  # RFC 9309 2.3.1.3: 4xx, unchanged


def test_client_without_challenge_has_no_licence_note(server: Server) -> None:
    server.routes["/robots.txt"] = Reply(401, b"", {"WWW-Authenticate": "Basic"})
    with RobotsClient() as client:
        fetched = client.rules_for(server.base + "/x")
    assert fetched.licence_required is None
    assert "licence" not in fetched.summary


def test_client_discovers_licences_from_robots_and_link(server: Server) -> None:
    server.routes["/robots.txt"] = Reply(
        200, b"License: /license.xml\nUser-agent: *\nAllow: /\n",
        {"Content-Type": "text/plain",
         "Link": '<https://cdn.example/l.xml>; rel="license"; type="application/rsl+xml"'})
    with RobotsClient() as client:
        fetched = client.rules_for(server.base + "/x")
    assert fetched.licenses == (server.base + "/license.xml", "https://cdn.example/l.xml")
