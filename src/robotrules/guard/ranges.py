"""Published IP ranges: parse an operator's list, keep it with its dates, answer "is this address
in it", and refresh the lists on disk (``robotrules agents ranges --refresh``).

A list is only trusted while it is fresh: a list fetched longer ago than ``max_age`` (7 days by
default) or never fetched makes the answer ``stale`` / ``missing``, which the guard reports as
"unverifiable", never as "spoofed". Format ``google`` is the JSON Google, Bing, OpenAI, Apple,
Perplexity and Common Crawl publish: ``{"creationTime": "...", "prefixes": [{"ipv4Prefix":
"192.0.2.0/24"}, {"ipv6Prefix": "2001:db8::/32"}]}``; format ``cidr`` is one CIDR per line
(``#`` comments). A malformed prefix is skipped and counted, never fatal.

Look-ups are O(log n): each list is kept as merged, sorted integer intervals per address family.
The parsing is sans-I/O (:func:`parse_list`); :func:`refresh` is the one place that fetches
(httpx, a size cap and a timeout, like robots.txt: :mod:`robotrules._policy`).
"""

from __future__ import annotations

import bisect
import hashlib
import ipaddress
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

__all__ = ["DEFAULT_MAX_AGE", "MAX_LIST_BYTES", "RangeList", "RangeState", "RangeStore",
           "default_dir", "parse_list", "refresh"]

RangeState = Literal["in", "out", "stale", "missing"]
DEFAULT_MAX_AGE = 7 * 86_400.0
MAX_LIST_BYTES = 4_000_000  # Google's largest list is ~100 KB; a 40x margin, then cut off
_INDEX = "index.json"


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
    """The range lists a guard trusts, by URL, with a freshness limit (``max_age`` seconds)."""

    lists: dict[str, RangeList] = field(default_factory=dict)
    max_age: float = DEFAULT_MAX_AGE

    def add(self, rl: RangeList) -> None:
        self.lists[rl.url] = rl

    def state(self, url: str, ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
              now: float | None = None) -> RangeState:
        rl = self.lists.get(url)
        if rl is None:
            return "missing"
        if (time.time() if now is None else now) - rl.fetched > self.max_age:
            return "stale"
        return "in" if rl.contains(ip) else "out"

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
    import os

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "robotrules" / "ranges"


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What one refresh of one list did."""

    url: str
    ok: bool
    prefixes: int
    created: str | None
    fetched: float | None
    error: str | None = None

    def to_dict(self) -> dict[str, object]:
        when = (datetime.fromtimestamp(self.fetched, UTC).isoformat()
                if self.fetched else None)
        return {"url": self.url, "ok": self.ok, "prefixes": self.prefixes,
                "created": self.created, "fetched": when, "error": self.error}


def refresh(lists: Mapping[str, str], directory: str | Path | None = None, *,
            timeout: float = 15.0, max_bytes: int = MAX_LIST_BYTES,
            transport: object | None = None) -> list[Refreshed]:
    """Download each ``url -> format`` list into ``directory`` with its fetch date. A list that
    fails keeps its previous copy (and date, so it goes stale in time); bodies over
    ``max_bytes`` are refused."""
    import httpx

    d = Path(directory) if directory is not None else default_dir()
    d.mkdir(parents=True, exist_ok=True)
    try:
        index = json.loads((d / _INDEX).read_text("utf-8"))
        if not isinstance(index, dict):
            index = {}
    except (OSError, ValueError):
        index = {}
    out: list[Refreshed] = []
    kwargs: dict[str, object] = {"timeout": timeout, "follow_redirects": True}
    if transport is not None:
        kwargs["transport"] = transport
    with httpx.Client(**kwargs) as client:  # type: ignore[arg-type]
        for url, fmt in lists.items():
            try:
                body = _get(client, url, max_bytes)
                rl = parse_list(body, fmt, url=url, fetched=time.time())
            except (httpx.HTTPError, ValueError) as exc:
                out.append(Refreshed(url, False, 0, None, None, _why(exc)))
                continue
            name = hashlib.sha256(url.encode()).hexdigest()[:24] + ".txt"
            tmp = d / (name + ".tmp")
            tmp.write_bytes(body)
            tmp.replace(d / name)
            index[url] = {"file": name, "format": fmt, "fetched": rl.fetched,
                          "created": rl.created, "prefixes": rl.prefixes}
            out.append(Refreshed(url, True, rl.prefixes, rl.created, rl.fetched))
    tmp = d / (_INDEX + ".tmp")
    tmp.write_text(json.dumps(index, indent=1, sort_keys=True), "utf-8")
    tmp.replace(d / _INDEX)
    return out


def _get(client: object, url: str, max_bytes: int) -> bytes:
    import httpx

    assert isinstance(client, httpx.Client)
    with client.stream("GET", url, headers={"Accept": "application/json"}) as r:
        if r.status_code != 200:
            raise ValueError(f"HTTP {r.status_code}")
        chunks: list[bytes] = []
        size = 0
        for chunk in r.iter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise ValueError(f"larger than {max_bytes} bytes")
            chunks.append(chunk)
    return b"".join(chunks)


def _why(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)


def networks_of(rl: RangeList) -> Iterable[str]:
    """The list's merged intervals as text (for people and tests)."""
    for starts, ends, cls in ((*rl.v4, ipaddress.IPv4Address), (*rl.v6, ipaddress.IPv6Address)):
        for s, e in zip(starts, ends, strict=True):
            yield f"{cls(s)}-{cls(e)}"
