"""``RobotsTxt``: one parsed robots.txt and the answers it gives, a facade over its peer.

A file is read by one of two peers with one surface (:class:`robotrules._peer.Peer`): the
native kernel or the pure-Python core, chosen by the selector (:mod:`robotrules._peers`).
``RobotsTxt`` is what both peers' concrete classes share: it builds verdicts, explanations,
groups, records and findings from that surface alone (the text, the directive stream, the group
index, the deciding keys), has them worded (:mod:`robotrules._wording` for verdicts,
:mod:`robotrules._checks` for findings, :mod:`robotrules.aipref` for AI usage preferences) and
keeps what it made. docs/architecture.md follows one query through all of them.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Final, TypeVar

from . import _directives, _later, _token, _tokenize, _wording
from ._checks import add_sitemap, file_findings
from ._dialects import SPECS, DialectSpec, spec
from ._index import CANONICAL, TAG_ALLOW, TAG_DISALLOW, structural_findings
from ._match import INDEX_MASK, NO_MATCH, key_allows
from ._peers import NATIVE, NativePeer, PurePeer, decide_strings, fast_constructor, peer_for
from ._pure import str_arg, urls_arg

if TYPE_CHECKING:
    from ._model import (
        Decisions,
        Finding,
        Group,
        Record,
        RequestRate,
        Rule,
        Verdict,
        VisitTime,
    )
    from ._peer import Peer as _Surface
    from ._peer import UsageMemo, UsagePaths, VerdictMemo
    from ._types import Dialect
    from .aipref import Scope, Statement, Usage
else:  # stand-ins that import the model on first use (import cost: robotrules._later)
    Decisions, Group, Record, Rule, Verdict = _later.stand_ins(
        globals(), "Decisions", "Group", "Record", "Rule", "Verdict")
    _Surface = object

__all__ = ["NATIVE", "RobotsTxt", "parse", "reference"]

_V = TypeVar("_V")
# what the answers derive is found by the agent string for at most this many strings (each
# entry a reference to what its selection shares)
_AGENT_MEMO: Final = 256
_SAID_MAX: Final = 1024  # verdict facts kept per selection
# what the answers derive per group selection (its facts, its usage statements) is held to a
# budget of estimated bytes: this, plus this many per byte of the body; past it, all of it
# is dropped before more is kept (docs/architecture.md, "what a parsed file keeps")
_DERIVED_MIN: Final = 8 << 20
_DERIVED_PER_BYTE: Final = 8
# the estimates charged against it (CPython, 64-bit): a verdict's facts (the tuple, its
# detail's, the dict slot), a string in a tuple, a usage statement as read, a usage answer
_FACT_BYTES: Final = 320
_STRING_BYTES: Final = 64
_STATEMENT_BYTES: Final = 640
_ANSWER_BYTES: Final = 480

# a group selection as the answers share it: the groups' indices and whether they apply as
# the '*' group (no group names the agent's token)
_SelectionKey = tuple[tuple[int, ...], bool]


class _Kept:
    """What the facade keeps per file, each made on first use: one object, made when the
    first of them is, so that a file only asked ``is_allowed`` keeps one empty slot for them
    (each concrete facade class has the one slot ``_kept_``).

    What the answers derive is kept per group selection (``selections``, ``uses``): agents
    that select the same groups share it, and the agent strings find it through
    ``selection_of_agent`` and ``uses_of_agent`` (references only). It is bounded by
    ``budget`` bytes (estimated: :meth:`charge`), whatever the number of agents."""

    __slots__ = ("budget", "derived_bytes", "empty_rule", "evictions", "file_records",
                 "findings", "groups", "line_starts", "outside_records", "rules",
                 "selection_of_agent", "selections", "uses", "uses_of_agent", "value_columns")

    def __init__(self, size: int) -> None:
        self.file_records: tuple[Record, ...] | None = None
        self.value_columns: dict[int, int] | None = None
        self.findings: tuple[Finding, ...] | None = None
        self.groups: tuple[Group, ...] | None = None
        self.outside_records: tuple[Record, ...] | None = None
        self.rules: dict[int, Rule] = {}
        self.line_starts: array[int] | None = None
        self.selections: dict[_SelectionKey, _Selection] = {}
        self.selection_of_agent: dict[str, _Selection] = {}
        self.uses: dict[tuple[_SelectionKey, str, str], _Uses] = {}
        self.uses_of_agent: dict[tuple[str, str, str], _Uses] = {}
        self.budget = _DERIVED_MIN + _DERIVED_PER_BYTE * size
        self.derived_bytes = 0
        self.evictions = 0  # how often what the answers derived was dropped
        self.empty_rule: bool | None = None  # RobotsTxt._has_empty_rule, once known

    def charge(self, cost: int) -> None:
        """Count ``cost`` more bytes derived by the answers; past the budget, every
        selection's facts and usage statements are dropped first (a caller keeps what it
        holds: only the memo forgets it)."""
        if self.derived_bytes + cost > self.budget:
            # (the peer keeps the memos for the agents it met: emptied, they keep nothing)
            for sel in self.selections.values():
                if sel.memo is not None:
                    sel.memo.clear()
            for uses in self.uses.values():
                if uses.memo is not None:
                    uses.memo.clear()
            self.selections.clear()
            self.selection_of_agent.clear()
            self.uses.clear()
            self.uses_of_agent.clear()
            self.derived_bytes = 0
            self.evictions += 1
        self.derived_bytes += cost

    def refund(self, cost: int) -> None:
        """``cost`` bytes charged before are no longer kept."""
        self.derived_bytes = max(0, self.derived_bytes - cost)


_FACADE_SLOTS: Final = ("_kept_",)


class RobotsTxt(_Surface):
    """A parsed robots.txt: immutable answers to "may this agent fetch this URL?".

    Create it with :func:`robotrules.parse`. Every query is thread-safe. A parsed file keeps
    only its text (or its bytes) and what its peer compiled; the groups, the explanations'
    wording and the findings are derived on first use and then kept. ``is_allowed(url, *,
    user_agent="*")`` is the peer's own (in C on the native peer).
    """

    __slots__ = ()  # a mixin beside the peer (a C type on the native peer): slots are theirs
    _kept_: _Kept  # the concrete classes' one slot (see _Kept): set by _kept on first use

    # the caches below (groups, records, findings ...) are made on first use and kept in
    # one _Kept (see _kept): a parse sets only what every file needs

    def _kept(self) -> _Kept:
        """What this file keeps on first use (made with the first of it)."""
        kept: _Kept | None = getattr(self, "_kept_", None)
        if kept is None:
            kept = self._kept_ = _Kept(self.size)
        return kept

    @property
    def _spec(self) -> DialectSpec:
        return SPECS[self.dialect]

    # -- the text and the directive stream, through the peer -------------------------------

    def _kind(self, i: int) -> int:
        return self.directives[3 * i] >> _tokenize.KIND_SHIFT

    def _line(self, i: int) -> int:
        return self.directives[3 * i] & _tokenize.LINE_MASK

    def _value(self, i: int) -> str:
        dirs = self.directives
        start = dirs[3 * i + 1]
        return self.latin1_text[start : start + dirs[3 * i + 2]]

    def _path(self, url: str) -> str:
        return SPECS[self.dialect].path(url)

    # -- queries --------------------------------------------------------------------------

    def explain(self, url: str, *, user_agent: str = "*") -> Verdict:
        """The verdict for ``url`` with the line, rule and group that decided it."""
        # (the peer checks that url and user_agent are str: known_verdict)
        # the whole answer in the peer (in C on the native one) once the facts are kept in
        # the peer's memo of the agent's selection
        v: Verdict | None = self.known_verdict(url, user_agent)
        if v is not None:
            return v
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        key, path = self.url_key_path(url, user_agent)  # plain values from the peer
        return self._verdict(key, path, user_agent)

    def _verdict(self, key: int, path: str, user_agent: str) -> Verdict:
        """The verdict a deciding key gives ``path`` for ``user_agent`` (both checked), from
        the facts the agent's selection keeps."""
        kept: _Kept | None = getattr(self, "_kept_", None)
        sel = None if kept is None else kept.selection_of_agent.get(user_agent)
        if sel is None:
            sel = self._selection(user_agent)
        facts = sel.facts.get(key)
        make = _VERDICT
        if make is None:
            make = _makers()[0]
        if facts is None:
            facts = sel.fact(self, key)
            if sel.prefs and facts[0] and key != -1:
                # the preferences that apply join the sentence when it is read: the words
                # of the selection's statements (plain values: the facts keep no file)
                words = self._uses(user_agent, "group", _preferences().DEFAULT_VOCABULARY)
                facts = (*facts[:6], (_preference_words, words.words(), facts[6]))
                sel.facts[key] = facts
            if sel.memo is None:
                sel.memo = self.verdict_memo(make, _SAID_MAX)
            sel.memo.keep(key, facts)
        if sel.memo is not None:
            self.keep_verdicts(user_agent, sel.memo)
        return make(*facts, user_agent, path)

    def _selection(self, user_agent: str) -> _Selection:
        """What every verdict for ``user_agent`` shares, shared in turn by every agent that
        selects the same groups (made on first use; found by the agent string for at most
        ``_AGENT_MEMO`` strings)."""
        kept = self._kept()
        sel = kept.selection_of_agent.get(user_agent)
        if sel is None:
            sel = self._shared_selection(kept, user_agent)
            by_agent = kept.selection_of_agent
            if len(by_agent) >= _AGENT_MEMO:
                by_agent.clear()
            by_agent[user_agent] = sel
        return sel

    def _shared_selection(self, kept: _Kept, user_agent: str) -> _Selection:
        """The selection of ``user_agent``'s groups: kept, or made (and charged)."""
        groups = self.selected_groups(user_agent)
        idx = self.group_index
        global_ = groups == idx.global_ and (not self._spec.token_agents or _token.query_key(
            user_agent) not in idx.by_token)
        key: _SelectionKey = (groups, global_)
        sel = kept.selections.get(key)
        if sel is None:
            if not groups:
                sel = _Selection(kept, key, (), (), None, 0, False,
                                 (-1, _REASON_INDEX["no-group"]))
            else:
                empty = self._empty_rule(groups)
                sel = _Selection(kept, key, self._agents_of(groups),
                                 tuple(self._line(idx.uas(g)[0]) for g in groups),
                                 None if empty is None else self._rule(empty),
                                 idx.rule_count(groups), idx.preferences,
                                 (-1, _REASON_INDEX["no-matching-rule"]) if empty is None
                                 else (empty, _REASON_INDEX["rule"]))
            kept.charge(sel.cost())
            kept.selections[key] = sel
        return sel

    def decide_many(self, urls: Sequence[str], *, user_agent: str = "*") -> Decisions:
        """The verdicts of many ``urls`` for one ``user_agent``, as columns
        (:class:`robotrules.Decisions`): entry ``i`` equals ``explain(urls[i])`` field by
        field (allowed, line, rule, reason)."""
        _check_urls(urls, user_agent)
        return self._decide_many(urls, user_agent, None)

    def decide_buffers(self, offsets: object, data: object, rows: object,
                       out: tuple[object, object, object, object], *, user_agent: str = "*",
                       base: int = 0) -> tuple[Rule, ...]:
        """:meth:`decide_many` over the buffers of an Arrow ``string`` or ``large_string``
        array, no Python object made per URL: for each row ``r`` of ``rows`` (int64 indices
        into the array whose ``offsets``, int32 or int64, and ``data`` are given), the
        verdict of URL ``r`` written at ``r`` of ``out`` = ``(allowed, line, rule, reason)``
        (writable buffers of uint8, int32, int32 and uint8): the fields of
        :class:`Decisions`, the rule numbered from ``base``; a URL whose bytes are not UTF-8
        gets reason 255. Returns the rules numbered, in order (rule ``base + i`` is entry
        ``i``). ValueError for rows or offsets out of range, offsets not monotone, or
        columns of the wrong width or too short."""
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        got = decide_strings(self, offsets, data, rows, user_agent, self._no_match(user_agent),
                             out, base)
        return tuple(map(self._rule, got))

    def usage_many(self, urls: Sequence[str], *, user_agent: str = "*",
                   vocabulary: str = "vocab-07") -> dict[str, array[int]]:
        """:meth:`usage` of many ``urls`` for one ``user_agent``, as columns: per key of
        :func:`usage_keys` (``crawl`` and every category a robots.txt can
        state) an ``array('b')`` of 1 (allowed, y), 0 (disallowed, n) or -1 (unstated), one
        entry per URL in input order, equal to ``usage(urls[i])[key]``."""
        keys = usage_keys(vocabulary)
        _check_urls(urls, user_agent)  # before the agent's statements are read
        uses = self._uses(user_agent, "group", vocabulary)
        paths: list[str] | None = [] if uses.cu or uses.signals else None
        decided = self._decide_many(urls, user_agent, paths)
        cols = {k: array("b", [-1]) * len(urls) for k in keys}
        cols["crawl"] = array("b", decided.allowed)
        if paths is None:  # no line states a preference for this agent: the crawl only
            return cols
        sets: list[tuple[int, ...]]
        if uses.paths is None:  # the same answer for every URL that may be fetched
            classes, sets = array("l", [0 if a else -1 for a in decided.allowed]), [()]
        else:
            classes, sets = uses.paths.classify(paths, decided.allowed)
        cats = keys[1:]  # usage_keys: "crawl" first
        rows = b"".join([uses.row(d, cats) for d in sets])  # one row of values per set
        for j, k in enumerate(cats):
            cols[k] = self.gather(classes, array("b", rows[j::len(cats)]))
        return cols

    def _decide_many(self, urls: Sequence[str], user_agent: str, paths: list[str] | None
                     ) -> Decisions:
        """:meth:`decide_many` (its arguments checked), appending each URL's path to
        ``paths`` unless it is None."""
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        allowed, line, at, reason, rules = self.decide_urls(urls, user_agent,
                                                           self._no_match(user_agent), paths)
        make = _DECISIONS
        if make is None:
            make = _makers()[2]
        return make(allowed, line, at, reason, tuple(map(self._rule, rules)), user_agent)

    def _no_match(self, user_agent: str) -> tuple[int, int]:
        """The batch API's facts of NO_MATCH for ``user_agent`` (:attr:`_Selection.no_match`):
        the kept selection's; else, where the peer selects no group, or where no directive of
        the file has no empty Allow or Disallow (so no group has an empty rule:
        :meth:`_empty_rule`), the same facts without a selection (no group index: the
        peer's own choice of groups); else the selection's, made."""
        kept: _Kept | None = getattr(self, "_kept_", None)
        sel = None if kept is None else kept.selection_of_agent.get(user_agent)
        if sel is None:
            if not self.selected_groups(user_agent):
                return -1, _REASON_INDEX["no-group"]
            if not self._has_empty_rule():
                return -1, _REASON_INDEX["no-matching-rule"]
            sel = self._selection(user_agent)
        return sel.no_match

    def _has_empty_rule(self) -> bool:
        """Whether an Allow or Disallow line of the file has an empty value: a fact of the
        file, found once and kept. A body where no ':' ends its line's text
        (:data:`_MAYBE_EMPTY`) has no empty value; in any other the directive stream is read
        (a C search from one empty value to the next)."""
        kept = self._kept()
        if kept.empty_rule is None:
            lengths = self.directives[2::3] if _MAYBE_EMPTY.search(self.source()) else ()
            i, found = -1, False
            try:
                while not found:
                    i = lengths.index(0, i + 1)
                    found = self._kind(i) in (_tokenize.ALLOW, _tokenize.DISALLOW)
            except ValueError:  # no empty value after i
                pass
            kept.empty_rule = found
        return kept.empty_rule

    def _empty_rule(self, groups: tuple[int, ...]) -> int | None:
        """Google's report when no pattern matched, as a directive index: the first empty
        Allow of the groups, else their first empty Disallow (robots.cc
        Match::HigherPriorityMatch keeps allow on a tie, and each side keeps the first line
        at a priority)."""
        idx = self.group_index
        dirs = self.directives
        first: dict[int, int] = {}
        for g in groups:
            for v in idx.block(g):
                tag = v & 3
                if tag in (TAG_ALLOW, TAG_DISALLOW) and not dirs[3 * (v >> 2) + 2]:
                    first.setdefault(tag, v >> 2)
        return first.get(TAG_ALLOW, first.get(TAG_DISALLOW))

    def _agents_of(self, groups: Iterable[int]) -> tuple[str, ...]:
        idx = self.group_index
        return tuple(_tokenize.display(self._value(i)) for g in groups for i in idx.uas(g))

    def _rule(self, i: int) -> Rule:
        """The rule of directive ``i`` (made once)."""
        made = self._kept().rules
        rule = made.get(i)
        if rule is None:
            if self._kind(i) == _tokenize.ALLOW:
                rule = Rule("allow", _tokenize.display(self._value(i)), self._line(i))
            else:
                rule = Rule("disallow", _tokenize.display(self._value(i)), self._line(i))
            made[i] = rule
        return rule

    def _first_valid(self, user_agent: str, kind: int, read: Callable[[str], _V | None]
                     ) -> _V | None:
        """The first value of ``kind`` in the group that applies that ``read`` accepts."""
        groups = self.selected_groups(user_agent)
        idx = self.group_index
        for g in groups:
            for i in idx.members(g):
                if self._kind(i) == kind:
                    value = read(_tokenize.display(self._value(i)))
                    if value is not None:
                        return value
        return None

    def crawl_delay(self, *, user_agent: str = "*") -> float | None:
        """Seconds between requests asked by the group that applies (first valid value)."""
        return self._first_valid(user_agent, _tokenize.CRAWL_DELAY, _directives.parse_crawl_delay)

    def request_rate(self, *, user_agent: str = "*") -> RequestRate | None:
        """``Request-rate`` of the group that applies (first valid value)."""
        return self._first_valid(user_agent, _tokenize.REQUEST_RATE, _directives.parse_request_rate)

    def visit_time(self, *, user_agent: str = "*") -> VisitTime | None:
        """``Visit-time`` of the group that applies (first valid value)."""
        return self._first_valid(user_agent, _tokenize.VISIT_TIME, _directives.parse_visit_time)

    def usage(self, url: str, *, user_agent: str = "*",
              content_signal_scope: Scope = "group", vocabulary: str = "vocab-07",
              policy_tokens: Mapping[str, str] | None = None) -> Usage:
        """AI usage preferences (Content-Usage, Content-Signal, policy-token groups) of ``url``
        for ``user_agent``, under the AIPREF vocabulary version ``vocabulary``: see
        :mod:`robotrules.aipref`."""
        if policy_tokens:  # policy-token groups: asked per token (robotrules.aipref)
            asked: Usage = _preferences().usage(
                self, url, user_agent=user_agent, content_signal_scope=content_signal_scope,
                vocabulary=vocabulary, policy_tokens=policy_tokens)
            return asked
        # the whole answer in the peer (in C on the native one) once its values are kept
        # in the peer's memo of the selection's usage answers (it checks url and user_agent)
        u: Usage | None = self.known_usage(url, user_agent, content_signal_scope, vocabulary)
        if u is not None:
            return u
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        uses = self._uses(user_agent, content_signal_scope, vocabulary)
        v = self.explain(url, user_agent=user_agent)
        path = v.path
        make = _USAGE
        if make is None:
            make = _makers()[1]
        if uses.memo is None:  # (made once explain's verdict memo of the selection is)
            sel = self._kept().selection_of_agent.get(user_agent)
            if sel is not None and sel.memo is not None:
                uses.memo = self.usage_memo(sel.memo, uses.paths, make, content_signal_scope,
                                            vocabulary, _SAID_MAX)
        if uses.memo is not None:
            self.keep_usages(user_agent, uses.memo)
        if not v.allowed:  # no preferences attach to a URL that may not be fetched
            return make(False, {}, (), (), user_agent, path, content_signal_scope, v,
                        vocabulary)
        chosen = () if uses.paths is None else uses.paths.deciding(path)
        answer = uses.answers.get(chosen)
        if answer is None:
            answer = uses.of(chosen)
        if uses.memo is not None:
            uses.memo.keep(chosen, answer)
        cats, lines, stmts = answer
        return make(True, dict(cats), lines, stmts, user_agent, path, content_signal_scope,
                    v, vocabulary)

    def _uses(self, user_agent: str, scope: Scope, vocabulary: str) -> _Uses:
        """The usage statements of ``user_agent`` that do not depend on the path, and the
        matcher of its Content-Usage paths (robotrules.aipref.usage.preference_parts): kept
        per group selection (scope, vocabulary), found by the agent string for at most
        ``_AGENT_MEMO`` (agent, scope, vocabulary) triples."""
        kept = self._kept()
        uses = kept.uses_of_agent.get((user_agent, scope, vocabulary))
        if uses is None:
            prefs = _preferences()
            if scope not in ("group", "file"):
                raise ValueError(
                    f"content_signal_scope must be 'group' or 'file', not {scope!r}")
            prefs.vocabulary_of(vocabulary)  # ValueError naming the versions
            key = (self._selection(user_agent).key, scope, vocabulary)
            uses = kept.uses.get(key)
            if uses is None:
                cu, signals, others = prefs.preference_parts(self, user_agent, scope,
                                                             vocabulary)
                paths = self.usage_paths(prefs.usage_patterns(cu, self.dialect)) if cu else None
                uses = _Uses(kept, cu, signals, others, paths)
                kept.charge(_STATEMENT_BYTES * (len(cu) + len(signals) + len(others)))
                kept.uses[key] = uses
            by_agent = kept.uses_of_agent
            if len(by_agent) >= _AGENT_MEMO:
                by_agent.clear()
            by_agent[user_agent, scope, vocabulary] = uses
        return uses

    def group_for(self, user_agent: str) -> Group | None:
        """The group that applies to ``user_agent`` (merged when several name it), or None."""
        groups = self.selected_groups(user_agent)
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
        for i in self.group_index.sitemaps:
            add_sitemap(self._value(i), self._line(i), self.base_url, None, out, seen)
        return out

    def _outside(self) -> tuple[Record, ...]:
        kept = self._kept()
        out = kept.outside_records
        if out is None:
            out = kept.outside_records = tuple(self._record(i) for i in self.group_index.outside)
        return out

    def _record(self, i: int) -> Record:
        """The record of directive ``i``: the canonical key of a directive robotrules reads
        (crawl-delay, host ...), else the key as written; its directive as the tokenizer
        classified it (its stream kind: ``_directives.KIND_NAMES``, None for an unknown key)."""
        kind = self._kind(i)
        octets = self._value(i)
        key = CANONICAL.get(kind) or _tokenize.display(
            _tokenize.key_of(self.latin1_text, self.directives[3 * i + 1]))
        return Record(key, _tokenize.display(octets), self._line(i),
                      None if octets.isascii() else octets, _directives.KIND_NAMES.get(kind))

    @property
    def all_records(self) -> tuple[Record, ...]:
        """Every record of the file: the groups' (in group order), then those outside."""
        kept = self._kept()
        every = kept.file_records
        if every is None:
            every = kept.file_records = (
                *(r for g in self.groups for r in g.records), *self._outside())
        return every

    @property
    def host(self) -> str | None:
        """The first ``Host:`` value (Yandex's preferred mirror), if any."""
        return next((r.value for r in self._outside() if r.key == "host" and r.value), None)

    @property
    def records(self) -> tuple[Record, ...]:
        """Records outside any group (host, clean-param, unknown keys), in file order."""
        return self._outside()

    @property
    def clean_params(self) -> tuple[Record, ...]:
        """``Clean-param`` records (Yandex), in file order."""
        return tuple(r for r in self._outside() if r.key == "clean-param")

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every oddity met while reading the file, sorted by line and column."""
        kept = self._kept()
        found = kept.findings
        if found is None:
            out: list[Finding] = []
            text = self.latin1_text
            file_findings(text, self.bom_length, out)
            _tokenize.recheck(text, self.dialect, self.noted_lines, out)  # lines to look at
            structural_findings(self.group_index, text, self.directives, self.dialect,
                                self.base_url, out)
            out.sort(key=lambda f: (f.line, f.column))
            found = kept.findings = tuple(out)
        return found

    @property
    def groups(self) -> tuple[Group, ...]:
        """Every group of the file, in file order (not merged)."""
        kept = self._kept()
        groups = kept.groups
        if groups is None:
            groups = tuple(self._make_group(g) for g in range(self.group_index.count))
            kept.groups = groups
        return groups

    def _make_group(self, g: int) -> Group:
        idx = self.group_index
        uas = idx.uas(g)
        agents = tuple(_tokenize.display(self._value(i)) for i in uas)
        tokens = tuple(_token.line_agent(a, self.dialect) for a in agents)
        rules: list[Rule] = []
        records: list[Record] = []
        crawl_delay: float | None = None
        rate: RequestRate | None = None
        visit: VisitTime | None = None
        for i in idx.members(g):
            k = self._kind(i)
            if k == _tokenize.ALLOW or k == _tokenize.DISALLOW:
                rules.append(self._rule(i))
                continue
            rec = self._record(i)
            if k == _tokenize.CRAWL_DELAY and crawl_delay is None:
                crawl_delay = _directives.parse_crawl_delay(rec.value)
            elif k == _tokenize.REQUEST_RATE and rate is None:
                rate = _directives.parse_request_rate(rec.value)
            elif k == _tokenize.VISIT_TIME and visit is None:
                visit = _directives.parse_visit_time(rec.value)
            records.append(rec)
        return Group(agents, tokens, tuple(rules), self._line(uas[0]), crawl_delay, rate,
                     visit, tuple(records))

    @property
    def line_count(self) -> int:
        return self.latin1_text.count("\n") + 1

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` as read (after line-ending normalisation)."""
        kept = self._kept()
        starts = kept.line_starts
        if starts is None:
            text = self.latin1_text
            starts = array("I", [0])
            pos = text.find("\n")
            while pos >= 0:
                starts.append(pos + 1)
                pos = text.find("\n", pos + 1)
            kept.line_starts = starts
        if not 1 <= line <= len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.latin1_text)
        return _tokenize.display(self.latin1_text[start:end])

    @property
    def agent_lines(self) -> tuple[tuple[int, str], ...]:
        """Each user-agent line of the groups, ``(line, value as written)``, in group order
        (a line that names several groups' agents appears once per group)."""
        idx = self.group_index
        return tuple((self._line(i), _tokenize.display(self._value(i)))
                     for g in range(idx.count) for i in idx.uas(g))

    def value_column(self, line: int) -> int:
        """1-based column where the value of the directive on ``line`` starts (1 if none)."""
        kept = self._kept()
        cols = kept.value_columns
        if cols is None:
            cols = {}
            dirs = self.directives
            text = self.latin1_text
            for i in range(0, len(dirs), 3):
                start = dirs[i + 1]
                cols.setdefault(dirs[i] & _tokenize.LINE_MASK, start - text.rfind("\n", 0, start))
            kept.value_columns = cols
        return cols.get(line, 1)

    def __reduce__(self) -> tuple[Callable[..., RobotsTxt], tuple[object, ...]]:
        """Pickling and copying: the file is parsed again, by the peer that read it (from the
        peer's source: the bytes as given, or the text, which reads the same)."""
        return _restore, (self.source(), self.dialect, self.base_url, self.size,
                          isinstance(self, PurePeer))

    def __repr__(self) -> str:
        return (f"<RobotsTxt dialect={self.dialect!r} size={self.size} "
                f"directives={self.directive_count}>")


