"""The census: how the origins of one or several crawls treat each crawler of the registry.

For each crawl (a robots.parquet, labelled) and each origin, the capture picked by the
duplicate rule (:mod:`.captures`) is read as RFC 9309 says (rules, allow-all for 4xx,
disallow-all for 5xx/429/unreachable) and every crawler of ``robotrules.agents.known_agents()``
is assessed with ``robotrules.agents.assess``: **blocked** (the whole site is disallowed),
**partial** (some paths), **allowed** (nothing disallowed). allow-all counts as allowed and
disallow-all as blocked for every crawler. With the AI-preferences feature present, the usage
preferences the file states for the site root (``rules.usage(origin + "/", ...)``) are counted
too: how many origins say yes / no to each category of the AIPREF vocabularies
(:data:`USAGE_COUNTED`: ``train-ai``, ``search``, ``ai-train``, ``ai-input``, and vocab-08's
``ai-use``).

A *group* is the crawlers sharing a purpose (:func:`robotrules.agents.purposes_of`: a crawler
with several purposes counts in each); an origin's status for a group is the strictest status
among its crawlers (blocked > partial > allowed), the
convention of Longpre et al., "Consent in Crisis" (arXiv 2407.14933), for company groups.

Outputs in the census directory: ``agents.parquet`` (crawl, token, operator, purpose, origins,
blocked, partial, allowed, their shares, usage counts), ``groups.parquet`` (the same per purpose),
``outcomes.parquet`` (per crawl: origins, rules / allow-all / disallow-all, truncated, errors)
and PNG charts: ``agents-<crawl>.png`` (share of origins per crawler), ``groups.png`` and, with
several crawls, ``trend.png`` (share blocking each crawler, crawl by crawl).

Cost: the crawl's robots rows are bucketed by origin like the local verdict engine; one parse,
O(crawlers) assessments and the usage preferences per distinct body (identical files, common in
real crawls, are counted once per worker: a memo of the counters of 4096 bodies, keyed by the
body's digest); memory is one bucket, the memo and the counters.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import robotrules
from robotrules import RobotsTxt, aipref
from robotrules._patterns import access_of
from robotrules.agents import KnownAgent, assess_many, known_agents, purposes_of
from robotrules.aipref.vocabulary import DEFAULT_VOCABULARY, VOCABULARIES, usage_keys

from ._deps import DatasetError, require
from ._io import check_robots
from .captures import chosen_sql
from .engines import _ROBOTS_READ, _choose_partition, connect, session_for, spark_note

__all__ = ["ACCESS", "SIGNALS", "USAGE_COUNTED", "CensusResult", "chosen_batches", "crawl_label",
           "plot_share", "policy_tokens", "registry_policy_tokens", "run_census", "signals_of"]

ACCESS = ("blocked", "partial", "allowed")
def _usage_counted() -> dict[str, str]:
    """Each category the census counts -> the AIPREF vocabulary it is read under: the default
    vocabulary's categories, then those only a later one has (vocab-08's ``ai-use``)."""
    out: dict[str, str] = dict.fromkeys(usage_keys(DEFAULT_VOCABULARY), DEFAULT_VOCABULARY)
    for name in VOCABULARIES:
        for key in usage_keys(name):
            out.setdefault(key, name)
    return out


#: The usage categories counted, in table order (:func:`_usage_counted`).
USAGE_COUNTED = tuple(_usage_counted())
_STRICT = {"blocked": 0, "partial": 1, "allowed": 2}
_MEMO = 4096  # distinct bodies whose assessments a worker keeps


@dataclass
class CensusResult:
    """Where the census went and what it counted."""

    out_dir: Path
    crawls: list[str]
    origins: dict[str, int] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    agents: list[dict[str, Any]] = field(default_factory=list)
    signals: list[dict[str, Any]] = field(default_factory=list)
    engine: str = "duckdb"

    def headline(self) -> list[str]:
        """One line per crawl: origins, the most blocked crawlers, the usage signals found."""
        lines = []
        for crawl in self.crawls:
            mine = sorted((r for r in self.agents if r["crawl"] == crawl and r["blocked"]),
                          key=lambda r: (-r["blocked_share"], r["token"]))[:3]
            top = ", ".join(f"{r['token']} {100 * r['blocked_share']:.1f} %" for r in mine)
            sig = [r for r in self.signals if r["crawl"] == crawl and r["category"] == "*"]
            said = ", ".join(f"{r['signal']} {r['files']:,}" for r in sig) or "none"
            lines.append(f"{crawl}: {self.origins.get(crawl, 0):,} origins; most blocked: "
                         f"{top or 'none blocked'}; files with usage signals: {said}")
        return lines


def crawl_label(arg: str) -> tuple[str, str]:
    """``LABEL=PATH`` or ``PATH``; a bare path is labelled by its file name (or its folder's
    name when the file is called ``robots.parquet``)."""
    label, sep, path = arg.partition("=")
    if sep and label and not os.path.exists(arg):
        return label, path
    p = Path(arg)
    return (p.parent.name or p.stem) if p.stem == "robots" else p.stem, arg


def agents_for(purpose: str | None) -> list[KnownAgent]:
    """The registry's crawlers, those of ``purpose`` only when given."""
    agents = list(known_agents())
    if purpose is None:
        return agents
    chosen = [a for a in agents if purpose in purposes_of(a)]
    if not chosen:
        known = sorted({p for a in agents for p in purposes_of(a)})
        raise DatasetError(f"no crawler has purpose {purpose!r} (known: {', '.join(known)})")
    return chosen


