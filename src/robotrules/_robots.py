"""``RobotsTxt``: one parsed robots.txt, its groups and the answers it gives.

Where the dialects differ, in one place (each difference is documented in docs/dialects.md):

==============  =========================  ===========================  =====================
aspect          google                     rfc9309 (default)            1994
==============  =========================  ===========================  =====================
groups          UA lines after a rule      same                         blank line or UA after
                start a new group                                       a rule ends a record
agent match     token equality, case-      same                         name token is a case-
                insensitive; merge all                                  insensitive substring;
                                                                        first record wins
precedence      longest pattern, allow     same                         first match in file
                wins ties                                               order
wildcards       ``*`` and final ``$``      same; ``%2A``/``%24`` are    none (plain prefix)
                                           literal ``*``/``$`` (2.2.3)
URL             as given                   percent-normalised (2.2.2)   ``%xx`` decoded except
                                                                        ``%2F`` (1996 3.2.2)
/robots.txt     a path like any other      always allowed (2.2.2)       like any other
==============  =========================  ===========================  =====================

Group selection is done once per agent token and the matcher of the selected (merged) group
is compiled on first use and kept (bounded by the number of groups in the file): a parsed file
holds only its text and a compact directive stream until someone asks.
"""

from __future__ import annotations

import re
import threading
from array import array
from collections.abc import Iterable
from datetime import time
from typing import Final
from urllib.parse import urljoin, urlsplit

from . import _tokenize as T
from ._match import Entry, Matcher, compile_pattern
from ._model import (
    Dialect,
    Finding,
    Group,
    Record,
    RequestRate,
    Rule,
    Verdict,
    VisitTime,
)
from ._url import legacy_normalize, path_of, rfc_normalize, rfc_normalize_pattern

__all__ = ["RobotsTxt", "parse"]

DIALECTS: Final = ("rfc9309", "google", "1994")
_GOOGLE_ESCAPE: Final = re.compile(r"%[0-9A-Fa-f]{2}|[\x80-\xff]")
_NUMBER: Final = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_RATE: Final = re.compile(
    r"([0-9]+)\s*/\s*([0-9]+(?:\.[0-9]+)?)\s*([smhd]?)(?:\s+([0-9]{2}):?([0-9]{2})\s*-\s*"
    r"([0-9]{2}):?([0-9]{2}))?\s*(?:utc)?",
    re.IGNORECASE,
)
_VISIT: Final = re.compile(r"([0-9]{2}):?([0-9]{2})\s*-\s*([0-9]{2}):?([0-9]{2})\s*(?:utc)?",
                           re.IGNORECASE)
_UNITS: Final = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_AGENT_CACHE: dict[tuple[str, bool], str] = {}
_NO_MATCHER: Final = Matcher([])


def _google_escape_one(m: re.Match[str]) -> str:
    s = m.group(0)
    return s.upper() if len(s) == 3 else f"%{ord(s):02X}"


def google_escape(raw: str) -> str:
    """robots.cc MaybeEscapePattern: non-ASCII octets to ``%XX``, escapes upper-cased."""
    if raw.isascii() and "%" not in raw:
        return raw
    return _GOOGLE_ESCAPE.sub(_google_escape_one, raw)


def _pattern_text(raw: str) -> str:
    """Pattern bytes as text: UTF-8, or Latin-1 when the file is not UTF-8 (RFC 9309 2.2.2
    allows bridging such encoding mismatches)."""
    if raw.isascii():
        return raw
    try:
        return raw.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return raw


def agent_key(user_agent: str, *, whole: bool) -> str:
    """The lower-cased token a query agent is matched by.

    A string with a ``/`` is a full User-Agent header (``ExampleBot/2.1 (+https://…)``): its
    leading run of ``[A-Za-z_-]`` is the product token (RFC 9309 2.2.1). Anything else is
    compared whole, as Google's matcher does (so ``Foo Bar`` or ``AB42bot`` match no group).
    With ``whole=False`` (1994) the leading token is always taken.
    """
    ck = (user_agent, whole)
    key = _AGENT_CACHE.get(ck)
    if key is None:
        if whole and "/" not in user_agent:
            key = user_agent.lower()
        else:
            key = T.agent_token(user_agent.lstrip()).lower()
        if len(_AGENT_CACHE) > 4096:
            _AGENT_CACHE.clear()
        _AGENT_CACHE[ck] = key
    return key


