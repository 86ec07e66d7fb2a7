"""``Content-Usage``: the robots.txt rule and the HTTP field of draft-ietf-aipref-attach-05.

Rule value (attach-05 "Processing Content-Usage Rules"): ``[path WS] preference``; the value
starts with a path iff its first character is ``/``; the path ends before the first SP or
HTAB and the rest is the preference. The preference is an RFC 9651 Dictionary read by the
project's one Structured Fields parse, :mod:`robotrules._sf` (vocab-07 "Processing
Algorithm"): the labels of the chosen vocabulary version are read (case-sensitive), a value
is allowed only as the Token ``y``, disallowed only as ``n``, anything else unknown;
parameters and unknown keys are ignored; the last duplicate wins; *any* parse failure makes
every category unknown ("Multiple Preferences"). Superseded labels of
earlier vocabulary revisions are kept in ``Statement.ignored`` for the linter.
"""

from __future__ import annotations

import re
from typing import Final

from .._memo import TextMemo
from .._sf import bare, parse_dictionary, token
from ._values import Statement, Tri
from .vocabulary import DEFAULT_VOCABULARY, vocabulary

__all__ = ["content_usage_path", "parse_content_usage", "parse_content_usage_header",
           "parse_preference", "raw_token", "split_content_usage"]

CONTENT_USAGE: Final = "content-usage"
_WS: Final = re.compile(r"[ \t]")

Parsed = tuple[tuple[tuple[str, Tri], ...], tuple[str, ...], str | None, tuple[str, ...]]


def split_content_usage(value: str) -> tuple[str | None, str]:
    """``(path, preference)`` of a Content-Usage rule value (attach-05 "Processing Content-Usage
    Rules"): a path iff the value starts with ``/``, ending before the first SP or HTAB."""
    if not value.startswith("/"):
        return None, value
    m = _WS.search(value)
    if m is None:
        return value, ""
    return value[: m.start()], value[m.end() :].lstrip(" \t")


def raw_token(text: str, key: str) -> str | None:
    """The Token value of ``key`` in the preference ``text`` (parameters dropped), or None when
    the text does not parse, lacks ``key`` or gives it a value that is not a Token."""
    members = parse_dictionary(text).members
    if members is None or key not in members:
        return None
    return token(bare(members[key]))


def parse_preference(text: str, vocabulary_name: str = DEFAULT_VOCABULARY) -> Parsed:
    """An AIPREF usage preference (vocab-07 "Processing Algorithm") as
    ``(prefs, ignored, error, duplicates)`` under the vocabulary version named.

    ``prefs`` holds each label of that version present (``True`` for the Token ``y``, ``False``
    for ``n``, ``None`` for any other value); ``ignored`` the other keys; ``error`` the parse
    failure (then nothing else is set: every category unknown). Memoised for short texts
    within a byte budget (:data:`PREFERENCES`): the same preference texts recur across lines
    and files, a hostile file's many distinct ones must not stay behind.
    """
    return PREFERENCES(text, vocabulary_name)


def _read_preference(text: str, vocabulary_name: str) -> Parsed:
    labels = vocabulary(vocabulary_name).labels
    members, error, dups = parse_dictionary(text)
    if members is None:
        return (), (), error, ()
    prefs: list[tuple[str, Tri]] = []
    ignored: list[str] = []
    for key, member in members.items():
        if key not in labels:
            ignored.append(key)
            continue
        value = token(bare(member))  # parameters ignored
        tri: Tri = True if value == "y" else False if value == "n" else None
        prefs.append((key, tri))
    return tuple(prefs), tuple(ignored), None, dups


#: The preference texts read (:func:`parse_preference`): texts of up to 256 characters, at
#: most 128 KiB of readings (a reading keeps up to ~40 bytes per character of its text).
PREFERENCES: Final = TextMemo(_read_preference, budget=128 << 10, max_text=256,
                              entry_bytes=320, char_bytes=48)


def parse_content_usage(value: str, *, line: int | None = None, key: str = "Content-Usage",
                        vocabulary: str = DEFAULT_VOCABULARY, octets: str | None = None
                        ) -> Statement:
    """One robots.txt ``Content-Usage`` rule value as a :class:`Statement`.

    ``octets``: the value's bytes as the core keeps them (``Record.octets``, one Latin-1
    character per octet), for a value read from bytes that are not all UTF-8: the path is then
    taken from those bytes, so that it reads exactly as an Allow/Disallow pattern with the same
    bytes (attach-05 3.1). ``Statement.path`` keeps such bytes as lone surrogates (Python's
    ``surrogateescape``, the core's reading of text: ``_tokenize.to_bytes``); the readable
    value stays in ``Statement.raw``.
    """
    pref = split_content_usage(value)[1]
    path = content_usage_path(value, octets)
    prefs, ignored, error, dups = parse_preference(pref, vocabulary)
    return Statement(CONTENT_USAGE, line, value, prefs, path, error, ignored, (), dups, key)


def content_usage_path(value: str, octets: str | None = None) -> str | None:
    """The path of a Content-Usage rule value (None: the rule has none), as
    :func:`parse_content_usage` reads it (``octets``: see there), without reading the
    preference: what a matcher of the rules' paths needs."""
    path = split_content_usage(value)[0]
    if octets is not None and path is not None:
        raw_path = split_content_usage(octets)[0]
        if raw_path is not None:
            path = raw_path.encode("latin-1").decode("utf-8", "surrogateescape")
    return path


def parse_content_usage_header(value: str, *, vocabulary: str = DEFAULT_VOCABULARY
                               ) -> Statement:
    """The ``Content-Usage`` HTTP response field (attach-05 "HTTP Content-Usage Header Field"):
    a Dictionary with the same vocabulary, no path."""
    prefs, ignored, error, dups = parse_preference(value, vocabulary)
    return Statement("http-content-usage", None, value, prefs, None, error, ignored, (), dups,
                     "Content-Usage")
