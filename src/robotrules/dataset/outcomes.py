"""Common Crawl's robots.txt outcome table, reproduced from robots.parquet, with RFC 9309's.

Common Crawl's robotstxt-experiments project publishes, per crawl and per top-k stratum of a
ranked host list (Tranco), how many hosts fall in eight categories
(``data/top-k-sample/robotstxt-status-counts-topk.csv``). :func:`run_outcomes` writes the same
table, with the same column names (:data:`COLUMNS`), from the captures of robots.parquet, and
next to it the outcome RFC 9309 gives each host.

The categories, as that project's notebooks define them (a host is the ranked name itself or
``www.`` + it; every capture of the host counts, whatever its scheme or port):

* each capture's HTTP status is classed: 200 *success*, 403 *forbidden*, 5xx and 429 *defer
  visits*, 3xx *redirect*, 400/404/410 *not found*, 401 *unauthorized*, anything else *other*
  (a redirect resolved within the archive is classed by where it ended; a capture without an
  HTTP response is *other*);
* a host is **Robots.txt with rules** / **no rules** / **MIME not a robots.txt** when any capture
  is a success (with rules: a success whose Content-Type is text but not HTML and whose body
  has at least one group with a rule; no rules: such a text capture without rules; MIME: no
  success capture is text), else **HTTP allow all** (not found, unauthorized, other), else
  **HTTP forbidden**, else **HTTP defer visits**, else **HTTP redirect not resolved**;
* **No robots.txt capture**: the stratum's hosts with no capture at all (k minus the hosts
  seen).

RFC 9309's outcome per host (``RFC 9309 rules`` / ``allow all`` / ``disallow all``): the
capture the duplicate rule (:mod:`.captures`) chooses for the host's origin, ``https://host``
first, else ``http://host``, else its first other origin; its ``outcome`` (2.3.1.1-2.3.1.4).
The companion file ``<output>-rfc9309.csv`` crosses the two: per stratum and Common Crawl
category, how many hosts RFC 9309 reads as rules, allow-all or disallow-all.

Cost: DuckDB joins the ranked list with the captures' hosts; one parse per distinct success
body (a digest-keyed memo); memory O(ranked hosts with a capture).

``engine="spark"``: Spark joins and runs the duplicate rule; the captures are classed by the
same :func:`_capture_facts` in ``mapInArrow``; the driver gets per host its classes and flags.
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import robotrules

from ._deps import DatasetError, require
from ._io import check_robots
from .captures import chosen_sql
from .census import crawl_label

__all__ = ["CATEGORIES", "COLUMNS", "RFC_COLUMNS", "OutcomesResult", "capture_class",
           "parse_top", "run_outcomes", "stratum_label"]

#: Common Crawl's eight categories, in the published column order.
CATEGORIES = ("No robots.txt capture", "HTTP forbidden", "HTTP defer visits", "HTTP allow all",
              "HTTP redirect not resolved", "MIME not a robots.txt", "Robots.txt no rules",
              "Robots.txt with rules")
#: The published CSV's header.
COLUMNS = ("crawl", "top-k", *CATEGORIES, "dt")
#: robotrules' columns after the published ones: hosts per RFC 9309 outcome.
RFC_COLUMNS = ("RFC 9309 rules", "RFC 9309 allow all", "RFC 9309 disallow all")
_RFC = {"rules": RFC_COLUMNS[0], "allow-all": RFC_COLUMNS[1], "disallow-all": RFC_COLUMNS[2]}


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


def capture_class(status: int | None) -> str:
    """Common Crawl's class of one capture's HTTP status."""
    if status is None:
        return "other"
    if status == 200:
        return "success"
    if status == 403:
        return "forbidden"
    if 500 <= status <= 599 or status == 429:
        return "defer"
    if 300 <= status < 400:
        return "redirect"
    if status in (400, 404, 410):
        return "notfound"
    if status == 401:
        return "unauthorized"
    return "other"


def _text_type(content_type: str | None) -> bool:
    """The Content-Type fallback of Common Crawl's MIME test: absent, or text but not HTML."""
    if content_type is None:
        return True
    low = content_type.lower()
    return "text" in low and "text/html" not in low


def _has_rules(body: bytes | None, memo: dict[bytes, bool]) -> bool:
    digest = hashlib.blake2b(body or b"", digest_size=16).digest()
    found = memo.get(digest)
    if found is None:
        found = any(g.rules for g in robotrules.parse(body or b"").groups)
        memo[digest] = found
    return found