def registry_policy_tokens() -> frozenset[str]:
    """Registry tokens that name a usage policy rather than a fetching crawler (Google-Extended,
    Applebot-Extended): a group naming one is a usage signal (AI-PREFERENCES.md 7.1)."""
    return frozenset(t.lower() for a in known_agents() if a.user_agent is None
                     and a.description.lower().startswith("not a crawler") for t in a.tokens)


policy_tokens = registry_policy_tokens  # its earlier name


#: The signals the census counts, in table order (:func:`signals_of` says what each holds).
SIGNALS = ("content-usage", "content-signal", "license", "llm-policy", "policy-token")


def signals_of(rules: RobotsTxt, policy: frozenset[str] | None = None
               ) -> dict[str, dict[str, bool | None]]:
    """The usage signals one robots.txt carries: per signal, the categories it states for the
    file (``True`` yes / ``False`` no / ``None`` stated but unreadable; ``"*"``: present).

    The one place the census reads signals (through :func:`robotrules.aipref.records`): a new
    signal of :mod:`robotrules.aipref` is counted by adding it here. A category stated by
    several lines of one signal is combined most-restrictively (:func:`aipref.combine`).
    A policy-token group's category is ``disallow``: ``True`` when it disallows the whole site.
    """

    found: dict[str, list[aipref.Statement]] = {}
    for statement in aipref.records(rules):
        found.setdefault(statement.source, []).append(statement)
    out: dict[str, dict[str, bool | None]] = {}
    for source, statements in found.items():
        if source not in SIGNALS:
            continue
        values: dict[str, bool | None] = {"*": True}
        values.update(aipref.combine(*statements))
        out[source] = values
    tokens = policy if policy is not None else registry_policy_tokens()
    named = [g for g in rules.groups if any(t.lower() in tokens for t in g.tokens)]
    if named:
        out["policy-token"] = {"*": True, "disallow": any(
            access_of(g.rules, rules.dialect)[0] == "blocked" for g in named)}
    return out


#: Per worker process: the counters one origin adds, per distinct body, for the settings they
#: were counted under (crawlers, usage, policy tokens); at most ``_MEMO`` bodies.
_SEEN: dict[tuple[Any, ...], dict[bytes, Counter[tuple[str, ...]]]] = {}


