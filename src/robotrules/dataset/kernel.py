"""The batch kernel: verdict columns for Arrow record batches of URLs joined with robots rows.

Every engine (DuckDB, Spark's ``mapInArrow``) calls :func:`evaluate` on batches whose rows are
one URL each, joined by origin with that origin's chosen robots.parquet row (``origin``,
``robots_outcome``, ``robots_body``, ``robots_fetch_time``: null when the archive has no
capture of the origin; ``robots_body`` may be dictionary-encoded so that a batch holds each body
once). For each agent it adds, in this order:

``{agent}__allowed`` (bool), ``{agent}__line`` (int32, the deciding line), ``{agent}__rule``
(the deciding rule as written, e.g. ``Disallow: /private``), ``{agent}__reason`` (the
:class:`~robotrules.Verdict` reason, or ``allow-all`` / ``disallow-all`` for a capture without
rules (RFC 9309 2.3.1.3, 2.3.1.4), ``no-capture`` when the archive has no robots.txt for the
origin, ``invalid-url``), and, with ``usage=True``, the AI usage preferences
``{agent}__crawl`` and one column per category of the AIPREF vocabulary
(:func:`usage_columns`: ``train-ai``, ``search``, ``ai-train``, ``ai-input``; ``vocab-08`` adds
``ai-use``) (bool, null when the file says nothing).

The input's ``robots_body`` column is dropped from the output.

Theory of operation: columns, not rows. A batch's rows are grouped by origin (a join gives one
capture per origin) with one stable ``argsort`` of the origin's dictionary code; rows without
rules (no capture, allow-all, disallow-all, invalid URL) are filled by vectorised masks. Each
group goes to the core's batch API on Arrow buffers (:meth:`RobotsTxt.decide_buffers`)
in one call per agent with the group's row numbers: the URLs are read from the URL column's
offsets and data (string or large_string; no Python string per URL) and the answers
(``RobotsTxt.decide_many``'s allowed, line, rule, reason) written into the output columns at
those rows. A URL whose bytes are not UTF-8 is an invalid URL. The usage columns come from
``usage_many`` on the group's URLs as strings. The deciding rule is numbered from the count of
rules found so far in the batch and rendered once per batch (a dictionary); the reason is an
index into :data:`robotrules.REASONS` extended with the fetch outcomes. No Python code runs
per row; Python runs per (origin, agent) of a batch. Each body is parsed once while it stays in the
:class:`RulesCache` (LRU per origin and capture, ``size`` of them, and per body: the engines
feed batches grouped by origin, so an origin's file is looked up once per batch, and a body many
origins serve is parsed once while it is among the last 4,096 distinct bodies).

:func:`url_origins` computes the origin column of a URL array the same way: the
``scheme://authority`` prefix of each URL is cut by Arrow's regex kernel, dictionary-encoded,
and :func:`robotrules._origin.origin_of` (the one home of RFC 9309 2.3's origin) runs once per
distinct prefix; a URL the prefix pattern does not take goes through ``origin_of`` whole.

NumPy and Arrow meet through buffers (:func:`numpy_of`, :func:`array_of`, :func:`strings_of`):
pyarrow's own conversions (``pa.array``, ``Array.to_numpy``) import pandas on first use, a
third of a second of every process (the engine's and each kernel process).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import robotrules
from robotrules import Dialect, RobotsTxt
from robotrules._origin import origin_or_none
from robotrules._tables import REASON_INVALID_TEXT
from robotrules.aipref.vocabulary import DEFAULT_VOCABULARY, usage_keys

from ._deps import DatasetError, require

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["EXTRA_REASONS", "URL_AUTHORITY", "URL_PREFIX", "USAGE_KEYS", "RulesCache",
           "array_of", "evaluate", "evaluate_batches", "numpy_of", "output_schema",
           "strings_of", "url_origins", "verdict_fields"]

def usage_columns(vocabulary: str = DEFAULT_VOCABULARY) -> tuple[str, ...]:
    """The usage preferences, in column order: ``crawl`` and the categories of
    :func:`robotrules.aipref.vocabulary.usage_keys` (``RobotsTxt.usage_many``'s keys)."""
    return ("crawl", *usage_keys(vocabulary))


#: :func:`usage_columns` of the default vocabulary.
USAGE_KEYS = usage_columns()

#: Reasons the kernel gives besides the robots.txt's own (:data:`robotrules.REASONS`).
EXTRA_REASONS = ("allow-all", "disallow-all", "no-capture", "invalid-url")

#: Columns of a joined batch the kernel reads besides the URL column.
ROBOTS_COLUMNS = ("origin", "robots_outcome", "robots_body", "robots_fetch_time")

#: scheme://authority followed by the end or a path, query or fragment: the prefix origin_of
#: canonicalises (a URL with white space or a backslash in it goes to origin_of whole); RE2
#: syntax, read by Arrow's regex kernel and by DuckDB's regexp_extract alike
#: URL_PREFIX's prefix alone, no group and no test of what follows (RE2 finds where it ends
#: without tracking a group: about half the time per URL; engines' key tests what follows)
URL_AUTHORITY = r"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#\s\\]*"
URL_PREFIX = rf"^(?P<p>{URL_AUTHORITY})(?:[/?#]|$)"


def _bits(np: Any, buffer: Any, offset: int, n: int) -> Any:
    """The bool array of ``n`` bits of an Arrow bitmap from bit ``offset``."""
    return np.unpackbits(np.frombuffer(buffer, np.uint8), bitorder="little",
                         count=offset + n)[offset:].astype(np.bool_)


def numpy_of(values: pa.Array | pa.ChunkedArray, null: int | None = None) -> Any:
    """The values of a fixed-width Arrow array (bool or integers) as a NumPy array, read from
    its buffers; a null becomes ``null`` (an array with nulls needs it)."""
    pa_ = require("pyarrow")
    np = require("numpy")
    if isinstance(values, pa_.ChunkedArray):
        values = values.combine_chunks()
    n, offset = len(values), values.offset
    valid, data = values.buffers()[:2]
    boolean = pa_.types.is_boolean(values.type)
    dtype = np.dtype(np.bool_ if boolean else str(values.type))
    if data is None or not n:
        out = np.zeros(n, dtype)
    elif boolean:
        out = _bits(np, data, offset, n)
    else:
        out = np.frombuffer(data, dtype, count=n, offset=offset * dtype.itemsize)
    if values.null_count:
        if null is None:
            raise ValueError("numpy_of: the array has nulls and no value is given for them")
        out = np.where(_bits(np, valid, offset, n), out, np.array(null, dtype))
    return out


def array_of(values: Any, mask: Any = None) -> pa.Array:
    """The Arrow array of a one-dimensional NumPy array of bool or integers, null where
    ``mask`` (a bool array, or None) is true, made from its buffers."""
    pa_ = require("pyarrow")
    np = require("numpy")
    values = np.ascontiguousarray(values)
    n = len(values)
    if values.dtype == np.bool_:
        kind, data = pa_.bool_(), pa_.py_buffer(np.packbits(values, bitorder="little"))
    else:
        kind, data = pa_.from_numpy_dtype(values.dtype), pa_.py_buffer(values)
    nulls = 0 if mask is None else int(np.count_nonzero(mask))
    valid = (pa_.py_buffer(np.packbits(~np.asarray(mask, np.bool_), bitorder="little"))
             if nulls else None)
    return pa_.Array.from_buffers(kind, n, [valid, data], null_count=nulls)


def strings_of(values: Sequence[str | None]) -> pa.Array:
    """The Arrow string array of ``values`` (None is null), made from its buffers."""
    pa_ = require("pyarrow")
    np = require("numpy")
    encoded = [b"" if v is None else v.encode("utf-8") for v in values]
    n = len(encoded)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.fromiter(map(len, encoded), np.int64, n), out=offsets[1:])
    if offsets[-1] >= 1 << 31:  # past 32-bit offsets: Arrow's own conversion
        return pa_.array(values, pa_.string())
    null = np.fromiter((v is None for v in values), np.bool_, n)
    nulls = int(np.count_nonzero(null))
    valid = pa_.py_buffer(np.packbits(~null, bitorder="little")) if nulls else None
    return pa_.Array.from_buffers(pa_.string(), n, [
        valid, pa_.py_buffer(offsets.astype(np.int32)), pa_.py_buffer(b"".join(encoded))],
        null_count=nulls)


