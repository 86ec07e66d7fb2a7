"""The guard's decision core, sans-I/O: a request in, a :class:`Decision` out.

One decision is one generator, :meth:`GuardCore.flow` (the model: httpx's ``Auth.auth_flow``).
It reads no socket, file or clock of its own (the time is given; the clock, the files and the
look-ups are the shell's, :mod:`.service`). It

1. reads the request target as the application will serve it (:mod:`.target`: the path as
   sent and as the server decodes it, dot segments resolved, slashes merged), never the Host;
2. finds the client address (:mod:`.peer`: one forwarding header, the operator's, only from
   trusted proxies, walked from the right);
3. identifies the crawler: the User-Agent's product token by the project's one rule
   (:func:`robotrules._token.header_token`) looked up in the registry
   (:func:`robotrules.agents.find_agent`: operator, purposes);
4. verifies the claim by the methods its operator publishes, a table of methods
   (:data:`METHODS`: Web Bot Auth, published IP ranges, forward-confirmed reverse DNS) whose
   evidence is combined by one table (:data:`OUTCOMES`). A method that needs a look-up it has
   not cached (a key directory, a DNS answer) says so; the flow **yields** those
   :class:`Pending` look-ups once and is sent back, for each, how it went (:data:`Answer`:
   ``answered``, ``late``, ``refused``, ``skipped``); then it decides with what it has;
5. asks the site's robots.txt about every form of the target (a disallow on any form is a
   disallow; the deciding line from ``explain``), its Crawl-delay, and its usage preferences
   (:mod:`robotrules.aipref`, the vocabulary's own keys);
6. applies the :class:`~.policy.Policy` and the mode: ``observe`` decides and reports but never
   blocks, ``enforce`` answers 403 / 402 / 401 / 429 as the policy says.

States: ``verified`` (a method confirms the claim), ``spoofed`` (evidence against it: an address
outside the operator's fresh list, a reverse DNS name outside its domains or not
forward-confirmed, a signature that does not verify, replayed, or made by a signer other than
the one the crawler signs as; or a claim the guard was kept from checking: the client address
cannot be determined, or the look-up queue is full), ``unverifiable`` (no method, or a check
that could not answer in time and no other evidence) and ``unsigned`` (a crawler the registry
does not know, or one that only signs, without a signature).

:func:`drive` and :func:`adrive` pump a flow with a function that answers its look-ups: the
shells' sync and async drivers; :meth:`GuardCore.decide` drives it answering ``skipped`` (no
I/O), so that its :attr:`Decision.pending` names what a caller could look up.

Threading: a core serves many threads (its memos are dicts replaced whole when full; a race
costs a recomputation, never a wrong answer).

Cost: a decision for a crawler whose checks are cached is a few dict look-ups, one native
``is_allowed`` per form of the target and, for a target seen before, a memo hit
(``benchmarks/bench_guard.py``).
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from .. import aipref
from .._dialects import spec
from .._origin import authority_of, origin_or_none, origin_parts
from .._token import _GENERIC, header_token, query_key
from .._url import path_params_query
from ..agents import KnownAgent, find_agent, obeyed_token, purposes_of
from ..aipref.vocabulary import CONTENT_SIGNAL_KEYS, vocabulary
from .peer import ClientAddress, TrustedProxies, parse_ip
from .policy import STATUS, Action, Policy
from .registry import NONE, Checks, by_signature_agent, checks_for
from .target import forms

if TYPE_CHECKING:
    from .. import RobotsTxt, Verdict
    from .ranges import RangeStore
    from .rdns import RdnsResult

__all__ = ["BROWSERS", "METHODS", "OUTCOMES", "Answer", "Decision", "GuardCore", "Mode",
           "Pending", "Request", "Signatures", "State", "Verification", "adrive", "drive"]

Mode = Literal["observe", "enforce"]
State = Literal["verified", "spoofed", "unverifiable", "unsigned"]
#: How a look-up went: ``answered`` (its answer is cached now), ``late`` (not within the
#: time the request may wait), ``refused`` (not started: too many look-ups waiting),
#: ``skipped`` (not asked: :meth:`GuardCore.decide`).
Answer = Literal["answered", "late", "refused", "skipped"]
#: Product tokens that name a browser, an engine or a platform, never a crawler: the project's
#: one list (:mod:`robotrules._token`). Such requests are never acted on.
BROWSERS: Final = _GENERIC
MAX_UA: Final = 4096
#: A target longer than this is decided every time, never memoised.
MEMO_TARGET_MAX: Final = 2048
_ENTRY_COST: Final = 240  # bytes a memo entry costs beyond its keys' text (dict slot, tuple)
_BASE: Final = "http://guard.invalid"  # an authority for the URL rule to cut the target from
_ORIGIN_FORM: Final = re.compile(r"([^?]*)(?:\?(.*))?", re.S)  # RFC 9112 3.2.1


@dataclass(frozen=True, slots=True)
class Pending:
    """A look-up the core needs before it can say more: ``kind`` ``rdns`` (``key`` the
    address, ``suffixes``) or ``keys`` (``key`` the Signature-Agent origin)."""

    kind: Literal["rdns", "keys"]
    key: str
    suffixes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Request:
    """One request as the guard reads it. ``path`` the path as sent (percent-encoded bytes:
    ASGI ``raw_path``), ``served_path`` the server's decoded path (ASGI ``path`` as UTF-8,
    WSGI ``PATH_INFO`` as its Latin-1 bytes), either ``None`` when the server does not give
    it; ``query`` as sent; ``headers`` ``(name, value)`` pairs; ``peer`` the socket peer;
    ``scheme`` and ``authority`` (an absolute-form target's; else the ``Host`` header) only
    form the URL a signature is checked against."""

    method: str
    path: bytes | None
    query: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    peer: str | None = None
    served_path: bytes | None = None
    scheme: str = "https"
    authority: str | None = None

    @classmethod
    def from_url(cls, method: str, url: str,
                 headers: Mapping[str, str] | Sequence[tuple[str, str]] = (),
                 peer: str | None = None) -> Request:
        """A request for ``url``: a path[?query] (origin-form, RFC 9112 3.2.1: ``//x`` is a
        path), or an absolute URL whose path the project's URL rule cuts
        (:func:`robotrules._url.path_params_query`)."""
        scheme, authority = "https", None
        if url[:1] != "/":
            origin = origin_or_none(url)
            if origin is not None:
                scheme, authority = origin_parts(origin)
            url = path_params_query(url)
        m = _ORIGIN_FORM.match(url)
        assert m is not None  # the pattern matches any text
        path, query = m.group(1, 2)
        pairs = tuple(headers.items()) if type(headers) is dict or isinstance(
            headers, Mapping) else tuple(headers)
        return cls(method, path.encode("utf-8", "surrogateescape"),
                   query.encode("utf-8", "surrogateescape") if query else b"", pairs, peer,
                   None, scheme, authority)


@dataclass(frozen=True, slots=True)
class Verification:
    """How the claim was checked: ``state``, the ``method`` that decided (``web-bot-auth``,
    ``ip-ranges``, ``reverse-dns``, ``client-address`` or ``None``) and a sentence."""

    state: State
    method: str | None
    detail: str
    covered: frozenset[str] = frozenset()  # what a verified Web Bot Auth signature covers
    signer: str | None = None  # the key-directory origin of a verified signature

    def to_dict(self) -> dict[str, object]:
        return {"state": self.state, "method": self.method, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Decision:
    """What the guard makes of one request (see the module docstring).

    ``path`` is the target as the file's dialect reads it (the form that decided);
    ``status`` is what the response should be when ``enforced`` (200: pass the request on);
    ``headers`` are added to every response (Content-Usage, Content-Signal) and
    ``block_headers`` to the guard's own answer (``crawler-price``, ``WWW-Authenticate``,
    ``Retry-After``).
    """

    method: str
    path: str
    user_agent: str
    token: str
    crawler: KnownAgent | None
    purposes: tuple[str, ...]
    client: ClientAddress
    verification: Verification
    allowed: bool | None
    line: int | None
    rule: str | None
    action: Action
    status: int
    reason: str
    mode: Mode
    headers: tuple[tuple[str, str], ...] = ()
    block_headers: tuple[tuple[str, str], ...] = ()
    pending: tuple[Pending, ...] = ()
    is_crawler: bool = True
    time: float = field(default=0.0, compare=False)

    @property
    def enforced(self) -> bool:
        """The shell should answer ``status`` itself instead of passing the request on."""
        return self.mode == "enforce" and self.action != "allow"

    @property
    def operator(self) -> str | None:
        return self.crawler.operator if self.crawler else None

    @property
    def purpose(self) -> str:
        return self.purposes[0] if self.purposes else "unknown"

    @property
    def violation(self) -> bool:
        """A crawler fetched a path the site's robots.txt disallows for it."""
        return self.is_crawler and self.allowed is False

    @property
    def notable(self) -> bool:
        """A violation or a spoofed claim: what the shells log at WARNING."""
        return self.is_crawler and (self.allowed is False
                                    or self.verification.state == "spoofed")

    def summary(self) -> str:
        """One line saying what was (enforce) or would have been (observe) done, and why."""
        if self.action == "allow":
            done = "allowed"
        elif self.enforced:
            done = f"{'blocked' if self.action == 'block' else self.action} ({self.status})"
        else:
            done = f"would {self.action} ({self.status}), served in observe mode"
        why = self.reason
        if self.line is not None and f"line {self.line} " not in why:
            why += f"; robots.txt line {self.line} '{self.rule}'"
        v = self.verification
        return (f"{done}: {self.method} {self.path} from {self.client.ip or '?'}: "
                f"{self.token}, {v.state} ({v.detail}); {why}")

    def to_dict(self) -> dict[str, object]:
        return {
            "time": self.time, "method": self.method, "path": self.path,
            "user_agent": self.user_agent, "crawler": self.token,
            "known": self.crawler is not None, "operator": self.operator,
            "purposes": list(self.purposes), "client": self.client.ip,
            "client_via": self.client.via, "verification": self.verification.to_dict(),
            "allowed": self.allowed, "line": self.line, "rule": self.rule,
            "action": self.action, "status": self.status, "enforced": self.enforced,
            "reason": self.reason, "mode": self.mode,
            "headers": dict(self.headers), "block_headers": dict(self.block_headers),
        }


