"""``client.usage(url)``: robots.txt, the origin's TDMRep file and the page's headers, over HTTP.

Every test runs against real servers on 127.0.0.1 and, through ``make_client``, against both
twins (``RobotsClient`` and ``AsyncRobotsClient``). Sources:

* W3C TDM Reservation Protocol, Final Community Group Report (2024-05-10):
  sec-tdm-file ("tdmrep.json, which MUST be hosted in the /.well-known repository"; "Failure to
  provide access to such a representation implies that the origin server does not implement
  this protocol"; "The most specific match is the first in sequence"; "If no match is found
  ... `tdm-reservation` is unset"), sec-tdm-header (the ``tdm-reservation`` header),
  sec-processing-priority ("A TDM Agent MUST check the presence of a TDM file on the origin
  server before it starts scraping"; "the values ... found in this header supercede any value
  inferred from a TDM file").
* draft-ietf-aipref-vocab-07 "Combining Preferences": statements from different methods are
  combined so that any disallow (``n``) wins.
* draft-ietf-aipref-attach-05 "HTTP Content-Usage Header Field": the same preference in a
  response header; "Content-Usage Rule Semantics": preferences attach only to URLs the crawler
  may fetch.
* Issue 13 ("fetched by the fetcher with the same care as robots.txt"): the same size limit
  (RFC 9309 2.5), redirect limit (2.3.1.2), status table and caching (2.4) as robots.txt, one
  request per origin (issue 4).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from robots_servers import FakeClock, Request, Response, Server

from robotrules import _policy as P
from robotrules import parse
from robotrules._tdmrep_policy import TDMREP_PATH, combine_usage, interpret, tdmrep_key
from robotrules.fetch import AsyncRobotsClient, RobotsClient
from robotrules.stores import CacheEntry, SQLiteStore

Make = Callable[..., Any]
Site = Callable[..., Server]

ROBOTS = b"User-agent: *\nAllow: /\nContent-Usage: train-ai=y, search=y\nDisallow: /private/\n"
TDMREP = json.dumps([
    {"location": "/papers/", "tdm-reservation": 1,
     "tdm-policy": "https://provider.example/policies/policy.json"},
    {"location": "/papers/open/", "tdm-reservation": 0},  # never reached: first match wins
    {"location": "/images/*.jpg", "tdm-reservation": 0},
]).encode()
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def site(serve: Callable[..., Server]) -> Site:
    """``site(tdmrep=Response(...), robots=Response(...))``: one origin serving both files
    (and a 404 for anything else); delays apply to both."""

    def start(tdmrep: Response | None = None, robots: Response | None = None,
              extra: dict[str, Response] | None = None) -> Server:
        answers = {
            "/robots.txt": robots if robots is not None else Response(200, ROBOTS),
            TDMREP_PATH: tdmrep if tdmrep is not None else Response(200, TDMREP, JSON),
            **(extra or {}),
        }
        return serve(lambda req: answers.get(req.path, Response(404)))

    return start


def test_reservation_on_a_path_is_tdm_false(make_client: Make, site: Site) -> None:
    """sec-tdm-file, first example: ``tdm-reservation: 1`` on /papers/ reserves TDM rights
    there (``u["tdm"]`` False); robots.txt's Content-Usage still decides its own categories."""
    srv = site()
    c = make_client()
    u = c.usage(f"{srv.origin}/papers/a.pdf", user_agent="ExampleBot")
    assert u.crawl is True
    assert (u["tdm"], u["train-ai"], u["search"]) == (False, True, True)
    assert [s.source for s in u.statements] == ["content-usage", "tdmrep"]
    assert dict(u.statements[-1].extra) == {
        "tdm-policy": "https://provider.example/policies/policy.json"}
    assert u.lines == (3,)
    # first match in sequence wins: /papers/open/ is inside /papers/ (reserved)
    assert c.usage(f"{srv.origin}/papers/open/b.pdf")["tdm"] is False
    assert c.usage(f"{srv.origin}/images/x.jpg")["tdm"] is True
    # no entry matches: tdm-reservation unset
    assert c.usage(f"{srv.origin}/blog/post")["tdm"] is None
    # cached per origin: one request for each file, whatever the number of URLs
    assert (srv.hits_for("/robots.txt"), srv.hits_for(TDMREP_PATH)) == (1, 1)


