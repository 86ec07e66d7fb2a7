"""Immutable values of the public API: findings, rules, groups, records and verdicts.

Everything here is a frozen dataclass: a parsed robots.txt is shared freely between threads
and never changes after :func:`robotrules.parse` returns it. ``dataclasses`` and ``datetime``
make this module cost more than the rest of ``import robotrules``, so the parser and a query
never import it: what builds these values asks :mod:`robotrules._later` (the import cost's one
home) when it runs, and ``robotrules`` resolves their names on first access
(tests/core/test_import_cost.py). ``Dialect`` and ``Severity``
live in :mod:`robotrules._types` and are re-exported here.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field, fields
from datetime import time
from typing import Any, Final, Literal, NamedTuple

from ._types import Dialect, Severity

__all__ = [
    "REASONS",
    "Decisions",
    "Dialect",
    "Finding",
    "Group",
    "Record",
    "RequestRate",
    "Rule",
    "Severity",
    "Verdict",
    "VisitTime",
    "field_slots",
]

@dataclass(frozen=True, slots=True)
class Finding:
    """One oddity met while reading a robots.txt, tied to its line.

    ``kind`` is a stable slug (``typo-directive``), ``code`` its stable id (``L003``) from the
    lint catalogue; ``line`` and ``column`` are 1-based (``line`` 0 means the whole file).
    """

    code: str
    kind: str
    severity: Severity
    line: int
    column: int
    message: str
    fix: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "kind": self.kind,
            "severity": self.severity,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "fix": self.fix,
        }


@dataclass(frozen=True, slots=True)
class Rule:
    """An ``allow`` or ``disallow`` line: its directive, its pattern as written, its line."""

    directive: Literal["allow", "disallow"]
    pattern: str
    line: int

    @property
    def allow(self) -> bool:
        return self.directive == "allow"

    def __str__(self) -> str:
        key = self.directive.capitalize()
        return f"{key}: {self.pattern}" if self.pattern else f"{key}:"


class RequestRate(NamedTuple):
    """``Request-rate: n/t``: at most ``requests`` every ``seconds`` (stdlib-compatible names)."""

    requests: int
    seconds: float


@dataclass(frozen=True, slots=True)
class VisitTime:
    """``Visit-time: hhmm-hhmm`` (UTC): the window in which visits are welcome."""

    start: time
    end: time

    def contains(self, moment: time) -> bool:
        if self.start <= self.end:
            return self.start <= moment <= self.end
        return moment >= self.start or moment <= self.end  # window across midnight


def visit_window(h1: int, m1: int, h2: int, m2: int) -> VisitTime:
    """The ``VisitTime`` from ``h1:m1`` to ``h2:m2`` (``_directives.parse_visit_time``'s
    value: ``datetime`` is loaded with the model, robotrules._later)."""
    return VisitTime(time(h1, m1), time(h2, m2))


@dataclass(frozen=True, slots=True)
class Record:
    """Any ``key: value`` line kept as data (extensions and unknown keys), with its line.

    ``value`` is readable text (U+FFFD for bytes that are not UTF-8); ``octets`` the value's
    bytes as the core keeps them (one Latin-1 character per octet) when they are not ASCII
    (``None``: the value is ASCII, its own octets). A path written in such a line is read from
    its octets, exactly as an Allow/Disallow pattern with the same bytes (AI preferences).
    ``directive`` names the directive the line is, as the dialect's tokenizer classified its
    key (:func:`robotrules._directives.classify_key`: ``Content_Usage`` and ``content usage``
    are ``"content-usage"``): the registry's canonical key, ``None`` for a key no directive
    has. Readers of records ask it, never the key as written. Like ``octets`` it is derived
    from what the line says, so equality and ``repr`` leave it out.
    """

    key: str
    value: str
    line: int
    octets: str | None = field(default=None, compare=False, repr=False)
    directive: str | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Group:
    """One group of the file: its user-agent values as written and what follows them.

    ``agents`` holds the user-agent values as written; ``tokens`` the product tokens that
    matching compares (``*`` for the global group). ``records`` keeps every other line of the
    group (crawl-delay, request-rate, unknown keys ...) in file order.
    """

    agents: tuple[str, ...]
    tokens: tuple[str, ...]
    rules: tuple[Rule, ...]
    line: int
    crawl_delay: float | None = None
    request_rate: RequestRate | None = None
    visit_time: VisitTime | None = None
    records: tuple[Record, ...] = ()

    @property
    def is_global(self) -> bool:
        return "*" in self.tokens


VerdictReason = Literal[
    "rule",  # a rule decided
    "no-matching-rule",  # a group applies but none of its rules matched
    "no-group",  # no group applies to the agent
    "robots-txt",  # RFC 9309 2.2.2: /robots.txt is implicitly allowed
    "unavailable",  # fetch: 4xx, everything allowed (RFC 9309 2.3.1.3)
    "unreachable",  # fetch: 5xx, 429 or network failure, everything disallowed (2.3.1.4)
    "not-fetched",  # fetch: nothing known yet (e.g. urllib compat before read())
]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why a URL is allowed or not.

    ``line`` is the 1-based line of the deciding rule, or ``None`` when no rule decided;
    ``rule`` that rule; ``agents`` the user-agent values of the group(s) that applied (merged
    groups give all their values; ``()`` when none applied); ``path`` the path as matched
    (after the dialect's normalisation); ``detail`` a sentence for people.

    ``detail`` is written when it is first read (an answer costs its facts, not its
    prose): a query stores the facts the sentence is made of, and equality, ``repr``,
    ``hash``, ``to_dict`` and pickling read the sentence, so a verdict behaves exactly as if
    it had been written at once.
    """

    allowed: bool
    line: int | None
    rule: Rule | None
    agents: tuple[str, ...]
    reason: VerdictReason
    user_agent: str
    path: str
    dialect: Dialect
    detail: str = ""

    @property
    def directive(self) -> str | None:
        return self.rule.directive if self.rule is not None else None

    @property
    def pattern(self) -> str | None:
        return self.rule.pattern if self.rule is not None else None

    def __bool__(self) -> bool:
        return self.allowed

    def to_dict(self) -> dict[str, object]:
        return {
            "allowed": self.allowed,
            "line": self.line,
            "directive": self.directive,
            "pattern": self.pattern,
            "agents": list(self.agents),
            "reason": self.reason,
            "user_agent": self.user_agent,
            "path": self.path,
            "dialect": self.dialect,
            "detail": self.detail,
        }


