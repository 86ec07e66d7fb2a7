"""Product tokens: the one place that decides which token a user agent is matched by.

Two sides meet here, and nothing else in the package reads a token:

- the **query side**, :func:`product_token`: what a caller passes as ``user_agent``. A bare
  token (``ExampleBot``, anything without a ``/``) is used as given. A full User-Agent
  header yields the crawler's token the way site owners mean it: the product after
  ``compatible;`` (``Mozilla/5.0 (compatible; Googlebot/2.1; +http://…)`` is
  ``Googlebot``), else the first product that is not a browser
  engine or platform word: the header's first one (``MJ12bot/1.4.8 (…)`` is ``MJ12bot``),
  else a later one (``Mozilla/5.0 … Safari/605.1.15 (Applebot/0.1; +http://…)`` is
  ``Applebot``); a plain browser is ``Mozilla``. RFC 9309 2.2.1: crawlers "MUST use
  case-insensitive matching to find the group that matches the product token", and the
  token is what identifies the crawler.
- the **line side**, :func:`line_agent` and :func:`line_token`: what a ``User-agent:`` line
  of a file names: the global group (``*``), or a token. Which characters a token runs over
  is the dialect's (``DialectSpec.agent_token``): Google (robots.cc ``ExtractUserAgent``)
  keeps the leading run of ``[A-Za-z_-]``, so ``AI2Bot`` is read as ``AI``; the ``rfc9309``
  and ``1994`` dialects also keep digits and dots inside a token (RFC 9309 2.2.4 allows such
  leniency; ``MJ12bot``, ``360Spider``, ``AI2Bot`` and ``archive.org_bot`` are real crawlers,
  and cutting them at the digit silently un-blocks them). Whether a value is read as a token
  at all is the dialect's too (``token_agents``): the 1994 dialect keeps the value as written
  and looks for the query's name inside it.

:func:`query_key` is the lower-cased key a query looks groups up by: the product token
compared whole in every dialect (Google's matcher compares the caller's token whole), and
for ``1994`` the name that is searched for inside each record's agent values.

Cost: one pass over the header (bounded: headers longer than 4 KiB are read up to there).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from ._dialects import SPECS

if TYPE_CHECKING:
    from ._types import Dialect


__all__ = ["GLOBAL", "HEADER_MARK", "agent_key", "ascii_lower", "header_token", "is_global_agent",
           "line_agent", "line_token", "product_token", "query_key"]

#: What :func:`line_agent` gives for a value that names the global group.
GLOBAL: Final = "*"
#: What makes a query's user agent a User-Agent header (``Name/1.0 ...``) to read a product
#: token out of: a user agent without it is its own token (:func:`product_token`), so its
#: :func:`query_key` is the agent lower-cased (the native kernel reads no further).
HEADER_MARK: Final = "/"
_WS: Final = " \t\n\v\f\r"
# A product name in a header: letters, digits, "_", "." and "-" (RFC 9110 allows more token
# characters, but "Yahoo!" is an operator's name and "+http://" a contact URL, not products).
# Text that re's own cache compiles on first use: only full User-Agent headers (memoised
# below) ask for it, and `import robotrules` does not pay for compiling it.
_NAME: Final = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
# Words of User-Agent headers that name a browser, an engine or a platform, never a crawler.
_GENERIC: Final = frozenset({
    "mozilla", "applewebkit", "chrome", "chromium", "safari", "version", "mobile", "gecko",
    "khtml", "firefox", "edg", "edge", "edga", "edgios", "opr", "opera", "crios", "fxios",
    "trident", "msie", "build", "headlesschrome", "samsungbrowser", "ucbrowser", "yabrowser",
    "vivaldi", "brave", "linux", "android", "windows", "macintosh", "iphone", "ipad", "x11",
    "ubuntu", "cpu", "like", "u", "wv", "rv", "compatible", "dalvik", "cfnetwork", "darwin",
})
_MAX_HEADER: Final = 4096
_MEMO: dict[str, str] = {}
_HEADER_MEMO: dict[str, str] = {}
_MEMO_MAX: Final = 4096


def is_global_agent(value: str) -> bool:
    """Google: ``*`` alone, or ``*`` followed by white space, names the global group."""
    return value[:1] == "*" and (len(value) == 1 or value[1] in _WS)


def line_token(value: str, dialect: Dialect) -> str:
    """The product token a ``User-agent:`` value names in ``dialect`` (case kept): the
    leading run of the dialect's token characters (``DialectSpec.agent_token``)."""
    if value.isascii() and value.isalpha():
        return value  # "Googlebot": the whole value is the token
    m = SPECS[dialect].agent_token.match(value)
    return m.group(0) if m else ""


