"""Common Crawl's robots.txt outcome table, reproduced from the capture index, with RFC 9309's.

Common Crawl's robotstxt-experiments project publishes, per crawl and per top-k stratum of a
ranked host list (Tranco), how many hosts fall in eight categories
(``data/top-k-sample/robotstxt-status-counts-topk.csv``). :func:`run_outcomes` runs the same
procedure, with the same column names (:data:`COLUMNS`), on the capture index ``dataset robots``
writes beside robots.parquet (``<name>.captures.parquet``: one row per response record, named
as Common Crawl's columnar URL index names its columns), and writes next to it the outcome RFC
9309 gives each host.

The procedure, as that project's Athena query (``get_robotstxt_captures_athena.py``), ranked
list (``get_robotstxt_ranked_list.py``), statistics job (``robotstxt_statistics.py``) and
notebook (``metrics-top-k-sample.ipynb``) define it; the code here is robotrules' own:

1. **captures of a ranked host**: the records whose host is *exactly* the ranked name (no
   ``www.`` merge), path ``/robots.txt``, no query; of each URL only the *latest* capture;
2. **redirects**, five rounds: each capture's Location (kept when it starts with ``http://`` or
   ``https://``, else resolved against the URL; empty and self redirects dropped) is looked up
   as an exact URL among all records, the latest capture per (ranked host, URL) added to the
   host's captures;
3. each capture's status is **classed**: 200 success, 403 forbidden, 5xx and 429 defer visits,
   3xx redirect, 400/404/410 not found, 401 unauthorized, anything else other;
4. its **MIME type** is a robots.txt's when the detected type (``WARC-Identified-Payload-Type``)
   starts with ``text/`` but is not ``text/html``, or is ``message/rfc822`` or ``plain/text``;
   without a detected type, when the Content-Type contains ``text`` not followed by ``/html``
   (or is absent) (:func:`cc_robotstxt_mime`);
5. it is **parsed** when the statistics job finds a user-agent with an Allow or Disallow line in
   its body (:func:`cc_ruleset_agents`);
6. per host, by precedence: **Robots.txt with rules** (a success with the MIME type, parsed),
   **no rules** (such a success, none parsed), **MIME not a robots.txt** (successes, none with
   the MIME type), **HTTP allow all** (not found, unauthorized, other), **HTTP forbidden**,
   **HTTP defer visits**, **HTTP redirect not resolved**; **No robots.txt capture**: k minus
   the distinct ranks seen;
7. ``dt``: the Monday of the crawl's ISO week (``CC-MAIN-2025-38`` -> 2025-09-15), for another
   label the Monday of the week of its first capture.

The strata are the ``top`` k within the ranked list and the whole list (labelled by its size),
as the notebook adds its ``2M`` row; a k beyond the list's last rank is left out (it would
copy the whole list's row).

RFC 9309's outcome per host (``RFC 9309 rules`` / ``allow all`` / ``disallow all``): the
capture of robots.parquet the duplicate rule (:mod:`.captures`) chooses for the host's origin,
``https://host`` first, else ``http://host``, else its first other origin; its ``outcome``
(2.3.1.1-2.3.1.4). The companion file ``<output>-rfc9309.csv`` crosses the two: per stratum and
Common Crawl category, how many hosts RFC 9309 reads as rules, allow-all or disallow-all.

Both engines run the procedure as the same SQL (:func:`_procedure`): DuckDB out of core on one
machine, Spark SQL on a cluster; per ranked host with a capture one row of flags reaches the
driver. Cost: the joins and windows over the index (no bodies), O(ranked hosts) on the driver.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from ._deps import DatasetError, require
from ._io import check_robots
from .captures import captures_path, chosen_sql
from .census import crawl_label
from .engines import _ROBOTS_READ, _choose_partition, connect, session_for, spark_note

__all__ = ["CATEGORIES", "COLUMNS", "RFC_COLUMNS", "OutcomesResult",
           "cc_robotstxt_mime", "cc_ruleset_agents", "crawl_monday", "parse_top",
           "read_ranks", "run_outcomes", "stratum_label"]

#: Common Crawl's eight categories, in the published column order.
CATEGORIES = ("No robots.txt capture", "HTTP forbidden", "HTTP defer visits", "HTTP allow all",
              "HTTP redirect not resolved", "MIME not a robots.txt", "Robots.txt no rules",
              "Robots.txt with rules")
#: The published CSV's header.
COLUMNS = ("crawl", "top-k", *CATEGORIES, "dt")
#: robotrules' columns after the published ones: hosts per RFC 9309 outcome.
RFC_COLUMNS = ("RFC 9309 rules", "RFC 9309 allow all", "RFC 9309 disallow all")
_RFC = {"rules": RFC_COLUMNS[0], "allow-all": RFC_COLUMNS[1], "disallow-all": RFC_COLUMNS[2]}
#: The default strata (the published file's); the whole list is added as the last one.
DEFAULT_TOP = "1000,10000,50000,100000,1000000"

# --- one record, as Common Crawl's statistics job and ranked list read it -------------------

#: Detected or declared types the statistics job reads as plain text.
_PLAIN_TEXT = frozenset({"text/x-robots", "text/plain", "message/rfc822", "text/text",
                         "text/txt", "text", "plain/text", "text/pain", "text/plan"})
_HTML_START = re.compile(rb"^(?:<html|<!DOCTYPE html)\b", re.IGNORECASE | re.ASCII)
_COMMENT = re.compile(rb"^\s*#")
_EMPTY = re.compile(rb"^\s*$")
_KNOWN = re.compile(rb"^\s*(user-agent|disallow|allow|crawl-delay|sitemap|clean-param|host"
                    rb"|noindex)\s*:\s*([^\r#]*)", re.IGNORECASE | re.ASCII)
_SPACES = re.compile(r"\s+")
_TEXT_NOT_HTML = re.compile(r"text(?!/html)", re.IGNORECASE)


def cc_ruleset_agents(body: bytes, detected: str | None, content_type: str | None
                      ) -> list[str] | None:
    """The user-agents (lower case, sorted) to which Common Crawl's robots.txt statistics job
    gives at least one Allow or Disallow line; None when the job passes the record over (a
    detected type, else the Content-Type's, outside its plain-text set; no type at all; a
    first line opening an HTML page).

    Its reading, line by line (lines end at LF): a UTF-8 BOM is dropped from the first line;
    comment and empty lines pass; ``user-agent`` adds its value to the current set, which starts
    over at a user-agent line once any rule has been read in the file; ``allow``/``disallow``
    give the rule to every agent of the set."""
    if detected:
        if detected not in _PLAIN_TEXT:
            return None
    else:
        if not content_type:
            return None
        if content_type.split(";")[0].strip().lower() not in _PLAIN_TEXT:
            return None
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if lines:
        if lines[0].startswith(b"\xef\xbb\xbf"):
            lines[0] = lines[0][3:]
        if _HTML_START.match(lines[0]):
            return None
    with_rules: set[str] = set()
    active: set[str] = set()
    in_block = False
    for line in lines:
        if _COMMENT.match(line) or _EMPTY.match(line):
            continue
        m = _KNOWN.match(line)
        if m is None:
            continue
        directive = m.group(1).lower()
        value = _SPACES.sub(" ", m.group(2).strip().decode("utf-8", errors="replace"))
        if directive == b"user-agent":
            if in_block:
                active = set()
            active.add(value)
        elif directive in (b"allow", b"disallow"):
            in_block = True
            with_rules |= active
    return sorted({a.lower() for a in with_rules})


def cc_robotstxt_mime(detected: str | None, content_type: str | None) -> bool:
    """Common Crawl's ranked list's MIME test of one capture (step 4 of the module docstring);
    ``content_type`` is the Content-Type's type, parameters dropped."""
    if detected is not None:
        return ((detected.startswith("text/") and detected != "text/html")
                or detected in ("message/rfc822", "plain/text"))
    return content_type is None or _TEXT_NOT_HTML.search(content_type) is not None