def _count_rows(rows: dict[str, list[Any]], tokens: Sequence[str], usage: bool,
                policy_tokens: Mapping[str, str] | None = None) -> Counter[tuple[str, ...]]:
    """Counters of chosen robots rows (origin, outcome, body). Keys: ("agent", token, access),
    ("group", purpose, access), ("usage", token, key, yes|no), ("outcome", outcome),
    ("signal", signal, category, yes|no|unknown).

    What an origin adds depends on its outcome and body only (the usage preferences are read
    for the root ``/`` of the origin, a path), so the rows are counted per distinct body: each
    body's counters once (kept for the worker's next batches), times its rows."""
    counts: Counter[tuple[str, ...]] = Counter()
    by_token = {a.token: a for a in known_agents()}
    agents = [by_token[t] for t in tokens]

    # the registry's control tokens and the caller's policy tokens (aipref.policy_tokens)
    policy = registry_policy_tokens() | {t.lower() for t in (
        policy_tokens if policy_tokens is not None else aipref.POLICY_TOKENS)}
    settings = (tuple(tokens), usage, None if policy_tokens is None
                else tuple(sorted(policy_tokens.items())))
    seen = _SEEN.setdefault(settings, {})
    rows_of: Counter[Any] = Counter()  # digest of a body, or an outcome without rules
    first: dict[bytes, tuple[str, bytes | None]] = {}
    for origin, outcome, body in zip(rows["origin"], rows["outcome"], rows["body"], strict=True):
        counts[("outcome", outcome)] += 1
        if outcome == "rules":
            digest = hashlib.blake2b(body or b"", digest_size=16).digest()
            rows_of[digest] += 1
            first.setdefault(digest, (origin, body))
        else:
            rows_of[outcome] += 1
    for key, n in rows_of.items():
        if isinstance(key, str):
            added = _origin_counts(agents, None, key, None, usage, policy, policy_tokens)
        else:
            found = seen.get(key)
            if found is None:
                origin, body = first[key]
                rules = robotrules.parse(body or b"", url=origin + "/robots.txt")
                found = _origin_counts(agents, rules, "rules", origin, usage, policy,
                                       policy_tokens)
                if len(seen) >= _MEMO:
                    seen.clear()
                seen[key] = found
            added = found
        for counter, m in added.items():
            counts[counter] += m * n
    return counts


def _origin_counts(agents: Sequence[KnownAgent], rules: RobotsTxt | None, outcome: str,
                   origin: str | None, usage: bool, policy: frozenset[str],
                   policy_tokens: Mapping[str, str] | None) -> Counter[tuple[str, ...]]:
    """The counters one origin adds (``outcome`` counted by the caller): its signals, each
    crawler's access and usage preferences, each purpose's strictest access."""
    counts: Counter[tuple[str, ...]] = Counter()
    verdicts: list[str] | None = None
    if rules is not None:
        verdicts = [a.access for a in assess_many(rules, agents, policy_tokens=policy_tokens)]
        for signal, values in signals_of(rules, policy).items():
            for category, value in values.items():
                said = "yes" if value is True else "no" if value is False else "unknown"
                counts[("signal", signal, category, said)] += 1
    read_under = _usage_counted()
    strictest: dict[str, str] = {}
    for k, agent in enumerate(agents):
        if verdicts is None:
            access = "blocked" if outcome == "disallow-all" else "allowed"
        else:
            access = verdicts[k]
        counts[("agent", agent.token, access)] += 1
        for group in purposes_of(agent):
            if group not in strictest or _STRICT[access] < _STRICT[strictest[group]]:
                strictest[group] = access
        if usage and rules is not None:
            answers = {v: rules.usage(f"{origin}/", user_agent=agent.token,
                                      policy_tokens=policy_tokens, vocabulary=v)
                       for v in dict.fromkeys(read_under.values())}
            for key in USAGE_COUNTED:
                value = answers[read_under[key]][key]
                if value is not None:
                    counts[("usage", agent.token, key, "yes" if value else "no")] += 1
    for group, access in strictest.items():
        counts[("group", group, access)] += 1
    return counts


