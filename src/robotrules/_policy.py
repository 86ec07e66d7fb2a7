"""The HTTP outcome policy: every decision about robots.txt over HTTP that needs no socket.

Sans-I/O and importable with no third-party package (brotli is imported only to decode a
``br`` body): the fetch clients, ``compat``, ``lint`` and the dataset reader all take their
status, redirect, size and freshness rules from here.

Theory of operation. A client turns a URL into its origin (:func:`origin_of`, RFC 9309 2.3) and
asks its cache. On a miss it runs one :class:`Attempt`: the shell sends GETs and reports each
response head, body chunk or transport failure to the attempt, which answers what to do next
(read the body, follow a redirect, stop) and ends in an :class:`AttemptResult`. :func:`settle`
then combines that result with the previous cache entry (RFC 9309 2.3.1.4 and 2.4: keep a good
copy through an outage for up to 30 days, back off between retries, cap freshness at 24 h) into
the new :class:`~robotrules.stores.CacheEntry`. Nothing here reads a clock: ``now`` is passed in.

Costs: one attempt keeps at most ``max_bytes`` of decoded body plus one decompressor window;
decompression output is bounded per step, so a compression bomb costs O(max_bytes) memory and
O(max_bytes) CPU, never the size it claims.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from urllib.parse import urljoin

from robotrules._cache_entry import CacheEntry, Outcome
from robotrules._dialects import SPECS
from robotrules._model import Verdict
from robotrules._origin import origin_of
from robotrules._types import Dialect
from robotrules.errors import InvalidURL

__all__ = [
    "BACKOFF_BASE",
    "BACKOFF_MAX",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "KEEP_AFTER_FAILURE",
    "LONG_OUTAGE",
    "MAX_TTL",
    "MIN_TTL",
    "Attempt",
    "AttemptResult",
    "BodyDecoder",
    "Kind",
    "StatusClass",
    "backoff_delay",
    "check_number",
    "classify_status",
    "freshness_lifetime",
    "outcome_verdict",
    "settle",
    "store_ttl",
    "summarize",
]

DEFAULT_MAX_BYTES = 512_000  # RFC 9309 2.5: the limit MUST be at least 500 KiB (512,000 bytes)
DEFAULT_CONNECT_TIMEOUT = 5.0  # a SYN and two retransmits (1 s, 3 s) fit; a dead host costs 5 s
DEFAULT_TIMEOUT = 30.0  # whole fetch incl. redirects: 500 KiB at ~20 KB/s; slow-loris bound
MAX_TTL = 86_400.0  # RFC 9309 2.4: SHOULD NOT use a cached copy for more than 24 h
MIN_TTL = 60.0  # default floor (a setting: clients' min_ttl): max-age=0 would refetch per URL
BACKOFF_BASE = 60.0  # first retry after an unreachable result (Google: 5xx retried "often")
BACKOFF_MAX = 3_600.0  # doubling stops here (StormCrawler's error cache: 1 h)
LONG_OUTAGE = 30 * 86_400.0  # RFC 9309 2.3.1.4: "a reasonably long period of time (30 days)"
KEEP_AFTER_FAILURE = LONG_OUTAGE + 86_400.0  # stores keep entries long enough to serve the rule

_DEC = re.compile(r"\s*(\d+)\s*")


# --- one fetch: status and redirect handling -----------------------------------------------

Kind = Literal["ok", "unavailable", "auth-disallow", "unreachable"]


@dataclass(frozen=True, slots=True)
class AttemptResult:
    """What one fetch (with its redirects) produced, before the cache history is considered."""

    kind: Kind
    robots_url: str
    final_url: str
    status: int | None
    redirects: tuple[tuple[str, int], ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    truncated: bool = False
    error: str | None = None  # why not ok, in words ("connection refused", "redirect loop")
    retry_after: float | None = None


Step = Literal["read-body", "redirect", "done"]
StatusClass = Literal["ok", "redirect", "unavailable", "auth-disallow", "unreachable",
                      "invalid"]


def classify_status(status: int, *, auth_failure: Literal["allow", "disallow"] = "allow"
                    ) -> StatusClass:
    """What an HTTP status means for robots.txt: the one status table of the package.

    RFC 9309 2.3.1.1 (2xx: parse), 2.3.1.2 (3xx: follow), 2.3.1.3 (4xx: unavailable, allow
    all), 2.3.1.4 (5xx: unreachable, disallow all); 429 as 5xx (Google's specification);
    401/403 as "disallow all" only on request (``auth_failure="disallow"``, MK1996 3.1).
    Anything outside 200-599 is ``invalid`` (unreachable, with an error).
    """
    if 200 <= status < 300:
        return "ok"
    if 300 <= status < 400:
        return "redirect"
    if status in (401, 403) and auth_failure == "disallow":
        return "auth-disallow"
    if status == 429 or 500 <= status < 600:
        return "unreachable"
    if 400 <= status < 500:
        return "unavailable"
    return "invalid"


def outcome_verdict(url: str, *, allowed: bool, status: int | None, failing: bool,
                    user_agent: str, dialect: Dialect, detail: str,
                    not_fetched: bool = False) -> Verdict:
    """The verdict of a robots.txt's HTTP outcome, where no line of a file decided: the one
    place it is built (the fetch clients' ``FetchedRobots.explain``, ``compat``'s drop-in).

    ``reason`` is ``"unavailable"`` when everything is allowed (RFC 9309 2.3.1.3) and after a
    401/403 read as "disallow all" (``auth_failure="disallow"``, MK1996 3.1: the file is
    withheld, not unreachable), else ``"unreachable"`` (2.3.1.4; ``failing``: the origin is in
    an outage, whatever its last status); ``"not-fetched"`` with ``not_fetched``. ``detail``
    is the outcome in words (:func:`summarize`)."""
    reason: Literal["unavailable", "unreachable", "not-fetched"]
    if not_fetched:
        reason = "not-fetched"
    elif allowed or (not failing and status in (401, 403)):
        reason = "unavailable"
    else:
        reason = "unreachable"
    return Verdict(allowed=allowed, line=None, rule=None, agents=(), reason=reason,
                   user_agent=user_agent, path=SPECS[dialect].path(url), dialect=dialect,
                   detail=detail)


# --- RSL licence challenges (robotrules.aipref.rsl) -------------------------------------------


def license_challenge(status: int | None, headers: Mapping[str, str]) -> str | None:
    """``"licence required ..."`` when a 401 or 402 carries a ``WWW-Authenticate`` challenge of
    the ``License`` scheme (RSL 1.0: a crawler without a licence token is refused that way),
    else None. Header names must be lower case; schemes compare case-insensitively (RFC 9110
    11.1)."""
    if status not in (401, 402):
        return None
    challenge = headers.get("www-authenticate", "")
    schemes = {part.strip().split(" ", 1)[0].lower() for part in challenge.split(",")}
    if "license" not in schemes:
        return None
    return f"licence required (RSL: {status} with WWW-Authenticate: License)"


class Attempt:
    """Drives one robots.txt fetch. The shell calls, in order:

    ``url`` (next URL to GET) -> :meth:`on_response` -> ``"redirect"``: GET ``url`` again;
    ``"read-body"``: feed :attr:`decoder` with raw chunks until it says stop, then
    :meth:`on_body_end`; ``"done"``: close the response. :meth:`on_error` on any transport
    failure. :attr:`result` is set once the attempt is over.
    """

    def __init__(
        self,
        origin: str,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_redirects: int = 5,
        auth_failure: Literal["allow", "disallow"] = "allow",
    ) -> None:
        self.origin = origin
        self.robots_url = origin + "/robots.txt"
        self.url = self.robots_url
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.auth_failure = auth_failure
        self.redirects: list[tuple[str, int]] = []
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.decoder: BodyDecoder | None = None
        self.result: AttemptResult | None = None
        self._seen = {self.robots_url}

    def _finish(self, kind: Kind, *, error: str | None = None, body: bytes = b"",
                truncated: bool = False) -> Step:
        self.result = AttemptResult(
            kind=kind,
            robots_url=self.robots_url,
            final_url=self.url,
            status=self.status,
            redirects=tuple(self.redirects),
            headers=dict(self.headers),
            body=body,
            truncated=truncated,
            error=error,
            retry_after=retry_after(self.headers) if kind == "unreachable" else None,
        )
        return "done"

    def on_response(self, status: int, headers: Mapping[str, str]) -> Step:
        """A response head arrived for :attr:`url`; header names must be lower case."""
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        what = classify_status(status, auth_failure=self.auth_failure)
        if what == "ok":
            self.decoder = BodyDecoder(self.headers.get("content-encoding", ""), self.max_bytes)
            if self.decoder.error:
                return self._finish("unreachable", error=self.decoder.error)
            return "read-body"
        if what == "redirect":
            return self._redirect(status)
        if what == "invalid":
            return self._finish("unreachable", error=f"invalid status {status}")
        return self._finish(what, error=license_challenge(status, self.headers))

    def _redirect(self, status: int) -> Step:
        self.redirects.append((self.url, status))
        location = self.headers.get("location", "").strip()
        if not location:
            return self._finish("unavailable", error="redirect without Location")
        target = urljoin(self.url, location).partition("#")[0]
        try:
            origin_of(target)
        except InvalidURL:
            return self._finish("unavailable", error="redirect to a non-http(s) URL")
        if target in self._seen:
            return self._finish("unavailable", error="redirect loop")
        if len(self.redirects) > self.max_redirects:  # Google: "then stop and treat as 404"
            return self._finish("unavailable", error=f"more than {self.max_redirects} redirects")
        self._seen.add(target)
        self.url = target
        self.status = None
        return "redirect"

    def body_already_decoded(self) -> None:
        """The HTTP client has already read and decoded the body (an ``httpx.Response`` built
        with ``content=``, as ``httpx.MockTransport`` handlers do): feed it as it is, still
        capped at ``max_bytes``."""
        self.decoder = BodyDecoder("", self.max_bytes)

    def feed(self, raw: bytes) -> bool:
        """A chunk of the raw body; True means stop reading (limit reached or broken data)."""
        assert self.decoder is not None
        try:
            return self.decoder.feed(raw)
        except ValueError as exc:
            self._finish("unreachable", error=str(exc))
            return True

    def on_body_end(self, *, complete: bool) -> Step:
        """The body ended: ``complete`` if the transfer finished, False if we stopped early."""
        assert self.decoder is not None
        if self.result is not None:  # feed() already failed
            return "done"
        try:
            body, truncated = self.decoder.finish(complete=complete)
        except ValueError as exc:
            return self._finish("unreachable", error=str(exc))
        return self._finish("ok", body=body, truncated=truncated)

    def on_error(self, error: str) -> Step:
        """A transport failure (already put in words by the shell): unreachable, 2.3.1.4."""
        return self._finish("unreachable", error=error)


# --- body: bounded decompression ------------------------------------------------------------


class BodyDecoder:
    """Decodes ``Content-Encoding`` incrementally, never producing more than the limit.

    :meth:`feed` returns True once ``max_bytes`` + 1 decoded bytes exist (the rest of the body
    is then not read: RFC 9309 2.5, content after the limit is ignored). The raw transfer is
    capped too (2 x limit + 64 KiB) so a compressed stream that decodes to little cannot make
    us read forever. ``error`` is set at construction for an encoding we did not ask for.
    """

    def __init__(self, content_encoding: str, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.raw_limit = 2 * max_bytes + 65_536
        self.raw_read = 0
        self.error: str | None = None
        self._out = bytearray()
        self._done = False
        self._sniffed = bytearray()
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        self._zlib: zlib._Decompress | None = None
        self._brotli: object | None = None
        self._deflate_sniff = False
        if len(codings) > 1:
            self.error = f"unsupported content-encoding {content_encoding!r}"
        elif codings:
            coding = codings[0]
            if coding in ("gzip", "x-gzip"):
                self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
            elif coding == "deflate":
                self._zlib = zlib.decompressobj()
                self._deflate_sniff = True  # zlib-wrapped per RFC 9110, raw deflate in practice
            elif coding == "br":
                try:
                    import brotli
                except ImportError:
                    self.error = "brotli body but the brotli package is not installed"
                else:
                    self._brotli = brotli.Decompressor()
            else:
                self.error = f"unsupported content-encoding {coding!r}"

    @property
    def full(self) -> bool:
        return len(self._out) > self.max_bytes or self.raw_read > self.raw_limit

    def feed(self, raw: bytes) -> bool:
        """Add raw bytes; True means stop reading (limit reached)."""
        if self._done or not raw:
            return self.full
        self.raw_read += len(raw)
        budget = self.max_bytes + 1 - len(self._out)
        if self._zlib is not None:
            self._feed_zlib(raw, budget)
        elif self._brotli is not None:
            self._feed_brotli(raw, budget)
        else:
            self._out += raw[: max(budget, 0)]
        return self.full

    def _feed_zlib(self, raw: bytes, budget: int) -> None:
        assert self._zlib is not None
        data = raw
        if self._deflate_sniff:
            self._sniffed += raw
        while budget > 0 and data:
            try:
                out = self._zlib.decompress(data, budget)
            except zlib.error as exc:
                if self._deflate_sniff:  # not zlib-wrapped: start over as raw deflate
                    self._deflate_sniff = False
                    self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                    data = bytes(self._sniffed)
                    continue
                raise ValueError(f"invalid compressed body: {exc}") from exc
            if self._deflate_sniff and (out or len(self._sniffed) >= 2):
                self._deflate_sniff = False  # the 2-byte zlib header checked out
            self._out += out
            budget -= len(out)
            data = self._zlib.unconsumed_tail
            if self._zlib.eof:
                rest = self._zlib.unused_data
                if rest and rest.startswith(b"\x1f\x8b"):  # another gzip member
                    self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    data = rest
                else:
                    break

    def _feed_brotli(self, raw: bytes, budget: int) -> None:
        import brotli

        dec: Any = self._brotli
        try:
            try:
                # The limit stops the output buffer growing (it may overshoot by one block);
                # what passes the limit is dropped at once.
                out = dec.process(raw, output_buffer_limit=budget)
                self._out += out[:budget]
                while len(self._out) <= self.max_bytes and not dec.can_accept_more_data():
                    budget = self.max_bytes + 1 - len(self._out)
                    more = dec.process(b"", output_buffer_limit=budget)
                    if not more:
                        break
                    self._out += more[:budget]
            except TypeError:  # brotli < 1.2 has no output limit: feed small slices
                for i in range(0, len(raw), 256):
                    self._out += dec.process(raw[i : i + 256])
                    if len(self._out) > self.max_bytes:
                        del self._out[self.max_bytes + 1 :]
                        break
        except brotli.error as exc:
            raise ValueError(f"invalid compressed body: {exc}") from exc

    def finish(self, *, complete: bool) -> tuple[bytes, bool]:
        """The body to parse and whether it was cut. Raises ValueError for a broken stream."""
        self._done = True
        truncated = self.full
        if complete and not truncated:
            if self._zlib is not None and not self._zlib.eof:
                raise ValueError("incomplete compressed body")
            brotli_dec: Any = self._brotli
            if brotli_dec is not None and not brotli_dec.is_finished():
                raise ValueError("incomplete compressed body")
        body = bytes(self._out[: self.max_bytes])
        if truncated:
            # A line cut by the limit could widen a rule ("Allow: /private-x" -> "Allow: /p"),
            # so the partial last line is dropped, not parsed.
            cut = max(body.rfind(b"\n"), body.rfind(b"\r"))
            body = body[: cut + 1]
        return body, truncated

    @property
    def decoded_bytes(self) -> int:
        return len(self._out)


# --- caching: freshness, back-off, outages --------------------------------------------------


def _http_date(value: str) -> float | None:
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def freshness_lifetime(headers: Mapping[str, str], *, min_ttl: float = MIN_TTL) -> float:
    """Seconds a response stays fresh: ``max-age`` (minus ``Age``), else ``Expires - Date``.

    RFC 9309 2.4 and RFC 9111 4.2.1; clamped to [``min_ttl``, MAX_TTL] (24 h, RFC 9309 2.4).
    ``min_ttl`` (default :data:`MIN_TTL`, 60 s) is the client's floor: a server's
    ``max-age=1`` is honoured down to it, and ``min_ttl=0`` honours it exactly. No header: 24 h.
    """
    lifetime: float | None = None
    cache_control = headers.get("cache-control", "")
    directives: dict[str, str] = {}
    for part in cache_control.split(","):
        name, _, value = part.strip().partition("=")
        directives[name.strip().lower()] = value.strip().strip('"')
    if "no-store" in directives or "no-cache" in directives:
        lifetime = 0.0
    elif "max-age" in directives:
        m = _DEC.fullmatch(directives["max-age"])
        lifetime = float(m.group(1)) if m else 0.0  # RFC 9111 4.2.1: invalid = stale
        age = _DEC.fullmatch(headers.get("age", ""))
        if age:
            lifetime -= float(age.group(1))
    elif "expires" in headers:
        expires = _http_date(headers["expires"])
        date = _http_date(headers.get("date", ""))
        # RFC 9111 5.3: an invalid Expires means already expired
        lifetime = 0.0 if expires is None or date is None else expires - date
    if lifetime is None:
        return MAX_TTL
    return min(max(lifetime, min_ttl), MAX_TTL)


def retry_after(headers: Mapping[str, str]) -> float | None:
    """``Retry-After`` in seconds (delta or HTTP date relative to ``Date``), or None."""
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    m = _DEC.fullmatch(value)
    if m:
        return float(m.group(1))
    when = _http_date(value)
    date = _http_date(headers.get("date", ""))
    if when is None or date is None:
        return None
    return max(when - date, 0.0)


def backoff_delay(failures: int, hint: float | None = None) -> float:
    """Seconds until the next try after ``failures`` consecutive unreachable results.

    60 s, 120 s, 240 s ... capped at 1 h; a server's ``Retry-After`` can only lengthen it
    (up to 24 h).
    """
    delay: float = min(BACKOFF_BASE * 2.0 ** min(max(failures - 1, 0), 16), BACKOFF_MAX)
    if hint is not None:
        delay = max(delay, min(hint, MAX_TTL))
    return delay


def _kib(n: int) -> str:
    return f"{n:,} bytes"


def summarize(entry: CacheEntry, *, long_outage: bool = False) -> str:
    """One line for people: ``"200: 1,234 bytes, rules"``, ``"503: unreachable, disallow all"``."""
    what = str(entry.status) if entry.status is not None else (entry.error or "no response")
    stale = entry.failing_since is not None and entry.copy_ok
    if entry.status is not None and entry.error and entry.outcome != "rules" and not stale:
        what = f"{entry.status} ({entry.error})"
    if entry.failing_since is not None and not entry.copy_ok:
        if long_outage:
            allow = entry.outcome == "allow-all"
            verdict = "treated as unavailable, allow all" if allow else "disallow all"
            return f"{what}: unreachable for over 30 days, {verdict}"
        return f"{what}: unreachable, disallow all"
    if entry.outcome == "rules":
        text = f"{entry.status}: {_kib(len(entry.body))}, rules"
        if entry.truncated:
            text += ", truncated at the size limit"
    elif entry.outcome == "allow-all":
        text = f"{what}: unavailable, allow all"
    else:
        text = f"{what}: unavailable, disallow all (auth_failure='disallow')"
    if entry.failing_since is not None:
        text += f"; stale copy, refresh failing since {_iso(entry.failing_since)}: {entry.error}"
    return text


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _describe_failure(result: AttemptResult) -> str:
    if result.status is not None:
        return f"{result.status}" + (f" ({result.error})" if result.error else "")
    return result.error or "unreachable"


def settle(
    previous: CacheEntry | None,
    result: AttemptResult,
    now: float,
    *,
    long_outage: Literal["disallow", "allow"] = "disallow",
    min_ttl: float = MIN_TTL,
) -> CacheEntry:
    """The cache entry after ``result``, given what was cached before.

    * ok / unavailable / auth-disallow: a new copy, fresh for :func:`freshness_lifetime`
      with the client's ``min_ttl`` floor (RFC 9309 2.4; 4xx cached like 2xx).
    * unreachable with a previous good copy: keep serving the copy (RFC 9309 2.4 "unless the
      file is unreachable"), retry after :func:`backoff_delay`.
    * unreachable without a copy: disallow all (2.3.1.4), retry after the back-off.
    * unreachable for :data:`LONG_OUTAGE` (30 days) since the first failure: the copy is
      dropped; ``long_outage`` decides, as 2.3.1.4 allows, between complete disallow (default)
      and treating the file as unavailable (Google's choice: allow).
    """
    if result.kind != "unreachable":
        outcome: Outcome = {"ok": "rules", "unavailable": "allow-all"}.get(  # type: ignore[assignment]
            result.kind, "disallow-all"
        )
        entry = CacheEntry(
            robots_url=result.robots_url,
            outcome=outcome,
            status=result.status,
            final_url=result.final_url,
            fetched_at=now,
            expires_at=now + freshness_lifetime(result.headers, min_ttl=min_ttl),
            body=result.body if outcome == "rules" else b"",
            redirects=result.redirects,
            truncated=result.truncated,
            error=result.error,
            headers=dict(result.headers),
            copy_ok=True,
        )
        return replace(entry, summary=summarize(entry))

    failing_since = previous.failing_since if previous is not None else None
    failures = previous.failures if previous is not None and failing_since is not None else 0
    if failing_since is None:
        failing_since = now
    failures += 1
    expires_at = now + backoff_delay(failures, result.retry_after)
    error = _describe_failure(result)
    long = now - failing_since >= LONG_OUTAGE
    if not long and previous is not None and previous.copy_ok:
        entry = replace(
            previous,
            expires_at=expires_at,
            error=error,
            failing_since=failing_since,
            failures=failures,
        )
        return replace(entry, summary=summarize(entry))
    entry = CacheEntry(
        robots_url=result.robots_url,
        outcome="allow-all" if long and long_outage == "allow" else "disallow-all",
        status=result.status,
        final_url=result.final_url,
        fetched_at=now,
        expires_at=expires_at,
        redirects=result.redirects,
        error=result.error,
        headers=dict(result.headers),
        copy_ok=False,
        failing_since=failing_since,
        failures=failures,
    )
    return replace(entry, summary=summarize(entry, long_outage=long))


def store_ttl(entry: CacheEntry, now: float) -> float:
    """How long a store must keep ``entry``: past expiry, long enough for the 30-day rule."""
    return max(entry.expires_at - now, 0.0) + KEEP_AFTER_FAILURE


def check_number(
    name: str, value: float, *, minimum: float = 0.0, allow_zero: bool = True,
    integer: bool = False,
) -> None:
    """Reject a setting that is not a finite number ``>= minimum`` (``> 0`` without zero).

    Raises ValueError naming the parameter, so ``timeout=nan`` (which every comparison lets
    through) or ``timeout=inf`` never reaches a socket or a cached verdict. ``integer`` also
    requires an ``int`` (bool, a number only by accident, is refused everywhere).
    """
    kind = "an integer" if integer else "a finite number"
    ok = isinstance(value, int) if integer else isinstance(value, int | float)
    if not ok or isinstance(value, bool):
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    if value < minimum or (not allow_zero and value == 0):
        bound = f"> {minimum:g}" if not allow_zero and minimum <= 0 else f">= {minimum:g}"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
