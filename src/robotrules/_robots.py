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
from array import array
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final, TypeVar
from urllib.parse import urljoin, urlsplit

from . import _directives as D
from . import _token
from . import _tokenize as T
from ._dialects import NAMES, SPECS, spec
from ._findings import finding
from ._match import (
    ALLOW_BIT,
    INDEX_MASK,
    NO_MATCH,
    PREFIX,
    Entry,
    Matcher,
    Pattern,
    key_allows,
    make_matcher,
    rank_base,
)
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

if TYPE_CHECKING:
    from .aipref import Scope, Usage

__all__ = ["RobotsTxt", "parse"]

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
_AGENT_MEMO: Final = 256
_V = TypeVar("_V")


# Compiled patterns by (dialect, allow), then by the raw value: the same patterns recur across
# files (``/wp-admin/``, ``/*?``), so each is classified once. Bounded: a full memo starts over.
_PATTERNS: Final[dict[tuple[str, bool], dict[str, Pattern]]] = {
    (d, a): {} for d in NAMES for a in (False, True)}
_PATTERNS_MAX: Final = 32768
def clear_caches() -> None:
    """Empty the process-wide memos (patterns, agent keys, field names): the state of a
    fresh process. For benchmarks and tests; nothing else needs it."""
    for memo in _PATTERNS.values():
        memo.clear()
    _token.clear_caches()
    T.clear_caches()


def _new_pattern(raw: str, dialect: str, allow: bool) -> Pattern:
    """A rule's raw value as a :class:`Pattern` of its dialect (the caller memoises it)."""
    sp = SPECS[dialect]  # type: ignore[index]
    pat = sp.pattern(raw)
    if not sp.wildcards:
        p = Pattern(pat, allow, len(pat), literal=True)  # 1994: no wildcards
    else:
        p = Pattern(pat, allow, len(pat))
        slash = pat.rfind("/")
        if allow and slash >= 0 and pat.startswith("/index.htm", slash):
            # compat(google): Allow: /x/index.htm(l) also allows /x/ (robots.cc HandleAllow)
            derived = pat[: slash + 1] + "$"
            p.companion = Pattern(derived, True, len(derived))
    return p


# Tags of a group's lines in _Index.lines (directive index << 2 | tag).
_TAG_UA: Final = 0
_TAG_ALLOW: Final = 1
_TAG_DISALLOW: Final = 2
_TAG_OTHER: Final = 3

# What the group index does with each stream kind, from the registry's roles.
_R_RULE: Final = 0
_R_SITEMAP: Final = 1
_R_MEMBER: Final = 2
_R_FILE: Final = 3
_R_ANY: Final = 4
_ROLE_CODES: Final = {"agent": _R_ANY, "rule": _R_RULE, "sitemap": _R_SITEMAP,
                      "member": _R_MEMBER, "file": _R_FILE, "any": _R_ANY}
# Records of directives robotrules reads (crawl-delay, host ...) carry the canonical key; the
# others (noindex, content-usage, unknown keys) the key as written.
_CANONICAL: Final = {n + 1: d.key for n, d in enumerate(D.REGISTRY)
                     if d.role in ("member", "file", "sitemap")}
_ROLES: Final = [_R_ANY] * (T.BLANK + 1)
for _n, _d in enumerate(D.REGISTRY):
    _ROLES[_n + 1] = _ROLE_CODES[_d.role]


