"""The contract between :class:`robotrules.RobotsTxt` and the two peers that read a file.

A parsed robots.txt is read by one of two peers with the same surface, declared here as
:class:`Peer`: the pure-Python one (:class:`robotrules._pure.PurePeer`, the reference) and the
native one (:class:`robotrules._native.Doc`, the Cython kernel: a second implementation of the
same reading, held equal to the pure one by ``tests/core/test_peers.py``, the differential
tests and ``tools/fuzz_native.py``). Which peer reads a file is chosen once, by
:func:`robotrules._peers.peer_for` (the selector); :class:`~robotrules.RobotsTxt` is the facade
that both peers' concrete classes share, and it builds verdicts, explanations, groups and
findings only through this surface (the models are yarl's ``_quoting_py``/``_quoting_c`` and
msgpack's ``fallback``/``_cmsgpack``).

The surface is internal: it is what the facade asks, not the API users call (that is
:class:`~robotrules.RobotsTxt`'s, documented in README.md and docs/). Keys are
:mod:`robotrules._match`'s: smaller is better, ``NO_MATCH`` when no rule matches, the allow
bit and the directive index inside; ``-1`` stands for RFC 9309's ``/robots.txt``.

Peers get plain values and give plain values: strings, ints, arrays, tuples of ints, and the
values of a verdict or a usage answer, which a peer keeps in its memos of a selection
(:meth:`Peer.verdict_memo`, :meth:`Peer.usage_memo`) and stores in the values it builds
without reading or calling them. The peer also keeps which memo answers which agent string
(:meth:`Peer.keep_verdicts`, :meth:`Peer.keep_usages`), so that a warm answer is one call
with the URL and the agent (:meth:`Peer.known_verdict`, :meth:`Peer.known_usage`). No method
takes the facade's caches or callbacks, and no peer calls back into the facade to answer (the
model is yarl's quoters). The facade keeps what it derives (rules, sentences, selections) and
builds the public values from what a peer gives.

Besides its methods, each peer has the batch API on Arrow string buffers as a function of the
peer (``decide_strings``: :func:`robotrules._pure.decide_strings` says what it takes and
gives; the native one is ``_native.decide_strings``, and :func:`robotrules._peers.decide_strings`
calls the one of the peer that read the file): the answers of :meth:`Peer.decide_urls` for
the URLs of a string array, read from its offsets and data, written into the caller's columns.

Threading: every method of a peer is thread-safe and a query mutates nothing a caller can
see; what a peer derives on first use (its compiled matchers, the agents it met last) it
keeps, bounded, and two threads that derive the same thing at once give the same answers.
A memo and the agent bindings are changed one dictionary operation at a time (atomic under
the GIL): a reader sees a key's facts, an agent's memo, or none (then the caller makes and
keeps them again, with the same values).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from ._index import GroupIndex
    from ._match import Pattern
    from ._model import Verdict
    from ._types import Dialect

__all__ = ["AGENTS_KEPT", "Columns", "Peer", "UsageMemo", "UsagePaths", "VerdictMemo"]

#: the agent strings a peer keeps a memo for (:meth:`Peer.keep_verdicts`,
#: :meth:`Peer.keep_usages`), each kind
AGENTS_KEPT = 256

_U = TypeVar("_U")
_U_co = TypeVar("_U_co", covariant=True)

#: what :meth:`Peer.decide_urls` gives: the columns of :class:`robotrules.Decisions`
#: (``allowed``, ``line``, ``rule``, ``reason``) and the directive index of each rule the
#: ``rule`` column numbers, in that order
Columns = tuple["array[int]", "array[int]", "array[int]", "array[int]", tuple[int, ...]]


class UsagePaths(Protocol):
    """The matcher of one agent's Content-Usage paths (:meth:`Peer.usage_paths`)."""

    def deciding(self, path: str) -> tuple[int, ...]:
        """The indices of the rules that decide ``path``, in rule order."""
        ...

    def classify(self, paths: Sequence[str], allowed: Sequence[int]
                 ) -> tuple[array[int], list[tuple[int, ...]]]:
        """Per path, the index of its deciding set in the list returned (``-1`` where
        ``allowed[i]`` is 0)."""
        ...


