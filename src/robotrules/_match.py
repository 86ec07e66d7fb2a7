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

import re
from typing import Final

__all__ = ["Matcher", "compile_pattern"]

PREFIX: Final = 0
EXACT: Final = 1
WILD: Final = 2
LINEAR_MAX: Final = 6  # groups this small are scanned rule by rule
REGEX_MAX: Final = 400  # groups up to this size become one alternation; larger: buckets
REGEX_AFTER: Final = 64  # queries a mid-size group answers by scanning before its regex

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


def _regex_of(e: Entry) -> str:
    kind = e[3]
    if kind == PREFIX:
        return re.escape(e[4])
    if kind == EXACT:
        return re.escape(e[4]) + r"\Z"
    segments, anchored = e[5]  # type: ignore[misc]
    body = ".*".join(re.escape(seg) for seg in segments)
    return body + r"\Z" if anchored else body


class Matcher:
    """The compiled, immutable rule index of one (merged) group.

    Three shapes, chosen by size when the group is compiled:

    - up to ``LINEAR_MAX`` rules: a best-first scan;
    - up to ``REGEX_MAX`` rules: the rules with at most one ``*`` become one regular
      expression, an alternation in best-first order, so ``re.match`` returns the first (best)
      rule that matches in a single C call. A rule with one ``*`` is ``A.*B``: the engine tries
      each split point once, ``O(len(path) * len(pattern))``. Rules with several ``*`` (which
      could make a backtracking engine explode) stay out of the regex and are scanned with
      :func:`_wild` after it, only while they could still beat its answer;
    - larger groups: the prefix-bucket index described in the module docstring.
    """

    __slots__ = ("_buckets", "_complex", "_entries", "_lengths", "_linear", "_queries",
                 "_regex", "_simple", "size")

    def __init__(self, entries: list[Entry]) -> None:
        entries = [e for e in entries if e[0] > 0]
        entries.sort(key=_sort_key)
        self.size = len(entries)
        self._linear: tuple[Entry, ...] | None = None
        self._regex: re.Pattern[str] | None = None
        self._simple: tuple[Entry, ...] = ()
        self._complex: tuple[Entry, ...] = ()
        self._buckets: dict[str, tuple[Entry, ...]] = {}
        self._lengths: tuple[int, ...] = ()
        self._queries = 0
        self._entries: tuple[Entry, ...] = ()
        if len(entries) <= LINEAR_MAX:
            self._linear = tuple(entries)
            return
        if len(entries) <= REGEX_MAX:
            # Scanned until it has answered REGEX_AFTER queries, then compiled into one
            # regex: building it (CPython's re compiler is Python) pays off only for a group
            # that is asked often; a parse-and-ask-twenty crawler never waits for it.
            self._linear = self._entries = tuple(entries)
            self._queries = REGEX_AFTER
            return
        buckets: dict[str, list[Entry]] = {}
        for e in entries:
            buckets.setdefault(e[4], []).append(e)
        self._buckets = {k: tuple(v) for k, v in buckets.items()}
        self._lengths = tuple(sorted({len(k) for k in buckets}, reverse=True))

    def _compile_regex(self) -> None:
        entries = self._entries
        simple = tuple(e for e in entries if e[3] != WILD or len(e[5][0]) <= 2)  # type: ignore[index]
        complex_ = tuple(e for e in entries if e[3] == WILD and len(e[5][0]) > 2)  # type: ignore[index]
        regex = (re.compile("|".join(f"({_regex_of(e)})" for e in simple), re.DOTALL)
                 if simple else None)
        # publish the finished state before dropping the linear scan (threads may be reading)
        self._simple = simple
        self._complex = complex_
        self._regex = regex
        self._linear = None

    def best(self, path: str) -> Entry | None:
        """The deciding entry for ``path``, or ``None`` when no rule matches."""
        linear = self._linear
        if linear is not None:
            if self._queries:
                self._queries -= 1
                if not self._queries:
                    self._compile_regex()
            startswith = path.startswith
            for e in linear:  # best first: the first match wins
                kind = e[3]
                if kind == PREFIX:
                    if startswith(e[4]):
                        return e
                elif kind == EXACT:
                    if path == e[5]:
                        return e
                elif startswith(e[4]) and _wild(path, *e[5]):  # type: ignore[misc]
                    return e
            return None
        regex = self._regex
        if regex is not None or self._complex:
            found: Entry | None = None
            if regex is not None:
                m = regex.match(path)
                if m is not None:
                    found = self._simple[m.lastindex - 1]  # type: ignore[operator]
            for e in self._complex:
                if found is not None and not _better(e, found):
                    break
                if path.startswith(e[4]) and _wild(path, *e[5]):  # type: ignore[misc]
                    return e
            return found
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
