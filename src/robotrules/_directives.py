"""The directive registry: every field a robots.txt line can name, in one table.

Each :class:`Directive` says how its key is spelt (the canonical key, other exact spellings
and Google's accepted misspellings), where it belongs (``agent`` lines open groups, ``rule``
and ``member`` lines belong to a group, ``file`` lines to the whole file, ``any`` lines are kept
where they stand), how its value is read (a parser that gives ``None`` for a value it cannot
read, with the words a finding uses), and what it is (its source and what a crawler does with
it). The tokenizer stores a directive's position in :data:`REGISTRY` as its *kind* in the token
stream, so the registry is also the list of kinds: adding a directive is one entry here (plus
its tests), and the tokenizer, the group index, the findings and the linter all follow.

Key matching follows Google's ``robots.cc`` ``ParseKey`` where the dialect is lenient
(``google``, ``rfc9309``): ``user-agent``, ``allow``, ``disallow`` and ``sitemap`` and their
misspellings match as *prefixes* of the key, in that order. Every other key matches exactly,
case-insensitively, with ``_`` and space read as ``-`` (``Crawl_delay``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Literal

from . import _later

if TYPE_CHECKING:
    from ._model import RequestRate, VisitTime

__all__ = [
    "BLANK",
    "KIND_NAMES",
    "REGISTRY",
    "UNKNOWN",
    "Directive",
    "Role",
    "classify_key",
    "key_starts",
    "kind_of",
    "parse_crawl_delay",
    "parse_request_rate",
    "parse_visit_time",
]

Role = Literal["agent", "rule", "sitemap", "member", "file", "any"]

# Crawl-delay, Request-rate and Visit-time values are read once per line, if at all: their
# patterns stay text that re's own cache compiles on first use, which spares `import
# robotrules` about 0.9 ms.
_NUMBER: Final = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"
_RATE: Final = (
    r"(?i)([0-9]+)\s*/\s*([0-9]+(?:\.[0-9]+)?)\s*([smhd]?)(?:\s+([0-9]{2}):?([0-9]{2})\s*-\s*"
    r"([0-9]{2}):?([0-9]{2}))?\s*(?:utc)?"
)
_VISIT: Final = r"(?i)([0-9]{2}):?([0-9]{2})\s*-\s*([0-9]{2}):?([0-9]{2})\s*(?:utc)?"
_UNITS: Final = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
# the bound of a number in an extension value: a finite float (sys.float_info.max is about
# 1.8e308, so an integer of at most 308 digits is one)
_FINITE: Final = float("inf")
_MAX_DIGITS: Final = 308


def parse_crawl_delay(value: str) -> float | None:
    """``Crawl-delay: 2.5``: seconds between requests (a non-negative decimal), or None; None
    too past the largest finite float (309 digits or more): a delay of ``inf`` is no value."""
    if re.fullmatch(_NUMBER, value) is None:
        return None
    seconds = float(value)
    return seconds if seconds < _FINITE else None


def parse_request_rate(value: str) -> RequestRate | None:
    """``Request-rate: 1/5s`` (optionally ``… 0600-0845`` UTC): at most n requests per t, or
    None; None too where n or t (in seconds) is past the largest finite float: n has at most
    308 digits (leading zeros aside), so that reading it never meets CPython's limit on the
    digits of an ``int`` (4,300) and ``t / n`` is a float."""
    m = re.fullmatch(_RATE, value.strip())
    if m is None:
        return None
    digits = m.group(1).lstrip("0")
    if len(digits) > _MAX_DIGITS:
        return None
    requests = int(digits or "0")
    seconds = float(m.group(2)) * _UNITS[m.group(3).lower()]
    if requests <= 0 or not 0 < seconds < _FINITE:
        return None
    return _later.model().RequestRate(requests, seconds)  # type: ignore[no-any-return]


def parse_visit_time(value: str) -> VisitTime | None:
    """``Visit-time: 0600-0845`` (UTC): the window in which visits are welcome."""
    m = re.fullmatch(_VISIT, value.strip())
    if m is None:
        return None
    h1, m1, h2, m2 = (int(g) for g in m.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
        return None
    return _later.model().visit_window(h1, m1, h2, m2)  # type: ignore[no-any-return]


class Directive:
    """One field of the registry (see the module docstring); immutable by convention.

    A plain class, not a dataclass (import cost: :mod:`robotrules._later`); nothing compares,
    copies or prints directives.
    """

    __slots__ = ("expect", "google", "key", "note", "parse", "role", "spellings", "typos")

    def __init__(self, key: str, role: Role, spellings: tuple[str, ...] = (),
                 typos: tuple[str, ...] = (), parse: Callable[[str], object] | None = None,
                 expect: str = "", google: bool = False, note: str = "") -> None:
        self.key: Final = key  # canonical, lower case
        self.role: Final = role
        self.spellings: Final = spellings  # other exact keys (lower case, "-" for "_", " ")
        self.typos: Final = typos  # Google's accepted misspellings (prefixes; lenient dialects)
        self.parse: Final = parse  # the value, or None when unreadable
        self.expect: Final = expect  # what a readable value looks like, for findings
        self.google: Final = google  # Google's parser acts on it (the rest: "unused")
        self.note: Final = note  # what it is, for people (lint's L002 and docs)

    @property
    def name(self) -> str:
        """The key as people write it: ``Crawl-delay``, ``User-agent``."""
        return self.key.capitalize()


#: Every known directive. A directive's position + 1 is its kind in the token stream.
REGISTRY: Final[tuple[Directive, ...]] = (
    Directive("user-agent", "agent", typos=("useragent", "user agent"), google=True,
              note="opens a group (RFC 9309 2.2.1)"),
    Directive("allow", "rule", google=True,
              note="a path the group may crawl (RFC 9309 2.2.2)"),
    Directive("disallow", "rule",
              typos=("dissallow", "dissalow", "disalow", "diasllow", "disallaw"), google=True,
              note="a path the group may not crawl (RFC 9309 2.2.2)"),
    Directive("sitemap", "sitemap", typos=("site-map",), google=True,
              note="a sitemap URL for the whole file (RFC 9309 2.2.4, sitemaps.org)"),
    Directive("crawl-delay", "member", spellings=("crawldelay",), parse=parse_crawl_delay,
              expect="a number of seconds",
              note="seconds between requests (Bing, Yandex; Google ignores it)"),
    Directive("request-rate", "member", spellings=("requestrate",), parse=parse_request_rate,
              expect="'n/t[smhd]'", note="n requests per time (1996 draft extensions)"),
    Directive("visit-time", "member", spellings=("visittime",), parse=parse_visit_time,
              expect="'hhmm-hhmm'", note="a UTC window for visits (1996 draft extensions)"),
    Directive("host", "file", note="the preferred mirror (Yandex)"),
    Directive("clean-param", "file", spellings=("cleanparam",),
              note="query parameters to ignore (Yandex)"),
    Directive("content-usage", "any",
              note="an AI usage preference (draft-ietf-aipref-attach; robotrules.aipref): a "
              "rule of its group; Google ignores it"),
    Directive("content-signal", "any",
              note="Cloudflare's content signals (robotrules.aipref); Google ignores it"),
    Directive("llm-policy", "any", note="a pointer to an LLM policy (crawler-commons)"),
    Directive("license", "any", note="an RSL licence URL (Really Simple Licensing)"),
    Directive("tdm-reservation", "any", note="a TDM reservation line (not TDMRep's form)"),
    Directive("ai-policy", "any", note="an informal AI policy line"),
    Directive("disallow-ai-training", "any", note="an informal AI opt-out line"),
    Directive("noindex", "any", note="unsupported by Google since 2019"),
    Directive("nofollow", "any", note="a meta-robots value, not a robots.txt field"),
    Directive("noarchive", "any", note="a meta-robots value, not a robots.txt field"),
    Directive("revisit-after", "any", note="a meta tag, not a robots.txt field"),
    Directive("domain", "any", note="not a robots.txt field"),
    Directive("comment", "any", note="a comment field (1996 draft)"),
    Directive("robot-version", "any", note="a version field (1996 draft)"),
)

UNKNOWN: Final = 126  # a key no directive has
BLANK: Final = 127  # an empty line (1994 dialect: ends a record)

#: kind -> canonical key, for every known directive
KIND_NAMES: Final[dict[int, str]] = {n + 1: d.key for n, d in enumerate(REGISTRY)}
_BY_KIND: Final[dict[int, Directive]] = {n + 1: d for n, d in enumerate(REGISTRY)}
_EXACT: Final[dict[str, int]] = {
    name: n + 1 for n, d in enumerate(REGISTRY) for name in (d.key, *d.spellings)}
# Google's directives match exactly or by its prefix rule only; extensions also with "_" or a
# space for "-" (Crawl_delay), which robots.cc does not do for its own keys (user_agent).
_CORE: Final[dict[str, int]] = {d.key: n + 1 for n, d in enumerate(REGISTRY) if d.google}
_EXTENSION: Final[dict[str, int]] = {
    name: kind for name, kind in _EXACT.items() if kind not in _CORE.values()}
# Google's prefix rule, in robots.cc's order: (prefixes, kind, intended spelling)
_PREFIXED: Final[tuple[tuple[tuple[str, ...], int, str], ...]] = tuple(
    ((d.key, *d.typos), n + 1, d.name) for n, d in enumerate(REGISTRY) if d.google)


def kind_of(key: str) -> int:
    """The stream kind of a registry key (``kind_of("crawl-delay")``)."""
    return _EXACT[key]


def directive(kind: int) -> Directive | None:
    """The registry entry of a stream kind (None for UNKNOWN and BLANK)."""
    return _BY_KIND.get(kind)


def key_starts() -> frozenset[str]:
    """The first two characters (lower-cased) of every field name :func:`classify_key` can
    read as a directive, in either mode; a name that starts otherwise is ``UNKNOWN``. The
    native tokenizer answers such names (HTML and CSS served as robots.txt) without asking."""
    heads: set[str] = set()
    for name in (*_CORE, *(p for ps, _, _ in _PREFIXED for p in ps), *_EXTENSION):
        head = name[:2]
        heads.update((head, head.replace("-", "_"), head.replace("-", " ")))
    return frozenset(heads)


def key_forms() -> tuple[frozenset[str], tuple[str, ...]]:
    """What a field name that :func:`classify_key` reads as a directive is, lower-cased: one
    of the names (with "-" for each "_" and " ", as extensions are read), or, read leniently,
    a name starting with one of the prefixes (Google's rule). A name that is neither is
    UNKNOWN: the native tokenizer answers such names (markup and scripts served as
    robots.txt) without asking."""
    names = frozenset({*_CORE, *_EXTENSION})
    prefixes = tuple(dict.fromkeys(p for ps, _, _ in _PREFIXED for p in ps))
    return names, prefixes


def classify_key(key: str, lenient: bool) -> tuple[int, str | None]:
    """Stream kind of a field name and, when it was read leniently, the intended name.

    ``lenient``: Google's prefix and misspelling rule (robots.cc ``ParseKey``), used by the
    ``google`` and ``rfc9309`` dialects; the 1994 dialect reads exact keys only.
    """
    k = key.lower()
    kind = _CORE.get(k)
    if kind is not None:
        return kind, None
    if lenient:
        for prefixes, pkind, name in _PREFIXED:
            if k.startswith(prefixes):
                # Google's order: "Disallow-ai-training" is a Disallow line to robots.cc
                return pkind, name
    kind = _EXTENSION.get(k.replace("_", "-").replace(" ", "-"))
    return (kind, None) if kind is not None else (UNKNOWN, None)