def _reasons() -> tuple[str, ...]:
    return (*robotrules.REASONS, *EXTRA_REASONS)


#: Bodies :class:`RulesCache` keeps parsed by their bytes, at most, and their bytes in all
_BODIES, _BODY_BYTES = 4096, 32 << 20


class RulesCache:
    """Parsed robots.txt per (origin, capture time), least recently used evicted first, and
    per body: a body met again, under another origin or capture, is not parsed again while
    it is among the last 4,096 distinct bodies (32 MB of them at most). Real crawls repeat
    files (a CMS's default, a host's copy on each of its sites); the verdicts do not depend on
    the file's URL (only relative sitemap URLs would), so a shared file is parsed once,
    with the URL of the origin that brought it first, and serves every origin with that body.
    """

    def __init__(self, dialect: Dialect = "rfc9309", size: int = 4096) -> None:
        self.dialect: Dialect = dialect
        self.size = size
        self.parses = 0
        self._items: OrderedDict[tuple[str, Any], RobotsTxt] = OrderedDict()
        self._bodies: OrderedDict[bytes, RobotsTxt] = OrderedDict()
        self._body_bytes = 0

    def get(self, origin: str, fetch_time: Any, body: Callable[[], bytes | None]) -> RobotsTxt:
        """The parsed file; ``body`` is called only when it is not cached yet."""
        key = (origin, fetch_time)
        rules = self._items.get(key)
        if rules is not None:
            self._items.move_to_end(key)
            return rules
        data = body() or b""
        rules = self._bodies.get(data)
        if rules is not None:
            self._bodies.move_to_end(data)
        else:
            rules = robotrules.parse(data, self.dialect, url=origin + "/robots.txt")
            self.parses += 1
            self._bodies[data] = rules
            self._body_bytes += len(data)
            while len(self._bodies) > _BODIES or self._body_bytes > _BODY_BYTES:
                self._body_bytes -= len(self._bodies.popitem(last=False)[0])
        self._items[key] = rules
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return rules