class SigResultLike(Protocol):
    """What the core reads of a Web Bot Auth result (:class:`~.webbotauth.SigResult`)."""

    @property
    def state(self) -> str: ...
    @property
    def agent(self) -> str | None: ...
    @property
    def detail(self) -> str: ...
    @property
    def covered(self) -> frozenset[str]: ...


class Signatures(Protocol):
    """What the core asks of a Web Bot Auth verifier (:class:`~.webbotauth.WebBotAuth`):
    ``verify`` gives ``None`` when the signer's key directory must be fetched first (the
    directory of ``agent_of(headers)``); a state other than ``verified`` and ``invalid`` is
    no evidence either way."""

    def verify(self, method: str, url: str, pairs: Sequence[tuple[str, str]],
               headers: Mapping[str, str], now: float | None = None
               ) -> SigResultLike | None: ...

    def agent_of(self, headers: Mapping[str, str]) -> str | None: ...

    def fetch(self, agent: str) -> object: ...


# -- the facts of one request, read once ----------------------------------------------------

@dataclass(slots=True)
class _Facts:
    req: Request
    headers: dict[str, str]
    ua: str
    token: str
    key: str  # the token as groups are keyed (robotrules._token.query_key)
    crawler: KnownAgent | None
    checks: Checks
    purposes: tuple[str, ...]
    browser: bool  # the token names a browser, not a crawler
    obeys: str  # the token whose robots.txt group the crawler obeys (agents.obeyed_token)
    client: ClientAddress
    addr: ipaddress.IPv4Address | ipaddress.IPv6Address | None  # None: not usable evidence
    addr_note: str | None
    signed: bool
    targets: tuple[str, ...]