def read_ranks(path: str) -> list[tuple[int, str]]:
    """(rank, host) of a ranked list: ``rank,host`` lines (Tranco) or a CSV whose header names
    ``rank`` and ``host`` / ``site`` / ``domain``."""
    if not os.path.isfile(path):
        raise DatasetError(f"no such ranks file: {path}")
    out: list[tuple[int, str]] = []
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows: Iterator[list[str]] = csv.reader(f)
        first = next(rows, None)
        if first is None:
            raise DatasetError(f"{path}: empty ranks file")
        rank_at, host_at = 0, 1
        if first and not first[0].strip().isdigit():
            names = [c.strip().lower() for c in first]
            host_names = [n for n in ("host", "site", "domain") if n in names]
            if "rank" not in names or not host_names:
                raise DatasetError(f"{path}: header needs 'rank' and 'host' (or site, domain)")
            rank_at, host_at = names.index("rank"), names.index(host_names[0])
        else:
            rows = iter([first, *rows])
        for n, row in enumerate(rows, start=2):
            if not row:
                continue
            try:
                out.append((int(row[rank_at]), row[host_at].strip().lower().rstrip(".")))
            except (ValueError, IndexError) as exc:
                raise DatasetError(f"{path}: line {n}: not 'rank,host': {row!r}") from exc
    return out


@dataclass
class _Host:
    classes: set[str] = field(default_factory=set)
    text_success: bool = False
    with_rules: bool = False
    origins: dict[str, str] = field(default_factory=dict)  # origin -> RFC 9309 outcome

    def category(self) -> str:
        c = self.classes
        if "success" in c:
            if self.with_rules:
                return CATEGORIES[7]
            return CATEGORIES[6] if self.text_success else CATEGORIES[5]
        if c & {"notfound", "other", "unauthorized"}:
            return CATEGORIES[3]
        if "forbidden" in c:
            return CATEGORIES[1]
        if "defer" in c:
            return CATEGORIES[2]
        return CATEGORIES[4]

    def rfc(self, host: str) -> str:
        for origin in (f"https://{host}", f"http://{host}"):
            if origin in self.origins:
                return self.origins[origin]
        return self.origins[sorted(self.origins)[0]]


@dataclass
class OutcomesResult:
    """The rows written (published columns + RFC 9309's) and the files."""

    rows: list[dict[str, Any]]
    cross: list[dict[str, Any]]
    files: list[Path]

    def headline(self) -> list[str]:
        out = []
        for r in self.rows:
            seen = sum(r[c] for c in CATEGORIES[1:])
            out.append(f"{r['crawl']} top {r['top-k']}: {r[CATEGORIES[7]]} with rules, "
                       f"{r[CATEGORIES[0]]} no capture, {seen - r[CATEGORIES[7]]} other; "
                       f"RFC 9309: {r[RFC_COLUMNS[0]]} rules, {r[RFC_COLUMNS[1]]} allow all, "
                       f"{r[RFC_COLUMNS[2]]} disallow all")
        return out


_HOST_RE = r"^[a-z][a-z0-9+.-]*://(\[[^\]]*\]|[^:/]*)"
_HOST = f"regexp_extract(origin, '{_HOST_RE}', 1)"


def _capture_facts(batches: Iterable[Any]) -> Iterator[Any]:
    """Per capture of a ranked host (batches of ``site, status, final_status, hops, error,
    content_type, body``): ``site``, its class, whether it is a text success and one with
    rules. One home for both engines (DuckDB in the caller, Spark in ``mapInArrow``)."""
    pa = require("pyarrow")
    memo: dict[bytes, bool] = {}
    for batch in batches:
        cols = batch.to_pydict()
        classes, texts, rules = [], [], []
        for status, final, hops, error, ctype, body in zip(
                cols["status"], cols["final_status"], cols["hops"], cols["error"],
                cols["content_type"], cols["body"], strict=True):
            resolved = final if (hops or 0) > 0 and error is None and final is not None \
                else status
            cls = capture_class(resolved)
            text = cls == "success" and _text_type(ctype)
            classes.append(cls)
            texts.append(text)
            rules.append(text and _has_rules(body, memo))
        yield pa.RecordBatch.from_pydict({"site": cols["site"], "cls": classes,
                                          "text": texts, "rules": rules},
                                         schema=pa.schema([
                                             ("site", pa.string()), ("cls", pa.string()),
                                             ("text", pa.bool_()), ("rules", pa.bool_())]))


def _fold(hosts: dict[str, _Host], site: str, classes: Iterable[str], text: bool,
          rules: bool) -> None:
    h = hosts.setdefault(site, _Host())
    h.classes.update(classes)
    h.text_success = h.text_success or bool(text)
    h.with_rules = h.with_rules or bool(rules)


_FACTS_DDL = "site string, cls string, text boolean, rules boolean"
_CAPTURE_COLUMNS = ("site", "status", "final_status", "hops", "error", "content_type", "body")


