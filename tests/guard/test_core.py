"""The decision core (robotrules.guard.core.Guard.decide): identity, verification state,
robots.txt verdict with its deciding line, preferences, actions and modes. Expectations from
RFC 9309 (the verdicts), the AIPREF drafts (Content-Usage), Cloudflare's pay-per-crawl
(402 + crawler-price), RSL 1.0 (401 + WWW-Authenticate: License), RFC 9110 15.5.30 / RFC 6585
(429 + Retry-After) and the operators' verification pages (see test_registry.py)."""

from __future__ import annotations

import time

import pytest

from robotrules.guard import Guard, Policy, RangeStore
from robotrules.guard.ranges import parse_list
from robotrules.guard.registry import checks_for

from .conftest import EXAMPLES, DnsServer, Signer

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
GPTBOT = ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; "
          "+https://openai.com/gptbot)")
BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36"
ROBOTS = (EXAMPLES / "guard_robots.txt").read_bytes()


def store(now: float | None = None) -> RangeStore:
    s = RangeStore()
    google = checks_for("Googlebot").ranges_url
    openai = checks_for("GPTBot").ranges_url
    assert google is not None
    assert openai is not None
    t = time.time() if now is None else now
    s.add(parse_list('{"prefixes": [{"ipv4Prefix": "66.249.64.0/19"}]}', url=google,
                     fetched=t))
    s.add(parse_list('{"prefixes": [{"ipv4Prefix": "20.171.206.0/23"}]}', url=openai,
                     fetched=t))
    return s


def guard(**kw: object) -> Guard:
    kw.setdefault("ranges", store())
    return Guard(ROBOTS, **kw)  # type: ignore[arg-type]


def test_identity_from_the_product_token_and_the_registry() -> None:
    d = guard().decide("GET", "https://site.example/blog", {"User-Agent": GOOGLEBOT},
                       "66.249.66.1")
    assert d.token == "Googlebot"
    assert d.operator == "Google"
    assert d.purposes == ("search",)
    assert d.is_crawler


def test_verified_and_spoofed_by_published_ranges() -> None:
    g = guard()
    ok = g.decide("GET", "/blog", {"User-Agent": GOOGLEBOT}, "66.249.66.1")
    assert ok.verification.state == "verified"
    assert ok.verification.method == "ip-ranges"
    # Googlebot also documents reverse DNS; without a resolver the range list decides
    bad = g.decide("GET", "/blog", {"User-Agent": GOOGLEBOT}, "198.51.100.7")
    assert bad.verification.state == "spoofed"
    assert "198.51.100.7" in bad.verification.detail


def test_an_internal_peer_is_not_evidence() -> None:
    # a site behind a proxy it did not declare sees every request from 10.x / 127.0.0.1:
    # that address says nothing about the crawler, so it is "unverifiable", never "spoofed"
    for peer in ("10.1.2.3", "127.0.0.1", "192.168.1.1", "::1", "fd00::1"):
        d = guard(mode="enforce").decide("GET", "/blog", {"User-Agent": GOOGLEBOT}, peer)
        assert d.verification.state == "unverifiable", peer
        assert "trusted_proxies" in d.verification.detail
        assert d.status == 200


def test_stale_or_missing_lists_are_unverifiable_never_spoofed() -> None:
    old = guard(ranges=store(now=time.time() - 30 * 86400))
    d = old.decide("GET", "/blog", {"User-Agent": GPTBOT}, "198.51.100.7")
    assert d.verification.state == "unverifiable"
    assert "stale" in d.verification.detail
    none = guard(ranges=RangeStore())
    assert none.decide("GET", "/", {"User-Agent": GPTBOT}, "198.51.100.7"
                       ).verification.state == "unverifiable"