if TYPE_CHECKING:  # mypy holds the facade to what its readers take (robotrules._parsed)
    from ._parsed import ParsedFile

    def _read_as(rules: RobotsTxt) -> ParsedFile:
        return rules


class PureRobotsTxt(PurePeer, RobotsTxt):
    """A :class:`RobotsTxt` read by the pure peer (:class:`robotrules._pure.PurePeer`)."""

    __slots__ = _FACADE_SLOTS


if TYPE_CHECKING:
    from ._native import Doc as _NativeBase
else:  # where the native peer is not in use, no file is given to this class
    _NativeBase = NativePeer if NativePeer is not None else PurePeer


class NativeRobotsTxt(_NativeBase, RobotsTxt):
    """A :class:`RobotsTxt` read by the native peer (:class:`robotrules._native.Doc`):
    ``is_allowed`` is the peer's C method, called with no Python frame in between."""

    __slots__ = _FACADE_SLOTS


# the facade class of each peer class the selector (robotrules._peers) may choose
_FACADE: Final[dict[type, type[PureRobotsTxt] | type[NativeRobotsTxt]]] = {
    PurePeer: PureRobotsTxt}
if NativePeer is not None:
    _FACADE[NativePeer] = NativeRobotsTxt


class _Selection:
    """What the verdicts of the agents that select one set of groups share (``key``: the
    groups, and whether they apply as the ``*`` group): the groups' agents, the first
    user-agent line of each group (the sentence says which group applies from them and the
    verdict's own agent), Google's empty rule, the rule count and whether the file states
    preferences; per deciding key, the facts of its verdict (made once, so that a verdict
    costs a lookup; bounded by ``_SAID_MAX`` keys), and the same facts in the peer's memo
    (``memo``, made by its ``verdict_memo`` and filled one call per key: ``known_verdict``
    answers from it; where the file states preferences, an allowed verdict's facts carry
    their words as plain values, :meth:`_Uses.words`); and ``no_match``, what the batch API's
    peer is told of NO_MATCH as plain values (``(rule, reason)``: Google's empty rule as a
    directive index or -1, the index of ``Decisions.reason``). What it keeps is charged to
    the file's budget (``kept``: :meth:`_Kept.charge`)."""

    __slots__ = (
        "agents",
        "count",
        "empty",
        "facts",
        "groups",
        "kept",
        "key",
        "lines",
        "memo",
        "no_match",
        "prefs",
    )

    def __init__(self, kept: _Kept, key: _SelectionKey, agents: tuple[str, ...],
                 lines: tuple[int, ...], empty: Rule | None, count: int, prefs: bool,
                 no_match: tuple[int, int]) -> None:
        self.kept = kept
        self.key = key
        self.groups = key[0]
        self.agents = agents
        self.lines = lines
        self.empty = empty
        self.count = count
        self.prefs = prefs
        self.facts: dict[int, _Facts] = {}
        self.memo: VerdictMemo | None = None
        self.no_match = no_match

    def cost(self) -> int:
        """The bytes it keeps before any fact (estimated)."""
        return 256 + 8 * (len(self.groups) + len(self.lines)) + sum(
            _STRING_BYTES + len(a) for a in self.agents)

    def fact(self, rules: RobotsTxt, key: int) -> _Facts:
        """The facts of the verdict a deciding key gives: ``(allowed, line, rule, agents,
        reason, dialect, detail)``, the first seven values of ``_VERDICT``; ``detail`` is the
        sentence, or ``(write, *facts)`` where it names the path or the agent
        (robotrules._model.Verdict writes it when read). Where the file states AI usage
        preferences, they join the sentence of an allowed verdict a rule or no rule gives
        (``prefs``: :meth:`RobotsTxt._verdict`)."""
        facts: _Facts
        where = self.lines, self.key[1]
        dialect = rules.dialect
        if key == -1:
            facts = (True, None, None, (), "robots-txt", dialect, _wording.ROBOTS_TXT)
        elif not self.groups:
            facts = (True, None, None, (), "no-group", dialect, _wording.NO_GROUP)
        elif key == NO_MATCH:
            empty = self.empty
            if empty is not None:
                # compat(google): robots.cc matches an empty pattern at priority 0 and reports
                # its line (matching_line()), though it decides nothing: everything allowed
                facts = (True, empty.line, empty, self.agents, "rule", dialect,
                         (_empty_rule_words, *where, empty.line, str(empty)))
            else:
                facts = (True, None, None, self.agents, "no-matching-rule", dialect,
                         (_no_match_words, *where, self.count))
        else:
            rule = rules._rule(key & INDEX_MASK)
            allow = key_allows(key)
            facts = (allow, rule.line, rule, self.agents, "rule", dialect,
                     (_decided_words, *where, rule.line, str(rule), allow))
        kept = self.facts
        if len(kept) >= _SAID_MAX:
            self.kept.refund(len(kept) * _FACT_BYTES)
            kept.clear()
        self.kept.charge(_FACT_BYTES)
        kept[key] = facts
        return facts


