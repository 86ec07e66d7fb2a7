"""Compiling a group's rules into a matcher, and choosing the groups a query's token selects.

A matcher is built on a query's first use of a group selection (the caller keeps it): each
rule's raw value is read by the dialect's pattern normaliser (:mod:`robotrules._dialects`);
plain prefixes (most rules) need no object, the others become :class:`~robotrules._match.Pattern`
objects shared process-wide through a bounded memo, since the same patterns recur across files.
Cost: O(rules of the selected groups) per build; see :mod:`robotrules._match` for queries.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator
from bisect import bisect_right
from itertools import chain, compress
from operator import itemgetter
from typing import TYPE_CHECKING, Final

from . import _directives, _token, _tokenize
from ._dialects import NAMES, SPECS
from ._index import TAG_ALLOW, TAG_DISALLOW, GroupIndex, _agent_of
from ._match import (
    INDEX_MASK,
    NO_MATCH,
    PREFIX,
    STAR,
    WILD,
    Entry,
    Matcher,
    Pattern,
    make_matcher,
    pattern_matches,
    rank_base,
)

if TYPE_CHECKING:
    from ._types import Dialect

__all__ = ["CLEAR_HOOKS", "COMPANION_MARK", "clear_caches", "compile_groups",
           "may_have_companion", "native_pattern", "new_pattern", "scan_groups", "scan_lines",
           "scan_rules", "scan_spans", "select", "selection_lines", "selection_spans",
           "span_rows"]

#: compat(google): ``Allow: /x/index.htm`` (or ``index.html``...) also allows ``/x/``
#: (robots.cc HandleAllow): the page a companion rule is derived from.
COMPANION_MARK: Final = "/index.htm"


def may_have_companion(raw: str, allow: bool) -> bool:
    """Whether a rule's raw value may get Google's companion rule, so that it is never read
    as a plain prefix (:func:`new_pattern` decides on the normal form). The one home of the
    rule's trigger: the native kernel reads :data:`COMPANION_MARK` through
    :mod:`robotrules._tables`."""
    return allow and COMPANION_MARK in raw


# Compiled patterns by (dialect, allow), then by the raw value: the same patterns recur across
# files (``/wp-admin/``, ``/*?``), so each is classified once. Bounded: a full memo starts over.
_PATTERNS: Final[dict[tuple[str, bool], dict[str, Pattern]]] = {
    (d, a): {} for d in NAMES for a in (False, True)}
_PATTERNS_MAX: Final = 32768


def clear_caches() -> None:
    """Empty the process-wide memos (patterns, agent keys, field names): the state of a
    fresh process. For benchmarks and tests; nothing else needs it."""
    for memo in _PATTERNS.values():
        memo.clear()
    for nmemo in _NATIVE.values():
        nmemo.clear()
    for hook in CLEAR_HOOKS:
        hook()
    _token.clear_caches()
    _tokenize.clear_caches()


#: More memos to empty with the others (the native kernels register theirs here).
CLEAR_HOOKS: Final[list[Callable[[], None]]] = []

# A pattern as the native kernels read it: (body, kind, anchored, prefix length, priority),
# the body being the pattern's UTF-8 bytes with redundant stars dropped (see Pattern).
NativePattern = tuple[bytes, int, bool, int, int]
_NATIVE: Final[dict[tuple[str, bool], dict[str, tuple[NativePattern,
                                                      NativePattern | None]]]] = {
    (d, a): {} for d in NAMES for a in (False, True)}


def _native_form(p: Pattern) -> NativePattern:
    if p.kind == STAR:
        body = p.prefix + "*" + p.suffix
    elif p.kind == WILD:
        body = "*".join(p.segments)
    else:
        body = p.prefix
    data = body.encode("utf-8", "surrogatepass")
    return (data, p.kind, p.anchored, len(p.prefix.encode("utf-8", "surrogatepass")),
            p.priority)


def native_pattern(raw: str, dialect: str, allow: bool
                   ) -> tuple[NativePattern, NativePattern | None]:
    """A rule's raw value as the native kernels match it, and its companion rule (Google's
    ``/dir/$`` of an ``Allow: /dir/index.html``), from the same :func:`new_pattern` the pure
    matcher uses: one reading of patterns for both. Memoised like the pure patterns."""
    memo = _NATIVE[(dialect, allow)]
    hit = memo.get(raw)
    if hit is None:
        p = new_pattern(raw, dialect, allow)
        c = p.companion
        hit = memo[raw] = (_native_form(p), None if c is None else _native_form(c))
        if len(memo) > _PATTERNS_MAX:
            memo.clear()
    return hit


def new_pattern(raw: str, dialect: str, allow: bool) -> Pattern:
    """A rule's raw value as a :class:`Pattern` of its dialect (the caller memoises it)."""
    sp = SPECS[dialect]  # type: ignore[index]
    pat = sp.pattern(raw)
    if not sp.wildcards:
        p = Pattern(pat, allow, len(pat), literal=True)  # 1994: no wildcards
    else:
        p = Pattern(pat, allow, len(pat))
        slash = pat.rfind("/")
        if (slash >= 0 and pat.startswith(COMPANION_MARK, slash)
                and may_have_companion(raw, allow)):  # (the value as written holds it)
            # compat(google): Allow: /x/index.htm(l) also allows /x/ (robots.cc HandleAllow)
            derived = pat[: slash + 1] + "$"
            p.companion = Pattern(derived, True, len(derived))
    return p