def test_headers_most_restrictive_wins(make_client: Make, site: Site) -> None:
    """vocab-07 "Combining Preferences": any n gives n, across robots.txt and the header
    (attach-05 "HTTP Content-Usage Header Field"); a category only the header states is
    taken from it."""
    srv = site()
    c = make_client()
    url = f"{srv.origin}/blog/post"
    u = c.usage(url, headers={"Content-Usage": "train-ai=n"})
    assert (u["train-ai"], u["search"]) == (False, True)
    assert [s.source for s in u.statements] == ["content-usage", "http-content-usage"]
    # y in the header never loosens an n elsewhere
    srv2 = site(robots=Response(200, b"User-agent: *\nContent-Usage: train-ai=n\n"))
    u2 = c.usage(f"{srv2.origin}/x", headers={"content-usage": "train-ai=y, search=n"})
    assert (u2["train-ai"], u2["search"]) == (False, False)
    # no headers: the robots.txt answer alone (TDMRep states nothing for /blog/)
    assert c.usage(url).categories == {"train-ai": True, "search": True}
    # the client never fetches the page itself
    assert srv.hits_for("/blog/post") == 0


def test_tdm_header_supersedes_the_file(make_client: Make, site: Site) -> None:
    """sec-processing-priority: a ``tdm-reservation`` header "supercede[s] any value inferred
    from a TDM file", so the page's ``0`` replaces the file's ``1`` for that URL."""
    srv = site()
    c = make_client()
    url = f"{srv.origin}/papers/a.pdf"
    u = c.usage(url, headers={"tdm-reservation": "0"})
    assert u["tdm"] is True
    assert [s.source for s in u.statements] == ["content-usage", "http-tdm"]
    u1 = c.usage(f"{srv.origin}/images/x.jpg", headers={"TDM-Reservation": "1"})
    assert u1["tdm"] is False


def test_header_on_a_disallowed_url_adds_nothing(make_client: Make, site: Site) -> None:
    """attach-05 "Content-Usage Rule Semantics": no preference attaches to a URL the crawler
    may not fetch; TDMRep is not even fetched for it."""
    srv = site()
    c = make_client()
    u = c.usage(f"{srv.origin}/private/x", headers={"Content-Usage": "train-ai=n"})
    assert (u.crawl, dict(u.categories), u.statements) == (False, {}, ())
    assert srv.hits_for(TDMREP_PATH) == 0


@pytest.mark.parametrize("status", [404, 410, 401, 403])
def test_no_tdmrep_file_is_robots_only(make_client: Make, site: Site, status: int) -> None:
    """sec-tdm-file: "Failure to provide access to such a representation implies that the
    origin server does not implement this protocol": a 4xx gives no TDMRep statement (401/403
    too: TDMRep has no 'disallow all') and is cached like robots.txt's 4xx (RFC 9309 2.4)."""
    srv = site(tdmrep=Response(status))
    c = make_client()
    url = f"{srv.origin}/papers/a.pdf"
    u = c.usage(url, user_agent="ExampleBot")
    assert u == c.rules_for(url).rules.usage(url, user_agent="ExampleBot")
    t = c.tdmrep_for(url)
    assert (t.policy, t.outcome, t.status) == (None, "none", status)
    assert t.expires_at - t.fetched_at == P.MAX_TTL  # no cache headers: 24 h, as robots.txt
    assert "no TDMRep statement" in t.summary


def test_unreachable_tdmrep_is_not_cached_long(make_client: Make, site: Site,
                                                clock: FakeClock) -> None:
    """5xx: no statement, and the file is asked for again after the back-off (60 s, the
    robots.txt schedule) instead of a 4xx's 24 h; robots.txt is unaffected."""
    answers = [Response(503), Response(200, TDMREP, JSON)]
    srv = site(tdmrep=Response(503))
    srv.handler = lambda req: (answers.pop(0) if req.path == TDMREP_PATH
                               else Response(200, ROBOTS))
    c = make_client()
    url = f"{srv.origin}/papers/a.pdf"
    u = c.usage(url)
    assert (u.crawl, u["tdm"], u["train-ai"]) == (True, None, True)
    t = c.tdmrep_for(url)
    assert (t.outcome, t.expires_at - t.fetched_at) == ("unreachable", P.BACKOFF_BASE)
    clock.advance(P.BACKOFF_BASE + 1)
    assert c.usage(url)["tdm"] is False
    assert (srv.hits_for("/robots.txt"), srv.hits_for(TDMREP_PATH)) == (1, 2)