_Facts = tuple[bool, "int | None", "Rule | None", tuple[str, ...], str, "Dialect", object]


# The sentences of a selection's verdicts, written when first read (robotrules._wording):
# which group applies names the verdict's own agent (its product token), so that every agent
# of a selection shares the facts.

def _where_words(v: Verdict, lines: tuple[int, ...], global_: bool) -> str:
    return _wording.where(lines, _token.product_token(v.user_agent), global_)


def _decided_words(v: Verdict, lines: tuple[int, ...], global_: bool, line: int, rule: str,
                   allows: bool) -> str:
    return _wording.decided(line, rule, allows, _where_words(v, lines, global_))


def _empty_rule_words(v: Verdict, lines: tuple[int, ...], global_: bool, line: int,
                      rule: str) -> str:
    return _wording.empty_rule(v, _where_words(v, lines, global_), line, rule)


def _no_match_words(v: Verdict, lines: tuple[int, ...], global_: bool, count: int) -> str:
    return _wording.no_match(v, _where_words(v, lines, global_), count)


def _preference_words(v: Verdict, words: _Words, base: object) -> str:
    """The sentence of an allowed verdict in a file that states AI usage preferences: the
    verdict's own, then the preferences that apply (those of
    robotrules.aipref.explain_detail: per-group Content-Signal scope, the default
    vocabulary, from the statements of the agent's selection, ``words``:
    :meth:`_Uses.words`), in the words of robotrules._wording (a verdict's detail is
    ``(words, statements, detail)``: written when read)."""
    prefs = _preferences()
    cu, signals, others, paths = words
    cats, lines, stmts = _answer_of(cu, signals, others,
                                    () if paths is None else paths.deciding(v.path))
    said = ""
    if any(c is not None for c in cats.values()):
        said = prefs.describe(prefs.Usage(True, dict(cats), lines, stmts, v.user_agent,
                                          v.path, "group", v, prefs.DEFAULT_VOCABULARY))
    return _wording.joined(_wording.written(v, base), said)