def _rules(idx: GroupIndex, groups: tuple[int, ...], text: str, dirs: array[int]
           ) -> Iterator[tuple[int, str, bool]]:
    """Each rule of ``groups`` (their lines in ``idx``) with a value: its directive index,
    raw value and whether it allows (an empty pattern never decides: left out)."""
    for g in groups:
        for v in idx.block(g):
            tag = v & 3
            if tag != TAG_ALLOW and tag != TAG_DISALLOW:
                continue
            i = v >> 2
            n = dirs[3 * i + 2]
            if n:
                start = dirs[3 * i + 1]
                yield i, text[start : start + n], tag == TAG_ALLOW


def _pattern(memo: dict[str, Pattern], raw: str, dialect: Dialect, allow: bool) -> Pattern:
    p = memo.get(raw)
    if p is None:
        p = memo[raw] = new_pattern(raw, dialect, allow)
        if len(memo) > _PATTERNS_MAX:
            memo.clear()
    return p


def compile_groups(idx: GroupIndex, groups: tuple[int, ...], text: str, dirs: array[int],
                   dialect: Dialect) -> Matcher:
    """The matcher of the rules of ``groups`` (their lines in ``idx``), best rule first."""
    plain: dict[str, int] = {}  # plain-prefix rules: prefix -> best key
    others: list[Entry] = []  # the rest (1994: every rule)
    legacy = SPECS[dialect].first_match
    allows = _PATTERNS[(dialect, True)]
    disallows = _PATTERNS[(dialect, False)]
    not_plain = SPECS[dialect].not_plain
    for g in groups:  # _rules inlined: this loop is the compile's hot one
        for v in idx.block(g):
            tag = v & 3
            if tag != TAG_ALLOW and tag != TAG_DISALLOW:
                continue
            i = v >> 2
            n = dirs[3 * i + 2]
            if not n:
                continue  # an empty pattern never decides
            start = dirs[3 * i + 1]
            raw = text[start : start + n]
            allow = tag == TAG_ALLOW
            if not_plain(raw) is None and not may_have_companion(raw, allow):
                rank = rank_base(n, allow) + i
                if legacy:
                    others.append((rank, PREFIX, raw, None))
                    continue
                # the same plain prefix twice: both always match together, so
                # only the better one can ever decide
                old = plain.get(raw)
                if old is None or rank < old:
                    plain[raw] = rank
                continue
            p = _pattern(allows if allow else disallows, raw, dialect, allow)
            others.append((p.base + i, p.kind, p.prefix, p))
            c = p.companion
            if c is not None:
                others.append((c.base + i, c.kind, c.prefix, c))
    if legacy:
        others.sort(key=_index_of)  # file order: the first match wins
        m: Matcher = _FirstMatch(others)
    else:
        m = make_matcher(plain, others)
    return m