def _count_batch(batch: Any, tokens: Sequence[str], usage: bool,
                 policy_tokens: Mapping[str, str] | None = None) -> Counter[tuple[str, ...]]:
    """Worker task: the counters of one batch of chosen rows."""
    return _count_rows(batch.to_pydict(), tokens, usage, policy_tokens)


def chosen_batches(path: str, con: Any, rows: int = 2048) -> Iterator[Any]:
    """The chosen capture of each origin of a robots.parquet (``origin``, ``outcome``,
    ``body`` and the rest), as Arrow batches in origin order (DuckDB, out of core)."""
    source = "(SELECT * FROM read_parquet(?))"
    yield from con.sql(chosen_sql(source), params=[path]).to_arrow_reader(rows)


def _count_crawl(path: str, tokens: Sequence[str], usage: bool, workers: int,
                 scratch_dir: str | None, policy_tokens: Mapping[str, str] | None = None,
                 threads: int | None = None, memory_limit: str | None = None
                 ) -> Counter[tuple[str, ...]]:
    total: Counter[tuple[str, ...]] = Counter()
    if scratch_dir:
        os.makedirs(scratch_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="robotrules-census-", dir=scratch_dir) as tmp:
        con = connect(threads, memory_limit, spill_dir=tmp)
        try:
            batches = (b.select(["origin", "outcome", "body"]) for b in chosen_batches(path, con))
            if workers > 1:
                pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"))
                try:
                    pending: list[Future[Counter[tuple[str, ...]]]] = []
                    for batch in batches:
                        pending.append(pool.submit(_count_batch, batch, tokens, usage,
                                                   policy_tokens))
                        if len(pending) > 2 * workers:  # bounded in-flight work
                            total.update(pending.pop(0).result())
                    for f in pending:
                        total.update(f.result())
                except BaseException:
                    # SIGTERM, Ctrl-C or an error: the batches under way are not waited for
                    # (each can take minutes on a loaded machine, past a service manager's
                    # stop timeout); the workers are ended now
                    _end_workers(pool)
                    raise
                finally:
                    # queued batches dropped, the workers (and the resource tracker with
                    # them) gone before the temp dir goes
                    pool.shutdown(wait=True, cancel_futures=True)
            else:
                for batch in batches:
                    total.update(_count_batch(batch, tokens, usage, policy_tokens))
        finally:
            con.close()
    return total


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate the pool's worker processes (``ProcessPoolExecutor`` has no public call for it
    before Python 3.14's ``terminate_workers``; its ``_processes`` maps pids to processes)."""
    stop = getattr(pool, "terminate_workers", None)
    if stop is not None:  # Python 3.14
        stop()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()


_SEP = "\x1f"  # joins a counter key's parts into one string column on Spark


def _spark_counter(tokens: Sequence[str], usage: bool,
                   policy_tokens: Mapping[str, str] | None = None
                   ) -> Callable[[Iterator[Any]], Iterator[Any]]:
    def fn(batches: Iterator[Any]) -> Iterator[Any]:
        pa = require("pyarrow")
        total: Counter[tuple[str, ...]] = Counter()
        for batch in batches:
            total.update(_count_batch(batch, tokens, usage, policy_tokens))
        yield pa.RecordBatch.from_arrays(
            [pa.array([_SEP.join(k) for k in total], pa.string()),
             pa.array(list(total.values()), pa.int64())], names=["key", "n"])
    return fn


