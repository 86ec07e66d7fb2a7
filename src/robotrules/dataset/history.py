"""History per origin: what changed between consecutive crawls of the same origins.

For crawls given oldest first (robots.parquet each, ``LABEL=PATH``), every origin's capture is
picked by the duplicate rule (:mod:`.captures`) and read as RFC 9309 says (rules, allow-all,
disallow-all). For each pair of consecutive crawls and each origin present in both:

* **access** (``access.parquet``): per crawler and per URL of a path sample (the root ``/``
  first), whether the crawler gained or lost access, with the deciding line and rule before and
  after (``RobotsTxt.decide_many``; the fetch outcomes appear as ``allow-all``/``disallow-all``);
* **groups** (``groups.parquet``): groups added or removed, a group being known by the product
  tokens of its user-agent lines (RFC 9309 2.1, compared without regard to case);
* **signals** (``signals.parquet``): usage signals that appeared, disappeared or changed, per
  signal and category, as :func:`.census.signals_of` reads them.

Per crawl (``crawlers.parquet``, ``purposes.parquet``): per crawler, how many origins disallow
its root ``/`` (*blocked*), their share, and how many origins gained / lost access on the root
since the previous crawl; per purpose of the registry, the share of origins blocking at least
one of its crawlers. ``history.png`` charts the blocked share per crawler and per purpose over
the crawls.

Cost: one DuckDB full outer join by origin per pair (out of core), one parse and O(agents x
paths) verdicts through the batch API per distinct body (a memo keyed by the body's digest: a
file many origins serve is read once while it stays in the memo). Memory: a batch of joined
rows, the memo (answers, groups and signals of at most 4,096 bodies, not the parsed files) and
the counters.

``engine="spark"``: Spark runs the duplicate rule and the joins; the same per-origin
functions (:func:`_crawl_events`, :func:`_pair_events`) run in ``mapInArrow``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import robotrules
from robotrules import RobotsTxt
from robotrules.agents import known_agents, purposes_of

from ._deps import DatasetError, require
from ._io import check_robots
from .captures import chosen_sql
from .census import agents_for, crawl_label, plot_share, signals_of
from .engines import _ROBOTS_READ, _choose_partition, connect, session_for, spark_note

__all__ = ["HistoryResult", "run_history"]

_MEMO = 4096


@dataclass
class HistoryResult:
    """Where the history went and its headline counts."""

    out_dir: Path
    crawls: list[str]
    files: list[Path] = field(default_factory=list)
    changes: Counter[tuple[str, str]] = field(default_factory=Counter)  # (pair, kind) -> n
    crawlers: list[dict[str, Any]] = field(default_factory=list)
    engine: str = "duckdb"

    def headline(self) -> list[str]:
        lines = []
        for a, b in zip(self.crawls, self.crawls[1:], strict=False):
            pair = f"{a} -> {b}"
            c = self.changes
            lines.append(
                f"{pair}: {c[(pair, 'origins')]} origins in both; access gained "
                f"{c[(pair, 'gained')]}, lost {c[(pair, 'lost')]} (crawler x path); groups "
                f"added {c[(pair, 'added')]}, removed {c[(pair, 'removed')]}; usage signals "
                f"changed {c[(pair, 'signals')]}")
        return lines


class _Read(NamedTuple):
    """What a comparison needs of one capture: ``{agent: [(allowed, line, rule) per path]}``,
    and (a reader made with ``facts``) its groups (:func:`_groups`) and usage signals
    (:func:`.census.signals_of`)."""

    answers: dict[str, Sequence[tuple[bool, int | None, str | None]]]
    groups: dict[tuple[str, ...], tuple[str, int]]
    signals: dict[str, dict[str, bool | None]]


class _Reader:
    """Captures read once per distinct body: a memo keyed by the body's digest. A body gives
    the same answers on every origin (the sampled URLs are paths on the capture's own origin,
    and RFC 9309 2.2.2 matches paths), so a file served by many origins (a CMS default) is
    parsed once while it stays in the memo. The parsed file itself is not kept: its per-agent
    tables are most of its memory."""

    def __init__(self, agents: Sequence[str], paths: Sequence[str], *,
                 facts: bool = False) -> None:
        self.agents = list(agents)
        self.paths = list(paths)
        self.facts = facts
        self.memo: dict[bytes, _Read] = {}

    def read(self, origin: str, outcome: str | None, body: bytes | None) -> _Read:
        """The capture's :class:`_Read`."""
        if outcome != "rules":
            fixed = ((outcome == "allow-all", None, None),) * len(self.paths)
            return _Read(dict.fromkeys(self.agents, fixed), {}, {})
        digest = hashlib.blake2b(body or b"", digest_size=16).digest()
        hit = self.memo.get(digest)
        if hit is not None:
            return hit
        rules = robotrules.parse(body or b"", url=origin + "/robots.txt")
        urls = [origin + p for p in self.paths]
        answers: dict[str, Sequence[tuple[bool, int | None, str | None]]] = {}
        same: dict[tuple[Any, ...], tuple[tuple[bool, int | None, str | None], ...]] = {}
        for agent in self.agents:
            d = rules.decide_many(urls, user_agent=agent)
            got = tuple((bool(d.allowed[i]), d.line[i] or None,
                         str(d.rules[d.rule[i]]) if d.rule[i] >= 0 else None)
                        for i in range(len(urls)))
            # most agents of the registry fall to the same group: one copy of their answers
            answers[agent] = same.setdefault(got, got)
        read = _Read(answers, _groups(rules) if self.facts else {},
                     signals_of(rules) if self.facts else {})
        if len(self.memo) >= _MEMO:
            self.memo.clear()
        self.memo[digest] = read
        return read


