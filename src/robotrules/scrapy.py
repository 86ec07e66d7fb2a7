"""A Scrapy robots.txt parser backend with RFC 9309 semantics.

Switch with one line in the project's ``settings.py``::

    ROBOTSTXT_PARSER = "robotrules.scrapy.RobotParser"

It implements Scrapy's documented parser interface (:class:`scrapy.robotstxt.RobotParser`):
``from_crawler(crawler, robotstxt_body)``, ``allowed(url, user_agent)`` and
``crawl_delay(user_agent)``. Scrapy's ``RobotsTxtMiddleware`` passes ``ROBOTSTXT_USER_AGENT``
when it is set and the request's ``User-Agent`` header otherwise; both work here, because the
product token is taken from a full UA string (``examplebot/1.0 (+https://...)`` ->
``examplebot``) as RFC 9309 2.2.1 describes.

One optional setting: ``ROBOTRULES_DIALECT`` (``"rfc9309"`` default, ``"google"``, ``"1994"``).

Scrapy is an optional extra (``pip install robotrules[scrapy]``): this module is the only one
that imports it, and ``import robotrules`` never imports this module.

Limit: Scrapy hands a parser the response body only, never the HTTP status, so the status
rules of RFC 9309 2.3.1 (5xx means disallow all) cannot be applied here; Scrapy parses whatever
body came back, and a download error means allow all. See ``docs/compat.md``.
"""

from __future__ import annotations

from typing import Any, Self, cast, get_args

from scrapy.robotstxt import RobotParser as _ScrapyRobotParser

from robotrules import Dialect, RobotsTxt, parse

__all__ = ["RobotParser"]

_DIALECTS: tuple[str, ...] = get_args(Dialect)


class RobotParser(_ScrapyRobotParser):
    """``ROBOTSTXT_PARSER = "robotrules.scrapy.RobotParser"``.

    ``rules`` is the compiled :class:`~robotrules.RobotsTxt`, for spiders that want
    ``explain`` or the sitemaps (e.g. from the ``robots_parsed`` signal).
    """

    def __init__(
        self, robotstxt_body: bytes, spider: Any = None, *, dialect: Dialect = "rfc9309"
    ) -> None:
        self.spider = spider
        # parse() takes bytes and never raises: no decoding step that could drop the file.
        self.rules: RobotsTxt = parse(robotstxt_body, dialect)

    @classmethod
    def from_crawler(cls, crawler: Any, robotstxt_body: bytes) -> Self:
        spider = getattr(crawler, "spider", None) if crawler else None
        dialect: Dialect = "rfc9309"
        settings = getattr(crawler, "settings", None) if crawler else None
        if settings is not None:
            wanted = settings.get("ROBOTRULES_DIALECT") or "rfc9309"
            if wanted not in _DIALECTS:
                raise ValueError(f"ROBOTRULES_DIALECT must be one of {_DIALECTS}, not {wanted!r}")
            dialect = cast(Dialect, wanted)
        return cls(robotstxt_body, spider, dialect=dialect)

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        return self.rules.is_allowed(_text(url), user_agent=_text(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        return self.rules.crawl_delay(user_agent=_text(user_agent))


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
