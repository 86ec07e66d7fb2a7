"""Web Bot Auth: HTTP Message Signatures (RFC 9421) from crawlers, checked against their
operator's key directory.

What is checked (draft-meunier-web-bot-auth-architecture; draft-ietf-webbotauth-httpsig-
protocol; draft-meunier-http-message-signatures-directory):

- the signature is the one tagged ``web-bot-auth`` (``tag`` parameter); ``alg`` when present is
  ``ed25519``; it covers ``@authority`` and, when the request carries ``Signature-Agent``, that
  header too (the architecture draft: "the signature MUST cover @authority" and "if
  Signature-Agent is present ... it MUST be covered");
- ``created`` and ``expires`` are present, ``created`` is not in the future and ``expires`` not
  in the past (both with ``skew`` seconds of tolerance), and the window is at most
  ``max_window`` (24 h: the draft says expires SHOULD NOT exceed it);
- a ``nonce`` is not seen twice while its signature is valid (replay);
- the key is the Ed25519 key whose RFC 7638 JWK thumbprint is ``keyid``, from the JWKS the
  ``Signature-Agent`` origin serves at ``/.well-known/http-message-signatures-directory``.

Key directories are fetched only for agents the site trusts (the registry's
``signature_agent`` values plus any given): a request cannot make the server fetch an
arbitrary URL. A fetch is bounded (``max_bytes``, ``timeout`` over the whole transfer), and
its result is cached (``key_ttl``; failures ``fail_ttl``). The RFC 9421 signature base and the
Ed25519 check are the ``http-message-signatures`` library's (with ``cryptography``).

Outcomes (:class:`SigResult`): ``verified``; ``invalid`` (evidence against the claim: the
signature does not verify under the agent's key, is expired, replayed, or does not cover what
it must); ``unverifiable`` (no evidence: malformed header, unknown agent or key, directory not
reachable); ``unsigned`` (no signature at all).
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

__all__ = ["DIRECTORY_PATH", "KeyDirectory", "SigResult", "WebBotAuth", "jwk_thumbprint",
           "parse_signature_agent"]

DIRECTORY_PATH = "/.well-known/http-message-signatures-directory"
MEDIA_TYPE = "application/http-message-signatures-directory+json"
TAG = "web-bot-auth"
MAX_HEADER = 4096  # a Signature-Input, Signature or Signature-Agent longer than this is refused
SigState = Literal["verified", "invalid", "unverifiable", "unsigned"]


@dataclass(frozen=True, slots=True)
class SigResult:
    """``covered``: the components a verified signature covers (lower case)."""

    state: SigState
    agent: str | None
    keyid: str | None
    detail: str
    covered: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class KeyDirectory:
    """The Ed25519 keys one agent publishes, by thumbprint; ``error`` when the fetch failed."""

    agent: str
    keys: Mapping[str, Any]
    expires: float
    error: str | None = None


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwk_thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638 thumbprint (SHA-256, base64url) of an OKP key: the required members ``crv``,
    ``kty``, ``x`` in lexicographic order, no white space (RFC 8037 A.3)."""
    canon = json.dumps({"crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"]},
                       separators=(",", ":"), sort_keys=True)
    return _b64url(hashlib.sha256(canon.encode("utf-8")).digest())


def parse_signature_agent(value: str, label: str | None = None) -> str | None:
    """The agent URL of a ``Signature-Agent`` header: an sf-string (``"https://agent.example"``,
    the architecture draft) or a Dictionary member for the signature's label
    (``sig1="https://agent.example"``, the protocol draft). ``None`` when it is neither."""
    if not value or len(value) > MAX_HEADER:
        return None
    from .._sf import parse_dictionary, parse_item

    item = parse_item(value)
    if item is not None and isinstance(item[0], str):
        return item[0]
    d = parse_dictionary(value).members
    if d is None:
        return None
    members = [d[label]] if label is not None and label in d else list(d.values())
    for m in members:
        if isinstance(m, tuple) and isinstance(m[0], str):
            return m[0]
    return None


def _origin(url: str, allow_http: bool) -> str | None:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme not in (("https", "http") if allow_http else ("https",)) or not parts.hostname:
        return None
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname.lower()}{port}"


