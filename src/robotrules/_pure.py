"""The pure-Python peer: one robots.txt read and matched in Python (the reference).

:class:`PurePeer` has the surface :class:`robotrules._peer.Peer` declares, as the native peer
(:class:`robotrules._native.Doc`) has it: the selector (:mod:`robotrules._peers`) gives it the
files the kernel does not read (the 1994 dialect, bodies past the kernel's cap, every file
where the kernel is not built or ``ROBOTRULES_PURE=1``), and :func:`robotrules._robots.reference`
every file it is asked about. It keeps the text and the packed directive stream
(:mod:`robotrules._tokenize`); on first use the group index (:mod:`robotrules._index`); per
group selection a compiled matcher (:mod:`robotrules._compile`, :mod:`robotrules._match`),
all of them together bounded by a budget per file.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from . import _token, _tokenize
from ._compile import (
    compile_groups,
    scan_groups,
    scan_spans,
    select,
    selection_spans,
)
from ._dialects import SPECS
from ._index import TAG_ALLOW, TAG_DISALLOW, GroupIndex
from ._index import build as build_index
from ._match import ALLOW_BIT, INDEX_MASK, NO_MATCH, Matcher, Pattern
from ._patterns import PathSet
from ._peer import AGENTS_KEPT
from ._tables import REASON_INVALID_TEXT

if TYPE_CHECKING:
    from ._model import Verdict
    from ._peer import Columns, Peer, UsageMemo, UsagePaths, VerdictMemo
    from ._types import Dialect

__all__ = ["PurePeer", "PureUsageMemo", "PureVerdictMemo",
           "decide_strings", "str_arg", "urls_arg"]

_U = TypeVar("_U")
_M = TypeVar("_M")

_AGENT_MEMO: Final = 256
# Decisions.reason: indices into robotrules._model.REASONS (the kernel's batch.pxi has the
# same; tests/core/test_decide_many.py checks both against REASONS)
_REASON_RULE: Final = 0
_REASON_ROBOTS_TXT: Final = 3
_REASON_MAX: Final = 255
# the rules the compiled matchers of one file may hold together: this, plus this many per rule
# of the file (as the native peer's budget, _kernel/doc.pxi)
_BUDGET_MIN: Final = 1 << 16
_BUDGET_PER_RULE: Final = 4
# a compiled matcher and the group indices it was compiled from
_Compiled = tuple[Matcher, tuple[int, ...]]
# a selection whose groups hold this many lines or more answers its first query by reading its
# rules (scan_groups) and compiles on its second: a file asked once for an agent pays no
# compile (the native peer reads a selection for its first SCAN_TIMES queries: Doc._scan,
# whose reading costs far less against its compile than a Python one does)
_SCAN_MIN: Final = 256


def str_arg(value: object, name: str) -> str:
    """A query's text argument as an exact ``str`` (a subclass's text), or TypeError."""
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError(f"{name} must be str, not {type(value).__name__}")


class PurePeer:
    """A robots.txt read by the pure-Python core (:class:`robotrules._peer.Peer`)."""

    __slots__ = ("_bom", "_budget", "_dirs", "_index", "_live", "_matcher_of_agent",
                 "_matcher_of_selection", "_memos", "_odd", "_scanned", "_text", "base_url",
                 "dialect", "evictions", "size")

    def __init__(self, body: bytes, dialect: Dialect, base_url: str | None) -> None:
        self.dialect: Dialect = dialect
        self.size = len(body)
        self.base_url = base_url
        self.evictions = 0
        text, self._bom = _tokenize.to_text(body)
        self._text = text
        odd: list[int] = []
        self._dirs = _tokenize.tokenize(text, dialect, odd=odd)
        self._odd = array("I", odd)
        # two memos that no key of one can reach in the other: the compiled matcher per group
        # selection (its selection key) and, for at most _AGENT_MEMO agent strings, the same
        # entry per agent string as the caller wrote it
        self._matcher_of_selection: dict[str, _Compiled] = {}
        self._matcher_of_agent: dict[str, _Compiled] = {}
        self._live = 0  # what the compiled matchers hold against the budget (in rules)
        # made on first use, read with getattr(self, name, None): the index, the budget, the
        # selections whose first query was answered by reading their rules (_best_for)

    def source(self) -> bytes:
        """The body again (from the text: the line ends read as LF, the same answers)."""
        return _tokenize.BOM[: self._bom] + self._text.encode("latin-1")

    # -- the reading -------------------------------------------------------------------------

    @property
    def latin1_text(self) -> str:
        return self._text

    @property
    def bom_length(self) -> int:
        return self._bom

    @property
    def directives(self) -> array[int]:
        return self._dirs

    @property
    def noted_lines(self) -> array[int]:
        return self._odd

    @property
    def directive_count(self) -> int:
        return len(self._dirs) // 3

    @property
    def group_index(self) -> GroupIndex:
        idx: GroupIndex | None = getattr(self, "_index", None)
        if idx is None:
            idx = self._index = build_index(self._text, self._dirs, self.dialect,
                                            self.base_url, None)
        return idx

    # -- matching ----------------------------------------------------------------------------

    def _matcher(self, key: str) -> _Compiled:
        """The compiled matcher and group indices for a query key (made on first use)."""
        idx = self.group_index
        return self._compiled(idx, *select(idx, key, self.dialect))

    def _compiled(self, idx: GroupIndex, selection: str, groups: tuple[int, ...]) -> _Compiled:
        """The compiled matcher of a selection (made on first use)."""
        compiled = self._matcher_of_selection
        hit = compiled.get(selection)
        if hit is None:
            m = compile_groups(idx, groups, self._text, self._dirs, self.dialect)
            # what the matchers keep stays bounded whatever number of agents ask (as the
            # native peer's budget, docs/architecture.md): past it the others are dropped
            cost = idx.rule_count(groups)
            live = self._live + cost
            budget: int | None = getattr(self, "_budget", None)
            if budget is None:
                budget = self._budget = _BUDGET_MIN + _BUDGET_PER_RULE * idx.rule_count(
                    range(idx.count))
            if live > budget:
                compiled.clear()
                self._matcher_of_agent.clear()
                live = cost
                self.evictions += 1
            self._live = live
            hit = compiled.setdefault(selection, (m, groups))
        return hit

    def _for_agent(self, user_agent: str) -> _Compiled:
        """Matcher and groups for a query's user agent, memoised per agent string.

        The memo per agent string is apart from the memo per selection (no agent string can
        read a selection's entry) and holds at most ``_AGENT_MEMO`` agent strings: bounded
        whatever callers pass.
        """
        agents = self._matcher_of_agent
        hit = agents.get(user_agent)
        if hit is None:
            hit = self._matcher(_token.query_key(user_agent))
            if len(agents) >= _AGENT_MEMO:
                agents.clear()
            agents[user_agent] = hit
        return hit

    def _best_for(self, user_agent: str) -> Callable[[str], int]:
        """What gives a path's key for ``user_agent``: its compiled matcher's ``best``, or, on
        the first query of a selection of _SCAN_MIN lines or more, a reading of its rules (on
        the file's first query, found without building the group index:
        ``_compile.selection_spans``)."""
        agents = self._matcher_of_agent
        hit = agents.get(user_agent)
        if hit is not None:
            return hit[0].best
        key = _token.query_key(user_agent)
        if getattr(self, "_index", None) is None and len(self._dirs) >= 3 * _SCAN_MIN:
            # a large file's first query: its selection's rules found without the index
            # (what the index costs is paid by the second query, or never)
            found = selection_spans(self._text, self._dirs, self.dialect, key)
            scanned: set[str] | None = getattr(self, "_scanned", None)
            if found is not None and (scanned is None or found[0] not in scanned):
                selection, spans, tags = found
                if sum(tags.count(TAG_ALLOW, first, end) + tags.count(TAG_DISALLOW, first, end)
                       for first, end in spans) >= _SCAN_MIN:
                    if scanned is None:
                        scanned = self._scanned = set()
                    scanned.add(selection)
                    text, dirs, dialect = self._text, self._dirs, self.dialect
                    return lambda path: scan_spans(spans, tags, dirs, text, dialect, path)
        idx = self.group_index
        selection, groups = select(idx, key, self.dialect)
        if selection not in self._matcher_of_selection:
            starts = idx.starts
            if sum(starts[g + 1] - starts[g] for g in groups) >= _SCAN_MIN:
                scanned = getattr(self, "_scanned", None)
                if scanned is None:
                    scanned = set()
                    self._scanned = scanned
                if selection not in scanned:
                    scanned.add(selection)
                    text, dirs, dialect = self._text, self._dirs, self.dialect
                    return lambda path: scan_groups(idx, groups, text, dirs, dialect, path)
        hit = self._compiled(idx, selection, groups)
        if len(agents) >= _AGENT_MEMO:
            agents.clear()
        agents[user_agent] = hit
        return hit[0].best

    def is_allowed(self, url: str, *, user_agent: str = "*") -> bool:
        """May ``user_agent`` fetch ``url``? ``url`` is absolute or a path[?query]."""
        # NO_MATCH and -1 (RFC 9309's /robots.txt) have the bit: allowed
        return self.url_key_path(url, user_agent)[0] & ALLOW_BIT != 0

    def path_key(self, path: str, user_agent: str) -> int:
        if type(path) is not str:
            path = str_arg(path, "path")
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        return self._best_for(user_agent)(path)

    def url_key_path(self, url: str, user_agent: str) -> tuple[int, str]:
        if type(url) is not str:
            url = str_arg(url, "url")
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        return self._key_path(url, self._best_for(user_agent))

    def _key_path(self, url: str, best: Callable[[str], int]) -> tuple[int, str]:
        """``url``'s key (by ``best``, the agent's matcher; -1 for RFC 9309's /robots.txt)
        and its path as the dialect's spec reads it."""
        sp = SPECS[self.dialect]
        path = sp.path(url)
        if sp.implicitly_allowed(path):
            return -1, path
        return best(path), path

    @staticmethod
    def verdict_memo(make: Callable[..., Verdict], bound: int) -> VerdictMemo:
        return PureVerdictMemo(make, bound)

    def _agent_memos(self) -> _AgentMemos:
        memos: _AgentMemos | None = getattr(self, "_memos", None)
        if memos is None:
            memos = self._memos = _AgentMemos()
        return memos

    def keep_verdicts(self, user_agent: str, memo: VerdictMemo) -> None:
        if not isinstance(memo, PureVerdictMemo):
            raise TypeError("keep_verdicts needs a VerdictMemo (PurePeer.verdict_memo)")
        _bind(self._agent_memos().verdicts, str_arg(user_agent, "user_agent"), memo)

    def known_verdict(self, url: str, user_agent: str) -> Verdict | None:
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        memos: _AgentMemos | None = getattr(self, "_memos", None)
        memo = None if memos is None else memos.verdicts.get(user_agent)
        if memo is None:
            if type(url) is not str:
                str_arg(url, "url")
            return None
        key, path = self.url_key_path(url, user_agent)
        facts = memo.facts.get(key)
        return None if facts is None else memo.make(*facts, user_agent, path)

    @staticmethod
    def usage_memo(verdicts: VerdictMemo, paths: UsagePaths | None, make: Callable[..., _U],
                   scope: str, vocabulary: str, bound: int) -> UsageMemo[_U]:
        if not isinstance(verdicts, PureVerdictMemo):
            raise TypeError("usage_memo needs a VerdictMemo (PurePeer.verdict_memo)")
        return PureUsageMemo(verdicts, paths, make, scope, vocabulary, bound)

    def keep_usages(self, user_agent: str, memo: UsageMemo[_U]) -> None:
        if not isinstance(memo, PureUsageMemo):
            raise TypeError("keep_usages needs a UsageMemo (PurePeer.usage_memo)")
        _bind(self._agent_memos().usages, str_arg(user_agent, "user_agent"), memo)

    def known_usage(self, url: str, user_agent: str, scope: str, vocabulary: str) -> Any:
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        memos: _AgentMemos | None = getattr(self, "_memos", None)
        memo = None if memos is None else memos.usages.get(user_agent)
        if memo is None or memo.scope != scope or memo.vocabulary != vocabulary:
            if type(url) is not str:
                str_arg(url, "url")
            return None
        key, path = self.url_key_path(url, user_agent)
        verdicts = memo.verdicts
        facts = verdicts.facts.get(key)
        if facts is None:
            return None
        if not facts[0]:  # (no preference attaches to a URL that may not be fetched)
            cats: dict[str, bool | None] = {}
            lines: tuple[int, ...] = ()
            stmts: tuple[object, ...] = ()
        else:
            answer = memo.answers.get(() if memo.paths is None else memo.paths.deciding(path))
            if answer is None:
                return None
            cats, lines, stmts = dict(answer[0]), answer[1], answer[2]
        made: object = memo.make(bool(facts[0]), cats, lines, stmts, user_agent, path, memo.scope,
                             verdicts.make(*facts, user_agent, path), memo.vocabulary)
        return made

    def usage_paths(self, patterns: Sequence[Pattern | None]) -> UsagePaths:
        return PathSet(patterns)

    def selected_groups(self, user_agent: str) -> tuple[int, ...]:
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        return self._for_agent(user_agent)[1]

    # -- the batch API ------------------------------------------------------------------------

    @staticmethod
    def gather(classes: array[int], table: array[int]) -> array[int]:
        return array("b", [-1 if c < 0 else table[c] for c in classes])

    def decide_urls(self, urls: Sequence[str], user_agent: str, no_match: tuple[int, int],
                    paths: list[str] | None = None) -> Columns:
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        no_rule, no_reason = no_match
        if not -1 <= no_rule <= INDEX_MASK or not 0 <= no_reason <= _REASON_MAX:
            raise ValueError(f"no_match out of range: {no_match!r}")
        if type(urls) is not list and type(urls) is not tuple:
            urls = urls_arg(urls)
        best = self._for_agent(user_agent)[0].best
        keys = []
        for url in urls:
            if type(url) is not str:
                url = str_arg(url, "url")
            key, path = self._key_path(url, best)
            if paths is not None:
                paths.append(path)
            keys.append(key)
        facts = {key: self._key_facts(key, no_rule, no_reason) for key in sorted(set(keys))}
        index: dict[int, int] = {}  # each rule once, numbered in the order of the sorted keys
        for _, _, rule, _ in facts.values():
            if rule >= 0:
                index.setdefault(rule, len(index))
        at = {key: index.get(f[2], -1) for key, f in facts.items()}
        return (array("B", [facts[k][0] for k in keys]), array("q", [facts[k][1] for k in keys]),
                array("q", [at[k] for k in keys]), array("B", [facts[k][3] for k in keys]),
                tuple(index))

    def _key_facts(self, key: int, no_rule: int, no_reason: int) -> tuple[int, int, int, int]:
        """``(allowed, line, rule, reason)`` of a deciding key, as the native peer finds them
        (batch.pxi: key_facts): a rule's key names its directive and the allow bit."""
        if key == -1:
            allowed, rule, reason = 1, -1, _REASON_ROBOTS_TXT
        elif key == NO_MATCH:
            allowed, rule, reason = 1, no_rule, no_reason
        else:
            allowed, rule, reason = int(key & ALLOW_BIT != 0), key & INDEX_MASK, _REASON_RULE
        line = 0 if rule < 0 else self.directives[3 * rule] & _tokenize.LINE_MASK
        return allowed, line, rule, reason


def urls_arg(urls: object) -> list[str]:
    """The batch APIs' URLs (a sequence, not one ``str`` or bytes) as a list, or TypeError
    (each URL is checked where it is read)."""
    if isinstance(urls, (str, bytes, bytearray, memoryview)) or not isinstance(urls, Sequence):
        raise TypeError(f"urls must be a sequence of str, not {type(urls).__name__}")
    return list(urls)




def _items(obj: object, widths: tuple[int, ...], name: str, writable: bool = False
           ) -> memoryview:
    """``obj`` (a C-contiguous buffer of items of one of ``widths`` bytes) as a flat memoryview
    of native integers of that width, unsigned for one byte; ValueError otherwise."""
    view = memoryview(obj)  # type: ignore[arg-type]
    if not view.c_contiguous or view.itemsize not in widths or (writable and view.readonly):
        raise ValueError(f"decide_strings: {name} is not a C-contiguous "
                         f"{'writable ' if writable else ''}buffer of "
                         f"{' or '.join(map(str, widths))}-byte items")
    flat = view.cast("B")
    return flat if view.itemsize == 1 else flat.cast("i" if view.itemsize == 4 else "q")


def decide_strings(peer: Peer, offsets: object, data: object, rows: object, user_agent: str,
                   no_match: tuple[int, int], out: tuple[object, object, object, object],
                   base: int) -> tuple[int, ...]:
    """The batch API on Arrow string buffers (the native peer's is ``_native.decide_strings``,
    with the same answers): for each row ``r`` of ``rows`` (int64 indices into the string
    array whose ``offsets``, int32 or int64 from its first string, and ``data`` are given),
    the facts of the URL ``data[offsets[r]:offsets[r + 1]]`` for ``user_agent`` written at
    ``r`` of ``out`` (``allowed``, ``line``, ``rule``, ``reason``: uint8, int32, int32,
    uint8, each at least as long as the array): :meth:`Peer.decide_urls`' entry, the rule
    numbered from ``base``; a URL whose bytes are not UTF-8 gets 0, 0, -1 and
    :data:`REASON_INVALID_TEXT`. Returns the directive index of each rule numbered.
    ValueError for rows or offsets out of range, offsets not monotone, or columns of the
    wrong width or too short."""
    if len(out) != 4:
        raise ValueError("decide_strings: out is (allowed, line, rule, reason)")
    if base < 0:
        raise ValueError(f"decide_strings: base {base} is negative")
    offs = _items(offsets, (4, 8), "offsets")
    text = _items(data, (1,), "data")
    at = _items(rows, (8,), "rows")
    cols = [_items(c, (w,), name, True) for c, w, name in
            zip(out, (1, 4, 4, 1), ("allowed", "line", "rule", "reason"), strict=True)]
    strings = len(offs) - 1
    if strings < 0:
        raise ValueError("decide_strings: offsets is empty (it holds one more entry than the "
                         "array's strings)")
    need = max(at, default=-1) + 1
    for c in cols:
        if len(c) < need:
            raise ValueError(f"decide_strings: a column holds {len(c)} entries, the rows need "
                             f"{need}")
    urls: list[str] = []
    valid: list[int] = []
    for i, r in enumerate(at):
        if not 0 <= r < strings:
            raise ValueError(f"decide_strings: row {r} is not a string of the array "
                             f"({strings} strings)")
        lo, hi = offs[r], offs[r + 1]
        if lo < 0 or lo > hi or hi > len(text):
            raise ValueError(f"decide_strings: the offsets of row {r} ({lo}, {hi}) are out "
                             f"of range or not monotone (data of {len(text)} bytes)")
        try:
            urls.append(str(text[lo:hi], "utf-8"))
        except UnicodeDecodeError:
            for c, v in zip(cols, (0, 0, -1, REASON_INVALID_TEXT), strict=True):
                c[r] = v
            continue
        valid.append(i)
    allowed, line, rule, reason, rules = peer.decide_urls(urls, user_agent, no_match)
    if base + len(rules) > 0x7FFFFFFF:
        raise ValueError(f"decide_strings: rule numbers from {base} pass int32")
    for j, i in enumerate(valid):
        r = at[i]
        cols[0][r], cols[1][r], cols[3][r] = allowed[j], line[j], reason[j]
        cols[2][r] = -1 if rule[j] < 0 else base + rule[j]
    return rules


class _AgentMemos:
    """Which memos answer which user agent, as the native peer's AgentMemos
    (_kernel/facts.pxi) keeps them: per agent string, its selection's verdict memo and the
    usage memo it was last given, at most ``AGENTS_KEPT`` of each."""

    __slots__ = ("usages", "verdicts")

    def __init__(self) -> None:
        self.verdicts: dict[str, PureVerdictMemo] = {}
        self.usages: dict[str, PureUsageMemo[Any]] = {}


def _bind(memos: dict[str, _M], user_agent: str, memo: _M) -> None:
    """Keep ``memo`` for ``user_agent`` (past ``AGENTS_KEPT`` agents, every one is dropped
    before the next is kept)."""
    if len(memos) >= AGENTS_KEPT:
        memos.clear()
    memos[user_agent] = memo


class PureVerdictMemo:
    """One selection's verdict facts per deciding key, as the native peer's VerdictMemo
    (_kernel/facts.pxi) keeps them: the first seven values ``make`` takes, at most ``bound``
    keys (past it every one is dropped before the next is kept)."""

    __slots__ = ("bound", "facts", "make")

    def __init__(self, make: Callable[..., Verdict], bound: int) -> None:
        if bound < 1:
            raise ValueError("a VerdictMemo keeps at least one key")
        self.make = make
        self.bound = bound
        self.facts: dict[int, tuple[object, ...]] = {}

    def __len__(self) -> int:
        return len(self.facts)

    def keep(self, key: int, facts: tuple[object, ...]) -> None:
        if type(facts) is not tuple or len(facts) != 7:
            raise ValueError("the facts of a key are seven values")
        if len(self.facts) >= self.bound:
            self.facts.clear()
        self.facts[key] = facts

    def clear(self) -> None:
        self.facts.clear()


_UsageAnswer = tuple[dict[str, "bool | None"], tuple[int, ...], tuple[object, ...]]


class PureUsageMemo(Generic[_U]):
    """One selection's usage answers, as the native peer's UsageMemo (_kernel/facts.pxi)
    keeps them: over the selection's verdict memo and Content-Usage matcher, the answer
    ``(categories, lines, statements)`` per set of deciding rules, at most ``bound`` (past
    it every one is dropped before the next is kept)."""

    __slots__ = ("answers", "bound", "make", "paths", "scope", "verdicts", "vocabulary")

    def __init__(self, verdicts: PureVerdictMemo, paths: UsagePaths | None,
                 make: Callable[..., _U], scope: str, vocabulary: str, bound: int) -> None:
        if bound < 1:
            raise ValueError("a UsageMemo keeps at least one answer")
        self.verdicts = verdicts
        self.paths = paths
        self.make = make
        self.scope = scope
        self.vocabulary = vocabulary
        self.bound = bound
        self.answers: dict[tuple[int, ...], _UsageAnswer] = {}

    def __len__(self) -> int:
        return len(self.answers)

    def keep(self, chosen: tuple[int, ...], answer: _UsageAnswer) -> None:
        if (type(answer) is not tuple or len(answer) != 3 or type(answer[0]) is not dict
                or type(answer[1]) is not tuple or type(answer[2]) is not tuple):
            raise ValueError("an answer is a dict and two tuples")
        if len(self.answers) >= self.bound:
            self.answers.clear()
        self.answers[chosen] = answer

    def clear(self) -> None:
        self.answers.clear()