def _hosts(path: str, ranks: list[tuple[int, str]], con: Any) -> tuple[dict[str, _Host], date]:
    pa = require("pyarrow")
    con.register("ranks", pa.table({"rank": [r for r, _ in ranks], "site": [h for _, h in ranks]}))
    literal = "'" + path.replace("'", "''") + "'"
    con.execute(f"CREATE OR REPLACE TEMP VIEW caps AS SELECT *, {_HOST} AS host "
                f"FROM read_parquet({literal})")
    con.execute("""CREATE OR REPLACE TEMP TABLE mine AS
        SELECT r.site, c.* FROM caps c JOIN ranks r ON r.site = c.host
        UNION ALL
        SELECT r.site, c.* FROM caps c JOIN ranks r ON 'www.' || r.site = c.host""")
    hosts: dict[str, _Host] = {}
    query = f"SELECT {', '.join(_CAPTURE_COLUMNS)} FROM mine"
    for facts in _capture_facts(con.sql(query).to_arrow_reader(4096)):
        cols = facts.to_pydict()
        for site, cls, text, rules in zip(cols["site"], cols["cls"], cols["text"],
                                          cols["rules"], strict=True):
            _fold(hosts, site, (cls,), text, rules)
    chosen = chosen_sql("(SELECT * EXCLUDE (site) FROM mine)")
    for site, origin, outcome in con.execute(
            f"SELECT DISTINCT m.site, c.origin, c.outcome FROM ({chosen}) c "
            "JOIN mine m USING (origin)").fetchall():
        hosts[site].origins[origin] = outcome
    first = con.execute("SELECT min(fetch_time) FROM mine").fetchall()[0][0]
    return hosts, (first.date() if first is not None else date.today())


def _hosts_spark(session: Any, path: str, ranks: list[tuple[int, str]]
                 ) -> tuple[dict[str, _Host], date]:
    """:func:`_hosts` on Spark: the join with the ranked list and the duplicate rule there, the
    captures classed by :func:`_capture_facts` in ``mapInArrow``; per host only its classes
    and two flags, and per origin its chosen outcome, reach the driver."""
    from pyspark.sql import functions as F

    from .engines import _ROBOTS_READ, _choose_partition
    ranked = session.createDataFrame([(h,) for _, h in ranks], "site string")
    caps = session.read.parquet(path).withColumn(
        "host", F.regexp_extract("origin", _HOST_RE, 1))
    mine = caps.join(ranked, caps.host == ranked.site).unionByName(
        caps.join(ranked, caps.host == F.concat(F.lit("www."), ranked.site)))
    facts = mine.select(*_CAPTURE_COLUMNS).mapInArrow(_capture_facts, _FACTS_DDL)
    hosts: dict[str, _Host] = {}
    for r in facts.groupBy("site").agg(F.collect_set("cls"), F.max("text"),
                                       F.max("rules")).collect():
        _fold(hosts, r[0], r[1], r[2], r[3])
    raw = mine.select(*_ROBOTS_READ)
    chosen = raw.repartition("origin").mapInArrow(_choose_partition, raw.schema)
    pairs = mine.select("site", "origin").distinct().join(
        chosen.select("origin", "outcome"), on="origin")
    for r in pairs.select("site", "origin", "outcome").collect():
        hosts[r[0]].origins[r[1]] = r[2]
    first = mine.agg(F.date_format(F.min("fetch_time"), "yyyy-MM-dd")).collect()[0][0]
    return hosts, (date.fromisoformat(first) if first is not None else date.today())


def run_outcomes(robots: list[str], ranks_path: str, output: str, *,
                 top: list[int] | None = None, dates: dict[str, str] | None = None,
                 engine: str = "duckdb", spark: Any = None) -> OutcomesResult:
    """Write the outcome table of each crawl (``LABEL=PATH`` or ``PATH``) to ``output`` (CSV)
    and the cross table to ``<output stem>-rfc9309.csv``; see the module docstring."""
    from .engines import connect
    labelled = [crawl_label(r) for r in robots]
    check_robots([p for _, p in labelled])
    ranks = read_ranks(ranks_path)
    if not ranks:
        raise DatasetError(f"{ranks_path}: no ranked hosts")
    strata = top or parse_top("1000,10000,50000,100000,1000000")
    from .engines import session_for
    session = session_for(engine, spark)
    rows: list[dict[str, Any]] = []
    cross: list[dict[str, Any]] = []
    for label, path in labelled:
        if session is not None:
            hosts, first = _hosts_spark(session, path, ranks)
        else:
            con = connect()
            try:
                hosts, first = _hosts(path, ranks, con)
            finally:
                con.close()
        dt = (dates or {}).get(label) or first.isoformat()
        for k in strata:
            stratum = [site for rank, site in ranks if rank <= k]
            size = min(k, len(ranks))
            row: dict[str, Any] = {"crawl": label, "top-k": stratum_label(k), "dt": dt}
            counts: Counter[str] = Counter()
            rfc: Counter[str] = Counter()
            pairs: Counter[tuple[str, str]] = Counter()
            seen = 0
            for site in dict.fromkeys(stratum):
                h = hosts.get(site)
                if h is None or not h.classes:
                    continue
                seen += 1
                cat, outcome = h.category(), h.rfc(site)
                counts[cat] += 1
                rfc[outcome] += 1
                pairs[(cat, outcome)] += 1
            counts[CATEGORIES[0]] = size - seen
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
    return OutcomesResult(rows, cross, [target, companion])


def _write_csv(path: Path, columns: list[str], rows: list[dict[str, Any]]) -> None:
    partial = path.with_name(f".{path.name}.partial")
    with open(partial, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)
    os.replace(partial, path)
