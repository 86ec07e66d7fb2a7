"""A drop-in for :class:`urllib.robotparser.RobotFileParser` with RFC 9309 semantics.

Switch with one line::

    from robotrules.compat import RobotFileParser   # was: from urllib.robotparser import ...

The class keeps the standard library's names, argument order and return types: ``set_url``,
``read``, ``parse(lines)``, ``can_fetch(useragent, url)``, ``crawl_delay``, ``request_rate``
(returning the stdlib's own ``RequestRate`` named tuple), ``site_maps``, ``mtime``,
``modified`` and the ``allow_all`` / ``disallow_all`` / ``last_checked`` attributes. What the
stdlib documents still holds: before ``read()`` or ``parse()`` every URL is disallowed.

Underneath, the file is compiled once by :func:`robotrules.parse`, so groups for one agent are
merged, the longest rule wins, product tokens match exactly and percent-encoding is normalised
as RFC 9309 section 2.2 says. Where this differs from the stdlib is listed in ``docs/compat.md``.

``read()`` maps the HTTP outcome like RFC 9309 section 2.3.1, with one switch:

=====================  ==============================  ======================================
outcome                stdlib                          here
=====================  ==============================  ======================================
2xx                    parse                           parse (first 512000 bytes, never
                                                       raises on bad UTF-8)
401, 403               disallow all                    ``auth_failure="disallow"`` (default,
                                                       as the stdlib documents);
                                                       ``"allow"`` follows RFC 9309 2.3.1.3
other 4xx              allow all                       allow all (2.3.1.3)
429, 5xx               nothing read: disallow all      disallow all (2.3.1.4)
network error          raises ``URLError``             disallow all (2.3.1.4); the exception
                                                       is kept in ``error``
too many redirects     nothing read: disallow all      allow all (2.3.1.2 MAY; as Google)
=====================  ==============================  ======================================

``read()`` uses only :mod:`urllib.request`, so the drop-in needs no dependency beyond the core,
like the module it replaces.
"""

from __future__ import annotations

import http.client
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from typing import Literal, TypeVar
from urllib.robotparser import RequestRate

from robotrules import Dialect, RobotsTxt, Verdict, _policy, parse
from robotrules._policy import DEFAULT_MAX_BYTES, classify_status

__all__ = ["RequestRate", "RobotFileParser"]

AuthFailure = Literal["allow", "disallow"]

_MAX_BYTES = DEFAULT_MAX_BYTES  # RFC 9309 2.5: a parsing limit of at least 500 KiB


_T = TypeVar("_T")