def _answer_of(cu: Sequence[Statement], signals: tuple[Statement, ...],
               others: tuple[Statement, ...], chosen: tuple[int, ...]) -> _Answer:
    """``(categories, lines, statements)`` where the Content-Usage rules ``chosen`` decide
    (robotrules.aipref.usage.answer)."""
    answer: _Answer = _preferences().answer([cu[i] for i in chosen], signals, (), others)
    return answer


# the statements of one selection (scope "group", the default vocabulary) a verdict's
# sentence reads: Content-Usage rules, Content-Signal and file-wide statements, the matcher of
# the Content-Usage paths (plain values: :meth:`_Uses.words`)
_Words = tuple["Sequence[Statement]", "tuple[Statement, ...]", "tuple[Statement, ...]",
               "UsagePaths | None"]


class _Uses:
    """The usage statements of one group selection (scope, vocabulary) that do not depend on
    the path (robotrules.aipref.usage.preference_parts: its Content-Usage rules read when
    they decide), the matcher of its Content-Usage paths, and the answer per set of deciding
    rules (made once, charged to the file's budget: ``kept``); the same answers in the
    peer's memo (``memo``, made by its ``usage_memo`` over the selection's verdict memo and
    filled one call per answer: ``known_usage`` answers from it)."""

    __slots__ = ("answers", "cu", "kept", "memo", "others", "paths", "rows", "signals")

    def __init__(self, kept: _Kept, cu: Sequence[Statement], signals: tuple[Statement, ...],
                 others: tuple[Statement, ...], paths: UsagePaths | None) -> None:
        self.kept = kept
        self.cu = cu
        self.signals = signals
        self.others = others
        self.paths = paths
        self.answers: dict[tuple[int, ...], _Answer] = {}
        self.rows: dict[tuple[int, ...], bytes] = {}
        self.memo: UsageMemo[Usage] | None = None

    def words(self) -> _Words:
        """What a verdict's sentence reads of these statements, as plain values."""
        return self.cu, self.signals, self.others, self.paths

    def row(self, chosen: tuple[int, ...], keys: Sequence[str]) -> bytes:
        """The values of ``keys`` (the categories of ``usage_many``, fixed by this object's
        vocabulary) for a set of deciding rules, as ``array('b')`` bytes: 1, 0 or -1."""
        hit = self.rows.get(chosen)
        if hit is None:
            cats = self.of(chosen)[0]
            hit = bytes([_TRI[cats.get(k)] & 0xFF for k in keys])
            if len(self.rows) >= _SAID_MAX:
                self.rows.clear()
            self.rows[chosen] = hit
        return hit

    def of(self, chosen: tuple[int, ...]) -> _Answer:
        hit = self.answers.get(chosen)
        if hit is None:
            hit = _answer_of(self.cu, self.signals, self.others, chosen)
            if len(self.answers) >= _SAID_MAX:
                self.kept.refund(len(self.answers) * _ANSWER_BYTES)
                self.answers.clear()
            self.kept.charge(_ANSWER_BYTES + _STRING_BYTES * len(chosen))
            self.answers[chosen] = hit
        return hit


