"""Lint's checks over the groups and their rules (REFERENCE.md section 4).

Per product token, the merged rules (RFC 9309 2.2.1) are compared pairwise to find rules that
can never decide (L011, L012; :func:`robotrules._patterns.deciders`); then the group structure:
split groups (L013), named groups that drop the ``*`` rules (L014); and what the rules do:
redundant stars (L010), blocking everything (L022), stylesheets and scripts (L023), prefix
traps (L024), the implicit ``/robots.txt`` allow (L025), case variants (L026), paths worth not
advertising (L027), huge crawl-delays (L028). Patterns and precedence are read by the matching
layer (:mod:`robotrules._patterns`), how a dialect differs by its spec
(:mod:`robotrules._dialects`), agent names by :mod:`robotrules._token`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Final, TypeAlias

from .._dialects import SPECS
from .._findings import finding
from .._patterns import access_of, deciders, matches, redundant_stars
from .._token import GLOBAL, ascii_lower
from .._url import ROBOTS_TXT_PATH

if TYPE_CHECKING:
    from .._model import Finding, Group, Rule
    from .._parsed import ParsedFile
    from .._types import Dialect

__all__ = ["HUGE_CRAWL_DELAY", "semantic"]

# Nutch and StormCrawler skip hosts above 30 s; crawler-commons: above 300 s
HUGE_CRAWL_DELAY: Final = 30.0
_SEARCH_TOKENS: Final = frozenset({"*", "googlebot", "bingbot", "msnbot", "yandex", "yandexbot"})
# Patterns as text: re's own cache compiles each on first use, so that `import robotrules`
# (which binds lint()) does not pay about 1 ms compiling them.
_ASSET: Final = r"(?i)\.(css|js|mjs)(?:$|[$*?])"
_SENSITIVE: Final = (
    r"(?i)(?:^|/)(?:\.git|\.env|\.svn|backups?|bak|dump|sql|db|database|config|"
    r"private|secret|secrets|staging|passwords?|credentials|phpmyadmin|admin)(?:/|$|\.|\*)"
)
_NOT_SENSITIVE: Final = ("/wp-admin/",)  # the WordPress default: public knowledge, nothing to leak
_NOT_A_WORD: Final = frozenset(".?=*$&%")  # a last segment with one of these is no L024 trap


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled on first use, then kept: one look-up per rule, not re's cache."""
    return re.compile(pattern)


# -- groups -------------------------------------------------------------------------------


# (aliases as text: the model stays off the import path)
Merged: TypeAlias = "dict[str, tuple[list[Group], list[Rule]]]"


def _merged(groups: Sequence[Group], dialect: Dialect) -> Merged:
    """Per token (ASCII lower case, as queries find groups, ``_token.agent_key``): the groups
    naming it and the rules that apply: of all of them where the dialect merges groups (RFC
    9309 2.2.1), else of the first (the 1994 standard: the first record applies)."""
    merge = SPECS[dialect].merge_groups
    out: dict[str, tuple[list[Group], list[Rule]]] = {}
    for g in groups:
        for tok in dict.fromkeys(ascii_lower(t) for t in g.tokens if t):
            named, rules = out.setdefault(tok, ([], []))
            if named and not merge:
                named.append(g)
                continue
            named.append(g)
            rules.extend(g.rules)
    for _, rules in out.values():
        rules.sort(key=lambda r: r.line)
    return out


def _column(rules: ParsedFile, rule: Rule) -> int:
    """Where the rule's value starts on its line, as the parser read it."""
    return rules.value_column(rule.line)


def _spellings(groups: Sequence[Group]) -> dict[str, str]:
    """Per lower-cased token, how the file first wrote it (its first group's first spelling):
    read once per lint, so that naming a token costs a look-up, not a walk over its group's
    agents (a group of thousands of agents named each of them that way: quadratic)."""
    out: dict[str, str] = {}
    for g in groups:
        for t in g.tokens:
            if t:
                out.setdefault(ascii_lower(t), t)
    return out


def _label(tok: str, spellings: Mapping[str, str]) -> str:
    """How a lower-cased token was written in the file, for messages."""
    if tok == GLOBAL:
        return "every crawler (*)"
    return spellings.get(tok, tok)


def semantic(rules: ParsedFile) -> Iterator[Finding]:
    dialect = rules.dialect
    merged = _merged(rules.groups, dialect)
    names = _spellings(rules.groups)
    dead = _deciders(merged, dialect)
    yield from _stars(rules)
    yield from _split(merged, names, dialect)
    for tok, (_, group_rules) in merged.items():
        yield from _dead(rules, _label(tok, names), dead[tok], dialect)
        yield from _case_variants(rules, group_rules)
    yield from _drops_star(merged, names, dead, dialect)
    yield from _blocks(rules, merged, names, dead, dialect)
    yield from _per_rule(rules)
    yield from _crawl_delay(rules)


