"""Compiling a group's rules into a matcher, and choosing the groups a query's token selects.

A matcher is built on a query's first use of a group selection (the caller keeps it): each
rule's raw value is read by the dialect's pattern normaliser (:mod:`robotrules._dialects`);
plain prefixes (most rules) need no object, the others become :class:`~robotrules._match.Pattern`
objects shared process-wide through a bounded memo, since the same patterns recur across files.
Cost: O(rules of the selected groups) per build; see :mod:`robotrules._match` for queries.

A large selection's first query reads its rules without a matcher (:func:`scan_spans`): C-level
passes over one byte of each value at a time (at most ``_SIFT_KEEP`` passes over the values
that still agree with the path before they are halved, ``_SIFT_HEAD`` bytes in all) leave the
rules that may match, which :func:`scan_rules` reads one by one: O(rules) C steps, plus the
Python reading of those left (all of them at worst, when every value opens like the path).
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate, chain, compress
from itertools import count as icount
from operator import add, itemgetter
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
_SIFT_HEAD: Final = 24  # the bytes of a value the columns compare with the path's at most
_SIFT_KEEP: Final = 8  # bytes in a row after which a run most rules stay in is kept whole
_SIFT_READ: Final = sys.byteorder == "little" and array("I").itemsize == 4
_ONE: Final = b"\0" + b"\1" * 255  # a byte not 0
# a length's low byte as bits: bit k - 1 set for k bytes or more (k = 1 to 4)
_LENGTH_BITS: Final = bytes((0, 1, 3, 7)) + b"\x0f" * 252
_AT_MOST: Final = tuple(b"\1" * (n + 1) + b"\0" * (255 - n) for n in range(_SIFT_HEAD))
_SIFT_FLAGS: Final[dict[tuple[str, bool], bytes]] = {}


def _odd_bytes(dialect: Dialect) -> bytes:
    """1 for each byte the dialect does not read as it is (``not_plain``), else 0."""
    return _sift_flags(dialect, False)


def _sift_flags(dialect: Dialect, wildcards: bool) -> bytes:
    """Per byte: 1 if the dialect does not read it as it is, plus 4 for a star (wildcards)."""
    flags = _SIFT_FLAGS.get((dialect, wildcards))
    if flags is None:
        not_plain = SPECS[dialect].not_plain
        flags = _SIFT_FLAGS[(dialect, wildcards)] = bytes(
            (not_plain(chr(b)) is not None) | (4 if wildcards and b == 0x2A else 0)
            for b in range(256))
    return flags


def _with_path(flags: bytes, path: str, at: int, bit: int = 2) -> bytes:
    """``flags`` with ``bit`` set for byte ``at`` of ``path`` (none past its end or Latin-1)."""
    if at >= len(path) or ord(path[at]) > 255:
        return flags
    table = bytearray(flags)
    table[ord(path[at])] |= bit
    return bytes(table)


def _where(mask: int, count: int) -> list[int]:
    """The positions of the bytes of ``mask`` (``count`` bytes, little-endian) that are not 0,
    ascending (C loops: the lengths of the runs between them when few are, else compress)."""
    if not mask:
        return []
    data = mask.to_bytes(count, "little")
    if data.count(1) * 4 > count:
        return list(compress(range(count), data))
    runs = data.split(b"\1")
    del runs[-1]
    return list(map(add, accumulate(map(len, runs)), icount()))


def _column(data: bytes | memoryview, at: int, where: list[int]) -> bytes:
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
    over only the rules :func:`_sift` leaves."""
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
    if len(starts) >= _SIFT_MIN and path and _SIFT_READ and starts.itemsize == 4:
        try:
            chosen = _sift(starts, lens, kinds, text, dialect, path)
        except UnicodeEncodeError:  # (a character past Latin-1: not a text the peer reads)
            pass
        else:
            offsets = [0]
            for first, end in spans:
                offsets.append(offsets[-1] + end - first)
            rows = []
            for j in chosen:
                s = bisect_right(offsets, j) - 1
                rows.append((spans[s][0] + j - offsets[s], kinds[j], starts[j], lens[j]))
            return scan_rules(rows, text, dialect, path)
    return scan_rules(span_rows(spans, tags, dirs), text, dialect, path)