_Answer = tuple[dict[str, "bool | None"], tuple[int, ...], tuple["Statement", ...]]


_TRI: Final = {True: 1, False: 0, None: -1}

def _preferences() -> ModuleType:
    """:mod:`robotrules.aipref.usage`, the facade's one door to AI usage preferences (``usage``,
    ``explain_detail``, ``answer``, ``preference_parts``, ``usage_patterns``, ``Usage``,
    ``vocabulary_of``), imported on first call: they load ``http_sf``, ``json`` and the model,
    which ``import robotrules`` does not pay for (import cost: robotrules._later). Read from
    ``sys.modules``: the package re-exports the function ``usage`` under the module's name."""
    from .aipref import usage as _  # noqa: F401 - imports the package and its usage module

    return sys.modules[_PREFERENCES]


_PREFERENCES: Final = f"{__package__}.aipref.usage"

# fast constructors of Verdict and Usage (robotrules._native.Maker: no Python frame), made on
# first use (the model is not imported by a parse); the classes themselves on the pure core
_VERDICT: Callable[..., Verdict] | None = None
# the order _VERDICT takes a Verdict's fields in: a selection's facts of a key (the first
# seven, _Facts), then the query's own
_VERDICT_ORDER: Final = ("allowed", "line", "rule", "agents", "reason", "dialect", "detail",
                         "user_agent", "path")