def _deciders(merged: Merged, dialect: Dialect) -> dict[str, Dead]:
    """:func:`robotrules._patterns.deciders` per token, compared once per set of merged rules:
    the tokens of one group (``User-agent: a`` / ``User-agent: b``) share their rules, and a
    rule is its line (the rules of a file have distinct lines)."""
    by_rules: dict[tuple[int, ...], Dead] = {}
    out: dict[str, Dead] = {}
    for tok, (_, group_rules) in merged.items():
        key = tuple(r.line for r in group_rules)
        found = by_rules.get(key)
        if found is None:
            found = by_rules[key] = deciders(group_rules, dialect)
        out[tok] = found
    return out


def _all_rules(rules: ParsedFile) -> Iterator[Rule]:
    seen: set[int] = set()
    for g in rules.groups:
        for r in g.rules:
            if r.line not in seen:
                seen.add(r.line)
                yield r


def _stars(rules: ParsedFile) -> Iterator[Finding]:
    """L010: stars the matcher drops: ``**`` and a trailing ``*`` (``/dir/*`` matches what
    ``/dir/`` matches; in a dialect without wildcards a ``*`` is a character)."""
    for r in _all_rules(rules):
        p = r.pattern
        dropped = redundant_stars(p, rules.dialect) if p else None
        if dropped is None:
            continue
        how, fixed = dropped
        if how == "consecutive":
            yield finding("L010", r.line, _column(rules, r),
                        f"'{p}': consecutive * match the same as one",
                        f"{r.directive.capitalize()}: {fixed}")
        else:
            yield finding(
                "L010", r.line, _column(rules, r),
                f"'{p}': a trailing * is implied; it matches the same paths as '{fixed}' "
                "(it only adds one to the rule's length in precedence)",
                f"{r.directive.capitalize()}: {fixed}",
            )


def _split(merged: Merged, names: Mapping[str, str], dialect: Dialect) -> Iterator[Finding]:
    """L013: the same token in several groups: merged (RFC 9309 2.2.1), or ignored where the
    dialect does not merge groups (1994)."""
    merge = SPECS[dialect].merge_groups
    for tok, (named, _) in merged.items():
        if len(named) < 2:
            continue
        first = named[0]
        for g in named[1:]:
            if not merge:
                yield finding(
                    "L013", g.line, 1,
                    f"user-agent {_label(tok, names)} already has a group at line {first.line}; "
                    "crawlers of the 1994 standard obey only the first one, so this group is "
                    "ignored",
                    f"move these rules into the group at line {first.line}",
                    severity="warning",
                )
            else:
                yield finding(
                    "L013", g.line, 1,
                    f"user-agent {_label(tok, names)} also has a group at line {first.line}; "
                    "the groups are merged (RFC 9309 2.2.1), but older parsers use only the first",
                    f"move these rules into the group at line {first.line}",
                )


Dead: TypeAlias = "dict[int, tuple[Rule, Rule]]"


def _dead(rules: ParsedFile, tok: str, dead: Dead, dialect: Dialect) -> Iterator[Finding]:
    """L011 / L012: rules that can never decide for ``tok``."""
    for rule, winner in dead.values():
        col = _column(rules, rule)
        scope = "" if tok.endswith("(*)") else f" for {tok}"
        if winner.pattern == rule.pattern and winner.directive == rule.directive:
            yield finding("L011", rule.line, col,
                        f"duplicate of line {winner.line}{scope}: '{rule}'", "delete this line")
        elif winner.pattern == rule.pattern:
            yield finding(
                "L012", rule.line, col,
                f"'{rule}' and line {winner.line} '{winner}' have the same pattern{scope}; "
                "allow wins (RFC 9309 2.2.2), so this line never decides",
                "delete one of the two lines",
            )
        elif winner.directive == rule.directive:
            continue  # same verdict either way: redundant, not wrong
        else:
            why = ("comes first (1994: first match wins)" if SPECS[dialect].first_match
                   else "matches every path it matches and is at least as long")
            yield finding(
                "L011", rule.line, col,
                f"'{rule}' never decides{scope}: line {winner.line} '{winner}' {why} "
                "(RFC 9309 2.2.2: most specific match wins)",
                f"delete this line, or make it longer than '{winner.pattern}'",
            )


def _case_variants(rules: ParsedFile, group_rules: list[Rule]) -> Iterator[Finding]:
    """L026: two rules whose patterns differ only in case (paths are case-sensitive)."""
    seen: dict[str, Rule] = {}
    for r in group_rules:
        if not r.pattern:
            continue
        key = r.pattern.lower()
        first = seen.setdefault(key, r)
        if first is not r and first.pattern != r.pattern:
            yield finding(
                "L026", r.line, _column(rules, r),
                f"'{r.pattern}' and '{first.pattern}' (line {first.line}) differ only in case; "
                "paths match case-sensitively (RFC 9309 2.2.2), so they are two rules",
            )


