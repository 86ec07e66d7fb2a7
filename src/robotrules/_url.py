"""URL to matchable path, and the percent-encoding normalisations of each dialect.

- ``path_params_query``: Google's ``GetPathParamsQuery`` (robots.cc): path, params and query of
  a URL, fragment dropped, ``/`` when there is none; a URL without a scheme takes its first
  segment as the host. Used by every dialect so that a URL is cut into a path one way only;
  ``path_of`` (the google and 1994 dialects) then ends it at a NUL, as Google's matcher reads
  it as a C string.
- ``rfc_normalize``: RFC 9309 2.2.2: decode ``%xx`` of unreserved characters, upper-case the
  other escapes, percent-encode octets outside ASCII (as UTF-8); reserved characters stay as
  they are, raw or encoded. Characters that are neither reserved nor unreserved (space, ``"``,
  ``<`` ...) are encoded too, so that ``/a b`` and ``/a%20b`` compare equal. A literal ``*`` or
  ``$`` in a URL is written ``%2A`` / ``%24`` so that a rule's ``%2A`` / ``%24`` matches it
  (2.2.3) while the rule's own ``*`` and final ``$`` keep their special meaning.
- ``legacy_normalize``: the 1996 draft (3.2.2): ``%xx`` is decoded before comparison, except
  ``%2F``.
- ``resolved``: a URL a file gives (``Sitemap:``, ``License:``) resolved against the file's
  URL, or None where urllib cannot read it: the one reading of such values.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import quote_from_bytes, unquote, urljoin, urlsplit

__all__ = [
    "ROBOTS_TXT_PATH",
    "legacy_normalize",
    "path_of",
    "path_params_query",
    "resolved",
    "rfc_normalize",
    "rfc_normalize_pattern",
    "rfc_path",
]

#: where every robots.txt is (RFC 9309 2.3: "/robots.txt", lower case, at the top level):
#: the one spelling of its path the package reads and writes
ROBOTS_TXT_PATH: Final = "/robots.txt"

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_RESERVED = ":/?#[]@!$&'()*+,;="
# Safe for quote(): unreserved and reserved (both kept as they are) and '%' (escapes are
# handled separately). '*' and '$' are handled by the caller.
_SAFE = "-._~" + _RESERVED + "%"
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_NEEDS_WORK = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@!&'()+,;=]")
_UNSAFE = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]")  # outside _SAFE


# Possessive quantifiers (*+ ?+) match the same here (no class can give back a character
# the next item needs) and spare the regex engine its backtracking bookkeeping.
_HTTP_URL = re.compile(r"https?://[^/?;#]*+([/?;][^#]*+)?+")


# An http(s) URL whose path and query hold only characters that RFC 9309 normalisation keeps
# as they are: its path needs no normalisation (group 1; None means "/").
_PLAIN_HTTP_URL = re.compile(
    r"https?://[^/?;#]*+([/?;][-A-Za-z0-9._~:/?\[\]@!&'()+,;=]*+)?+(?:#|\Z)")


def rfc_path(url: str) -> str:
    """``rfc_normalize(path_params_query(url))``, in one regex call for the common plain
    URL."""
    m = _PLAIN_HTTP_URL.match(url)
    if m is None:
        return rfc_normalize(path_params_query(url))
    path = m.group(1)
    if path is None:
        return "/"
    return path if path[0] == "/" else "/" + path


def path_of(url: str) -> str:
    """Path, params and query of ``url`` exactly as Google's matcher reads them: as
    :func:`path_params_query` extracts them, up to a NUL (robots.cc keeps the path as a C
    string, ``InitUserAgentsAndPath(path.c_str())``: ``/\0x`` is ``/``)."""
    path = path_params_query(url)
    nul = path.find("\0")
    return path if nul < 0 else path[:nul]


def path_params_query(url: str) -> str:
    """Path, params and query of ``url`` as robots.cc ``GetPathParamsQuery`` extracts them."""
    # Fast path for the common http(s)://host/... form; the general code below gives the
    # same answer for it (robots.cc GetPathParamsQuery): from the first "/?;" after the
    # authority up to "#", "/" when a "#" comes first.
    m = _HTTP_URL.match(url)
    if m is None:
        return _path_of(url)
    path = m.group(1)
    if path is None:
        return "/"
    return path if path[0] == "/" else "/" + path


def _path_of(url: str) -> str:
    search_start = 2 if url.startswith("//") else 0
    early_path = _find_first_of(url, "/?;", search_start)
    protocol_end = url.find("://", search_start)
    if protocol_end < 0 or (0 <= early_path < protocol_end):
        protocol_end = search_start
    else:
        protocol_end += 3
    path_start = _find_first_of(url, "/?;", protocol_end)
    if path_start < 0:
        return "/"
    hash_pos = url.find("#", search_start)
    if 0 <= hash_pos < path_start:
        return "/"
    path_end = len(url) if hash_pos < 0 else hash_pos
    path = url[path_start:path_end]
    if url[path_start] != "/":
        return "/" + path
    return path


def _find_first_of(s: str, chars: str, start: int) -> int:
    best = -1
    for c in chars:
        i = s.find(c, start)
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


def _fix_escape(m: re.Match[str]) -> str:
    value = int(m.group(1), 16)
    if value in _UNRESERVED:
        return chr(value)
    return "%" + m.group(1).upper()


def normal_path_bytes() -> bytes:
    """For each byte value, 1 if RFC 9309 normalisation keeps it as it is in a path (a path
    made of such bytes only is its own normal form): the table the native kernels read."""
    return bytes(_NEEDS_WORK.search(chr(c)) is None for c in range(256))


def escaped_path_bytes() -> bytes:
    """For each byte value, 1 if RFC 9309 normalisation writes it in a path as its own
    ``%XX`` (upper-case hex): read off :func:`rfc_normalize` itself, for the native kernels.
    Every byte of a path is kept (:func:`normal_path_bytes`), '%' (an escape, or kept), or
    written so; above 127, every octet of a character's UTF-8 is (checked here for UTF-8
    of two, three and four bytes)."""
    table = bytearray(256)
    for c in range(128):
        table[c] = rfc_normalize(chr(c)) == f"%{c:02X}"
    for char in ("\u00e9", "\u20ac", "\U0001f600"):
        octets = char.encode("utf-8")
        assert rfc_normalize("/" + char) == "/" + "".join(f"%{b:02X}" for b in octets)
    for c in range(128, 256):
        table[c] = 1
    kept = normal_path_bytes()
    assert all(kept[c] or table[c] or c == 0x25 for c in range(256)), "a byte with no form"
    return bytes(table)


def decoded_escape_bytes() -> bytes:
    """For each byte value, 1 if RFC 9309 normalisation decodes its ``%XX`` escape (an
    unreserved character), 0 if it keeps the escape (upper-cased): read off
    :func:`rfc_normalize` itself, for the native kernels."""
    out = rfc_normalize("".join(f"%{c:02x}" for c in range(256)))  # escapes are read alone
    table = bytearray(256)
    at = 0
    for c in range(256):
        if out[at] == "%":
            at += 3  # kept (upper-cased)
        else:
            table[c] = 1
            at += 1
    return bytes(table)


def rfc_normalize(text: str) -> str:
    """RFC 9309 2.2.2 form of a URL path (or a literal run of a pattern)."""
    if _NEEDS_WORK.search(text) is None:
        return text
    if "%" in text:
        text = _ESCAPE.sub(_fix_escape, text)
    if "*" in text:
        text = text.replace("*", "%2A")
    if "$" in text:
        text = text.replace("$", "%24")
    if _UNSAFE.search(text) is None:
        return text  # what quote() below would keep as it is (escapes are safe for it)
    try:
        raw = text.encode("utf-8", "surrogateescape")  # bytes smuggled in as \udc80-\udcff
    except UnicodeEncodeError:  # any other lone surrogate: its own three bytes
        raw = text.encode("utf-8", "surrogatepass")

    return quote_from_bytes(raw, safe=_SAFE)


_PLAIN_PATTERN = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@!&'()+,;=*]")


def rfc_normalize_pattern(pattern: str) -> str:
    """RFC 9309 form of a rule pattern: literal runs normalised, ``*`` and final ``$`` kept."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    if _PLAIN_PATTERN.search(body) is None:
        return pattern  # nothing to encode or decode (the common case)
    out = "*".join(rfc_normalize(part) for part in body.split("*"))
    return out + "$" if anchored else out


