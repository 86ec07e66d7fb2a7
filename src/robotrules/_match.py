"""Pattern matching: each rule's pattern specialised once, a group indexed for longest match.

Theory of operation
-------------------
A pattern is a literal string with two special characters (RFC 9309 2.2.3): ``*`` matches
any run of characters and ``$`` as the *last* character anchors the end (elsewhere it is a
literal, as in Google's ``robots.cc``). Patterns are matched from the first character of the
path. Each pattern is classified when the file is compiled:

- ``PREFIX``: no ``*`` and no final ``$``: ``path.startswith(pattern)``;
- ``EXACT``: no ``*`` but a final ``$``: ``path == pattern[:-1]``;
- ``WILD``: split on ``*`` into literal segments; the first must be a prefix of the path, the
  middle ones are found left to right (greedy leftmost is optimal for ``*``-only globs), the
  last must be found after them (or, anchored, end the path).

No regular expression is involved, so nothing can backtrack: the worst case of one pattern is
``O(len(path) * len(pattern))`` (each ``str.find`` is at most that, and the finds of one
pattern cover disjoint parts of the path); in practice each find is a C-speed scan.

A group's rules are indexed by their *literal prefix* (the text before the first ``*`` or the
final ``$``): a rule can only match when the path starts with that prefix. A query looks up
``path[:n]`` for each distinct prefix length ``n`` present in the group, so its cost grows with
the number of distinct prefix lengths (tens) rather than the number of rules (thousands).
Within a bucket rules are ordered best first (priority, then allow before disallow, then file
order), so the first match in a bucket is that bucket's best.

The winner over all matching rules is the one with the highest priority (RFC 9309 2.2.2: the
most specific match, i.e. the most octets, counted on the pattern as Google does); ties go to
``allow``; among equals the earliest line wins (Google's ``Match::Set`` keeps the first).
Rules with an empty pattern never decide (Google: priority 0 is no match) and are not indexed.
"""

from __future__ import annotations

from typing import Final

__all__ = ["Matcher", "compile_pattern", "make_matcher"]

PREFIX: Final = 0  # no "*", no final "$": path.startswith(prefix)
EXACT: Final = 1  # no "*", final "$": path == prefix
STAR: Final = 2  # one "*": prefix, then suffix found after it (or ending the path)
WILD: Final = 3  # several "*": the literal segments found in order
LINEAR_MAX: Final = 8  # groups this small are scanned rule by rule

# A compiled pattern: (kind, prefix, suffix, anchored, minimum length, segments).
Compiled = tuple[int, str, str, bool, int, tuple[str, ...]]
# An entry: (priority, allow, line, kind, prefix, suffix, anchored, minimum, segments, index)
# where index is the directive index of the rule in its file.
Entry = tuple[int, bool, int, int, str, str, bool, int, tuple[str, ...], int]


def compile_pattern(pattern: str) -> Compiled:
    """Classify ``pattern``: ``(kind, prefix, suffix, anchored, minimum, segments)``."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
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
    kind = e[3]
    if kind == PREFIX:
        return path.startswith(e[4])
    if kind == EXACT:
        return path == e[4]
    if not path.startswith(e[4]):
        return False
    if kind == STAR:
        if e[6]:
            return len(path) >= e[7] and path.endswith(e[5])
        return not e[5] or path.find(e[5], len(e[4])) >= 0
    return _wild(path, e[8], e[6])


def _better(a: Entry, best: Entry | None) -> bool:
    if best is None:
        return True
    if a[0] != best[0]:
        return a[0] > best[0]
    if a[1] != best[1]:
        return a[1]
    return a[2] < best[2]


def _sort_key(e: Entry) -> tuple[int, bool, int]:
    return (-e[0], not e[1], e[2])


def _scan(entries: tuple[Entry, ...], path: str, best: Entry | None) -> Entry | None:
    """First entry of best-first ``entries`` that matches and beats ``best``, else ``best``."""
    startswith = path.startswith
    for e in entries:
        if best is not None and not _better(e, best):
            return best
        kind = e[3]
        if kind == PREFIX:
            if startswith(e[4]):
                return e
        elif kind == EXACT:
            if path == e[4]:
                return e
        elif startswith(e[4]):
            if kind == STAR:
                if e[6]:
                    if len(path) >= e[7] and path.endswith(e[5]):
                        return e
                elif not e[5] or path.find(e[5], len(e[4])) >= 0:
                    return e
            elif _wild(path, e[8], e[6]):
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


class IndexedMatcher(Matcher):
    """A larger group, split in two:

    - rules whose literal prefix has two characters or more sit in prefix buckets behind
      one ``str.startswith(tuple_of_prefixes)`` call, a C-speed filter that rules them all out
      at once for most paths (protego 0.7 uses the same filter); a path that passes looks up
      ``path[:n]`` for each distinct prefix length ``n``;
    - rules whose prefix is ``""`` or ``"/"`` (``*.gif$``, ``/*?sort=``) could match any
      path and are scanned best first, only while they can still beat the buckets' answer.
    """

    __slots__ = ("_always", "_buckets", "_lengths", "_prefixes")

    def __init__(self, entries: list[Entry]) -> None:
        super().__init__(len(entries))
        self._always = tuple(e for e in entries if len(e[4]) < 2)
        buckets: dict[str, list[Entry]] = {}
        for e in entries:
            if len(e[4]) >= 2:
                buckets.setdefault(e[4], []).append(e)
        self._buckets = {k: tuple(v) for k, v in buckets.items()}
        self._prefixes = tuple(buckets)
        self._lengths = tuple(sorted({len(k) for k in buckets}, reverse=True))

    def best(self, path: str) -> Entry | None:
        best: Entry | None = None
        if self._prefixes and path.startswith(self._prefixes):
            get = self._buckets.get
            n = len(path)
            for length in self._lengths:
                if length > n:
                    continue
                bucket = get(path[:length])
                if bucket is not None and (best is None or _better(bucket[0], best)):
                    best = _scan(bucket, path, best)
        if self._always:
            best = _scan(self._always, path, best)
        return best


def make_matcher(entries: list[Entry]) -> Matcher:
    """Sort ``entries`` best first (empty patterns never decide) and index them."""
    entries = [e for e in entries if e[0] > 0]
    entries.sort(key=_sort_key)
    if len(entries) <= LINEAR_MAX:
        return LinearMatcher(tuple(entries))
    return IndexedMatcher(entries)