def scan_groups(idx: GroupIndex, groups: tuple[int, ...], text: str, dirs: array[int],
                dialect: Dialect, path: str) -> int:
    """The key :func:`compile_groups`' matcher gives for ``path``, read off the rules of
    ``groups`` (their lines in ``idx``) one by one without making it: :func:`scan_lines`."""
    return scan_lines([v for g in groups for v in idx.block(g)], text, dirs, dialect, path)


def scan_lines(lines: list[int], text: str, dirs: array[int], dialect: Dialect,
               path: str) -> int:
    """The key :func:`compile_groups`' matcher gives for ``path`` over a selection's lines
    (``i << 2 | tag`` in file order, as :class:`~robotrules._index.GroupIndex` keeps them; lines
    that are not rules are passed over): :func:`scan_rules`."""
    rows = [(v >> 2, v & 3, dirs[3 * (v >> 2) + 1], dirs[3 * (v >> 2) + 2]) for v in lines
            if v & 3 == TAG_ALLOW or v & 3 == TAG_DISALLOW]
    return scan_rules(rows, text, dialect, path)


def span_rows(spans: list[tuple[int, int]], tags: bytes, dirs: array[int]
              ) -> Iterator[tuple[int, int, int, int]]:
    """:func:`scan_rules`' rows for the directive ranges ``spans`` (file order) whose tags
    are ``tags`` (one byte a directive: TAG_ALLOW, TAG_DISALLOW, or 0 for the rest)."""
    return chain.from_iterable(
        zip(range(first, end), tags[first:end], dirs[3 * first + 1 : 3 * end : 3],
            dirs[3 * first + 2 : 3 * end : 3], strict=True) for first, end in spans)


def scan_rules(rows: Iterable[tuple[int, int, int, int]], text: str, dialect: Dialect,
               path: str) -> int:
    """The key :func:`compile_groups`' matcher gives for ``path`` over a selection's
    directives, each a row ``(index, tag, value start, value length)`` in file order (a
    rule's tag is TAG_ALLOW or TAG_DISALLOW; a row with tag 0 is passed over), read off the
    rules one by one without making it (a large selection's first query: no sort, no index).
    A rule whose value up to its first byte the dialect does not read as it is
    (``not_plain``) is not a prefix of ``path`` is passed over unread: its pattern's literal
    prefix starts with those bytes, so it cannot match; most are passed over on their first
    two bytes alone (read as they are and not ``path``'s first two), or on their first six
    where the first two are ``path``'s (a head that shows ``path`` holds the literal prefix
    also spares the search of the value for it). So is one with a run between stars, read
    as is, that ``path`` does not hold. A rule that may have Google's companion is always
    read."""
    legacy = SPECS[dialect].first_match
    allows = _PATTERNS[(dialect, True)]
    disallows = _PATTERNS[(dialect, False)]
    not_plain = SPECS[dialect].not_plain
    startswith = path.startswith
    find = text.find
    path2 = path[:2]
    path6 = path[:6]
    heads: dict[str, bool] = {}  # a rule's head -> whether path holds its literal prefix
    best = NO_MATCH
    first = NO_MATCH  # 1994: the earliest matching rule's index, then its key in best
    for i, tag, start, n in rows:  # the first query's loop: the two-byte test first
        if not tag or not n:
            continue  # not a rule, or an empty pattern (it never decides)
        if legacy and i >= first:
            return best  # the rules come in file order: an earlier one matched
        allow = tag == TAG_ALLOW
        prefixed = False  # whether its head shows path holds its literal prefix
        if n >= 2:
            head = text[start : start + 2]
            if head == path2:  # then its first six bytes, where it has them
                head = "" if n < 6 else text[start : start + 6]
                if head == path6:
                    head = ""
            if head:
                known = heads.get(head)
                if known is None:
                    # its literal prefix is the head's bytes up to the first one not read as
                    # is (all of them if none): path lacks it (passed over), or holds it
                    odd = not_plain(head)
                    known = heads[head] = odd is not None and startswith(head[: odd.start()])
                prefixed = known
                if not prefixed and not (allow and find(COMPANION_MARK, start, start + n) >= 0):
                    continue
        raw = text[start : start + n]
        if not may_have_companion(raw, allow):
            if not prefixed:
                odd = not_plain(raw)
                if odd is None:
                    if startswith(raw):
                        key = rank_base(n, allow) + i
                        if legacy:
                            first, best = i, key
                        elif key < best:
                            best = key
                    continue
                if not startswith(raw[: odd.start()]):
                    continue  # its pattern's literal prefix starts with these bytes, as is
            lacks = False
            for piece in raw.rstrip("$").split("*"):
                if piece not in path and not_plain(piece) is None:
                    lacks = True  # a literal run between stars, read as is, that path lacks
                    break
            if lacks:
                continue
        p = _pattern(allows if allow else disallows, raw, dialect, allow)
        for q in (p, p.companion):
            if q is not None and q.base + i < best and pattern_matches(q, path):
                if legacy:
                    first, best = i, q.base + i
                    break
                best = q.base + i
    return best