class Peer(Protocol):
    """One robots.txt as a peer read it: ``Peer(body, dialect, base_url)``, where ``body`` is
    ``bytes`` and the selector has checked that the peer reads ``dialect`` and ``body``'s size.
    Every method is thread-safe; what is derived on first use is kept."""

    @property
    def dialect(self) -> Dialect:
        """The dialect the file was read in."""
        ...

    @property
    def size(self) -> int:
        """The body's size in bytes, as given to the parse."""
        ...

    @property
    def base_url(self) -> str | None:
        """Where the file came from (relative sitemap URLs resolve against it), or None."""
        ...

    def source(self) -> bytes:
        """Bytes that parse to the same answers (pickling and copying parse them again)."""
        ...

    # -- verdicts --------------------------------------------------------------------------

    def is_allowed(self, url: str, *, user_agent: str = "*") -> bool:
        """May ``user_agent`` fetch ``url`` (absolute, or a path[?query])? ``TypeError`` for
        anything but ``str`` (a subclass's text is read)."""
        ...

    def path_key(self, path: str, user_agent: str) -> int:
        """The key of the rule that decides ``path`` (already read as the dialect's spec
        reads a URL's path) for ``user_agent``, or ``NO_MATCH``."""
        ...

    def url_key_path(self, url: str, user_agent: str) -> tuple[int, str]:
        """``(key, path)`` of one URL: its deciding key (``-1`` for RFC 9309's /robots.txt)
        and its path as the dialect's spec reads it (``Verdict.path``)."""
        ...

    @staticmethod
    def verdict_memo(make: Callable[..., Verdict], bound: int) -> VerdictMemo:
        """A new, empty memo of one group selection's verdict facts per deciding key, kept
        by the peer: ``make`` builds a Verdict from nine values, the user agent and the path
        last (``_peers.fast_constructor`` with that order); at most ``bound`` keys (past it,
        every one is dropped before the next is kept)."""
        ...

    def keep_verdicts(self, user_agent: str, memo: VerdictMemo) -> None:
        """From now on answer :meth:`known_verdict` for ``user_agent`` (the string as the
        caller wrote it) from ``memo`` (this peer's, the memo of the agent's selection), for
        at most :data:`AGENTS_KEPT` agents (past it, every one is dropped before the next is
        kept)."""
        ...

    def known_verdict(self, url: str, user_agent: str) -> Verdict | None:
        """The verdict of ``url`` for ``user_agent``: ``make(*facts, user_agent, path)``
        with the facts the agent's memo (:meth:`keep_verdicts`) keeps for the deciding key
        (``url_key_path``'s), in one call (in C on the native peer); None where no memo is
        kept for the agent or it keeps no facts for the key (then the caller keeps them,
        :meth:`VerdictMemo.keep`)."""
        ...

    @staticmethod
    def usage_memo(verdicts: VerdictMemo, paths: UsagePaths | None, make: Callable[..., _U],
                   scope: str, vocabulary: str, bound: int) -> UsageMemo[_U]:
        """A new, empty memo of one group selection's usage answers (``scope``,
        ``vocabulary``), kept by the peer: ``verdicts`` the selection's verdict memo (this
        peer's), ``paths`` its Content-Usage matcher (this peer's :meth:`usage_paths`, or
        None: one answer for every path), ``make`` builds a Usage from nine values (crawl,
        categories, lines, statements, user agent, path, scope, verdict, vocabulary:
        ``_peers.fast_constructor``'s field order); at most ``bound`` answers."""
        ...

    def keep_usages(self, user_agent: str, memo: UsageMemo[_U]) -> None:
        """From now on answer :meth:`known_usage` for ``user_agent`` in ``memo``'s scope and
        vocabulary from ``memo`` (this peer's), in place of the one given before, for at most
        :data:`AGENTS_KEPT` agents."""
        ...

    def known_usage(self, url: str, user_agent: str, scope: str, vocabulary: str) -> Any:
        """The Usage of ``url`` for ``user_agent`` in ``scope`` and ``vocabulary``: the
        verdict :meth:`known_verdict` would give from the usage memo's verdict memo and,
        where it allows, the answer the memo keeps for the rules that decide its path (a
        copy of its categories), in one call (in C on the native peer); None where no memo
        of that scope and vocabulary is kept for the agent, or either is not kept (then the
        caller keeps them). Typed ``Any``: what the memo's ``make`` builds."""
        ...

    def usage_paths(self, patterns: Sequence[Pattern | None]) -> UsagePaths:
        """The matcher of one agent's Content-Usage paths, given as the core reads them
        (attach-05 3.1: as Allow/Disallow patterns; ``None`` for a rule without a path), with
        the precedence of :func:`robotrules._patterns.longest_matches`: the kernel's own
        matcher on the native peer."""
        ...

    def selected_groups(self, user_agent: str) -> tuple[int, ...]:
        """The indices (in :attr:`group_index`) of the groups that apply to ``user_agent``."""
        ...

    # -- the reading, for the slower answers (groups, explanations, findings) --------------

    @property
    def latin1_text(self) -> str:
        """The body as Latin-1 text (one character a byte), LF line ends, no byte-order mark."""
        ...

    @property
    def bom_length(self) -> int:
        """How many bytes of a byte-order mark opened the body."""
        ...

    @property
    def directives(self) -> array[int]:
        """The directive stream of :func:`robotrules._tokenize.tokenize` over
        :attr:`latin1_text`: ``(kind << 25 | line, vstart, vlen)`` per directive."""
        ...

    @property
    def noted_lines(self) -> array[int]:
        """Where the lines start that the tokenizer noted for a second look (findings)."""
        ...

    @property
    def group_index(self) -> GroupIndex:
        """The file's :class:`~robotrules._index.GroupIndex` (built from :attr:`directives`)."""
        ...

    @property
    def directive_count(self) -> int:
        """How many directives the file holds."""
        ...

    @property
    def evictions(self) -> int:
        """How often the compiled matchers were dropped to keep the file within its memory
        budget (a bound whatever number of agents query it)."""
        ...

    # -- the batch API ------------------------------------------------------------------------

    def decide_urls(self, urls: Sequence[str], user_agent: str, no_match: tuple[int, int],
                    paths: list[str] | None = None) -> Columns:
        """The columns of :class:`~robotrules.Decisions` for ``urls`` (a list, tuple or
        other sequence of ``str``; ``TypeError`` for one ``str``, bytes, or a URL that is not
        ``str``), entry ``i`` equal to ``explain(urls[i])``'s fields: ``allowed`` and
        ``reason`` ``array('B')`` (``reason`` an index into robotrules._model.REASONS),
        ``line`` and ``rule`` ``array('q')`` (``line`` 0 where no line decided), and the
        directive index of each rule the ``rule`` column numbers (each once, in the order of
        the sorted distinct keys; ``rule`` -1 where none decided). Each distinct key's facts
        come from the key itself (the directive it names, that directive's line); NO_MATCH's
        depend on the agent's groups and are given as ``no_match``: ``(rule, reason)``,
        Google's empty rule (a directive index, or -1) and the reason's index. ``paths``,
        unless None, gets each URL's path as the dialect's spec reads it, in input order."""
        ...

    @staticmethod
    def gather(classes: array[int], table: array[int]) -> array[int]:
        """``array('b')`` with ``table[classes[i]]`` at ``i`` (``-1`` where ``classes[i]``
        is ``-1``): the batch usage columns."""
        ...