def test_refused_connection_gives_no_statement(make_client: Make) -> None:
    """Unreachable origin: robots.txt says disallow all (RFC 9309 2.3.1.4); no crash."""
    from robots_servers import refused_port

    c = make_client()
    u = c.usage(f"http://127.0.0.1:{refused_port()}/papers/a.pdf")
    assert (u.crawl, dict(u.categories)) == (False, {})


@pytest.mark.parametrize(("body", "error"), [
    (b"{not json", "invalid tdmrep.json: not JSON"),
    (b'{"location": "/", "tdm-reservation": 1}', "must be a JSON array"),
    (b'[{"location": "/", "tdm-reservation": 2}]', "must be 0 or 1"),
    (b"\xff\xfe garbage", "invalid tdmrep.json"),
])
def test_invalid_tdmrep_is_robots_only(make_client: Make, site: Site, body: bytes,
                                       error: str) -> None:
    """A body that is not a TDMRep JSON array (sec-tdm-file: "This file contains an array of
    JSON objects") gives no statement and a clear note, never an exception."""
    srv = site(tdmrep=Response(200, body, JSON))
    c = make_client()
    url = f"{srv.origin}/papers/a.pdf"
    assert c.usage(url) == c.rules_for(url).rules.usage(url, user_agent=c.token)
    t = c.tdmrep_for(url)
    assert t.policy is None
    assert t.outcome == "none"
    assert t.error is not None
    assert error in t.error


def test_oversize_tdmrep_is_ignored(make_client: Make, site: Site) -> None:
    """The robots.txt size limit (RFC 9309 2.5, ``max_bytes``) caps tdmrep.json too; a file
    cut at the limit is not trusted (its cut JSON cannot mean what the owner wrote)."""
    big = json.dumps([{"location": "/papers/", "tdm-reservation": 1}]
                     + [{"location": f"/x{i}/", "tdm-reservation": 0} for i in range(20_000)],
                     indent=1).encode()
    assert len(big) > P.DEFAULT_MAX_BYTES
    srv = site(tdmrep=Response(200, big, JSON))
    c = make_client()
    url = f"{srv.origin}/papers/a.pdf"
    u = c.usage(url)
    assert (u["tdm"], u["train-ai"]) == (None, True)
    t = c.tdmrep_for(url)
    assert t.policy is None
    assert t.error is not None
    assert "size limit" in t.error
    assert srv.hits_for(TDMREP_PATH) == 1


def test_redirects_followed_with_the_robots_limit(make_client: Make, site: Site) -> None:
    """Redirects as for robots.txt (RFC 9309 2.3.1.2, sec-tdm-file "or a sequence of redirects
    that leads to such a representation"); a loop ends with no statement."""
    srv = site(tdmrep=Response(301, headers={"Location": "/tdm/rules.json"}),
               extra={"/tdm/rules.json": Response(200, TDMREP, JSON)})
    c = make_client()
    assert c.usage(f"{srv.origin}/papers/a.pdf")["tdm"] is False
    loop = site(tdmrep=Response(302, headers={"Location": TDMREP_PATH}))
    t = c.tdmrep_for(f"{loop.origin}/papers/a.pdf")
    assert t.policy is None
    assert t.error == "redirect loop"


def test_own_store_key(tmp_path: Path, make_client: Make, site: Site) -> None:
    """Both files share the store, under different keys (the origin, the tdmrep.json URL); a
    second client reads both from it without a request; ``forget`` drops both."""
    srv = site()
    store = SQLiteStore(tmp_path / "cache.sqlite")
    try:
        c1 = make_client(store=store)
        url = f"{srv.origin}/papers/a.pdf"
        first = c1.usage(url)
        robots, tdm = store.get(srv.origin), store.get(tdmrep_key(srv.origin))
        assert robots is not None
        assert robots.robots_url.endswith("/robots.txt")
        assert tdm is not None
        assert tdm.final_url == srv.origin + TDMREP_PATH
        assert tdm.body == TDMREP
        c2 = make_client(store=store)
        assert c2.usage(url) == first
        assert srv.hits == 2  # one per file, for both clients
        c2.forget(url)
        assert store.get(srv.origin) is None
        assert store.get(tdmrep_key(srv.origin)) is None
    finally:
        store.close()


N = 20


