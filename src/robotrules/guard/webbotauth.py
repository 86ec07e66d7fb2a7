"""Web Bot Auth: HTTP Message Signatures (RFC 9421) from crawlers, checked against their
operator's key directory (draft-ietf-webbotauth-httpsig-protocol-01 and its editor's copy).

What is checked, for each signature tagged ``web-bot-auth`` (at most :data:`MAX_SIGNATURES`):

- it covers ``@authority`` or ``@target-uri`` ("Agents MUST include at least one of"), and
  ``created`` and ``expires`` are present; ``created`` is not in the future, ``expires`` not
  in the past (``skew`` seconds of tolerance each), and the window is at most ``max_window``
  (24 h: "RECOMMENDED that expires be no more than 24 hours after created");
- the signed authority is one of this site's own (``authorities``): a signature made for
  another site and replayed here, with that site's ``Host``, is ``invalid``;
- the ``Signature-Agent`` member the signature covers (``"signature-agent";key="K"``, or the
  whole field: the member keyed by the signature's label, or the legacy sf-string) names the
  key directory; a member with parameters is ignored ("A verifier MUST ignore a member that
  carries parameters"), a signature that does not cover the header is ``invalid``, and a
  signature with no ``Signature-Agent`` at all is ``unverified`` (nothing says whose key it
  is: keys are never looked up by ``keyid`` alone);
- the directory is one the site trusts (the registry's ``signature_agent`` values plus
  ``trusted_agents``): an origin stands for its well-known URI
  (``/.well-known/http-message-signatures-directory``), a URL with a path for exactly that
  URL (TLS authenticates the host, not the path: another path on a trusted host is not
  trusted). A request can never make the server fetch any other URL;
- the key is the one with thumbprint ``keyid`` (RFC 7638) in *that* directory: keys are held
  by (directory URL, keyid), never by keyid alone ("Key lookup MUST be keyed on the (URL, key)
  pair");
- the published test keys of RFC 9421 Appendix B.1 (:data:`TEST_KEY_IDS`: the draft's test
  vectors sign with them) are refused unless ``allow_test_keys`` ("Verifiers SHOULD reject
  known test keys");
- the algorithm is ``ed25519``, ``rsa-pss-sha512`` or ``ecdsa-p256-sha256`` (given by ``alg``
  or by the key's type); shared-secret HMAC is ``invalid`` ("MUST NOT use shared HMAC");
- the RFC 9421 signature base and the signature check are the ``http-message-signatures``
  library's (with ``cryptography``), one signature label at a time;
- a ``nonce`` is not seen twice while its signature is valid (replay; the nonce is recorded
  when a signature verifies, so a request is verified once).

Outcomes (:class:`SigResult`, the draft's "Verifier Outcomes" plus no signature):
``verified``; ``invalid`` (evidence against the claim: the signature, its coverage, its times,
its authority or its key are wrong, or it is replayed); ``unverified`` (no evidence either
way: malformed header, unknown or untrusted directory, unknown key, directory unreachable);
``unsigned``. With several signatures: ``invalid`` if any is, else ``verified`` if any is,
else ``unverified``. :attr:`SigResult.agent` is the directory URL's origin.

Key directories (:meth:`WebBotAuth.fetch`, :meth:`WebBotAuth.afetch`) are downloaded by
:mod:`._download`: public addresses only (``allow_loopback`` is the test setting), no
redirects, only a ``200`` is a directory, the body decoded with a cap (``max_bytes``), all of
it within ``timeout``, at most :data:`MAX_KEYS` keys read. A directory is kept for its HTTP
freshness lifetime, at most ``key_ttl``. A failed refetch never evicts the last good keys: they
stay usable until their own expiry plus ``key_grace`` (the draft: a directory that fails to
resolve "MUST NOT evict a cached entry"), while a directory that answers replaces them (a
removed key stops verifying). Failures are cached for ``fail_ttl``, at most 5 minutes.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from .._origin import authority_of, origin_of, origin_or_none
from .._sf import parse_dictionary, parse_item
from .registry import _table

__all__ = ["DIRECTORY_PATH", "MAX_SIGNATURES", "TEST_KEY_IDS", "KeyDirectory", "SigResult",
           "WebBotAuth", "jwk_thumbprint", "keys_from_jwks", "normalize_authority",
           "parse_signature_agent"]

DIRECTORY_PATH = "/.well-known/http-message-signatures-directory"
MEDIA_TYPE = "application/http-message-signatures-directory+json"
_DIRECTORY_TYPES = (MEDIA_TYPE, "application/jwk-set+json", "application/json")
TAG = "web-bot-auth"
MAX_HEADER = 4096  # a Signature-Input, Signature or Signature-Agent longer than this is refused
MAX_SIGNATURES = 4  # web-bot-auth signatures checked on one request
MAX_KEYS = 64  # keys read from one directory (the draft: "enforce a maximum key count")
MAX_FAIL_TTL = 300.0  # the draft: negative cache entries expire "after no more than five minutes"
SigState = Literal["verified", "invalid", "unverified", "unsigned"]

#: RFC 7638 thumbprints of the example keys of RFC 9421 Appendix B.1 (B.1.1 test-key-rsa,
#: B.1.2 test-key-rsa-pss, B.1.3 test-key-ecc-p256, B.1.4 test-key-ed25519), computed from the
#: RFC's public keys (tests/guard/data/webbotauth_vectors.json holds them; the tests
#: recompute each thumbprint).
TEST_KEY_IDS = frozenset({
    "BHj8s0GPnMEQtkaULIM-PLgEhLBbuGUQ1vMxmBWZzEo",
    "oD0HwocPBSfpNy5W3bpJeyFGY_IQ_YpqxSjQ3Yd-CLA",
    "ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI",
    "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U",
})


@dataclass(frozen=True, slots=True)
class SigResult:
    """One request's Web Bot Auth outcome. ``agent``: the signer's key-directory origin;
    ``directory``: the directory URL; ``covered``: the components a verified signature covers
    (lower case); ``label``: the signature's label."""

    state: SigState
    agent: str | None
    keyid: str | None
    detail: str
    covered: frozenset[str] = frozenset()
    directory: str | None = None
    label: str | None = None


