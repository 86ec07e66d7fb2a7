"""The guard's decision core, sans-I/O: a request in, a :class:`Decision` out.

``Guard.decide(method, url, headers, peer)`` reads no socket, file or clock of its own (the
time may be given): it

1. finds the client address (:mod:`.peer`: forwarding headers only from trusted proxies);
2. identifies the crawler: the User-Agent's product token by the project's one rule
   (:func:`robotrules._token.product_token`) looked up in the registry
   (:func:`robotrules.agents.find_agent`: operator, purposes);
3. verifies the claim from what it already knows: Web Bot Auth signatures against cached key
   directories (:mod:`.webbotauth`), published IP ranges (:mod:`.ranges`), cached
   forward-confirmed reverse DNS answers (:mod:`.rdns`). What it would need to look up is
   returned in ``Decision.pending``; the shells (:meth:`Guard.resolve`, :meth:`Guard.aresolve`)
   run those look-ups, each bounded by its timeout, then decide again. The state is one of
   ``verified``, ``spoofed`` (only with evidence: an address outside the operator's fresh
   list, a reverse DNS name outside its domains or not forward-confirmed, a signature that
   does not verify under its agent's key, replayed or expired), ``unverifiable`` (no method,
   or a check that could not run) and ``unsigned`` (a crawler the registry does not know,
   without a signature);
4. asks the site's robots.txt (:func:`robotrules.parse`; the deciding line from
   ``explain``), its Crawl-delay, and its usage preferences for that crawler and path
   (:mod:`robotrules.aipref`);
5. applies the :class:`~.policy.Policy` and the mode: ``observe`` decides and reports but never
   blocks, ``enforce`` answers 403 / 402 / 401 / 429 as the policy says.

Cost: a decision for a crawler whose checks are cached is a few dict look-ups, one native
``is_allowed`` and, for a path seen before, memo hits (``benchmarks/bench_guard.py``).
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._token import product_token
from .._url import path_of
from ..agents import KnownAgent, find_agent, purposes_of
from .peer import ClientAddress, TrustedProxies, parse_ip
from .policy import STATUS, Action, Policy
from .ranges import RangeStore
from .registry import NONE, Checks, by_signature_agent, checks_for

if TYPE_CHECKING:
    from .. import RobotsTxt, Verdict
    from .rdns import ReverseDns
    from .webbotauth import WebBotAuth

__all__ = ["BROWSERS", "Decision", "Guard", "Mode", "Pending", "State", "Verification"]

Mode = Literal["observe", "enforce"]
State = Literal["verified", "spoofed", "unverifiable", "unsigned"]
#: Product tokens that name a browser, not a crawler: such requests are never acted on.
BROWSERS = frozenset({"mozilla", "opera", "dalvik", "safari", "chrome"})
_MEMO_MAX = 65_536
MAX_UA = 4096


@dataclass(frozen=True, slots=True)
class Pending:
    """A look-up the core needs before it can say more: ``kind`` ``rdns`` (``key`` the
    address, ``suffixes``) or ``keys`` (``key`` the Signature-Agent origin)."""

    kind: Literal["rdns", "keys"]
    key: str
    suffixes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Verification:
    """How the claim was checked: ``state``, the ``method`` that decided (``web-bot-auth``,
    ``ip-ranges``, ``reverse-dns`` or ``None``) and a sentence."""

    state: State
    method: str | None
    detail: str
    covered: frozenset[str] = frozenset()  # what a verified Web Bot Auth signature covers
    signer: str | None = None  # the Signature-Agent origin of a verified signature

    def to_dict(self) -> dict[str, object]:
        return {"state": self.state, "method": self.method, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Decision:
    """What the guard makes of one request (see the module docstring).

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


def _load_robots(robots: str | bytes | Path | RobotsTxt | None, dialect: str
                 ) -> tuple[RobotsTxt, bytes]:
    """The parsed file and the bytes to serve at ``/robots.txt``."""
    from .. import RobotsTxt, parse

    if isinstance(robots, RobotsTxt):
        text = "\n".join(robots.line_text(n) for n in range(1, robots.line_count + 1))
        return robots, (text + "\n").encode("latin-1", "replace")
    body: bytes
    if robots is None:
        body = b""
    elif isinstance(robots, Path) or (isinstance(robots, str) and "\n" not in robots
                                      and len(robots) < 4096 and Path(robots).is_file()):
        body = Path(robots).read_bytes()
    elif isinstance(robots, str) and "\n" not in robots and ":" not in robots:
        # one line without a field: a file name that is not there, not a robots.txt
        raise FileNotFoundError(f"no such robots.txt file: {robots}")
    else:
        body = robots.encode("utf-8") if isinstance(robots, str) else bytes(robots)
    return parse(body, dialect), body  # type: ignore[arg-type]