def _groups(rules: RobotsTxt) -> dict[tuple[str, ...], tuple[str, int]]:
    return {tuple(sorted({t.lower() for t in g.tokens})): (", ".join(g.agents), g.line)
            for g in rules.groups}


def _said(value: bool | str | None) -> str:
    return {True: "yes", False: "no", None: "unknown"}.get(value, str(value))  # type: ignore[arg-type]


#: An event of the per-origin comparison: ``("count", key, n)`` or ``("row", table, row)``.
Event = tuple[Any, ...]


def _crawl_events(label: str, tokens: Sequence[str], sample: Sequence[str],
                  batches: Iterable[Any]) -> Iterator[Event]:
    """Per chosen origin of one crawl (batches of ``origin, outcome, body``): the origin, and
    which crawlers and purposes it blocks on the root."""
    reader = _Reader(tokens, sample)
    by_token = {a.token: a for a in known_agents()}
    for batch in batches:
        cols = batch.to_pydict()
        for origin, outcome, body in zip(cols["origin"], cols["outcome"], cols["body"],
                                         strict=True):
            yield ("count", ("origins", label), 1)
            answers = reader.read(origin, outcome, body).answers
            strictest: set[str] = set()
            for agent in tokens:
                if not answers[agent][0][0]:
                    yield ("count", ("blocked", label, agent), 1)
                    known = by_token.get(agent)
                    strictest.update(purposes_of(known) if known else ())
            for group in sorted(strictest):
                yield ("count", ("purpose", label, group), 1)


def _pair_events(a: str, b: str, tokens: Sequence[str], sample: Sequence[str],
                 batches: Iterable[Any]) -> Iterator[Event]:
    """Per origin in both crawls (batches of ``origin, o1, b1, o2, b2``): access gained or
    lost, groups added or removed, usage signals changed."""
    reader = _Reader(tokens, sample, facts=True)
    pair = f"{a} -> {b}"
    for batch in batches:
        cols = batch.to_pydict()
        for origin, o1, b1, o2, b2 in zip(cols["origin"], cols["o1"], cols["b1"],
                                          cols["o2"], cols["b2"], strict=True):
            yield ("count", ("changes", pair, "origins"), 1)
            if o1 == o2 and b1 == b2:
                continue
            x1, x2 = reader.read(origin, o1, b1), reader.read(origin, o2, b2)
            ans1, ans2 = x1.answers, x2.answers
            for agent in tokens:
                for k, p in enumerate(sample):
                    (al1, l1, rule1), (al2, l2, rule2) = ans1[agent][k], ans2[agent][k]
                    if al1 == al2:
                        continue
                    kind = "gained" if al2 else "lost"
                    yield ("count", ("changes", pair, kind), 1)
                    if k == 0:
                        yield ("count", ("moved", b, agent, kind), 1)
                    yield ("row", "access", {
                        "from": a, "to": b, "origin": origin, "agent": agent, "path": p,
                        "change": kind, "line_before": l1, "rule_before": rule1,
                        "line_after": l2, "rule_after": rule2,
                        "outcome_before": o1, "outcome_after": o2})
            g1, g2 = x1.groups, x2.groups
            for change, mine, other in (("removed", g1, g2), ("added", g2, g1)):
                for key in sorted(mine.keys() - other.keys()):
                    yield ("count", ("changes", pair, change), 1)
                    yield ("row", "groups", {"from": a, "to": b, "origin": origin,
                                             "change": change, "agents": mine[key][0],
                                             "line": mine[key][1]})
            s1, s2 = x1.signals, x2.signals
            for signal in sorted(s1.keys() | s2.keys()):
                v1, v2 = s1.get(signal, {}), s2.get(signal, {})
                for category in sorted(v1.keys() | v2.keys()):
                    before = _said(v1[category]) if category in v1 else "absent"
                    after = _said(v2[category]) if category in v2 else "absent"
                    if before == after:
                        continue
                    yield ("count", ("changes", pair, "signals"), 1)
                    yield ("row", "signals", {
                        "from": a, "to": b, "origin": origin, "signal": signal,
                        "category": category, "before": before, "after": after,
                        "change": "appeared" if before == "absent" else
                        "disappeared" if after == "absent" else "changed"})