def crawl_monday(label: str, first: date | None) -> date:
    """``dt``: the Monday of the ISO week a ``CC-MAIN-YYYY-WW`` label names, else the Monday of
    the week of ``first`` (today's when None)."""
    m = re.fullmatch(r"CC-MAIN-(\d{4})-(\d{2})", label)
    if m:
        try:
            return date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
        except ValueError:
            pass
    day = first or date.today()
    return day - timedelta(days=day.weekday())


def stratum_label(k: int) -> str:
    """``1k``, ``50k``, ``1M``, ``2M`` as the published file writes them; other k as digits."""
    if k >= 1_000_000 and k % 1_000_000 == 0:
        return f"{k // 1_000_000}M"
    if k >= 1_000 and k % 1_000 == 0:
        return f"{k // 1_000}k"
    return str(k)


def parse_top(text: str) -> list[int]:
    """``1000,10k,1M`` -> [1000, 10000, 1000000] (sorted, distinct)."""
    out = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*([kKmM]?)\s*", part)
        if not m:
            raise DatasetError(f"bad --top value {part!r}: use numbers such as 1000,10k,1M")
        k = int(m.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[m.group(2).lower()]
        if k <= 0:
            raise DatasetError("--top values must be positive")
        out.add(k)
    return sorted(out)


def _open_text(path: str) -> io.TextIOBase:
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    raw = gzip.open(path, "rb") if gz else open(path, "rb")  # noqa: SIM115 - wrapped, closed
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")


def read_ranks(path: str) -> list[tuple[int, str]]:
    """(rank, host) of a ranked list: ``rank,host`` lines (Tranco), ``rank<TAB>host`` lines
    (Common Crawl's ``tranco_combined.txt.gz``), gzip or not, or a CSV whose header names
    ``rank`` and ``host`` / ``site`` / ``domain``."""
    if os.path.isdir(path):
        raise DatasetError(f"{path} is a directory, not a ranks file")
    if not os.path.isfile(path):
        raise DatasetError(f"no such ranks file: {path}")
    out: list[tuple[int, str]] = []
    try:
        with _open_text(path) as f:
            first_line = f.readline()
            if not first_line.strip():
                raise DatasetError(f"{path}: empty ranks file")
            delimiter = "\t" if "\t" in first_line else ","
            rows: Iterator[list[str]] = csv.reader(f, delimiter=delimiter)
            first = next(csv.reader([first_line], delimiter=delimiter))
            rank_at, host_at, line = 0, 1, 2
            if first and not first[0].strip().isdigit():
                names = [c.strip().lower() for c in first]
                host_names = [n for n in ("host", "site", "domain") if n in names]
                if "rank" not in names or not host_names:
                    raise DatasetError(f"{path}: header needs 'rank' and 'host' (or site, "
                                       "domain), or give 'rank,host' lines")
                rank_at, host_at = names.index("rank"), names.index(host_names[0])
            else:
                rows, line = iter([first, *rows]), 1
            for n, row in enumerate(rows, start=line):
                if not row:
                    continue
                try:
                    out.append((int(row[rank_at]), row[host_at].strip().lower().rstrip(".")))
                except (ValueError, IndexError) as exc:
                    raise DatasetError(f"{path}: line {n}: not 'rank,host': {row!r}") from exc
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from exc
    return out


def strata(top: list[int], ranks: list[tuple[int, str]]) -> list[int]:
    """The k of each stratum: those of ``top`` within the list, then the whole list."""
    last = max(r for r, _ in ranks)
    return sorted({k for k in top if k < last} | {last})


@dataclass
class OutcomesResult:
    """The rows written (published columns + RFC 9309's) and the files."""

    rows: list[dict[str, Any]]
    cross: list[dict[str, Any]]
    files: list[Path]
    engine: str = "duckdb"

    def headline(self) -> list[str]:
        out = []
        for r in self.rows:
            seen = sum(r[c] for c in CATEGORIES[1:])
            out.append(f"{r['crawl']} top {r['top-k']}: {r[CATEGORIES[7]]:,} with rules, "
                       f"{r[CATEGORIES[0]]:,} no capture, {seen - r[CATEGORIES[7]]:,} other; "
                       f"RFC 9309: {r[RFC_COLUMNS[0]]:,} rules, {r[RFC_COLUMNS[1]]:,} allow "
                       f"all, {r[RFC_COLUMNS[2]]:,} disallow all")
        return out


_HOST_RE = r"^[a-z][a-z0-9+.-]*://(\[[^\]]*\]|[^:/]*)"
_REDIRECT_ROUNDS = 5  # the Athena script's loop: up to five redirects
_D_COLUMNS = ("url, fetch_status, redirect_target, is_robotstxt_mime, has_ruleset")


def _procedure(run: Callable[[str, str], None]) -> str:
    """Steps 1-6 of the module docstring as SQL that DuckDB and Spark SQL both run, over the
    views ``idx`` (the capture index) and ``ranks`` (rank, host). ``run(name, sql)`` makes a
    table of a query; the query returned gives one row of flags per ranked host seen."""
    latest = "ORDER BY c.fetch_time DESC NULLS LAST, c.warc_file DESC, c.warc_offset DESC"
    run("cc_d0", f"""
        SELECT host, rank, {_D_COLUMNS} FROM (
          SELECT r.host, r.rank, c.*, row_number() OVER (PARTITION BY c.url {latest}) AS n
          FROM idx c JOIN ranks r ON r.host = c.url_host_name
          WHERE c.url_path = '/robots.txt' AND c.url_query IS NULL) t
        WHERE n = 1""")
    for i in range(_REDIRECT_ROUNDS):
        run(f"cc_d{i + 1}", f"""
            SELECT host, rank, {_D_COLUMNS} FROM (
              SELECT f.host, f.rank, c.*,
                     row_number() OVER (PARTITION BY f.host, c.url {latest}) AS n
              FROM idx c JOIN (SELECT DISTINCT host, rank, redirect_target AS to_url
                               FROM cc_d{i} WHERE redirect_target IS NOT NULL
                               AND redirect_target <> url) f ON c.url = f.to_url) t
            WHERE n = 1""")
    rows = " UNION ALL ".join(f"SELECT * FROM cc_d{i}" for i in range(_REDIRECT_ROUNDS + 1))
    # step 3, Common Crawl's fetch_status_classify
    cls = ("CASE WHEN fetch_status = 200 THEN 'success' WHEN fetch_status = 403 THEN "
           "'forbidden' WHEN fetch_status BETWEEN 500 AND 599 OR fetch_status = 429 THEN "
           "'defer' WHEN fetch_status >= 300 AND fetch_status < 400 THEN 'redirect' "
           "WHEN fetch_status IN (400, 404, 410) THEN 'notfound' WHEN fetch_status = 401 "
           "THEN 'unauthorized' ELSE 'other' END")

    def flag(cond: str) -> str:
        return f"max(CASE WHEN {cond} THEN 1 ELSE 0 END)"

    return f"""
        SELECT host, rank, {flag("cls = 'success'")} AS success,
               {flag("cls IN ('notfound', 'other', 'unauthorized')")} AS allow,
               {flag("cls = 'forbidden'")} AS forbidden, {flag("cls = 'defer'")} AS defer,
               {flag("cls = 'redirect'")} AS redirect,
               {flag("cls = 'success' AND is_robotstxt_mime")} AS robotstxt,
               {flag("cls = 'success' AND is_robotstxt_mime AND has_ruleset")} AS parsed
        FROM (SELECT *, {cls} AS cls FROM ({rows}) a) b
        GROUP BY host, rank"""


def _category(success: int, allow: int, forbidden: int, defer: int, robotstxt: int,
              parsed: int) -> str:
    if success:
        return CATEGORIES[7] if parsed else CATEGORIES[6] if robotstxt else CATEGORIES[5]
    if allow:
        return CATEGORIES[3]
    if forbidden:
        return CATEGORIES[1]
    if defer:
        return CATEGORIES[2]
    return CATEGORIES[4]


_Seen = dict[str, tuple[int, str]]  # host -> (rank, category)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _hosts_duckdb(index: str, robots: str, ranks: list[tuple[int, str]], threads: int | None,
                  memory_limit: str | None, spill_dir: str
                  ) -> tuple[_Seen, dict[str, dict[str, str]], date | None]:
    pa = require("pyarrow")
    con = connect(threads, memory_limit, spill_dir)
    try:
        con.register("ranks", pa.table({"rank": [r for r, _ in ranks],
                                        "host": [h for _, h in ranks]}))
        con.execute(f"CREATE TEMP VIEW idx AS SELECT * FROM read_parquet({_literal(index)})")

        def run(name: str, sql: str) -> None:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}")

        seen = {h: (int(r), _category(s, a, f, d, rt, p)) for h, r, s, a, f, d, _, rt, p in
                con.execute(_procedure(run)).fetchall()}
        first = con.execute("SELECT min(fetch_time) FROM idx").fetchall()[0][0]
        origins: dict[str, dict[str, str]] = {}
        con.execute(f"CREATE TEMP VIEW caps AS SELECT * FROM read_parquet({_literal(robots)})")
        chosen = chosen_sql(f"(SELECT c.* FROM caps c JOIN ranks r ON "
                            f"regexp_extract(c.origin, '{_HOST_RE}', 1) = r.host)")
        for origin, outcome in con.execute(f"SELECT origin, outcome FROM ({chosen})").fetchall():
            host = re.match(_HOST_RE, origin)
            if host is not None:
                origins.setdefault(host.group(1), {})[origin] = outcome
    finally:
        con.close()
    return seen, origins, (first.date() if first is not None else None)


