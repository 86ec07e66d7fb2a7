"""The request target the guard judges: the path the application will serve, in each form a
server or framework may give it.

A robots.txt rule is matched against a URL's path (:mod:`robotrules._url`, the one URL-to-path
rule). An application does not serve the path as it was sent: its server percent-decodes it
(uvicorn's ``path``, PEP 3333's ``PATH_INFO``: every escape, ``%2F`` included, the bytes read
as Latin-1), and its framework or static file server may resolve dot segments and merge
repeated slashes (Starlette's ``StaticFiles``, ``os.path.normpath``, Werkzeug's
``merge_slashes``), or read ``\\`` as ``/``. :func:`forms` gives the target in each of these
forms; the guard asks robots.txt about every one and a disallow on any form is a disallow (the
strictest answer, never the most lenient). The Host header plays no part: the path is read
from the request target alone.

Each form is ASCII text ``/path[?query]`` for :mod:`robotrules._url` to read: an octet that is
not a printable ASCII character, and ``#`` (a request target has no fragment), is written
``%XX``; the query is kept as sent, and where escapes change in normal form (2. below) each
form is also given with the normal query.

1. ``sent``: the path as sent (``raw_path``);
2. ``normal``: RFC 3986 6.2.2: escapes of unreserved characters decoded (``%2E`` is ``.``,
   2.3), the others in upper case (``%2f`` is ``%2F``, 6.2.2.1), dot segments removed
   (5.2.4), then repeated slashes merged;
3. ``served``: every escape decoded once (as servers decode; ``%2F`` is ``/``), ``\\`` read as
   ``/``, repeated slashes merged, then dot segments removed (``normpath``'s order), written
   back with ``%XX`` (a decoded ``%`` is ``%25``). The server's own decoded path (ASGI
   ``path``, WSGI ``PATH_INFO``), when given, is read the same way;
4. where a form has ``;``: the same without each segment's ``;parameters`` (servlet
   containers strip them: ``/private;jsessionid=1/x`` serves ``/private/x``);
5. where a form ends in ``/`` (not the root): the same without it (``os.path.normpath``,
   Starlette's ``StaticFiles`` and most static servers serve the file ``/x.pdf`` for
   ``/x.pdf/``, so ``Disallow: /*.pdf$`` must hold for it too).

Cost: linear in the target; a plain target (path characters only, no ``//``, ``/.`` or
``;``, no ``/`` at the end but the root, the server's path equal to the sent one) is one form
and one regular-expression match.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["forms", "remove_dot_segments"]

# RFC 3986 pchar and "/" without "%" (sub-delims, ":", "@", unreserved): a target made of
# these alone has no escape to decode and nothing to write as %XX
_PLAIN: Final = re.compile(rb"[A-Za-z0-9\-._~!$&'()*+,;=:@/]*")
_ESCAPE: Final = re.compile(r"%([0-9A-Fa-f]{2})")
_BYTE_ESCAPE: Final = re.compile(rb"%([0-9A-Fa-f]{2})")
_SLASHES: Final = re.compile(r"/{2,}")
_PARAMS: Final = re.compile(r";[^/]*")
_UNRESERVED: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                               b"-._~")
# octets written %XX in a form: controls, space, '#', DEL and everything above ASCII; '%' too
# where it is a decoded character, not an escape
_WRITE: Final = tuple(c < 0x21 or c > 0x7E or c == 0x23 for c in range(256))


def _text(raw: bytes, *, percent_is_escape: bool) -> str:
    """``raw`` as ASCII text: printable ASCII as it is, other octets (and ``#``; ``%`` unless
    it starts escapes) as ``%XX``."""
    if _PLAIN.fullmatch(raw) is not None:
        return raw.decode("ascii")
    out: list[str] = []
    for c in raw:
        if _WRITE[c] or (c == 0x25 and not percent_is_escape):
            out.append(f"%{c:02X}")
        else:
            out.append(chr(c))
    return "".join(out)


def _decode_unreserved(m: re.Match[str]) -> str:
    c = int(m.group(1), 16)
    return chr(c) if c in _UNRESERVED else m.group(0).upper()


def _decode_all(m: re.Match[bytes]) -> bytes:
    return bytes((int(m.group(1), 16),))


def remove_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4 for a path that starts with ``/``: ``.`` segments dropped, ``..`` drops
    the segment before it (never above the root)."""
    if "." not in path:
        return path
    segments = path.split("/")[1:]
    out: list[str] = []
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if seg == "..":
            if out:
                out.pop()
            if i == last:
                out.append("")
        elif seg == ".":
            if i == last:
                out.append("")
        else:
            out.append(seg)
    return "/" + "/".join(out)


def _merge(path: str) -> str:
    return _SLASHES.sub("/", path) if "//" in path else path


def _served(decoded: bytes) -> str:
    """The served form of a decoded path (see the module docstring)."""
    text = _text(decoded.replace(b"\\", b"/"), percent_is_escape=False)
    if not text.startswith("/"):
        text = "/" + text
    return remove_dot_segments(_merge(text))


def _without_params(path: str) -> str:
    """``path`` with each segment's ``;parameters`` removed (RFC 2396 3.3 path parameters,
    which Java servlet containers strip before serving: ``/private;x/y`` is ``/private/y``)."""
    return _PARAMS.sub("", path)


def forms(sent: bytes | None, query: bytes = b"", served: bytes | None = None
          ) -> tuple[str, ...]:
    """The target in each form (see the module docstring), distinct, the sent one first:
    ``sent`` the path as sent (percent-encoded), ``served`` the server's decoded path, either
    may be ``None``; ``query`` as sent, without ``?``."""
    q = "?" + _text(query, percent_is_escape=True) if query else ""
    # the query in normal form too (escapes of unreserved characters decoded, the others in
    # upper case: RFC 3986 6.2.2.1-2 hold for every component); applications decode it
    qn = _ESCAPE.sub(_decode_unreserved, q) if "%" in q else q
    if sent is not None and (served is None or served == sent) and qn == q \
            and _PLAIN.fullmatch(sent) is not None and b"//" not in sent \
            and b"/." not in sent and b";" not in sent and sent[:1] == b"/" \
            and (sent[-1:] != b"/" or sent == b"/"):
        return (sent.decode("ascii") + q,)
    out: list[str] = []
    if sent is not None:
        text = _text(sent, percent_is_escape=True)
        if not text.startswith("/"):
            text = "/" + text
        out.append(text)
        normal = _ESCAPE.sub(_decode_unreserved, text) if "%" in text else text
        out.append(_merge(remove_dot_segments(normal)))
        out.append(_served(_BYTE_ESCAPE.sub(_decode_all, sent) if b"%" in sent else sent))
    if served is not None:
        as_given = _text(served, percent_is_escape=False)
        out.append(as_given if as_given.startswith("/") else "/" + as_given)
        out.append(_served(served))
    out += [remove_dot_segments(_merge(_without_params(f))) for f in out if ";" in f]
    out += [f.rstrip("/") for f in out if f[-1:] == "/" and f.strip("/")]
    paths = dict.fromkeys(out or ["/"])
    if qn != q:
        return (*(f + q for f in paths), *(f + qn for f in paths))
    return tuple(f + q for f in paths)