def verdict_fields(agents: Sequence[str], *, usage: bool,
                   vocabulary: str = DEFAULT_VOCABULARY) -> list[pa.Field]:
    """The columns the kernel adds, in order."""
    pa_ = require("pyarrow")
    fields = []
    for agent in agents:
        fields += [pa_.field(f"{agent}__allowed", pa_.bool_()),
                   pa_.field(f"{agent}__line", pa_.int32()),
                   pa_.field(f"{agent}__rule", pa_.string()),
                   pa_.field(f"{agent}__reason", pa_.string())]
        if usage:
            fields += [pa_.field(f"{agent}__{key}", pa_.bool_())
                       for key in usage_columns(vocabulary)]
    return fields


def output_schema(input_schema: pa.Schema, agents: Sequence[str], *, usage: bool,
                  vocabulary: str = DEFAULT_VOCABULARY) -> pa.Schema:
    """The schema of :func:`evaluate`'s output for batches of ``input_schema``."""
    pa_ = require("pyarrow")
    kept = [f for f in input_schema if f.name != "robots_body"]
    return pa_.schema(kept + verdict_fields(agents, usage=usage, vocabulary=vocabulary))


_MEMO_MAX = 1 << 20  # prefixes a caller's memo keeps before it starts over


def url_origins(urls: pa.Array | pa.ChunkedArray, memo: dict[str, str | None] | None = None
                ) -> pa.Array:
    """The origin (``scheme://host[:port]``, RFC 9309 2.3) of each URL; null when a URL is null
    or not an http(s) URL with a host. ``origin_of`` runs once per distinct prefix of the
    array, or, with ``memo`` (a dict the caller keeps across calls), once per distinct prefix
    seen while the memo lasts (it starts over past a million prefixes)."""
    pa_ = require("pyarrow")
    pc = require("pyarrow.compute")
    if isinstance(urls, pa_.ChunkedArray):
        urls = urls.combine_chunks()
    if not (pa_.types.is_string(urls.type) or pa_.types.is_large_string(urls.type)):
        urls = urls.cast(pa_.string())
    cut = pc.extract_regex(urls, URL_PREFIX)
    # null where the pattern does not take the URL (a struct's field keeps '' there)
    prefix = pc.if_else(pc.is_valid(cut), cut.field("p"),
                        pa_.nulls(len(cut), cut.type.field(0).type))  # (pa.scalar: pandas)
    codes = pc.dictionary_encode(prefix)
    if memo is None:
        distinct = [origin_or_none(p) for p in codes.dictionary.to_pylist()]
    else:
        distinct = []
        for p in codes.dictionary.to_pylist():
            if p in memo:
                distinct.append(memo[p])
                continue
            if len(memo) >= _MEMO_MAX:
                memo.clear()
            memo[p] = found = origin_or_none(p)
            distinct.append(found)
    out = strings_of(distinct).take(codes.indices)
    # URLs the prefix pattern did not take: origin_of on the whole URL (it knows the rest)
    left = pc.and_(pc.is_null(prefix), pc.is_valid(urls))
    if pc.any(left).as_py():
        np = require("numpy")
        rows = np.flatnonzero(numpy_of(left, False))
        values = out.to_pylist()
        for i, url in zip(rows.tolist(), urls.take(array_of(rows)).to_pylist(), strict=True):
            values[i] = origin_or_none(url)
        out = strings_of(values)
    return out