def test_no_published_method_is_unverifiable_and_unknown_is_unsigned() -> None:
    g = guard()
    claude = g.decide("GET", "/", {"User-Agent": "Mozilla/5.0 (compatible; ClaudeBot/1.0; "
                                                 "+claudebot@anthropic.com)"}, "192.0.2.1")
    assert claude.verification.state == "unverifiable"
    assert "publishes no way" in claude.verification.detail
    foo = g.decide("GET", "/", {"User-Agent": "FooBot/1.0"}, "192.0.2.1")
    assert foo.verification.state == "unsigned"
    assert foo.crawler is None
    assert foo.purposes == ("unknown",)


def test_unsigned_when_the_operator_only_signs() -> None:
    # OpenAI documents that ChatGPT agent signs its requests (Signature-Agent
    # https://chatgpt.com); an unsigned request that claims it is "unsigned", not "spoofed"
    d = guard().decide("GET", "/", {"User-Agent": "ChatGPT Agent"}, "192.0.2.1")
    assert d.verification.state == "unsigned"
    assert "https://chatgpt.com" in d.verification.detail
    strict = guard(mode="enforce", policy=Policy(on_state={"unsigned": "block"}))
    assert strict.decide("GET", "/", {"User-Agent": "ChatGPT Agent"}, "192.0.2.1").status == 403


def test_browsers_are_not_acted_on() -> None:
    d = guard(mode="enforce").decide("GET", "/admin/x", {"User-Agent": BROWSER}, "192.0.2.1")
    assert not d.is_crawler
    assert d.action == "allow"
    assert not d.enforced


def test_robots_verdict_and_deciding_line() -> None:
    # examples/guard_robots.txt: line 7 "Disallow: /admin/" in Googlebot's group; GPTBot is
    # disallowed everything by line 4
    g = guard(mode="enforce")
    d = g.decide("GET", "/admin/x", {"User-Agent": GOOGLEBOT}, "66.249.66.1")
    assert d.allowed is False
    assert (d.line, d.rule) == (7, "Disallow: /admin/")
    assert d.violation
    assert (d.action, d.status, d.enforced) == ("block", 403, True)
    v = g.verdict(d)
    assert v.line == 7
    ok = g.decide("GET", "/blog", {"User-Agent": GOOGLEBOT}, "66.249.66.1")
    assert ok.allowed is True
    assert ok.action == "allow"
    gpt = g.decide("GET", "/blog", {"User-Agent": GPTBOT}, "20.171.207.2")
    assert (gpt.allowed, gpt.line) == (False, 4)
    # RFC 9309 2.2.2: /robots.txt itself is always allowed
    assert g.decide("GET", "/robots.txt", {"User-Agent": GPTBOT}, "20.171.207.2").allowed


def test_observe_mode_decides_but_never_blocks() -> None:
    d = guard().decide("GET", "/admin/x", {"User-Agent": GOOGLEBOT}, "198.51.100.7")
    assert d.mode == "observe"
    assert d.action == "block"
    assert not d.enforced


def test_spoofed_is_blocked_before_robots() -> None:
    d = guard(mode="enforce").decide("GET", "/blog", {"User-Agent": GOOGLEBOT}, "198.51.100.7")
    assert (d.action, d.status) == ("block", 403)
    assert d.reason.startswith("spoofed")


def test_policy_per_purpose_pay_and_license() -> None:
    pay = guard(mode="enforce", policy=Policy(on_purpose={"ai-search": "pay"},
                                              price="USD 0.02"))
    d = pay.decide("GET", "/blog", {"User-Agent": "Mozilla/5.0 (compatible; OAI-SearchBot/1.0;"
                                                  " +https://openai.com/searchbot)"}, "192.0.2.1")
    assert (d.action, d.status) == ("pay", 402)
    assert ("crawler-price", "USD 0.02") in d.block_headers
    lic = guard(mode="enforce", policy=Policy(on_purpose={"user-fetch": "license"}))
    d = lic.decide("GET", "/blog", {"User-Agent": "Mozilla/5.0 (compatible; ChatGPT-User/1.0;"
                                                  " +https://openai.com/bot)"}, "192.0.2.1")
    assert (d.action, d.status) == ("license", 401)
    assert ("WWW-Authenticate", "License") in d.block_headers