_USAGE: Callable[..., Usage] | None = None
_DECISIONS: Callable[..., Decisions] | None = None


def _makers() -> tuple[Callable[..., Verdict], Callable[..., Usage], Callable[..., Decisions]]:
    global _VERDICT, _USAGE, _DECISIONS
    _VERDICT = fast_constructor(_later.resolve(globals(), "Verdict"), _VERDICT_ORDER)
    _USAGE = fast_constructor(_preferences().Usage)
    _DECISIONS = fast_constructor(_later.resolve(globals(), "Decisions"))
    return _VERDICT, _USAGE, _DECISIONS


def usage_keys(vocabulary: str = "vocab-07") -> tuple[str, ...]:
    """The columns of :meth:`RobotsTxt.usage_many`: ``crawl``, then every category a usage
    answer has under ``vocabulary`` (``Vocabulary.usage_keys`` of
    :mod:`robotrules.aipref.vocabulary`, their one home)."""
    return ("crawl", *_preferences().vocabulary_of(vocabulary).usage_keys)


# a ':' followed by nothing but white space up to the end of its line, a comment or a NUL
# (robotrules._tokenize: a value is empty only there, as a line without a colon is read only
# with a word after its key); the line ends any line splitter might take are all there
_MAYBE_EMPTY: Final = re.compile(
    b":[" + re.escape(_tokenize.WHITESPACE.replace("\r", "").replace("\n", "").encode())
    + b"]*(?:[#\\n\\r\\x00\\x1c\\x1d\\x1e\\x85]|\\Z)")