@dataclass(frozen=True, slots=True)
class KeyDirectory:
    """The keys one directory publishes, by thumbprint. ``expires``: when to fetch it again
    (monotonic clock); ``usable_until``: how long ``keys`` may still verify (past ``expires``
    when a refetch failed); ``error``: why the last fetch failed."""

    agent: str
    keys: Mapping[str, Any]
    expires: float
    error: str | None = None
    url: str = ""
    usable_until: float = math.inf
    etag: str | None = None
    refused_test_keys: int = 0


@dataclass(frozen=True, slots=True)
class _Sig:
    """One web-bot-auth signature as the request states it."""

    label: str
    keyid: str | None
    alg: str | None
    created: int | None
    expires: int | None
    nonce: str | None
    covered: tuple[str, ...]
    agent_url: str | None  # the covered Signature-Agent member's URL
    agent_problem: str | None  # why there is none (None: no Signature-Agent header at all)
    agent_uncovered: bool = False


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


_THUMB_MEMBERS = {"OKP": ("crv", "kty", "x"), "EC": ("crv", "kty", "x", "y"),
                  "RSA": ("e", "kty", "n")}


def jwk_thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638 thumbprint (SHA-256, base64url) of a public JWK: its required members in
    lexicographic order, no white space (RFC 7638 3.2; OKP: RFC 8037 A.3)."""
    members = _THUMB_MEMBERS.get(str(jwk.get("kty")))
    if members is None:
        raise ValueError(f"no thumbprint for key type {jwk.get('kty')!r}")
    canon = json.dumps({m: jwk[m] for m in members}, separators=(",", ":"), sort_keys=True)
    return _b64url(hashlib.sha256(canon.encode("utf-8")).digest())


def _public_key(jwk: Mapping[str, Any]) -> Any:
    """The ``cryptography`` public key of an Ed25519, P-256 or RSA (2048 bits or more) JWK;
    ValueError for any other."""
    kty = jwk.get("kty")
    if kty == "OKP" and jwk.get("crv") == "Ed25519" and isinstance(jwk.get("x"), str):
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        return Ed25519PublicKey.from_public_bytes(_unb64url(jwk["x"]))
    if kty == "EC" and jwk.get("crv") == "P-256" and isinstance(jwk.get("x"), str) \
            and isinstance(jwk.get("y"), str):
        from cryptography.hazmat.primitives.asymmetric import ec

        x, y = _unb64url(jwk["x"]), _unb64url(jwk["y"])
        if len(x) != 32 or len(y) != 32:
            raise ValueError("not a P-256 point")
        return ec.EllipticCurvePublicNumbers(int.from_bytes(x, "big"), int.from_bytes(y, "big"),
                                             ec.SECP256R1()).public_key()
    if kty == "RSA" and isinstance(jwk.get("n"), str) and isinstance(jwk.get("e"), str):
        from cryptography.hazmat.primitives.asymmetric import rsa

        n = int.from_bytes(_unb64url(jwk["n"]), "big")
        if not 2048 <= n.bit_length() <= 8192:
            raise ValueError("RSA modulus outside 2048..8192 bits")
        return rsa.RSAPublicNumbers(int.from_bytes(_unb64url(jwk["e"]), "big"), n).public_key()
    raise ValueError("not an Ed25519, P-256 or RSA public key")


def keys_from_jwks(body: bytes, *, allow_test_keys: bool = True
                   ) -> tuple[dict[str, Any], int]:
    """The usable public keys of a JWKS by their computed thumbprint (the ``kid`` a directory
    gives is not trusted), and how many published test keys were refused. At most
    :data:`MAX_KEYS` entries are read; an entry that is not a usable key is skipped. Raises
    ``ValueError`` when the body is not a JWKS."""
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not JSON: {str(exc)[:80]}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list):
        raise ValueError("not a JWKS: no 'keys' array")
    out: dict[str, Any] = {}
    refused = 0
    for jwk in doc["keys"][:MAX_KEYS]:
        if not isinstance(jwk, dict) or "d" in jwk:  # a private key is not published
            continue
        try:
            kid = jwk_thumbprint(jwk)
            key = _public_key(jwk)
        except (ValueError, KeyError, TypeError):
            continue
        if kid in TEST_KEY_IDS and not allow_test_keys:
            refused += 1
            continue
        out[kid] = key
    return out, refused


def parse_signature_agent(value: str, label: str | None = None) -> str | None:
    """The URL of a ``Signature-Agent`` field for the signature ``label``: the Dictionary
    member of that key (``sig1="https://agent.example"``, the protocol draft; a member with
    parameters is ignored), or the legacy sf-string (``"https://agent.example"``). ``None``
    when there is none."""
    url, _why = _agent_member(value, label, whole=True)
    return url


def _agent_member(value: str, key: str | None, whole: bool) -> tuple[str | None, str | None]:
    """(url, None) or (None, why) for the ``Signature-Agent`` member ``key`` (``whole``: the
    signature covers the whole field, ``key`` is then its label)."""
    if not value or len(value) > MAX_HEADER:
        return None, "Signature-Agent is empty or too long"

    item = parse_item(value)
    if item is not None:
        if whole and isinstance(item[0], str) and not item[1]:
            return item[0], None  # the legacy sf-string
        return None, "Signature-Agent is a single item, not the covered dictionary member"
    members = parse_dictionary(value).members
    if members is None:
        return None, "Signature-Agent is not a Structured Fields dictionary"
    if key is not None and key in members:
        member = members[key]
    elif whole and len(members) == 1:
        member = next(iter(members.values()))
    else:
        return None, f"Signature-Agent has no member {key!r}"
    if not (isinstance(member, tuple) and isinstance(member[0], str)):
        return None, f"Signature-Agent member {key!r} is not a string"
    if member[1]:
        return None, f"Signature-Agent member {key!r} carries parameters: ignored"
    return member[0], None


def _url_parts(url: str, allow_http: bool) -> tuple[str, str] | None:
    """(origin, path) of an https URL (``http`` too with ``allow_http``): the origin as the
    package writes origins (:func:`robotrules._origin.origin_of`: host lower-cased and in
    ASCII, default port dropped); no user info; the query and fragment are not part of it."""

    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    origin = origin_or_none(url)
    if origin is None or parts.username is not None or parts.password is not None \
            or parts.scheme.lower() not in (("https", "http") if allow_http else ("https",)):
        return None
    return origin, parts.path


def _directory_url(url: str, allow_http: bool) -> str | None:
    """The key directory a URL names: an origin stands for its well-known URI."""
    parts = _url_parts(url, allow_http)
    if parts is None:
        return None
    origin, path = parts
    return origin + (DIRECTORY_PATH if path in ("", "/") else path)


def _origin_of(directory: str) -> str:

    return origin_of(directory)


def normalize_authority(text: str, scheme: str | None = None) -> str | None:
    """``host[:port]`` as RFC 9421 2.2.3 compares it, the host written as the package writes
    hosts (:func:`robotrules._origin.origin_of`: lower case, ASCII by IDNA 2008, the ``idna``
    package), the default port of ``scheme`` dropped (both 80 and 443 when no scheme is
    known). ``None`` when it is not an authority."""

    text = text.strip()
    if not text or any(c in text for c in "/?#@\\ \t\r\n"):
        return None
    origin = origin_or_none(f"{scheme or 'https'}://{text}")
    if origin is None:
        return None
    authority = authority_of(origin)
    if scheme is None and authority.endswith(":80"):
        authority = authority[:-3]
    return authority


def _authority_of(url: str) -> str | None:
    """The authority a request to ``url`` signs (``@authority``), normalized."""

    origin = origin_or_none(url)
    return authority_of(origin) if origin is not None else None


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


def _algorithm(alg: str | None, key: Any) -> Any:
    """The library's algorithm for ``alg`` (or, without it, for the key's type)."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from http_message_signatures.algorithms import (
        ECDSA_P256_SHA256,
        ED25519,
        RSA_PSS_SHA512,
    )

    by_name = {"ed25519": ED25519, "rsa-pss-sha512": RSA_PSS_SHA512,
               "ecdsa-p256-sha256": ECDSA_P256_SHA256}
    if alg is not None:
        return by_name[alg]
    if isinstance(key, ed25519.Ed25519PublicKey):
        return ED25519
    if isinstance(key, rsa.RSAPublicKey):
        return RSA_PSS_SHA512
    if isinstance(key, ec.EllipticCurvePublicKey):
        return ECDSA_P256_SHA256
    raise ValueError("no algorithm for this key")