def _drops_star(merged: Merged, names: Mapping[str, str], dead: dict[str, Dead],
                dialect: Dialect) -> Iterator[Finding]:
    """L014: a named group exists, so the ``*`` rules do not apply to that crawler."""
    star = merged.get("*")
    if star is None:
        return
    star_disallows = [r for r in star[1] if not r.allow and r.pattern]
    if not star_disallows:
        return
    for tok, (named, group_rules) in merged.items():
        if tok == "*":
            continue
        if access_of(group_rules, dialect, dead[tok])[0] == "blocked":
            continue
        own = {(r.directive, r.pattern) for r in group_rules}
        missing = [r for r in star_disallows if (r.directive, r.pattern) not in own]
        if not missing:
            continue
        example = missing[0]
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        yield finding(
            "L014", named[0].line, 1,
            f"{_label(tok, names)} has its own group, so the * group does not apply to it "
            f"(RFC 9309 2.2.1): '{example}' (line {example.line}){more} do not apply to "
            f"{_label(tok, names)}",
            "repeat the * rules in this group if they should apply to it too",
        )


def _blocks(rules: ParsedFile, merged: Merged, names: Mapping[str, str], dead: dict[str, Dead],
            dialect: Dialect) -> Iterator[Finding]:
    """L022 (everything blocked for *) and L023 (CSS/JS blocked for search engines)."""
    star = merged.get("*")
    if star is not None:
        state, rule = access_of(star[1], dialect, dead["*"])
        if state == "blocked" and rule is not None:
            yield finding(
                "L022", rule.line, _column(rules, rule),
                f"'{rule}' for every crawler (*) blocks the whole site, search engines included "
                "(often left over from a staging site)",
                "delete it, or name the crawlers to block",
            )
    asset = _regex(_ASSET).search
    for tok, (_, group_rules) in merged.items():
        if tok not in _SEARCH_TOKENS:
            continue
        if access_of(group_rules, dialect, dead[tok])[0] == "blocked":
            continue
        dead_lines = {rule.line for rule, _ in dead[tok].values()}
        for r in group_rules:
            if r.allow or not r.pattern or r.line in dead_lines or not asset(r.pattern):
                continue
            yield finding(
                "L023", r.line, _column(rules, r),
                f"'{r}' blocks stylesheets or scripts for {_label(tok, names)}; search engines "
                "need them to render pages and may rank them lower",
                f"delete it, or add 'Allow: {r.pattern}' in a group for Googlebot",
            )


def _per_rule(rules: ParsedFile) -> Iterator[Finding]:
    """L024, L025, L027: one rule at a time (L024 once per file, it is advice on a habit)."""
    traps: list[Rule] = []
    sensitive = _regex(_SENSITIVE).search
    for r in _all_rules(rules):
        p = r.pattern
        if r.allow or not p:
            continue
        if "robots" in p.lower() and matches(p, ROBOTS_TXT_PATH, rules.dialect):
            yield finding(
                "L025", r.line, _column(rules, r),
                f"'{r}' matches /robots.txt, which is always allowed (RFC 9309 2.2.2)",
                "delete this line",
            )
        last = p.rsplit("/", 1)[-1]
        if (p.startswith("/") and len(p) > 1 and last and last[-1].isalnum()
                and _NOT_A_WORD.isdisjoint(last)):
            traps.append(r)
        if sensitive(p) and not p.startswith(_NOT_SENSITIVE):
            yield finding(
                "L027", r.line, _column(rules, r),
                f"'{p}' is listed publicly: robots.txt tells everyone where it is, and it keeps "
                "no one out (RFC 9309 3)",
                "protect the path with authentication instead",
            )
    if traps:
        r = traps[0]
        p = r.pattern
        more = ""
        if len(traps) > 1:
            lines = ", ".join(str(t.line) for t in traps[1:6]) + (", ..." if len(traps) > 6 else "")
            more = f" ({len(traps) - 1} more rules like it: lines {lines})"
        yield finding(
            "L024", r.line, _column(rules, r),
            f"'{p}' is a prefix: it also blocks '{p}-old', '{p}ping' and '{p}.html'{more}",
            f"use '{p}/' for the directory only, or '{p}$' for that path only",
        )


def _crawl_delay(rules: ParsedFile) -> Iterator[Finding]:
    """L028: huge crawl-delays (non-numbers come from the parser)."""
    for g in rules.groups:
        if g.crawl_delay is None or g.crawl_delay <= HUGE_CRAWL_DELAY:
            continue
        # a record's key is its directive's canonical key (the index names every member)
        line = next((r.line for r in g.records if r.key == "crawl-delay"), g.line)
        yield finding(
            "L028", line, 1,
            f"crawl-delay {g.crawl_delay:g} s is huge (at most {86400 / g.crawl_delay:.0f} "
            "pages a day); many crawlers skip hosts above 30 s "
            "(Nutch, StormCrawler) or treat above 300 s as disallow all (crawler-commons)",
            "use at most 10",
            severity="warning",  # it works, slowly: an unreadable value is the error
        )
