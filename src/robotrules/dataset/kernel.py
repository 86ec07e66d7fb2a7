"""The batch kernel: verdict columns for Arrow record batches of URLs joined with robots rows.

Every engine (local processes, Spark's ``mapInArrow``) calls :func:`evaluate` on batches whose
rows are one URL each, joined by origin with that origin's chosen robots.parquet row
(``origin``, ``robots_outcome``, ``robots_body``, ``robots_fetch_time``: null when the archive
has no capture of the origin; ``robots_body`` may be dictionary-encoded so that a batch holds
each body once).
For each agent it adds, in this order:

``{agent}__allowed`` (bool), ``{agent}__line`` (int32, the deciding line), ``{agent}__rule``
(the deciding rule as written, e.g. ``Disallow: /private``), ``{agent}__reason`` (the
:class:`~robotrules.Verdict` reason, or ``allow-all`` / ``disallow-all`` for a capture without
rules (RFC 9309 2.3.1.3, 2.3.1.4), ``no-capture`` when the archive has no robots.txt for the
origin, ``invalid-url``), and, with ``usage=True``, the AI usage preferences
``{agent}__crawl``, ``{agent}__train-ai``, ``{agent}__search``, ``{agent}__ai-train``,
``{agent}__ai-input`` (bool, null when the file says nothing).

The input's ``robots_body`` column is dropped from the output.

Theory of operation: only the public API is used, ``robotrules.parse(body, dialect, url=...)``
then ``rules.explain(url, user_agent=A)``; each body is parsed once per origin and capture, and
the parsed :class:`~robotrules.RobotsTxt` is kept in a :class:`RulesCache` that lives as long as
the caller wants (a whole partition for the engines). Cost per batch: O(rows x agents) verdicts
plus one parse per origin not yet cached; memory: the batch, its output and the cache (LRU,
``RulesCache.size`` parsed files).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import robotrules
from robotrules import Dialect, RobotsTxt

from ._deps import DatasetError, require

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["USAGE_KEYS", "RulesCache", "evaluate", "evaluate_batches",
           "output_schema", "verdict_fields"]

#: The usage preferences, in column order (AI-preferences issue: ``rules.usage(...)``).
USAGE_KEYS = ("crawl", "train-ai", "search", "ai-train", "ai-input")

#: Columns of a joined batch the kernel reads besides the URL column.
ROBOTS_COLUMNS = ("origin", "robots_outcome", "robots_body", "robots_fetch_time")


class RulesCache:
    """Parsed robots.txt per (origin, capture time), least recently used evicted first."""

    def __init__(self, dialect: Dialect = "rfc9309", size: int = 4096) -> None:
        self.dialect: Dialect = dialect
        self.size = size
        self.parses = 0
        self._items: OrderedDict[tuple[str, Any], RobotsTxt] = OrderedDict()

    def get(self, origin: str, fetch_time: Any, body: Callable[[], bytes | None]) -> RobotsTxt:
        """The parsed file; ``body`` is called only when it is not cached yet."""
        key = (origin, fetch_time)
        rules = self._items.get(key)
        if rules is not None:
            self._items.move_to_end(key)
            return rules
        rules = robotrules.parse(body() or b"", self.dialect, url=origin + "/robots.txt")
        self.parses += 1
        self._items[key] = rules
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return rules


def verdict_fields(agents: Sequence[str], *, usage: bool) -> list[pa.Field]:
    """The columns the kernel adds, in order."""
    pa_ = require("pyarrow")
    fields = []
    for agent in agents:
        fields += [pa_.field(f"{agent}__allowed", pa_.bool_()),
                   pa_.field(f"{agent}__line", pa_.int32()),
                   pa_.field(f"{agent}__rule", pa_.string()),
                   pa_.field(f"{agent}__reason", pa_.string())]
        if usage:
            fields += [pa_.field(f"{agent}__{key}", pa_.bool_()) for key in USAGE_KEYS]
    return fields


def output_schema(input_schema: pa.Schema, agents: Sequence[str], *, usage: bool) -> pa.Schema:
    """The schema of :func:`evaluate`'s output for batches of ``input_schema``."""
    pa_ = require("pyarrow")
    kept = [f for f in input_schema if f.name != "robots_body"]
    return pa_.schema(kept + verdict_fields(agents, usage=usage))


def _usage_columns(rules: RobotsTxt | None, allowed: bool | None, url: str,
                   agent: str) -> tuple[bool | None, ...]:
    """The usage preferences of ``agent`` for ``url`` (the one place that knows the Usage API).

    Without rules (allow-all, disallow-all, no capture) only ``crawl`` is known: it is the
    verdict; the file states no other preference.
    """
    if rules is None:
        return (allowed, None, None, None, None)
    u = rules.usage(url, user_agent=agent)
    return (bool(u.crawl), u["train-ai"], u["search"], u["ai-train"], u["ai-input"])


def evaluate(
    batch: pa.RecordBatch,
    agents: Sequence[str],
    *,
    url_column: str = "url",
    usage: bool = False,
    cache: RulesCache | None = None,
) -> pa.RecordBatch:
    """``batch`` with the verdict columns of each agent appended (see the module docstring)."""
    pa_ = require("pyarrow")
    names = batch.schema.names
    for column in (url_column, *ROBOTS_COLUMNS):
        if column not in names:
            raise DatasetError(f"joined batch has no column {column!r}")
    cache = cache if cache is not None else RulesCache()
    urls = batch.column(url_column).to_pylist()
    origins = batch.column("origin").to_pylist()
    outcomes = batch.column("robots_outcome").to_pylist()
    bodies = batch.column("robots_body")
    times = batch.column("robots_fetch_time").to_pylist()
    width = 4 + (len(USAGE_KEYS) if usage else 0)
    columns: list[list[Any]] = [[] for _ in range(width * len(agents))]
    for i, url in enumerate(urls):
        origin, outcome = origins[i], outcomes[i]
        rules: RobotsTxt | None = None
        fixed: tuple[bool | None, str] | None = None
        if url is None or origin is None:
            fixed = (None, "invalid-url")
        elif outcome is None:
            fixed = (None, "no-capture")
        elif outcome == "rules":
            rules = cache.get(origin, times[i], bodies[i].as_py)
        else:
            fixed = (outcome == "allow-all", outcome)
        for a, agent in enumerate(agents):
            base = a * width
            if rules is not None:
                v = rules.explain(url, user_agent=agent)
                allowed: bool | None = v.allowed
                columns[base].append(allowed)
                columns[base + 1].append(v.line)
                columns[base + 2].append(str(v.rule) if v.rule is not None else None)
                columns[base + 3].append(v.reason)
            else:
                assert fixed is not None
                allowed = fixed[0]
                columns[base].append(allowed)
                columns[base + 1].append(None)
                columns[base + 2].append(None)
                columns[base + 3].append(fixed[1])
            if usage:
                prefs = (_usage_columns(rules, allowed, url, agent) if fixed is None
                         or fixed[1] in ("allow-all", "disallow-all")
                         else (None,) * len(USAGE_KEYS))
                for k, value in enumerate(prefs):
                    columns[base + 4 + k].append(value)
    fields = verdict_fields(agents, usage=usage)
    keep = [j for j, n in enumerate(names) if n != "robots_body"]
    arrays = [batch.column(j) for j in keep]
    arrays += [pa_.array(values, type=f.type) for values, f in zip(columns, fields, strict=True)]
    schema = pa_.schema([batch.schema.field(j) for j in keep] + fields)
    return pa_.RecordBatch.from_arrays(arrays, schema=schema)


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
