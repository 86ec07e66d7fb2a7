"""The group index: which lines form which group, and which groups each agent token selects.

Built once per file, on the first query or when findings are asked for, from the directive
stream alone (no second tokenization); the structural findings (:func:`structural_findings`)
are a pass of their own that reads where each line stands from the index, so that asking for
findings and for groups builds it once. Compact: the lines of all groups sit in one array
(groups are contiguous runs of lines, in file order), each a directive index tagged as
user-agent, allow, disallow or other; a token maps to a tuple of group numbers. What a
directive does here (opens a group, is a rule, belongs to a group, to the file, or is kept
where it stands) comes from the registry (:mod:`robotrules._directives`); where a group ends
comes from the dialect's spec (:mod:`robotrules._dialects`).

Cost: one pass over the directives, O(directives) time and memory; the findings one more.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from . import _checks, _directives, _token, _tokenize
from ._dialects import SPECS
from ._findings import finding

if TYPE_CHECKING:
    from ._model import Finding
    from ._types import Dialect

__all__ = ["CANONICAL", "TAG_ALLOW", "TAG_DISALLOW", "TAG_OTHER", "TAG_UA", "GroupIndex",
           "build", "structural_findings"]


# Tags of a group's lines in _Index.lines (directive index << 2 | tag).
TAG_UA: Final = 0
TAG_ALLOW: Final = 1
TAG_DISALLOW: Final = 2
TAG_OTHER: Final = 3

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
CANONICAL: Final = {n + 1: d.key for n, d in enumerate(_directives.REGISTRY)
                     if d.role in ("member", "file", "sitemap")}
_PREFERENCE_KINDS: Final = frozenset({_directives.kind_of("content-usage"),
                                      _directives.kind_of("content-signal")})
_ROLES: Final[list[int]] = [_R_ANY] * (_directives.BLANK + 1)
for _n, _d in enumerate(_directives.REGISTRY):
    _ROLES[_n + 1] = _ROLE_CODES[_d.role]


class GroupIndex:
    """Group structure of a file, built from the directive stream on first use.

    Compact: the lines of all groups sit in one array (groups are contiguous runs of lines,
    in file order), each a directive index tagged as user-agent, allow, disallow or other.
    """

    __slots__ = ("by_token", "global_", "lines", "outside", "preferences", "sitemaps",
                 "starts")

    def __init__(self) -> None:
        self.lines = array("I")  # each group's lines in file order: index << 2 | tag
        self.starts = array("I")  # where each group starts in ``lines``, then len(lines)
        self.by_token: dict[str, tuple[int, ...]] = {}
        self.global_: tuple[int, ...] = ()
        self.outside = array("I")  # host, clean-param and unknown lines outside groups
        self.sitemaps = array("I")  # sitemap lines (checked when asked for)
        self.preferences = False  # any AI usage preference line (Content-Usage, -Signal)

    @property
    def count(self) -> int:
        return len(self.starts) - 1

    def rule_count(self, groups: Iterable[int]) -> int:
        """The allow and disallow lines of ``groups``."""
        return sum(1 for g in groups for v in self.block(g)
                   if v & 3 == TAG_ALLOW or v & 3 == TAG_DISALLOW)

    def block(self, g: int) -> array[int]:
        return self.lines[self.starts[g] : self.starts[g + 1]]

    def uas(self, g: int) -> list[int]:
        """Directive indices of group ``g``'s user-agent lines."""
        return [v >> 2 for v in self.block(g) if v & 3 == TAG_UA]

    def members(self, g: int) -> list[int]:
        """Directive indices of group ``g``'s other lines (rules, crawl-delay ...)."""
        return [v >> 2 for v in self.block(g) if v & 3 != TAG_UA]