class _Columns:
    """The output columns of one agent while a batch is evaluated (NumPy, filled per group by
    the core's batch API on the URL column's buffers, :meth:`RobotsTxt.decide_buffers`
    widths: allowed and reason uint8, line and rule int32)."""

    def __init__(self, np: Any, n: int, usage: tuple[str, ...]) -> None:
        self.allowed = np.zeros(n, np.uint8)
        self.line = np.zeros(n, np.int32)
        self.rule = np.full(n, -1, np.int32)
        self.reason = np.zeros(n, np.uint8)
        self.usage = {k: np.full(n, -1, np.int8) for k in usage}


def _string_buffers(np: Any, urls: pa.Array) -> tuple[Any, Any]:
    """The offsets (int32 or int64, from the array's first string) and data of a string or
    large_string array, as the batch API on Arrow buffers reads them."""
    pa_ = require("pyarrow")
    wide = pa_.types.is_large_string(urls.type)
    n = len(urls)
    buffers = urls.buffers()
    dtype = np.int64 if wide else np.int32
    if buffers[1] is None:  # (an empty array)
        return np.zeros(n + 1, dtype), b""
    offsets = np.frombuffer(buffers[1], dtype, count=n + 1,
                            offset=urls.offset * np.dtype(dtype).itemsize)
    return offsets, b"" if buffers[2] is None else buffers[2]


def _texts(urls: pa.Array, rows: Any) -> list[str]:
    """The URLs at ``rows`` as ``str`` (a URL whose bytes are not UTF-8 read with U+FFFD)."""
    first, n = int(rows[0]), len(rows)
    run = int(rows[-1]) - first == n - 1  # one run of rows (batches come sorted by origin)
    got = urls.slice(first, n) if run else urls.take(array_of(rows))
    try:
        return got.to_pylist()  # type: ignore[no-any-return]
    except UnicodeDecodeError:
        return [bytes(v.as_buffer()).decode("utf-8", "replace") for v in got]


def evaluate(
    batch: pa.RecordBatch,
    agents: Sequence[str],
    *,
    url_column: str = "url",
    usage: bool = False,
    cache: RulesCache | None = None,
    vocabulary: str = DEFAULT_VOCABULARY,
) -> pa.RecordBatch:
    """``batch`` with the verdict columns of each agent appended (see the module docstring);
    the usage columns are those of the AIPREF ``vocabulary`` (:func:`usage_columns`)."""
    pa_ = require("pyarrow")
    np = require("numpy")
    urls = _url_array(batch, url_column)
    group_of, origins, kind = _row_kinds(np, batch, urls)
    keys = usage_columns(vocabulary) if usage else ()
    cols = _fixed_columns(np, len(agents), kind, keys)
    groups = _origin_groups(np, batch, group_of, kind)
    rule_text, found = _decide_groups(
        np, urls, batch.column("robots_body"), origins, groups, agents, cols,
        cache if cache is not None else RulesCache(), vocabulary if usage else None)
    arrays = _verdict_arrays(np, cols, kind >= 0, rule_text, found)
    fields = verdict_fields(agents, usage=usage, vocabulary=vocabulary)
    keep = [j for j, name in enumerate(batch.schema.names) if name != "robots_body"]
    schema = pa_.schema([batch.schema.field(j) for j in keep] + fields)
    return pa_.RecordBatch.from_arrays([batch.column(j) for j in keep] + arrays, schema=schema)


