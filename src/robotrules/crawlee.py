"""Crawlee for Python on robotrules: one line, and a crawler's robots.txt checks follow RFC 9309.

``use_robotrules(crawler)`` makes any Crawlee crawler (``HttpCrawler``, ``BeautifulSoupCrawler``,
``ParselCrawler``, ``PlaywrightCrawler`` ...) read robots.txt through
:class:`robotrules.fetch.AsyncRobotsClient`: the hooks every Crawlee crawler asks before a
request and when links are enqueued (``_get_robots_txt_file_for_url``, and
``_find_txt_file_for_url``, which the Playwright crawler overrides) are replaced on that crawler
object, so each answer follows the fetch policy: RFC 9309 2.3.1 statuses (5xx, 429, a timeout or
a network error: unreachable, disallow all, retried after a back-off; 4xx: allow all), the
500 KiB limit, redirects, caching for at most 24 hours and 30 days of outage (2.4), and the
address guard.

One agent. The product token robots.txt is checked for and the User-Agent the crawler sends are
one string: ``use_robotrules`` reads it from the robots client, from ``user_agent=`` or from the
``User-Agent`` header configured on the crawler's HTTP client (they must agree: a mismatch is a
``ValueError``), and then *sets* it on every request the crawler navigates to (a pre-navigation
hook: the request's header, and for Playwright the page's as well). A request that asks for
another User-Agent is sent with the checked one, and a warning says so.

Why a URL was skipped: each robots.txt skip is logged on the crawler's logger (DEBUG, with the
deciding line or the HTTP outcome), an unreachable file once per origin and outage (WARNING,
with the reason), and ``await client.explain(url)`` answers in an ``on_skipped_request`` hook.

:class:`RobotsTxtFile` answers Crawlee's ``RobotsTxtFile`` calls (``from_content``, ``load``,
``find``, ``is_allowed`` with one argument, as ``enqueue_links`` calls it, ``get_sitemaps``,
``get_crawl_delay``, ``parse_sitemaps``, ``parse_urls_from_sitemaps``) plus ``explain``.
Differences from Crawlee's own class, on purpose: the agent asked when none is given is the
client's product token, not ``*``; ``get_crawl_delay`` keeps fractions (``Crawl-delay: 0.5`` is
0.5 s, Crawlee's ``int()`` made it 0) and caps a delay at ``max_crawl_delay`` (30 s by default:
a hostile ``Crawl-delay: 99999999999999999`` overflowed Crawlee's ``timedelta``); a relative
``Sitemap:`` URL is resolved against the file's URL.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import robotrules
from robotrules._origin import origin_of
from robotrules._policy import check_number
from robotrules._token import product_token
from robotrules.fetch import AsyncRobotsClient, FetchedRobots
from robotrules.fetch._common import DEFAULT_USER_AGENT, MAX_CRAWL_DELAY, OutageLog

if TYPE_CHECKING:
    from robotrules import RobotsTxt, Verdict

__all__ = ["MAX_CRAWL_DELAY", "RobotsTxtFile", "use_robotrules"]

_log = logging.getLogger("robotrules.crawlee")


class RobotsTxtFile:
    """One origin's robots.txt, as Crawlee's ``RobotsTxtFile`` offers it, on robotrules.

    ``fetched`` is how the file was obtained (outcome, status, summary; ``None`` for
    :meth:`from_content`); ``rules`` the parsed file; ``token`` the agent asked when a call
    names none.
    """

    def __init__(self, url: str, fetched: FetchedRobots | RobotsTxt, *,
                 user_agent: str = DEFAULT_USER_AGENT, http_client: Any = None,
                 proxy_info: Any = None, max_crawl_delay: float = MAX_CRAWL_DELAY,
                 on_capped: Callable[[str, float, float], None] | None = None) -> None:

        self.origin = origin_of(url)
        self.fetched: FetchedRobots | None = fetched if isinstance(fetched, FetchedRobots) \
            else None
        self.rules: RobotsTxt = fetched.rules if isinstance(fetched, FetchedRobots) else fetched
        self.token = product_token(user_agent) or "*"
        self.max_crawl_delay = max_crawl_delay
        self._on_capped = on_capped
        self._http_client = http_client  # Crawlee's, for the sitemaps
        self._proxy_info = proxy_info

    # -- making one ----------------------------------------------------------------------------

    @classmethod
    async def from_content(cls, url: str, content: str | bytes, *,
                           user_agent: str = DEFAULT_USER_AGENT) -> RobotsTxtFile:
        """A file from its text (``url``: where it is, for its origin and its sitemaps)."""

        return cls(url, robotrules.parse(content, url=origin_of(url) + "/robots.txt"),
                   user_agent=user_agent)

    @classmethod
    async def load(cls, url: str, http_client: Any = None, proxy_info: Any = None, *,
                   client: AsyncRobotsClient | None = None) -> RobotsTxtFile:
        """The robots.txt of ``url``'s origin, through ``client`` (its cache first; a client
        of its own, closed after the fetch, when none is given). ``http_client`` and
        ``proxy_info`` are Crawlee's, kept for the sitemaps; robots.txt itself is fetched by
        the client (a proxy: give the client an httpx client that uses it)."""
        if client is not None:
            fetched = await client.rules_for(url)
            agent = client.user_agent
        else:
            async with AsyncRobotsClient() as own:
                fetched = await own.rules_for(url)
                agent = own.user_agent
        return cls(url, fetched, user_agent=agent, http_client=http_client,
                   proxy_info=proxy_info)

    @classmethod
    async def find(cls, url: str, http_client: Any = None, proxy_info: Any = None, *,
                   client: AsyncRobotsClient | None = None) -> RobotsTxtFile:
        """The robots.txt governing ``url`` (any URL of the origin: the same as :meth:`load`,
        which also looks at the origin's ``/robots.txt`` whatever path it is given)."""
        return await cls.load(url, http_client, proxy_info, client=client)

    # -- answers -----------------------------------------------------------------------------

    def _agent(self, user_agent: str | None) -> str:
        return self.token if user_agent is None else user_agent

    def is_allowed(self, url: str, user_agent: str | None = None) -> bool:
        """May ``user_agent`` fetch ``url``? A URL of another origin is not this file's
        business: ``True``, as Crawlee answers (RFC 9309 2.3: a file governs its origin)."""
        if origin_of(url) != self.origin:
            return True
        if self.fetched is not None:
            return self.fetched.is_allowed(url, user_agent=self._agent(user_agent))
        return self.rules.is_allowed(url, user_agent=self._agent(user_agent))

    def explain(self, url: str, user_agent: str | None = None) -> Verdict:
        """Why: the line that decided, or the HTTP outcome (``verdict.detail`` in words)."""
        if origin_of(url) != self.origin:
            raise ValueError(f"{url} is not on {self.origin}, whose robots.txt this is")
        if self.fetched is not None:
            return self.fetched.explain(url, user_agent=self._agent(user_agent))
        return self.rules.explain(url, user_agent=self._agent(user_agent))

    def get_crawl_delay(self, user_agent: str | None = None) -> float | None:
        """Seconds between requests the file asks of ``user_agent`` (fractions kept), at most
        ``max_crawl_delay``: what Crawlee's ``ThrottlingRequestManager.set_crawl_delay`` takes
        (a ``timedelta`` of it, which 1e17 s would overflow)."""
        delay = self.rules.crawl_delay(user_agent=self._agent(user_agent))
        if delay is None or delay <= self.max_crawl_delay:
            return delay
        if self._on_capped is not None:
            self._on_capped(self.origin, delay, self.max_crawl_delay)
        return self.max_crawl_delay

    def get_sitemaps(self, *, enqueue_strategy: str = "all") -> list[str]:
        """The file's ``Sitemap`` URLs (absolute, file order), filtered by Crawlee's
        ``enqueue_strategy`` (``"same-hostname"``, ``"all"`` ...; Crawlee's own filter)."""
        sitemaps = list(self.rules.sitemaps)
        if enqueue_strategy == "all":
            return [s for s in sitemaps if s.lower().startswith(("http://", "https://"))]
        from crawlee._utils.urls import filter_url
        from yarl import URL

        return [s for s in sitemaps
                if filter_url(target=s, strategy=enqueue_strategy,  # type: ignore[arg-type]
                              origin=URL(self.origin))[0]]

    async def parse_sitemaps(self, *, enqueue_strategy: str = "all") -> Any:
        """The sitemaps, loaded by Crawlee's ``Sitemap`` with the crawler's HTTP client."""
        if self._http_client is None:
            raise ValueError("an HTTP client (Crawlee's) is needed to load the sitemaps")
        from crawlee._utils.sitemap import Sitemap

        return await Sitemap.load(
            self.get_sitemaps(enqueue_strategy=enqueue_strategy), self._http_client,
            self._proxy_info,
            parse_sitemap_options={"enqueue_strategy": enqueue_strategy},  # type: ignore[arg-type]
        )

    async def parse_urls_from_sitemaps(self, *, enqueue_strategy: str = "all") -> list[str]:
        """The page URLs the sitemaps list."""
        sitemap = await self.parse_sitemaps(enqueue_strategy=enqueue_strategy)
        return list(sitemap.urls)


def configured_user_agent(crawler: Any) -> str | None:
    """The ``User-Agent`` header set on ``crawler``'s HTTP client (Crawlee's impit and httpx
    clients keep their client keyword arguments in ``_async_client_kwargs``), or None when the
    client sends its own (an impersonated browser's, a generated one)."""
    kwargs = getattr(getattr(crawler, "_http_client", None), "_async_client_kwargs", None)
    headers = kwargs.get("headers") if isinstance(kwargs, dict) else None
    if not headers:
        return None
    for name, value in dict(headers).items():
        if str(name).lower() == "user-agent" and value:
            return str(value)
    return None


class _Adapter:
    """What ``use_robotrules`` puts on one crawler: its hooks, and the logs said once."""

    def __init__(self, crawler: Any, robots: AsyncRobotsClient, max_crawl_delay: float) -> None:
        self.crawler = crawler
        self.robots = robots
        self.max_crawl_delay = max_crawl_delay
        self.log: logging.Logger = getattr(crawler, "log", None) or _log
        self._outages = OutageLog(self.log)
        self._capped: set[str] = set()
        self._other_agents: set[str] = set()

    async def file_for_url(self, url: str) -> RobotsTxtFile:
        fetched = await self.robots.rules_for(url)
        self._outages.note(fetched)
        return RobotsTxtFile(url, fetched, user_agent=self.robots.user_agent,
                             http_client=getattr(self.crawler, "_http_client", None),
                             max_crawl_delay=self.max_crawl_delay, on_capped=self._note_capped)

    async def file_or_none(self, url: str) -> RobotsTxtFile | None:
        if not getattr(self.crawler, "_respect_robots_txt_file", True):
            return None
        return await self.file_for_url(url)

    def _note_capped(self, origin: str, asked: float, applied: float) -> None:
        if origin in self._capped:
            return
        self._capped.add(origin)
        self.log.warning("robots.txt of %s asks for Crawl-delay %g s; %g s is handed to Crawlee's "
                         "throttling (max_crawl_delay)", origin, asked, applied)

    async def explain_skip(self, request: Any, reason: str) -> None:
        if reason != "robots_txt":
            return
        url = getattr(request, "url", request)
        try:
            verdict = await self.robots.explain(url)
        except Exception as exc:  # an explanation must never fail the crawl
            self.log.debug("robots.txt: skipped %s (%s)", url, exc)
            return
        self.log.info("robots.txt: skipped %s: %s", url, verdict.detail)

    async def send_as_checked(self, context: Any) -> None:
        """Pre-navigation: the request goes out with the User-Agent robots.txt was checked for."""
        agent = self.robots.user_agent
        request = context.request
        asked = request.headers.get("user-agent")
        page = getattr(context, "page", None)
        if asked is not None and asked != agent and asked not in self._other_agents:
            self._other_agents.add(asked)
            self.log.warning("request %s asks for User-Agent %r; it is sent as %r, the agent "
                             "robots.txt was checked for", request.url, asked, agent)
        if page is not None:
            # the page's header goes on every request it makes, the navigation included
            await page.set_extra_http_headers({"User-Agent": agent})
        if asked != agent:
            # the request's headers go over the client's (HTTP crawlers) and over the
            # browser's fingerprint on the navigation (Playwright routes it)
            request.headers = request.headers | {"User-Agent": agent}


def use_robotrules(crawler: Any, client: AsyncRobotsClient | None = None, *,
                   user_agent: str | None = None,
                   max_crawl_delay: float = MAX_CRAWL_DELAY) -> AsyncRobotsClient:
    """Make ``crawler`` (any Crawlee crawler) read robots.txt through robotrules.

    Turns the crawler's robots.txt checks on (as ``respect_robots_txt_file=True``) and has every
    check ask ``client`` (by default one made here), which caches each origin's answer as long as
    RFC 9309 2.4 allows. The agent is one string: ``client.user_agent``, ``user_agent`` or the
    ``User-Agent`` configured on the crawler's HTTP client, whichever are given (they must be
    equal: ``ValueError`` otherwise), else robotrules' own (``robotrules/<version> (+...)``);
    robots.txt is checked for its product token and every request the crawler navigates to is
    sent with it. ``max_crawl_delay``: the longest Crawl-delay handed to Crawlee's
    ``ThrottlingRequestManager``. Returns the client (close it with ``await client.aclose()``
    when the crawl is over; ``await client.explain(url)`` says why a URL was skipped).
    """
    check_number("max_crawl_delay", max_crawl_delay)
    given = {"client": client.user_agent if client is not None else None,
             "user_agent": user_agent,
             "the crawler's HTTP client": configured_user_agent(crawler)}
    agents = {where: agent for where, agent in given.items() if agent is not None}
    if len(set(agents.values())) > 1:
        said = "; ".join(f"{where}: {agent!r}" for where, agent in agents.items())
        raise ValueError("robots.txt must be checked for the User-Agent the crawler sends, and "
                         f"these differ ({said})")
    if client is not None:
        robots = client
    else:
        agent = next(iter(agents.values()), DEFAULT_USER_AGENT)
        robots = AsyncRobotsClient(user_agent=agent)
    adapter = _Adapter(crawler, robots, max_crawl_delay)

    crawler._respect_robots_txt_file = True
    crawler._get_robots_txt_file_for_url = adapter.file_or_none
    crawler._find_txt_file_for_url = adapter.file_for_url
    hook = getattr(crawler, "pre_navigation_hook", None)
    if hook is not None:
        hook(adapter.send_as_checked)
    else:
        adapter.log.warning("%s navigates through your own code: send User-Agent %r with its "
                            "requests, the agent robots.txt is checked for",
                            type(crawler).__name__, robots.user_agent)
    handle_skipped: Callable[..., Awaitable[None]] = crawler._handle_skipped_request

    async def handle_skipped_request(request: Any, reason: str, **kwargs: Any) -> None:
        await adapter.explain_skip(request, reason)
        await handle_skipped(request, reason, **kwargs)

    crawler._handle_skipped_request = handle_skipped_request
    return robots