def build(text: str, dirs: array[int], dialect: Dialect, base_url: str | None,
          findings: list[Finding] | None) -> GroupIndex:
    """Groups and global records, in one pass over the directive stream (read in place:
    only the heads are read for every directive), then the agent tokens; with ``findings``
    (a list), the structural findings too (:func:`structural_findings` of the index)."""
    idx = _groups(dirs, dialect)
    _index_agents(idx, text, dirs, dialect)
    if findings is not None:
        structural_findings(idx, text, dirs, dialect, base_url, findings)
    return idx


def _groups(dirs: array[int], dialect: Dialect) -> GroupIndex:
    """The index's groups, records outside them and sitemap lines (no agent tokens yet)."""
    shift = _tokenize.KIND_SHIFT
    idx = GroupIndex()
    lines = idx.lines
    starts = idx.starts
    in_group = False
    has_rules = False
    ua, blank, allow, disallow = _tokenize.UA, _tokenize.BLANK, _tokenize.ALLOW, _tokenize.DISALLOW
    rule_kinds = (disallow, allow)
    roles = _ROLES
    ends = SPECS[dialect].ends_agents
    for i, head in enumerate(dirs[::3]):  # a slice copy of the heads only
        k = head >> shift
        if k == ua:
            if not in_group or has_rules:
                starts.append(len(lines))
                in_group = True
                has_rules = False
            lines.append(i << 2 | TAG_UA)
            continue
        if k == blank:
            in_group = False
            continue
        if k in rule_kinds:
            if in_group:
                lines.append(i << 2 | (TAG_ALLOW if k == allow else TAG_DISALLOW))
                has_rules = True
            continue
        role = roles[k]
        if role == _R_SITEMAP:
            idx.sitemaps.append(i)
        elif role == _R_MEMBER:  # belongs to a group (crawl-delay ...)
            if in_group:
                lines.append(i << 2 | TAG_OTHER)
        elif role == _R_FILE:  # a record of the whole file (host, clean-param)
            idx.outside.append(i)
        else:  # kept where it stands (content-usage, unknown keys ...)
            if k in _PREFERENCE_KINDS:
                idx.preferences = True
            if in_group:
                lines.append(i << 2 | TAG_OTHER)
                if k in ends:  # a rule in this dialect (rfc9309: Content-Usage)
                    has_rules = True
            else:
                idx.outside.append(i)
    starts.append(len(lines))
    return idx


def _placed(idx: GroupIndex, count: int) -> tuple[bytearray, set[int]]:
    """Which of ``count`` directives sit in a group, and the user-agent lines that join a
    group after its other lines (a group ends only at a user-agent line after a rule)."""
    grouped = bytearray(count)
    joins: set[int] = set()
    lines = idx.lines
    starts = idx.starts
    for g in range(idx.count):
        member = False
        for v in lines[starts[g] : starts[g + 1]]:
            grouped[v >> 2] = 1
            if v & 3 != TAG_UA:
                member = True
            elif member:
                joins.add(v >> 2)
    return grouped, joins