def _hosts_spark(session: Any, index: str, robots: str, ranks: list[tuple[int, str]]
                 ) -> tuple[_Seen, dict[str, dict[str, str]], date | None]:
    """:func:`_hosts_duckdb` on Spark: the same SQL in Spark SQL, the duplicate rule per
    partition of the ranked hosts' captures repartitioned by origin."""
    from pyspark.sql import functions as F

    pd_ranks = require("pyarrow").table({"rank": [r for r, _ in ranks],
                                        "host": [h for _, h in ranks]}).to_pandas()
    session.createDataFrame(pd_ranks, "rank int, host string").createOrReplaceTempView("ranks")
    session.read.parquet(index).createOrReplaceTempView("idx")
    made: list[Any] = []

    def run(name: str, sql: str) -> None:
        df = session.sql(sql).cache()
        made.append(df)
        df.createOrReplaceTempView(name)

    try:
        seen = {r[0]: (int(r[1]), _category(r[2], r[3], r[4], r[5], r[7], r[8]))
                for r in session.sql(_procedure(run)).collect()}
    finally:
        for df in made:
            df.unpersist()
    first = session.sql("SELECT date_format(min(fetch_time), 'yyyy-MM-dd') FROM idx"
                        ).collect()[0][0]
    ranked = session.table("ranks")
    caps = session.read.parquet(robots)
    mine = caps.join(ranked, F.regexp_extract("origin", _HOST_RE, 1) == ranked.host
                     ).select(*_ROBOTS_READ)
    chosen = mine.repartition("origin").mapInArrow(_choose_partition, mine.schema)
    origins: dict[str, dict[str, str]] = {}
    for r in chosen.select("origin", "outcome").collect():
        host = re.match(_HOST_RE, r[0])
        if host is not None:
            origins.setdefault(host.group(1), {})[r[0]] = r[1]
    return seen, origins, (date.fromisoformat(first) if first is not None else None)


