"""The pattern algebra: what rules imply about each other, read the way the matcher reads them.

The matcher (:mod:`robotrules._match`) answers questions about one path. The analyses (lint,
the registry's :func:`robotrules.agents.assess`, the census) ask questions about patterns:
does rule ``S`` match every path rule ``R`` matches (:func:`covers`), which of two rules wins
wherever both match (:func:`beats`), which rules of a group can never decide
(:func:`deciders`), does a group block everything (:func:`access_of`), which stars of a
pattern change nothing (:func:`redundant_stars`). They live here, in the matching layer, so
that no analysis reads pattern syntax or precedence on its own:

- a pattern is read by :func:`robotrules._compile.new_pattern`, the matcher's own reading (the
  dialect's normaliser, then :class:`robotrules._match.Pattern`: its kind, literal prefix,
  segments and anchor, with ``**`` one ``*`` and a trailing ``*`` dropped; in a dialect
  without wildcards, a literal prefix);
- precedence is the matcher's entry key (:func:`rank`): ``_match.rank_base`` of the priority
  and verdict plus the rule's position, or the position alone where the dialect decides by
  first match (``DialectSpec.first_match``), as :mod:`robotrules._compile` builds its entries.

Pattern inclusion is decided on the patterns alone: with a pattern's *word* its literal
segments joined by a star symbol, plus a tail star unless it is anchored, ``S`` covers ``R``
exactly when the glob word of ``S`` matches the word of ``R`` in which each star is a symbol
that only a star of ``S`` can absorb. This is an ``O(len(S) * len(R))`` table. Candidate pairs
are found through the literal prefix: ``S`` can only cover ``R`` when ``S``'s prefix is a prefix
of ``R``'s, so a group of ``n`` rules costs about ``n * prefix length`` look-ups rather than
``n**2`` comparisons.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Final, Literal

from ._compile import new_pattern
from ._dialects import SPECS
from ._match import EXACT, PREFIX, STAR, Pattern, pattern_matches, rank_base
from ._memo import TextMemo

if TYPE_CHECKING:
    from ._model import Rule
    from ._types import Dialect

__all__ = ["Access", "access_of", "beats", "covers", "deciders", "matches", "pattern_of",
           "rank", "reading_patterns", "redundant_stars"]

Access = Literal["blocked", "partial", "allowed"]
_STAR: Final = "\x00"  # a pattern's ``*`` as a symbol in the inclusion table
# How many rules that might shadow a rule are compared with it: the comparison is pairwise, so
# a file of 38,000 wildcard rules sharing one literal prefix would cost 38,000² inclusion
# tests; past the cap a rule's shadowing goes unreported (the analyses stay linear).
_CANDIDATES: Final = 64
_COVERS_WORK: Final = 250_000  # cells of the inclusion table at most (two 500-char patterns)


def pattern_of(pattern: str, dialect: Dialect) -> Pattern:
    """A rule's pattern (as displayed, :attr:`Rule.pattern`) as its matcher reads it.

    Kept for the analysis under way (:func:`reading_patterns`: each of the file's patterns is
    read once for the call, and dropped with it), else in a process-wide memo of short
    patterns within a byte budget (:data:`PATTERNS`)."""
    scope = _SCOPE.get()
    if scope is None:
        return PATTERNS(pattern, dialect)
    key = (pattern, dialect)
    p = scope.get(key)
    if p is None:
        p = scope[key] = _read_pattern(pattern, dialect)
    return p


def _read_pattern(pattern: str, dialect: str) -> Pattern:
    raw = pattern.encode("utf-8", "surrogatepass").decode("latin-1")  # back to the file's octets
    return new_pattern(raw, dialect, False)


#: The patterns read outside an analysis (:func:`pattern_of`): up to 256 characters, at most
#: 256 KiB of them (a pattern and its key keep about 450 bytes plus 4 per character).
PATTERNS: Final = TextMemo(_read_pattern, budget=256 << 10, max_text=256, entry_bytes=448,
                           char_bytes=4)
_SCOPE: Final[ContextVar[dict[tuple[str, str], Pattern] | None]] = ContextVar(
    "robotrules_patterns", default=None)


@contextmanager
def reading_patterns() -> Iterator[None]:
    """Within it (in this thread or task), :func:`pattern_of` keeps every pattern it reads
    until the outermost ``with`` ends: an analysis that reads each rule's pattern several
    times (lint) reads it once, and what it keeps is bounded by the file, not the process."""
    token = _SCOPE.set({}) if _SCOPE.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _SCOPE.reset(token)


def rank(rule: Rule, dialect: Dialect) -> int:
    """The rule's key in its group's matcher: the smaller key wins wherever both match.

    Where the dialect decides by the first match in file order (``first_match``, the 1996
    draft 3.2.2), the rule's position; else ``_match.rank_base`` of its priority and verdict
    plus its position (RFC 9309 2.2.2: the longest match, allow on a tie; Google's first
    line among equals), as :func:`robotrules._compile.compile_groups` keys its entries.
    """
    if SPECS[dialect].first_match:
        return rule.line
    return rank_base(pattern_of(rule.pattern, dialect).priority, rule.allow) + rule.line


def beats(winner: Rule, loser: Rule, dialect: Dialect) -> bool:
    """Whether ``winner`` wins against ``loser`` wherever both match."""
    return rank(winner, dialect) < rank(loser, dialect)


def matches(pattern: str, path: str, dialect: Dialect = "rfc9309") -> bool:
    """Whether ``pattern`` matches the URL path ``path``: the core's matcher and normalisers."""
    if not pattern:
        return False
    return pattern_matches(pattern_of(pattern, dialect), SPECS[dialect].path(path))


