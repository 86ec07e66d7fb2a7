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
Each entry carries one integer key that encodes this order (smallest is best), so sorting and
comparing entries compares one int, and every scan runs best first and stops at the first
match. Rules with an empty pattern never decide (Google: priority 0 is no match); the caller
does not index them. Plain prefixes (most rules) need no classification: a prefix and its
key; any other pattern is classified once into a :class:`Pattern` shared by every file that
has it. A matcher's ``best(path)`` gives the key of the deciding rule (or ``NO_MATCH``).

Before indexing, rules that match exactly the same paths are merged (same kind, literals and
anchor, whatever the priority as written or the verdict): whenever one matches all do, so
only the best key can decide: the longest pattern, then allow, then the earliest line. Thirty
thousand copies of ``Disallow: /*ba`` are one rule.

Small groups are scanned whole. Larger groups file their rules under sorted literal prefixes,
each linked to its longest prefix in the list: a query costs one bisection and a short walk
(as deep as prefixes nest), not a pass over the rules (thousands), and when one prefix holds
only plain rules, only its best one is kept. Wildcard rules that could match anywhere
(``/*ba``, ``*.gif$``), and the wildcard rules under one prefix when there are many, are
filed under a selective key: the rarest run of 4, 2 or 1 bytes of one of their literals.
A query tries only the rules whose key occurs in the path, best first, and stops as soon as
no remaining rule can beat the answer. See :class:`IndexedMatcher` and :class:`_Literals`.

Worst case of a query on a path of ``n`` bytes: ``O(log R + d)`` for the prefixes (``R``
distinct prefixes, ``d`` the nesting depth of those that the path starts with, each of which
matches), plus, for a wildcard index, the work of finding the keys that occur: below 256
bytes at most ``3 n`` dictionary lookups (or one C scan per key, when there are fewer keys
than positions); from 256 bytes on, at most ``32`` C scans per key width, then one C-level
read of the path per key width (at most three), whatever the number of keys; plus
``O(n * |pattern|)`` for each rule tried. The rules tried are the rules whose key occurs in
the path and whose rank could still beat the best match found (on a short path a bucket is
tried again at each occurrence of its key, under 256 times; on a long path once): the cost
is bounded by the path and the rules that can match, not by the size of the file. What
stays is inherent to keys: rules whose every literal is one or two bytes (``/*a*b``) are
tried whenever those bytes occur. Measured on the worst shapes (workload g): ``benchmarks/run.py``
workload (g).
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_right
from collections import Counter
from itertools import chain
from typing import Final

__all__ = ["ALLOW_BIT", "INDEX_MASK", "NO_MATCH", "PREFIX", "Entry", "Matcher", "Pattern",
           "entry_matches", "key_allows", "make_matcher", "rank_base"]

PREFIX: Final = 0  # no "*", no final "$": path.startswith(prefix)
EXACT: Final = 1  # no "*", final "$": path == prefix
STAR: Final = 2  # one "*": prefix, then suffix found after it (or ending the path)
WILD: Final = 3  # several "*": the literal segments found in order
LINEAR_MAX: Final = 8  # groups this small are scanned rule by rule
INDEX_BITS: Final = 28  # a rule's directive index fits here (lines are packed in 28 bits)
INDEX_MASK: Final = (1 << INDEX_BITS) - 1
_RANKS: Final = 1 << 24  # 2 * priority + allow stays below this (priority is clamped)
_MAX_PRIORITY: Final = (_RANKS >> 1) - 1
_STARS: Final = re.compile(r"\*{2,}")


class Pattern:
    """One rule pattern, classified once; shared by every file that has the same rule.

    ``kind``, ``prefix``, ``suffix``, ``anchored``, ``minimum`` and ``segments`` say how to
    match (see the module's theory of operation); ``priority`` is the pattern's length as
    written (RFC 9309 2.2.2: the most octets win) and ``allow`` its verdict. ``base`` is the
    rank part of an entry key; ``required`` is a literal that every path the pattern matches
    contains after the prefix (``""`` if none); ``companion`` is Google's derived
    ``/dir/$`` rule of an ``Allow: /dir/index.htm(l)`` (set by the caller).
    """

    __slots__ = ("allow", "anchored", "base", "companion", "kind", "minimum", "prefix",
                 "priority", "required", "segments", "suffix")

    def __init__(self, pattern: str, allow: bool, priority: int, *, literal: bool = False
                 ) -> None:
        """Classify ``pattern`` (``literal``: a plain prefix whatever it holds, as in 1994).

        Redundant stars go first: ``a**b`` is ``a*b``, and a trailing ``*`` (with or without
        a final ``$``) matches any rest of the path, so ``/a*`` and ``/a*$`` are the prefix
        ``/a``. Priority is not affected: the caller counts the pattern as written.
        """
        if priority > _MAX_PRIORITY:
            priority = _MAX_PRIORITY
        self.allow = allow
        self.priority = priority
        self.base = rank_base(priority, allow)
        self.companion: Pattern | None = None
        anchored = pattern.endswith("$") and not literal
        body = pattern[:-1] if anchored else pattern
        if not literal:
            if "**" in body:
                body = _STARS.sub("*", body)
            if body.endswith("*"):
                body = body[:-1]
                anchored = False
        self.anchored = anchored
        if literal or "*" not in body:
            self.kind = EXACT if anchored else PREFIX
            self.prefix = body
            self.suffix = ""
            self.minimum = len(body)
            self.segments: tuple[str, ...] = ()
            self.required = ""
            return
        parts = body.split("*")
        self.prefix = parts[0]
        self.suffix = parts[-1]
        self.minimum = len(body) - len(parts) + 1  # the literal characters
        if len(parts) == 2:
            self.kind = STAR
            self.segments = ()
            self.required = self.suffix
        else:
            self.kind = WILD
            self.segments = tuple(parts)
            required = parts[1]
            for part in parts[2:]:
                if len(part) > len(required):
                    required = part
            self.required = required


# An entry: (key, kind, prefix, pattern). key = the rank part of the rule (see rank_base) plus
# its directive index, so that the smallest key is the best rule: highest priority, then allow
# before disallow (RFC 9309 2.2.2), then the earliest line (Google's Match::Set keeps the
# first). Keys are unique. Plain prefixes (most rules) carry no Pattern object: kind PREFIX,
# the prefix, None; everything else carries its shared Pattern.
Entry = tuple[int, int, str, "Pattern | None"]


def rank_base(priority: int, allow: bool) -> int:
    """The rank part of an entry key; its lowest bit above the index is set iff ``allow``."""
    return (_RANKS - (2 * priority + allow)) << INDEX_BITS


ALLOW_BIT: Final = 1 << INDEX_BITS  # set in the key of an allow entry (see rank_base)
# What best() gives when no rule matches: above every key, and with ALLOW_BIT set, so that
# "key & ALLOW_BIT" is the verdict whether or not a rule matched (no match: allowed).
NO_MATCH: Final = (1 << 60) | ALLOW_BIT


def key_allows(key: int) -> bool:
    """The verdict of a rule key (True for NO_MATCH)."""
    return key & ALLOW_BIT != 0


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


def pattern_matches(p: Pattern, path: str) -> bool:
    """Whether pattern ``p`` matches ``path``."""
    kind = p.kind
    if kind == PREFIX:
        return path.startswith(p.prefix)
    if kind == EXACT:
        return path == p.prefix
    if not path.startswith(p.prefix):
        return False
    if kind == STAR:
        if p.anchored:
            return len(path) >= p.minimum and path.endswith(p.suffix)
        return not p.suffix or path.find(p.suffix, len(p.prefix)) >= 0
    return _wild(path, p.segments, p.anchored)


def entry_matches(e: Entry, path: str) -> bool:
    """Whether entry ``e`` matches ``path``."""
    p = e[3]
    if p is None:
        return path.startswith(e[2])
    return pattern_matches(p, path)


def _scan(entries: list[Entry], path: str, best: int) -> int:
    """Key of the first entry of best-first ``entries`` that matches and beats ``best``,
    else ``best``."""
    for e in entries:
        if e[0] >= best:
            return best
        p = e[3]  # entry_matches() inlined
        if p is None:
            if path.startswith(e[2]):
                return e[0]
        elif pattern_matches(p, path):
            return e[0]
    return best


class Matcher:
    """The compiled, immutable rule index of one (merged) group: :meth:`best` gives the key
    of the rule that decides a path, or :data:`NO_MATCH`. Built by :func:`make_matcher`,
    which picks the shape."""

    __slots__ = ()

    def best(self, path: str) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


class LinearMatcher(Matcher):
    """Up to ``LINEAR_MAX`` rules, best first: the first match decides.

    Every rule needs the path to start with its literal prefix, so one C-level
    ``startswith(tuple)`` turns away a path that no rule can match before any scan.
    """

    __slots__ = ("_entries", "_prefixes")

    def __init__(self, entries: list[Entry]) -> None:
        self._entries = entries
        self._prefixes = tuple({e[2]: None for e in entries})

    def best(self, path: str) -> int:
        if not path.startswith(self._prefixes):
            return NO_MATCH
        # the scan inlined: this is the matcher of most groups, one call less per query
        startswith = path.startswith
        for e in self._entries:
            kind = e[1]
            if kind == PREFIX:
                if startswith(e[2]):
                    return e[0]
            elif kind == EXACT:
                if path == e[2]:
                    return e[0]
            elif startswith(e[2]) and entry_matches(e, path):
                return e[0]
        return NO_MATCH


# Key widths (bytes) of the literal index, widest first: a pattern's literals are looked for
# as UTF-8 bytes, read from a long path that many at a time (memoryview formats I, H, B)
_WIDTHS: Final = (4, 2, 1)
_LONG: Final = 256  # from this many bytes on, a path is read with memoryview.cast
_ORDER: Final = sys.byteorder  # memoryview.cast reads native integers


def _encode(text: str) -> bytes:
    # one code point, one byte sequence, so a substring stays a substring (lone surrogates
    # too, which surrogateescape'd paths can hold)
    return text.encode("utf-8", "surrogatepass")


def _literal_keys(p: Pattern) -> tuple[int, list[bytes]]:
    """The key width of a wildcard pattern and its candidate keys: every run of that many
    bytes of its literals after the prefix; a matching path contains all of them. The width
    is the largest of ``_WIDTHS`` that fits the longest literal (every ``STAR`` and ``WILD``
    pattern has a non-empty literal after its prefix)."""
    literals = [_encode(lit) for lit in (p.segments[1:] if p.kind == WILD else (p.suffix,))]
    longest = max(map(len, literals))
    width = 1
    for width in _WIDTHS:
        if width <= longest:
            break
    keys: list[bytes] = []
    for lit in literals:
        keys.extend([lit[i : i + width] for i in range(len(lit) - width + 1)])
    return width, keys


def _first_key(bucket: list[Entry]) -> int:
    return bucket[0][0]


def _bucket_of_item(item: tuple[bytes, list[Entry]]) -> int:
    return item[1][0][0]


class _Literals:
    """Wildcard rules filed under a selective key: a short run of bytes of one of their
    literals (``/*ba*x7k2`` under ``x7k2``, not under the ``ba`` that thousands share).

    Every ``STAR`` or ``WILD`` rule needs each literal after its prefix to occur in the path,
    so it needs each run of bytes of them. Each rule is filed under one run of 4, 2 or 1
    bytes (the widest its longest literal allows), the rarest of its runs counted over the
    rules of this index. A query finds the keys that occur in the path's UTF-8 bytes. A short
    path (under ``_LONG`` bytes) asks each width's table for each key (``key in path``, a C
    scan) when it has fewer keys than the path has positions, else for each position's run
    of bytes, and tries a bucket only while its best rule could win. A long path asks for
    keys one by one, best bucket first (which stops as soon as no bucket can beat the best
    rule found so far); past a budget of such scans, it reads the path once per key width as
    native integers (``memoryview.cast``, at each of the ``width`` offsets), intersects them
    with the keys, all at C level, and tries each bucket found once, best first, while it can
    still win. Rules without a literal after the prefix (a ``$``-anchored or plain ``/`` or
    ``""``) are few once duplicates are merged: they are scanned.
    """

    __slots__ = ("_items", "_rest", "_tables")

    def __init__(self, entries: list[Entry]) -> None:
        """``entries``: best first, duplicates merged."""
        rest: list[Entry] = []
        chosen: list[tuple[int, list[bytes], Entry]] = []
        for e in entries:
            p = e[3]
            if p is None or p.kind < STAR:
                rest.append(e)
            else:
                width, keys = _literal_keys(p)
                chosen.append((width, keys, e))
        # how many rules could be filed under each run of bytes: each rule takes its rarest
        counts = Counter(chain.from_iterable(set(keys) for _, keys, _ in chosen))
        tables: dict[int, dict[bytes, list[Entry]]] = {}
        for width, keys, e in chosen:
            key = min(keys, key=counts.__getitem__) if len(keys) > 1 else keys[0]
            table = tables.get(width)
            if table is None:
                table = tables[width] = {}
            bucket = table.get(key)
            if bucket is None:
                table[key] = [e]
            else:
                bucket.append(e)  # entries come best first, so each bucket is best first
        self._rest = rest
        # a long path is read as native integers, so the keys are also kept as integers
        self._tables = [(width, table, {int.from_bytes(key, _ORDER): bucket
                                        for key, bucket in table.items()})
                        for width, table in sorted(tables.items())]
        items = [item for table in tables.values() for item in table.items()]
        items.sort(key=_bucket_of_item)
        self._items = items

    def best(self, path: str, best: int) -> int:
        """The key of the best rule that matches ``path`` and beats ``best``, else ``best``."""
        items = self._items
        if items and items[0][1][0][0] < best:
            data = _encode(path)
            size = len(data)
            if size < _LONG:
                best = self._short(data, path, best)
            else:
                # a key scan costs ~2 ns a byte; reading the path costs ~60 ns a byte per
                # width (CPython 3.11, measured): scan keys, best first, until that is spent
                budget = 32 * len(self._tables)
                floor = -1
                for key, bucket in items:
                    first = bucket[0][0]
                    if first >= best:
                        break
                    if budget == 0:
                        floor = first
                        break
                    budget -= 1
                    if key in data:
                        best = _scan(bucket, path, best)
                if floor >= 0:
                    best = self._read(data, path, best, floor)
        if self._rest:
            best = _scan(self._rest, path, best)
        return best

    def _short(self, data: bytes, path: str, best: int) -> int:
        """A short path: each key width's table is asked for each key (when it has fewer
        keys than the path has positions) or for each position's run of bytes."""
        size = len(data)
        for width, table, _ in self._tables:
            positions = size - width + 1
            if positions <= 0:
                break
            if len(table) < positions:
                for key, bucket in table.items():
                    if bucket[0][0] < best and key in data:
                        best = _scan(bucket, path, best)
            else:
                get = table.get
                for i in range(positions):
                    at = get(data[i : i + width])
                    if at is not None and at[0][0] < best:
                        best = _scan(at, path, best)
        return best

    def _read(self, data: bytes, path: str, best: int, floor: int) -> int:
        """Try the buckets whose key occurs in ``data`` and whose best key is ``floor`` or
        better (the ones before were already tried)."""
        found: list[list[Entry]] = []
        size = len(data)
        view = memoryview(data) if size >= _LONG else None
        for width, table, ints in self._tables:
            if width > size:
                break
            if width == 1:
                found.extend(map(ints.__getitem__, ints.keys() & set(data)))
            elif len(table) * (32 + size) < 64 * size:  # few keys: ask for each
                found.extend([bucket for key, bucket in table.items() if key in data])
            elif view is None:  # a short path: slice it
                hits = table.keys() & {data[i : i + width] for i in range(size - width + 1)}
                found.extend(map(table.__getitem__, hits))
            else:  # a long path: read it as integers at each offset, all at C level
                got: set[int] = set()
                for at in range(width):
                    part = view[at : at + (size - at) // width * width]
                    got |= ints.keys() & (part.cast("H") if width == 2 else part.cast("I"))
                found.extend(map(ints.__getitem__, got))
        found.sort(key=_first_key)
        for bucket in found:
            first = bucket[0][0]
            if first >= best:
                break
            if first >= floor:
                best = _scan(bucket, path, best)
        return best


class IndexedMatcher(Matcher):
    """A larger group, split in two.

    - Plain-prefix rules (any length), and wildcard rules whose literal prefix has two
      characters or more, are filed under that prefix. The distinct prefixes are sorted,
      and each knows its *parent*: the longest other prefix that is a prefix of it. For a
      path, ``bisect`` finds the last prefix ``c <= path``. Every prefix ``p`` of the path
      in the list satisfies ``p <= c <= path``, so ``c`` starts with ``p``: the path's
      prefixes are the parent chain of ``c`` from the first link that the path starts
      with. A query costs one bisection and a walk up a chain as long as the nesting of
      prefixes (a few links), whatever the number of rules. Under one prefix, plain rules
      all match once the path starts with it, so only the best one is kept (its key);
      wildcard and ``$`` rules are kept and tried, in a list, or in a :class:`_Literals`
      index of their own when there are more than ``LINEAR_MAX``.
    - Rules whose prefix is ``""`` or ``"/"`` (``*.gif$``, ``/*?sort=``) could match any
      path: when there are more than ``LINEAR_MAX``, they go to a :class:`_Literals` index,
      which tries only the rules whose selective key occurs in the path; fewer are scanned.
      Either way a rule is tried only while it can still beat the answer found so far.

    Lists are built from the best-first entries, so each is best first too; nothing mutates
    them after construction.
    """

    __slots__ = ("_always", "_big", "_keys", "_literals", "_parents", "_prefixes",
                 "_special")

    def __init__(self, plain: dict[str, int], others: list[Entry]) -> None:
        """``plain``: each plain-prefix rule's prefix and key (the best one, when several
        share a prefix); ``others``: every other rule, best first, duplicates merged."""
        special: dict[str, list[Entry]] = {}  # prefix -> its wildcard or "$" rules
        always: list[Entry] = []
        for e in others:
            prefix = e[2]
            if len(prefix) < 2:
                always.append(e)
            else:
                found = special.get(prefix)
                if found is None:
                    special[prefix] = [e]
                else:
                    found.append(e)
        prefixes = sorted(plain.keys() | special.keys() if special else plain)
        # parent links: in sorted order, a prefix's own prefixes are on the chain of the one
        # before it (that one itself, or its ancestors); whether each prefix starts with the
        # one before it is asked of all pairs at once
        parents = [-1] * len(prefixes)
        nested = map(str.startswith, prefixes[1:], prefixes[:-1])
        for k, inside in enumerate(nested, 1):
            if inside:
                parents[k] = k - 1
            else:
                j = parents[k - 1]
                if j >= 0:
                    prefix = prefixes[k]
                    while j >= 0 and not prefix.startswith(prefixes[j]):
                        j = parents[j]
                    parents[k] = j
        self._prefixes = prefixes
        self._parents = array("i", parents)
        self._big: dict[int, _Literals] = {}
        if special:
            self._keys = array("q", [plain.get(prefix, NO_MATCH) for prefix in prefixes])
            self._special = {k: special[prefix] for k, prefix in enumerate(prefixes)
                             if prefix in special}
            for k, found in self._special.items():
                if len(found) > LINEAR_MAX:  # its first entry stays the list's only one
                    self._big[k] = _Literals(found)
                    self._special[k] = found[:1]
        else:
            self._keys = array("q", map(plain.__getitem__, prefixes))
            self._special = {}
        self._literals: _Literals | None = None
        if len(always) > LINEAR_MAX:
            self._literals = _Literals(always)
            always = []
        self._always = always

    def best(self, path: str) -> int:
        best = NO_MATCH
        prefixes = self._prefixes
        parents = self._parents
        k = bisect_right(prefixes, path) - 1
        while k >= 0 and not path.startswith(prefixes[k]):
            k = parents[k]
        if k >= 0:
            special = self._special
            if not special:
                # plain prefixes only: the longest one the path starts with is the most
                # specific, so its best rule outranks every rule of its ancestors
                best = self._keys[k]
            else:
                keys = self._keys
                big = self._big
                while k >= 0:  # every link from here on is a prefix of the path
                    key = keys[k]
                    if key < best:
                        best = key
                    found = special.get(k)
                    if found is not None and found[0][0] < best:
                        if big and k in big:
                            best = big[k].best(path, best)
                        else:
                            best = _scan(found, path, best)
                    k = parents[k]
        literals = self._literals
        if literals is not None:
            best = literals.best(path, best)
        elif self._always:
            best = _scan(self._always, path, best)
        return best


def _signature(p: Pattern) -> tuple[int, str, str, tuple[str, ...], bool]:
    """What decides which paths a pattern matches (not its priority, not its verdict)."""
    return (p.kind, p.prefix, p.suffix, p.segments, p.anchored)


def _merged(others: list[Entry]) -> list[Entry]:
    """Best-first ``others`` without the rules that can never decide: of the rules that match
    exactly the same paths, the best key always wins (RFC 9309 2.2.2 longest match, then
    allow, then Google's first line), so only it is kept."""
    seen: set[object] = set()  # Pattern objects (memoised per raw rule) and signatures
    out: list[Entry] = []
    for e in others:
        p = e[3]
        if p is None:
            sig: object = (PREFIX, e[2])
        else:
            if p in seen:
                continue
            seen.add(p)
            sig = _signature(p)
        if sig not in seen:
            seen.add(sig)
            out.append(e)
    return out


def make_matcher(plain: dict[str, int], others: list[Entry]) -> Matcher:
    """Index a group's rules: ``plain`` maps each plain prefix to the key of its best rule,
    ``others`` holds every other rule (a fresh list, taken over)."""
    others.sort()  # keys are unique: only the ints are compared
    if len(others) > 1:
        others = _merged(others)
    if len(plain) + len(others) <= LINEAR_MAX:
        entries: list[Entry] = [(key, PREFIX, prefix, None) for prefix, key in plain.items()]
        entries.extend(others)
        entries.sort()
        return LinearMatcher(entries)
    return IndexedMatcher(plain, others)
