"""Published IP ranges: parse an operator's list, keep it with its dates, answer "is this address
in it", and refresh the lists on disk (``robotrules agents ranges --refresh``).

A list is only trusted while it is fresh: a list fetched longer ago than ``max_age`` (7 days by
default) or never fetched makes the answer ``stale`` / ``missing``, which the guard reports as
"unverifiable", never as "spoofed". Format ``google`` is the JSON Google, Bing, OpenAI, Apple,
Perplexity and Common Crawl publish: ``{"creationTime": "...", "prefixes": [{"ipv4Prefix":
"192.0.2.0/24"}, {"ipv6Prefix": "2001:db8::/32"}]}``; format ``cidr`` is one CIDR per line
(``#`` comments). A malformed prefix is skipped and counted, never fatal.

Look-ups are O(log n): each list is kept as merged, sorted integer intervals per address family.
The parsing is sans-I/O (:func:`parse_list`); :func:`refresh` is the one place that fetches,
through the guard's bounded download (:mod:`._download`: public addresses only, the
robots.txt fetcher's capped decoder, a total deadline; conditional on the saved ``ETag``),
and :class:`RangeRefresher` runs it in the background with an interval and jitter. A failed
download never replaces a good list. :meth:`RangeStore.staleness` says, in sentences, why
address checks cannot block anyone (no list, a stale list); :meth:`RangeStore.warn_stale`
logs them once (WARNING, ``robotrules.guard``).
"""

from __future__ import annotations

import bisect
import hashlib
import ipaddress
import json
import logging
import os
import random
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from .registry import range_lists

__all__ = ["DEFAULT_MAX_AGE", "MAX_LIST_BYTES", "RangeList", "RangeRefresher", "RangeState",
           "RangeStore", "Refreshed", "default_dir", "parse_list", "refresh"]

RangeState = Literal["in", "out", "stale", "missing"]
DEFAULT_MAX_AGE = 7 * 86_400.0
MAX_LIST_BYTES = 4_000_000  # Google's largest list is ~100 KB; a 40x margin, then cut off
_INDEX = "index.json"
_MISSING = "IP range lists missing"
_LOG = logging.getLogger("robotrules.guard")