def test_policy_per_state() -> None:
    strict = guard(mode="enforce", policy=Policy(on_state={"unverifiable": "block",
                                                           "spoofed": "block"}))
    d = strict.decide("GET", "/blog", {"User-Agent": "ClaudeBot/1.0"}, "192.0.2.1")
    assert (d.action, d.status) == ("block", 403)
    with pytest.raises(ValueError, match="unknown action"):
        Policy(on_purpose={"training": "maybe"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="unknown state"):
        Policy(on_state={"fake": "block"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="mode"):
        Guard(ROBOTS, mode="block")  # type: ignore[arg-type]


def test_pacing_from_crawl_delay() -> None:
    # the * group says Crawl-delay: 2; a second request 0.5 s later is told to come back
    g = guard(mode="enforce", policy=Policy(pace=True))
    ua = {"User-Agent": "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"}
    first = g.decide("GET", "/blog", ua, "192.0.2.1", now=1000.0)
    assert first.action == "allow"
    again = g.decide("GET", "/blog/2", ua, "192.0.2.1", now=1000.5)
    assert (again.action, again.status) == ("slow-down", 429)
    assert ("Retry-After", "2") in again.block_headers
    later = g.decide("GET", "/blog/3", ua, "192.0.2.1", now=1003.0)
    assert later.action == "allow"


def test_preference_headers_from_the_robots_txt() -> None:
    # the * group: Content-Usage: train-ai=n; Content-Signal: search=yes, ai-train=no
    d = guard().decide("GET", "/blog", {"User-Agent": "FooBot/1.0"}, "192.0.2.1")
    h = dict(d.headers)
    assert h["Content-Usage"] == "train-ai=n, search=y"
    assert h["Content-Signal"] == "search=yes, ai-train=no"
    own = guard(policy=Policy(content_usage="train-ai=n", content_signal="ai-train=no"))
    assert dict(own.decide("GET", "/", {"User-Agent": "FooBot/1.0"}, "192.0.2.1").headers) \
        == {"Content-Usage": "train-ai=n", "Content-Signal": "ai-train=no"}


def test_trusted_proxy_and_spoofed_xff() -> None:
    g = guard(trusted_proxies=["10.0.0.0/8"])
    via = g.decide("GET", "/", {"User-Agent": GOOGLEBOT, "X-Forwarded-For": "66.249.66.1"},
                   "10.0.0.5")
    assert via.client.ip == "66.249.66.1"
    assert via.verification.state == "verified"
    # the same header from a peer that is not a trusted proxy is ignored
    direct = g.decide("GET", "/", {"User-Agent": GOOGLEBOT, "X-Forwarded-For": "66.249.66.1"},
                      "198.51.100.7")
    assert direct.client.ip == "198.51.100.7"
    assert direct.verification.state == "spoofed"


def test_reverse_dns_is_pending_then_cached(dns_server: DnsServer) -> None:
    from robotrules.guard.rdns import ReverseDns

    dns_server.ptr("66.249.90.1", "crawl-66-249-90-1.googlebot.com")
    dns_server.a("crawl-66-249-90-1.googlebot.com", "66.249.90.1")
    g = guard(ranges=RangeStore(), rdns=ReverseDns(nameservers=["127.0.0.1"],
                                                    port=dns_server.port, timeout=1.0))
    d = g.decide("GET", "/", {"User-Agent": GOOGLEBOT}, "66.249.90.1")
    assert d.verification.state == "unverifiable"
    assert [p.kind for p in d.pending] == ["rdns"]
    d = g.check("GET", "/", {"User-Agent": GOOGLEBOT}, "66.249.90.1")
    assert d.verification.state == "verified"
    assert d.verification.method == "reverse-dns"
    n = len(dns_server.queries)
    assert g.decide("GET", "/", {"User-Agent": GOOGLEBOT}, "66.249.90.1").pending == ()
    assert len(dns_server.queries) == n


def test_ranges_out_but_reverse_dns_verifies(dns_server: DnsServer) -> None:
    # Google documents both methods; an address missing from the list but forward-confirmed
    # is Google's
    from robotrules.guard.rdns import ReverseDns

    dns_server.ptr("198.51.100.20", "crawl-x.googlebot.com")
    dns_server.a("crawl-x.googlebot.com", "198.51.100.20")
    g = guard(rdns=ReverseDns(nameservers=["127.0.0.1"], port=dns_server.port, timeout=1.0))
    d = g.check("GET", "/", {"User-Agent": GOOGLEBOT}, "198.51.100.20")
    assert d.verification.state == "verified"


def test_web_bot_auth_verifies_the_claim() -> None:
    from robotrules.guard.webbotauth import WebBotAuth

    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False)
    w.add_keys("https://agent.example", signer.jwks())
    g = guard(web_bot_auth=w, authorities=["site.example"],
              signature_agents={"FooBot": "https://agent.example"},
              mode="enforce")
    headers = {"User-Agent": "FooBot/1.0", "Host": "site.example",
               **signer.sign("https://site.example/blog")}
    d = g.decide("GET", "https://site.example/blog", headers, "192.0.2.1")
    assert d.verification.state == "verified"
    assert d.verification.method == "web-bot-auth"
    # replayed: spoofed, and blocked by the default policy
    d = g.decide("GET", "https://site.example/blog", headers, "192.0.2.1")
    assert d.verification.state == "spoofed"
    assert d.status == 403
    # a valid signature of another agent does not make a Googlebot claim true
    other = {"User-Agent": GOOGLEBOT, **signer.sign("https://site.example/")}
    g2 = guard(web_bot_auth=w, authorities=["site.example"],
               signature_agents={"Googlebot": "https://google.example"})
    assert g2.decide("GET", "https://site.example/", other, "192.0.2.1"
                     ).verification.state == "spoofed"


def test_hostile_requests_are_decided() -> None:
    g = guard(mode="enforce")
    for headers in ({}, {"User-Agent": ""}, {"User-Agent": "x" * 100_000},
                    {"User-Agent": GOOGLEBOT, "Signature": "sig1=:x:", "Signature-Input": "(("},
                    {"User-Agent": "\x00\x01bot/1", "Forwarded": "for=" + "9" * 10_000}):
        d = g.decide("GET", "/%zz/../admin/\x00", headers, "192.0.2.1")
        assert d.status in (200, 401, 402, 403, 429)
    d = g.decide("GET", "not a url at all", [("user-agent", "FooBot/1.0"),
                                            ("user-agent", "Other/2")], None)
    assert d.client.ip is None


def test_robots_from_text_path_and_none(tmp_path: object) -> None:
    assert Guard(ROBOTS.decode(), ranges=RangeStore()).robots_body == ROBOTS
    assert Guard(str(EXAMPLES / "guard_robots.txt"), ranges=RangeStore()).robots_body == ROBOTS
    assert Guard(EXAMPLES / "guard_robots.txt", ranges=RangeStore()).robots_body == ROBOTS
    with pytest.raises(FileNotFoundError):
        Guard("no-such-robots.txt", ranges=RangeStore())
    assert Guard("User-agent: *", ranges=RangeStore()).robots_body == b"User-agent: *"
    empty = Guard(None, ranges=RangeStore())
    assert empty.decide("GET", "/", {"User-Agent": "FooBot/1.0"}, "192.0.2.1").allowed


def _paying_guard(**policy: object) -> tuple[Guard, Signer]:
    from robotrules.guard.webbotauth import WebBotAuth

    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False)
    w.add_keys("https://agent.example", signer.jwks())
    g = guard(mode="enforce", web_bot_auth=w, authorities=["site.example"],
              signature_agents={"FooBot": "https://agent.example"},
              policy=Policy(on_purpose={"unknown": "pay"}, price="USD 0.01", **policy))
    return g, signer