def _url_array(batch: pa.RecordBatch, url_column: str) -> pa.Array | pa.ChunkedArray:
    """The batch's URL column as strings, once the columns the kernel reads are there."""
    pa_ = require("pyarrow")
    names = batch.schema.names
    for column in (url_column, *ROBOTS_COLUMNS):
        if column not in names:
            raise DatasetError(f"joined batch has no column {column!r}")
    urls = batch.column(url_column)
    if not (pa_.types.is_string(urls.type) or pa_.types.is_large_string(urls.type)):
        urls = urls.cast(pa_.string())
    return urls


def _row_kinds(np: Any, batch: pa.RecordBatch, urls: pa.Array | pa.ChunkedArray
               ) -> tuple[Any, list[str], Any]:
    """Each row's origin (a code into the origins, -1 for none), the origins, and what
    decides the row, as a code: 0 the capture's rules, 1 allow-all, 2 disallow-all, -1 no
    capture, -2 an invalid URL (null, or no origin)."""
    pc = require("pyarrow.compute")
    origin_codes = pc.dictionary_encode(batch.column("origin"))
    group_of = numpy_of(origin_codes.indices, -1).astype(np.int64)
    invalid = numpy_of(pc.is_null(urls)) | (group_of < 0)
    kind = numpy_of(pc.index_in(batch.column("robots_outcome"), value_set=strings_of(
        ["rules", "allow-all", "disallow-all"])), -1)
    return group_of, origin_codes.dictionary.to_pylist(), np.where(invalid, -2, kind)


@cache
def _code(reason: str) -> int:
    """A reason's index in :func:`_reasons`."""
    return _reasons().index(reason)


def _fixed_columns(np: Any, count: int, kind: Any, keys: tuple[str, ...]) -> list[_Columns]:
    """The output columns of ``count`` agents, with the rows no rules decide filled in by
    masks (RFC 9309 2.3.1.3: allow-all; 2.3.1.4: disallow-all; no capture; invalid URL)."""
    n = len(kind)
    fixed_reason = np.select(
        [kind == -2, kind == -1, kind == 1, kind == 2],
        [_code("invalid-url"), _code("no-capture"), _code("allow-all"),
         _code("disallow-all")], 0)
    cols = [_Columns(np, n, keys) for _ in range(count)]
    for c in cols:
        c.reason[:] = fixed_reason
        c.allowed[kind == 1] = 1
        if keys:
            c.usage["crawl"][kind == 1] = 1
            c.usage["crawl"][kind == 2] = 0
    return cols


def _origin_groups(np: Any, batch: pa.RecordBatch, group_of: Any, kind: Any
                   ) -> list[tuple[int, Any, Any]]:
    """The rows a capture's rules decide, grouped by origin with one stable ``argsort``:
    (origin code, fetch time, rows) per origin."""
    pa_ = require("pyarrow")
    parsed = group_of.copy()
    parsed[kind != 0] = -1  # only rows whose capture has rules go to the core
    order = np.argsort(parsed, kind="stable")  # rows without rules (-1) first
    starts = np.flatnonzero(np.diff(parsed[order], prepend=-2))
    ends = np.append(starts[1:], len(kind))
    firsts = order[starts]
    times = batch.column("robots_fetch_time").take(array_of(firsts)).cast(
        pa_.int64()).to_pylist()
    return [(g, t, order[s:e]) for g, t, s, e in zip(
        parsed[firsts].tolist(), times, starts.tolist(), ends.tolist(), strict=True) if g >= 0]