# Decisions.reason: the index of each reason in robotrules._model.REASONS (the facade does
# not import the model to answer; tests/core/test_decide_many.py checks they agree)
_REASON_INDEX: Final = {"rule": 0, "no-matching-rule": 1, "no-group": 2, "robots-txt": 3}


def _check_urls(urls: Sequence[str], user_agent: str) -> None:
    """The batch APIs' arguments: a sequence (not one ``str``: robotrules._pure.urls_arg,
    the peers' check) and a ``str`` (each URL is checked where it is read: the peer's
    ``decide_urls``)."""
    if type(urls) is not list and type(urls) is not tuple:
        urls_arg(urls)
    if not isinstance(user_agent, str):
        raise TypeError(f"user_agent must be str, not {type(user_agent).__name__}")


def _restore(body: bytes, dialect: Dialect, url: str | None, size: int, pure: bool
             ) -> RobotsTxt:
    rules = (PureRobotsTxt if pure else _FACADE[peer_for(body, dialect)])(body, dialect, url)
    rules.size = size
    return rules


def reference(body: bytes | bytearray | memoryview | str, dialect: Dialect = "rfc9309", *,
              url: str | None = None) -> RobotsTxt:
    """:func:`parse` on the pure peer, whatever the build: the reference the native peer is
    tested (and benchmarked) against."""
    spec(dialect)
    return PureRobotsTxt(_tokenize.to_bytes(body), dialect, url)


