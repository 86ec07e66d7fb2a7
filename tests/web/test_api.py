"""The web tester's JSON API through Starlette's TestClient (no sockets except the fetch tests)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import warnings
from collections.abc import Iterable, Iterator
from importlib.resources import files
from typing import Any

import pytest

pytest.importorskip("starlette")

with warnings.catch_warnings():  # Starlette 1.x prefers httpx2; httpx is what is installed
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from robotrules.web import create_app
from robotrules.web._safety import refusal, unsafe_address
from robotrules.web._serve import display_url, is_loopback

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using `httpx` with `starlette.testclient`:DeprecationWarning"
)

DRAFT = """\
User-agent: *
Disallow: /private/
Allow: /private/press/

User-agent: Googlebot
Disallow: /*.pdf$

User-agent: GPTBot
Disallow: /
"""


def client_for(**options: Any) -> TestClient:
    return TestClient(create_app(**options), base_url="http://127.0.0.1")


@pytest.fixture
def client() -> Iterator[TestClient]:
    with client_for() as c:
        yield c


def check(client: TestClient, **body: Any) -> dict[str, Any]:
    payload = {"robots_txt": DRAFT, "urls": ["/"], "agents": ["*"], "dialect": "rfc9309"}
    payload.update(body)
    response = client.post("/api/check", json=payload)
    assert response.status_code == 200, response.text
    data = response.json()
    assert isinstance(data, dict)
    return data


def cell(data: dict[str, Any], agent: str, url: str) -> dict[str, Any]:
    matches: list[dict[str, Any]] = [
        r for r in data["results"] if r["agent"] == agent and r["url"] == url
    ]
    (found,) = matches
    return found


# -- /api/check -------------------------------------------------------------------------------


def test_check_gives_agent_by_url_verdicts_with_the_deciding_line(client: TestClient) -> None:
    data = check(
        client,
        urls=["/private/a.html", "/private/press/b.html", "https://example.com/x.pdf"],
        agents=["Googlebot", "GPTBot", "SomeBot"],
    )
    assert data["agents"] == ["Googlebot", "GPTBot", "SomeBot"]
    assert len(data["results"]) == 9
    some = cell(data, "SomeBot", "/private/a.html")["verdict"]
    assert (some["allowed"], some["line"], some["directive"], some["pattern"]) == (
        False, 2, "disallow", "/private/",
    )
    press = cell(data, "SomeBot", "/private/press/b.html")["verdict"]
    assert (press["allowed"], press["line"]) == (True, 3)
    gpt = cell(data, "GPTBot", "https://example.com/x.pdf")["verdict"]
    assert (gpt["allowed"], gpt["line"], gpt["pattern"]) == (False, 9, "/")
    # Googlebot has its own group, so the * rules do not apply to it (RFC 9309 2.2.1).
    google = cell(data, "Googlebot", "/private/a.html")["verdict"]
    assert (google["allowed"], google["line"], google["reason"]) == (True, None, "no-matching-rule")


def test_check_flags_where_dialects_disagree(client: TestClient) -> None:
    data = check(client, urls=["/docs/guide.pdf", "/docs/guide.html"], agents=["Googlebot"])
    pdf = cell(data, "Googlebot", "/docs/guide.pdf")
    # The 1994 text has no wildcards: '/*.pdf$' is a literal prefix there and matches nothing.
    assert pdf["dialects"]["rfc9309"] == {"allowed": False, "line": 6}
    assert pdf["dialects"]["google"] == {"allowed": False, "line": 6}
    assert pdf["dialects"]["1994"]["allowed"] is True
    assert pdf["dialects_disagree"] is True
    assert cell(data, "Googlebot", "/docs/guide.html")["dialects_disagree"] is False


@pytest.mark.parametrize("dialect", ["rfc9309", "google", "1994"])
def test_check_answers_in_the_chosen_dialect(client: TestClient, dialect: str) -> None:
    data = check(client, urls=["/docs/guide.pdf"], agents=["Googlebot"], dialect=dialect)
    verdict = cell(data, "Googlebot", "/docs/guide.pdf")["verdict"]
    assert data["dialect"] == verdict["dialect"] == dialect
    assert verdict["allowed"] is (dialect == "1994")


def test_check_drops_blank_and_repeated_entries(client: TestClient) -> None:
    data = check(client, urls=["/", " ", "/", ""], agents=["GPTBot", "", "GPTBot"])
    assert data["urls"] == ["/"]
    assert data["agents"] == ["GPTBot"]
    assert len(data["results"]) == 1


def test_check_keeps_markup_as_data(client: TestClient) -> None:
    """The API returns text as given; the page renders it with textContent (see e2e)."""
    data = check(
        client, robots_txt="User-agent: <script>\nDisallow: /<b>\n",
        urls=["/<b>x"], agents=["<script>"],
    )
    verdict = cell(data, "<script>", "/<b>x")["verdict"]
    assert verdict["user_agent"] == "<script>"


# -- validation and limits ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"urls": [], "agents": []}, "'robots_txt' must be a string"),
        ({"robots_txt": 3, "urls": [], "agents": []}, "'robots_txt' must be a string"),
        ({"robots_txt": "", "urls": "/", "agents": []}, "'urls' must be a list of strings"),
        ({"robots_txt": "", "urls": [1], "agents": []}, "'urls' must be a list of strings"),
        ({"robots_txt": "", "urls": [], "agents": None}, "'agents' must be a list of strings"),
        ({"robots_txt": "", "urls": [], "agents": [], "dialect": "2024"}, "'dialect' must be"),
        ({"robots_txt": "", "urls": ["/"] * 0 + [f"/{i}" for i in range(501)], "agents": []},
         "at most 500 urls"),
    ],
)
def test_check_rejects_bad_input_with_a_json_error(
    client: TestClient, body: dict[str, Any], message: str
) -> None:
    response = client.post("/api/check", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


@pytest.mark.parametrize("path", ["/api/check", "/api/lint", "/api/fetch"])
def test_post_endpoints_want_a_json_object(client: TestClient, path: str) -> None:
    not_json = client.post(path, content=b"{nope", headers={"content-type": "application/json"})
    assert not_json.status_code == 400
    assert "not valid JSON" in not_json.json()["error"]
    array = client.post(path, json=[1, 2])
    assert array.status_code == 400
    assert array.json() == {"error": "body must be a JSON object"}
    # A form post is what another site's page could send without a CORS preflight.
    form = client.post(path, content=b"robots_txt=x", headers={
        "content-type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415


def test_bodies_over_the_cap_get_413() -> None:
    with client_for(max_body=2048) as small:
        big = {"robots_txt": "Disallow: /x\n" * 400, "urls": [], "agents": []}
        response = small.post("/api/check", json=big)
        assert response.status_code == 413
        assert "larger than 2048 bytes" in response.json()["error"]

        def chunks() -> Iterable[bytes]:  # no content-length: the cap holds while streaming
            yield b'{"robots_txt": "'
            for _ in range(100):
                yield b"Disallow: /x\\n" * 10
            yield b'", "dialect": "rfc9309"}'

        streamed = small.post("/api/lint", content=chunks(),
                              headers={"content-type": "application/json"})
        assert streamed.status_code == 413
        assert small.post("/api/lint", json={"robots_txt": "User-agent: *\n"}).status_code == 200


def test_the_default_cap_is_one_mebibyte(client: TestClient) -> None:
    body = {"robots_txt": "#" * (1024 * 1024), "dialect": "rfc9309"}
    assert client.post("/api/lint", json=body).status_code == 413


def test_unknown_api_paths_and_methods_answer_json(client: TestClient) -> None:
    missing = client.get("/api/nothing")
    assert missing.status_code == 404
    assert "error" in missing.json()
    assert client.get("/api/check").status_code == 405


def test_requests_for_other_host_names_are_refused(client: TestClient) -> None:
    """A DNS-rebinding page reaches the server under its own name; the Host check stops it."""
    assert client.get("/", headers={"host": "attacker.example"}).status_code == 400
    assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200
    with client_for(allowed_hosts=["*"]) as anywhere:
        assert anywhere.get("/", headers={"host": "tester.lan"}).status_code == 200


# -- /api/lint, /api/agents, the page -----------------------------------------------------------


def test_lint_returns_findings_on_their_lines(client: TestClient) -> None:
    response = client.post(
        "/api/lint", json={"robots_txt": "User-agent: *\nDissalow: /tmp\n", "dialect": "google"}
    )
    assert response.status_code == 200
    data = response.json()
    assert data["dialect"] == "google"
    typo = [f for f in data["findings"] if f["kind"] == "typo-directive"]
    assert typo
    assert typo[0]["line"] == 2
    assert set(typo[0]) == {"code", "kind", "severity", "line", "column", "message", "fix"}


def test_agents_lists_the_well_known_crawlers(client: TestClient) -> None:
    agents = client.get("/api/agents").json()["agents"]
    tokens = {a["token"] for a in agents}
    assert {"Googlebot", "GPTBot"} <= tokens
    assert set(agents[0]) == {"token", "name", "operator", "category", "purpose",
                              "description"}


def test_page_and_assets_come_from_the_package_with_a_strict_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp
    assert "default-src 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    for asset in ("/static/app.js", "/static/app.css"):
        assert client.get(asset).status_code == 200
    # No CDN: every src/href is a local path or a data: URL.
    for ref in re.findall(r'(?:src|href)="([^"]*)"', page.text):
        assert ref.startswith(("/static/", "data:")), ref
    static = files("robotrules.web").joinpath("static")
    for name in ("app.js", "app.css", "index.html"):
        text = static.joinpath(name).read_text(encoding="utf-8")
        assert not re.search(r"(?:https?:)?//[\w-]+\.\w", text), f"{name} names another origin"
    # The script builds the DOM with textContent only (robots.txt text is never markup).
    script = static.joinpath("app.js").read_text(encoding="utf-8")
    assert not re.search(r"\.(?:inner|outer)HTML\b|insertAdjacentHTML|document\.write", script)


# -- /api/fetch and the address check -----------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.10", "private"),
        ("172.16.5.4", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.251", "multicast"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "shared (CGNAT)"),
        # Python 3.11's ipaddress calls these global; the IANA registries do not.
        ("2002:7f00:1::1", "6to4 address for 127.0.0.1, a loopback"),  # RFC 3056 2
        ("2002:a00:1::1", "6to4 address for 10.0.0.1, a private"),
        ("64:ff9b::7f00:1", "NAT64 address for 127.0.0.1, a loopback"),  # RFC 6052 2.1
        ("64:ff9b:1::a00:1", "local-use NAT64"),  # RFC 8215
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),  # RFC 4380 4
        ("fec0::1", "site-local"),  # RFC 3879
        ("192.0.0.192", "IETF protocol assignment"),  # RFC 6890
        ("192.88.99.1", "6to4 relay anycast"),  # RFC 7526
        ("3fff::1", "documentation"),  # RFC 9637
        ("2001:db8::1", "documentation"),  # RFC 3849
        ("5f00::1", "SRv6"),  # RFC 9602
        ("::7f00:1", "IPv4-compatible"),  # RFC 4291 2.5.5.1
        ("::ffff:0:7f00:1", "IPv4-translated"),  # RFC 2765
        ("4000::1", "outside the global unicast range"),  # RFC 4291 2.4
        ("198.18.0.1", "benchmarking"),  # RFC 2544
    ],
)
def test_unsafe_addresses_are_named(address: str, why: str) -> None:
    reason = unsafe_address(address)
    assert reason is not None
    assert why in reason


@pytest.mark.parametrize(
    "address",
    ["93.184.216.34", "2606:2800:220:1::1", "8.8.8.8",
     "2002:808:808::1",  # 6to4 for 8.8.8.8: judged by the IPv4 it carries (RFC 3056 2)
     "64:ff9b::808:808"],  # NAT64 for 8.8.8.8 (RFC 6052 2.1)
)
def test_public_addresses_pass(address: str) -> None:
    assert unsafe_address(address) is None


def test_one_private_address_among_public_ones_refuses_the_host() -> None:
    def resolver(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.0.0.7"]

    reason = refusal("mixed.example", 443, allow_private=False, resolver=resolver)
    assert reason is not None
    assert "10.0.0.7" in reason
    assert refusal("mixed.example", 443, allow_private=True, resolver=resolver) is None


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:9/robots.txt", "localhost", "http://[::1]/", "http://10.0.0.1/",
     "http://169.254.169.254/latest/meta-data/", "http://0.0.0.0/"],
)
def test_fetch_refuses_local_and_private_addresses(client: TestClient, url: str) -> None:
    response = client.post("/api/fetch", json={"url": url})
    assert response.status_code == 403
    assert "--allow-private" in response.json()["error"]


@pytest.mark.parametrize(
    ("url", "message"),
    [("ftp://example.com/", "only http and https"), ("", "'url' is empty"),
     ("http://", "no host"), ("http://example.com:99999/", "not a URL")],
)
def test_fetch_rejects_what_is_not_a_web_url(client: TestClient, url: str, message: str) -> None:
    response = client.post("/api/fetch", json={"url": url})
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_fetch_refuses_the_local_origin_without_allow_private(
    client: TestClient, origin: str
) -> None:
    response = client.post("/api/fetch", json={"url": origin + "/some/page"})
    assert response.status_code == 403
    assert "127.0.0.1" in response.json()["error"]


def test_fetch_reads_the_local_origin_with_allow_private(origin: str) -> None:
    pytest.importorskip("robotrules.fetch")
    with client_for(allow_private=True) as c:
        response = c.post("/api/fetch", json={"url": origin + "/some/page"})
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["robots_txt"] == "User-agent: *\nDisallow: /from-origin/\n"
    assert data["status"] == 200
    assert data["final_url"] == origin + "/robots.txt"
    assert data["outcome"] == "rules"
    assert data["summary"]


# -- /api/live: the one-box test ----------------------------------------------------------------


def test_live_fetches_the_pages_robots_txt_and_answers(origin: str) -> None:
    """The origin's robots.txt says ``User-agent: *`` / ``Disallow: /from-origin/``."""
    with client_for(allow_private=True) as c:
        response = c.post("/api/live", json={"url": origin + "/from-origin/page?x=1",
                                             "agents": ["Googlebot", "GPTBot"]})
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["url"] == origin + "/from-origin/page?x=1"
    assert data["fetch"]["robots_url"] == origin + "/robots.txt"
    assert data["fetch"]["outcome"] == "rules"
    assert [(a["agent"], a["allowed"], a["line"]) for a in data["answers"]] == [
        ("Googlebot", False, 2), ("GPTBot", False, 2)]
    assert "Disallow: /from-origin/" in data["answers"][0]["why"]
    assert data["check"]["results"][0]["url"] == data["url"]


def test_live_without_agents_answers_for_star(origin: str) -> None:
    with client_for(allow_private=True) as c:
        data = c.post("/api/live", json={"url": origin + "/elsewhere"}).json()
    assert [(a["agent"], a["allowed"]) for a in data["answers"]] == [("*", True)]


def test_live_on_an_unreachable_site_answers_blocked_as_rfc_9309_says() -> None:
    """RFC 9309 2.3.1.4: when robots.txt is unreachable, crawlers MUST assume complete
    disallow. Port 1 on loopback refuses the connection."""
    with client_for(allow_private=True, fetch_timeout=3) as c:
        data = c.post("/api/live", json={"url": "http://127.0.0.1:1/page",
                                         "agents": ["Googlebot"]}).json()
    assert data["fetch"]["outcome"] == "disallow-all"
    assert data["check"] is None
    (answer,) = data["answers"]
    assert answer["allowed"] is False
    assert "2.3.1.4" in answer["why"]


def test_live_goes_through_the_address_guard(client: TestClient, origin: str) -> None:
    response = client.post("/api/live", json={"url": origin + "/page", "agents": ["A"]})
    assert response.status_code == 403
    assert "127.0.0.1" in response.json()["error"]


@pytest.mark.parametrize(("body", "message"), [
    ({"agents": ["A"]}, "'url' must be a string"),
    ({"url": "x" * 9000}, "at most 8192"),
    ({"url": "https://example.com/", "agents": "A"}, "'agents' must be a list"),
])
def test_live_rejects_bad_input(client: TestClient, body: dict[str, Any], message: str) -> None:
    response = client.post("/api/live", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_syntax_lists_the_directive_registry(client: TestClient) -> None:
    """The highlighter's keys come from the directive registry (robotrules._directives)."""
    keys = client.get("/api/syntax").json()["keys"]
    assert keys["user-agent"] == "agent"
    assert keys["disallow"] == "rule"
    assert keys["sitemap"] == "sitemap"
    assert keys["crawl-delay"] == "member"
    assert keys["content-usage"] == "any"
    assert keys["dissalow"] == "typo"  # one of Google's accepted misspellings


# -- the serve command --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback", "shown"),
    [("127.0.0.1", True, "http://127.0.0.1:8000/"), ("localhost", True, "http://localhost:8000/"),
     ("::1", True, "http://[::1]:8000/"), ("0.0.0.0", False, "http://127.0.0.1:8000/"),
     ("192.168.1.5", False, "http://192.168.1.5:8000/")],
)
def test_serve_prints_a_usable_address(host: str, loopback: bool, shown: str) -> None:
    assert is_loopback(host) is loopback
    assert display_url(host, 8000) == shown


def test_serve_prints_its_address_and_answers_there() -> None:
    """``serve`` as the CLI runs it, in a child process (it blocks until interrupted)."""
    httpx = pytest.importorskip("httpx")
    code = "from robotrules.web import serve; serve(host='127.0.0.1', port=0)"
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        for _ in range(100):  # the address is printed just before uvicorn starts accepting
            try:
                page = httpx.get(match.group(0), timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        assert page.status_code == 200
        assert "robots.txt tester" in page.text
    finally:
        child.terminate()
        child.wait(timeout=10)


def test_the_page_lists_the_librarys_dialects_and_vocabularies() -> None:
    """One list each (issue 37): the page's dialect radios and vocabulary options, which
    app.js reads, are robotrules._dialects.NAMES and robotrules.aipref.VOCABULARIES, in order."""
    from robotrules._dialects import NAMES
    from robotrules.aipref.vocabulary import VOCABULARIES

    page = files("robotrules.web").joinpath("static", "index.html").read_text("utf-8")
    assert tuple(re.findall(r'name="dialect" value="([^"]+)"', page)) == NAMES
    select = page[page.index('<select id="vocabulary"'):]
    select = select[:select.index("</select>")]
    assert re.findall(r'<option value="([^"]+)"', select) == list(VOCABULARIES)
    script = files("robotrules.web").joinpath("static", "app.js").read_text("utf-8")
    for name in (*NAMES, *VOCABULARIES):
        assert f'"{name}"' not in script, name  # not written again in the script
