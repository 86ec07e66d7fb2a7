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
from collections.abc import Mapping
from functools import lru_cache
from typing import Final

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


@lru_cache(maxsize=2048)
def _dictionary(text: str) -> tuple[Mapping[str, object] | None, str | None, tuple[str, ...]]:
    """``text`` as an RFC 9651 Dictionary: ``(members, error, duplicate keys)``, by the
    project's one Structured Fields parse (:func:`robotrules._sf.parse_dictionary`),
    memoised: the same preference texts recur across lines and files."""
    return parse_dictionary(text)


def raw_token(text: str, key: str) -> str | None:
    """The Token value of ``key`` in the preference ``text`` (parameters dropped), or None when
    the text does not parse, lacks ``key`` or gives it a value that is not a Token."""
    members = _dictionary(text)[0]
    if members is None or key not in members:
        return None
    return token(bare(members[key]))


@lru_cache(maxsize=4096)
def parse_preference(text: str, vocabulary_name: str = DEFAULT_VOCABULARY) -> Parsed:
    """An AIPREF usage preference (vocab-07 "Processing Algorithm") as
    ``(prefs, ignored, error, duplicates)`` under the vocabulary version named.

    ``prefs`` holds each label of that version present (``True`` for the Token ``y``, ``False``
    for ``n``, ``None`` for any other value); ``ignored`` the other keys; ``error`` the parse
    failure (then nothing else is set: every category unknown).
    """
    labels = vocabulary(vocabulary_name).labels
    members, error, dups = _dictionary(text)
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
    return _content_usage(value, line, key, vocabulary, octets)


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


@lru_cache(maxsize=8192)  # statements are immutable: the lines of a file are read once
def _content_usage(value: str, line: int | None, key: str, vocab: str, octets: str | None
                   ) -> Statement:
    pref = split_content_usage(value)[1]
    path = content_usage_path(value, octets)
    prefs, ignored, error, dups = parse_preference(pref, vocab)
    return Statement(CONTENT_USAGE, line, value, prefs, path, error, ignored, (), dups, key)


def parse_content_usage_header(value: str, *, vocabulary: str = DEFAULT_VOCABULARY
                               ) -> Statement:
    """The ``Content-Usage`` HTTP response field (attach-05 "HTTP Content-Usage Header Field"):
    a Dictionary with the same vocabulary, no path."""
    prefs, ignored, error, dups = parse_preference(value, vocabulary)
    return Statement("http-content-usage", None, value, prefs, None, error, ignored, (), dups,
                     "Content-Usage")
