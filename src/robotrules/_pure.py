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
from typing import TYPE_CHECKING, Any, Final, TypeVar

from . import _token, _tokenize
from ._compile import compile_groups, scan_groups, select
from ._dialects import SPECS
from ._index import GroupIndex
from ._index import build as build_index
from ._match import ALLOW_BIT, Matcher, Pattern
from ._patterns import PathSet

if TYPE_CHECKING:
    from ._peer import FactMemo, Packed, UsagePaths
    from ._types import Dialect

__all__ = ["PureFactMemo", "PurePeer", "str_arg", "urls_arg"]

_AGENT_MEMO: Final = 256
_D = TypeVar("_D")
# the rules the compiled matchers of one file may hold together: this, plus this many per rule
# of the file (as the native peer's budget, _kernel/doc.pxi)
_BUDGET_MIN: Final = 1 << 16
_BUDGET_PER_RULE: Final = 4
# a compiled matcher and the group indices it was compiled from
_Compiled = tuple[Matcher, tuple[int, ...]]
# a selection whose groups hold this many lines or more answers its first query by reading its
# rules (scan_groups) and compiles on its second, as the native peer's (Doc._scan): a file
# asked once for an agent pays no compile
_SCAN_MIN: Final = 256


def str_arg(value: object, name: str) -> str:
    """A query's text argument as an exact ``str`` (a subclass's text), or TypeError."""
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError(f"{name} must be str, not {type(value).__name__}")


class PurePeer:
    """A robots.txt read by the pure-Python core (:class:`robotrules._peer.Peer`)."""

    __slots__ = ("_bom", "_budget", "_dirs", "_index", "_live", "_matcher_of_agent",
                 "_matcher_of_selection", "_odd", "_scanned", "_text", "base_url", "dialect",
                 "evictions", "size")

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
        the first query of a selection of _SCAN_MIN lines or more, a reading of its rules."""
        agents = self._matcher_of_agent
        hit = agents.get(user_agent)
        if hit is not None:
            return hit[0].best
        idx = self.group_index
        selection, groups = select(idx, _token.query_key(user_agent), self.dialect)
        if selection not in self._matcher_of_selection:
            starts = idx.starts
            if sum(starts[g + 1] - starts[g] for g in groups) >= _SCAN_MIN:
                scanned: set[str] | None = getattr(self, "_scanned", None)
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

    def known_verdict(self, url: str, user_agent: str, sels: dict[str, Any] | None,
                      make: Callable[..., Any] | None, words: object) -> Any:
        return None  # the facade builds it (robotrules._robots: explain)

    def known_usage(self, url: str, user_agent: str, sels: dict[str, Any] | None, uses: Any,
                    vmake: Callable[..., Any] | None, umake: Callable[..., Any] | None,
                    words: object,
                    scope: str, vocabulary: str) -> Any:
        return None  # the facade builds it (robotrules._robots: usage)

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

    @staticmethod
    def fact_memo(bound: int) -> FactMemo:
        return PureFactMemo(bound)

    def decide_urls(self, urls: Sequence[str], user_agent: str, memo: FactMemo,
                    fact: Callable[[Any, int], Packed], make: Callable[..., _D],
                    paths: list[str] | None = None) -> _D:
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        if not isinstance(memo, PureFactMemo):
            raise TypeError("decide_urls needs a FactMemo (PurePeer.fact_memo)")
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
        packed: dict[int, Packed] = {}
        for key in sorted(set(keys)):  # the rules numbered in the order of the sorted keys
            hit = memo.get(key)
            if hit is None:
                hit = _checked(fact(self, key))
                memo.put(key, hit)
            packed[key] = hit
        index: dict[int, int] = {}  # by the rule's identity
        at = {key: -1 if p[2] is None else index.setdefault(id(p[2]), len(index))
              for key, p in packed.items()}
        rules = tuple({id(p[2]): p[2] for p in packed.values() if p[2] is not None}.values())
        return make(array("B", [packed[k][0] for k in keys]),
                    array("q", [packed[k][1] for k in keys]), array("q", [at[k] for k in keys]),
                    array("B", [packed[k][3] for k in keys]), rules, user_agent)


def urls_arg(urls: object) -> list[str]:
    """The batch APIs' URLs (a sequence, not one ``str`` or bytes) as a list, or TypeError
    (each URL is checked where it is read)."""
    if isinstance(urls, (str, bytes, bytearray, memoryview)) or not isinstance(urls, Sequence):
        raise TypeError(f"urls must be a sequence of str, not {type(urls).__name__}")
    return list(urls)


def _checked(packed: object) -> Packed:
    """``packed`` as the native peer checks it (batch.pxi: read_packed)."""
    if type(packed) is not tuple or len(packed) != 4:
        raise TypeError("the facts of a key are (allowed, line, rule, reason)")
    allowed, line, rule, reason = packed
    if line < 0 or not 0 <= reason <= 255:
        raise ValueError(f"facts out of range: line {line}, reason {reason}")
    return bool(allowed), line, rule, reason


class PureFactMemo:
    """The packed facts of one agent's verdicts per deciding key, at most ``bound`` keys
    (past it every one is dropped before the next is kept), as the native peer's FactMemo
    (_kernel/batch.pxi) keeps them."""

    __slots__ = ("bound", "kept")

    def __init__(self, bound: int) -> None:
        if bound < 1:
            raise ValueError("a FactMemo keeps at least one key")
        self.bound = bound
        self.kept: dict[int, Packed] = {}

    def __len__(self) -> int:
        return len(self.kept)

    def get(self, key: int) -> Packed | None:
        return self.kept.get(key)

    def put(self, key: int, packed: Packed) -> None:
        if len(self.kept) >= self.bound:
            self.kept.clear()
        self.kept.setdefault(key, packed)
