"""Sitemap checks (robotrules.web._sitemaps): what a body is, and fetching through the guard.

Sources: the sitemaps.org protocol (an XML ``urlset`` of ``<url><loc>``, a ``sitemapindex`` of
``<sitemap><loc>``, a text file of one URL per line, gzip allowed) and Google Search Central,
"Build and submit a sitemap" (RSS 2.0 and Atom 1.0 feeds are accepted as sitemaps).
"""

from __future__ import annotations

import gzip
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from robotrules.web import create_app
from robotrules.web._sitemaps import DECODED_BYTES, _gunzip, sniff

from .conftest import SITEMAP_INDEX, SITEMAP_XML

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using `httpx` with `starlette.testclient`:DeprecationWarning"
)


@pytest.mark.parametrize(("body", "kind", "entries"), [
    (SITEMAP_XML, "urlset", 3),
    (SITEMAP_INDEX, "sitemapindex", 2),
    (b"\xef\xbb\xbf  " + SITEMAP_XML, "urlset", 3),  # a BOM and blanks before the XML
    (b"https://www.example.com/a\nhttps://www.example.com/b\n", "text", 2),
    (b'<?xml version="1.0"?><rss version="2.0"><channel><item><link>x</link></item>'
     b"<item><link>y</link></item></channel></rss>", "feed", 2),
    (b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id></entry></feed>', "feed", 1),
    (b"<!DOCTYPE html><html><body>Not found</body></html>", "html", 0),
    (b"User-agent: *\nDisallow: /\n", "unknown", 0),
    (b"", "unknown", 0),
])
def test_sniff_names_what_a_sitemap_body_is(body: bytes, kind: str, entries: int) -> None:
    assert sniff(body) == (kind, entries)


def test_a_gzip_bomb_is_unpacked_only_up_to_the_cap() -> None:
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024))  # 64 MiB of zeros in ~64 KB
    assert len(bomb) < 256 * 1024
    assert len(_gunzip(bomb)) == DECODED_BYTES


@pytest.fixture
def private_client() -> Iterator[TestClient]:
    with TestClient(create_app(allow_private=True), base_url="http://127.0.0.1") as c:
        yield c


def sitemaps_of(client: TestClient, robots: str) -> dict[str, Any]:
    response = client.post("/api/sitemaps", json={"robots_txt": robots})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_the_sitemaps_of_a_site_are_fetched_and_checked(
    private_client: TestClient, sitemap_origin: str
) -> None:
    robots = private_client.post("/api/fetch", json={"url": sitemap_origin}).json()["robots_txt"]
    data = sitemaps_of(private_client, robots)
    assert data["total"] == 4
    by_url = {m["url"].removeprefix(sitemap_origin): m for m in data["sitemaps"]}
    assert by_url["/sitemap.xml"]["ok"] is True
    assert (by_url["/sitemap.xml"]["kind"], by_url["/sitemap.xml"]["entries"]) == ("urlset", 3)
    assert by_url["/sitemap.xml"]["complete"] is True
    gz = by_url["/index.xml.gz"]
    assert (gz["ok"], gz["gzip"], gz["kind"], gz["entries"]) == (True, True, "sitemapindex", 2)
    assert (by_url["/page.html"]["ok"], by_url["/page.html"]["kind"]) == (False, "html")
    assert (by_url["/missing.xml"]["ok"], by_url["/missing.xml"]["status"]) == (False, 404)


def test_sitemaps_go_through_the_address_guard(sitemap_origin: str, origin: str) -> None:
    """The same guard as fetch-by-URL: without --allow-private a loopback sitemap is refused,
    by name, and no request reaches it."""
    robots = f"Sitemap: {sitemap_origin}/sitemap.xml\nSitemap: http://localhost:1/s.xml\n"
    with TestClient(create_app(), base_url="http://127.0.0.1") as client:
        data = sitemaps_of(client, robots)
    first, second = data["sitemaps"]
    assert first["ok"] is False
    assert first["status"] is None
    assert "127.0.0.1" in first["error"]
    assert second["ok"] is False
    assert "loopback" in second["error"]


def test_only_absolute_sitemap_urls_count_and_the_rest_are_not_fetched(
    private_client: TestClient,
) -> None:
    """RFC 9309 2.2.4 / sitemaps.org: a Sitemap line gives a fully qualified URL; a relative
    one is ignored (and reported by lint), an ftp: one is read but not fetched."""
    data = sitemaps_of(private_client, "Sitemap: /relative.xml\nSitemap: ftp://x.example/s\n")
    assert data["total"] == 1
    (only,) = data["sitemaps"]
    assert only["url"] == "ftp://x.example/s"
    assert only["ok"] is False
    assert "only http and https" in only["error"]


def test_at_most_ten_sitemaps_are_fetched_per_request(private_client: TestClient) -> None:
    robots = "".join(f"Sitemap: http://127.0.0.1:1/s{i}.xml\n" for i in range(25))
    data = sitemaps_of(private_client, robots)
    assert data["total"] == 25
    assert len(data["sitemaps"]) == 10