class VerdictMemo(Protocol):
    """One group selection's verdict facts per deciding key (:meth:`Peer.verdict_memo`),
    filled by the facade with one call per key and read by the peer that made it."""

    def keep(self, key: int, facts: tuple[object, ...]) -> None:
        """Keep the first seven values of ``key``'s verdict (``make``'s order)."""
        ...

    def clear(self) -> None:
        """Drop every key's facts (the facade's budget: :class:`robotrules._robots._Kept`)."""
        ...

    def __len__(self) -> int:
        """How many keys it keeps (at most its bound)."""
        ...


class UsageMemo(Protocol[_U_co]):
    """One group selection's usage answers (:meth:`Peer.usage_memo`), filled by the facade
    with one call per set of deciding Content-Usage rules and read by the peer that made it
    (with the verdict facts of its :class:`VerdictMemo`)."""

    def keep(self, chosen: tuple[int, ...], answer: tuple[dict[str, bool | None],
                                                         tuple[int, ...], tuple[object, ...]]
             ) -> None:
        """Keep the answer ``(categories, lines, statements)`` of the deciding rules
        ``chosen`` (``()``: none decides)."""
        ...

    def clear(self) -> None:
        """Drop every answer."""
        ...

    def __len__(self) -> int:
        """How many answers it keeps (at most its bound)."""
        ...
