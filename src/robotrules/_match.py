"""Pattern matching: each rule's pattern specialised once, a group indexed for longest match.

Theory of operation
-------------------
A pattern is a literal string with two special characters (RFC 9309 2.2.3): ``*`` matches
any run of characters and ``$`` as the *last* character anchors the end (elsewhere it is a
literal, as in Google's ``robots.cc``). Patterns are matched from the first character of the
path. Each pattern is classified once, when its group is compiled:

- ``PREFIX``: no ``*``, no final ``$``: ``path.startswith(prefix)``;
- ``EXACT``: no ``*``, a final ``$``: ``path == prefix``;
- ``STAR``: one ``*``: the prefix, then the suffix found after it (or ending the path);
- ``WILD``: several ``*``: the literal segments found left to right; greedy leftmost is
  optimal for ``*``-only globs, and the last segment must be found after the others (or,
  anchored, end the path).

No regular expression is involved, so nothing can backtrack. The worst case of one pattern
is ``O(len(path) * len(pattern))``: each ``str.find`` is at most that, and the finds of one
pattern cover disjoint parts of the path. In practice each find is a C-speed scan.

The winner over all matching rules is the one with the highest priority (RFC 9309 2.2.2: the
most specific match, i.e. the most octets, counted on the pattern as Google does). Ties go to
``allow``, and among equals the earliest line wins (Google's ``Match::Set`` keeps the first).
Entries carry a rank so that plain tuple order is this order, and every scan runs best first
and stops at the first match. Rules with an empty pattern never decide (Google: priority 0 is
no match) and are not indexed.

Small groups are scanned whole. Larger groups put their rules with a literal prefix of two or
more characters behind one ``str.startswith(tuple)`` filter and prefix buckets; the cost of a
query then grows with the number of distinct prefix lengths (tens), not with the number of
rules (thousands). See :class:`IndexedMatcher`.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["Matcher", "compile_pattern", "make_entry", "make_matcher"]

PREFIX: Final = 0  # no "*", no final "$": path.startswith(prefix)
EXACT: Final = 1  # no "*", final "$": path == prefix
STAR: Final = 2  # one "*": prefix, then suffix found after it (or ending the path)
WILD: Final = 3  # several "*": the literal segments found in order
LINEAR_MAX: Final = 8  # groups this small are scanned rule by rule
PREFILTER_MAX: Final = 256  # startswith(tuple) is linear in the tuple: only for short ones
GRAM: Final = 3  # length of the literal heads the always-scanned rules are indexed by
_STARS: Final = re.compile(r"\*{2,}")

# A compiled pattern: (kind, prefix, suffix, anchored, minimum length, segments).
Compiled = tuple[int, str, str, bool, int, tuple[str, ...]]
# An entry: (rank, line, priority, allow, kind, prefix, suffix, anchored, minimum, segments,
# index). rank = -(2 * priority + allow) puts entries best first under plain tuple order:
# highest priority, then allow before disallow (RFC 9309 2.2.2), then the earliest line
# (Google's Match::Set keeps the first); index is the rule's directive index in its file.
Entry = tuple[int, int, int, bool, int, str, str, bool, int, tuple[str, ...], int]


def make_entry(priority: int, allow: bool, line: int, c: Compiled, index: int) -> Entry:
    return (-(2 * priority + allow), line, priority, allow, c[0], c[1], c[2], c[3], c[4], c[5],
            index)


def compile_pattern(pattern: str) -> Compiled:
    """Classify ``pattern``: ``(kind, prefix, suffix, anchored, minimum, segments)``.

    Redundant stars go first: ``a**b`` is ``a*b``, and a trailing ``*`` (with or without a
    final ``$``) matches any rest of the path, so ``/a*`` and ``/a*$`` are the prefix ``/a``.
    Priority is not affected: the caller counts the pattern as written.
    """
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    if "**" in body:
        body = _STARS.sub("*", body)
    if body.endswith("*"):
        body = body[:-1]
        anchored = False
    if "*" not in body:
        return (EXACT if anchored else PREFIX), body, "", anchored, len(body), ()
    segments = tuple(body.split("*"))
    if len(segments) == 2:
        prefix, suffix = segments
        return STAR, prefix, suffix, anchored, len(prefix) + len(suffix), ()
    return WILD, segments[0], segments[-1], anchored, sum(map(len, segments)), segments


def _wild(path: str, segments: tuple[str, ...], anchored: bool) -> bool:
    """Match the segments after the first (already known to be a prefix of ``path``)."""
    pos = len(segments[0])
    last = len(segments) - 1
    find = path.find
    for i in range(1, last):
        seg = segments[i]
        if seg:
            j = find(seg, pos)
            if j < 0:
                return False
            pos = j + len(seg)
    tail = segments[last]
    if anchored:
        return len(path) - len(tail) >= pos and path.endswith(tail)
    return not tail or find(tail, pos) >= 0


def entry_matches(e: Entry, path: str) -> bool:
    """Whether entry ``e`` matches ``path``."""
    kind = e[4]
    if kind == PREFIX:
        return path.startswith(e[5])
    if kind == EXACT:
        return path == e[5]
    if not path.startswith(e[5]):
        return False
    if kind == STAR:
        if e[7]:
            return len(path) >= e[8] and path.endswith(e[6])
        return not e[6] or path.find(e[6], len(e[5])) >= 0
    return _wild(path, e[9], e[7])


def _better(a: Entry, best: Entry) -> bool:
    return a[0] < best[0] or (a[0] == best[0] and a[1] < best[1])


def _scan(entries: tuple[Entry, ...], path: str, best: Entry | None) -> Entry | None:
    """First entry of best-first ``entries`` that matches and beats ``best``, else ``best``."""
    startswith = path.startswith
    for e in entries:
        if best is not None and not _better(e, best):
            return best
        kind = e[4]
        if kind == PREFIX:
            if startswith(e[5]):
                return e
        elif kind == EXACT:
            if path == e[5]:
                return e
        elif startswith(e[5]):
            if kind == STAR:
                if e[7]:
                    if len(path) >= e[8] and path.endswith(e[6]):
                        return e
                elif not e[6] or path.find(e[6], len(e[5])) >= 0:
                    return e
            elif _wild(path, e[9], e[7]):
                return e
    return best


class Matcher:
    """The compiled, immutable rule index of one (merged) group: :meth:`best` finds the rule
    that decides a path. Built by :func:`make_matcher`, which picks the shape."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size

    def best(self, path: str) -> Entry | None:  # pragma: no cover - abstract
        raise NotImplementedError