def _count_crawl_spark(session: Any, path: str, tokens: Sequence[str], usage: bool,
                       policy_tokens: Mapping[str, str] | None = None
                       ) -> Counter[tuple[str, ...]]:
    """The counters of one crawl on Spark: the duplicate rule per partition of the rows
    repartitioned by origin (:func:`.engines._choose_partition`), the counting per partition,
    the counters (a few thousand keys) summed by Spark and collected."""
    raw = session.read.parquet(path).select(*_ROBOTS_READ)
    chosen = raw.repartition("origin").mapInArrow(_choose_partition, raw.schema)
    parts = chosen.select("origin", "outcome", "body").mapInArrow(
        _spark_counter(tokens, usage, policy_tokens), "key string, n long")
    rows = parts.groupBy("key").sum("n").collect()
    return Counter({tuple(r[0].split(_SEP)): int(r[1]) for r in rows})


def _share(n: int, d: int) -> float:
    return n / d if d else 0.0


def _tables(crawls: Sequence[str], counts: dict[str, Counter[tuple[str, ...]]],
            agents: Sequence[KnownAgent], usage: bool) -> tuple[Any, Any, Any]:
    pa = require("pyarrow")
    agent_rows: list[dict[str, Any]] = []
    group_rows: list[dict[str, Any]] = []
    outcome_rows: list[dict[str, Any]] = []
    groups: dict[str, list[str]] = {}
    for a in agents:
        for group in purposes_of(a):
            groups.setdefault(group, []).append(a.token)
    for crawl in crawls:
        c = counts[crawl]
        origins = sum(v for k, v in c.items() if k[0] == "outcome")
        outcome_rows.append({"crawl": crawl, "origins": origins,
                             "rules": c[("outcome", "rules")],
                             "allow_all": c[("outcome", "allow-all")],
                             "disallow_all": c[("outcome", "disallow-all")]})
        for a in agents:
            row: dict[str, Any] = {"crawl": crawl, "token": a.token, "operator": a.operator,
                                   "purpose": ", ".join(purposes_of(a)), "origins": origins}
            for acc in ACCESS:
                row[acc] = c[("agent", a.token, acc)]
            for acc in ACCESS:
                row[f"{acc}_share"] = _share(row[acc], origins)
            for key in USAGE_COUNTED:
                for ans in ("yes", "no"):
                    row[f"{key}_{ans}"] = c[("usage", a.token, key, ans)] if usage else None
            agent_rows.append(row)
        for group, tokens in sorted(groups.items()):
            grow: dict[str, Any] = {"crawl": crawl, "purpose": group, "crawlers": len(tokens),
                                    "origins": origins}
            for acc in ACCESS:
                grow[acc] = c[("group", group, acc)]
            for acc in ACCESS:
                grow[f"{acc}_share"] = _share(grow[acc], origins)
            group_rows.append(grow)
    usage_fields = [pa.field(f"{k}_{a}", pa.int64()) for k in USAGE_COUNTED for a in ("yes", "no")]
    counts_fields = [pa.field(a, pa.int64()) for a in ACCESS]
    share_fields = [pa.field(f"{a}_share", pa.float64()) for a in ACCESS]
    agent_schema = pa.schema([pa.field("crawl", pa.string()), pa.field("token", pa.string()),
                              pa.field("operator", pa.string()), pa.field("purpose", pa.string()),
                              pa.field("origins", pa.int64()), *counts_fields, *share_fields,
                              *usage_fields])
    group_schema = pa.schema([pa.field("crawl", pa.string()), pa.field("purpose", pa.string()),
                              pa.field("crawlers", pa.int64()), pa.field("origins", pa.int64()),
                              *counts_fields, *share_fields])
    outcome_schema = pa.schema([pa.field("crawl", pa.string()), pa.field("origins", pa.int64()),
                                pa.field("rules", pa.int64()), pa.field("allow_all", pa.int64()),
                                pa.field("disallow_all", pa.int64())])
    return (pa.Table.from_pylist(agent_rows, schema=agent_schema),
            pa.Table.from_pylist(group_rows, schema=group_schema),
            pa.Table.from_pylist(outcome_rows, schema=outcome_schema))