def _schemas() -> dict[str, list[tuple[str, Any]]]:
    """The columns of the history's tables."""
    pa = require("pyarrow")
    return {
        "access": [("from", pa.string()), ("to", pa.string()), ("origin", pa.string()),
                   ("agent", pa.string()), ("path", pa.string()), ("change", pa.string()),
                   ("line_before", pa.int32()), ("rule_before", pa.string()),
                   ("line_after", pa.int32()), ("rule_after", pa.string()),
                   ("outcome_before", pa.string()), ("outcome_after", pa.string())],
        "groups": [("from", pa.string()), ("to", pa.string()), ("origin", pa.string()),
                   ("change", pa.string()), ("agents", pa.string()), ("line", pa.int32())],
        "signals": [("from", pa.string()), ("to", pa.string()), ("origin", pa.string()),
                    ("signal", pa.string()), ("category", pa.string()), ("before", pa.string()),
                    ("after", pa.string()), ("change", pa.string())],
        "crawlers": [("crawl", pa.string()), ("agent", pa.string()), ("purpose", pa.string()),
                     ("origins", pa.int64()), ("blocked", pa.int64()),
                     ("blocked_share", pa.float64()), ("gained", pa.int64()),
                     ("lost", pa.int64())],
        "purposes": [("crawl", pa.string()), ("purpose", pa.string()), ("origins", pa.int64()),
                     ("blocked", pa.int64()), ("blocked_share", pa.float64())],
    }


def _schema(name: str) -> Any:
    return require("pyarrow").schema(_schemas()[name])


class _Spool:
    """The change rows (access, groups, signals) on disk as they come: Parquet files of at most
    :attr:`ROWS` rows each in a scratch folder, sorted by DuckDB when written out (out of core
    under its memory limit). Memory: one buffer of :attr:`ROWS` rows per table."""

    TABLES = ("access", "groups", "signals")
    ROWS = 50_000  # rows a spool file holds

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.rows = self.ROWS
        self.buffers: dict[str, list[dict[str, Any]]] = {t: [] for t in self.TABLES}
        self.parts: dict[str, list[str]] = {t: [] for t in self.TABLES}

    def add(self, table: str, row: dict[str, Any]) -> None:
        buf = self.buffers[table]
        buf.append(row)
        if len(buf) >= self.rows:
            self.flush(table)

    def flush(self, table: str) -> None:
        pa = require("pyarrow")
        pq = require("pyarrow.parquet")
        buf = self.buffers[table]
        path = os.path.join(self.folder, f"{table}-{len(self.parts[table])}.parquet")
        pq.write_table(pa.Table.from_pylist(buf, schema=_schema(table)), path)
        self.parts[table].append(path)
        buf.clear()

    def write(self, table: str, target: Path, con: Any) -> None:
        """The table's rows into ``target``, in one order whatever the engine's join order
        (each column as text, null first as the empty text)."""
        pq = require("pyarrow.parquet")
        self.flush(table)
        schema = _schema(table)
        order = ", ".join(f"coalesce(CAST(\"{f.name}\" AS VARCHAR), '')" for f in schema)
        reader = con.sql(f"SELECT * FROM read_parquet(?) ORDER BY {order}",
                         params=[self.parts[table]]).to_arrow_reader(8192)
        with pq.ParquetWriter(target, schema) as writer:
            for batch in reader:
                writer.write_batch(batch.cast(schema))