class _Index:
    """Group structure of a file, built from the directive stream on first use.

    Compact: the lines of all groups sit in one array (groups are contiguous runs of lines,
    in file order), each a directive index tagged as user-agent, allow, disallow or other.
    """

    __slots__ = ("by_token", "global_", "lines", "outside", "sitemaps", "starts")

    def __init__(self) -> None:
        self.lines = array("I")  # each group's lines in file order: index << 2 | tag
        self.starts = array("I")  # where each group starts in ``lines``, then len(lines)
        self.by_token: dict[str, tuple[int, ...]] = {}
        self.global_: tuple[int, ...] = ()
        self.outside = array("I")  # host, clean-param and unknown lines outside groups
        self.sitemaps = array("I")  # sitemap lines (checked when asked for)

    @property
    def count(self) -> int:
        return len(self.starts) - 1

    def block(self, g: int) -> array[int]:
        return self.lines[self.starts[g] : self.starts[g + 1]]

    def uas(self, g: int) -> list[int]:
        """Directive indices of group ``g``'s user-agent lines."""
        return [v >> 2 for v in self.block(g) if v & 3 == _TAG_UA]

    def members(self, g: int) -> list[int]:
        """Directive indices of group ``g``'s other lines (rules, crawl-delay ...)."""
        return [v >> 2 for v in self.block(g) if v & 3 != _TAG_UA]