def _signal_table(crawls: Sequence[str], counts: dict[str, Counter[tuple[str, ...]]]) -> Any:
    """Per crawl, signal and category (``*``: the signal is present): files saying yes, no,
    or something unreadable, and the files with rules they are counted among."""
    pa = require("pyarrow")
    rows: list[dict[str, Any]] = []
    for crawl in crawls:
        c = counts[crawl]
        files = c[("outcome", "rules")]
        keys = sorted({(k[1], k[2]) for k in c if k[0] == "signal"},
                      key=lambda k: (SIGNALS.index(k[0]) if k[0] in SIGNALS else 99,
                                     k[1] != "*", k[1]))
        for signal, category in keys:
            yes, no = c[("signal", signal, category, "yes")], c[("signal", signal, category, "no")]
            unknown = c[("signal", signal, category, "unknown")]
            rows.append({"crawl": crawl, "signal": signal, "category": category,
                         "files": yes + no + unknown, "yes": yes, "no": no,
                         "unknown": unknown, "files_with_rules": files,
                         "share": _share(yes + no + unknown, files)})
    schema = pa.schema([pa.field("crawl", pa.string()), pa.field("signal", pa.string()),
                        pa.field("category", pa.string()), pa.field("files", pa.int64()),
                        pa.field("yes", pa.int64()), pa.field("no", pa.int64()),
                        pa.field("unknown", pa.int64()), pa.field("files_with_rules", pa.int64()),
                        pa.field("share", pa.float64())])
    return pa.Table.from_pylist(rows, schema=schema)


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label) or "crawl"


_COLOURS = {"blocked": "#c0392b", "partial": "#e67e22", "allowed": "#27ae60"}


def _charts(out: Path, crawls: Sequence[str], agents: Any, groups: Any, top: int) -> list[Path]:
    mpl = require("matplotlib")
    mpl.use("Agg")  # no display: files only
    plt = require("matplotlib.pyplot")
    files: list[Path] = []
    rows = agents.to_pylist()
    for crawl in crawls:
        mine = [r for r in rows if r["crawl"] == crawl]
        mine.sort(key=lambda r: (r["blocked_share"], r["partial_share"]), reverse=True)
        mine = mine[:top][::-1]
        fig, ax = plt.subplots(figsize=(8, 0.28 * len(mine) + 1.4))
        left = [0.0] * len(mine)
        for acc in ACCESS:
            vals = [100 * r[f"{acc}_share"] for r in mine]
            ax.barh([r["token"] for r in mine], vals, left=left, color=_COLOURS[acc], label=acc)
            left = [x + v for x, v in zip(left, vals, strict=True)]
        origins = mine[0]["origins"] if mine else 0
        ax.set_xlabel(f"% of {origins} origins")
        ax.set_xlim(0, 100)
        ax.set_title(f"{crawl}: robots.txt access per crawler (top {len(mine)} by blocked share)")
        legend_outside(ax)
        fig.tight_layout()
        path = out / f"agents-{_slug(crawl)}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        files.append(path)
    grows = groups.to_pylist()
    names = sorted({r["purpose"] for r in grows})
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / max(1, len(crawls))
    for i, crawl in enumerate(crawls):
        shares = {r["purpose"]: 100 * r["blocked_share"] for r in grows if r["crawl"] == crawl}
        ax.bar([j + i * width for j in range(len(names))], [shares.get(n, 0.0) for n in names],
               width=width, label=crawl)
    ax.set_xticks([j + width * (len(crawls) - 1) / 2 for j in range(len(names))], names)
    ax.set_ylabel("% of origins blocking at least one crawler of the group")
    ax.set_title("Blocked share per purpose (strictest crawler of the group)")
    legend_outside(ax)
    fig.tight_layout()
    path = out / "groups.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    files.append(path)
    if len(crawls) > 1:
        last = [r for r in rows if r["crawl"] == crawls[-1]]
        last.sort(key=lambda r: r["blocked_share"], reverse=True)
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for r in last[: min(top, 10)]:
            plot_share(ax, rows, crawls, "token", r["token"])
        ax.set_ylabel("% of origins blocking the crawler")
        ax.set_title("Trend: share of origins blocking each crawler")
        legend_outside(ax)
        fig.tight_layout()
        path = out / "trend.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        files.append(path)
    return files