@dataclass(frozen=True, slots=True)
class RangeList:
    """One operator list: where it came from, when it was fetched and made, and its intervals."""

    url: str
    fetched: float
    created: str | None
    v4: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    v6: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    prefixes: int = 0
    skipped: int = 0

    def contains(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        starts, ends = self.v4 if ip.version == 4 else self.v6
        n = int(ip)
        i = bisect.bisect_right(starts, n) - 1
        return i >= 0 and n <= ends[i]


def _merge(nets: list[tuple[int, int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    nets.sort()
    starts: list[int] = []
    ends: list[int] = []
    for s, e in nets:
        if ends and s <= ends[-1] + 1:
            ends[-1] = max(ends[-1], e)
        else:
            starts.append(s)
            ends.append(e)
    return tuple(starts), tuple(ends)


def parse_list(body: bytes | str, fmt: str = "google", *, url: str = "",
               fetched: float = 0.0) -> RangeList:
    """Read one published list. Raises ``ValueError`` when the body is not the format at all
    (not JSON, no ``prefixes`` list); single bad prefixes are skipped and counted."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    created: str | None = None
    raw: list[str] = []
    if fmt == "google":
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"not a JSON range list: {exc}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("prefixes"), list):
            raise ValueError("not a range list: no 'prefixes' array")
        c = doc.get("creationTime")
        created = c if isinstance(c, str) else None
        for p in doc["prefixes"]:
            if isinstance(p, dict):
                v = p.get("ipv4Prefix") or p.get("ipv6Prefix")
                raw.append(v if isinstance(v, str) else "")
            else:
                raw.append("")
    elif fmt == "cidr":
        raw = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
        raw = [r for r in raw if r]
    else:
        raise ValueError(f"unknown range-list format {fmt!r} (known: google, cidr)")
    v4: list[tuple[int, int]] = []
    v6: list[tuple[int, int]] = []
    skipped = 0
    for r in raw:
        try:
            net = ipaddress.ip_network(r.strip(), strict=False)
        except ValueError:
            skipped += 1
            continue
        (v4 if net.version == 4 else v6).append(
            (int(net.network_address), int(net.broadcast_address)))
    return RangeList(url, fetched, created, _merge(v4), _merge(v6), len(v4) + len(v6),
                     skipped)


@dataclass(slots=True)
class RangeStore:
    """The range lists a guard trusts, by URL, with a freshness limit (``max_age`` seconds).

    A list that is missing or older than ``max_age`` answers ``missing`` / ``stale`` (the
    guard then says "unverifiable", never "spoofed"), so nothing is blocked by address: the
    store says so once per list and state, at WARNING on the ``robotrules.guard`` logger, the
    first time it answers that way (and :meth:`warn_stale` says it at start-up)."""

    lists: dict[str, RangeList] = field(default_factory=dict)
    max_age: float = DEFAULT_MAX_AGE
    log_warnings: bool = True  # False: the caller says it (``robotrules audit``)
    _warned: set[str] = field(default_factory=set, repr=False, compare=False)

    def add(self, rl: RangeList) -> None:
        self.lists[rl.url] = rl
        self._warned.discard(f"stale {rl.url}")

    def state(self, url: str, ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
              now: float | None = None) -> RangeState:
        rl = self.lists.get(url)
        if rl is None:
            if "missing" not in self._warned:
                self._warn("missing", self._missing_text([url]))
            return "missing"
        t = time.time() if now is None else now
        if t - rl.fetched > self.max_age:
            if f"stale {url}" not in self._warned:
                self._warn(f"stale {url}", self._stale_text(rl, t))
            return "stale"
        return "in" if rl.contains(ip) else "out"

    def staleness(self, now: float | None = None,
                  expected: Iterable[str] | None = None) -> list[str]:
        """Why address checks cannot block anyone now, one sentence per problem: no list
        saved, lists of ``expected`` (default: every list of the registry) missing, lists older
        than ``max_age``. Empty when every list is fresh."""
        return [text for _key, text in self._problems(now, expected)]

    def warn_stale(self, now: float | None = None, expected: Iterable[str] | None = None
                   ) -> list[str]:
        """:meth:`staleness`, each sentence logged once (WARNING, ``robotrules.guard``);
        the guard calls it at start-up. Returns what was logged now."""
        said = []
        for key, text in self._problems(now, expected):
            if key not in self._warned:
                self._warn(key, text)
                said.append(text)
        return said

    def _problems(self, now: float | None, expected: Iterable[str] | None
                  ) -> list[tuple[str, str]]:
        if expected is None:
            expected = range_lists()
        t = time.time() if now is None else now
        missing = [u for u in expected if u not in self.lists]
        out = [("missing", self._missing_text(missing))] if missing or not self.lists else []
        out += [(f"stale {rl.url}", self._stale_text(rl, t)) for rl in self.lists.values()
                if t - rl.fetched > self.max_age]
        return out

    def _warn(self, key: str, text: str) -> None:
        self._warned.add(key)
        if self.log_warnings:
            _LOG.warning("%s", text)

    def _missing_text(self, urls: list[str]) -> str:
        what = "no published IP range list is saved" if not self.lists else \
            f"{len(urls)} published IP range list(s) not saved ({', '.join(urls[:3])}" + \
            (", ..." if len(urls) > 3 else "") + ")"
        return (f"{_MISSING}: {what}; the crawlers they cover are 'unverifiable' by address, "
                "never 'spoofed' (run 'robotrules agents ranges --refresh' or start a "
                "RangeRefresher)")

    def _stale_text(self, rl: RangeList, now: float) -> str:
        return (f"IP range list stale: {rl.url} was saved {(now - rl.fetched) / 86400:.1f} "
                f"days ago (limit {self.max_age / 86400:g}); its crawlers are "
                "'unverifiable' by address until it is refreshed")

    @classmethod
    def load(cls, directory: str | Path | None = None, *,
             max_age: float = DEFAULT_MAX_AGE) -> RangeStore:
        """The lists saved by :func:`refresh` in ``directory`` (default :func:`default_dir`);
        an empty store when there are none. A damaged file is skipped."""
        d = Path(directory) if directory is not None else default_dir()
        store = cls(max_age=max_age)
        try:
            index = json.loads((d / _INDEX).read_text("utf-8"))
        except (OSError, ValueError):
            return store
        if not isinstance(index, dict):
            return store
        for url, meta in index.items():
            try:
                body = (d / meta["file"]).read_bytes()
                store.add(parse_list(body, meta.get("format", "google"), url=url,
                                     fetched=float(meta["fetched"])))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return store


def default_dir() -> Path:
    """``$XDG_CACHE_HOME/robotrules/ranges`` (``~/.cache/robotrules/ranges``)."""

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "robotrules" / "ranges"


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What one refresh of one list did: ``ok`` (saved, or confirmed unchanged:
    ``not_modified``), else ``error``, one line saying why (the saved copy is kept)."""

    url: str
    ok: bool
    prefixes: int
    created: str | None
    fetched: float | None
    error: str | None = None
    not_modified: bool = False

    def to_dict(self) -> dict[str, object]:
        when = (datetime.fromtimestamp(self.fetched, UTC).isoformat()
                if self.fetched else None)
        return {"url": self.url, "ok": self.ok, "prefixes": self.prefixes,
                "created": self.created, "fetched": when, "error": self.error,
                "not_modified": self.not_modified}


def _read_index(d: Path) -> dict[str, dict[str, object]]:
    try:
        index = json.loads((d / _INDEX).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in index.items() if isinstance(v, dict)} \
        if isinstance(index, dict) else {}


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _newer_or_same(created: str | None, held: object) -> bool:
    """False when the operator's ``creationTime`` says the download is older than the saved
    copy (a stale mirror or cache): the saved copy is then kept."""
    if not created or not isinstance(held, str):
        return True
    try:
        new = datetime.fromisoformat(created.replace("Z", "+00:00"))
        old = datetime.fromisoformat(held.replace("Z", "+00:00"))
        if (new.tzinfo is None) != (old.tzinfo is None):
            return True
        return new >= old
    except ValueError:
        return True


def refresh(lists: Mapping[str, str], directory: str | Path | None = None, *,
            timeout: float = 15.0, max_bytes: int = MAX_LIST_BYTES,
            transport: object | None = None, allow_loopback: bool = False,
            store: RangeStore | None = None) -> list[Refreshed]:
    """Download each ``url -> format`` list into ``directory`` with its fetch date, by the
    guard's bounded download (:mod:`._download`: public addresses only unless
    ``allow_loopback``, at most 3 redirects, the body decoded with a cap of ``max_bytes``,
    ``timeout`` seconds per list in all). A saved list's ``ETag`` / ``Last-Modified`` make
    the request conditional (``304``: the copy is confirmed and its date renewed). A list
    that fails, is not the format, has no prefix, or whose ``creationTime`` is older than the
    saved copy's keeps the saved copy (and its date, so it goes stale in time): a good list is
    never replaced by a failure. ``store``: also update these lists in memory."""
    from ._download import DownloadError, download

    d = Path(directory) if directory is not None else default_dir()
    d.mkdir(parents=True, exist_ok=True)
    index = _read_index(d)
    out: list[Refreshed] = []
    for url, fmt in lists.items():
        held = index.get(url, {})
        has_copy = isinstance(held.get("file"), str) and (d / str(held["file"])).is_file()
        etag, modified = held.get("etag"), held.get("last_modified")
        try:
            got = download(url, timeout=timeout, max_bytes=max_bytes,
                           accept="application/json, text/plain;q=0.5", max_redirects=3,
                           allow_loopback=allow_loopback, transport=transport,
                           etag=etag if has_copy and isinstance(etag, str) else None,
                           last_modified=modified if has_copy and isinstance(modified, str)
                           else None)
        except DownloadError as exc:
            out.append(Refreshed(url, False, 0, None, None, str(exc)))
            continue
        now = time.time()
        if got.status == 304:
            held["fetched"] = now
            index[url] = held
            prefixes = held.get("prefixes")
            created = held.get("created")
            out.append(Refreshed(url, True, prefixes if isinstance(prefixes, int) else 0,
                                 created if isinstance(created, str) else None, now,
                                 not_modified=True))
            if store is not None and url in store.lists:
                store.add(replace(store.lists[url], fetched=now))
            continue
        try:
            rl = parse_list(got.body, fmt, url=url, fetched=now)
        except ValueError as exc:
            out.append(Refreshed(url, False, 0, None, None, str(exc)[:200]))
            continue
        if rl.prefixes == 0:
            out.append(Refreshed(url, False, 0, rl.created, None,
                                 "the list has no prefix: the saved copy is kept"))
            continue
        if has_copy and not _newer_or_same(rl.created, held.get("created")):
            out.append(Refreshed(url, False, 0, rl.created, None,
                                 f"creationTime {rl.created} is older than the saved copy's: "
                                 "kept"))
            continue
        name = hashlib.sha256(url.encode()).hexdigest()[:24] + ".txt"
        _write_atomic(d / name, got.body)
        index[url] = {"file": name, "format": fmt, "fetched": rl.fetched,
                      "created": rl.created, "prefixes": rl.prefixes, "etag": got.etag,
                      "last_modified": got.last_modified}
        if store is not None:
            store.add(rl)
        out.append(Refreshed(url, True, rl.prefixes, rl.created, rl.fetched))
    _write_atomic(d / _INDEX, json.dumps(index, indent=1, sort_keys=True).encode("utf-8"))
    return out


class RangeRefresher:
    """Keeps a :class:`RangeStore` fresh in the background: one daemon thread refreshes
    ``lists`` (default: every list of the registry) into ``directory`` every ``interval``
    seconds (default a day, a seventh of the 7-day freshness limit), give or take ``jitter``
    (a fraction: 0.1 is +-10 %, so many servers do not fetch at the same second), and at once
    when a list is missing or stale. Each pass is bounded (``timeout`` per list, the bounded
    download of :func:`refresh`) and never replaces a good list with a failure; failures are
    logged (WARNING, ``robotrules.guard``) with their one-line reason.

    ``start()`` / ``stop()``; :meth:`refresh_now` runs one pass in the caller's thread."""

    def __init__(self, store: RangeStore, lists: Mapping[str, str] | None = None,
                 directory: str | Path | None = None, *, interval: float = 86_400.0,
                 jitter: float = 0.1, timeout: float = 15.0, max_bytes: int = MAX_LIST_BYTES,
                 allow_loopback: bool = False, transport: object | None = None) -> None:

        if interval <= 0 or not 0 <= jitter < 1:
            raise ValueError("interval must be positive and jitter in [0, 1)")
        if lists is None:
            lists = range_lists()
        self.store = store
        self.lists = dict(lists)
        self.directory = directory
        self.interval = interval
        self.jitter = jitter
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.allow_loopback = allow_loopback
        self.transport = transport
        self.passes = 0
        self.last: list[Refreshed] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def next_delay(self, now: float | None = None) -> float:
        """Seconds until the next pass: 0 while a list is missing or stale, else the interval
        with its jitter."""

        now = time.time() if now is None else now
        if any(u not in self.store.lists or now - self.store.lists[u].fetched
               > self.store.max_age for u in self.lists):
            return 0.0 if self.passes == 0 else min(self.interval, 3600.0)
        spread = self.interval * self.jitter
        return max(1.0, self.interval + random.uniform(-spread, spread))

    def refresh_now(self) -> list[Refreshed]:
        self.last = refresh(self.lists, self.directory, timeout=self.timeout,
                            max_bytes=self.max_bytes, transport=self.transport,
                            allow_loopback=self.allow_loopback, store=self.store)
        self.passes += 1
        for r in self.last:
            if not r.ok:
                _LOG.warning("IP range list %s could not be refreshed (%s); the saved copy is "
                             "kept", r.url, r.error)
        return self.last

    def _run(self) -> None:
        while not self._stop.wait(self.next_delay()):
            self.refresh_now()

    def start(self) -> RangeRefresher:

        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="robotrules-ranges",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)


def networks_of(rl: RangeList) -> Iterable[str]:
    """The list's merged intervals as text (for people and tests)."""
    for starts, ends, cls in ((*rl.v4, ipaddress.IPv4Address), (*rl.v6, ipaddress.IPv6Address)):
        for s, e in zip(starts, ends, strict=True):
            yield f"{cls(s)}-{cls(e)}"
