"""``Content-Signal`` (Cloudflare's Content Signals Policy) and its mapping to AIPREF.

``search=yes, ai-input=no, ai-train=no`` and, since July 2026, ``use=immediate|reference|full``.
Not declared as a Structured Field, so it is read as comma-separated ``key=value`` pairs, keys
and values compared without regard to case (the owner's intent is unambiguous; the linter flags
odd spellings); ``yes``/``no`` only, a key left out "neither grants nor restricts" (unknown).

Mapping to AIPREF (:func:`to_aipref`): robotrules' own table, per vocabulary version, in
:attr:`robotrules.aipref.vocabulary.Vocabulary.from_content_signal`: ``search`` is AIPREF's
``search``; ``ai-train`` approximates ``train-ai``; ``ai-input`` has no vocab-07 counterpart and
approximates vocab-08's ``ai-use``; ``use`` maps to no category (it says how, not whether).
The mapping is a view: ``Usage`` keeps Content-Signal's own keys as they were written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .._memo import TextMemo
from ._values import Statement, Tri, combine
from .vocabulary import CONTENT_SIGNAL_KEYS, CONTENT_SIGNAL_OTHER, DEFAULT_VOCABULARY, vocabulary

__all__ = ["parse_content_signal", "signal_items", "to_aipref"]

CONTENT_SIGNAL: Final = "content-signal"


def signal_items(value: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` pairs of a Content-Signal value as written (whitespace trimmed)."""
    out: list[tuple[str, str]] = []
    for item in value.split(","):
        item = item.strip(" \t")
        if item:
            k, _, v = item.partition("=")
            out.append((k.strip(" \t"), v.strip(" \t")))
    return out


_Read = tuple[tuple[tuple[str, Tri], ...], tuple[str, ...], tuple[tuple[str, str], ...],
              tuple[str, ...]]


def _content_signal(value: str, _variant: str) -> _Read:
    prefs: dict[str, Tri] = {}
    extra: dict[str, str] = {}
    ignored: list[str] = []
    seen: set[str] = set()
    dups: list[str] = []
    for k, v in signal_items(value):
        name, val = k.lower(), v.lower()
        if name in seen:
            dups.append(name)
        seen.add(name)
        if name in CONTENT_SIGNAL_KEYS:
            prefs[name] = True if val == "yes" else False if val == "no" else None
        elif name in CONTENT_SIGNAL_OTHER:
            extra[name] = val
        else:
            ignored.append(k)
    return (tuple(prefs.items()), tuple(ignored), tuple(extra.items()),
            tuple(dict.fromkeys(dups)))


#: The Content-Signal values read (:func:`parse_content_signal`), memoised as preference texts
#: are (:data:`robotrules.aipref.content_usage.PREFERENCES`): short ones, within 64 KiB.
SIGNALS: Final = TextMemo(_content_signal, budget=64 << 10, max_text=256, entry_bytes=320,
                          char_bytes=48)


def parse_content_signal(value: str, *, line: int | None = None, key: str = "Content-Signal"
                         ) -> Statement:
    """A ``Content-Signal`` value (``search=yes, ai-train=no``) as a :class:`Statement`.

    A key left out is absent (Cloudflare: it "neither grants nor restricts"); a value other than
    ``yes``/``no`` is unknown; the last duplicate wins; unknown keys are ignored; ``use`` goes
    to ``Statement.extra``.
    """
    prefs, ignored, extra, dups = SIGNALS(value, "")
    return Statement(CONTENT_SIGNAL, line, value, prefs, None, None, ignored, extra, dups, key)


def to_aipref(signals: Statement | Mapping[str, Tri], vocabulary_name: str = DEFAULT_VOCABULARY
              ) -> dict[str, Tri]:
    """Content-Signal values as the AIPREF categories of ``vocabulary_name`` they approximate
    (the module docstring's table); keys without a counterpart are left out."""
    table = vocabulary(vocabulary_name).from_content_signal
    items = signals.prefs if isinstance(signals, Statement) else tuple(signals.items())
    mapped: list[dict[str, Tri]] = []
    for k, v in items:
        category = table.get(k)
        if category is not None:
            mapped.append({category: v})
    return combine(*mapped)