class LinearMatcher(Matcher):
    """Up to ``LINEAR_MAX`` rules, best first: the first match decides."""

    __slots__ = ("_entries",)

    def __init__(self, entries: tuple[Entry, ...]) -> None:
        super().__init__(len(entries))
        self._entries = entries

    def best(self, path: str) -> Entry | None:
        return _scan(self._entries, path, None)


def _required(e: Entry) -> str:
    """A literal that any path ``e`` matches must contain (after its prefix), or ``""``."""
    kind = e[4]
    if kind == STAR:
        return e[6]
    if kind == WILD:
        return max(e[9][1:], key=len)
    return ""


class IndexedMatcher(Matcher):
    """A larger group, split in two.

    - Rules whose literal prefix has two characters or more sit in prefix buckets: a path
      looks up ``path[:n]`` for each distinct prefix length ``n``. While there are few
      distinct prefixes, one ``str.startswith(tuple_of_prefixes)`` call first rules them all
      out at C speed for most paths (protego 0.7 uses the same filter).
    - Rules whose prefix is ``""`` or ``"/"`` (``*.gif$``, ``/*?sort=``) could match any
      path. Each needs some literal (its suffix, or its longest segment) to occur in the path;
      when there are many, they are indexed by that literal's first ``GRAM`` characters, and a
      path looks up ``path[i:i+GRAM]`` at each position, so only rules whose literal could
      occur are tried. The rest (literal shorter than ``GRAM``) are scanned best first. Either
      way a rule is tried only while it can still beat the answer found so far.
    """

    __slots__ = ("_always", "_buckets", "_grams", "_lengths", "_prefixes")

    def __init__(self, entries: list[Entry]) -> None:
        super().__init__(len(entries))
        buckets: dict[str, list[Entry]] = {}
        always: list[Entry] = []
        for e in entries:
            if len(e[5]) >= 2:
                buckets.setdefault(e[5], []).append(e)
            else:
                always.append(e)
        self._buckets = {k: tuple(v) for k, v in buckets.items()}
        self._prefixes = tuple(buckets) if len(buckets) <= PREFILTER_MAX else ()
        self._lengths = tuple(sorted({len(k) for k in buckets}, reverse=True))
        grams: dict[str, list[Entry]] = {}
        if len(always) > LINEAR_MAX:
            rest: list[Entry] = []
            for e in always:
                literal = _required(e)
                if len(literal) >= GRAM:
                    grams.setdefault(literal[:GRAM], []).append(e)
                else:
                    rest.append(e)
            always = rest
        self._grams = {k: tuple(v) for k, v in grams.items()}
        self._always = tuple(always)

    def best(self, path: str) -> Entry | None:
        best: Entry | None = None
        n = len(path)
        if not self._prefixes or path.startswith(self._prefixes):
            get = self._buckets.get
            for length in self._lengths:
                if length > n:
                    continue
                bucket = get(path[:length])
                if bucket is not None and (best is None or _better(bucket[0], best)):
                    best = _scan(bucket, path, best)
        grams = self._grams
        if grams:
            get = grams.get
            for i in range(n - GRAM + 1):
                found = get(path[i : i + GRAM])
                if found is not None:
                    for e in found:  # best first within the gram
                        if best is not None and not _better(e, best):
                            break
                        if entry_matches(e, path):
                            best = e
                            break
        if self._always:
            best = _scan(self._always, path, best)
        return best


def make_matcher(entries: list[Entry]) -> Matcher:
    """Sort ``entries`` best first (empty patterns never decide) and index them."""
    entries = [e for e in entries if e[2] > 0]
    entries.sort()
    if len(entries) <= LINEAR_MAX:
        return LinearMatcher(tuple(entries))
    return IndexedMatcher(entries)