def parse(
    body: bytes | bytearray | memoryview | str,
    dialect: Dialect = "rfc9309",
    *,
    url: str | None = None,
    keep_text: bool = True,
) -> RobotsTxt:
    """Parse a robots.txt body (bytes or text) into an immutable :class:`RobotsTxt`.

    Never raises on content: every line is read as the dialect reads it, and every oddity
    becomes a finding on its line (:attr:`RobotsTxt.findings`). ``dialect`` is one of
    ``"rfc9309"`` (default, RFC 9309), ``"google"`` (Google's parser) or ``"1994"`` (the
    original standard); ``url``, where the file came from, resolves relative sitemap URLs.
    The result answers ``is_allowed``, ``explain``, ``usage`` and the batch ``decide_many``
    for any user agent; it is immutable and thread-safe. A ``str`` body is read as its UTF-8
    bytes. ``ValueError`` for an unknown dialect.
    With ``keep_text=False`` the native peer keeps only what the verdicts read
    (``is_allowed``, ``path_key``, ``url_key_path``: the agent and rule values, about a fifth of
    a file), not the body: a cache of parsed files whose bodies are dropped holds no copy of
    them, and every answer that reads the text (groups, records, findings, explanations,
    pickling) raises ``ValueError``. The pure peer keeps its text either way.
    """
    if dialect not in SPECS:
        spec(dialect)  # ValueError naming the dialects
    data = body if type(body) is bytes else _tokenize.to_bytes(body)
    facade = _FACADE[peer_for(data, dialect)]
    if keep_text or facade is PureRobotsTxt:
        return facade(data, dialect, url)
    return NativeRobotsTxt(data, dialect, url, False)
