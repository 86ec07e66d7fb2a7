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

__all__ = ["Matcher", "compile_pattern"]

PREFIX: Final = 0
EXACT: Final = 1
WILD: Final = 2

# An entry: (priority, allow, line, kind, literal prefix, data, directive index)
#   kind PREFIX: data is None; EXACT: data is the full literal; WILD: (segments, anchored)
Entry = tuple[int, bool, int, int, str, object, int]


def compile_pattern(pattern: str) -> tuple[int, str, object]:
    """Classify ``pattern`` and return ``(kind, literal_prefix, data)``."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    if "*" not in body:
        if anchored:
            return EXACT, body, body
        return PREFIX, body, None
    segments = tuple(body.split("*"))
    return WILD, segments[0], (segments, anchored)


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


def entry_matches(entry: Entry, path: str) -> bool:
    """Whether ``entry`` matches ``path`` (prefix not yet checked)."""
    kind = entry[3]
    if kind == PREFIX:
        return path.startswith(entry[4])
    if kind == EXACT:
        return path == entry[5]
    segments: tuple[str, ...]
    anchored: bool
    segments, anchored = entry[5]  # type: ignore[misc]
    return path.startswith(entry[4]) and _wild(path, segments, anchored)


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


class Matcher:
    """The compiled, immutable rule index of one (merged) group."""

    __slots__ = ("_buckets", "_lengths", "_linear", "size")

    def __init__(self, entries: list[Entry]) -> None:
        entries = [e for e in entries if e[0] > 0]
        entries.sort(key=_sort_key)
        self.size = len(entries)
        self._linear: tuple[Entry, ...] | None = None
        self._buckets: dict[str, tuple[Entry, ...]] = {}
        self._lengths: tuple[int, ...] = ()
        if len(entries) <= 12:
            self._linear = tuple(entries)
            return
        buckets: dict[str, list[Entry]] = {}
        for e in entries:
            buckets.setdefault(e[4], []).append(e)
        self._buckets = {k: tuple(v) for k, v in buckets.items()}
        self._lengths = tuple(sorted({len(k) for k in buckets}, reverse=True))

    def best(self, path: str) -> Entry | None:
        """The deciding entry for ``path``, or ``None`` when no rule matches."""
        linear = self._linear
        if linear is not None:
            for e in linear:  # best first: the first match wins
                if entry_matches(e, path):
                    return e
            return None
        best: Entry | None = None
        get = self._buckets.get
        n = len(path)
        for length in self._lengths:
            if length > n:
                continue
            bucket = get(path[:length])
            if bucket is None:
                continue
            if best is not None and not _better(bucket[0], best):
                continue  # nothing in this bucket can beat the current best
            for e in bucket:
                if best is not None and not _better(e, best):
                    break
                kind = e[3]
                if (
                    kind == PREFIX
                    or (kind == EXACT and path == e[5])
                    or (kind == WILD and _wild(path, *e[5]))  # type: ignore[misc]
                ):
                    best = e
                    break
        return best