def _bounded(work: Callable[[], _T], timeout: float | None) -> _T:
    """Run ``work`` and wait for it at most ``timeout`` seconds in all.

    urllib's timeout applies to each socket operation, so a server that trickles its headers
    or body a byte at a time could hold ``read()`` for ever. The download runs in a daemon
    thread; past the total it is abandoned and ``TimeoutError`` raised here.
    """
    if timeout is None:
        return work()
    box: list[_T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            box.append(work())
        except BaseException as exc:  # handed to the caller below
            failure.append(exc)

    thread = threading.Thread(target=run, daemon=True, name="robotrules-compat-read")
    thread.start()
    thread.join(timeout)
    if failure:
        raise failure[0]
    if not box:
        raise TimeoutError(f"no complete answer within {timeout:g} s")
    return box[0]


class RobotFileParser:
    """Read, parse and answer questions about one robots.txt, like the stdlib class.

    Extra keyword-only arguments (all optional, so existing calls keep working):

    ``dialect``
        ``"rfc9309"`` (default), ``"google"`` or ``"1994"`` (first match, substring agents).
    ``auth_failure``
        What a 401 or 403 on ``read()`` means. ``"disallow"`` (default) is what the stdlib
        documents and does; ``"allow"`` is RFC 9309 section 2.3.1.3 (4xx: unavailable).
    ``user_agent``
        The ``User-Agent`` header ``read()`` sends (default: urllib's ``Python-urllib/3.x``).
    ``timeout``
        Seconds ``read()`` waits for the server (the stdlib waits forever by default).
    ``max_bytes``
        How much of the body ``read()`` parses (RFC 9309 2.5 says at least 500 KiB).
    """

    def __init__(
        self,
        url: str = "",
        *,
        dialect: Dialect = "rfc9309",
        auth_failure: AuthFailure = "disallow",
        user_agent: str | None = None,
        timeout: float | None = 30.0,
        max_bytes: int = _MAX_BYTES,
    ) -> None:
        if auth_failure not in ("allow", "disallow"):
            raise ValueError(f"auth_failure must be 'allow' or 'disallow', not {auth_failure!r}")
        self.dialect: Dialect = dialect
        self.auth_failure: AuthFailure = auth_failure
        self.user_agent = user_agent
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.rules: RobotsTxt | None = None
        self.sitemaps: list[str] = []
        self.disallow_all = False
        self.allow_all = False
        self.last_checked: float = 0
        #: HTTP status of the last ``read()`` (``None``: not read, or no response at all).
        self.status: int | None = None
        #: The transport failure of the last ``read()``, if any (the stdlib would raise it).
        self.error: Exception | None = None
        #: The outcome of the last ``read()`` in words, as the fetch clients say it.
        self.summary = ""
        self.url = ""
        self.host = ""
        self.path = ""
        self.set_url(url)

    # -- the stdlib API ---------------------------------------------------------------------

    def mtime(self) -> float:
        """The time the robots.txt was last fetched (``0`` if never), as in the stdlib."""
        return self.last_checked

    def modified(self) -> None:
        """Set the last-fetched time to now, as in the stdlib."""
        self.last_checked = time.time()

    def set_url(self, url: str) -> None:
        """Set the URL of the robots.txt file (it is fetched as given, like the stdlib)."""
        self.url = url
        parts = urllib.parse.urlparse(url)
        self.host, self.path = parts.netloc, parts.path

    def read(self) -> None:
        """Fetch the robots.txt URL and feed it to the parser; see the module's table.

        Never raises for HTTP or network outcomes: they become allow-all or disallow-all. A
        URL urllib cannot use at all (e.g. none set) raises ``ValueError``, as in the stdlib.
        """
        self.allow_all = self.disallow_all = False
        self.status = None
        self.error = None
        self.summary = ""
        # Rules of an earlier read() must not outlive a failed one (crawl_delay would show them).
        self.rules = None
        self.sitemaps = []
        headers = {"User-Agent": self.user_agent} if self.user_agent else {}
        request = urllib.request.Request(self.url, headers=headers)
        try:
            self.status, body = _bounded(lambda: self._download(request), self.timeout)
        except urllib.error.HTTPError as err:
            self.status = err.code
            err.close()
            self._apply_status(err.code)
            return
        except (OSError, http.client.HTTPException) as err:  # URLError, timeouts, resets
            # RFC 9309 2.3.1.4: unreachable means complete disallow.
            self.error = err
            self.disallow_all = True
            self._settle("unreachable", None, f"{type(err).__name__}: {err}")
            return
        self._load(body, url=self.url or None)

    def _download(self, request: urllib.request.Request) -> tuple[int, bytes]:
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return response.status, response.read(self.max_bytes)

    def parse(self, lines: Iterable[str] | Iterable[bytes] | str | bytes) -> None:
        """Parse the lines of a robots.txt (a list of lines, as the stdlib takes).

        Line terminators on the items are tolerated (``readlines()`` output works). A whole
        ``str`` or ``bytes`` body is accepted too. Unlike the stdlib, a second call replaces
        the rules instead of adding to them: one object is one file.
        """
        self._load(_join(lines))

    def can_fetch(self, useragent: str, url: str) -> bool:
        """Whether ``useragent`` may fetch ``url``; stdlib argument order."""
        return self.explain(useragent, url).allowed

    def crawl_delay(self, useragent: str) -> float | None:
        """The ``Crawl-delay`` for ``useragent`` in seconds, or ``None``.

        Whole numbers come back as ``int`` like the stdlib; fractions are kept.
        """
        if not self.mtime() or self.rules is None:
            return None
        return _intlike(self.rules.crawl_delay(user_agent=useragent))

    def request_rate(self, useragent: str) -> RequestRate | None:
        """The ``Request-rate`` for ``useragent`` as the stdlib's ``RequestRate``, or ``None``."""
        if not self.mtime() or self.rules is None:
            return None
        rate = self.rules.request_rate(user_agent=useragent)
        if rate is None:
            return None
        # _make: typeshed types the stdlib tuple's seconds as int; fractions are kept here.
        return RequestRate._make((rate.requests, _number(rate.seconds)))

    def site_maps(self) -> list[str] | None:
        """The ``Sitemap`` URLs in file order, or ``None`` when there are none (stdlib)."""
        return list(self.sitemaps) or None

    def __str__(self) -> str:
        # The stdlib's layout: specific groups in file order, then the default group.
        if self.rules is None:
            return ""
        groups = [g for g in self.rules.groups if not g.is_global]
        groups += [g for g in self.rules.groups if g.is_global]
        blocks = []
        for group in groups:
            lines = [f"User-agent: {agent}" for agent in group.agents]
            if group.crawl_delay is not None:
                lines.append(f"Crawl-delay: {_intlike(group.crawl_delay)}")
            if group.request_rate is not None:
                rate = group.request_rate
                lines.append(f"Request-rate: {rate.requests}/{_intlike(rate.seconds)}")
            lines.extend(str(rule) for rule in group.rules)
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    # -- beyond the stdlib ------------------------------------------------------------------

    def explain(self, useragent: str, url: str) -> Verdict:
        """Like :meth:`can_fetch`, but returns the :class:`~robotrules.Verdict` saying why."""
        if self.disallow_all:
            return self._outcome(useragent, url, allowed=False)
        if self.allow_all:
            return self._outcome(useragent, url, allowed=True)
        if not self.last_checked or self.rules is None:
            # The stdlib's promise: until the file is read, nothing is allowed.
            return _policy.outcome_verdict(
                url, allowed=False, status=None, failing=False, user_agent=useragent,
                dialect=self.dialect, not_fetched=True,
                detail="robots.txt not read yet (read() or parse() first): nothing is allowed")
        return self.rules.explain(url, user_agent=useragent)

    # -- internals --------------------------------------------------------------------------

    def _load(self, body: str | bytes, *, url: str | None = None) -> None:
        self.rules = parse(body, self.dialect, url=url)
        self.sitemaps = list(self.rules.sitemaps)
        self.modified()

    def _apply_status(self, status: int) -> None:
        what = classify_status(status, auth_failure=self.auth_failure)
        if what in ("auth-disallow", "unreachable", "invalid"):
            self.disallow_all = True  # RFC 9309 2.3.1.4 (429 as Google: overloaded)
            kind: _policy.Kind = "unreachable" if what == "invalid" else what
            self._settle(kind, status, None)
        else:
            # 4xx: unavailable (2.3.1.3). 3xx here means urllib gave up on a redirect chain:
            # 2.3.1.2 MAY treat that as unavailable, as Google does.
            self.allow_all = True
            self._settle("unavailable", status, "redirect limit" if what == "redirect" else None)

    def _settle(self, kind: _policy.Kind, status: int | None, error: str | None) -> None:
        """Word the outcome as the fetch clients do (``_policy.settle`` and ``summarize``)."""
        result = _policy.AttemptResult(kind=kind, robots_url=self.url, final_url=self.url,
                                       status=status, error=error)
        self.summary = _policy.settle(None, result, time.time()).summary

    def _outcome(self, useragent: str, url: str, *, allowed: bool) -> Verdict:
        return _policy.outcome_verdict(url, allowed=allowed, status=self.status, failing=False,
                                       user_agent=useragent, dialect=self.dialect,
                                       detail=self.summary)


def _join(lines: Iterable[str] | Iterable[bytes] | str | bytes) -> str | bytes:
    if isinstance(lines, str | bytes):
        return lines
    # readlines() keeps "\n"; joining as-is would double every line break, which matters in
    # the 1994 dialect, where a blank line ends a record.
    text: list[str] = []
    raw: list[bytes] = []
    for item in lines:
        if isinstance(item, bytes):
            raw.append(item.rstrip(b"\r\n"))
            text.append(item.decode("utf-8", "replace").rstrip("\r\n"))
        else:
            text.append(item.rstrip("\r\n"))
    if raw and len(raw) == len(text):
        return b"\n".join(raw)  # all bytes: let the parser decode (and report) them
    return "\n".join(text)


def _intlike(value: float | None) -> float | None:
    """``3.0`` -> ``3`` (the stdlib returns ints); fractions and ``None`` unchanged."""
    return None if value is None else _number(value)


def _number(value: float) -> float:
    return int(value) if float(value).is_integer() else value
