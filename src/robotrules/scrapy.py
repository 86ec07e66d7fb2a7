"""Scrapy on robotrules: a robots.txt middleware that never fails open, and its parser.

Turn both on in the project's ``settings.py``, with the settings Scrapy already has::

    ROBOTSTXT_OBEY = True
    ROBOTSTXT_PARSER = "robotrules.scrapy.RobotParser"
    DOWNLOADER_MIDDLEWARES = {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "robotrules.scrapy.RobotsTxtMiddleware": 100,
    }

:class:`RobotsTxtMiddleware` replaces Scrapy's (same place, same stats, the same
``robots_parsed`` signal) and fetches each origin's robots.txt through
:class:`robotrules.fetch.AsyncRobotsClient`, which sees what a parser never does, the HTTP
outcome: RFC 9309 2.3.1 (4xx: allow all; 5xx, 429, a timeout or a network error: unreachable,
disallow all, retried after a back-off, a last good copy kept for up to 30 days), the 500 KiB
limit (2.5), redirects, and lifetimes (2.4: ``Cache-Control``, at most 24 hours; Scrapy kept
each file for the whole run). A refused request's ``IgnoreRequest`` and its DEBUG log line say
why (the deciding line, or the HTTP outcome); an unreachable file is logged once per origin and
outage as a WARNING. It needs Scrapy's asyncio reactor (the default ``TWISTED_REACTOR``).

The agent: robots.txt is fetched with ``USER_AGENT`` (the header Scrapy sends) and checked for
``ROBOTSTXT_USER_AGENT`` when set, else the request's ``User-Agent`` header, as Scrapy's
middleware does; a ``ROBOTSTXT_USER_AGENT`` whose product token is not ``USER_AGENT``'s is
warned about at start. ``ROBOTRULES_DIALECT`` (``"rfc9309"`` default, ``"google"``, ``"1994"``)
picks the matching, ``ROBOTRULES_MIN_TTL`` the shortest lifetime of an answer (60 s; see
docs/fetching.md), and a ``DOWNLOAD_TIMEOUT`` under 30 s shortens robots.txt's total timeout.
A ``Crawl-delay`` (which Scrapy applies nowhere) becomes the least delay of the request's
download slot, at most 30 s.

:class:`RobotParser` alone (``ROBOTSTXT_PARSER`` with Scrapy's middleware) implements Scrapy's
parser interface (``from_crawler(crawler, robotstxt_body)``, ``allowed(url, user_agent)``,
``crawl_delay(user_agent)``) with RFC 9309 matching, but a parser is handed the body only:
Scrapy's middleware parses a 5xx error page as the file and allows everything after a download
error. Scrapy is imported by this module only, and ``import robotrules`` never imports it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Self, cast, get_args

from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.robotstxt import RobotParser as _ScrapyRobotParser
from scrapy.utils.reactor import is_asyncio_reactor_installed

from robotrules import Dialect, RobotsTxt, parse
from robotrules._policy import DEFAULT_TIMEOUT as _TIMEOUT
from robotrules._policy import MIN_TTL
from robotrules._token import product_token
from robotrules.errors import InvalidURL
from scrapy import signals

if TYPE_CHECKING:
    from robotrules import Verdict
    from robotrules.fetch import FetchedRobots

__all__ = ["RobotParser", "RobotsTxtMiddleware"]

_DIALECTS: tuple[str, ...] = get_args(Dialect)

logger = logging.getLogger(__name__)


def _dialect(settings: Any) -> Dialect:
    wanted = (settings.get("ROBOTRULES_DIALECT") if settings is not None else None) or "rfc9309"
    if wanted not in _DIALECTS:
        raise ValueError(f"ROBOTRULES_DIALECT must be one of {_DIALECTS}, not {wanted!r}")
    return cast(Dialect, wanted)


class RobotParser(_ScrapyRobotParser):
    """``ROBOTSTXT_PARSER = "robotrules.scrapy.RobotParser"``.

    ``rules`` is the compiled :class:`~robotrules.RobotsTxt`, for spiders that want
    ``explain`` or the sitemaps (e.g. from the ``robots_parsed`` signal); ``fetched`` is the
    :class:`~robotrules.fetch.FetchedRobots` (outcome, status, summary) when
    :class:`RobotsTxtMiddleware` made the parser, else None.
    """

    def __init__(
        self, robotstxt_body: bytes, spider: Any = None, *, dialect: Dialect = "rfc9309",
        fetched: FetchedRobots | None = None,
    ) -> None:
        self.spider = spider
        self.fetched = fetched
        # parse() takes bytes and never raises: no decoding step that could drop the file.
        self.rules: RobotsTxt = fetched.rules if fetched is not None \
            else parse(robotstxt_body, dialect)

    @classmethod
    def from_crawler(cls, crawler: Any, robotstxt_body: bytes) -> Self:
        spider = getattr(crawler, "spider", None) if crawler else None
        settings = getattr(crawler, "settings", None) if crawler else None
        return cls(robotstxt_body, spider, dialect=_dialect(settings))

    def explain(self, url: str | bytes, user_agent: str | bytes) -> Verdict:
        """Why ``url`` is allowed or not: the deciding line, or the HTTP outcome."""
        if self.fetched is not None:
            return self.fetched.explain(_text(url), user_agent=_text(user_agent))
        return self.rules.explain(_text(url), user_agent=_text(user_agent))

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        if self.fetched is not None:
            return self.fetched.is_allowed(_text(url), user_agent=_text(user_agent))
        return self.rules.is_allowed(_text(url), user_agent=_text(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        return self.rules.crawl_delay(user_agent=_text(user_agent))


class RobotsTxtMiddleware:
    """A drop-in for ``scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware`` on
    robotrules' fetch policy (see the module's docstring for the settings)."""

    def __init__(self, crawler: Any) -> None:
        settings = crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured

        from robotrules.fetch import AsyncRobotsClient  # httpx: the scrapy extra has it
        from robotrules.fetch._common import MAX_CRAWL_DELAY, OutageLog

        if not is_asyncio_reactor_installed():
            # never NotConfigured: that would crawl without robots.txt, silently
            raise RuntimeError("robotrules.scrapy.RobotsTxtMiddleware needs the asyncio reactor "
                               "(TWISTED_REACTOR = 'twisted.internet.asyncioreactor."
                               "AsyncioSelectorReactor', Scrapy's default)")
        self.crawler = crawler
        self._stats = crawler.stats
        self._user_agent: str = settings.get("USER_AGENT") or ""
        self._robots_agent: str | None = settings.get("ROBOTSTXT_USER_AGENT") or None
        if self._robots_agent and product_token(self._robots_agent) != product_token(
                self._user_agent):
            logger.warning(
                "ROBOTSTXT_USER_AGENT %r is not the product token of USER_AGENT %r: robots.txt "
                "is checked for %r while the requests say they are %r",
                self._robots_agent, self._user_agent, product_token(self._robots_agent),
                product_token(self._user_agent))
        parser = settings.get("ROBOTSTXT_PARSER")
        if parser not in (None, "scrapy.robotstxt.ProtegoRobotParser", RobotParser,
                          f"{__name__}.RobotParser"):
            logger.warning("ROBOTSTXT_PARSER %r is not used: robotrules.scrapy.RobotsTxtMiddleware"
                           " matches with robotrules.scrapy.RobotParser", parser)
        self._dialect = _dialect(settings)
        self.client = AsyncRobotsClient(
            user_agent=self._user_agent or product_token(self._robots_agent or "") or "robotrules",
            dialect=self._dialect,
            timeout=min(settings.getfloat("DOWNLOAD_TIMEOUT", _TIMEOUT), _TIMEOUT),
            min_ttl=settings.getfloat("ROBOTRULES_MIN_TTL", MIN_TTL))
        self._outages = OutageLog(logger)
        self._max_delay = MAX_CRAWL_DELAY
        self._capped: set[str] = set()
        crawler.signals.connect(self._close, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Any) -> Self:
        return cls(crawler)

    async def process_request(self, request: Any, spider: Any = None) -> None:
        if request.meta.get("dont_obey_robotstxt"):
            return
        try:
            fetched = await self.client.rules_for(request.url)
        except InvalidURL:  # data:, file:, s3:// ...: no robots.txt governs them
            return
        if not fetched.from_cache:
            await self._fetched(fetched, request)
        agent = _text(self._robots_agent or request.headers.get(b"User-Agent") or self._user_agent)
        verdict = fetched.explain(request.url, user_agent=agent)
        if verdict.allowed:
            self._pace(request, fetched, agent)
            return
        logger.debug("Forbidden by robots.txt: %(request)s: %(why)s",
                     {"request": request, "why": verdict.detail},
                     extra={"spider": self.crawler.spider})
        self._stats.inc_value("robotstxt/forbidden")
        raise IgnoreRequest(f"Forbidden by robots.txt: {verdict.detail}")

    def _pace(self, request: Any, fetched: FetchedRobots, agent: str) -> None:
        """Crawl-delay, which Scrapy does not apply: the request's download slot waits at least
        that long between its requests (at most MAX_CRAWL_DELAY, 30 s; without the jitter of
        RANDOMIZE_DOWNLOAD_DELAY, which would halve it). Asked before every request: Scrapy
        drops idle slots and AutoThrottle lowers their delays."""
        delay = fetched.rules.crawl_delay(user_agent=agent)
        get_slot = getattr(getattr(self.crawler.engine, "downloader", None), "_get_slot", None)
        if delay is None or get_slot is None:
            return
        if delay > self._max_delay:
            if fetched.origin not in self._capped:
                self._capped.add(fetched.origin)
                logger.warning("robots.txt of %s asks for Crawl-delay %g s; %g s is applied",
                               fetched.origin, delay, self._max_delay)
            delay = self._max_delay
        key, slot = get_slot(request)
        if slot.delay < delay:
            logger.debug("Crawl-delay %g s of robots.txt applied to download slot %s", delay,
                         key)
            slot.delay = delay
            if hasattr(slot, "jitter"):
                slot.jitter = 0.0
            else:  # Scrapy before 2.19
                slot.randomize_delay = False

    async def _fetched(self, fetched: FetchedRobots, request: Any) -> None:
        """A file fetched now (not from the cache): stats, the outage log, the signal."""
        self._stats.inc_value("robotstxt/request_count")
        if fetched.status is not None:
            self._stats.inc_value("robotstxt/response_count")
            self._stats.inc_value(f"robotstxt/response_status_count/{fetched.status}")
        else:
            self._stats.inc_value(f"robotstxt/exception_count/{fetched.error}")
        self._outages.note(fetched)
        parser = RobotParser(b"", self.crawler.spider, fetched=fetched)
        await self.crawler.signals.send_catch_log_async(
            signal=signals.robots_parsed, robotparser=parser, request=request)

    async def _close(self) -> None:
        await self.client.aclose()


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
