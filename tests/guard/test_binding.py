"""How the decision core binds a Web Bot Auth signature (robotrules.guard.core): a verified
signature identifies its own signer's crawler and vouches for no other User-Agent claim, and
only a signature made for one of this site's authorities is asked about at all.

Sources: issue 35 ("any trusted signer's valid signature verifies a User-Agent claim of a
different crawler (Googlebot signed by another agent's key, from an address outside Google's
ranges, is 'verified' and the IP list is never asked)"; "a signature made for another site
(@authority: attacker.example) replayed here with that Host is verified, and on_charge bills
the real operator"); draft-meunier-web-bot-auth-architecture ("the signature MUST cover
@authority", the Signature-Agent names the signer's key directory); RFC 9421 2.2.3
(@authority is the target URI's authority, lower-cased, no default port).

Most tests drive the core with a stub verifier that keeps the verifier's contract (``verify``
gives a result whose ``state`` is ``verified``, ``invalid`` or anything else for "no evidence",
and whose ``agent`` is the signer's key-directory origin; ``None`` when the directory must be
fetched), so they test the core's part whatever the verifier's own version.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pytest

from robotrules.guard import Guard, Policy
from robotrules.guard.webbotauth import WebBotAuth

from .conftest import EXAMPLES, Signer
from .servers import google_ranges

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36"
ROBOTS = (EXAMPLES / "guard_robots.txt").read_bytes()
SIGNED = {"Signature": "sig1=:AAAA:", "Signature-Input": 'sig1=("@authority");tag="web-bot-auth"',
          "Signature-Agent": '"https://other.example"'}


@dataclass
class Result:
    state: str
    agent: str | None
    detail: str = "stub result"
    covered: frozenset[str] = frozenset({"@authority", "signature-agent"})
    keyid: str | None = "k"


@dataclass
class Stub:
    """A verifier by the contract: always answers ``result``."""

    result: Result | None
    agent: str | None = "https://other.example"
    urls: list[str] = field(default_factory=list)
    fetched: list[str] = field(default_factory=list)

    def verify(self, method: str, url: str, pairs: Sequence[tuple[str, str]],
               headers: Mapping[str, str], now: float | None = None) -> Result | None:
        self.urls.append(url)
        return self.result

    def agent_of(self, headers: Mapping[str, str]) -> str | None:
        return self.agent

    def fetch(self, agent: str) -> None:
        self.fetched.append(agent)


def guard(stub: Stub, **kw: object) -> Guard:
    kw.setdefault("authorities", ["site.example"])
    return Guard(ROBOTS, ranges=google_ranges(), web_bot_auth=stub, **kw)  # type: ignore[arg-type]


def ask(g: Guard, ua: str, peer: str, host: str = "site.example") -> object:
    return g.decide("GET", "/blog", {"User-Agent": ua, "Host": host, **SIGNED}, peer)


def test_another_signer_does_not_vouch_for_googlebot() -> None:
    stub = Stub(Result("verified", "https://other.example"))
    g = guard(stub, mode="enforce")
    outside = g.decide("GET", "/blog", {"User-Agent": GOOGLEBOT, "Host": "site.example",
                                        **SIGNED}, "198.51.100.7")
    # the claim is checked by Google's own method, and the list says no
    assert outside.verification.state == "spoofed"
    assert outside.verification.method == "ip-ranges"
    assert outside.status == 403
    inside = g.decide("GET", "/blog", {"User-Agent": GOOGLEBOT, "Host": "site.example",
                                       **SIGNED}, "66.249.66.1")
    assert (inside.verification.state, inside.verification.method) == ("verified", "ip-ranges")
    assert inside.verification.signer is None


def test_the_signer_named_for_the_crawler_verifies_it() -> None:
    # the registry: ChatGPT Agent signs as https://chatgpt.com
    ok = guard(Stub(Result("verified", "https://chatgpt.com"))).decide(
        "GET", "/blog", {"User-Agent": "ChatGPT Agent", "Host": "site.example", **SIGNED},
        "192.0.2.1")
    assert (ok.verification.state, ok.verification.method) == ("verified", "web-bot-auth")
    assert ok.verification.signer == "https://chatgpt.com"
    other = guard(Stub(Result("verified", "https://other.example"))).decide(
        "GET", "/blog", {"User-Agent": "ChatGPT Agent", "Host": "site.example", **SIGNED},
        "192.0.2.1")
    assert other.verification.state == "spoofed"
    assert "https://chatgpt.com" in other.verification.detail


def test_a_browser_user_agent_is_identified_by_its_signer() -> None:
    d = guard(Stub(Result("verified", "https://chatgpt.com"))).decide(
        "GET", "/blog", {"User-Agent": BROWSER, "Host": "site.example", **SIGNED}, "192.0.2.1")
    assert (d.verification.state, d.token, d.operator) == ("verified", "ChatGPT Agent",
                                                           "OpenAI")


def test_a_crawler_without_a_signature_agent_is_not_vouched_for() -> None:
    # ClaudeBot publishes no method: another agent's signature is no evidence for it
    d = guard(Stub(Result("verified", "https://chatgpt.com"))).decide(
        "GET", "/blog", {"User-Agent": "ClaudeBot/1.0", "Host": "site.example", **SIGNED},
        "192.0.2.1")
    assert d.verification.state == "unverifiable"
    assert "does not vouch for ClaudeBot" in d.verification.detail
    assert d.token == "ClaudeBot"


@pytest.mark.parametrize("state", ["unverified", "unverifiable", "unsigned", "anything"])
def test_other_states_are_no_evidence(state: str) -> None:
    d = guard(Stub(Result(state, "https://chatgpt.com"))).decide(
        "GET", "/blog", {"User-Agent": "ChatGPT Agent", "Host": "site.example", **SIGNED},
        "192.0.2.1")
    assert d.verification.state == "unverifiable"


def test_invalid_is_evidence() -> None:
    d = guard(Stub(Result("invalid", "https://chatgpt.com")), mode="enforce").decide(
        "GET", "/blog", {"User-Agent": "ChatGPT Agent", "Host": "site.example", **SIGNED},
        "192.0.2.1")
    assert (d.verification.state, d.status) == ("spoofed", 403)


@pytest.mark.parametrize("host", ["attacker.example", "site.example.attacker.example",
                                  "x?", "site.example/..", "user@site.example", ""])
def test_a_signature_for_another_site_is_not_asked_about(host: str) -> None:
    # issue 35: a signature made for attacker.example replayed here with that Host; the
    # verifier is not even asked, and pay-per-crawl charges nothing
    charged: list[str] = []
    stub = Stub(Result("verified", "https://chatgpt.com"))
    g = guard(stub, mode="enforce", policy=Policy(on_purpose={"user-fetch": "pay"},
                                                  on_charge=charged.append))
    offer = {"crawler-max-price": "USD 1.00"}
    d = g.decide("GET", "/blog", {"User-Agent": "ChatGPT Agent", "Host": host, **SIGNED,
                                  **offer}, "192.0.2.1")
    assert d.verification.state != "verified"
    assert stub.urls == []
    assert charged == []
    assert d.status == 402


def test_the_url_signed_is_this_sites_authority() -> None:
    stub = Stub(Result("verified", "https://chatgpt.com"))
    g = guard(stub, authorities=["Site.Example", "www.site.example:8443"])
    g.decide("GET", "/blog?q=1", {"User-Agent": "ChatGPT Agent", "Host": "SITE.example:443",
                                   **SIGNED}, "192.0.2.1")
    g.decide("GET", "https://www.site.example:8443/x",
             {"User-Agent": "ChatGPT Agent", **SIGNED}, "192.0.2.1")
    assert stub.urls == ["https://site.example/blog?q=1", "https://www.site.example:8443/x"]


def test_web_bot_auth_needs_authorities() -> None:
    with pytest.raises(ValueError, match="authorities"):
        Guard(ROBOTS, ranges=google_ranges(), web_bot_auth=Stub(None))  # type: ignore[arg-type]
    # without authorities and without a verifier, signatures are off: nothing is asked
    d = Guard(ROBOTS, ranges=google_ranges()).decide(
        "GET", "/blog", {"User-Agent": "ChatGPT Agent", "Host": "site.example", **SIGNED},
        "192.0.2.1")
    assert d.verification.state == "unverifiable"
    assert "Web Bot Auth is off" in d.verification.detail


def test_a_missing_directory_is_a_look_up() -> None:
    stub = Stub(None, agent="https://chatgpt.com")
    g = guard(stub)
    d = g.decide("GET", "/blog", {"User-Agent": "ChatGPT Agent", "Host": "site.example",
                                  **SIGNED}, "192.0.2.1")
    assert [(p.kind, p.key) for p in d.pending] == [("keys", "https://chatgpt.com")]
    g.check("GET", "/blog", {"User-Agent": "ChatGPT Agent", "Host": "site.example", **SIGNED},
            "192.0.2.1", timeout=5)
    assert stub.fetched == ["https://chatgpt.com"]


def test_real_verifier_another_signer_for_googlebot() -> None:
    # the same binding with the real verifier and a real Ed25519 signature (RFC 9421)
    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False, trusted_agents=["https://agent.example"])
    w.add_keys("https://agent.example", signer.jwks())
    g = Guard(ROBOTS, ranges=google_ranges(), web_bot_auth=w, authorities=["site.example"])
    url = "https://site.example/blog"
    d = g.decide("GET", url, {"User-Agent": GOOGLEBOT, **signer.sign(url)}, "198.51.100.7")
    assert d.verification.state == "spoofed"
    assert d.verification.method == "ip-ranges"


@pytest.mark.skipif("authorities" not in inspect.signature(WebBotAuth.__init__).parameters,
                    reason="WebBotAuth(authorities=...) is the verifier's own change")
def test_authorities_make_the_default_verifier() -> None:
    g = Guard(ROBOTS, ranges=google_ranges(), authorities=["site.example"])
    assert isinstance(g.wba, WebBotAuth)