def test_pay_per_crawl_offer_covered_by_the_signature() -> None:
    # Cloudflare pay per crawl: a crawler answers the 402 with crawler-max-price (or
    # crawler-exact-price) covered by its Web Bot Auth signature; success carries
    # crawler-charged
    charged: list[str] = []
    g, signer = _paying_guard(on_charge=charged.append)
    url = "https://site.example/blog"
    base = {"User-Agent": "FooBot/1.0", "Host": "site.example"}
    first = g.decide("GET", url, {**base, **signer.sign(url)}, "192.0.2.1")
    assert (first.status, dict(first.block_headers)["crawler-price"]) == (402, "USD 0.01")
    offer = {"crawler-max-price": "USD 0.05"}
    paid = g.decide("GET", url, {**base, **offer, **signer.sign(
        url, components=("@authority", "signature-agent", "crawler-max-price"), extra=offer)},
        "192.0.2.1")
    assert (paid.action, paid.status) == ("allow", 200)
    assert ("crawler-charged", "USD 0.01") in paid.headers
    assert charged == ["USD 0.01"]
    # the same offer outside the signature is not an offer
    loose = g.decide("GET", url, {**base, **offer, **signer.sign(url)}, "192.0.2.1")
    assert loose.status == 402
    assert "covered" in loose.reason
    low = {"crawler-max-price": "USD 0.001"}
    assert g.decide("GET", url, {**base, **low, **signer.sign(
        url, components=("@authority", "signature-agent", "crawler-max-price"), extra=low)},
        "192.0.2.1").status == 402
    exact = {"crawler-exact-price": "EUR 0.01"}  # another currency
    assert g.decide("GET", url, {**base, **exact, **signer.sign(
        url, components=("@authority", "signature-agent", "crawler-exact-price"),
        extra=exact)}, "192.0.2.1").status == 402