# -- a large selection's first query: the rules that may match, sifted at C speed -------------
# A Python loop over a selection's rules costs several times what C-level passes over columns
# of one byte a rule cost (a byte of each value gathered by an itemgetter, then translate and
# big-int bit operations over the columns): scan_spans reads in Python only what they leave.
_SIFT_MIN: Final = 64  # below this many directives, scan_rules reads every rule
_SIFT_HEAD: Final = 24  # the bytes of a value the columns compare with the path's
_ONE: Final = bytes(b != 0 for b in range(256))  # a byte not 0
_MORE_THAN: Final = tuple(bytes(b > n for b in range(256)) for n in range(_SIFT_HEAD))
_STAR_BYTE: Final = bytes(b == 0x2A for b in range(256))  # "*"
_ODD_BYTES: Final[dict[str, bytes]] = {}  # per dialect: 1 for a byte not_plain finds, else 0
_SIFT_READ: Final = sys.byteorder == "little" and array("I").itemsize == 4


def _odd_bytes(dialect: Dialect) -> bytes:
    odd = _ODD_BYTES.get(dialect)
    if odd is None:
        not_plain = SPECS[dialect].not_plain
        odd = _ODD_BYTES[dialect] = bytes(not_plain(chr(b)) is not None for b in range(256))
    return odd


def _equal(path: str, at: int) -> bytes:
    """A translate table: 1 for byte ``at`` of ``path`` (none past its end or Latin-1), else 0."""
    table = bytearray(256)
    if at < len(path) and ord(path[at]) < 256:
        table[ord(path[at])] = 1
    return bytes(table)


def _ones(mask: int, count: int) -> list[int]:
    """The positions of the bytes of ``mask`` (``count`` bytes, little-endian) that are not 0."""
    out: list[int] = []
    if mask:
        find = mask.to_bytes(count, "little").find
        j = find(1)
        while j >= 0:
            out.append(j)
            j = find(1, j + 1)
    return out


def _pick(data: bytes, positions: list[int]) -> bytes:
    """The bytes of ``data`` at ``positions``."""
    if len(positions) > 1:
        return bytes(itemgetter(*positions)(data))
    return data[positions[0] : positions[0] + 1]


def _column(data: memoryview, at: int, where: list[int]) -> bytes:
    """Byte ``at`` of the values starting at ``where`` (ascending), one byte a value (0 past
    the end of ``data``)."""
    cut = bisect_right(where, len(data) - 1 - at)
    if cut > 1:
        got = bytes(itemgetter(*(where if cut == len(where) else where[:cut]))(data[at:]))
    else:
        got = bytes(data[at + where[0] : at + where[0] + 1]) if cut else b""
    return got + bytes(len(where) - cut)