def keys_from_jwks(body: bytes) -> dict[str, Any]:
    """The Ed25519 public keys of a JWKS, by their computed thumbprint. Raises ``ValueError``
    when the body is not a JWKS."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    doc = json.loads(body)
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list):
        raise ValueError("not a JWKS: no 'keys' array")
    out: dict[str, Any] = {}
    for jwk in doc["keys"][:64]:
        if not (isinstance(jwk, dict) and jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519"
                and isinstance(jwk.get("x"), str)):
            continue
        try:
            raw = _unb64url(jwk["x"])
            out[jwk_thumbprint(jwk)] = Ed25519PublicKey.from_public_bytes(raw)
        except ValueError:
            continue
    return out


class _Message:
    """The request view ``http-message-signatures`` reads."""

    def __init__(self, method: str, url: str, headers: Sequence[tuple[str, str]]) -> None:
        self.method = method
        self.url = url
        self.headers = _Headers(headers)


class _Headers:
    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        self._pairs = pairs

    def items(self) -> Iterable[tuple[str, str]]:
        return self._pairs

    def __iter__(self) -> Any:
        return iter(dict.fromkeys(n for n, _ in self._pairs))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(n.lower() == name.lower() for n, _ in self._pairs)

    def __getitem__(self, name: str) -> str:
        vals = [v for n, v in self._pairs if n.lower() == name.lower()]
        if not vals:
            raise KeyError(name)
        return ", ".join(vals)


class WebBotAuth:
    """Verifies Web Bot Auth signatures; holds the key directories and the nonces seen."""

    def __init__(self, *, trusted_agents: Iterable[str] = (), use_registry: bool = True,
                 allow_http: bool = False, timeout: float = 2.0, max_bytes: int = 65_536,
                 key_ttl: float = 3600.0, fail_ttl: float = 300.0, skew: float = 5.0,
                 max_window: float = 86_400.0, max_nonces: int = 1_000_000,
                 transport: Any = None) -> None:
        self.allow_http = allow_http
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.key_ttl = key_ttl
        self.fail_ttl = fail_ttl
        self.skew = skew
        self.max_window = max_window
        self.max_nonces = max_nonces
        self.transport = transport
        trusted = list(trusted_agents)
        if use_registry:
            from .registry import _table

            trusted += [c.signature_agent for c in _table().values() if c.signature_agent]
        self.trusted = {o for o in (_origin(a, allow_http) for a in trusted) if o}
        self._dirs: dict[str, KeyDirectory] = {}
        self._nonces: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    # -- the request side (no I/O) --------------------------------------------------------

    @staticmethod
    def signed(headers: Mapping[str, str]) -> bool:
        return "signature" in headers and "signature-input" in headers

    def agent_of(self, headers: Mapping[str, str]) -> str | None:
        """The trusted key-directory origin the request's ``Signature-Agent`` names, if any."""
        value = headers.get("signature-agent")
        if value is None:
            return None
        url = parse_signature_agent(value)
        return _origin(url, self.allow_http) if url else None

    def directory(self, agent: str, now: float | None = None) -> KeyDirectory | None:
        """The cached directory of ``agent`` if still fresh (no I/O)."""
        d = self._dirs.get(agent)
        if d is None or d.expires < (time.monotonic() if now is None else now):
            return None
        return d

    def verify(self, method: str, url: str, pairs: Sequence[tuple[str, str]],
               headers: Mapping[str, str], now: float | None = None) -> SigResult | None:
        """Check the request's signature; ``None`` when the agent's key directory must be
        fetched first (:meth:`fetch`). ``headers`` is ``pairs`` as a lower-cased dict."""
        if not self.signed(headers):
            return SigResult("unsigned", None, None, "no Web Bot Auth signature")
        for name in ("signature", "signature-input", "signature-agent"):
            if len(headers.get(name, "")) > MAX_HEADER:
                return SigResult("unverifiable", None, None, f"{name} header over {MAX_HEADER}"
                                 " bytes: not read")
        raw_agent = headers.get("signature-agent")
        agent = self.agent_of(headers) if raw_agent is not None else None
        if raw_agent is None:
            # no Signature-Agent: only a key the site already holds (a pinned or cached
            # directory) can be used; nothing is fetched
            params = self._params(pairs)
            if isinstance(params, str):
                return SigResult("unverifiable", None, None, params)
            for held in list(self._dirs.values()):
                if params[0] in held.keys and held.expires >= time.monotonic():
                    return self._check(method, url, pairs, held.agent, held,
                                       time.time() if now is None else now)
            return SigResult("unverifiable", None, params[0],
                             "signed, but no Signature-Agent says whose key it is")
        if agent is None:
            return SigResult("unverifiable", None, None,
                             f"Signature-Agent {raw_agent[:80]!r} is not a usable URL")
        if agent not in self.trusted:
            return SigResult("unverifiable", agent, None,
                             f"{agent} is not a signature agent this site knows")
        d = self.directory(agent)
        if d is None:
            return None
        if d.error is not None:
            return SigResult("unverifiable", agent, None, f"key directory of {agent}: {d.error}")
        return self._check(method, url, pairs, agent, d, time.time() if now is None else now)

    def _check(self, method: str, url: str, pairs: Sequence[tuple[str, str]], agent: str,
               d: KeyDirectory, now: float) -> SigResult:
        import datetime

        from http_message_signatures import (
            HTTPMessageVerifier,
            HTTPSignatureKeyResolver,
            InvalidSignature,
        )
        from http_message_signatures.algorithms import ED25519
        from http_message_signatures.exceptions import HTTPMessageSignaturesException

        params = self._params(pairs)
        if isinstance(params, str):
            return SigResult("unverifiable", agent, None, params)
        keyid, created, expires, nonce, covered = params
        if keyid not in d.keys:
            return SigResult("unverifiable", agent, keyid,
                             f"key {keyid[:60]!r} is not in {agent}'s directory")
        if "@authority" not in covered:
            return SigResult("invalid", agent, keyid, "the signature does not cover @authority")
        if any(n.lower() == "signature-agent" for n, _ in pairs) and \
                "signature-agent" not in covered:
            return SigResult("invalid", agent, keyid,
                             "the signature does not cover the Signature-Agent header")
        if created is None or expires is None:
            return SigResult("invalid", agent, keyid, "the signature lacks created or expires")
        if created > now + self.skew:
            return SigResult("invalid", agent, keyid, "created is in the future")
        if expires < now - self.skew:
            return SigResult("invalid", agent, keyid, "the signature has expired")
        if expires - created > self.max_window:
            return SigResult("invalid", agent, keyid,
                             f"validity window over {self.max_window:.0f} s")

        class _Keys(HTTPSignatureKeyResolver):
            def resolve_public_key(self, key_id: str) -> Any:
                return d.keys.get(key_id)

        verifier = HTTPMessageVerifier(signature_algorithm=ED25519, key_resolver=_Keys())
        verifier.max_clock_skew = datetime.timedelta(seconds=self.skew + abs(time.time() - now))
        try:
            verifier.verify(_Message(method, url, pairs), max_age=None, expect_tag=TAG,
                            require_components=("@authority",))
        except (InvalidSignature, HTTPMessageSignaturesException) as exc:
            return SigResult("invalid", agent, keyid,
                             f"signature does not verify: {exc or 'wrong signature'}")
        except Exception as exc:  # any other library failure on hostile input: no evidence
            return SigResult("unverifiable", agent, keyid,
                             f"signature could not be checked: {type(exc).__name__}")
        if nonce is not None and not self._fresh_nonce(f"{agent} {nonce}", expires, now):
            return SigResult("invalid", agent, keyid, "nonce seen before: a replayed signature")
        return SigResult("verified", agent, keyid, f"signed by {agent} (key {keyid[:12]}…)",
                         frozenset(covered))

    @staticmethod
    def _params(pairs: Sequence[tuple[str, str]]
                ) -> str | tuple[str, int | None, int | None, str | None, set[str]]:
        """The web-bot-auth signature's keyid, created, expires, nonce and covered components,
        or why they cannot be read."""
        from .._sf import parse_dictionary

        raw = ", ".join(v for n, v in pairs if n.lower() == "signature-input")
        d = parse_dictionary(raw).members
        if d is None:
            return "malformed Signature-Input"
        for member in d.values():
            if not (isinstance(member, tuple) and isinstance(member[0], list)):
                continue
            params = member[1]
            if params.get("tag") != TAG:
                continue
            keyid = params.get("keyid")
            if not isinstance(keyid, str):
                return "the web-bot-auth signature has no keyid"
            alg = params.get("alg")
            if alg is not None and alg != "ed25519":
                return f"algorithm {alg!r} is not ed25519"
            created = params.get("created")
            expires = params.get("expires")
            nonce = params.get("nonce")
            covered = {str(c[0]).lower() for c in member[0] if isinstance(c, tuple)}
            return (keyid, created if isinstance(created, int) else None,
                    expires if isinstance(expires, int) else None,
                    nonce if isinstance(nonce, str) else None, covered)
        return "no signature tagged web-bot-auth"

    def _fresh_nonce(self, key: str, expires: int, now: float) -> bool:
        with self._lock:
            while self._nonces:  # drop the oldest entries whose signatures are over
                _key, until = next(iter(self._nonces.items()))
                if until >= now - self.skew and len(self._nonces) < self.max_nonces:
                    break
                self._nonces.popitem(last=False)
            if key in self._nonces:
                return False
            self._nonces[key] = expires + self.skew
            return True

    # -- the key directories (bounded I/O) ------------------------------------------------

    def fetch(self, agent: str) -> KeyDirectory:
        """Fetch (or re-fetch) ``agent``'s key directory, bounded by ``timeout`` in all."""
        import httpx

        deadline = time.monotonic() + self.timeout
        kwargs: dict[str, Any] = {"timeout": self.timeout, "follow_redirects": False}
        if self.transport is not None:
            kwargs["transport"] = self.transport
        try:
            with httpx.Client(**kwargs) as client, client.stream(
                    "GET", agent + DIRECTORY_PATH,
                    headers={"Accept": f"{MEDIA_TYPE}, application/json"}) as r:
                body = self._read(r, r.iter_bytes(), deadline)
            return self._store(agent, keys_from_jwks(body), None)
        except (httpx.HTTPError, ValueError, OSError) as exc:
            return self._store(agent, {}, _why(exc))

    async def afetch(self, agent: str) -> KeyDirectory:
        """:meth:`fetch` for asyncio."""
        import asyncio

        import httpx

        deadline = time.monotonic() + self.timeout
        kwargs: dict[str, Any] = {"timeout": self.timeout, "follow_redirects": False}
        if self.transport is not None:
            kwargs["transport"] = self.transport

        async def get() -> bytes:
            async with httpx.AsyncClient(**kwargs) as client, client.stream(
                    "GET", agent + DIRECTORY_PATH,
                    headers={"Accept": f"{MEDIA_TYPE}, application/json"}) as r:
                self._status(r)
                chunks: list[bytes] = []
                size = 0
                async for chunk in r.aiter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise ValueError(f"directory larger than {self.max_bytes} bytes")
                    chunks.append(chunk)
                return b"".join(chunks)

        try:
            body = await asyncio.wait_for(get(), max(0.0, deadline - time.monotonic()))
            return self._store(agent, keys_from_jwks(body), None)
        except TimeoutError:
            return self._store(agent, {}, f"no answer within {self.timeout} s")
        except (httpx.HTTPError, ValueError, OSError) as exc:
            return self._store(agent, {}, _why(exc))

    def _status(self, r: Any) -> None:
        if r.status_code != 200:
            raise ValueError(f"HTTP {r.status_code}")
        ctype = r.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype not in (MEDIA_TYPE, "application/json", "application/jwk-set+json"):
            raise ValueError(f"content type {ctype or 'missing'!r} is not a key directory")

    def _read(self, r: Any, chunks_in: Iterable[bytes], deadline: float) -> bytes:
        self._status(r)
        chunks: list[bytes] = []
        size = 0
        for chunk in chunks_in:
            size += len(chunk)
            if size > self.max_bytes:
                raise ValueError(f"directory larger than {self.max_bytes} bytes")
            if time.monotonic() > deadline:
                raise ValueError(f"no complete answer within {self.timeout} s")
            chunks.append(chunk)
        return b"".join(chunks)

    def _store(self, agent: str, keys: Mapping[str, Any], error: str | None) -> KeyDirectory:
        if error is None and not keys:
            error = "no Ed25519 key in the directory"
        life = self.fail_ttl if error else self.key_ttl
        d = KeyDirectory(agent, dict(keys), time.monotonic() + life, error)
        self._dirs[agent] = d
        return d

    def add_keys(self, agent: str, jwks: bytes | Mapping[str, Any]) -> None:
        """Pin ``agent``'s directory from a JWKS given by the site (no fetch)."""
        origin = _origin(agent, True) or agent
        body = jwks if isinstance(jwks, bytes) else json.dumps(jwks).encode()
        self.trusted.add(origin)
        self._dirs[origin] = KeyDirectory(origin, keys_from_jwks(body), float("inf"))


def _why(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