def _rfc(origins: dict[str, str]) -> str:
    host = re.match(_HOST_RE, next(iter(origins)))
    name = host.group(1) if host is not None else ""
    for origin in (f"https://{name}", f"http://{name}"):
        if origin in origins:
            return origins[origin]
    return origins[sorted(origins)[0]]


def run_outcomes(robots: list[str], ranks_path: str, output: str, *,
                 top: list[int] | None = None, dates: dict[str, str] | None = None,
                 engine: str = "duckdb", spark: Any = None,
                 master: str | None = None, threads: int | None = None,
                 memory_limit: str | None = None,
                 scratch_dir: str | None = None) -> OutcomesResult:
    """Write the outcome table of each crawl (``LABEL=PATH`` or ``PATH`` of a robots.parquet
    with its capture index beside it) to ``output`` (CSV) and the cross table to
    ``<output stem>-rfc9309.csv``; see the module docstring. ``threads``, ``memory_limit``
    and ``scratch_dir`` are DuckDB's (the procedure's sorts and joins spill there)."""
    labelled = [crawl_label(r) for r in robots]
    check_robots([p for _, p in labelled])
    for _, path in labelled:
        if not captures_path(path).is_file():
            raise DatasetError(f"{path}: no capture index {captures_path(path).name} beside "
                               "it (written by 'robotrules dataset robots'; run it again)")
    ranks = read_ranks(ranks_path)
    if not ranks:
        raise DatasetError(f"{ranks_path}: no ranked hosts")
    ks = strata(top or parse_top(DEFAULT_TOP), ranks)
    session = session_for(engine, spark, master)
    rows: list[dict[str, Any]] = []
    cross: list[dict[str, Any]] = []
    if scratch_dir:
        os.makedirs(scratch_dir, exist_ok=True)
    for label, path in labelled:
        index = str(captures_path(path))
        if session is not None:
            seen, origins, first = _hosts_spark(session, index, path, ranks)
        else:
            with tempfile.TemporaryDirectory(prefix="robotrules-outcomes-",
                                             dir=scratch_dir) as tmp:
                seen, origins, first = _hosts_duckdb(index, path, ranks, threads,
                                                     memory_limit, tmp)
        dt = (dates or {}).get(label) or crawl_monday(label, first).isoformat()
        for k in ks:
            row: dict[str, Any] = {"crawl": label, "top-k": stratum_label(k), "dt": dt}
            counts: Counter[str] = Counter()
            rfc: Counter[str] = Counter()
            pairs: Counter[tuple[str, str]] = Counter()
            ranks_seen = set()
            for host, (rank, cat) in seen.items():
                if rank > k:
                    continue
                ranks_seen.add(rank)
                counts[cat] += 1
                mine = origins.get(host)
                if mine:
                    outcome = _rfc(mine)
                    rfc[outcome] += 1
                    pairs[(cat, outcome)] += 1
            counts[CATEGORIES[0]] = k - len(ranks_seen)
            for c in CATEGORIES:
                row[c] = counts[c]
            for outcome, column in _RFC.items():
                row[column] = rfc[outcome]
            rows.append(row)
            for c in CATEGORIES[1:]:
                cross.append({"crawl": label, "top-k": row["top-k"], "category": c,
                              **{column: pairs[(c, o)] for o, column in _RFC.items()}})
    target = Path(output)
    target.parent.mkdir(parents=True, exist_ok=True)
    companion = target.with_name(target.stem + "-rfc9309.csv")
    _write_csv(target, [*COLUMNS, *RFC_COLUMNS], rows)
    _write_csv(companion, ["crawl", "top-k", "category", *RFC_COLUMNS], cross)
    result = OutcomesResult(rows, cross, [target, companion])
    if session is not None:
        result.engine = spark_note(session)
    return result


def _write_csv(path: Path, columns: list[str], rows: list[dict[str, Any]]) -> None:
    partial = path.with_name(f".{path.name}.partial")
    with open(partial, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)
    os.replace(partial, path)