def scan_spans(spans: list[tuple[int, int]], tags: bytes, dirs: array[int], text: str,
               dialect: Dialect, path: str) -> int:
    """The key :func:`compile_groups`' matcher gives for ``path`` over the directive ranges
    ``spans`` whose tags are ``tags`` (:func:`selection_spans`' answer): :func:`scan_rules`
    over only the rules that may match, sifted by C-level passes over their values' first
    bytes. A rule can match only where its literal prefix (its bytes up to the first one the
    dialect does not read as it is, ``not_plain``) opens ``path``: so each of its first six
    bytes is ``path``'s until one is such a byte or the value ends. With wildcards, a star
    as the first such byte, followed by two bytes read as they are, opens a literal run: a
    rule whose two bytes there are not side by side in ``path`` cannot match either. An
    Allow rule that may have Google's companion is read whenever ``path`` ends in "/" (the
    companion, ``/x/$``, matches no other path)."""
    sp = SPECS[dialect]
    if len(spans) == 1:
        first, end = spans[0]
        starts = dirs[3 * first + 1 : 3 * end : 3]
        lens = dirs[3 * first + 2 : 3 * end : 3]
        kinds = tags[first:end]
    else:
        starts = array("I")
        lens = array("I")
        kinds = b""
        for first, end in spans:
            starts += dirs[3 * first + 1 : 3 * end : 3]
            lens += dirs[3 * first + 2 : 3 * end : 3]
            kinds += tags[first:end]
    count = len(starts)
    if count < _SIFT_MIN or not path or not _SIFT_READ or starts.itemsize != 4:
        return scan_rules(span_rows(spans, tags, dirs), text, dialect, path)
    try:
        data = memoryview(text.encode("latin-1"))
    except UnicodeEncodeError:  # (the peer's text is Latin-1: one character a byte)
        return scan_rules(span_rows(spans, tags, dirs), text, dialect, path)
    num = int.from_bytes
    every = num(b"\1" * count, "little")
    odd = _odd_bytes(dialect)
    where = starts.tolist()
    c0 = _column(data, 0, where)
    c1 = _column(data, 1, where)
    # a value's length, one byte a rule: its low byte, and whether another is set
    lb = lens.tobytes()
    low = lb[0::4]
    high = num((lb[1::4] + lb[2::4] + lb[3::4]).translate(_ONE), "little")
    high = (high | high >> 8 * count | high >> 16 * count) & every
    rule = num(kinds.translate(_ONE), "little") & (num(low.translate(_ONE), "little") | high)
    odd0 = num(c0.translate(odd), "little")
    two = num(low.translate(_MORE_THAN[1]), "little") | high  # two bytes long or more
    plain0 = rule & (odd0 ^ every) & num(c0.translate(_equal(path, 0)), "little")
    odd1 = num(c1.translate(odd), "little")
    first_odd = rule & odd0  # an empty literal prefix
    second_odd = plain0 & two & odd1  # path's first byte, then one not read as it is
    head = plain0 & two & (odd1 ^ every) & num(c1.translate(_equal(path, 1)), "little")
    found = _ones(plain0 & (two ^ every), count)  # the value is path's first byte
    if sp.wildcards and len(path) > 1:
        # a star, then two bytes read as they are that path does not hold side by side
        pb = path.encode("latin-1", "replace")  # (a character past Latin-1 is in no value)
        pairs = bytearray(2 * len(pb) - 2)
        pairs[0::2] = pb[:-1]
        pairs[1::2] = pb[1:]
        held = set(memoryview(pairs).cast("H"))  # (x | y << 8, as the values' pairs below)
        for lead, at, star_at in ((first_odd, 1, c0), (second_odd, 2, c1)):
            star = lead & num(star_at.translate(_STAR_BYTE), "little") & (
                num(low.translate(_MORE_THAN[at + 1]), "little") | high)
            found += _ones(lead ^ star, count)
            positions = _ones(star, count)
            if not positions:
                continue
            at_star = [where[j] for j in positions]
            x = _column(data, at, at_star)
            y = _column(data, at + 1, at_star)
            got = bytearray(2 * len(positions))
            got[0::2] = x
            got[1::2] = y
            keep = (num(bytes(map(held.__contains__, memoryview(got).cast("H"))), "little")
                    | num(x.translate(odd), "little") | num(y.translate(odd), "little"))
            found += compress(positions, keep.to_bytes(len(positions), "little"))
    else:
        found += _ones(first_odd | second_odd, count)
    positions = _ones(head, count)
    if positions:
        # the next bytes of the values that open with path's first two, as far as they go
        at_head = [where[j] for j in positions]
        size = len(positions)
        low_h = _pick(low, positions)
        high_h = num(_pick(high.to_bytes(count, "little"), positions), "little")
        run = num(b"\1" * size, "little")
        left = 0
        last = min(len(path) + 1, _SIFT_HEAD)
        pick = itemgetter(*at_head) if size > 1 and at_head[-1] + last <= len(data) else None
        for at in range(2, last):
            col = bytes(pick(data[at:])) if pick is not None else _column(data, at, at_head)
            stop = ((num(low_h.translate(_MORE_THAN[at]), "little") | high_h) ^ run
                    | num(col.translate(odd), "little")) & run  # ends, or not read as it is
            left |= stop
            run &= ~stop & num(col.translate(_equal(path, at)), "little")
            if not run:
                break
        found += compress(positions, (left | run).to_bytes(size, "little"))
    if path.endswith("/") and sp.wildcards:
        # Google's companion: an Allow rule holding the trigger (may_have_companion)
        lo = where[0]
        hi = where[-1] + lens[-1]
        mark = len(COMPANION_MARK)
        at = text.find(COMPANION_MARK, lo, hi)
        while at >= 0:
            j = bisect_right(where, at) - 1
            if kinds[j] == TAG_ALLOW and at + mark <= where[j] + lens[j]:
                found.append(j)
            at = text.find(COMPANION_MARK, at + 1, hi)
    found = sorted(set(found))
    if len(spans) == 1:
        base = spans[0][0]
        rows = [(base + j, kinds[j], where[j], lens[j]) for j in found]
    else:
        offsets = [0]
        for first, end in spans:
            offsets.append(offsets[-1] + end - first)
        rows = []
        for j in found:
            s = bisect_right(offsets, j) - 1
            rows.append((spans[s][0] + j - offsets[s], kinds[j], where[j], lens[j]))
    return scan_rules(rows, text, dialect, path)