def _decide_groups(np: Any, urls: pa.Array | pa.ChunkedArray, bodies: Any,
                   origins: list[str], groups: list[tuple[int, Any, Any]],
                   agents: Sequence[str], cols: list[_Columns], cache: RulesCache,
                   vocabulary: str | None) -> tuple[dict[str, int], list[int]]:
    """The core's answers for each origin's rows, written into ``cols`` at those rows (the
    usage answers too, with a ``vocabulary``); returns the batch's dictionary of rendered
    rules and, per rule the core found (numbered from the count found so far in the batch),
    its index there."""
    offsets, data = _string_buffers(np, urls)
    rule_text: dict[str, int] = {}  # rendered rule -> dictionary index of this batch
    found: list[int] = []
    keys = tuple(cols[0].usage) if cols else ()
    # the usage answers are appended group after group (C-level array.extend) and scattered
    # once per batch to the rows of those groups, in that order (`usage_rows`)
    usage_rows: list[Any] = []
    usage_got = [{k: array("b") for k in keys} for _ in agents]
    for g, fetch_time, rows in groups:
        rules = cache.get(origins[g], fetch_time, bodies[int(rows[0])].as_py)
        texts: dict[int, int] = {}  # id of a Rule -> dictionary index, this group's
        for agent, c in zip(agents, cols, strict=True):
            got = rules.decide_buffers(offsets, data, rows, (c.allowed, c.line, c.rule,
                                       c.reason), user_agent=agent, base=len(found))
            for rule in got:  # a file's Rule values are made once: same rule, same object
                at = texts.get(id(rule))
                if at is None:
                    at = texts[id(rule)] = rule_text.setdefault(str(rule), len(rule_text))
                found.append(at)
        if vocabulary is not None:
            usage_rows.append(rows)
            group_urls = _texts(urls, rows)
            for agent, u in zip(agents, usage_got, strict=True):
                got_usage = rules.usage_many(group_urls, user_agent=agent,
                                             vocabulary=vocabulary)
                for key in keys:
                    u[key].extend(got_usage[key] if key in got_usage
                                  else array("b", [-1]) * len(rows))
    if usage_rows:
        at_rows = np.concatenate(usage_rows)
        for c, u in zip(cols, usage_got, strict=True):
            for key in keys:
                c.usage[key][at_rows] = np.frombuffer(u[key], np.int8)
    return rule_text, found


def _verdict_arrays(np: Any, cols: list[_Columns], known: Any, rule_text: dict[str, int],
                    found: list[int]) -> list[Any]:
    """The Arrow columns of every agent, in :func:`verdict_fields`' order: a URL whose bytes
    are not UTF-8 (the same for every agent) becomes an invalid URL here."""
    pa_ = require("pyarrow")
    text_of = np.array([*found, -1], np.int32)  # -1 picks the final -1
    bad = None
    if cols:
        bad = cols[0].reason == REASON_INVALID_TEXT
        if not bad.any():
            bad = None
        else:
            known = known & ~bad
    rule_dict = strings_of(list(rule_text))
    reason_dict = strings_of(_reasons())
    arrays: list[Any] = []
    for c in cols:
        if bad is not None:
            c.reason[bad] = _code("invalid-url")
            for values in c.usage.values():
                values[bad] = -1
        rule = text_of[c.rule]
        arrays.append(array_of(c.allowed.view(np.bool_), mask=~known))
        arrays.append(array_of(c.line, mask=c.line == 0))
        arrays.append(pa_.DictionaryArray.from_arrays(
            array_of(rule, mask=rule < 0), rule_dict).dictionary_decode())
        arrays.append(pa_.DictionaryArray.from_arrays(
            array_of(c.reason.astype(np.int32)), reason_dict).dictionary_decode())
        for key in c.usage:
            values = c.usage[key]
            arrays.append(array_of(values == 1, mask=values < 0))
    return arrays


def evaluate_batches(
    batches: Iterable[pa.RecordBatch],
    agents: Sequence[str],
    *,
    url_column: str = "url",
    usage: bool = False,
    dialect: Dialect = "rfc9309",
) -> Iterator[pa.RecordBatch]:
    """:func:`evaluate` over a stream of batches sharing one cache (a partition's worth)."""
    cache = RulesCache(dialect)
    for batch in batches:
        yield evaluate(batch, agents, url_column=url_column, usage=usage, cache=cache)