# Evidence one method gives: (kind, detail, pending look-up, covered components, signer).
# kind: "verified", "pending", "spoofed", "unchecked", "unsigned", "none".
Evidence = tuple[str, str, Pending | None, frozenset[str], str | None]
_NO_COVER: Final[frozenset[str]] = frozenset()

#: How evidence becomes a state, strongest first (h11's state tables are the model): a method
#: that confirms the claim decides; a look-up still to make comes next (the flow waits for
#: it before evidence against the claim stands, as it may confirm); then evidence against;
#: then a claim the guard was kept from checking (treated as spoofed: the strictest state);
#: then an operator that signs and an unsigned request; then no evidence.
OUTCOMES: Final[tuple[tuple[str, State], ...]] = (
    ("verified", "verified"),
    ("pending", "unverifiable"),
    ("spoofed", "spoofed"),
    ("unchecked", "spoofed"),
    ("unsigned", "unsigned"),
    ("none", "unverifiable"),
)
_RANK: Final = {kind: n for n, (kind, _state) in enumerate(OUTCOMES)}
_METHOD_OF: Final[dict[str, str | None]] = {"unsigned": None}  # no method decided it


def _look_up(p: Pending, answers: Mapping[Pending, Answer], what: str) -> Evidence:
    """The evidence of a method whose answer is not cached, by how its look-up went."""
    answer = answers.get(p)
    if answer is None or answer == "skipped":
        return ("pending", f"{what}: checks pending", p, _NO_COVER, None)
    if answer == "refused":
        return ("unchecked", f"{what} could not be checked: too many look-ups waiting",
                None, _NO_COVER, None)
    return ("none", f"{what} did not answer in time", None, _NO_COVER, None)


# -- the decision core ----------------------------------------------------------------------