class RobotsTxt:
    """A parsed robots.txt: immutable answers to "may this agent fetch this URL?".

    Create it with :func:`robotrules.parse`. Every query is thread-safe. A parsed file keeps
    only its text and a packed directive stream; the group index, each agent's matcher, the
    groups and the findings are derived from that stream on first use and then kept.
    """

    __slots__ = ("_bom", "_columns", "_compiled", "_dirs", "_findings", "_groups", "_index",
                 "_spec", "_starts", "_text", "_url", "dialect", "size")

    def __init__(self, body: bytes, dialect: Dialect, base_url: str | None) -> None:
        self.dialect: Dialect = dialect
        self._spec = SPECS[dialect]
        self.size = len(body)
        text, self._bom = T.to_text(body)
        self._text = text
        self._dirs = T.tokenize(text, dialect)
        self._url = base_url
        self._index: _Index | None = None
        self._compiled: dict[str, tuple[Matcher, tuple[int, ...]]] | None = None
        self._groups: tuple[Group, ...] | None = None
        self._findings: tuple[Finding, ...] | None = None
        self._starts: array[int] | None = None  # line offsets, built by line_text()
        self._columns: dict[int, int] | None = None  # line -> value column, for lint

    # -- the directive stream -------------------------------------------------------------

    def _kind(self, i: int) -> int:
        return self._dirs[3 * i] >> T.KIND_SHIFT

    def _line(self, i: int) -> int:
        return self._dirs[3 * i] & T.LINE_MASK

    def _value(self, i: int) -> str:
        start = self._dirs[3 * i + 1]
        return self._text[start : start + self._dirs[3 * i + 2]]

    def _build(self, findings: list[Finding] | None) -> _Index:
        """Groups, global records and (when asked) the structural findings, in one pass."""
        # read in place: only the heads are read for every directive
        dirs = self._dirs if findings is None else T.tokenize(self._text, self.dialect,
                                                               findings)
        text = self._text
        shift = T.KIND_SHIFT
        mask = T.LINE_MASK
        idx = _Index()
        lines = idx.lines
        starts = idx.starts
        in_group = False
        has_rules = False
        has_members = False
        seen_sitemaps: set[str] = set()
        sitemaps: list[str] = []
        ua, blank, allow, disallow = T.UA, T.BLANK, T.ALLOW, T.DISALLOW
        rule_kinds = (disallow, allow)
        roles = _ROLES
        ends = SPECS[self.dialect].ends_agents
        for i, head in enumerate(dirs[::3]):  # a slice copy of the heads only
            k = head >> shift
            if k == ua:
                if not in_group or has_rules:
                    starts.append(len(lines))
                    lines.append(i << 2 | _TAG_UA)
                    in_group = True
                    has_rules = has_members = False
                else:
                    lines.append(i << 2 | _TAG_UA)
                    if has_members and findings is not None:
                        findings.append(finding(
                            "L030", head & mask, 1,
                            "this user-agent joins the group above, which has no allow/"
                            "disallow rule yet: the group's other lines (e.g. crawl-delay) "
                            "apply to it too (RFC 9309 2.1: a group ends at a user-agent "
                            "line after a rule)",
                            "give the group above a rule (e.g. 'Disallow:') or merge them"))
                continue
            if k == blank:
                in_group = False
                continue
            if findings is not None:  # only findings need the text of a line
                start = dirs[3 * i + 1]
                value = text[start : start + dirs[3 * i + 2]]
                line = head & mask
            if k in rule_kinds:
                if not in_group:
                    if findings is not None:
                        findings.append(finding(
                            "L005", line, 1,
                            "rule before any user-agent line: ignored (RFC 9309 2.2.2)",
                            "put a 'User-agent:' line above it"))
                    continue
                lines.append(i << 2 | (_TAG_ALLOW if k == allow else _TAG_DISALLOW))
                has_rules = has_members = True
                if findings is not None:
                    _check_pattern(text, value, start, k, line, findings)
                continue
            role = roles[k]
            if role == _R_SITEMAP:
                idx.sitemaps.append(i)
                if findings is not None:
                    self._add_sitemap(value, line, findings, sitemaps, seen_sitemaps)
            elif role == _R_MEMBER:  # belongs to a group (crawl-delay ...)
                if findings is not None:
                    _check_value(value, k, line, findings)
                if not in_group:
                    if findings is not None:
                        findings.append(finding(
                            "L005", line, 1,
                            f"{T.KIND_NAMES[k]} before any user-agent line: ignored",
                            "move it into the group it is meant for"))
                    continue
                lines.append(i << 2 | _TAG_OTHER)
                has_members = True
            elif role == _R_FILE:  # a record of the whole file (host, clean-param)
                idx.outside.append(i)
            else:  # kept where it stands (content-usage, unknown keys ...)
                if findings is not None:
                    _check_other(text, value, start, k, line, findings)
                if in_group:
                    lines.append(i << 2 | _TAG_OTHER)
                    has_members = True
                    if k in ends:  # a rule in this dialect (rfc9309: Content-Usage)
                        has_rules = True
                else:
                    idx.outside.append(i)
        starts.append(len(lines))
        self._index_agents(idx, dirs, findings)
        return idx

    def _index_agents(self, idx: _Index, dirs: array[int], findings: list[Finding] | None
                      ) -> None:
        text = self._text
        legacy = not SPECS[self.dialect].token_agents
        by_token: dict[str, list[int]] = {}
        global_groups: list[int] = []
        for g in range(idx.count):
            for i in idx.uas(g):
                start = dirs[3 * i + 1]
                value = text[start : start + dirs[3 * i + 2]]
                line = dirs[3 * i] & T.LINE_MASK
                if legacy:
                    if value.strip() == "*":
                        if not global_groups:
                            global_groups.append(g)
                    elif value:
                        gs = by_token.setdefault(value.lower(), [])
                        if not gs or gs[-1] != g:
                            gs.append(g)
                elif _token.is_global_agent(value):
                    if not global_groups or global_groups[-1] != g:
                        global_groups.append(g)
                    if value != "*" and findings is not None:
                        findings.append(finding(
                            "L006", line, 1,
                            f"'{T.display(value)}' is read as '*' by Google only",
                            "User-agent: *"))
                else:
                    token = _token.line_token(value, self.dialect)
                    gs = by_token.setdefault(token.lower(), [])
                    if not gs or gs[-1] != g:
                        gs.append(g)
                    if findings is not None:
                        _check_agent(value, token, line, findings)
        idx.by_token = {k: tuple(v) for k, v in by_token.items()}
        idx.global_ = tuple(global_groups)

    def _add_sitemap(
        self, raw: str, line: int, findings: list[Finding] | None, sitemaps: list[str],
        seen: set[str],
    ) -> None:
        value = T.display(raw).strip()
        parts = urlsplit(value) if value else None
        url = value
        if parts is None or not (parts.scheme and parts.netloc):
            if self._url and value:
                url = urljoin(self._url, value)
            else:
                if findings is not None:
                    findings.append(finding(
                        "L015", line, 1,
                        f"sitemap '{value}' is not an absolute URL; ignored",
                        "Sitemap: https://example.com/sitemap.xml"))
                return
        elif parts.scheme.lower() not in ("http", "https", "ftp"):
            if findings is not None:
                findings.append(finding("L015", line, 1,
                                        f"sitemap URL scheme '{parts.scheme}' is not http(s)"))
            return
        if url in seen:
            if findings is not None:
                findings.append(finding("L015", line, 1,
                                        f"sitemap '{url}' listed twice", severity="info"))
            return
        seen.add(url)
        sitemaps.append(url)

    @property
    def _idx(self) -> _Index:
        idx = self._index
        if idx is None:
            idx = self._build(None)
            self._index = idx
        return idx

    # -- compiling ------------------------------------------------------------------------

    def _matcher(self, key: str) -> tuple[Matcher, tuple[int, ...]]:
        """The compiled matcher and group indices for a query key."""
        idx = self._idx
        ck, groups = self._select(idx, key)
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = {}
        hit = compiled.get("\0" + ck)
        if hit is None:
            plain: dict[str, int] = {}  # plain-prefix rules: prefix -> best key
            others: list[Entry] = []  # the rest (1994: every rule)
            dirs = self._dirs  # only the rules' offsets are read
            text = self._text
            dialect = self.dialect
            legacy = SPECS[dialect].first_match
            allows = _PATTERNS[(dialect, True)]
            disallows = _PATTERNS[(dialect, False)]
            not_plain = SPECS[dialect].not_plain
            for g in groups:
                for v in idx.block(g):
                    tag = v & 3
                    if tag != _TAG_ALLOW and tag != _TAG_DISALLOW:
                        continue
                    i = v >> 2
                    n = dirs[3 * i + 2]
                    if not n:
                        continue  # an empty pattern never decides
                    start = dirs[3 * i + 1]
                    raw = text[start : start + n]
                    allow = tag == _TAG_ALLOW
                    if not_plain(raw) is None and not (allow and "/index.htm" in raw):
                        rank = rank_base(n, allow) + i
                        if legacy:
                            others.append((rank, PREFIX, raw, None))
                            continue
                        # the same plain prefix twice: both always match together, so
                        # only the better one can ever decide
                        old = plain.get(raw)
                        if old is None or rank < old:
                            plain[raw] = rank
                        continue
                    memo = allows if allow else disallows
                    p = memo.get(raw)
                    if p is None:
                        p = memo[raw] = _new_pattern(raw, dialect, allow)
                        if len(memo) > _PATTERNS_MAX:
                            memo.clear()
                    others.append((p.base + i, p.kind, p.prefix, p))
                    c = p.companion
                    if c is not None:
                        others.append((c.base + i, c.kind, c.prefix, c))
            if legacy:
                others.sort(key=_index_of)  # file order: the first match wins
                m: Matcher = _FirstMatch(others)
            else:
                m = make_matcher(plain, others)
            hit = compiled.setdefault("\0" + ck, (m, groups))
        return hit

    def _for_agent(self, user_agent: str) -> tuple[Matcher, tuple[int, ...]]:
        """Matcher and groups for a query's user agent, memoised per agent string.

        The memo holds one entry per group selection ("\\0"-prefixed keys) plus at most
        ``_AGENT_MEMO`` agent strings: bounded whatever callers pass.
        """
        compiled = self._compiled
        if compiled is not None:
            hit = compiled.get(user_agent)
            if hit is not None:
                return hit
        hit = self._matcher(_token.query_key(user_agent, self.dialect))
        compiled = self._compiled
        if compiled is not None and len(compiled) < _AGENT_MEMO:
            compiled[user_agent] = hit
        return hit

    def _select(self, idx: _Index, key: str) -> tuple[str, tuple[int, ...]]:
        """Cache key and indices of the groups that apply to a query key."""
        if self.dialect != "1994":
            groups = idx.by_token.get(key)
            if groups is None:
                return "*", idx.global_
            return key, groups
        # 1994: the first record (file order) whose agent value contains the name token
        first = -1
        if key:
            for value, gs in idx.by_token.items():
                if key in value and (first < 0 or gs[0] < first):
                    first = gs[0]
        if first < 0:
            return "*", idx.global_[:1]
        return str(first), (first,)

    def _path(self, url: str) -> str:
        return SPECS[self.dialect].path(url)

    # -- queries --------------------------------------------------------------------------

    def is_allowed(self, url: str, *, user_agent: str = "*") -> bool:
        """May ``user_agent`` fetch ``url``? ``url`` is absolute or a path[?query]."""
        sp = self._spec
        path = sp.path(url)
        if sp.robots_txt_allowed and path == "/robots.txt":
            return True
        compiled = self._compiled
        hit = compiled.get(user_agent) if compiled is not None else None
        if hit is None:
            hit = self._for_agent(user_agent)
        return hit[0].best(path) & ALLOW_BIT != 0  # NO_MATCH has the bit: allowed

    def explain(self, url: str, *, user_agent: str = "*") -> Verdict:
        """The verdict for ``url`` with the line, rule and group that decided it."""
        dialect = self.dialect
        path = self._path(url)
        if path == "/robots.txt" and self._spec.robots_txt_allowed:
            return Verdict(True, None, None, (), "robots-txt", user_agent, path, dialect,
                           "/robots.txt is always allowed (RFC 9309 2.2.2)")
        m, groups = self._for_agent(user_agent)
        if not groups:
            return Verdict(True, None, None, (), "no-group", user_agent, path, dialect,
                           "no group applies to this user agent: everything is allowed")
        agents = self._agents_of(groups)
        key = m.best(path)
        where = self._where(groups, user_agent)
        if key == NO_MATCH:
            empty = self._empty_rule(groups)
            if empty is not None:
                # compat(google): robots.cc matches an empty pattern at priority 0 and reports
                # its line (matching_line()), though it decides nothing: everything allowed
                return Verdict(True, empty.line, empty, agents, "rule", user_agent, path,
                               dialect, f"{where}; no rule with a pattern matches {path!r}, "
                               f"and line {empty.line} '{empty}' is empty: it allows "
                               "everything (RFC 9309 2.2.2)")
            n = self._rule_count(groups)
            return Verdict(True, None, None, agents, "no-matching-rule", user_agent, path,
                           dialect, f"{where}; none of its {n} rule(s) matches {path!r}, so "
                           "it is allowed (a path no rule matches is allowed, RFC 9309 2.2.2)")
        rule = self._rule(key & INDEX_MASK)
        allow = key_allows(key)
        verb = "allows" if allow else "disallows"
        return Verdict(allow, rule.line, rule, agents, "rule", user_agent, path, dialect,
                       f"line {rule.line} '{rule}' {verb} it ({where})")

    def _where(self, groups: tuple[int, ...], user_agent: str) -> str:
        """Which group applies and why, in words for site owners."""
        idx = self._idx
        lines = ", ".join(str(self._line(idx.uas(g)[0])) for g in groups)
        token = _token.product_token(user_agent)
        at = f"line {lines}" if len(groups) == 1 else f"lines {lines}, merged"
        if groups == idx.global_ and (not self._spec.token_agents or token.lower() not in
                                      idx.by_token):
            if token in ("", "*"):
                return f"the '*' group ({at}) applies"
            return f"no group names '{token}', so the '*' group ({at}) applies"
        return f"the group for '{token}' ({at}) applies"

    def _empty_rule(self, groups: tuple[int, ...]) -> Rule | None:
        """Google's report when no pattern matched: the first empty Allow of the groups,
        else their first empty Disallow (robots.cc Match::HigherPriorityMatch keeps allow on
        a tie, and each side keeps the first line at a priority)."""
        idx = self._idx
        dirs = self._dirs
        first: dict[int, int] = {}
        for g in groups:
            for v in idx.block(g):
                tag = v & 3
                if tag in (_TAG_ALLOW, _TAG_DISALLOW) and not dirs[3 * (v >> 2) + 2]:
                    first.setdefault(tag, v >> 2)
        i = first.get(_TAG_ALLOW, first.get(_TAG_DISALLOW))
        return None if i is None else self._rule(i)

    def _rule_count(self, groups: tuple[int, ...]) -> int:
        idx = self._idx
        return sum(1 for g in groups for v in idx.block(g)
                   if v & 3 == _TAG_ALLOW or v & 3 == _TAG_DISALLOW)

    def _agents_of(self, groups: Iterable[int]) -> tuple[str, ...]:
        idx = self._idx
        return tuple(T.display(self._value(i)) for g in groups for i in idx.uas(g))

    def _rule(self, i: int) -> Rule:
        if self._kind(i) == T.ALLOW:
            return Rule("allow", T.display(self._value(i)), self._line(i))
        return Rule("disallow", T.display(self._value(i)), self._line(i))

    def _first_valid(self, user_agent: str, kind: int, read: Callable[[str], _V | None]
                     ) -> _V | None:
        """The first value of ``kind`` in the group that applies that ``read`` accepts."""
        _, groups = self._for_agent(user_agent)
        idx = self._idx
        for g in groups:
            for i in idx.members(g):
                if self._kind(i) == kind:
                    value = read(T.display(self._value(i)))
                    if value is not None:
                        return value
        return None

    def crawl_delay(self, *, user_agent: str = "*") -> float | None:
        """Seconds between requests asked by the group that applies (first valid value)."""
        return self._first_valid(user_agent, T.CRAWL_DELAY, D.parse_crawl_delay)

    def request_rate(self, *, user_agent: str = "*") -> RequestRate | None:
        """``Request-rate`` of the group that applies (first valid value)."""
        return self._first_valid(user_agent, T.REQUEST_RATE, D.parse_request_rate)

    def visit_time(self, *, user_agent: str = "*") -> VisitTime | None:
        """``Visit-time`` of the group that applies (first valid value)."""
        return self._first_valid(user_agent, T.VISIT_TIME, D.parse_visit_time)

    def usage(self, url: str, *, user_agent: str = "*",
              content_signal_scope: Scope = "group") -> Usage:
        """AI usage preferences (Content-Usage, Content-Signal) of ``url`` for ``user_agent``:
        see :mod:`robotrules.aipref`."""
        from . import aipref

        return aipref.usage(self, url, user_agent=user_agent,
                            content_signal_scope=content_signal_scope)

    def group_for(self, user_agent: str) -> Group | None:
        """The group that applies to ``user_agent`` (merged when several name it), or None."""
        _, groups = self._for_agent(user_agent)
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
        out: list[str] = []
        seen: set[str] = set()
        for i in self._idx.sitemaps:
            self._add_sitemap(self._value(i), self._line(i), None, out, seen)
        return out

    def _outside(self) -> list[Record]:
        out: list[Record] = []
        for i in self._idx.outside:
            k = self._kind(i)
            name = _CANONICAL.get(k) or T.key_of(self._text, self._dirs[3 * i + 1])
            out.append(Record(T.display(name), T.display(self._value(i)), self._line(i)))
        return out

    @property
    def host(self) -> str | None:
        """The first ``Host:`` value (Yandex's preferred mirror), if any."""
        return next((r.value for r in self._outside() if r.key == "host" and r.value), None)

    @property
    def records(self) -> tuple[Record, ...]:
        """Records outside any group (host, clean-param, unknown keys), in file order."""
        return tuple(self._outside())

    @property
    def clean_params(self) -> tuple[Record, ...]:
        """``Clean-param`` records (Yandex), in file order."""
        return tuple(r for r in self._outside() if r.key == "clean-param")

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every oddity met while reading the file, sorted by line and column."""
        found = self._findings
        if found is None:
            out: list[Finding] = []
            self._file_findings(out)
            self._build(out)
            out.sort(key=lambda f: (f.line, f.column))
            found = self._findings = tuple(out)
        return found

    def _file_findings(self, out: list[Finding]) -> None:
        if self._bom == 3:
            out.append(finding("L017", 1, 1,
                               "byte-order mark at the start of the file (skipped)",
                               "save the file as UTF-8 without BOM"))
        elif self._bom:
            out.append(finding("L017", 1, 1,
                               "a partial byte-order mark at the start of the file (skipped)",
                               severity="warning"))
        text = self._text
        if text.startswith(("\xff\xfe", "\xfe\xff")):
            out.append(finding("L017", 1, 1,
                               "the file looks like UTF-16; robots.txt must be UTF-8 "
                               "(RFC 9309 2.3)", "save the file as UTF-8", severity="error"))
            return
        if not text.isascii():
            try:
                text.encode("latin-1").decode("utf-8")
            except UnicodeDecodeError as exc:
                line = text.count("\n", 0, exc.start) + 1
                out.append(finding("L017", line, 1,
                                   "the file is not valid UTF-8 (RFC 9309 2.3); non-UTF-8 "
                                   "bytes were read as Latin-1", "save the file as UTF-8",
                                   severity="error"))

    @property
    def groups(self) -> tuple[Group, ...]:
        """Every group of the file, in file order (not merged)."""
        groups = self._groups
        if groups is None:
            groups = tuple(self._make_group(g) for g in range(self._idx.count))
            self._groups = groups
        return groups

    def _make_group(self, g: int) -> Group:
        idx = self._idx
        uas = idx.uas(g)
        raw_agents = [self._value(i) for i in uas]
        agents = tuple(T.display(a) for a in raw_agents)
        if not self._spec.token_agents:
            tokens = tuple("*" if a.strip() == "*" else a for a in agents)
        else:
            tokens = tuple("*" if _token.is_global_agent(a) else _token.line_token(a, self.dialect)
                           for a in raw_agents)
        rules: list[Rule] = []
        records: list[Record] = []
        crawl_delay: float | None = None
        rate: RequestRate | None = None
        visit: VisitTime | None = None
        for i in idx.members(g):
            k = self._kind(i)
            if k == T.ALLOW or k == T.DISALLOW:
                rules.append(self._rule(i))
                continue
            value = T.display(self._value(i))
            if k == T.CRAWL_DELAY and crawl_delay is None:
                crawl_delay = D.parse_crawl_delay(value)
            elif k == T.REQUEST_RATE and rate is None:
                rate = D.parse_request_rate(value)
            elif k == T.VISIT_TIME and visit is None:
                visit = D.parse_visit_time(value)
            key = _CANONICAL.get(k) or T.display(T.key_of(self._text, self._dirs[3 * i + 1]))
            records.append(Record(key, value, self._line(i)))
        return Group(agents, tokens, tuple(rules), self._line(uas[0]), crawl_delay, rate,
                     visit, tuple(records))

    @property
    def line_count(self) -> int:
        return self._text.count("\n") + 1

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` as read (after line-ending normalisation)."""
        starts = self._starts
        if starts is None:
            text = self._text
            starts = array("I", [0])
            pos = text.find("\n")
            while pos >= 0:
                starts.append(pos + 1)
                pos = text.find("\n", pos + 1)
            self._starts = starts
        if not 1 <= line <= len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self._text)
        return T.display(self._text[start:end])

    def _value_column(self, line: int) -> int:
        """1-based column where the value of the directive on ``line`` starts (1 if none)."""
        cols = self._columns
        if cols is None:
            cols = {}
            dirs = self._dirs
            text = self._text
            for i in range(0, len(dirs), 3):
                start = dirs[i + 1]
                cols.setdefault(dirs[i] & T.LINE_MASK, start - text.rfind("\n", 0, start))
            self._columns = cols
        return cols.get(line, 1)

    def __repr__(self) -> str:
        return (f"<RobotsTxt dialect={self.dialect!r} size={self.size} "
                f"directives={len(self._dirs) // 3}>")


