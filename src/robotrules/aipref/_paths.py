"""Paths written in preference statements, read exactly as Allow/Disallow patterns.

attach-05 3.1 ("Content-Usage Rule Semantics"): Content-Usage rules match "using the same path
prefix matching rules as defined for Allow and Disallow", and their paths "use the same
percent-encoding rules as used for Allow/Disallow rules". TDMRep locations and RSL ``<content
url>`` paths follow the Robots Exclusion Protocol too. So every such path goes through the
core's one pattern reader (:func:`robotrules._compile.new_pattern`, i.e. the dialect spec's
``pattern`` normaliser) from the same octets an Allow line with that text would hold: the
bytes the core makes of the text (:func:`robotrules._tokenize.to_bytes`: UTF-8, lone
surrogates ``U+DC80``-``U+DCFF`` back to the bytes they stand for), as the core keeps them (one
Latin-1 character per octet). Any Unicode path is thus read as its UTF-8 percent-encoding in
every dialect, never raising; a Content-Usage path read from bytes that are not UTF-8 carries
those bytes as lone surrogates (``parse_content_usage(octets=...)``) and so reads exactly as
an Allow/Disallow pattern with the same bytes.
"""

from __future__ import annotations

from typing import Final

from .._compile import new_pattern
from .._match import Pattern
from .._memo import TextMemo
from .._tokenize import to_bytes

__all__ = ["pattern"]


def pattern(text: str, dialect: str) -> Pattern:
    """``text`` (a path as people read it) as the core's matcher reads the same Allow rule
    (memoised for short paths within a byte budget: :data:`PATTERNS`)."""
    return PATTERNS(text, dialect)


def _read(text: str, dialect: str) -> Pattern:
    raw = text if text.isascii() else to_bytes(text).decode("latin-1")
    # allow=False: Google's derived "/dir/$" companion of Allow rules is not wanted here
    return new_pattern(raw, dialect, False)


#: The paths read (:func:`pattern`): paths of up to 256 characters, at most 128 KiB of
#: patterns (a pattern keeps about 200 bytes plus 1 per character, its key the text again).
PATTERNS: Final = TextMemo(_read, budget=128 << 10, max_text=256, entry_bytes=320,
                           char_bytes=4)