def _apply(events: Iterable[Event], counts: Counter[tuple[str, ...]], spool: _Spool) -> None:
    for event in events:
        if event[0] == "count":
            counts[tuple(event[1])] += event[2]
        else:
            spool.add(event[1], event[2])


def _duckdb_history(labelled: Sequence[tuple[str, str]], tokens: Sequence[str],
                    sample: Sequence[str], counts: Counter[tuple[str, ...]],
                    spool: _Spool, con: Any) -> None:
    # the tables go with the connection when this fails or is stopped (a DROP would fail
    # then: a stopped reader still holds its result)
    for i, (label, path) in enumerate(labelled):
        literal = "'" + path.replace("'", "''") + "'"
        con.execute(f"CREATE TABLE c{i} AS {chosen_sql(f'read_parquet({literal})')}")
        reader = con.sql(f"SELECT origin, outcome, body FROM c{i}").to_arrow_reader(2048)
        _apply(_crawl_events(label, tokens, sample, reader), counts, spool)
    for i in range(len(labelled) - 1):
        query = (f"SELECT origin, x.outcome AS o1, x.body AS b1, y.outcome AS o2, "
                 f"y.body AS b2 FROM c{i} x JOIN c{i + 1} y USING (origin)")
        _apply(_pair_events(labelled[i][0], labelled[i + 1][0], tokens, sample,
                            con.sql(query).to_arrow_reader(2048)), counts, spool)
    for i in range(len(labelled)):
        con.execute(f"DROP TABLE IF EXISTS c{i}")


def _as_arrow(fn: Callable[..., Iterator[Event]], *args: Any
              ) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """``fn(*args, batches)`` in a Spark task: its rows as JSON events, its counters summed
    per partition (a few keys per crawler)."""
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        pa = require("pyarrow")
        counts: Counter[tuple[str, ...]] = Counter()
        rows: list[str] = []
        for event in fn(*args, batches):
            if event[0] == "count":
                counts[tuple(event[1])] += event[2]
            else:
                rows.append(json.dumps(event))
                if len(rows) >= 2048:
                    yield pa.RecordBatch.from_pydict({"event": rows})
                    rows = []
        rows += [json.dumps(("count", key, n)) for key, n in counts.items()]
        if rows:
            yield pa.RecordBatch.from_pydict({"event": rows})
    return run


def _spark_history(spark: Any, labelled: Sequence[tuple[str, str]], tokens: Sequence[str],
                   sample: Sequence[str], counts: Counter[tuple[str, ...]],
                   spool: _Spool) -> None:
    require("pyspark", "spark")
    from pyspark.sql import functions as F

    session = spark
    chosen = []
    for label, path in labelled:
        raw = session.read.parquet(path).select(*_ROBOTS_READ)
        rows = raw.repartition("origin").mapInArrow(_choose_partition, raw.schema).select(
            "origin", "outcome", "body")
        chosen.append(rows)
        found = rows.mapInArrow(_as_arrow(_crawl_events, label, list(tokens), list(sample)),
                                "event string").collect()
        _apply((json.loads(r[0]) for r in found), counts, spool)
    for i in range(len(labelled) - 1):
        x = chosen[i].select("origin", F.col("outcome").alias("o1"), F.col("body").alias("b1"))
        y = chosen[i + 1].select("origin", F.col("outcome").alias("o2"),
                                 F.col("body").alias("b2"))
        joined = x.join(y, on="origin").select("origin", "o1", "b1", "o2", "b2")
        found = joined.mapInArrow(_as_arrow(_pair_events, labelled[i][0], labelled[i + 1][0],
                                            list(tokens), list(sample)),
                                  "event string").collect()
        _apply((json.loads(r[0]) for r in found), counts, spool)