def _parts(p: Pattern) -> tuple[str, ...]:
    """The literal segments between the pattern's stars, in order."""
    if p.kind == STAR:
        return (p.prefix, p.suffix)
    if p.kind > STAR:
        return p.segments
    return (p.prefix,)


Shape = tuple[tuple[str, ...], str]  # a pattern's literal parts and its word


def _shape(p: Pattern) -> Shape:
    """The pattern's literal parts (:func:`_parts`) and its word of the inclusion table: a
    star a symbol, a tail star unless anchored."""
    parts = _parts(p)
    word = _STAR.join(parts)
    return parts, (word if p.anchored else word + _STAR)


def _covers(general: Pattern, specific: Pattern, general_shape: Shape | None = None,
            specific_shape: Shape | None = None) -> bool:
    """Whether ``general`` matches every path ``specific`` matches; the shapes
    (:func:`_shape`), when the caller keeps them, spare reading the patterns again."""
    if general.kind == EXACT:
        return specific.kind == EXACT and specific.prefix == general.prefix
    if general.kind == PREFIX:
        return specific.prefix.startswith(general.prefix)
    parts, s = general_shape or _shape(general)
    r = (specific_shape or _shape(specific))[1]
    for seg in parts:
        if seg not in r:
            return False  # a literal part of the general pattern that the specific one lacks
    if len(s) * len(r) > _COVERS_WORK:
        return False  # too costly to prove: say nothing rather than stall (analyses advise)
    # reach[j]: s[:i] can match r[:j]
    reach = [True] + [False] * len(r)
    for ch in s:
        if ch == _STAR:
            seen = False
            for j in range(len(r) + 1):
                seen = seen or reach[j]
                reach[j] = seen
        else:
            nxt = [False] * (len(r) + 1)
            for j in range(len(r)):
                if reach[j] and r[j] == ch:
                    nxt[j + 1] = True
            reach = nxt
            if not any(reach):
                return False
    return reach[len(r)]


def covers(general: str, specific: str, dialect: Dialect = "rfc9309") -> bool:
    """Whether pattern ``general`` matches every path that pattern ``specific`` matches."""
    return _covers(pattern_of(general, dialect), pattern_of(specific, dialect))