def _sift(starts: array[int], lens: array[int], kinds: bytes, text: str, dialect: Dialect,
          path: str) -> list[int]:
    """The positions (ascending) of the rules among ``starts``, ``lens`` and ``kinds`` (each
    value's start, length and tag) that may match ``path``, sifted by C-level passes over
    columns of one byte a rule (a byte of each value gathered, translated to flag bits, read
    as one big integer). A rule can match only where its literal prefix (its bytes up to the
    first one the dialect does not read as it is, ``not_plain``) opens ``path``: so each of
    its first bytes is ``path``'s until one is such a byte or the value ends (read on for
    the values opening with ``path``'s first two bytes while most of them agree). With
    wildcards, a star as the first such byte, followed by two bytes read as they are, opens
    a literal run: a rule whose two bytes there are not side by side in ``path`` cannot
    match either. An Allow rule that may have Google's companion is kept whenever ``path``
    ends in "/" (the companion, ``/x/$``, matches no other path)."""
    sp = SPECS[dialect]
    count = len(starts)
    num = int.from_bytes
    every = num(b"\1" * count, "little")
    odd = _odd_bytes(dialect)
    # the text from the first value to past the last, and each value's start in it
    lo = starts[0]
    region = text[lo : starts[-1] + lens[-1] + _SIFT_HEAD].encode("latin-1")
    rel = array("I")
    rel.frombytes((num(starts.tobytes(), "little") - lo * num(b"\1\0\0\0" * count, "little")
                   ).to_bytes(4 * count, "little"))
    where = rel.tolist()
    # flag bits of each value's first two bytes (1: not read as it is, 2: path's, 4: a star)
    flags = _sift_flags(dialect, sp.wildcards)
    first = _column(region, 0, where).translate(_with_path(flags, path, 0))
    second = _column(region, 1, where).translate(_with_path(flags, path, 1))
    c0 = num(first, "little")
    c1 = num(second, "little")
    # and of each value's length (bit k - 1: k bytes long or more, k = 1 to 4)
    lb = lens.tobytes()
    low = lb[0::4]
    size = num(low.translate(_LENGTH_BITS), "little")
    higher = lb[1::4] + lb[2::4] + lb[3::4]
    high = 0  # 1 for a value of 256 bytes or more
    if higher.count(0) != len(higher):
        high = num(higher.translate(_ONE), "little")
        high = (high | high >> 8 * count | high >> 16 * count) & every
        size |= high * 15
    rule = num(kinds.translate(_ONE), "little") & size & every
    odd0 = c0 & every
    first_odd = rule & odd0  # an empty literal prefix
    plain0 = rule & ~odd0 & c0 >> 1  # path's first byte, read as it is
    two = size >> 1 & every  # two bytes long or more
    second_odd = plain0 & two & c1  # path's first byte, then one not read as it is
    head = plain0 & two & ~c1 & c1 >> 1  # path's first two bytes
    star1 = first_odd & c0 >> 2 & size >> 2  # "*", then two bytes
    star2 = second_odd & c1 >> 2 & size >> 3  # path's first byte, "*", then two bytes
    if len(path) < 2:
        star1 = star2 = 0
    # the value is path's first byte, or its literal prefix is path's first byte or none
    chosen = _where(plain0 & ~two & every | first_odd & ~star1 | second_odd & ~star2, count)
    if star1 | star2:
        # a star's next two bytes that path does not hold side by side: no match
        pb = path.encode("latin-1", "replace")  # (a character past Latin-1 is in no value)
        pairs = bytearray(2 * len(pb) - 2)
        pairs[0::2] = pb[:-1]
        pairs[1::2] = pb[1:]
        held = set(memoryview(pairs).cast("H"))  # (x | y << 8, as the values' pairs)
        one = _where(star1, count)
        two_ = _where(star2, count)
        at_one = [where[j] for j in one]
        at_two = [where[j] for j in two_]
        # star1's pair is bytes 1 and 2 of the value, star2's bytes 2 and 3
        x = (_column(region, 1, at_one) if one else b"") + (
            _column(region, 2, at_two) if two_ else b"")
        y = (_column(region, 2, at_one) if one else b"") + (
            _column(region, 3, at_two) if two_ else b"")
        got = bytearray(2 * len(x))
        got[0::2] = x
        got[1::2] = y
        kept = (num(bytes(map(held.__contains__, memoryview(got).cast("H"))), "little")
                | num(x.translate(odd), "little") | num(y.translate(odd), "little"))
        chosen += compress(one + two_, kept.to_bytes(len(x), "little"))
    if head:
        # the values opening with path's first two bytes: their next bytes while they are
        # path's (one not read as it is, or the value's end, keeps the rule); the rules
        # still in the run are picked out again each time most have left it, and all kept
        # once most have stayed in it for _SIFT_KEEP bytes
        positions = _where(head, count)
        at_pos = [where[j] for j in positions]
        lows = (bytes(itemgetter(*positions)(low)) if len(positions) > 1
                else low[positions[0] : positions[0] + 1])
        if high:  # (a value of 256 bytes or more reads as 255 here)
            lows = bytes(255 if (high >> 8 * j) & 1 else b
                         for j, b in zip(positions, lows, strict=True))
        data = memoryview(region)
        at = 2
        last = min(len(path) + 1, _SIFT_HEAD)
        while True:
            many = len(positions)
            run = num(b"\1" * many, "little")
            left = 0
            pick = itemgetter(*at_pos) if many > 1 and at_pos[-1] + last <= len(data) else None
            stay = 0
            while at < last and run and run.bit_count() * 2 > many and stay < _SIFT_KEEP:
                col = num((bytes(pick(data[at:])) if pick is not None
                           else _column(data, at, at_pos)).translate(
                               _with_path(odd, path, at, 2)), "little")
                stop = (num(lows.translate(_AT_MOST[at]), "little") | col) & run
                left |= stop
                run &= ~stop & col >> 1
                at += 1
                stay += 1
            if at >= last or not run or stay >= _SIFT_KEEP:
                chosen += compress(positions, (left | run).to_bytes(many, "little"))
                break
            chosen += compress(positions, left.to_bytes(many, "little"))
            keep = run.to_bytes(many, "little")
            positions = list(compress(positions, keep))
            at_pos = list(compress(at_pos, keep))
            lows = bytes(compress(lows, keep))
    if path.endswith("/") and sp.wildcards:
        # Google's companion: an Allow rule holding the trigger (may_have_companion)
        hi = lo + where[-1] + lens[-1]
        at = text.find(COMPANION_MARK, lo, hi)
        while at >= 0:
            j = bisect_right(where, at - lo) - 1
            if kinds[j] == TAG_ALLOW and at - lo + len(COMPANION_MARK) <= where[j] + lens[j]:
                chosen.append(j)
            at = text.find(COMPANION_MARK, at + 1, hi)
    return sorted(set(chosen))


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
    heads = dirs.tobytes()[3::12]
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
