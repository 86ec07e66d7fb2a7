"""Structured Field Values (RFC 9651), read through ``http-sf``: the project's one parse.

Every Structured Field robotrules reads goes through :func:`parse_dictionary` or
:func:`parse_item`: the AIPREF usage preference (``Content-Usage`` in robots.txt and as an HTTP
field, a Dictionary: vocab-07 "Processing Algorithm"), Web Bot Auth's ``Signature-Input`` (a
Dictionary) and ``Signature-Agent`` (an Item, or a Dictionary keyed by signature label).
Content-Signal is not one of them: it is not declared as a Structured Field and is read
leniently, as a comma-separated list (``robotrules.aipref.content_signal.signal_items``).

A failure is a value, never an exception: ``error`` says why (RFC 9651 4.2: a parser fails on
the whole field, and a field is ASCII, so any other character fails it too). The caller keeps
its own memo if it wants one (aipref memoises preference texts; the guard reads each request
once).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, NamedTuple

try:
    import http_sf
except ImportError as exc:  # pragma: no cover - http-sf is a core dependency
    raise ImportError(
        "robotrules needs the 'http-sf' package (RFC 9651 Structured Fields): "
        "pip install http-sf") from exc

__all__ = ["SfDictionary", "bare", "parse_dictionary", "parse_item", "token"]

# what http-sf raises on bad input: StructuredFieldError (a ValueError) and, on odd inputs,
# the plain ValueError / TypeError of its value checks
_BAD = (ValueError, TypeError, UnicodeError)


class SfDictionary(NamedTuple):
    """A field read as a Dictionary: its members (``None`` when it did not parse), why it did
    not parse, and the keys given more than once (RFC 9651: the last one counts)."""

    members: Mapping[str, object] | None
    error: str | None
    duplicates: tuple[str, ...]


def _octets(text: str) -> bytes:
    # never raises: a character outside ASCII becomes bytes the parser then refuses
    return text.encode("utf-8", "surrogatepass")


# A Dictionary whose members are all a Key, alone or ``=`` a Token, with no parameters (RFC
# 9651 3.2, 3.1.2, 3.3.4): what nearly every usage preference is (``train-ai=n, search=y``).
# It is read here by its grammar, member by member, with the values http-sf gives (a Token,
# or True for a key alone, and no parameters); anything else goes to http-sf. The two
# readings are held equal by tests/core/test_sf.py.
_MEMBER: Final = r"([a-z*][a-z0-9_\-.*]*)(?:=([A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*))?"
_SIMPLE: Final = re.compile(rf" *{_MEMBER}(?:[ \t]*,[ \t]*{_MEMBER})* *")
_MEMBERS: Final = re.compile(_MEMBER)


def parse_dictionary(text: str) -> SfDictionary:
    """``text`` as an RFC 9651 Dictionary (members keep their parameters: see :func:`bare`)."""
    if _SIMPLE.fullmatch(text) is not None:
        members: dict[str, object] = {}
        dups: list[str] = []
        for m in _MEMBERS.finditer(text):
            key, value = m.group(1, 2)
            if key in members:
                dups.append(key)  # RFC 9651 4.2.2: the last value counts, where the first was
            members[key] = (True if value is None else http_sf.Token(value), {})
        return SfDictionary(members, None, tuple(dict.fromkeys(dups)))
    return _parsed_dictionary(text)


def _parsed_dictionary(text: str) -> SfDictionary:
    """:func:`parse_dictionary` by http-sf, whatever the members."""
    dups: list[str] = []
    try:
        parsed = http_sf.parse(_octets(text), tltype="dictionary",
                               on_duplicate_key=lambda key, _ctx: dups.append(key))
    except _BAD as exc:
        return SfDictionary(None, str(exc) or "not a Structured Fields dictionary", ())
    if not isinstance(parsed, dict):  # pragma: no cover - a dictionary was asked for
        return SfDictionary(None, "not a Structured Fields dictionary", ())
    return SfDictionary(parsed, None, tuple(dict.fromkeys(dups)))


def parse_item(text: str) -> tuple[object, Mapping[str, object]] | None:
    """``text`` as an RFC 9651 Item, ``(bare value, parameters)``, or ``None``."""
    try:
        item = http_sf.parse(_octets(text), tltype="item")
    except _BAD:
        return None
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict):
        return item[0], item[1]
    return None  # pragma: no cover - an item was asked for


def bare(member: object) -> object:
    """A Dictionary member without its parameters (an Inner List stays a list)."""
    return member[0] if isinstance(member, tuple) else member


def token(value: object) -> str | None:
    """The text of a Token (``y``, ``n``, ``yes`` ...), or ``None`` for any other type."""
    return str(value) if isinstance(value, http_sf.Token) else None