def test_rsl_licence_token() -> None:
    # RSL 1.0: a licensed crawler sends Authorization: License <token>
    def accept(token: str) -> bool:
        if token == "boom":
            raise RuntimeError("licence server down")
        return token == "good-token"

    g = guard(mode="enforce", policy=Policy(on_purpose={"unknown": "license"},
                                            accept_license=accept))
    ua = {"User-Agent": "FooBot/1.0"}
    assert g.decide("GET", "/blog", ua, "192.0.2.1").status == 401
    ok = g.decide("GET", "/blog", {**ua, "Authorization": "License good-token"}, "192.0.2.1")
    assert (ok.action, ok.status) == ("allow", 200)
    for bad in ("License bad", "Bearer good-token", "License ", "License boom"):
        assert g.decide("GET", "/blog", {**ua, "Authorization": bad}, "192.0.2.1"
                        ).status == 401


def test_a_signed_agent_with_a_browser_user_agent_is_identified() -> None:
    # OpenAI's ChatGPT agent browses with a Chrome User-Agent and signs with
    # Signature-Agent "https://chatgpt.com": the signature, not the User-Agent, names it
    from robotrules.guard.webbotauth import WebBotAuth

    signer = Signer("https://chatgpt.com")
    w = WebBotAuth()  # trusts the registry's signature agents, chatgpt.com among them
    w.add_keys("https://chatgpt.com", signer.jwks())
    g = guard(web_bot_auth=w, authorities=["site.example"])
    url = "https://site.example/blog"
    d = g.decide("GET", url, {"User-Agent": BROWSER, **signer.sign(url)}, "192.0.2.1")
    assert d.verification.state == "verified"
    assert d.token == "ChatGPT Agent"
    assert d.operator == "OpenAI"
    assert d.purposes == ("user-fetch",)
    assert d.is_crawler