def redundant_stars(pattern: str, dialect: Dialect
                    ) -> tuple[Literal["consecutive", "trailing"], str] | None:
    """The stars of ``pattern`` that its matcher drops, if any: ``("consecutive", the pattern
    with each run of stars one star)`` or ``("trailing", the pattern without its trailing
    stars)``; None when the matcher keeps every star (always, in a dialect without
    wildcards) or when dropping them would leave no pattern (``*`` means every path)."""
    p = pattern_of(pattern, dialect)
    stars = 0 if p.kind < STAR else len(_parts(p)) - 1
    # (the normalisers leave stars where they are; a literal pattern's stars are in its prefix)
    if stars == pattern.count("*") - p.prefix.count("*"):
        return None  # the matcher keeps every star it reads
    if "**" in pattern:
        return "consecutive", re.sub(r"\*{2,}", "*", pattern)
    fixed = pattern.removesuffix("$").rstrip("*")
    return ("trailing", fixed) if fixed else None


def _equals(rules: Sequence[Rule], dialect: Dialect
            ) -> tuple[dict[int, tuple[Rule, Rule]], list[int]]:
    """The first pass of :func:`deciders`: among rules with the same pattern the winner beats
    the others everywhere. ``(the others, as deciders reports them; the winners' indices in
    order)``."""
    dead: dict[int, tuple[Rule, Rule]] = {}
    best: dict[str, int] = {}  # pattern -> index of the rule that wins among its equals
    for i, r in enumerate(rules):
        if not r.pattern:
            continue
        j = best.get(r.pattern)
        if j is None:
            best[r.pattern] = i
        elif beats(r, rules[j], dialect):
            dead[j] = (rules[j], r)
            best[r.pattern] = i
        else:
            dead[i] = (r, rules[j])
    return dead, sorted(best.values())


def deciders(rules: Sequence[Rule], dialect: Dialect) -> dict[int, tuple[Rule, Rule]]:
    """For each rule of ``rules`` (one agent's merged rules) that can never decide, by index:
    ``(rule, the rule that always beats it)``.

    Rules with the same pattern are settled first, in one pass (the winner among them beats
    the others everywhere); then each remaining rule is compared with at most
    ``_CANDIDATES`` rules whose literal prefix is a prefix of its own, best first.
    """
    dead, live = _equals(rules, dialect)
    patterns = {i: pattern_of(rules[i].pattern, dialect) for i in live}
    keys = {i: rank(rules[i], dialect) for i in live}
    # each wildcard rule's shape and its most telling literal part after the prefix (a rule
    # whose word lacks that part is not covered by it): read once however often compared
    shapes: dict[int, Shape] = {}
    probes: dict[int, str | None] = {}
    for i in live:
        if patterns[i].kind >= STAR:
            shape = shapes[i] = _shape(patterns[i])
            probes[i] = max(shape[0][1:], key=len)
        else:
            probes[i] = None
    # rules by literal prefix, the best first (a worse key can never beat the rule), with
    # their keys beside them to find by bisection how many keys are better than a rule's
    by_prefix: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for i in live:
        by_prefix[patterns[i].prefix].append((keys[i], i))
    buckets: dict[str, tuple[list[int], list[tuple[int, str | None]]]] = {}
    for prefix, bucket in by_prefix.items():
        bucket.sort()
        buckets[prefix] = ([k for k, _ in bucket], [(j, probes[j]) for _, j in bucket])
    lengths = sorted({len(prefix) for prefix in buckets})
    for i in live:
        mine = patterns[i]
        mine_shape = shapes.get(i)
        prefix = mine.prefix
        key = keys[i]
        budget = _CANDIDATES
        for n in reversed(lengths[:bisect_right(lengths, len(prefix))]):  # the nearest first
            found = buckets.get(prefix[:n])
            if found is None:
                continue
            better = bisect_left(found[0], key)  # how many rules here have a better key
            for j, probe in found[1][:min(better, budget)]:
                if probe is None:  # no wildcard: read by its prefix
                    covered = _covers(patterns[j], mine)
                else:  # a wildcard: compared by the words
                    if mine_shape is None:
                        mine_shape = shapes[i] = _shape(mine)
                    if probe not in mine_shape[1]:
                        continue
                    covered = _covers(patterns[j], mine, shapes[j], mine_shape)
                if covered:
                    dead[i] = (rules[i], rules[j])
                    break
            if i in dead or better > budget:
                break  # decided, or more candidates than the budget allows
            budget -= better
    return dead