def structural_findings(idx: GroupIndex, text: str, dirs: array[int], dialect: Dialect,
                        base_url: str | None, findings: list[Finding]) -> None:
    """The structural findings of the file ``idx`` indexes, in stream order: each line's own
    checks (:mod:`robotrules._checks`), L005 for a rule or group line outside any group, L030
    for a user-agent line joining a group that has other lines but no rule yet; then the
    agents' (L006, product tokens). Where a line stands is read from ``idx``, so that the
    index is built once whether or not findings are asked for."""
    grouped, joins = _placed(idx, len(dirs) // 3)
    shift = _tokenize.KIND_SHIFT
    mask = _tokenize.LINE_MASK
    seen_sitemaps: set[str] = set()
    sitemaps: list[str] = []
    ua, blank = _tokenize.UA, _tokenize.BLANK
    rule_kinds = (_tokenize.DISALLOW, _tokenize.ALLOW)
    roles = _ROLES
    for i, head in enumerate(dirs[::3]):
        k = head >> shift
        line = head & mask
        if k == ua:
            if i in joins:
                findings.append(finding(
                    "L030", line, 1,
                    "this user-agent joins the group above, which has no allow/"
                    "disallow rule yet: the group's other lines (e.g. crawl-delay) "
                    "apply to it too (RFC 9309 2.1: a group ends at a user-agent "
                    "line after a rule)",
                    "give the group above a rule (e.g. 'Disallow:') or merge them"))
            continue
        if k == blank:
            continue
        start = dirs[3 * i + 1]
        value = text[start : start + dirs[3 * i + 2]]
        if k in rule_kinds:
            if grouped[i]:
                _checks.check_pattern(text, value, start, k, line, findings)
            else:
                findings.append(finding(
                    "L005", line, 1,
                    "rule before any user-agent line: ignored (RFC 9309 2.2.2)",
                    "put a 'User-agent:' line above it"))
            continue
        role = roles[k]
        if role == _R_SITEMAP:
            _checks.add_sitemap(value, line, base_url, findings, sitemaps, seen_sitemaps)
        elif role == _R_MEMBER:  # belongs to a group (crawl-delay ...)
            _checks.check_value(value, k, line, findings)
            if not grouped[i]:
                findings.append(finding(
                    "L005", line, 1,
                    f"{_tokenize.KIND_NAMES[k]} before any user-agent line: ignored",
                    "move it into the group it is meant for"))
        elif role != _R_FILE:  # kept where it stands (content-usage, unknown keys ...)
            _checks.check_other(text, value, start, k, line, findings)
    if SPECS[dialect].token_agents:
        _agent_findings(idx, text, dirs, dialect, findings)


def _agent_of(text: str, dirs: array[int], i: int, dialect: Dialect) -> tuple[str, str]:
    """User-agent directive ``i``'s value as written and what it names, read once by the
    token home (the global group, the token, or the 1994 value as written; a non-ASCII name
    read from bytes is UTF-8 here, as the query's is)."""
    start = dirs[3 * i + 1]
    value = text[start : start + dirs[3 * i + 2]]
    return value, _token.line_agent(_tokenize.display(value), dialect)


def _agent_findings(idx: GroupIndex, text: str, dirs: array[int], dialect: Dialect,
                    findings: list[Finding]) -> None:
    """L006 (a global name Google alone reads as ``*``) and the product-token checks of each
    user-agent line of the groups, in group order (dialects that read product tokens)."""
    for g in range(idx.count):
        for i in idx.uas(g):
            value, agent = _agent_of(text, dirs, i, dialect)
            line = dirs[3 * i] & _tokenize.LINE_MASK
            if agent == _token.GLOBAL:
                if value != "*":
                    findings.append(finding(
                        "L006", line, 1,
                        f"'{_tokenize.display(value)}' is read as '*' by Google only",
                        "User-agent: *"))
            else:
                _checks.check_agent(value, agent, line, findings)


def _index_agents(idx: GroupIndex, text: str, dirs: array[int], dialect: Dialect) -> None:
    """Which groups each product token selects, and the global ones."""
    spec = SPECS[dialect]
    by_token: dict[str, list[int]] = {}
    global_groups: list[int] = []
    for g in range(idx.count):
        for i in idx.uas(g):
            agent = _agent_of(text, dirs, i, dialect)[1]
            # filed case-insensitively in ASCII (_token.query_key)
            if agent == _token.GLOBAL:
                # merged dialects gather every global group; the 1994 standard takes the first
                if not global_groups or (spec.merge_groups and global_groups[-1] != g):
                    global_groups.append(g)
            elif agent or spec.token_agents:  # an empty 1994 name would be inside every name
                gs = by_token.setdefault(_token.ascii_lower(agent), [])
                if not gs or gs[-1] != g:
                    gs.append(g)
    idx.by_token = {k: tuple(v) for k, v in by_token.items()}
    idx.global_ = tuple(global_groups)