def _check_agent(value: str, token: str, line: int, findings: list[Finding]) -> None:
    if not value:
        findings.append(finding("L007", line, 1,
                                "empty user-agent value: the group applies to no crawler",
                                "User-agent: *"))
        return
    google = _token.line_token(value, "google")
    shown = T.display(value)
    if token != value:
        if token:
            msg = f"'{shown}' is not a product token; matched as '{token}'"
            if google != token:
                msg += f" (Google reads '{google}')" if google else " (Google: no crawler)"
            fix: str | None = f"User-agent: {token}"
        else:
            msg = f"'{shown}' is not a product token and matches no crawler"
            fix = None
        findings.append(finding("L006", line, 1, msg, fix, severity="error"))
    elif google != token:
        # RFC 9309 2.2.1 product tokens hold only letters, '-' and '_'; Google's parser cuts
        # the value at the first other character (robots.cc ExtractUserAgent)
        findings.append(finding(
            "L006", line, 1,
            f"'{shown}' is read as '{google}' by Google (RFC 9309 2.2.1 tokens hold only "
            "letters, '-' and '_'), so Google applies this group to a different crawler",
            None))


def _check_pattern(text: str, value: str, start: int, k: int, line: int,
                   findings: list[Finding]) -> None:
    if not value:
        return
    col = start - text.rfind("\n", 0, start)
    if value[0] != "/":
        if value[0] == "*":
            findings.append(finding(
                "L008", line, col,
                "pattern starts with '*' rather than '/' (allowed by RFC 9309 5.1)", None,
                severity="info"))
        else:
            findings.append(finding(
                "L008", line, col,
                f"pattern '{T.display(value)}' does not start with '/': it never matches",
                f"{T.KIND_NAMES[k].capitalize()}: /{T.display(value)}"))
    dollar = value.find("$")
    if 0 <= dollar < len(value) - 1:
        findings.append(finding(
            "L009", line, col + dollar,
            "'$' only anchors at the end of a pattern; here it is a literal '$'", None))