def access_of(group_rules: Sequence[Rule], dialect: Dialect,
              dead: dict[int, tuple[Rule, Rule]] | None = None) -> tuple[Access, Rule | None]:
    """``("blocked" | "partial" | "allowed", deciding rule)`` for one agent's merged rules.

    Blocked: a disallow matches every path and no allow can beat it. Allowed: every non-empty
    disallow is beaten everywhere by an allow. Partly blocked otherwise. ``dead`` is
    :func:`deciders` of ``group_rules`` when the caller has it.
    """
    live = [r for r in group_rules if r.pattern]
    everywhere = pattern_of("/", dialect)
    blankets = [r for r in live
                if not r.allow and _covers(pattern_of(r.pattern, dialect), everywhere)]
    if blankets:
        top = min(blankets, key=lambda r: rank(r, dialect))
        opens = [r for r in live if r.allow and beats(r, top, dialect)]
        return ("partial", top) if opens else ("blocked", top)
    if all(r.allow for r in live):
        return "allowed", None
    if dead is None:
        dead = deciders(group_rules, dialect)
    dead_lines = {rule.line for rule, winner in dead.values() if winner.allow}
    alive = [r for r in live if not r.allow and r.line not in dead_lines]
    return ("partial", alive[0]) if alive else ("allowed", None)


def match_length(p: Pattern | None, path: str) -> int:
    """How long a match ``p`` makes on ``path``: the matcher's priority (the pattern's octets,
    RFC 9309 2.2.2), 0 for ``None`` (a rule without a path matches everything), -1 for no
    match."""
    return 0 if p is None else p.priority if pattern_matches(p, path) else -1


def longest_matches(patterns: Sequence[Pattern | None], path: str) -> tuple[int, ...]:
    """The indices of ``patterns`` that decide ``path`` when a rule set is read by its longest
    match and identical longest lengths all decide together (attach-05 3.1, Content-Usage
    rules): a pattern's length is the matcher's priority (its octets), ``None`` (a rule
    without a path) matches every path at length 0. In rule order."""
    best = -1
    out: list[int] = []
    for i, p in enumerate(patterns):
        n = match_length(p, path)
        if n > best:
            best, out = n, [i]
        elif n == best and n >= 0:
            out.append(i)
    return tuple(out)


class PathSet:
    """:func:`longest_matches` over one rule set's patterns, kept: the pure peer's matcher of
    Content-Usage paths (the native kernel's ``PathSet`` has the same surface and is held
    equal by tests/core/test_native_facts.py)."""

    __slots__ = ("patterns",)

    def __init__(self, patterns: Sequence[Pattern | None]) -> None:
        self.patterns = tuple(patterns)

    def deciding(self, path: str) -> tuple[int, ...]:
        return longest_matches(self.patterns, path)

    def classify(self, paths: Sequence[str], allowed: Sequence[int]
                 ) -> tuple[array[int], list[tuple[int, ...]]]:
        """Per path, the index of its deciding set in the list returned (``-1`` where
        ``allowed[i]`` is 0)."""
        at: dict[tuple[int, ...], int] = {}
        sets: list[tuple[int, ...]] = []
        out = array("l", [-1]) * len(paths)
        for i, path in enumerate(paths):
            if allowed[i]:
                d = longest_matches(self.patterns, path)
                c = at.get(d)
                if c is None:
                    c = at[d] = len(sets)
                    sets.append(d)
                out[i] = c
        return out, sets
