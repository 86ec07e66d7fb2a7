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
from typing import Final, get_args

from ._directives import kind_of
from ._types import Dialect
from ._url import (
    ROBOTS_TXT_PATH,
    google_escape,
    legacy_normalize,
    path_of,
    pattern_text,
    rfc_normalize_pattern,
    rfc_path,
)

__all__ = ["NAMES", "SPECS", "DialectSpec", "spec"]


class DialectSpec:
    """How one dialect reads a file and answers a query (see the module table); immutable by
    convention. A plain class, not a dataclass (import cost: :mod:`robotrules._later`), and
    nothing compares, copies or prints specs."""

    __slots__ = ("agent_token", "blank_ends_group", "ends_agents", "first_match",
                 "lenient_keys", "merge_groups", "name", "not_plain", "path", "pattern",
                 "robots_txt_allowed", "token_agents", "wildcards")

    def __init__(self, name: Dialect, *, lenient_keys: bool, blank_ends_group: bool,
                 token_agents: bool, merge_groups: bool, first_match: bool, wildcards: bool,
                 robots_txt_allowed: bool, path: Callable[[str], str],
                 pattern: Callable[[str], str],
                 not_plain: Callable[[str], re.Match[str] | None],
                 ends_agents: tuple[str, ...], agent_token: str) -> None:
        self.name: Final = name
        # Google's key prefixes, misspellings and missing-colon lines
        self.lenient_keys: Final = lenient_keys
        self.blank_ends_group: Final = blank_ends_group  # 1994: a blank line ends a record
        # agents match by product token (else: 1994 substring, first record)
        self.token_agents: Final = token_agents
        # the groups naming one agent are merged (RFC 9309 2.2.1; else the first one applies)
        self.merge_groups: Final = merge_groups
        # precedence: the first matching rule in file order (else: longest)
        self.first_match: Final = first_match
        self.wildcards: Final = wildcards  # "*" and a final "$" are special in patterns
        # /robots.txt is always allowed (RFC 9309 2.2.2)
        self.robots_txt_allowed: Final = robots_txt_allowed
        self.path: Final = path  # URL -> the path as matched
        self.pattern: Final = pattern  # a rule's raw value -> the pattern as matched
        # a character that keeps a raw value from being used as it is, as a plain prefix
        self.not_plain: Final = not_plain
        # stream kinds that end a run of user-agent lines (given as registry keys)
        self.ends_agents: Final = frozenset(map(kind_of, ends_agents))
        # the characters a User-agent value's token runs over, from its start (_token.line_token)
        self.agent_token: Final = re.compile(f"[{agent_token}]*")

    def implicitly_allowed(self, path: str) -> bool:
        """Whether ``path`` (a URL's path as :attr:`path` reads it) is the robots.txt itself
        and the dialect always allows it (RFC 9309 2.2.2: "The /robots.txt URI is implicitly
        allowed"; Google's matcher and 1994 read its rules like any other path's)."""
        return self.robots_txt_allowed and path == ROBOTS_TXT_PATH


def _legacy_path(url: str) -> str:
    return legacy_normalize(path_of(url))


def _legacy_pattern(raw: str) -> str:
    return legacy_normalize(pattern_text(raw))


def _rfc_pattern(raw: str) -> str:
    return rfc_normalize_pattern(pattern_text(raw))


def _legacy_not_plain(raw: str) -> re.Match[str] | None:
    # text that re's own cache compiles on first use: only 1994 files ask (the native
    # kernels read the other two dialects' at import)
    return re.search(r"[%\x80-\xff]", raw)


# A User-agent value's token: Google keeps the leading run of [A-Za-z_-] (robots.cc
# ExtractUserAgent); rfc9309 and 1994 also keep digits and dots inside it (RFC 9309 2.2.4
# leniency: MJ12bot, 360Spider, archive.org_bot are real crawlers).
_GOOGLE_TOKEN: Final = "A-Za-z_-"
_LENIENT_TOKEN: Final = "A-Za-z0-9_.-"

SPECS: Final[dict[Dialect, DialectSpec]] = {
    "rfc9309": DialectSpec(
        "rfc9309", lenient_keys=True, blank_ends_group=False, token_agents=True, merge_groups=True,
        first_match=False, wildcards=True, robots_txt_allowed=True, path=rfc_path,
        pattern=_rfc_pattern,
        not_plain=re.compile(r"[^A-Za-z0-9\-._~:/?\[\]@!&'()+,;=]").search,
        # attach-05: a Content-Usage line is a rule of its group, so it ends the agents too
        ends_agents=("allow", "disallow", "content-usage"), agent_token=_LENIENT_TOKEN),
    "google": DialectSpec(
        "google", lenient_keys=True, blank_ends_group=False, token_agents=True, merge_groups=True,
        first_match=False, wildcards=True, robots_txt_allowed=False, path=path_of,
        pattern=google_escape, not_plain=re.compile(r"[*$%\x80-\xff]").search,
        ends_agents=("allow", "disallow"), agent_token=_GOOGLE_TOKEN),
    "1994": DialectSpec(
        "1994", lenient_keys=False, blank_ends_group=True, token_agents=False, merge_groups=False,
        first_match=True, wildcards=False, robots_txt_allowed=False, path=_legacy_path,
        pattern=_legacy_pattern, not_plain=_legacy_not_plain,
        ends_agents=("allow", "disallow"), agent_token=_LENIENT_TOKEN),
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