def _check_value(raw: str, k: int, line: int, findings: list[Finding]) -> None:
    """L028 for a value its directive's parser cannot read (registry: parse, expect)."""
    d = D.directive(k)
    if d is None or d.parse is None:
        return
    value = T.display(raw)
    if d.parse(value) is None:
        findings.append(finding("L028", line, 1,
                                f"{d.key} '{value}' is not {d.expect}; ignored"))


def _check_other(text: str, value: str, start: int, k: int, line: int,
                 findings: list[Finding]) -> None:
    key = T.display(T.key_of(text, start))
    if k == T.UNKNOWN:
        if key.lower() in ("http", "https") and value.startswith("//"):
            findings.append(finding("L016", line, 1,
                                    "a bare URL line is not a directive; ignored",
                                    f"Sitemap: {key}:{T.display(value)}"))
        else:
            findings.append(finding("L001", line, 1,
                                    f"unknown field '{key}'; ignored"))
    else:
        d = D.directive(k)
        note = f": {d.note}" if d is not None and d.note else ""
        findings.append(finding("L002", line, 1,
                                f"'{key}' is not part of RFC 9309 and is ignored by Google"
                                + note))


class _FirstMatch(Matcher):
    """1994: rules in file order, plain prefixes, the first match wins."""

    __slots__ = ("_rules",)

    def __init__(self, entries: list[Entry]) -> None:
        self._rules = entries

    def best(self, path: str) -> int:
        for e in self._rules:
            if path.startswith(e[2]):
                return e[0]
        return NO_MATCH


def _index_of(e: Entry) -> int:
    return e[0] & INDEX_MASK


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
    spec(dialect)  # ValueError naming the dialects for anything else
    return RobotsTxt(T.to_bytes(body), dialect, url)