#: The slot that stores a verdict's detail: the sentence, or until it is read the facts it is
#: written from, as ``(write, *facts)`` with ``write(verdict, *facts) -> str``.
_DETAIL: Final[Any] = Verdict.__dict__["detail"]


def _read_detail(self: Verdict) -> str:
    """The sentence of a verdict, written from its facts on first read (then kept)."""
    d = _DETAIL.__get__(self, Verdict)
    if type(d) is tuple:
        d = d[0](self, *d[1:])
        _DETAIL.__set__(self, d)  # racing threads write the same sentence
    return d  # type: ignore[no-any-return]


# the field reads through the property; __init__, dataclasses.replace and unpickling store
# through it (object.__setattr__), so a detail given as text stays text
setattr(Verdict, "detail", property(  # noqa: B010 - mypy knows the field, not the property
    _read_detail, _DETAIL.__set__, None, "The verdict in one sentence for people."))
_RAW_SLOTS: Final[dict[tuple[type, str], Any]] = {(Verdict, "detail"): _DETAIL}


def field_slots(cls: type) -> tuple[Any, ...]:
    """The member descriptors that store the fields of the slotted dataclass ``cls``, in field
    order (for a field read through a property, such as ``Verdict.detail``, its raw slot):
    what a fast constructor (``robotrules._native.Maker``) writes."""
    return tuple(_RAW_SLOTS.get((cls, f.name)) or cls.__dict__[f.name]
                 for f in fields(cls))


#: The reasons a robots.txt itself gives for a verdict (``Verdict.reason`` without the fetch
#: outcomes): ``Decisions.reason`` holds an index into this tuple.
REASONS: Final[tuple[VerdictReason, ...]] = ("rule", "no-matching-rule", "no-group",
                                             "robots-txt")


@dataclass(frozen=True, slots=True)
class Decisions:
    """The verdicts of many URLs for one agent (:meth:`robotrules.RobotsTxt.decide_many`), as
    columns with one entry per URL in input order, each equal to ``explain(url)``'s field:

    ``allowed`` (``array('B')``: 1 allowed, 0 disallowed), ``line`` (``array('q')``: the
    deciding line, 0 where ``Verdict.line`` is None), ``rule`` (``array('q')``: an index into
    ``rules``, -1 where no rule decided), ``reason`` (``array('B')``: an index into
    :data:`REASONS`); ``rules``: the rules referenced, each once. The columns are fresh
    arrays owned by the caller; the value itself never changes.
    """

    allowed: array[int]
    line: array[int]
    rule: array[int]
    reason: array[int]
    rules: tuple[Rule, ...]
    user_agent: str = "*"

    def __len__(self) -> int:
        return len(self.allowed)

    def reason_of(self, i: int) -> VerdictReason:
        """``REASONS[self.reason[i]]``: the reason of the ``i``-th URL's verdict."""
        return REASONS[self.reason[i]]

    def rule_of(self, i: int) -> Rule | None:
        """The rule that decided the ``i``-th URL (None where no rule did)."""
        r = self.rule[i]
        return None if r < 0 else self.rules[r]