class Guard:
    """The decision core. ``robots`` is the site's robots.txt (text, bytes, a path, or a parsed
    :class:`robotrules.RobotsTxt`); ``mode`` ``observe`` (default) or ``enforce``; ``policy``
    a :class:`Policy`; ``trusted_proxies`` the networks whose ``X-Forwarded-For`` /
    ``Forwarded`` are believed; ``ranges`` a :class:`RangeStore` (default: the lists saved by
    ``robotrules agents ranges --refresh``); ``rdns`` a :class:`~.rdns.ReverseDns` (``None``:
    no reverse DNS checks); ``web_bot_auth`` a :class:`~.webbotauth.WebBotAuth` (``None``: a
    default one trusting the registry's signature agents); ``signature_agents`` extra
    ``token -> agent origin`` pairs (over the registry's); ``tdmrep`` the body to serve at
    ``/.well-known/tdmrep.json``; ``on_decision`` a callable given every decision (the shells'
    report hook).
    """

    def __init__(self, robots: str | bytes | Path | RobotsTxt | None = None, *,
                 mode: Mode = "observe", policy: Policy | None = None,
                 trusted_proxies: Iterable[str] = (), ranges: RangeStore | None = None,
                 rdns: ReverseDns | None = None, web_bot_auth: WebBotAuth | None = None,
                 signature_agents: Mapping[str, str] | None = None,
                 tdmrep: str | bytes | None = None, dialect: str = "rfc9309",
                 on_decision: Any = None) -> None:
        if mode not in ("observe", "enforce"):
            raise ValueError(f"mode must be 'observe' or 'enforce', not {mode!r}")
        from .. import aipref

        self.rules, self.robots_body = _load_robots(robots, dialect)
        self.mode: Mode = mode
        self.policy = policy or Policy()
        self.proxies = TrustedProxies(trusted_proxies)
        self.ranges = ranges if ranges is not None else RangeStore.load()
        self.rdns = rdns
        if web_bot_auth is None:
            from .webbotauth import WebBotAuth

            web_bot_auth = WebBotAuth()
        self.wba = web_bot_auth
        self.signature_agents = {k.lower(): v.rstrip("/") for k, v in
                                 (signature_agents or {}).items()}
        self.tdmrep = tdmrep.encode("utf-8") if isinstance(tdmrep, str) else tdmrep
        self.on_decision = on_decision
        self._has_prefs = bool(aipref.records(self.rules))
        self._memo: dict[tuple[str, str], tuple[bool, int | None, str | None,
                                                tuple[tuple[str, str], ...]]] = {}
        self._delay: dict[str, float | None] = {}
        self._last: dict[tuple[str, str | None], float] = {}
        self._inflight: dict[tuple[str, str, tuple[str, ...]], Any] = {}  # asyncio tasks
        self._threads: dict[tuple[str, str, tuple[str, ...]], Any] = {}  # thread futures
        self._pool: Any = None
        self._lock = threading.Lock()

    # -- the decision ---------------------------------------------------------------------

    def decide(self, method: str, url: str, headers: Mapping[str, str] | Sequence[
               tuple[str, str]], peer: str | None = None, *, now: float | None = None
               ) -> Decision:
        """Decide one request. ``headers`` as a mapping or ``(name, value)`` pairs (names any
        case); ``peer`` the socket peer's address; ``url`` absolute or a path."""
        t = time.time() if now is None else now
        if isinstance(headers, Mapping):
            h = {k.lower(): v for k, v in headers.items()}
            pairs = list(headers.items()) if "signature" in h else []
        else:
            pairs = list(headers)
            h = {}
            for k, v in pairs:
                k = k.lower()
                h[k] = f"{h[k]}, {v}" if k in h else v
        path = path_of(url)  # the matchers' own path extraction (robotrules._url)
        ua = h.get("user-agent", "")[:MAX_UA]
        token = product_token(ua) if ua else ""
        client = self.proxies.client(peer, h)
        crawler = find_agent(token) if token else None
        if crawler is None and token.lower() in BROWSERS and not self.wba.signed(h):
            return self._done(Decision(method, path, ua, token, None, (), client,
                              Verification("unsigned", None, "a browser, not a crawler"),
                              None, None, None, "allow", 200, "not a crawler", self.mode,
                              is_crawler=False, time=t))
        verification, pending = self._verify(method, url, pairs, h, token, crawler, client, t)
        if crawler is None and verification.signer is not None:
            # a signed agent with a browser's (or no known) User-Agent: its signature names it
            crawler = by_signature_agent(verification.signer)
            if crawler is not None:
                token = crawler.token
        purposes = tuple(purposes_of(crawler)) if crawler else ("unknown",)
        if not token:
            token = "(none)"
        allowed, line, rule, headers_out = self._robots(token, path)
        action, reason, extra = self._act(token, client, verification, allowed, line, rule,
                                          purposes, t)
        if action in ("pay", "license"):
            action, reason, extra, headers_out = self._settle(action, reason, extra, h,
                                                              verification, headers_out)
        return self._done(Decision(
            method, path, ua, token, crawler, purposes, client, verification, allowed, line,
            rule, action, STATUS[action], reason, self.mode, headers_out, extra,
            tuple(pending), True, t))

    def _done(self, d: Decision) -> Decision:
        if self.on_decision is not None and not d.pending:
            self.on_decision(d)
        return d

    def _robots(self, token: str, path: str
                ) -> tuple[bool, int | None, str | None, tuple[tuple[str, str], ...]]:
        key = (token, path)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        rules = self.rules
        allowed = rules.is_allowed(path, user_agent=token)
        line: int | None = None
        rule: str | None = None
        if not allowed:
            v = rules.explain(path, user_agent=token)
            line, rule = v.line, (str(v.rule) if v.rule is not None else None)
        prefs: tuple[tuple[str, str], ...] = ()
        if allowed and self._has_prefs:
            u = rules.usage(path, user_agent=token)
            prefs = tuple((k, "y" if u[k] else "n") for k in ("train-ai", "search",
                                                              "ai-train", "ai-input")
                          if u[k] is not None)
        out = (allowed, line, rule, self._pref_headers(prefs))
        if len(self._memo) >= _MEMO_MAX:
            self._memo.clear()
        self._memo[key] = out
        return out

    def verdict(self, d: Decision) -> Verdict:
        """The full robots.txt verdict (deciding line and group) for a decision."""
        return self.rules.explain(d.path, user_agent=d.token)

    def _pref_headers(self, prefs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        p = self.policy
        out: list[tuple[str, str]] = []
        usage = p.content_usage
        signal = p.content_signal
        if usage is None:
            cu = [f"{k}={v}" for k, v in prefs if k in ("train-ai", "search")]
            usage = ", ".join(cu) or None
        if signal is None:
            cs = [f"{k}={'yes' if v == 'y' else 'no'}" for k, v in prefs
                  if k in ("search", "ai-input", "ai-train")]
            signal = ", ".join(cs) or None
        if usage:
            out.append(("Content-Usage", usage))
        if signal:
            out.append(("Content-Signal", signal))
        return tuple(out)

    def _act(self, token: str, client: ClientAddress, v: Verification, allowed: bool,
             line: int | None, rule: str | None, purposes: tuple[str, ...], now: float
             ) -> tuple[Action, str, tuple[tuple[str, str], ...]]:
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
                wait = self._pace(token, client.ip, now)
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
            delay = self._crawl_delay(token)
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

    def _crawl_delay(self, token: str) -> float | None:
        if token not in self._delay:
            if len(self._delay) > _MEMO_MAX:
                self._delay.clear()
            self._delay[token] = self.rules.crawl_delay(user_agent=token)
        return self._delay[token]

    def _pace(self, token: str, ip: str | None, now: float) -> int:
        delay = self._crawl_delay(token)
        if not delay:
            return 0
        key = (token, ip)
        last = self._last.get(key)
        if last is not None and now - last < delay:
            return max(1, math.ceil(delay - (now - last)))
        if len(self._last) > _MEMO_MAX:
            self._last.clear()
        self._last[key] = now
        return 0

    # -- verification ---------------------------------------------------------------------

    def _checks(self, token: str, crawler: KnownAgent | None) -> Checks:
        c = checks_for(crawler) if crawler else NONE
        extra = self.signature_agents.get(token.lower())
        if extra is not None:
            c = Checks(c.ranges_url, c.ranges_format, c.rdns, extra)
        return c

    def _verify(self, method: str, url: str, pairs: list[tuple[str, str]], h: dict[str, str],
                token: str, crawler: KnownAgent | None, client: ClientAddress, now: float
                ) -> tuple[Verification, list[Pending]]:
        checks = self._checks(token, crawler)
        pending: list[Pending] = []
        evidence: Verification | None = None
        notes: list[str] = []
        if self.wba.signed(h):
            absolute = url if "://" in url else f"https://{h.get('host', 'localhost')}{url}"
            sig = self.wba.verify(method, absolute, pairs, h, now)
            if sig is None:
                agent = self.wba.agent_of(h)
                if agent is not None:
                    pending.append(Pending("keys", agent))
            elif sig.state == "verified":
                if checks.signature_agent is None or sig.agent == checks.signature_agent:
                    return Verification("verified", "web-bot-auth", sig.detail,
                                        sig.covered, sig.agent), []
                evidence = Verification(
                    "spoofed", "web-bot-auth",
                    f"signed by {sig.agent}, but {token} signs as {checks.signature_agent}")
            elif sig.state == "invalid":
                evidence = Verification("spoofed", "web-bot-auth", sig.detail)
            else:
                notes.append(sig.detail)
        if crawler is None and not checks.any:
            if evidence is not None:
                return evidence, []
            detail = "; ".join(notes) or (
                "no User-Agent" if not token else f"{token} is not a crawler the registry knows")
            return Verification("unverifiable" if notes else "unsigned", None, detail), pending
        ip = client.ip
        addr = parse_ip(ip) if ip is not None else None
        if addr is not None and _internal(addr) and (checks.ranges_url or checks.rdns):
            # a crawler never comes from 10.x or 127.0.0.1: this is a proxy the guard was not
            # told about (trusted_proxies), and its address says nothing about the crawler
            notes.append(f"{ip} is an internal address (a proxy? see trusted_proxies)")
            addr = None
            ip = None
        if checks.ranges_url and addr is not None:
            state = self.ranges.state(checks.ranges_url, addr, now)
            if state == "in":
                return Verification("verified", "ip-ranges",
                                    f"{ip} is in {checks.ranges_url}"), []
            if state == "out":
                if evidence is None:
                    evidence = Verification("spoofed", "ip-ranges",
                                            f"{ip} is not in {checks.ranges_url}")
            else:
                notes.append(f"the range list {checks.ranges_url} is {state}")
        if checks.rdns and addr is not None and self.rdns is not None:
            r = self.rdns.cached(str(addr), checks.rdns)
            if r is None:
                pending.append(Pending("rdns", str(addr), checks.rdns))
            elif r.state == "verified":
                return Verification("verified", "reverse-dns", r.detail), []
            elif r.state == "spoofed":
                if evidence is None or evidence.method != "web-bot-auth":
                    evidence = Verification("spoofed", "reverse-dns", r.detail)
            else:
                notes.append(r.detail)
        elif checks.rdns and self.rdns is None:
            notes.append("reverse DNS checks are off")
        if evidence is not None and not (pending and evidence.method == "ip-ranges"):
            return evidence, []
        if client.ip is None and (checks.ranges_url or checks.rdns):
            notes.append("no client address")
        if not checks.any:
            notes.append(f"{crawler.operator if crawler else token} publishes no way to "
                         "verify its crawler")
        if pending:
            notes.append("checks pending")
        elif checks.signature_agent and not (checks.ranges_url or checks.rdns) \
                and not self.wba.signed(h):
            # the operator's one method is a signature, and this request carries none
            return Verification("unsigned", None, f"{token} signs its requests as "
                                f"{checks.signature_agent} (Web Bot Auth); this one is not "
                                "signed"), []
        return Verification("unverifiable", None, "; ".join(notes) or "no check applies"), pending

    # -- the shells' side: run what a decision is waiting for, bounded ---------------------

    def resolve(self, pending: Iterable[Pending], timeout: float | None = None) -> None:
        """Run the look-ups a decision named. Without ``timeout``, here and one after the
        other (each bounded by its own timeout). With it, in worker threads, waiting at most
        ``timeout`` seconds in all: a look-up still running goes on and caches its answer for
        the next request; one look-up per key runs at a time."""
        if timeout is None:
            for p in pending:
                if p.kind == "keys":
                    self.wba.fetch(p.key)
                elif self.rdns is not None:
                    self.rdns.check(p.key, p.suffixes)
            return
        import concurrent.futures as cf

        futures = []
        with self._lock:
            if self._pool is None:
                self._pool = cf.ThreadPoolExecutor(max_workers=4,
                                                   thread_name_prefix="robotrules-guard")
            for p in pending:
                key = (p.kind, p.key, p.suffixes)
                fut = self._threads.get(key)
                if fut is None:
                    if p.kind == "keys":
                        fut = self._pool.submit(self.wba.fetch, p.key)
                    elif self.rdns is not None:
                        fut = self._pool.submit(self.rdns.check, p.key, p.suffixes)
                    else:
                        continue
                    self._threads[key] = fut
                    fut.add_done_callback(partial(_forget_locked, self._lock, self._threads,
                                                  key))
                futures.append(fut)
        if futures:
            cf.wait(futures, timeout=timeout)

    async def aresolve(self, pending: Iterable[Pending], timeout: float | None = None
                       ) -> None:
        """:meth:`resolve` without blocking the event loop (DNS in a worker thread), waiting
        at most ``timeout`` seconds. A look-up still running then goes on in the background
        and caches its answer for the next request; one look-up per key runs at a time (a
        burst of requests from one crawler waits on the same fetch)."""
        import asyncio

        tasks: list[asyncio.Future[object]] = []
        for p in pending:
            key = (p.kind, p.key, p.suffixes)
            task = self._inflight.get(key)
            if task is None:
                job: Awaitable[object]
                if p.kind == "keys":
                    job = self.wba.afetch(p.key)
                elif self.rdns is not None:
                    job = asyncio.to_thread(self.rdns.check, p.key, p.suffixes)
                else:
                    continue
                task = asyncio.ensure_future(job)
                self._inflight[key] = task
                task.add_done_callback(partial(_forget, self._inflight, key))
            tasks.append(task)
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    def check(self, method: str, url: str,
              headers: Mapping[str, str] | Sequence[tuple[str, str]],
              peer: str | None = None, *, timeout: float | None = None) -> Decision:
        """:meth:`decide`, running any pending look-up first (blocking, bounded; at most
        ``timeout`` seconds in all when given, see :meth:`resolve`)."""
        d = self.decide(method, url, headers, peer)
        if d.pending:
            self.resolve(d.pending, timeout)
            d = self.decide(method, url, headers, peer)
            if d.pending:  # a check that still cannot answer: decide without it
                d = self._without_pending(d)
        return d

    async def acheck(self, method: str, url: str,
                     headers: Mapping[str, str] | Sequence[tuple[str, str]],
                     peer: str | None = None) -> Decision:
        """:meth:`check` for asyncio."""
        d = self.decide(method, url, headers, peer)
        if d.pending:
            await self.aresolve(d.pending)
            d = self.decide(method, url, headers, peer)
            if d.pending:
                d = self._without_pending(d)
        return d

    def _without_pending(self, d: Decision) -> Decision:
        from dataclasses import replace

        return self._done(replace(d, pending=()))


_INTERNAL = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8",
    "169.254.0.0/16", "::1/128", "fc00::/7", "fe80::/10"))


_INTERNAL_MEMO: dict[ipaddress.IPv4Address | ipaddress.IPv6Address, bool] = {}


def _internal(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback, RFC 1918, shared (CGNAT), link-local or unique-local: where proxies live."""
    hit = _INTERNAL_MEMO.get(addr)
    if hit is None:
        hit = any(addr.version == n.version and addr in n for n in _INTERNAL)
        if len(_INTERNAL_MEMO) >= _MEMO_MAX:
            _INTERNAL_MEMO.clear()
        _INTERNAL_MEMO[addr] = hit
    return hit


def _forget_locked(lock: threading.Lock, inflight: dict[Any, Any], key: object,
                   _future: object) -> None:
    with lock:
        inflight.pop(key, None)


def _forget(inflight: dict[Any, Any], key: object, _task: object) -> None:
    inflight.pop(key, None)


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