def line_agent(value: str, dialect: Dialect) -> str:
    """What one ``User-agent:`` value names in ``dialect``: :data:`GLOBAL` for the global
    group, else what its groups are found by (case kept): the product token
    (:func:`line_token`) where agents are tokens, the value as written in the 1994 dialect
    (whose queries look for their name inside it). ``value`` is the value as people read it
    (``_tokenize.display``); the global group is ``*`` alone or ``*`` and white space for
    Google's reading (:func:`is_global_agent`), ``*`` alone for the 1994 standard."""
    if SPECS[dialect].token_agents:
        return GLOBAL if is_global_agent(value) else line_token(value, dialect)
    return GLOBAL if value.strip() == GLOBAL else value


def agent_key(value: str, dialect: Dialect) -> str:
    """The key a ``User-agent:`` value files its group under (``*`` for the global group):
    :func:`line_agent`, compared case-insensitively in ASCII as queries are
    (:func:`query_key`)."""
    return ascii_lower(line_agent(value, dialect))


def line_token_bytes(dialect: Dialect) -> bytes:
    """For each byte value, 1 if it continues a ``User-agent:`` line's token in ``dialect``
    (the leading run :func:`line_token` keeps): the table the native kernels read."""
    line = SPECS[dialect].agent_token
    return bytes(line.fullmatch(chr(c)) is not None for c in range(256))


def product_token(user_agent: str) -> str:
    """The crawler's product token in ``user_agent``: a bare token as given, else the token a
    full User-Agent header identifies its crawler by (see the module docstring)."""
    if user_agent.isascii() and user_agent.isalpha():
        return user_agent
    return _memoised(_MEMO, user_agent, _from_header)


def header_token(header: str) -> str:
    """The product token of a User-Agent header as a server receives it: what
    :func:`product_token` reads from a full header, for a header without a ``/`` too (RFC
    9110 10.1.5: the version is optional, so ``GPTBot (compatible)`` and ``GPTBot 1.2`` are
    ``GPTBot``). A site reads headers, never bare tokens: a value read whole would match no
    ``User-agent:`` line, whose token stops at white space."""
    if header.isascii() and header.isalpha():
        return header
    return _memoised(_HEADER_MEMO, header, _read_header)


def _memoised(memo: dict[str, str], text: str, read: Callable[[str], str]) -> str:
    """``read(text)``, kept in ``memo`` (emptied when full: a flood of distinct headers
    costs recomputation, never memory)."""
    hit = memo.get(text)
    if hit is None:
        hit = read(text)
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        memo[text] = hit
    return hit


def _from_header(user_agent: str) -> str:
    if HEADER_MARK not in user_agent:
        # a bare token, odd or not ("Foo Bar", "AB42bot"): compared whole, as Google's
        # matcher compares the token it is given (robots.cc AllowedByRobots)
        return user_agent
    return _read_header(user_agent)


def _read_header(user_agent: str) -> str:
    text = user_agent.strip(_WS)[:_MAX_HEADER]
    # entries: the header cut at ";", "(", ")" and ","; the words of an entry at white space
    # the header's first product names the client ("MJ12bot/1.4.8 (…)", "LinkedInBot/1.0
    # (compatible; Mozilla/5.0; …)", "FigTree Robot libwww-perl/5.04") unless it is a
    # browser word (Mozilla/5.0 …)
    lead = _name(text.split(None, 1)[0].split("/", 1)[0]) if text.split() else ""
    if lead and lead.lower() not in _GENERIC:
        return lead
    entries = [e.strip(_WS) for e in re.split(r"[;(),]", text)]
    entries = [e for e in entries if e]
    for n, entry in enumerate(entries):
        if entry.lower() == "compatible":
            # "compatible; Googlebot/2.1", "compatible; Yahoo! Slurp": the first clean
            # product name after it that is not a browser word
            for nxt in entries[n + 1 :]:
                for word in nxt.split():
                    name = _name(word.split("/", 1)[0], whole=True)
                    if name and name.lower() not in _GENERIC:
                        return name
    first = ""
    for entry in entries:
        for word in entry.split():
            if "/" not in word:
                continue
            name = _name(word.split("/", 1)[0], whole=True)
            if not name:
                continue
            if name.lower() not in _GENERIC:
                return name
            first = first or name
    return first or lead or user_agent


def _name(word: str, *, whole: bool = False) -> str:
    """The product name at the start of ``word`` (``whole``: all of it or nothing)."""
    m = re.match(_NAME, word)
    if m is None or (whole and m.end() != len(word)):
        return ""
    return m.group(0)


def ascii_lower(text: str) -> str:
    """``text`` with ASCII letters lower-cased and every other character kept: agents are
    compared the way Google compares them (robots.cc ``absl::EqualsIgnoreCase``, ASCII only),
    so U+212A KELVIN SIGN is not a ``k`` (``str.lower`` would make it one)."""
    if text.isascii():
        return text.lower()
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def query_key(user_agent: str) -> str:
    """The lower-cased key a query's user agent selects groups by (in every dialect: the
    1994 dialect then looks for it inside each record's agent values); ASCII case only
    (:func:`ascii_lower`)."""
    return ascii_lower(product_token(user_agent))


def clear_caches() -> None:
    _MEMO.clear()
    _HEADER_MEMO.clear()
