"""The dialects: one spec object each, the only place where rfc9309, google and 1994 differ.

==============  =========================  ===========================  =====================
aspect          google                     rfc9309 (default)            1994
==============  =========================  ===========================  =====================
keys            prefixes and misspellings  same                         exact keys only
                (robots.cc ParseKey)
missing colon   ``key value`` read         same                         ignored
groups          UA lines after a rule      same; Content-Usage is a     blank line or UA after
                start a new group          rule too (attach-05)         a rule ends a record
agent tokens    ``[A-Za-z_-]*`` of the     letters, digits, ``_``,      the value as written
                value                      ``.`` and ``-`` (2.2.4)
agent match     token equality, case-      same                         name token is a case-
                insensitive; merge all                                  insensitive substring;
                                                                        first record wins
precedence      longest pattern, allow     same                         first match in file
                wins ties                                               order
wildcards       ``*`` and final ``$``      same; ``%2A``/``%24`` are    none (plain prefix)
                                           literal ``*``/``$`` (2.2.3)
URL             as given                   percent-normalised (2.2.2)   ``%xx`` decoded except
                                                                        ``%2F`` (1996 3.2.2)
/robots.txt     a path like any other      always allowed (2.2.2)       like any other
==============  =========================  ===========================  =====================

Each difference is documented with its source in docs/dialects.md. Adding a dialect is one
new :class:`DialectSpec` in :data:`SPECS` (and its name in ``robotrules.Dialect``) plus tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, get_args

from . import _directives as D
from ._model import Dialect
from ._url import (
    google_escape,
    legacy_normalize,
    path_of,
    pattern_text,
    rfc_normalize_pattern,
    rfc_path,
)

__all__ = ["NAMES", "SPECS", "DialectSpec", "spec"]


@dataclass(frozen=True, slots=True)
class DialectSpec:
    """How one dialect reads a file and answers a query (see the module table)."""

    name: Dialect
    lenient_keys: bool  # Google's key prefixes, misspellings and missing-colon lines
    blank_ends_group: bool  # 1994: a blank line ends a record
    token_agents: bool  # agents match by product token (else: 1994 substring, first record)
    first_match: bool  # precedence: the first matching rule in file order (else: longest)
    wildcards: bool  # "*" and a final "$" are special in patterns
    robots_txt_allowed: bool  # /robots.txt is always allowed (RFC 9309 2.2.2)
    path: Callable[[str], str]  # URL -> the path as matched
    pattern: Callable[[str], str]  # a rule's raw value -> the pattern as matched
    # a character that keeps a raw value from being used as it is, as a plain prefix
    not_plain: Callable[[str], re.Match[str] | None]
    ends_agents: frozenset[int]  # stream kinds that end a run of user-agent lines


def _ends(name: Dialect) -> frozenset[int]:
    return frozenset(n + 1 for n, d in enumerate(D.REGISTRY) if name in d.ends_agents)


def _legacy_path(url: str) -> str:
    return legacy_normalize(path_of(url))


def _legacy_pattern(raw: str) -> str:
    return legacy_normalize(pattern_text(raw))


def _rfc_pattern(raw: str) -> str:
    return rfc_normalize_pattern(pattern_text(raw))


SPECS: Final[dict[Dialect, DialectSpec]] = {
    "rfc9309": DialectSpec(
        "rfc9309", lenient_keys=True, blank_ends_group=False, token_agents=True,
        first_match=False, wildcards=True, robots_txt_allowed=True, path=rfc_path,
        pattern=_rfc_pattern,
        not_plain=re.compile(r"[^A-Za-z0-9\-._~:/?\[\]@!&'()+,;=]").search,
        ends_agents=_ends("rfc9309")),
    "google": DialectSpec(
        "google", lenient_keys=True, blank_ends_group=False, token_agents=True,
        first_match=False, wildcards=True, robots_txt_allowed=False, path=path_of,
        pattern=google_escape, not_plain=re.compile(r"[*$%\x80-\xff]").search,
        ends_agents=_ends("google")),
    "1994": DialectSpec(
        "1994", lenient_keys=False, blank_ends_group=True, token_agents=False,
        first_match=True, wildcards=False, robots_txt_allowed=False, path=_legacy_path,
        pattern=_legacy_pattern, not_plain=re.compile(r"[%\x80-\xff]").search,
        ends_agents=_ends("1994")),
}

#: The dialect names, in the order tools list them (the default first).
NAMES: Final[tuple[Dialect, ...]] = tuple(SPECS)
assert set(NAMES) == set(get_args(Dialect)), "every Dialect has a spec"


def spec(name: str) -> DialectSpec:
    """The spec of dialect ``name``; ValueError naming the choices for anything else."""
    for known, found in SPECS.items():
        if known == name:
            return found
    raise ValueError(f"unknown dialect {name!r}; choose one of {', '.join(NAMES)}")