def test_pacing_is_keyed_as_groups_are() -> None:
    # issue 35: six spellings of one crawler got six times its Crawl-delay rate. RFC 9309
    # 2.2.1: the product token is matched case-insensitively; robotrules._token.query_key is
    # the key a group is found by, and now the key the pace is kept by
    g = Guard("User-agent: googlebot\nCrawl-delay: 10\nAllow: /\n", ranges=store(),
              mode="enforce", policy=Policy(pace=True))
    spellings = ["Googlebot", "googlebot", "GOOGLEBOT", GOOGLEBOT, "Googlebot/2.1",
                 "gOOGLEBOT/2.1 (+https://example.com)"]
    actions = [g.decide("GET", f"/p{n}", {"User-Agent": ua}, "66.249.66.1",
                        now=1000.0 + n).action for n, ua in enumerate(spellings)]
    assert actions == ["allow"] + ["slow-down"] * 5


def test_memo_is_bounded_by_bytes() -> None:
    # issue 35: 65,536 keys of any length (545 MiB with 8 KB paths); now a byte budget
    import tracemalloc

    g = guard(memo_bytes=1 << 20)
    ua = {"User-Agent": "FooBot/1.0"}
    g.decide("GET", "/warm", ua, "192.0.2.1")
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for n in range(3000):
            g.decide("GET", f"/{n:06d}/" + "a" * 2000, ua, "192.0.2.1")
        for n in range(300):
            g.decide("GET", f"/{n:06d}/" + "b" * 8000, ua, "192.0.2.1")
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    # 3000 memoised answers would hold ~12 MB of text; the budget keeps ~1 MiB
    assert grown < 4 << 20, grown


def test_observe_mode_says_what_it_would_have_done() -> None:
    # issue 35: nothing appeared unless the user configured logging, and the line said
    # "-> block" for a request that was served. Python's last-resort handler prints WARNING
    # records to stderr with no configuration at all: run a fresh interpreter that sets none.
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "from robotrules.guard import WSGIGuardMiddleware, RangeStore\n"
        f"app = WSGIGuardMiddleware(lambda e, s: (s('200 OK', []), [b'page'])[1], "
        f"robots={str(EXAMPLES / 'guard_robots.txt')!r}, ranges=RangeStore())\n"
        "env = {'REQUEST_METHOD': 'GET', 'PATH_INFO': '/blog', 'REMOTE_ADDR': '192.0.2.1',\n"
        "       'HTTP_USER_AGENT': 'Mozilla/5.0 (compatible; GPTBot/1.2)'}\n"
        "print(b''.join(app(env, lambda *a: None)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin"},
                         timeout=60, check=True)
    assert "b'page'" in out.stdout  # served: observe mode never blocks
    line = next(ln for ln in out.stderr.splitlines() if "GPTBot" in ln)
    assert "would block (403)" in line
    assert "robots.txt line 4 'Disallow: /'" in line
    assert "-> block" not in out.stderr


def test_robots_txt_is_served_as_the_bytes_enforced() -> None:
    # issue 35: "Disallow: /日本" was served as "Disallow: /??" (re-serialised in Latin-1)
    from robotrules import parse

    body = "User-agent: *\nDisallow: /\u65e5\u672c\n".encode()
    assert Guard(parse(body), ranges=RangeStore()).robots_body == body
    assert Guard(body, ranges=RangeStore()).robots_body == body
    g = Guard(parse(body), ranges=RangeStore(), mode="enforce")
    assert g.decide("GET", "/%E6%97%A5%E6%9C%AC/x", {"User-Agent": "FooBot/1.0"},
                    "192.0.2.1").status == 403


def test_decision_path_is_the_files_dialect_reading() -> None:
    # issue 35: Decision.path was Google's reading on an rfc9309 file. RFC 9309 2.2.2 decodes
    # %7E ("~" is unreserved); Google's matcher keeps the URL as given
    rules = "User-agent: *\nDisallow: /private/\n"
    rfc = Guard(rules, ranges=RangeStore()).decide("GET", "/%7euser", {"User-Agent": "FooBot"})
    google = Guard(rules, ranges=RangeStore(), dialect="google").decide(
        "GET", "/%7euser", {"User-Agent": "FooBot"})
    assert (rfc.path, google.path) == ("/~user", "/%7euser")