# -- a selection's rules without the group index ------------------------------------------------
# A directive head is kind << KIND_SHIFT | line (robotrules._tokenize): with 32-bit heads
# stored little-endian, each head's last byte is kind << 1 and one bit of the line, so the
# kinds of all directives are one strided copy and one translate (C loops), and the
# user-agent lines, blank lines and rules are found by bytes searches.
_KIND_OF_TOP: Final = bytes(b >> 1 for b in range(256))
_TAG_OF_TOP: Final = bytes(TAG_ALLOW if b >> 1 == _tokenize.ALLOW
                           else TAG_DISALLOW if b >> 1 == _tokenize.DISALLOW else 0
                           for b in range(256))
_KIND_BYTES_READ: Final = (sys.byteorder == "little" and _tokenize.KIND_SHIFT == 25
                           and array("I").itemsize == 4)
_UA_BYTE: Final = bytes([_tokenize.UA])
_UA_SHARE: Final = 8  # read so where at most one directive in this many is a user-agent line
_ANY_ROLES: Final = frozenset({"agent", "any"})  # kept where they stand (robotrules._index)


def _rules_end_agents(dialect: Dialect) -> re.Pattern[bytes]:
    """The kinds after which a user-agent line opens a new group (robotrules._index: a rule,
    or a directive kept where it stands that the dialect's spec says ends the agents)."""
    kinds = {_tokenize.ALLOW, _tokenize.DISALLOW} | {
        k for k in SPECS[dialect].ends_agents
        if 0 < k <= len(_directives.REGISTRY)
        and _directives.REGISTRY[k - 1].role in _ANY_ROLES and k != _tokenize.UA}
    return re.compile(b"[" + b"".join(re.escape(bytes([k])) for k in sorted(kinds)) + b"]")


_ENDS_AGENTS: Final = {d: _rules_end_agents(d) for d in NAMES}


def selection_lines(text: str, dirs: array[int], dialect: Dialect, key: str
                    ) -> tuple[str, list[int]] | None:
    """:func:`selection_spans` as the index's lines (``i << 2 | tag``, file order): the
    rules of the groups a query key picks."""
    found = selection_spans(text, dirs, dialect, key)
    if found is None:
        return None
    selection, spans, tags = found
    return selection, [i << 2 | tags[i] for first, end in spans for i in range(first, end)
                       if tags[i]]


