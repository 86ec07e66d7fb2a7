"""The robots.parquet table: its schema and the rule that picks one capture per origin.

One row per archived robots.txt capture (``origin`` + ``fetch_time``), as :mod:`.warc` writes
it. Several rows per origin are normal in Common Crawl (robots.txt is refetched every few hours
of a crawl). The verdict and census stages apply :func:`choose` per origin, in one place:

**Duplicate rule.** http and https (and each host and port) are different origins, each with its
own robots.txt (RFC 9309 2.3); neither ever stands in for the other. Among the captures of one
origin the latest wins, except that a capture whose outcome is ``disallow-all`` because the
server was unreachable (5xx, 429, no usable response) gives way to the latest earlier capture
that was reachable and is at most 30 days older: a crawler that holds a copy keeps using it
through an outage (RFC 9309 2.3.1.4, 2.4). Equal fetch times: the row with the larger
``warc_offset`` (written later) wins, then the larger ``robots_url``, so the choice never depends
on input order.

Cost: one DuckDB window query (sort by origin and time, out of core when needed); bodies are not
carried along (DuckDB spills to disk under its memory limit).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from robotrules._policy import LONG_OUTAGE

from ._deps import require

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["OUTCOMES", "OUTCOME_OF_KIND", "choose", "index_schema", "robots_schema"]

#: RFC 9309 outcome of a capture: the body's rules (2xx, 2.3.1.1), everything allowed
#: (4xx, 2.3.1.3), everything disallowed (5xx / 429 / unreachable, 2.3.1.4).
OUTCOMES = ("rules", "allow-all", "disallow-all")


def robots_schema() -> pa.Schema:
    """The columns of robots.parquet, in order."""
    pa_ = require("pyarrow")
    return pa_.schema([
        pa_.field("origin", pa_.string(), nullable=False),
        pa_.field("robots_url", pa_.string(), nullable=False),
        pa_.field("fetch_time", pa_.timestamp("us", tz="UTC")),
        pa_.field("status", pa_.int32()),
        pa_.field("redirect", pa_.string()),
        pa_.field("final_url", pa_.string()),
        pa_.field("final_status", pa_.int32()),
        pa_.field("hops", pa_.int8()),
        pa_.field("outcome", pa_.string(), nullable=False),
        pa_.field("body", pa_.binary()),
        pa_.field("truncated", pa_.bool_()),
        pa_.field("error", pa_.string()),
        pa_.field("content_type", pa_.string()),
        pa_.field("warc_file", pa_.string()),
        pa_.field("warc_offset", pa_.int64()),
    ])


def index_schema() -> pa.Schema:
    """The columns of the capture index (``<name>.captures.parquet`` beside robots.parquet):
    one row per response record of the archive, whatever its path, named as Common Crawl's
    columnar URL index names them, plus ``redirect_target`` (``fetch_redirect`` made absolute
    against ``url`` the way Common Crawl's procedure does: kept when it starts with ``http://``
    or ``https://``, else ``urljoin``) and ``ruleset_agents``: the user-agents to which the
    record's body gives at least one Allow or Disallow line by Common Crawl's robots.txt
    statistics job (null when that job passes the record over: not 200, not plain text, HTML;
    :func:`.outcomes.cc_ruleset_agents`), ``is_robotstxt_mime`` (the ranked list's MIME test,
    :func:`.outcomes.cc_robotstxt_mime`) and ``has_ruleset`` (``ruleset_agents`` not empty)."""
    pa_ = require("pyarrow")
    return pa_.schema([
        pa_.field("url", pa_.string()),
        pa_.field("url_host_name", pa_.string()),
        pa_.field("url_path", pa_.string()),
        pa_.field("url_query", pa_.string()),
        pa_.field("fetch_time", pa_.timestamp("us", tz="UTC")),
        pa_.field("fetch_status", pa_.int32()),
        pa_.field("fetch_redirect", pa_.string()),
        pa_.field("redirect_target", pa_.string()),
        pa_.field("content_mime_type", pa_.string()),
        pa_.field("content_mime_detected", pa_.string()),
        pa_.field("ruleset_agents", pa_.list_(pa_.string())),
        pa_.field("is_robotstxt_mime", pa_.bool_()),
        pa_.field("has_ruleset", pa_.bool_()),
        pa_.field("warc_truncated", pa_.string()),
        pa_.field("warc_file", pa_.string()),
        pa_.field("warc_offset", pa_.int64()),
    ])


#: The fetch policy's kinds of attempt result as outcomes (RFC 9309 2.3.1.1-2.3.1.4).
OUTCOME_OF_KIND = {"ok": "rules", "unavailable": "allow-all", "auth-disallow": "disallow-all",
                   "unreachable": "disallow-all"}


def chosen_sql(source: str) -> str:
    """The duplicate rule as one DuckDB query over the relation ``source`` (a table or view
    with at least the robots.parquet columns ``origin``, ``fetch_time``, ``outcome``,
    ``warc_offset``, ``robots_url``): every column of the chosen row per origin, origin order.

    ``disallow-all`` only ever comes from RFC 9309 2.3.1.4 (the archive is replayed with the
    default ``auth_failure="allow"``, so 401/403 are allow-all like every 4xx): it is the
    outcome that may give way to an earlier reachable capture.
    """
    outage = int(LONG_OUTAGE)
    return f"""
WITH ranked AS (
  SELECT *, row_number() OVER (PARTITION BY origin ORDER BY fetch_time DESC NULLS LAST,
         coalesce(warc_offset, 0) DESC, robots_url DESC) AS __pos
  FROM {source}
), latest AS (
  SELECT origin, fetch_time AS __t, outcome AS __o FROM ranked WHERE __pos = 1
), picked AS (
  SELECT r.origin, coalesce(min(r.__pos) FILTER (WHERE r.__pos > 1), 1) AS __pos
  FROM ranked r JOIN latest l USING (origin)
  WHERE r.__pos = 1 OR (l.__o = 'disallow-all' AND r.outcome <> 'disallow-all'
        AND (l.__t IS NULL OR r.fetch_time >= l.__t - to_seconds({outage})))
  GROUP BY r.origin
)
SELECT ranked.* EXCLUDE (__pos) FROM ranked JOIN picked USING (origin, __pos)
ORDER BY origin"""


def choose(table: pa.Table) -> pa.Table:
    """One row per origin of ``table`` by the duplicate rule above (origin order)."""
    duckdb = require("duckdb")
    con = duckdb.connect()
    try:
        con.register("captures", table)
        result = con.sql(chosen_sql("captures")).to_arrow_table()
        return result.cast(table.schema)
    finally:
        con.close()


def captures_path(robots: str | os.PathLike[str]) -> Path:
    """The capture index written next to a robots.parquet: ``robots-1.parquet`` ->
    ``robots-1.captures.parquet``."""
    p = Path(robots)
    return p.with_name(p.name.removesuffix(".parquet") + ".captures.parquet")