def test_usage_keys_come_from_the_vocabulary() -> None:
    # vocab-08 adds "ai-use" (robotrules.aipref.vocabulary); the guard reads the keys there
    rules = "User-agent: *\nContent-Usage: train-ai=n, ai-use=n\nAllow: /\n"
    d = Guard(rules, ranges=RangeStore(), vocabulary="vocab-08").decide(
        "GET", "/x", {"User-Agent": "FooBot/1.0"})
    assert dict(d.headers)["Content-Usage"] == "train-ai=n, ai-use=n"
    d7 = Guard(rules, ranges=RangeStore()).decide("GET", "/x", {"User-Agent": "FooBot/1.0"})
    assert dict(d7.headers)["Content-Usage"] == "train-ai=n"  # vocab-07 has no ai-use


def test_browser_words_are_the_token_rules() -> None:
    # the guard's own list is robotrules._token's: a Brave or Vivaldi UA is a browser too
    from robotrules._token import _GENERIC
    from robotrules.guard.core import BROWSERS

    assert BROWSERS is _GENERIC
    d = guard(mode="enforce").decide("GET", "/admin/x", {"User-Agent": "Vivaldi/6.0"},
                                     "192.0.2.1")
    assert not d.is_crawler


@pytest.mark.parametrize("ua", ["GPTBot (compatible)", "GPTBot; +https://openai.com/gptbot",
                                "GPTBot 1.2", "GPTBot,", "gptbot (+openai.com)"])
def test_a_user_agent_without_a_version_is_read_as_a_header(ua: str) -> None:
    # RFC 9110 10.1.5: the product version is optional ("product = token ["/" version]");
    # guard_robots.txt says "User-agent: GPTBot / Disallow: /". The header's product token
    # names the crawler (RFC 9309 2.2.1), however the rest of the header is written
    d = guard(mode="enforce").decide("GET", "/blog", {"User-Agent": ua}, "198.51.100.7")
    assert d.token.lower() == "gptbot"
    assert d.allowed is False
    assert d.status == 403


@pytest.mark.parametrize("ua", ["Googlebot-Image/1.0", "Googlebot-News",
                                "Googlebot-Video/1.0", "GoogleOther-Image/1.0"])
def test_a_crawler_obeys_its_fallback_group_as_the_registry_says(ua: str) -> None:
    # Google's crawler overview: Googlebot-Image, -News and -Video obey the Googlebot group
    # when no group names them (GoogleOther-Image: GoogleOther's); the registry's rule
    # (robotrules.agents.assess: via "fallback"). The guard asked the * group instead, so
    # Googlebot-Image was served what "User-agent: Googlebot / Disallow: /photos/" keeps from it
    robots = ("User-agent: Googlebot\nUser-agent: GoogleOther\nDisallow: /photos/\n\n"
              "User-agent: *\nAllow: /\n")
    g = Guard(robots, mode="enforce", ranges=RangeStore())
    d = g.decide("GET", "/photos/a.jpg", {"User-Agent": ua}, "198.51.100.7")
    assert d.allowed is False
    assert d.line == 3
    assert d.status == 403
    assert g.decide("GET", "/blog", {"User-Agent": ua}, "198.51.100.7").status == 200
    # a group of its own is the one it obeys (RFC 9309 2.2.1: the most specific)
    own = Guard(robots + "\nUser-agent: Googlebot-Image\nUser-agent: Googlebot-News\n"
                "User-agent: Googlebot-Video\nUser-agent: GoogleOther-Image\nAllow: /\n",
                mode="enforce", ranges=RangeStore())
    assert own.decide("GET", "/photos/a.jpg", {"User-Agent": ua}, "198.51.100.7").status == 200