def selection_spans(text: str, dirs: array[int], dialect: Dialect, key: str
                    ) -> tuple[str, list[tuple[int, int]], bytes] | None:
    """Without building the group index: :func:`select`'s cache key for a query key, the
    directive ranges of the groups it picks (file order) and each directive's tag (TAG_ALLOW
    or TAG_DISALLOW for a rule, 0 for the rest: :func:`scan_rules` reads a range so), from
    one pass over the user-agent lines (the groups' extent as :mod:`robotrules._index`
    reads it: a user-agent line after a rule opens a group, and a group runs to the next;
    the agents each names by the token home). None where the dialect reads no product
    tokens or ends a group at a blank line (1994), where more than one directive in
    ``_UA_SHARE`` is a user-agent line, or where the heads are not laid out as read here."""
    spec = SPECS[dialect]
    if (not spec.token_agents or spec.blank_ends_group or not _KIND_BYTES_READ
            or dirs.itemsize != 4):
        return None
    heads = memoryview(dirs).cast("B")[3::12].tobytes()
    kinds = heads.translate(_KIND_OF_TOP)
    if kinds.count(_UA_BYTE) * _UA_SHARE > len(kinds):
        return None  # many groups: the index reads them at about the same cost
    ends = _ENDS_AGENTS[dialect]
    find = kinds.find
    spans: list[list[int]] = []  # [first directive, end] of each group, file order
    named: list[int] = []  # the groups that name the key
    global_: list[int] = []
    in_group = has_rules = False
    at = 0
    u = find(_UA_BYTE)
    while u >= 0:
        if in_group and ends.search(kinds, at, u):
            has_rules = True
        if not in_group or has_rules:
            if in_group:
                spans[-1][1] = u
            spans.append([u, len(kinds)])
            in_group, has_rules = True, False
        g = len(spans) - 1
        agent = _agent_of(text, dirs, u, dialect)[1]  # (the index's own reading)
        if agent == _token.GLOBAL:
            if not global_ or (spec.merge_groups and global_[-1] != g):
                global_.append(g)
        elif _token.ascii_lower(agent) == key and (not named or named[-1] != g):
            named.append(g)
        at = u + 1
        u = find(_UA_BYTE, at)
    return ((key if named else "*"), [(spans[g][0], spans[g][1]) for g in named or global_],
            heads.translate(_TAG_OF_TOP))


def select(idx: GroupIndex, key: str, dialect: Dialect) -> tuple[str, tuple[int, ...]]:
    """Cache key and indices of the groups that apply to a query key."""
    if SPECS[dialect].token_agents:
        groups = idx.by_token.get(key)
        if groups is None:
            return "*", idx.global_
        return key, groups
    # 1994: the first record (file order) whose agent value contains the name token
    first = -1
    if key:
        for value, gs in idx.by_token.items():
            if key in value and (first < 0 or gs[0] < first):
                first = gs[0]
    if first < 0:
        return "*", idx.global_[:1]
    return str(first), (first,)


class _FirstMatch(Matcher):
    """1994: rules in file order, plain prefixes, the first match wins.

    The rules are held as a table from prefix to the first rule (in file order) with that
    prefix, and the lengths the prefixes have: a query looks up each of the path's prefixes
    of those lengths and keeps the earliest rule found. That is at most one look-up per
    distinct prefix length (never more than the rules), where a scan of the rules costs one
    comparison per rule: ``robotrules diff --vs-dialect 1994`` asks once per rule.
    """

    __slots__ = ("_first", "_lengths")

    def __init__(self, entries: list[Entry]) -> None:
        first: dict[str, tuple[int, int]] = {}  # prefix -> (file position, key)
        for pos, e in enumerate(entries):
            first.setdefault(e[2], (pos, e[0]))
        self._first = first
        self._lengths = sorted({len(prefix) for prefix in first})

    def best(self, path: str) -> int:
        first = self._first
        found: tuple[int, int] | None = None
        n = len(path)
        for k in self._lengths:
            if k > n:
                break
            hit = first.get(path[:k])
            if hit is not None and (found is None or hit[0] < found[0]):
                found = hit
        return NO_MATCH if found is None else found[1]


def _index_of(e: Entry) -> int:
    return e[0] & INDEX_MASK