def test_one_request_per_origin_threads(site: Site) -> None:
    """20 threads asking at once: one request for robots.txt and one for tdmrep.json (issue 4's
    single flight, per file)."""
    srv = site(tdmrep=Response(200, TDMREP, JSON, delay=0.3),
               robots=Response(200, ROBOTS, delay=0.3))
    barrier = threading.Barrier(N)
    with RobotsClient() as c:
        def ask(i: int) -> bool | None:
            barrier.wait()
            return c.usage(f"{srv.origin}/papers/{i}.pdf")["tdm"]

        with ThreadPoolExecutor(N) as pool:
            answers = list(pool.map(ask, range(N)))
    assert answers == [False] * N
    assert (srv.hits_for("/robots.txt"), srv.hits_for(TDMREP_PATH)) == (1, 1)


def test_one_request_per_origin_tasks(site: Site) -> None:
    """The async twin: 20 tasks, the same answers, one request per file."""
    srv = site(tdmrep=Response(200, TDMREP, JSON, delay=0.3),
               robots=Response(200, ROBOTS, delay=0.3))

    async def main() -> list[bool | None]:
        async with AsyncRobotsClient() as c:
            us = await asyncio.gather(*(c.usage(f"{srv.origin}/papers/{i}.pdf")
                                        for i in range(N)))
            return [u["tdm"] for u in us]

    assert asyncio.run(main()) == [False] * N
    assert (srv.hits_for("/robots.txt"), srv.hits_for(TDMREP_PATH)) == (1, 1)


def test_twins_give_the_same_answers(site: Site) -> None:
    """Sync and async clients agree on every combination above."""
    srv = site()
    cases: list[tuple[str, dict[str, str] | None]] = [
        ("/papers/a.pdf", None), ("/papers/a.pdf", {"tdm-reservation": "0"}),
        ("/blog/x", {"Content-Usage": "train-ai=n"}), ("/private/x", None),
        ("/images/a.jpg", {"Content-Usage": "search=n", "tdm-reservation": "1"}),
    ]
    with RobotsClient() as c:
        sync = [c.usage(srv.origin + p, user_agent="ExampleBot", headers=h) for p, h in cases]

    async def main() -> list[Any]:
        async with AsyncRobotsClient() as c:
            return [await c.usage(srv.origin + p, user_agent="ExampleBot", headers=h)
                    for p, h in cases]

    assert asyncio.run(main()) == sync
    assert [u["tdm"] for u in sync] == [False, True, None, None, False]


def test_request_sent(site: Site) -> None:
    """The tdmrep.json request carries the client's User-Agent, like robots.txt's."""
    seen: list[Request] = []
    srv = site()
    inner = srv.handler

    def record(req: Request) -> Any:
        seen.append(req)
        return inner(req)

    srv.handler = record
    with RobotsClient(user_agent="ExampleBot/1.0") as c:
        c.usage(f"{srv.origin}/papers/a.pdf")
    tdm = [r for r in seen if r.path == TDMREP_PATH]
    assert len(tdm) == 1
    assert tdm[0].headers["user-agent"] == "ExampleBot/1.0"


VALUES = [None, "y", "n", "maybe"]


@given(st.sampled_from(VALUES), st.sampled_from(VALUES), st.sampled_from([None, "0", "1"]),
       st.sampled_from([None, "0", "1"]))
def test_combining_never_loosens(robots_v: str | None, header_v: str | None,
                                 file_res: str | None, header_res: str | None) -> None:
    """vocab-07 "Combining Preferences" as a property of the sans-I/O combination: ``train-ai``
    is n if any source says n, else y if any says y, else unknown; ``tdm`` is the header's
    when there is one (TDMRep sec-processing-priority), else the file's."""
    lines = "User-agent: *\n" + (f"Content-Usage: train-ai={robots_v}\n" if robots_v else "")
    base = parse(lines.encode()).usage("https://e.com/a", user_agent="ExampleBot")
    tdm = None
    if file_res is not None:
        body = json.dumps([{"location": "/", "tdm-reservation": int(file_res)}]).encode()
        entry = CacheEntry("https://e.com" + TDMREP_PATH, "rules", 200,
                           "https://e.com" + TDMREP_PATH, 0.0, 60.0, body)
        tdm = interpret("https://e.com", entry, from_cache=False)
    headers = {}
    if header_v:
        headers["Content-Usage"] = f"train-ai={header_v}"
    if header_res:
        headers["tdm-reservation"] = header_res
    u = combine_usage(base, "https://e.com/a", tdm, headers)
    said = [v for v in (robots_v, header_v) if v is not None]
    expected = False if "n" in said else True if "y" in said else None
    assert u["train-ai"] is expected
    res = header_res if header_res is not None else file_res
    assert u["tdm"] is (None if res is None else res == "0")