class GuardCore:
    """The decision core over values: ``rules`` the parsed robots.txt and ``robots_body`` the
    bytes served at ``/robots.txt``; ``clock`` gives the time when a call does not; the other
    arguments are :class:`~.service.Guard`'s (which fills in defaults and the look-ups)."""

    def __init__(self, rules: RobotsTxt, robots_body: bytes, *, clock: Callable[[], float],
                 ranges: RangeStore, mode: Mode = "observe", policy: Policy | None = None,
                 proxies: TrustedProxies | None = None, rdns: Any = None,
                 signatures: Signatures | None = None, authorities: Iterable[str] = (),
                 signature_agents: Mapping[str, str] | None = None,
                 tdmrep: str | bytes | None = None, vocabulary_name: str = "vocab-07",
                 memo_bytes: int = 4 << 20, on_decision: Any = None) -> None:
        if mode not in ("observe", "enforce"):
            raise ValueError(f"mode must be 'observe' or 'enforce', not {mode!r}")

        self.rules = rules
        self.robots_body = robots_body
        self.clock = clock
        self.mode: Mode = mode
        self.policy = policy or Policy()
        self.proxies = proxies if proxies is not None else TrustedProxies()
        self.ranges = ranges
        self.rdns = rdns
        self.signatures = signatures
        self.authorities = frozenset(
            a for name in authorities for a in (_authority(name, "https"),
                                                 _authority(name, "http")) if a)
        if signatures is not None and not self.authorities:
            raise ValueError(
                "Web Bot Auth needs authorities=[...]: this site's own host names (as in the "
                "Host header, e.g. 'example.com', 'www.example.com:8443'), to which a signature "
                "must be bound; without them a signature made for another site would verify")
        self.signature_agents = {query_key(k): v.rstrip("/").lower() for k, v in
                                 (signature_agents or {}).items()}
        self.tdmrep = tdmrep.encode("utf-8") if isinstance(tdmrep, str) else tdmrep
        self.on_decision = on_decision
        vocab = vocabulary(vocabulary_name)
        self.vocabulary = vocab.name
        self._usage_keys = vocab.usage_keys
        self._usage_labels = frozenset(vocab.labels)
        self._has_prefs = bool(aipref.records(rules))
        self._path_of = spec(rules.dialect).path
        self._memo = _Memo(memo_bytes)
        self._who = _Memo(1 << 20)
        # preference headers by the preferences a path has: a few per file, kept
        self._headers_of: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}
        self._delay = _Memo(1 << 20)
        self._last = _Memo(4 << 20)

    # -- the public, I/O-free entry ----------------------------------------------------------

    def decide(self, method: str, url: str, headers: Mapping[str, str] | Sequence[
               tuple[str, str]], peer: str | None = None, *, now: float | None = None
               ) -> Decision:
        """Decide one request from what is cached (no I/O): ``headers`` as a mapping or
        ``(name, value)`` pairs (names any case); ``peer`` the socket peer's address; ``url``
        a path[?query] or an absolute URL. What would need a look-up is in
        :attr:`Decision.pending`."""
        return self.decide_request(Request.from_url(method, url, headers, peer), now=now)

    def decide_request(self, req: Request, *, now: float | None = None) -> Decision:
        """:meth:`decide` for a :class:`Request`."""
        return drive(self.flow(req, now), _skip)

    def verdict(self, d: Decision) -> Verdict:
        """The full robots.txt verdict (deciding line and group) for a decision."""
        return self.rules.explain(_BASE + d.path, user_agent=obeyed_token(
            self.rules, d.crawler) if d.crawler is not None else d.token)

    # -- the flow ---------------------------------------------------------------------------

    def flow(self, req: Request, now: float | None = None
             ) -> Generator[tuple[Pending, ...], Mapping[Pending, Answer], Decision]:
        """One decision: yields the look-ups it needs once (a tuple of :class:`Pending`), is
        sent how each went, and returns the :class:`Decision`."""
        t = self.clock() if now is None else now
        f = self._facts(req)
        if f.browser and not f.signed:
            return self._finish(Decision(
                req.method, self._path_of(_BASE + f.targets[0]), f.ua, f.token, None, (),
                f.client, Verification("unsigned", None, "a browser, not a crawler"), None,
                None, None, "allow", 200, "not a crawler", self.mode, is_crawler=False,
                time=t))
        answers: Mapping[Pending, Answer] = {}
        v, pending = self._verify(f, t, answers)
        if pending:
            answers = yield pending
            v, pending = self._verify(f, t, answers)
        return self._finish(self._decide(f, v, pending, t))

    def _facts(self, req: Request) -> _Facts:
        pairs = req.headers
        h = {k.lower(): v for k, v in pairs}
        if len(h) != len(pairs):  # a repeated field: its values joined (RFC 9110 5.3)
            h = {}
            for k, v in pairs:
                k = k.lower()
                h[k] = f"{h[k]}, {v}" if k in h else v
        ua = h.get("user-agent", "")[:MAX_UA]
        who = self._who.get(ua)
        if who is None:
            who = self._identify(ua)
            self._who.put(ua, who, len(ua))
        token, key, crawler, checks, purposes, browser, obeys = who
        client = self.proxies.client(req.peer, h)
        ip = client.ip
        addr = parse_ip(ip) if ip is not None else None
        note = client.note
        if addr is not None and ip is not None and _internal(ip, addr):
            # a crawler never comes from 10.x or 127.0.0.1: this is a proxy the guard was not
            # told about (trusted_proxies), and its address says nothing about the crawler
            note = f"{client.ip} is an internal address (a proxy? see trusted_proxies)"
            addr = None
        signed = "signature" in h and "signature-input" in h
        return _Facts(req, h, ua, token, key, crawler, checks, purposes, browser, obeys, client,
                      addr, note, signed, forms(req.path, req.query, req.served_path))

    def _identify(self, ua: str) -> tuple[str, str, KnownAgent | None, Checks,
                                          tuple[str, ...], bool, str]:
        """The claim of a User-Agent: its product token, the token's group key, the registry
        crawler, how it can be checked, its purposes, whether the token is a browser's, and
        the token whose group it obeys (memoised by the caller)."""
        # a header's product token (robotrules._token.header_token: "GPTBot (compatible)" is
        # GPTBot), unless the whole value is a registry name that has a space ("ChatGPT Agent")
        token = ua if "/" not in ua and find_agent(ua) is not None else header_token(ua)
        key = query_key(token) if token else ""
        crawler = find_agent(token) if token else None
        checks = checks_for(crawler) if crawler else NONE
        extra = self.signature_agents.get(key) if token else None
        if extra is not None:
            checks = Checks(checks.ranges_url, checks.ranges_format, checks.rdns, extra)
        purposes = tuple(purposes_of(crawler)) if crawler else ("unknown",)
        # the token as the header wrote it, or the fallback whose group the crawler obeys
        fallback = obeyed_token(self.rules, crawler) if crawler else token
        obeys = fallback if crawler is not None and fallback != crawler.token else token
        return (token, key, crawler, checks, purposes, crawler is None and key in BROWSERS,
                obeys)

    # -- verification: a table of methods, one table of outcomes ----------------------------

    def _verify(self, f: _Facts, now: float, answers: Mapping[Pending, Answer]
                ) -> tuple[Verification, tuple[Pending, ...]]:
        found: list[tuple[str, Evidence]] = []
        for name, method in METHODS:
            e = method(self, f, now, answers)
            if e is not None:
                if e[0] == "verified":  # the strongest outcome: nothing can outrank it
                    return Verification("verified", name, e[1], e[3], e[4]), ()
                found.append((name, e))
        if not found:
            return self._no_method(f), ()
        name, best = found[0] if len(found) == 1 else min(found, key=lambda ne: _RANK[ne[1][0]])
        pending = tuple(e[2] for _n, e in found if e[2] is not None)
        kind, detail, _p, covered, signer = best
        state = OUTCOMES[_RANK[kind]][1]
        if kind == "verified":
            return Verification(state, name, detail, covered, signer), ()
        if kind in ("none", "pending"):
            notes = [e[1] for _n, e in found if e[0] in ("none", "pending")]
            if f.addr_note is not None and (f.checks.ranges_url or f.checks.rdns):
                notes.insert(0, f.addr_note)
            return Verification(state, None, "; ".join(dict.fromkeys(notes))), pending
        decided_by = _METHOD_OF.get(kind, name)
        if kind == "unchecked" and not f.client.determined:
            decided_by = "client-address"
        return Verification(state, decided_by, detail), pending

    def _no_method(self, f: _Facts) -> Verification:
        if f.crawler is None:
            return Verification("unsigned", None, "no User-Agent" if not f.token else
                                f"{f.token} is not a crawler the registry knows")
        return Verification("unverifiable", None,
                            f"{f.crawler.operator} publishes no way to verify its crawler")

    def _by_signature(self, f: _Facts, now: float, answers: Mapping[Pending, Answer]
                      ) -> Evidence | None:
        signs_as = f.checks.signature_agent
        if not f.signed:
            if signs_as and not (f.checks.ranges_url or f.checks.rdns):
                # the operator's one method is a signature, and this request carries none
                return ("unsigned", f"{f.token} signs its requests as {signs_as} (Web Bot "
                        "Auth); this one is not signed", None, _NO_COVER, None)
            return None
        if self.signatures is None:
            return ("none", "signed, but Web Bot Auth is off (no authorities configured)",
                    None, _NO_COVER, None)
        host = f.req.authority or f.headers.get("host", "")
        authority = _authority(host, f.req.scheme)
        if authority is None or authority not in self.authorities:
            return ("none", f"signed, but for Host {host[:80]!r}, which is not one of this "
                    "site's authorities", None, _NO_COVER, None)
        sent = f.req.path if f.req.path is not None else (f.req.served_path or b"/")
        target = sent.decode("latin-1") + ("?" + f.req.query.decode("latin-1")
                                           if f.req.query else "")
        pairs = f.req.headers
        sig = self.signatures.verify(f.req.method, f"{f.req.scheme}://{authority}{target}",
                                     pairs, f.headers, now)
        if sig is None:
            agent = self.signatures.agent_of(f.headers)
            if agent is None:
                return ("none", "signed, but no trusted Signature-Agent names its key",
                        None, _NO_COVER, None)
            return _look_up(Pending("keys", agent), answers, f"the key directory of {agent}")
        if sig.state == "invalid":
            return ("spoofed", sig.detail, None, _NO_COVER, None)
        if sig.state != "verified" or sig.agent is None:
            return ("none", sig.detail, None, _NO_COVER, None)
        # a verified signature identifies its own signer, and vouches for no one else
        signer = sig.agent.rstrip("/").lower()
        if signs_as is not None:
            if signs_as.rstrip("/").lower() == signer:
                return ("verified", sig.detail, None, frozenset(sig.covered), signer)
            return ("spoofed", f"signed by {signer}, but {f.token} signs as {signs_as}",
                    None, _NO_COVER, None)
        if f.crawler is None:  # a browser's or an unknown User-Agent: the signer is the agent
            return ("verified", sig.detail, None, frozenset(sig.covered), signer)
        return ("none", f"signed by {signer}, which does not vouch for {f.token}", None,
                _NO_COVER, None)

    @staticmethod
    def _no_address(f: _Facts) -> Evidence | None:
        """The evidence of an address method when the address cannot be used: ``unchecked``
        (the client cannot be determined: the strictest state), ``none`` (no address, or an
        internal one), else ``None`` (the method may look)."""
        if not f.client.determined:
            return ("unchecked", f"{f.client.note}; a claim that cannot be tied to an address "
                    "is not believed", None, _NO_COVER, None)
        if f.addr is None:
            return ("none", f.addr_note or "no client address", None, _NO_COVER, None)
        return None

    def _by_ranges(self, f: _Facts, now: float, answers: Mapping[Pending, Answer]
                   ) -> Evidence | None:
        url = f.checks.ranges_url
        if not url:
            return None
        if f.addr is None or not f.client.determined:
            return self._no_address(f)
        state = self.ranges.state(url, f.addr, now)
        if state == "in":
            return ("verified", f"{f.client.ip} is in {url}", None, _NO_COVER, None)
        if state == "out":
            return ("spoofed", f"{f.client.ip} is not in {url}", None, _NO_COVER, None)
        return ("none", f"the range list {url} is {state}", None, _NO_COVER, None)

    def _by_rdns(self, f: _Facts, now: float, answers: Mapping[Pending, Answer]
                 ) -> Evidence | None:
        suffixes = f.checks.rdns
        if not suffixes:
            return None
        ip = f.client.ip
        if f.addr is None or ip is None or not f.client.determined:
            return self._no_address(f)
        if self.rdns is None:
            return ("none", "reverse DNS checks are off", None, _NO_COVER, None)
        r: RdnsResult | None = self.rdns.cached(ip, suffixes)
        if r is None:
            return _look_up(Pending("rdns", ip, suffixes), answers, f"reverse DNS of {ip}")
        kind = {"verified": "verified", "spoofed": "spoofed"}.get(r.state, "none")
        return (kind, r.detail, None, _NO_COVER, None)

    # -- robots.txt, policy ------------------------------------------------------------------

    def _decide(self, f: _Facts, v: Verification, pending: tuple[Pending, ...], now: float
                ) -> Decision:
        crawler, token, purposes, key = f.crawler, f.token, f.purposes, f.key
        obeys = f.obeys
        if crawler is None and v.signer is not None and v.state == "verified":
            # a signed agent with a browser's (or no known) User-Agent: its signature names it
            crawler = by_signature_agent(v.signer)
            if crawler is not None:
                token, key = crawler.token, query_key(crawler.token)
                obeys = obeyed_token(self.rules, crawler)
                purposes = tuple(purposes_of(crawler))
        if not token:
            token = obeys = "(none)"
        # robots.txt is asked as the group the crawler obeys is keyed (its fallback's, when
        # no group names it: Googlebot-Image obeys Googlebot's)
        group = key if obeys == token else query_key(obeys)
        allowed, line, rule, path, headers_out = self._robots(obeys, group, f.targets)
        action, reason, extra = self._act(obeys, group, f.client, v, allowed, line, rule,
                                          purposes, now)
        if action in ("pay", "license"):
            action, reason, extra, headers_out = self._settle(action, reason, extra, f.headers,
                                                              v, headers_out)
        return Decision(f.req.method, path, f.ua, token, crawler, purposes, f.client, v,
                        allowed, line, rule, action, STATUS[action], reason, self.mode,
                        headers_out, extra, pending, True, now)

    def _finish(self, d: Decision) -> Decision:
        if self.on_decision is not None and not d.pending:
            self.on_decision(d)
        return d

    def _robots(self, token: str, key_: str, targets: tuple[str, ...]
                ) -> tuple[bool, int | None, str | None, str, tuple[tuple[str, str], ...]]:
        """The answer of robots.txt for every form of the target: disallowed when any form
        is (the first such form decides), else allowed with the preferences of the form
        served (the last)."""
        key = (key_, targets)
        hit = self._memo.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        rules = self.rules
        out: tuple[bool, int | None, str | None, str, tuple[tuple[str, str], ...]] | None = None
        for t in targets:
            url = _BASE + t
            if not rules.is_allowed(url, user_agent=token):
                v = rules.explain(url, user_agent=token)
                out = (False, v.line, str(v.rule) if v.rule is not None else None, v.path, ())
                break
        if out is None:
            url = _BASE + targets[-1]
            prefs: tuple[tuple[str, str], ...] = ()
            if self._has_prefs:
                u = rules.usage(url, user_agent=token, vocabulary=self.vocabulary)
                prefs = tuple((k, "y" if u[k] else "n") for k in self._usage_keys
                              if u[k] is not None)
            headers = self._headers_of.get(prefs)
            if headers is None:
                headers = self._headers_of[prefs] = self._pref_headers(prefs)
            out = (True, None, None, self._path_of(_BASE + targets[0]), headers)
        size = sum(map(len, targets))
        if size <= MEMO_TARGET_MAX:
            self._memo.put(key, out, len(key[0]) + size + len(out[3]))
        return out

    def _pref_headers(self, prefs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        p = self.policy
        out: list[tuple[str, str]] = []
        usage = p.content_usage
        signal = p.content_signal
        if usage is None:
            cu = [f"{k}={v}" for k, v in prefs if k in self._usage_labels]
            usage = ", ".join(cu) or None
        if signal is None:
            cs = [f"{k}={'yes' if v == 'y' else 'no'}" for k, v in prefs
                  if k in CONTENT_SIGNAL_KEYS]
            signal = ", ".join(cs) or None
        if usage:
            out.append(("Content-Usage", usage))
        if signal:
            out.append(("Content-Signal", signal))
        return tuple(out)

    def _act(self, token: str, key: str, client: ClientAddress, v: Verification,
             allowed: bool, line: int | None, rule: str | None, purposes: tuple[str, ...],
             now: float) -> tuple[Action, str, tuple[tuple[str, str], ...]]:
        p = self.policy
        action: Action | None = p.on_state.get(v.state)
        reason = ""
        if action is not None and action != "allow":
            reason = f"{v.state}: {v.detail}"
        elif not allowed:
            action = p.on_disallowed
            reason = f"robots.txt line {line} '{rule}' disallows it for {token}"
        else:
            action = p.for_purposes(purposes)
            if action is not None and action != "allow":
                reason = f"the site's policy for {'/'.join(purposes)} crawlers"
            elif p.pace:
                wait = self._pace(token, key, client.ip, now)
                if wait > 0:
                    action = "slow-down"
                    reason = f"Crawl-delay for {token}: come back in {wait} s"
                    return action, reason, (("Retry-After", str(wait)),)
        if action is None or action == "allow":
            return "allow", "allowed", ()
        extra: tuple[tuple[str, str], ...] = ()
        if action == "pay":
            extra = (("crawler-price", p.price),)
        elif action == "license":
            extra = (("WWW-Authenticate", "License"),)
        elif action == "slow-down":
            delay = self._crawl_delay(token, key)
            extra = (("Retry-After", str(max(1, math.ceil(delay or 1)))),)
        return action, reason, extra

    def _settle(self, action: Action, reason: str, extra: tuple[tuple[str, str], ...],
                h: Mapping[str, str], v: Verification, headers: tuple[tuple[str, str], ...]
                ) -> tuple[Action, str, tuple[tuple[str, str], ...],
                           tuple[tuple[str, str], ...]]:
        """A crawler that comes back ready to pay or with a licence is let through.

        Pay per crawl (Cloudflare): ``crawler-exact-price`` equal to the price, or
        ``crawler-max-price`` at least the price, in a header its verified Web Bot Auth
        signature covers; the answer carries ``crawler-charged``. RSL: ``Authorization:
        License <token>`` that the policy's ``accept_license`` accepts.
        """
        p = self.policy
        if action == "pay":
            ours = _price(p.price)
            for name in ("crawler-exact-price", "crawler-max-price"):
                offer = _price(h.get(name, ""))
                if ours is None or offer is None or offer[0] != ours[0]:
                    continue
                if not (v.state == "verified" and v.method == "web-bot-auth"
                        and name in v.covered):
                    reason = f"{name} must be covered by a verified Web Bot Auth signature"
                    continue
                if (offer[1] == ours[1]) if name == "crawler-exact-price" else \
                        (offer[1] >= ours[1]):
                    if p.on_charge is not None:
                        p.on_charge(p.price)
                    return "allow", f"paid {p.price}", (), \
                        (*headers, ("crawler-charged", p.price))
        elif p.accept_license is not None:
            auth = h.get("authorization", "")
            scheme, _, credential = auth.strip().partition(" ")
            if scheme.lower() == "license" and credential.strip() and len(credential) < 4096:
                try:
                    ok = bool(p.accept_license(credential.strip()))
                except Exception:  # the site's hook failed: no licence, not a 500
                    ok = False
                if ok:
                    return "allow", "licensed (RSL)", (), headers
        return action, reason, extra, headers

    def _crawl_delay(self, token: str, key: str) -> float | None:
        hit = self._delay.get(key)
        if hit is None:
            hit = (self.rules.crawl_delay(user_agent=token),)
            self._delay.put(key, hit, len(key))
        return hit[0]  # type: ignore[no-any-return]

    def _pace(self, token: str, group: str, ip: str | None, now: float) -> int:
        """Seconds to wait before this crawler may come back: keyed as robots.txt groups are
        keyed (the token by :func:`robotrules._token.query_key`), so that every spelling of
        one crawler shares one Crawl-delay."""
        delay = self._crawl_delay(token, group)
        if not delay:
            return 0
        key = (group, ip)
        last: float | None = self._last.get(key)
        if last is not None and now - last < delay:
            return max(1, math.ceil(delay - (now - last)))
        self._last.put(key, now, len(key[0]) + len(ip or ""))
        return 0


#: The verification methods, in the order their evidence is weighed when two are equally
#: strong (:data:`OUTCOMES`): each gives the evidence it has, or ``None`` when the crawler's
#: operator does not publish it.
METHODS: Final[tuple[tuple[str, Callable[[GuardCore, _Facts, float, Mapping[Pending, Answer]],
                                         Evidence | None]], ...]] = (
    ("web-bot-auth", GuardCore._by_signature),
    ("ip-ranges", GuardCore._by_ranges),
    ("reverse-dns", GuardCore._by_rdns),
)


# -- the drivers ----------------------------------------------------------------------------

def drive(flow: Generator[tuple[Pending, ...], Mapping[Pending, Answer], Decision],
          answer: Callable[[tuple[Pending, ...]], Mapping[Pending, Answer]]) -> Decision:
    """Run ``flow`` to its decision, answering each batch of look-ups with ``answer``."""
    try:
        pending = next(flow)
        while True:
            pending = flow.send(answer(pending))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def adrive(flow: Generator[tuple[Pending, ...], Mapping[Pending, Answer], Decision],
                 answer: Callable[[tuple[Pending, ...]], Awaitable[Mapping[Pending, Answer]]]
                 ) -> Decision:
    """:func:`drive` with an awaitable ``answer``."""
    try:
        pending = next(flow)
        while True:
            pending = flow.send(await answer(pending))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def _skip(pending: tuple[Pending, ...]) -> Mapping[Pending, Answer]:
    return dict.fromkeys(pending, "skipped")


# -- small helpers --------------------------------------------------------------------------

class _Memo:
    """A dict bounded by the bytes of its keys (plus a fixed cost an entry), emptied when
    full: a flood of long or distinct keys costs recomputation, never memory."""

    __slots__ = ("_data", "_size", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._data: dict[object, object] = {}
        self._size = 0

    def get(self, key: object) -> Any:
        return self._data.get(key)

    def put(self, key: object, value: object, size: int) -> None:
        cost = size + _ENTRY_COST
        if self._size + cost > self.limit:
            self._data = {}
            self._size = 0
        if key not in self._data:
            self._size += cost
        self._data[key] = value

    @property
    def size(self) -> int:
        """Bytes accounted for the entries held."""
        return self._size

    def __len__(self) -> int:
        return len(self._data)


def _authority(text: str, scheme: str) -> str | None:
    """A Host value or an authority as the project's one origin rule writes it
    (:func:`robotrules._origin.origin_of`: lower case, IDNA, no default port); ``None`` when
    it is not one (``x?``, ``a/b``, ``user@host``, white space)."""
    text = text.strip()
    if not text or len(text) > 255 or any(c in text for c in "/?#@\\ \t,;"):
        return None
    origin = origin_or_none(f"{scheme}://{text}")
    return authority_of(origin) if origin else None


_INTERNAL = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8",
    "169.254.0.0/16", "::1/128", "fc00::/7", "fe80::/10"))
_INTERNAL_MEMO: dict[str, bool] = {}


def _internal(text: str, addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback, RFC 1918, shared (CGNAT), link-local or unique-local: where proxies live
    (memoised by the address's canonical text)."""
    hit = _INTERNAL_MEMO.get(text)
    if hit is None:
        hit = any(addr.version == n.version and addr in n for n in _INTERNAL)
        if len(_INTERNAL_MEMO) >= 65_536:
            _INTERNAL_MEMO.clear()
        _INTERNAL_MEMO[text] = hit
    return hit


def _price(text: str) -> tuple[str, Decimal] | None:
    """``USD 0.01`` -> (``USD``, 0.01); ``None`` when it is not a currency and an amount."""
    cur, _, amount = text.strip().partition(" ")
    if not (len(cur) == 3 and cur.isalpha()) or len(amount) > 32:
        return None
    try:
        value = Decimal(amount.strip())
    except InvalidOperation:
        return None
    return (cur.upper(), value) if value.is_finite() and value >= 0 else None