# This pattern and _GOOGLE_ESCAPE's serve one dialect each and only values holding "%" (or
# non-ASCII for Google): text that re's own cache compiles on first use, so that `import
# robotrules` does not pay for compiling them.
_SLASH_ESCAPE = "%2[fF]"


def legacy_normalize(text: str) -> str:
    """1996 draft 3.2.2: decode ``%xx`` before comparing, except ``%2F`` (kept, upper-cased)."""
    if "%" not in text:
        return text

    return "%2F".join(unquote(part) for part in re.split(_SLASH_ESCAPE, text))


_GOOGLE_ESCAPE = r"%[0-9A-Fa-f]{2}|[\x80-\xff]"


def _google_escape_one(m: re.Match[str]) -> str:
    s = m.group(0)
    return s.upper() if len(s) == 3 else f"%{ord(s):02X}"


def google_escape(raw: str) -> str:
    """robots.cc MaybeEscapePattern: non-ASCII octets to ``%XX``, escapes upper-cased."""
    if raw.isascii() and "%" not in raw:
        return raw
    return re.sub(_GOOGLE_ESCAPE, _google_escape_one, raw)


def pattern_text(raw: str) -> str:
    """Pattern bytes as text: UTF-8, or Latin-1 when the file is not UTF-8 (RFC 9309 2.2.2
    allows bridging such encoding mismatches)."""
    if raw.isascii():
        return raw
    try:
        return raw.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return raw


def resolved(value: str, base: str | None) -> str | None:
    """``value`` (a URL a file or a header gives) resolved against ``base`` where it has no
    scheme and authority of its own, as :func:`urllib.parse.urljoin` resolves it; ``None``
    where urllib cannot read it (``http://[::1``, ``http://a]/``: an unclosed or stray IPv6
    bracket), so that content never makes a caller raise."""
    try:
        parts = urlsplit(value)
        if base and not (parts.scheme and parts.netloc):
            return urljoin(base, value)
    except ValueError:
        return None
    return value