_ALGORITHMS = frozenset({"ed25519", "rsa-pss-sha512", "ecdsa-p256-sha256"})


class WebBotAuth:
    """Verifies Web Bot Auth signatures; holds the key directories and the nonces seen.

    ``authorities``: this site's own ``host[:port]`` values; when given, a signature whose
    signed authority is not one of them is ``invalid`` (the guard requires them when signatures
    are checked). ``trusted_agents``: directory origins or URLs besides the registry's.
    ``allow_http``, ``allow_loopback`` and ``allow_test_keys`` are test settings."""

    def __init__(self, *, trusted_agents: Iterable[str] = (), use_registry: bool = True,
                 authorities: Iterable[str] = (), allow_http: bool = False,
                 allow_loopback: bool = False, allow_test_keys: bool = False,
                 timeout: float = 2.0, max_bytes: int = 65_536, key_ttl: float = 3600.0,
                 key_grace: float = 86_400.0, fail_ttl: float = MAX_FAIL_TTL,
                 skew: float = 5.0, max_window: float = 86_400.0, max_nonces: int = 1_000_000,
                 transport: Any = None) -> None:
        self.allow_http = allow_http
        self.allow_loopback = allow_loopback
        self.allow_test_keys = allow_test_keys
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.key_ttl = key_ttl
        self.key_grace = key_grace
        self.fail_ttl = min(fail_ttl, MAX_FAIL_TTL)
        self.skew = skew
        self.max_window = max_window
        self.max_nonces = max_nonces
        self.transport = transport
        self.authorities: frozenset[str] = frozenset()
        auths: set[str] = set()
        for a in authorities:
            n = normalize_authority(a)
            if n is None:
                raise ValueError(f"authorities: {a!r} is not host[:port]")
            auths.add(n)
        self.authorities = frozenset(auths)
        trusted = list(trusted_agents)
        if use_registry:
            trusted += [c.signature_agent for c in _table().values() if c.signature_agent]
        self.trusted: set[str] = {d for d in (_directory_url(a, allow_http) for a in trusted)
                                  if d}
        self._dirs: dict[str, KeyDirectory] = {}
        self._nonces: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    # -- the request side (no I/O) --------------------------------------------------------

    @staticmethod
    def signed(headers: Mapping[str, str]) -> bool:
        return "signature" in headers and "signature-input" in headers

    def agent_of(self, headers: Mapping[str, str]) -> str | None:
        """The trusted key directory (URL) the request's signature names and whose keys are not
        held fresh, else the first trusted one; what :meth:`fetch` takes."""
        raw = headers.get("signature-input", "")
        sigs = self._signatures(raw, headers.get("signature-agent"))
        if isinstance(sigs, str):
            return None
        wanted = [d for d in (self._trusted_dir(s) for s in sigs) if d is not None]
        now = time.monotonic()
        for d in wanted:
            held = self._dirs.get(d)
            if held is None or held.expires < now:
                return d
        return wanted[0] if wanted else None

    def directory(self, agent: str, now: float | None = None) -> KeyDirectory | None:
        """The cached directory of ``agent`` (an origin or a directory URL) if still fresh."""
        url = _directory_url(agent, self.allow_http) or agent
        d = self._dirs.get(url)
        if d is None or d.expires < (time.monotonic() if now is None else now):
            return None
        return d

    def verify(self, method: str, url: str, pairs: Sequence[tuple[str, str]],
               headers: Mapping[str, str], now: float | None = None) -> SigResult | None:
        """Check the request's signatures; ``None`` when a key directory must be fetched
        first (:meth:`agent_of` names it, :meth:`fetch` gets it). ``headers`` is ``pairs`` as
        a lower-cased dict; ``url`` the absolute URL (its authority is the signed one)."""
        if not self.signed(headers):
            return SigResult("unsigned", None, None, "no Web Bot Auth signature")
        for name in ("signature", "signature-input", "signature-agent"):
            # every line of the field counts (the library reads them joined)
            size = sum(len(v) + 2 for n, v in pairs if n.lower() == name)
            if max(size, len(headers.get(name, ""))) > MAX_HEADER:
                return SigResult("unverified", None, None, f"{name} header over {MAX_HEADER}"
                                 " bytes: not read")
        raw = ", ".join(v for n, v in pairs if n.lower() == "signature-input")
        # the field's lines joined, as the signature base reads them (RFC 9421 2.1)
        agent_lines = [v for n, v in pairs if n.lower() == "signature-agent"]
        sigs = self._signatures(raw, ", ".join(agent_lines) if agent_lines else None)
        if isinstance(sigs, str):
            return SigResult("unverified", None, None, sigs)
        wall = time.time() if now is None else now
        results: list[tuple[_Sig, SigResult]] = []
        for s in sigs:
            r = self._check(method, url, pairs, s, wall)
            if r is None:
                return None
            results.append((s, r))
        final: list[SigResult] = []
        for s, r in results:  # nonces last: a request sent back for a fetch is no replay
            if r.state == "verified" and s.nonce is not None and r.directory is not None \
                    and s.expires is not None \
                    and not self._fresh_nonce(f"{r.directory} {s.nonce}", s.expires, wall):
                r = SigResult("invalid", r.agent, r.keyid,
                              "nonce seen before: a replayed signature", directory=r.directory,
                              label=r.label)
            final.append(r)
        for state in ("invalid", "verified"):
            for r in final:
                if r.state == state:
                    return r
        return final[0]

    def _signatures(self, raw: str, agent_field: str | None) -> list[_Sig] | str:
        """The request's web-bot-auth signatures, or why none can be read."""

        members = parse_dictionary(raw).members
        if members is None:
            return "malformed Signature-Input"
        out: list[_Sig] = []
        for label, member in members.items():
            if not (isinstance(member, tuple) and isinstance(member[0], list)):
                continue
            params = member[1]
            if params.get("tag") != TAG:
                continue
            if len(out) == MAX_SIGNATURES:
                return f"more than {MAX_SIGNATURES} web-bot-auth signatures: not read"
            covered: list[str] = []
            agent_key: str | None = None
            agent_whole = False
            for c in member[0]:
                if not (isinstance(c, tuple) and isinstance(c[0], str)):
                    continue
                name = c[0].lower()
                covered.append(name)
                if name == "signature-agent":
                    key = c[1].get("key") if isinstance(c[1], dict) else None
                    if isinstance(key, str):
                        agent_key = key
                    else:
                        agent_whole = True
            url: str | None = None
            problem: str | None = None
            uncovered = False
            if agent_field is not None:
                if agent_key is None and not agent_whole:
                    uncovered = True
                    problem = "the signature does not cover the Signature-Agent header"
                else:
                    url, problem = _agent_member(agent_field, agent_key or label, agent_whole
                                                 and agent_key is None)
            keyid, alg = params.get("keyid"), params.get("alg")
            created, expires, nonce = (params.get(k) for k in ("created", "expires", "nonce"))
            out.append(_Sig(
                str(label), keyid if isinstance(keyid, str) else None,
                alg if isinstance(alg, str) else ("?" if alg is not None else None),
                created if type(created) is int else None,
                expires if type(expires) is int else None,
                nonce if isinstance(nonce, str) else None, tuple(covered), url, problem,
                uncovered))
        if not out:
            return "no signature tagged web-bot-auth"
        return out

    def _trusted_dir(self, s: _Sig) -> str | None:
        if s.agent_url is None:
            return None
        d = _directory_url(s.agent_url, self.allow_http)
        return d if d in self.trusted else None

    def _check(self, method: str, url: str, pairs: Sequence[tuple[str, str]], s: _Sig,
               now: float) -> SigResult | None:
        """One signature's outcome (the nonce aside), ``None`` when its directory is needed."""
        def out(state: SigState, detail: str, agent: str | None = None,
                directory: str | None = None) -> SigResult:
            return SigResult(state, agent, s.keyid, detail, directory=directory, label=s.label)

        if s.keyid is None:
            return out("unverified", "the web-bot-auth signature has no keyid")
        if s.keyid in TEST_KEY_IDS and not self.allow_test_keys:
            return out("invalid", f"key {s.keyid} is a published test key (RFC 9421 Appendix "
                       "B.1): refused in production")
        if s.alg is not None and s.alg.startswith("hmac"):
            return out("invalid", "a shared-secret HMAC signature (the protocol draft: MUST NOT)")
        if s.alg is not None and s.alg not in _ALGORITHMS:
            return out("unverified", f"algorithm {s.alg[:40]!r} is not supported")
        if "@authority" not in s.covered and "@target-uri" not in s.covered:
            return out("invalid", "the signature covers neither @authority nor @target-uri")
        if s.agent_uncovered:
            return out("invalid", "the signature does not cover the Signature-Agent header")
        if s.agent_url is None:
            return out("unverified", s.agent_problem or
                       "signed, but no Signature-Agent says whose key it is")
        directory = _directory_url(s.agent_url, self.allow_http)
        if directory is None:
            return out("unverified",
                       f"Signature-Agent {s.agent_url[:80]!r} is not a usable https URL")
        agent = _origin_of(directory)
        if directory not in self.trusted:
            return out("unverified", f"{directory} is not a key directory this site trusts",
                       agent, directory)
        if self.authorities:
            signed_for = _authority_of(url)
            if signed_for not in self.authorities:
                return out("invalid", f"signed for {str(signed_for)[:80]}, which is not this "
                           "site: a cross-site or replayed signature", agent, directory)
        if s.created is None or s.expires is None:
            return out("invalid", "the signature lacks created or expires", agent, directory)
        if s.created > now + self.skew:
            return out("invalid", "created is in the future", agent, directory)
        if s.expires < now - self.skew:
            return out("invalid", "the signature has expired", agent, directory)
        if s.expires - s.created > self.max_window:
            return out("invalid", f"validity window over {self.max_window:.0f} s", agent,
                       directory)
        mono = time.monotonic()
        d = self._dirs.get(directory)
        if d is None or d.expires < mono:
            return None
        key = d.keys.get(s.keyid) if d.usable_until >= mono else None
        if key is None:
            if d.error is not None and (not d.keys or d.usable_until < mono):
                return out("unverified", f"key directory {directory}: {d.error}", agent,
                           directory)
            return out("unverified", f"key {s.keyid[:60]!r} is not in {directory}", agent,
                       directory)
        return self._crypto(method, url, pairs, s, key, now, agent, directory)

    def _crypto(self, method: str, url: str, pairs: Sequence[tuple[str, str]], s: _Sig,
                key: Any, now: float, agent: str, directory: str) -> SigResult:

        from http_message_signatures import HTTPMessageVerifier, HTTPSignatureKeyResolver
        from http_message_signatures.exceptions import (
            HTTPMessageSignaturesException,
            InvalidSignature,
        )

        keyid = s.keyid

        class _Keys(HTTPSignatureKeyResolver):
            def resolve_public_key(self, key_id: str) -> Any:
                return key if key_id == keyid else None

        try:
            verifier = HTTPMessageVerifier(signature_algorithm=_algorithm(s.alg, key),
                                           key_resolver=_Keys())
            verifier.max_clock_skew = datetime.timedelta(
                seconds=self.skew + abs(time.time() - now))
            verifier.verify(_Message(method, url, pairs), max_age=None, expect_tag=TAG,
                            expect_label=s.label)
        except (InvalidSignature, HTTPMessageSignaturesException, ValueError, TypeError) as exc:
            return SigResult("invalid", agent, keyid,
                             f"signature does not verify: {str(exc)[:120] or 'wrong signature'}",
                             directory=directory, label=s.label)
        except Exception as exc:  # any other library failure on hostile input: no evidence
            return SigResult("unverified", agent, keyid,
                             f"signature could not be checked: {type(exc).__name__}",
                             directory=directory, label=s.label)
        return SigResult("verified", agent, keyid,
                         f"signed by {directory} (key {str(keyid)[:12]}…)",
                         frozenset(s.covered), directory=directory, label=s.label)

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

    # -- the key directories (bounded I/O in ._download) ----------------------------------

    def _fetch_args(self, agent: str) -> tuple[str | None, dict[str, Any]]:
        url = _directory_url(agent, self.allow_http)
        held = self._dirs.get(url) if url else None
        kw: dict[str, Any] = {
            "timeout": self.timeout, "max_bytes": self.max_bytes,
            "accept": f"{MEDIA_TYPE}, application/jwk-set+json;q=0.9, application/json;q=0.8",
            "allow_loopback": self.allow_loopback, "transport": self.transport,
            "etag": held.etag if held is not None and held.keys else None}
        return url, kw

    def fetch(self, agent: str) -> KeyDirectory:
        """Fetch (or re-fetch) the key directory ``agent`` names (an origin: its well-known
        URI; or a directory URL), bounded as the module docstring says."""
        from ._download import DownloadError, download

        url, kw = self._fetch_args(agent)
        if url is None or url not in self.trusted:
            return self._untrusted(agent, url)
        try:
            return self._stored(url, download(url, **kw))
        except DownloadError as exc:
            return self._failed(url, str(exc))

    async def afetch(self, agent: str) -> KeyDirectory:
        """:meth:`fetch` for asyncio."""
        from ._download import DownloadError, adownload

        url, kw = self._fetch_args(agent)
        if url is None or url not in self.trusted:
            return self._untrusted(agent, url)
        try:
            return self._stored(url, await adownload(url, **kw))
        except DownloadError as exc:
            return self._failed(url, str(exc))

    def _untrusted(self, agent: str, url: str | None) -> KeyDirectory:
        return KeyDirectory(_origin_of(url) if url else agent, {}, 0.0,
                            f"{url or agent!r} is not a key directory this site trusts",
                            url or "", 0.0)

    def _stored(self, url: str, got: Any) -> KeyDirectory:
        from .._policy import freshness_lifetime

        now = time.monotonic()
        life = min(freshness_lifetime(got.headers, min_ttl=60.0), self.key_ttl)
        with self._lock:
            held = self._dirs.get(url)
            if got.status == 304 and held is not None and held.keys:
                d = KeyDirectory(held.agent, held.keys, now + life, None, url,
                                 now + life + self.key_grace, held.etag)
                self._dirs[url] = d
                return d
        ctype = got.headers.get("content-type", "").split(";")[0].strip().lower()
        if got.status != 200 or ctype not in _DIRECTORY_TYPES:
            why = (f"content type {ctype or 'missing'!r} is not a key directory"
                   if got.status == 200 else f"HTTP {got.status}")
            return self._failed(url, why)
        try:
            keys, refused = keys_from_jwks(got.body, allow_test_keys=self.allow_test_keys)
        except ValueError as exc:
            return self._failed(url, str(exc))
        if not keys:
            why = (f"only published test keys ({refused}): refused" if refused
                   else "no usable key in the directory")
            # an answer that holds no key is evidence: it replaces what was held
            d = KeyDirectory(_origin_of(url), {}, now + self.fail_ttl, why, url, 0.0,
                             refused_test_keys=refused)
        else:
            d = KeyDirectory(_origin_of(url), keys, now + life, None, url,
                             now + life + self.key_grace, got.etag, refused)
        with self._lock:
            self._dirs[url] = d
        return d

    def _failed(self, url: str, error: str) -> KeyDirectory:
        """A fetch that failed: retried after ``fail_ttl``; the last good keys stay usable
        until their own expiry plus ``key_grace``."""
        now = time.monotonic()
        with self._lock:
            held = self._dirs.get(url)
            if held is not None and held.keys and held.usable_until >= now:
                d = KeyDirectory(held.agent, held.keys, now + self.fail_ttl, error, url,
                                 held.usable_until, held.etag, held.refused_test_keys)
            else:
                d = KeyDirectory(_origin_of(url), {}, now + self.fail_ttl, error, url, 0.0)
            self._dirs[url] = d
        return d

    def add_keys(self, agent: str, jwks: bytes | Mapping[str, Any]) -> None:
        """Pin the keys of ``agent``'s directory (an origin or a directory URL) from a JWKS the
        site gives (no fetch; never expires). ``ValueError`` when it holds a published test key
        and ``allow_test_keys`` is off, or no usable key."""
        url = _directory_url(agent, True)
        if url is None:
            raise ValueError(f"{agent!r} is not an https URL")
        body = jwks if isinstance(jwks, bytes) else json.dumps(jwks).encode()
        keys, refused = keys_from_jwks(body, allow_test_keys=self.allow_test_keys)
        if refused:
            raise ValueError(f"{agent}: {refused} published test key(s) (RFC 9421 Appendix B.1)"
                             "; refused without allow_test_keys=True")
        if not keys:
            raise ValueError(f"{agent}: no usable key in the JWKS")
        with self._lock:
            self.trusted.add(url)
            self._dirs[url] = KeyDirectory(_origin_of(url), keys, math.inf, None, url)