def run_census(
    robots: Sequence[str],
    out_dir: str | os.PathLike[str],
    *,
    purpose: str | None = None,
    workers: int | None = None,
    top: int = 25,
    progress: Callable[[int], None] | None = None,
    scratch_dir: str | None = None,
    engine: str = "duckdb",
    spark: Any = None,
    policy_tokens: Mapping[str, str] | None = None,
    master: str | None = None,
    threads: int | None = None,
    memory_limit: str | None = None,
) -> CensusResult:
    """The census of each crawl in ``robots`` (``LABEL=PATH`` or ``PATH``) into ``out_dir``.

    ``progress`` is called with 1 after each crawl. ``threads``, ``memory_limit`` and
    ``scratch_dir`` are DuckDB's (the duplicate rule's sort spills there, out of core);
    ``workers`` processes assess the files (memory: one batch and a memo of bodies each).
    ``engine="spark"`` counts on Spark (``spark``: a SparkSession; when None, one on
    ``master``: :func:`.engines.spark_session`): the same counts, the tables and charts
    written by the driver. ``policy_tokens`` (token -> usage category; default the
    built-in :data:`robotrules.aipref.POLICY_TOKENS`): groups naming one are counted as the
    ``policy-token`` signal and never as blocked crawlers (:mod:`robotrules.aipref.policy_tokens`).
    """
    pq = require("pyarrow.parquet")
    labelled = [crawl_label(r) for r in robots]
    check_robots([p for _, p in labelled])
    labels = [label for label, _ in labelled]
    if len(set(labels)) != len(labels):
        raise DatasetError("two crawls have the same label; name them LABEL=PATH")
    agents = agents_for(purpose)
    tokens = [a.token for a in agents]
    usage = True
    n = workers or os.cpu_count() or 1
    counts: dict[str, Counter[tuple[str, ...]]] = {}
    session = session_for(engine, spark, master)
    for label, path in labelled:
        counts[label] = (
            _count_crawl_spark(session, path, tokens, usage, policy_tokens)
            if session is not None
            else _count_crawl(path, tokens, usage, n, scratch_dir, policy_tokens, threads,
                              memory_limit))
        if progress is not None:
            progress(1)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    agent_t, group_t, outcome_t = _tables(labels, counts, agents, usage)
    result = CensusResult(out, labels)
    if session is not None:
        result.engine = spark_note(session)
    signal_t = _signal_table(labels, counts)
    result.signals = signal_t.to_pylist()
    result.agents = agent_t.to_pylist()
    for name, table in (("agents", agent_t), ("groups", group_t), ("outcomes", outcome_t),
                        ("signals", signal_t)):
        target = out / f"{name}.parquet"
        pq.write_table(table, target)
        result.files.append(target)
    result.files += _charts(out, labels, agent_t, group_t, top)
    result.origins = {r["crawl"]: r["origins"] for r in outcome_t.to_pylist()}
    return result


def legend_outside(ax: Any) -> Any:
    """The chart's legend beside the plot, right of it, so it never covers a bar or a line."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
                     borderaxespad=0.0)


def plot_share(ax: Any, rows: Sequence[dict[str, Any]], crawls: Sequence[str], key: str,
               value: str) -> None:
    """One line of a trend chart: the blocked share (in %) of the rows whose ``key`` is
    ``value``, per crawl in ``crawls`` order (0 where a crawl has no row), labelled ``value``.
    The census's trend chart and the history's charts draw their lines with it."""
    series = {x["crawl"]: 100 * x["blocked_share"] for x in rows if x[key] == value}
    ax.plot(list(crawls), [series.get(c, 0.0) for c in crawls], marker="o", label=value)
