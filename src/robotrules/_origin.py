"""Origins: which robots.txt governs a URL, and the one IDNA codec of the package.

RFC 9309 2.3 and Google's specification: one robots.txt per scheme, host and port. Every part
of robotrules that turns a URL into the origin it belongs to (the fetch clients, the pacer,
the CLI, the web tester, the dataset tools) calls :func:`origin_of` here. Host names are
converted with :func:`ascii_host`, the only IDNA conversion in the package: IDNA 2008 with
UTS 46 mapping from the ``idna`` package, the codec httpx connects with, never Python's
built-in IDNA 2003 codec (which maps ``faß`` to ``fass`` where IDNA 2008 gives
``xn--fa-hia``: two different hosts).
"""

from __future__ import annotations

import functools
import re
from typing import Final
from urllib.parse import urlsplit

from robotrules._url import ROBOTS_TXT_PATH
from robotrules.errors import InvalidURL

__all__ = ["DEFAULT_PORTS", "ascii_host", "authority_of", "origin_of", "origin_or_none",
           "origin_parts", "robots_url"]

DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_DEFAULT_PORTS = DEFAULT_PORTS
_REG_NAME: Final = re.compile(r"[a-z0-9\-._~!$&'()*+,;=%]+")


def ascii_host(host: str) -> str:
    """``host`` as the ASCII name DNS is asked for: IDNA 2008 with UTS 46 mapping
    (non-transitional: ``faß`` stays ``xn--fa-hia``), as httpx connects. ASCII names are
    lower-cased, and an A-label (``xn--…``) must decode; ValueError when it is not a name."""
    name = host.strip().strip("[]")
    import idna  # on first use: most hosts are ASCII, and importing idna costs start-up

    try:
        if name.isascii():
            name = name.lower()
            if "xn--" in name:
                for label in name.split("."):
                    if label.startswith("xn--"):
                        idna.decode(label)  # httpx decodes it too; a bad one is no name
            return name
        return idna.encode(name, uts46=True, transitional=False).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError) as exc:
        raise ValueError(str(exc) or "not a valid international host name") from None


def origin_of(url: str) -> str:
    """The canonical origin whose robots.txt governs ``url``: ``scheme://host[:port]``.

    RFC 9309 2.3 and Google's spec: one robots.txt per scheme, host and port. The scheme and
    host are lower-cased, default ports (80, 443) dropped, IDN hosts converted to punycode
    (IDNA 2008 with UTS 46 mapping), userinfo, path, query and fragment dropped. Anything that
    is not an absolute http(s) URL with a host raises :class:`~robotrules.errors.InvalidURL`.
    """
    # urlsplit deletes tabs and line breaks anywhere in a URL: leave such URLs to it
    if isinstance(url, str) and "\n" not in url and "\r" not in url and "\t" not in url:
        m = _FAST.match(url)
        if m is not None:  # the common case: canonicalise (scheme, authority) once, then cache
            try:
                return _origin_cached(m.group(1), m.group(2))
            except InvalidURL:
                pass  # the slow path gives the message with the whole URL
    return _origin_slow(url)


# scheme://authority, the authority ending at "/", "?", "#" or the end (anything else, such as
# white space inside it, is left to the full parse and its error)
_FAST = re.compile(r"\s*([A-Za-z][A-Za-z0-9+.\-]*)://([^/?#\s\\]*)(?=[/?#]|\Z)")


@functools.lru_cache(maxsize=4096)
def _origin_cached(scheme: str, authority: str) -> str:
    return _origin_slow(f"{scheme}://{authority}")


def _origin_slow(url: str) -> str:
    if not isinstance(url, str):
        raise InvalidURL(f"URL must be a string, not {type(url).__name__}")
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise InvalidURL(f"{url!r}: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        hint = ""
        if not parts.scheme and "//" not in text and text:
            guess = f"https://{text}"
            if origin_or_none(guess) is not None:  # only a suggestion that is itself a URL
                hint = f" (did you mean '{guess}'?)"
        what = f"scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        raise InvalidURL(f"{url!r}: {what}; robots.txt applies to http and https URLs{hint}")
    host = parts.hostname or ""
    if not host:
        raise InvalidURL(f"{url!r}: no host")
    if ":" in host:  # IPv6 literal; urllib removed the brackets
        if not re.fullmatch(r"[0-9a-f:.]+(%[0-9a-z._~-]+)?", host):
            raise InvalidURL(f"{url!r}: invalid IPv6 address {host!r}")
        host = f"[{host}]"
    else:
        host = _ascii_host(host, url)
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}:{port}"
    return f"{scheme}://{host}"


def _ascii_host(host: str, url: str) -> str:
    if not host.isascii() or "xn--" in host:
        try:
            host = ascii_host(host)
        except ValueError as exc:
            raise InvalidURL(f"{url!r}: invalid international host name: {exc}") from exc
    host = host.lower()
    if not _REG_NAME.fullmatch(host) or host.strip(".") == "":
        raise InvalidURL(f"{url!r}: invalid host {host!r}")
    return host


def robots_url(url: str) -> str:
    """The robots.txt URL for ``url``'s origin (RFC 9309 2.3: ``/robots.txt``, lower case)."""
    return origin_of(url) + ROBOTS_TXT_PATH


def origin_parts(origin: str) -> tuple[str, str]:
    """``(scheme, host[:port])`` of an origin :func:`origin_of` wrote."""
    scheme, _, authority = origin.partition("://")
    return scheme, authority


def authority_of(origin: str) -> str:
    """The ``host[:port]`` of an origin :func:`origin_of` wrote (its scheme cut off)."""
    return origin_parts(origin)[1]


def origin_or_none(url: str) -> str | None:
    """:func:`origin_of`, or ``None`` for anything that is not an http(s) URL with a host."""
    try:
        return origin_of(url)
    except InvalidURL:
        return None

