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
from typing import TYPE_CHECKING, Any, Final

from . import _token, _tokenize
from ._compile import compile_groups, select
from ._dialects import SPECS
from ._index import GroupIndex
from ._index import build as build_index
from ._match import ALLOW_BIT, Matcher, Pattern
from ._patterns import PathSet

if TYPE_CHECKING:
    from ._peer import UsagePaths
    from ._types import Dialect

__all__ = ["PurePeer", "str_arg"]

_AGENT_MEMO: Final = 256
# the rules the compiled matchers of one file may hold together: this, plus this many per rule
# of the file (as the native peer's budget, _kernel/doc.pxi)
_BUDGET_MIN: Final = 1 << 16
_BUDGET_PER_RULE: Final = 4
# matchers per group selection ("\0" + key) and per agent string
_Compiled = dict[str, tuple[Matcher, tuple[int, ...]]]


def str_arg(value: object, name: str) -> str:
    """A query's text argument as an exact ``str`` (a subclass's text), or TypeError."""
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError(f"{name} must be str, not {type(value).__name__}")


class PurePeer:
    """A robots.txt read by the pure-Python core (:class:`robotrules._peer.Peer`)."""

    __slots__ = ("_bom", "_budget", "_compiled", "_dirs", "_index", "_live", "_odd", "_text",
                 "base_url", "dialect", "evictions", "size")

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
        # made on first use, read with getattr(self, name, None): the index, the matchers
        # and what they cost against the budget

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

    def _matcher(self, key: str) -> tuple[Matcher, tuple[int, ...]]:
        """The compiled matcher and group indices for a query key."""
        idx = self.group_index
        ck, groups = select(idx, key, self.dialect)
        compiled: _Compiled | None = getattr(self, "_compiled", None)
        if compiled is None:
            compiled = {}
            self._compiled = compiled
        hit = compiled.get("\0" + ck)
        if hit is None:
            m = compile_groups(idx, groups, self._text, self._dirs, self.dialect)
            # what the matchers keep stays bounded whatever number of agents ask (as the
            # native peer's budget, docs/architecture.md): past it the others are dropped
            cost = idx.rule_count(groups)
            live: int = getattr(self, "_live", 0) + cost
            budget: int | None = getattr(self, "_budget", None)
            if budget is None:
                budget = self._budget = _BUDGET_MIN + _BUDGET_PER_RULE * idx.rule_count(
                    range(idx.count))
            if live > budget:
                compiled.clear()
                live = cost
                self.evictions += 1
            self._live = live
            hit = compiled.setdefault("\0" + ck, (m, groups))
        return hit

    def _for_agent(self, user_agent: str) -> tuple[Matcher, tuple[int, ...]]:
        """Matcher and groups for a query's user agent, memoised per agent string.

        The memo holds one entry per group selection ("\\0"-prefixed keys) plus at most
        ``_AGENT_MEMO`` agent strings: bounded whatever callers pass.
        """
        compiled: _Compiled | None = getattr(self, "_compiled", None)
        if compiled is not None:
            hit = compiled.get(user_agent)
            if hit is not None:
                return hit
        hit = self._matcher(_token.query_key(user_agent))
        compiled = getattr(self, "_compiled", None)
        if compiled is not None and len(compiled) < _AGENT_MEMO:
            compiled[user_agent] = hit
        return hit

    def is_allowed(self, url: str, *, user_agent: str = "*") -> bool:
        """May ``user_agent`` fetch ``url``? ``url`` is absolute or a path[?query]."""
        # NO_MATCH and -1 (RFC 9309's /robots.txt) have the bit: allowed
        return self.url_key_path(url, user_agent)[0] & ALLOW_BIT != 0

    def path_key(self, path: str, user_agent: str) -> int:
        if type(path) is not str:
            path = str_arg(path, "path")
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        return self._for_agent(user_agent)[0].best(path)

    def url_keys(self, urls: Sequence[str], user_agent: str, paths: list[str] | None = None
                 ) -> array[int]:
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        sp = SPECS[self.dialect]
        best = self._for_agent(user_agent)[0].best
        robots = sp.robots_txt_allowed
        out = array("q", bytes(8 * len(urls)))
        for i, url in enumerate(urls):
            if type(url) is not str:
                url = str_arg(url, "url")
            path = sp.path(url)
            if paths is not None:
                paths.append(path)
            out[i] = -1 if robots and path == "/robots.txt" else best(path)
        return out

    def url_key_path(self, url: str, user_agent: str) -> tuple[int, str]:
        if type(url) is not str:
            url = str_arg(url, "url")
        if type(user_agent) is not str:
            user_agent = str_arg(user_agent, "user_agent")
        sp = SPECS[self.dialect]
        path = sp.path(url)
        if sp.robots_txt_allowed and path == "/robots.txt":
            return -1, path
        return self._for_agent(user_agent)[0].best(path), path

    def known_verdict(self, url: str, user_agent: str, sels: dict[str, Any],
                      make: Callable[..., Any] | None, words: object) -> Any:
        return None  # the facade builds it (robotrules._robots: explain)

    def known_usage(self, url: str, user_agent: str, sels: dict[str, Any], uses: Any,
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

    # -- the batch API's loops -----------------------------------------------------------------

    @staticmethod
    def distinct_keys(keys: array[int]) -> array[int]:
        return array("q", sorted(set(keys)))

    @staticmethod
    def decide_columns(keys: array[int], facts: dict[int, Any], extra: dict[int, Any],
                       reasons: dict[str, int]) -> tuple[Any, ...]:
        table = PurePeer.distinct_keys(keys)
        missing = [k for k in table if k not in facts and k not in extra]
        if missing:
            return None, missing
        at: dict[int, int] = {}
        rules: list[Any] = []
        allowed, line, rule, reason = bytearray(), array("q"), array("q"), bytearray()
        for key in table:
            f = facts[key] if key in facts else extra[key]
            allowed.append(1 if f[0] else 0)
            line.append(f[1] or 0)
            r = f[2]
            if r is None:
                rule.append(-1)
            else:
                rule.append(at.setdefault(id(r), len(at)))
                if len(rules) < len(at):
                    rules.append(r)
            reason.append(reasons[f[4]])
        return (*PurePeer.fill_columns(keys, table, bytes(allowed), line, rule, bytes(reason)),
                tuple(rules))

    @staticmethod
    def gather(classes: array[int], table: array[int]) -> array[int]:
        return array("b", [-1 if c < 0 else table[c] for c in classes])

    @staticmethod
    def fill_columns(keys: array[int], table: array[int], allowed: bytes, line: array[int],
                     rule: array[int], reason: bytes
                     ) -> tuple[array[int], array[int], array[int], array[int]]:
        if not len(allowed) == len(line) == len(rule) == len(reason) == len(table):
            raise ValueError("one fact per table entry")
        at = {k: i for i, k in enumerate(table)}
        rows = [at[k] for k in keys]
        return (array("B", [allowed[r] for r in rows]), array("q", [line[r] for r in rows]),
                array("q", [rule[r] for r in rows]), array("B", [reason[r] for r in rows]))