def run_history(robots: Sequence[str], out_dir: str | os.PathLike[str], *,
                agents: Sequence[str] | None = None, purpose: str | None = None,
                paths: Sequence[str] = ("/",), engine: str = "duckdb",
                spark: Any = None, master: str | None = None, threads: int | None = None,
                memory_limit: str | None = None, scratch_dir: str | None = None
                ) -> HistoryResult:
    """The history of the crawls in ``robots`` (oldest first) into ``out_dir``.

    ``threads``, ``memory_limit`` and ``scratch_dir`` are DuckDB's: the chosen captures and
    the change rows (spooled to Parquet in the scratch folder as they come, sorted by DuckDB at
    the end) stay out of memory beyond the limit.

    ``engine="spark"``: the duplicate rule and the join of consecutive crawls run on Spark
    (``spark``: a SparkSession; when None, one on ``master``: :func:`.engines.spark_session`),
    the per-origin comparison (:func:`_crawl_events`, :func:`_pair_events`) in ``mapInArrow``
    on the executors; only its change rows and counters reach the driver. The same tables
    either way."""
    pa = require("pyarrow")
    pq = require("pyarrow.parquet")
    labelled = [crawl_label(r) for r in robots]
    if len(labelled) < 2:
        raise DatasetError("history needs two or more crawls (--robots LABEL=PATH, oldest first)")
    check_robots([p for _, p in labelled])
    labels = [label for label, _ in labelled]
    if len(set(labels)) != len(labels):
        raise DatasetError("two crawls have the same label; name them LABEL=PATH")
    sample = ["/", *[p for p in paths if p != "/"]]
    for p in sample:
        if not p.startswith("/"):
            raise DatasetError(f"sample path {p!r} must start with '/'")
    tokens = list(agents) if agents else [a.token for a in agents_for(purpose)]
    by_token = {a.token: a for a in known_agents()}
    counts: Counter[tuple[str, ...]] = Counter()
    result = HistoryResult(Path(out_dir), labels)
    session = session_for(engine, spark, master)
    if scratch_dir:
        os.makedirs(scratch_dir, exist_ok=True)
    out = Path(out_dir)
    with tempfile.TemporaryDirectory(prefix="robotrules-history-", dir=scratch_dir) as tmp:
        con = connect(threads, memory_limit, os.path.join(tmp, "spill"))
        try:
            spool = _Spool(tmp)
            if session is not None:
                _spark_history(session, labelled, tokens, sample, counts, spool)
                result.engine = spark_note(session)
            else:
                _duckdb_history(labelled, tokens, sample, counts, spool, con)
            out.mkdir(parents=True, exist_ok=True)
            for name in _Spool.TABLES:
                target = out / f"{name}.parquet"
                spool.write(name, target, con)
                result.files.append(target)
        finally:
            con.close()
    for key, n in counts.items():
        if key[0] == "changes":
            result.changes[(key[1], key[2])] += n
    origins = Counter({k[1]: n for k, n in counts.items() if k[0] == "origins"})
    crawler_rows = []
    for label in labels:
        n = origins[label]
        for agent in tokens:
            known = by_token.get(agent)
            crawler_rows.append({
                "crawl": label, "agent": agent,
                "purpose": ", ".join(purposes_of(known)) if known else "",
                "origins": n, "blocked": counts[("blocked", label, agent)],
                "blocked_share": counts[("blocked", label, agent)] / n if n else 0.0,
                "gained": counts[("moved", label, agent, "gained")],
                "lost": counts[("moved", label, agent, "lost")]})
    groups = sorted({g for a in tokens if (ka := by_token.get(a)) for g in purposes_of(ka)})
    purpose_rows = [{"crawl": label, "purpose": g, "origins": origins[label],
                     "blocked": counts[("purpose", label, g)],
                     "blocked_share": (counts[("purpose", label, g)] / origins[label]
                                       if origins[label] else 0.0)}
                    for label in labels for g in groups]
    for name, rows in (("crawlers", crawler_rows), ("purposes", purpose_rows)):
        target = out / f"{name}.parquet"
        pq.write_table(pa.Table.from_pylist(rows, schema=_schema(name)), target)
        result.files.append(target)
    result.crawlers = crawler_rows
    result.files.append(_chart(out, labels, crawler_rows, purpose_rows))
    return result


def _chart(out: Path, crawls: Sequence[str], crawlers: list[dict[str, Any]],
           purposes: list[dict[str, Any]]) -> Path:
    mpl = require("matplotlib")
    mpl.use("Agg")  # no display: files only
    plt = require("matplotlib.pyplot")
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    last = sorted((r for r in crawlers if r["crawl"] == crawls[-1]),
                  key=lambda r: (-r["blocked_share"], r["agent"]))[:10]
    for r in last:
        plot_share(left, crawlers, crawls, "agent", r["agent"])
    left.set_ylabel("% of origins disallowing the root")
    left.set_title("Blocked share per crawler")
    left.legend(fontsize="small", ncol=2)
    for g in sorted({r["purpose"] for r in purposes}):
        plot_share(right, purposes, crawls, "purpose", g)
    right.set_title("Blocked share per purpose (any crawler of it)")
    right.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    path = out / "history.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
