"""What the sub-commands share: errors, colour, JSON Lines, agents, reading FILE_OR_URL."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from robotrules import Dialect, RobotsTxt, parse
from robotrules._token import product_token

if TYPE_CHECKING:
    from robotrules.fetch import FetchedRobots, RobotsClient

__all__ = [
    "CliError",
    "Source",
    "Style",
    "agent_token",
    "emit_json",
    "is_url",
    "load_source",
    "make_client",
    "need_fetch",
]

DIALECTS: tuple[Dialect, ...] = ("rfc9309", "google", "1994")


class CliError(Exception):
    """A usage or input error: one line on stderr, exit status 2."""


class Style:
    """ANSI colour, only on a terminal and never when NO_COLOR is set (no-color.org)."""

    def __init__(self, stream: IO[str], mode: str = "auto") -> None:
        if mode == "always":
            on = True
        elif mode == "never":
            on = False
        else:
            on = (stream.isatty() and not os.environ.get("NO_COLOR")
                  and os.environ.get("TERM") != "dumb")
        self.on = on

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def blue(self, text: str) -> str:
        return self._wrap("36", text)

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def severity(self, sev: str) -> str:
        return {"error": self.red, "warning": self.yellow}.get(sev, self.blue)(sev)


def emit_json(obj: Any, stream: IO[str] | None = None) -> None:
    """One JSON object on one line (JSON Lines)."""
    (stream or sys.stdout).write(json.dumps(obj, ensure_ascii=False, sort_keys=False) + "\n")


def agent_token(agent: str) -> str:
    """The product token ``--agent`` is matched by, as the library reads it
    (:func:`robotrules._token.product_token`: a token as given, or the crawler's token of a
    full User-Agent header), so that the CLI and the library always answer alike."""
    return product_token(agent)


def is_url(text: str) -> bool:
    return re.match(r"(?i)https?://", text) is not None


def need_fetch() -> None:
    """Fail with the extra to install when the fetch dependencies are missing."""
    try:
        import httpx  # noqa: F401

        import robotrules.fetch  # noqa: F401
    except ImportError as exc:
        raise CliError(
            f"fetching URLs needs the 'cli' extra ({exc.name or exc} is missing): "
            "pip install 'robotrules[cli]'"
        ) from None


def make_client(*, user_agent: str | None, dialect: Dialect, timeout: float | None,
                cache: bool, max_bytes: int | None = None) -> RobotsClient:
    need_fetch()
    from robotrules.fetch import DEFAULT_USER_AGENT, RobotsClient
    from robotrules.stores import MemoryStore, SQLiteStore

    kwargs: dict[str, Any] = {}
    if timeout is not None:
        kwargs["timeout"] = timeout
        kwargs["connect_timeout"] = timeout
    if max_bytes is not None:
        kwargs["max_bytes"] = max_bytes
    store = SQLiteStore() if cache else MemoryStore()
    return RobotsClient(user_agent=user_agent or DEFAULT_USER_AGENT, store=store,
                        dialect=dialect, **kwargs)


def header_for(agent: str) -> str | None:
    """The User-Agent header to send: ``--agent`` when it is a full UA string."""
    return agent if "/" in agent else None


@dataclass(frozen=True, slots=True)
class Source:
    """A robots.txt read from a file, stdin or a URL."""

    name: str
    body: bytes
    status: int | None = None
    content_type: str | None = None
    url: str | None = None
    fetched: FetchedRobots | None = None

    def rules(self, dialect: Dialect) -> RobotsTxt:
        if self.fetched is not None and self.fetched.rules.dialect == dialect:
            return self.fetched.rules
        return parse(self.body, dialect)


def read_file(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None


def robots_url_of(url: str) -> str:
    need_fetch()
    from robotrules.fetch import robots_url

    return robots_url(url)


def load_source(arg: str, *, dialect: Dialect, timeout: float | None = None,
                agent: str | None = None, max_bytes: int | None = None) -> Source:
    """A FILE (or ``-``) as bytes, or a URL's robots.txt fetched now (no cache)."""
    if not is_url(arg):
        return Source(arg, read_file(arg))
    client = make_client(user_agent=agent, dialect=dialect, timeout=timeout, cache=False,
                         max_bytes=max_bytes)
    try:
        fetched = client.rules_for(arg)
    finally:
        client.close()
    body = fetched_body(client, fetched)
    return Source(fetched.robots_url, body, fetched.status,
                  fetched.headers.get("content-type"), arg, fetched)


def fetched_body(client: RobotsClient, fetched: FetchedRobots) -> bytes:
    """The raw bytes behind a fetched robots.txt (the store keeps them)."""
    entry = client.memo_entry(fetched.origin) if fetched.origin else None
    body = getattr(entry, "body", None)
    return body if isinstance(body, bytes) else b""


def iter_lines(stream: IO[str]) -> Iterator[str]:
    for line in stream:
        line = line.strip()
        if line and not line.startswith("#"):
            yield line


def color_option(p: Any) -> None:
    """``--color`` after the sub-command too (the top-level value stands unless given)."""
    import argparse

    p.add_argument("--color", choices=("auto", "always", "never"), default=argparse.SUPPRESS,
                   help="colour output: auto (default: on a terminal unless NO_COLOR), "
                        "always, never")
