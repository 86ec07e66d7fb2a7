"""Crawlee for Python on robotrules: its ``RobotsTxtFile`` API, fetched and cached by RFC 9309.

Crawlee (``crawlee.crawlers.*Crawler(respect_robots_txt_file=True)``) reads robots.txt through
its own ``RobotsTxtFile`` (protego inside) and keeps each origin's file for the whole run.
:class:`RobotsTxtFile` here answers the same calls (``from_content``, ``load``, ``find``,
``is_allowed``, ``get_sitemaps``, ``get_crawl_delay``, ``parse_sitemaps``,
``parse_urls_from_sitemaps``) from :class:`robotrules.fetch.AsyncRobotsClient`, so the answers
follow the fetch policy: RFC 9309 2.3.1 statuses (a 5xx, a timeout or a refused address is
"unreachable": disallow all; a 4xx is "unavailable": allow all), redirects, the 500 KiB limit,
caching for at most 24 hours (2.4) and the address guard; and each answer can be explained
(:meth:`RobotsTxtFile.explain`: the deciding line, or the HTTP outcome).

:func:`use_robotrules` plugs it into a crawler: the crawler then asks the client for every
URL, so a file is fetched again when its cache entry expires instead of being kept for the
run. It sets Crawlee's ``_get_robots_txt_file_for_url`` on that crawler object (the one hook
every Crawlee crawler asks; tested with crawlee 1.11).

Differences from Crawlee's own class, on purpose: ``user_agent`` defaults to the client's
product token rather than ``*`` (a crawler's own group applies; give ``"*"`` for Crawlee's
answer); ``get_crawl_delay`` rounds a fractional delay up, not down (``Crawl-delay: 0.5``
asks for a pause, Crawlee's ``int()`` made it none); a relative ``Sitemap:`` URL is resolved
against the file's URL (Crawlee drops it as having no http(s) scheme).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from robotrules._origin import origin_of
from robotrules.fetch import AsyncRobotsClient, FetchedRobots
from robotrules.fetch._common import DEFAULT_USER_AGENT

if TYPE_CHECKING:
    from robotrules import RobotsTxt, Verdict

__all__ = ["RobotsTxtFile", "use_robotrules"]


class RobotsTxtFile:
    """One origin's robots.txt, as Crawlee's ``RobotsTxtFile`` offers it, on robotrules.

    ``fetched`` is how the file was obtained (outcome, status, summary; ``None`` for
    :meth:`from_content`); ``rules`` the parsed file.
    """

    def __init__(self, url: str, fetched: FetchedRobots | RobotsTxt, *,
                 user_agent: str = DEFAULT_USER_AGENT, http_client: Any = None,
                 proxy_info: Any = None) -> None:
        from robotrules._token import product_token

        self.origin = origin_of(url)
        self.fetched: FetchedRobots | None = fetched if isinstance(fetched, FetchedRobots) \
            else None
        self.rules: RobotsTxt = fetched.rules if isinstance(fetched, FetchedRobots) else fetched
        self.token = product_token(user_agent) or "*"
        self._http_client = http_client  # Crawlee's, for the sitemaps
        self._proxy_info = proxy_info

    # -- making one ----------------------------------------------------------------------------

    @classmethod
    async def from_content(cls, url: str, content: str | bytes, *,
                           user_agent: str = DEFAULT_USER_AGENT) -> RobotsTxtFile:
        """A file from its text (``url``: where it is, for its origin and its sitemaps)."""
        import robotrules

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

    def get_crawl_delay(self, user_agent: str | None = None) -> int | None:
        """Whole seconds between requests the file asks of ``user_agent`` (rounded up)."""
        delay = self.rules.crawl_delay(user_agent=self._agent(user_agent))
        return None if delay is None else math.ceil(delay)

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


def use_robotrules(crawler: Any, client: AsyncRobotsClient | None = None) -> AsyncRobotsClient:
    """Make ``crawler`` (any Crawlee crawler) read robots.txt through robotrules.

    Turns the crawler's robots.txt checks on (as ``respect_robots_txt_file=True``) and has
    every check ask ``client`` (by default a client sending the User-Agent
    ``robotrules/<version>``; give one with your crawler's User-Agent, store or dialect),
    which caches each origin's answer as long as RFC 9309 2.4 allows. Returns the client
    (close it with ``await client.aclose()`` when the crawl is over).
    """
    robots = client if client is not None else AsyncRobotsClient()

    async def robots_txt_file_for_url(url: str) -> RobotsTxtFile:
        fetched = await robots.rules_for(url)
        return RobotsTxtFile(url, fetched, user_agent=robots.user_agent,
                             http_client=getattr(crawler, "_http_client", None))

    crawler._respect_robots_txt_file = True
    crawler._get_robots_txt_file_for_url = robots_txt_file_for_url
    return robots