def parse_crawl_delay(value: str) -> float | None:
    if _NUMBER.fullmatch(value) is None:
        return None
    return float(value)


def parse_request_rate(value: str) -> RequestRate | None:
    m = _RATE.fullmatch(value.strip())
    if m is None:
        return None
    requests = int(m.group(1))
    seconds = float(m.group(2)) * _UNITS[m.group(3).lower()]
    if requests <= 0 or seconds <= 0:
        return None
    return RequestRate(requests, seconds)


def parse_visit_time(value: str) -> VisitTime | None:
    m = _VISIT.fullmatch(value.strip())
    if m is None:
        return None
    h1, m1, h2, m2 = (int(g) for g in m.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
        return None
    return VisitTime(time(h1, m1), time(h2, m2))


class RobotsTxt:
    """A parsed robots.txt: immutable answers to "may this agent fetch this URL?".

    Create it with :func:`robotrules.parse`. Every query is thread-safe.
    """

    __slots__ = (
        "_by_token", "_compiled", "_global", "_group_members", "_group_uas", "_groups",
        "_lock", "_records", "_sitemaps", "_tok", "dialect", "findings", "host", "size",
    )

    def __init__(self, body: bytes, dialect: Dialect, base_url: str | None) -> None:
        self.dialect: Dialect = dialect
        self.size = len(body)
        tok = T.tokenize(body, dialect)
        self._tok = tok
        findings = tok.findings
        self._group_uas: list[tuple[int, ...]] = []
        self._group_members: list[array[int]] = []
        self._by_token: dict[str, tuple[int, ...]] = {}
        self._global: tuple[int, ...] = ()
        self._compiled: dict[str, Matcher] = {}
        self._groups: tuple[Group, ...] | None = None
        self._lock = threading.Lock()
        sitemaps: list[str] = []
        records: list[Record] = []
        self.host: str | None = None
        self._build(tok, findings, sitemaps, records, base_url)
        self._sitemaps = tuple(sitemaps)
        self._records = tuple(records)
        findings.sort(key=lambda f: (f.line, f.column))
        self.findings: tuple[Finding, ...] = tuple(findings)
        tok.findings = []

    # -- building -------------------------------------------------------------------------

    def _build(
        self, tok: T.Tokens, findings: list[Finding], sitemaps: list[str],
        records: list[Record], base_url: str | None,
    ) -> None:
        kinds = tok.kinds
        lines = tok.lines
        legacy = self.dialect == "1994"
        uas: list[list[int]] = []
        members: list[array[int]] = []
        cur = -1
        has_rules = False
        seen_sitemaps: set[str] = set()
        for i in range(len(kinds)):
            k = kinds[i]
            if k == T.UA:
                if cur < 0 or has_rules:
                    uas.append([])
                    members.append(array("I"))
                    cur = len(uas) - 1
                    has_rules = False
                elif members[cur]:
                    findings.append(Finding(
                        "L030", "ua-joins-group", "warning", lines[i], 1,
                        "this user-agent joins the group above, which has no allow/disallow "
                        "rule yet: the group's other lines (e.g. crawl-delay) apply to it too "
                        "(RFC 9309 2.1: a group ends at a user-agent line after a rule)",
                        "give the group above a rule (e.g. 'Disallow:') or merge the groups"))
                uas[cur].append(i)
            elif k == T.ALLOW or k == T.DISALLOW:
                if cur < 0:
                    findings.append(Finding(
                        "L005", "rule-outside-group", "warning", lines[i], 1,
                        "rule before any user-agent line: ignored (RFC 9309 2.2.2)",
                        "put a 'User-agent:' line above it"))
                    continue
                members[cur].append(i)
                has_rules = True
                self._check_pattern(tok, i, findings)
            elif k == T.BLANK:
                cur = -1
            elif k == T.SITEMAP:
                self._add_sitemap(tok, i, findings, sitemaps, seen_sitemaps, base_url)
            elif k in (T.CRAWL_DELAY, T.REQUEST_RATE, T.VISIT_TIME):
                self._check_extension(tok, i, k, findings)
                if cur < 0:
                    findings.append(Finding(
                        "L005", "rule-outside-group", "warning", lines[i], 1,
                        f"{T.KIND_NAMES[k]} before any user-agent line: ignored",
                        "move it into the group it is meant for"))
                    continue
                members[cur].append(i)
            elif k == T.HOST or k == T.CLEAN_PARAM:
                value = T.display(tok.value(i))
                records.append(Record(T.KIND_NAMES[k], value, lines[i]))
                if k == T.HOST and self.host is None and value:
                    self.host = value
            else:  # OTHER, UNKNOWN
                key = T.display(tok.key(i))
                if k == T.UNKNOWN:
                    low = key.lower()
                    if low in ("http", "https") and tok.value(i).startswith("//"):
                        findings.append(Finding(
                            "L016", "bare-url-line", "warning", lines[i], 1,
                            "a bare URL line is not a directive; ignored",
                            f"Sitemap: {key}:{T.display(tok.value(i))}"))
                    else:
                        findings.append(Finding(
                            "L001", "unknown-directive", "warning", lines[i], 1,
                            f"unknown field '{key}'; ignored"))
                else:
                    findings.append(Finding(
                        "L002", "unsupported-directive", "info", lines[i], 1,
                        f"'{key}' is not part of RFC 9309 and is ignored by Google"))
                if cur >= 0:
                    members[cur].append(i)
                else:
                    records.append(Record(key, T.display(tok.value(i)), lines[i]))
        self._group_uas = [tuple(u) for u in uas]
        self._group_members = members
        by_token: dict[str, list[int]] = {}
        global_groups: list[int] = []
        for g, ua_idx in enumerate(self._group_uas):
            for i in ua_idx:
                value = tok.value(i)
                line = lines[i]
                if legacy:
                    if value.strip() == "*":
                        if not global_groups:
                            global_groups.append(g)
                    elif value and g not in by_token.setdefault(value.lower(), []):
                        by_token[value.lower()].append(g)
                elif T.is_global_agent(value):
                    if not global_groups or global_groups[-1] != g:
                        global_groups.append(g)
                    if value != "*":
                        findings.append(Finding(
                            "L006", "ua-not-token", "warning", line, 1,
                            f"'{T.display(value)}' is read as '*' by Google only",
                            "User-agent: *"))
                else:
                    token = T.agent_token(value)
                    gs = by_token.setdefault(token.lower(), [])
                    if not gs or gs[-1] != g:
                        gs.append(g)
                    self._check_agent(value, token, line, findings)
        self._by_token = {k: tuple(v) for k, v in by_token.items()}
        self._global = tuple(global_groups)

    @staticmethod
    def _check_agent(value: str, token: str, line: int, findings: list[Finding]) -> None:
        if not value:
            findings.append(Finding("L007", "empty-ua", "error", line, 1,
                                    "empty user-agent value: the group applies to no crawler",
                                    "User-agent: *"))
        elif token != value:
            shown = T.display(value)
            if token:
                msg = (f"'{shown}' is not a product token; matched as '{token}'"
                       " (RFC 9309 2.2.1: only letters, '-' and '_')")
                fix: str | None = f"User-agent: {token}"
            else:
                msg = f"'{shown}' is not a product token and matches no crawler"
                fix = None
            findings.append(Finding("L006", "ua-not-token", "error", line, 1, msg, fix))

    @staticmethod
    def _check_pattern(tok: T.Tokens, i: int, findings: list[Finding]) -> None:
        value = tok.value(i)
        if not value:
            return
        line = tok.lines[i]
        col = tok.vstart[i] - tok.text.rfind("\n", 0, tok.vstart[i])
        if value[0] != "/":
            if value[0] == "*":
                findings.append(Finding(
                    "L008", "path-not-slash", "info", line, col,
                    "pattern starts with '*' rather than '/' (allowed by RFC 9309 5.1)",
                    None))
            else:
                findings.append(Finding(
                    "L008", "path-not-slash", "warning", line, col,
                    f"pattern '{T.display(value)}' does not start with '/': it never matches",
                    f"{T.KIND_NAMES[tok.kinds[i]].capitalize()}: /{T.display(value)}"))
        dollar = value.find("$")
        if 0 <= dollar < len(value) - 1:
            findings.append(Finding(
                "L009", "dollar-not-last", "warning", line, col + dollar,
                "'$' only anchors at the end of a pattern; here it is a literal '$'", None))

    @staticmethod
    def _check_extension(tok: T.Tokens, i: int, k: int, findings: list[Finding]) -> None:
        value = T.display(tok.value(i))
        line = tok.lines[i]
        if k == T.CRAWL_DELAY and parse_crawl_delay(value) is None:
            findings.append(Finding("L028", "crawl-delay-bad", "warning", line, 1,
                                    f"crawl-delay '{value}' is not a number of seconds; ignored"))
        elif k == T.REQUEST_RATE and parse_request_rate(value) is None:
            findings.append(Finding("L028", "request-rate-bad", "warning", line, 1,
                                    f"request-rate '{value}' is not 'n/t[smhd]'; ignored"))
        elif k == T.VISIT_TIME and parse_visit_time(value) is None:
            findings.append(Finding("L028", "visit-time-bad", "warning", line, 1,
                                    f"visit-time '{value}' is not 'hhmm-hhmm'; ignored"))

    @staticmethod
    def _add_sitemap(
        tok: T.Tokens, i: int, findings: list[Finding], sitemaps: list[str], seen: set[str],
        base_url: str | None,
    ) -> None:
        value = T.display(tok.value(i)).strip()
        line = tok.lines[i]
        parts = urlsplit(value) if value else None
        url = value
        if parts is None or not (parts.scheme and parts.netloc):
            if base_url and value:
                url = urljoin(base_url, value)
            else:
                findings.append(Finding(
                    "L015", "sitemap-not-absolute", "warning", line, 1,
                    f"sitemap '{value}' is not an absolute URL; ignored",
                    "Sitemap: https://example.com/sitemap.xml"))
                return
        elif parts.scheme.lower() not in ("http", "https", "ftp"):
            findings.append(Finding("L015", "sitemap-not-absolute", "warning", line, 1,
                                    f"sitemap URL scheme '{parts.scheme}' is not http(s)"))
            return
        if url in seen:
            findings.append(Finding("L015", "sitemap-duplicate", "info", line, 1,
                                    f"sitemap '{url}' listed twice"))
            return
        seen.add(url)
        sitemaps.append(url)

    # -- compiling ------------------------------------------------------------------------

    def _entries(self, i: int, out: list[Entry]) -> None:
        tok = self._tok
        raw = tok.value(i)
        if not raw:
            return
        allow = tok.kinds[i] == T.ALLOW
        line = tok.lines[i]
        dialect = self.dialect
        if dialect == "1994":
            pat = legacy_normalize(_pattern_text(raw))
            out.append((len(pat), allow, line, 0, pat, None, i))
            return
        pat = google_escape(raw) if dialect == "google" else rfc_normalize_pattern(
            _pattern_text(raw))
        kind, prefix, data = compile_pattern(pat)
        out.append((len(pat), allow, line, kind, prefix, data, i))
        if allow:
            # compat(google): Allow: /x/index.htm(l) also allows /x/ (robots.cc HandleAllow)
            slash = pat.rfind("/")
            if slash >= 0 and pat.startswith("/index.htm", slash):
                derived = pat[: slash + 1] + "$"
                kind, prefix, data = compile_pattern(derived)
                out.append((len(derived), True, line, kind, prefix, data, i))

    def _matcher(self, key: str) -> tuple[Matcher, tuple[int, ...]]:
        """The compiled matcher and group indices for a query key."""
        ck, groups = self._select(key)
        m = self._compiled.get(ck)
        if m is None:
            entries: list[Entry] = []
            members = self._group_members
            kinds = self._tok.kinds
            for g in groups:
                for i in members[g]:
                    k = kinds[i]
                    if k == T.ALLOW or k == T.DISALLOW:
                        self._entries(i, entries)
            if self.dialect == "1994":
                entries.sort(key=lambda e: e[2])
                m = _FirstMatch(entries)
            else:
                m = Matcher(entries)
            with self._lock:  # bounded: at most one matcher per group selection
                if len(self._compiled) <= len(self._group_uas):
                    self._compiled.setdefault(ck, m)
        return m, groups

    def _select(self, key: str) -> tuple[str, tuple[int, ...]]:
        """Cache key and indices of the groups that apply to a query key."""
        if self.dialect != "1994":
            groups = self._by_token.get(key)
            if groups is None:
                return "*", self._global
            return key, groups
        # 1994: the first record (file order) whose agent value contains the name token
        first = -1
        if key:
            for value, gs in self._by_token.items():
                if key in value and (first < 0 or gs[0] < first):
                    first = gs[0]
        if first < 0:
            return "*", self._global[:1]
        return str(first), (first,)

    def _path(self, url: str) -> str:
        path = path_of(url)
        if self.dialect == "rfc9309":
            return rfc_normalize(path)
        if self.dialect == "1994":
            return legacy_normalize(path)
        return path

    # -- queries --------------------------------------------------------------------------

    def is_allowed(self, url: str, *, user_agent: str = "*") -> bool:
        """May ``user_agent`` fetch ``url``? ``url`` is absolute or a path[?query]."""
        path = self._path(url)
        if path == "/robots.txt" and self.dialect == "rfc9309":
            return True
        m, _ = self._matcher(agent_key(user_agent, whole=self.dialect != "1994"))
        e = m.best(path)
        return e is None or e[1]

    def explain(self, url: str, *, user_agent: str = "*") -> Verdict:
        """The verdict for ``url`` with the line, rule and group that decided it."""
        dialect = self.dialect
        path = self._path(url)
        key = agent_key(user_agent, whole=dialect != "1994")
        if path == "/robots.txt" and dialect == "rfc9309":
            return Verdict(True, None, None, (), "robots-txt", user_agent, path, dialect,
                           "/robots.txt is always allowed (RFC 9309 2.2.2)")
        m, groups = self._matcher(key)
        agents = self._agents_of(groups)
        if not groups:
            return Verdict(True, None, None, (), "no-group", user_agent, path, dialect,
                           "no group applies to this user agent: everything is allowed")
        e = m.best(path)
        where = self._where(groups)
        if e is None:
            return Verdict(True, None, None, agents, "no-matching-rule", user_agent, path,
                           dialect, f"no rule of {where} matches: allowed")
        rule = self._rule(e[6])
        verb = "allows" if e[1] else "disallows"
        return Verdict(e[1], rule.line, rule, agents, "rule", user_agent, path, dialect,
                       f"line {rule.line} '{rule}' of {where} {verb} it")

    def _where(self, groups: tuple[int, ...]) -> str:
        lines = [self._tok.lines[self._group_uas[g][0]] for g in groups]
        if len(lines) == 1:
            return f"the group at line {lines[0]}"
        return "the merged groups at lines " + ", ".join(str(x) for x in lines)

    def _agents_of(self, groups: Iterable[int]) -> tuple[str, ...]:
        tok = self._tok
        return tuple(T.display(tok.value(i)) for g in groups for i in self._group_uas[g])

    def _rule(self, i: int) -> Rule:
        tok = self._tok
        if tok.kinds[i] == T.ALLOW:
            return Rule("allow", T.display(tok.value(i)), tok.lines[i])
        return Rule("disallow", T.display(tok.value(i)), tok.lines[i])

    def _extension(self, user_agent: str, kind: int) -> str | None:
        _, groups = self._matcher(agent_key(user_agent, whole=self.dialect != "1994"))
        tok = self._tok
        for g in groups:
            for i in self._group_members[g]:
                if tok.kinds[i] == kind:
                    value = T.display(tok.value(i))
                    if kind == T.CRAWL_DELAY and parse_crawl_delay(value) is None:
                        continue
                    if kind == T.REQUEST_RATE and parse_request_rate(value) is None:
                        continue
                    if kind == T.VISIT_TIME and parse_visit_time(value) is None:
                        continue
                    return value
        return None

    def crawl_delay(self, *, user_agent: str = "*") -> float | None:
        """Seconds between requests asked by the group that applies (first valid value)."""
        value = self._extension(user_agent, T.CRAWL_DELAY)
        return None if value is None else parse_crawl_delay(value)

    def request_rate(self, *, user_agent: str = "*") -> RequestRate | None:
        value = self._extension(user_agent, T.REQUEST_RATE)
        return None if value is None else parse_request_rate(value)

    def visit_time(self, *, user_agent: str = "*") -> VisitTime | None:
        value = self._extension(user_agent, T.VISIT_TIME)
        return None if value is None else parse_visit_time(value)

    def group_for(self, user_agent: str) -> Group | None:
        """The group that applies to ``user_agent`` (merged when several name it), or None."""
        _, groups = self._matcher(agent_key(user_agent, whole=self.dialect != "1994"))
        if not groups:
            return None
        all_groups = self.groups
        chosen = [all_groups[g] for g in groups]
        if len(chosen) == 1:
            return chosen[0]
        return Group(
            agents=tuple(a for c in chosen for a in c.agents),
            tokens=tuple(t for c in chosen for t in c.tokens),
            rules=tuple(r for c in chosen for r in c.rules),
            line=chosen[0].line,
            crawl_delay=next((c.crawl_delay for c in chosen if c.crawl_delay is not None),
                             None),
            request_rate=next((c.request_rate for c in chosen if c.request_rate is not None),
                              None),
            visit_time=next((c.visit_time for c in chosen if c.visit_time is not None), None),
            records=tuple(r for c in chosen for r in c.records),
        )

    # -- data -----------------------------------------------------------------------------

    @property
    def sitemaps(self) -> list[str]:
        """Absolute sitemap URLs, in file order, without duplicates."""
        return list(self._sitemaps)

    @property
    def records(self) -> tuple[Record, ...]:
        """Records outside any group (host, clean-param, unknown keys), in file order."""
        return self._records

    @property
    def clean_params(self) -> tuple[Record, ...]:
        return tuple(r for r in self._records if r.key == "clean-param")

    @property
    def groups(self) -> tuple[Group, ...]:
        """Every group of the file, in file order (not merged)."""
        groups = self._groups
        if groups is None:
            groups = tuple(self._make_group(g) for g in range(len(self._group_uas)))
            self._groups = groups
        return groups

    def _make_group(self, g: int) -> Group:
        tok = self._tok
        uas = self._group_uas[g]
        agents = tuple(T.display(tok.value(i)) for i in uas)
        if self.dialect == "1994":
            tokens = tuple("*" if a.strip() == "*" else a for a in agents)
        else:
            tokens = tuple("*" if T.is_global_agent(tok.value(i)) else T.agent_token(
                tok.value(i)) for i in uas)
        rules: list[Rule] = []
        records: list[Record] = []
        crawl_delay: float | None = None
        rate: RequestRate | None = None
        visit: VisitTime | None = None
        for i in self._group_members[g]:
            k = tok.kinds[i]
            if k == T.ALLOW or k == T.DISALLOW:
                rules.append(self._rule(i))
                continue
            value = T.display(tok.value(i))
            if k == T.CRAWL_DELAY and crawl_delay is None:
                crawl_delay = parse_crawl_delay(value)
            elif k == T.REQUEST_RATE and rate is None:
                rate = parse_request_rate(value)
            elif k == T.VISIT_TIME and visit is None:
                visit = parse_visit_time(value)
            key = T.KIND_NAMES.get(k) or T.display(tok.key(i))
            records.append(Record(key, value, tok.lines[i]))
        return Group(agents, tokens, tuple(rules), tok.lines[uas[0]], crawl_delay, rate,
                     visit, tuple(records))

    @property
    def line_count(self) -> int:
        return self._tok.line_count

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` as read (after line-ending normalisation)."""
        text = self._tok.text
        if line < 1:
            return ""
        start = 0
        for _ in range(line - 1):
            start = text.find("\n", start) + 1
            if start == 0:
                return ""
        end = text.find("\n", start)
        return T.display(text[start:] if end < 0 else text[start:end])

    def __repr__(self) -> str:
        return (f"<RobotsTxt dialect={self.dialect!r} size={self.size} "
                f"groups={len(self._group_uas)} findings={len(self.findings)}>")


class _FirstMatch(Matcher):
    """1994: rules in file order, plain prefixes, the first match wins."""

    __slots__ = ("_rules",)

    def __init__(self, entries: list[Entry]) -> None:
        super().__init__([])
        self._rules = tuple(entries)
        self.size = len(entries)

    def best(self, path: str) -> Entry | None:
        for e in self._rules:
            if path.startswith(e[4]):
                return e
        return None


def parse(
    body: bytes | bytearray | memoryview | str,
    dialect: Dialect = "rfc9309",
    *,
    url: str | None = None,
) -> RobotsTxt:
    """Parse a robots.txt body (bytes or text) into an immutable :class:`RobotsTxt`.

    Never raises on content: every oddity becomes a finding on its line. ``dialect`` is one of
    ``"rfc9309"`` (default), ``"google"`` or ``"1994"``; ``url``, where the file came from,
    resolves relative sitemap URLs.
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")
    return RobotsTxt(T.to_bytes(body), dialect, url)
