"""What applies to one URL: the :class:`Usage` answer, and the signals a file carries.

Evaluation of one URL (:func:`usage`, the facade's ``usage``). Group selection is the
Allow/Disallow one (``group_for``: same-token groups merge, a crawler with its own
group does not see ``*``'s lines). Preferences attach only to URLs the crawler may fetch
(attach-05 3.1 "Content-Usage Rule Semantics"); otherwise every category is unknown and no
statement applies. Among the group's Content-Usage rules whose path matches, the longest path
decides (a rule without a path matches at length 0); rules with identical longest paths are
combined most-restrictively. Paths are read by the core's pattern reader for the file's dialect
(:mod:`robotrules.aipref._paths`) and matched by the core's matcher: one matcher in the project.
Content-Signal lines apply per group (Cloudflare's reading, the default) or file-wide
(crawler-commons' reading). Policy-token groups (:mod:`robotrules.aipref.policy_tokens`) add
their statements; everything is combined most-restrictively (vocab-07 "Combining
Preferences"). ``u["search"]`` combines AIPREF's and Content-Signal's ``search``; Content-Signal's
``ai-train``/``ai-input`` keep their names.

:func:`summarize_signals` says which usage signals a parsed file carries at all (for the
dataset census and ``check --json``).

Cost: one evaluation is O(R * P) for the R preference lines of the applying group(s) and the
pattern cost P of the core matcher; parsing of each distinct preference text and pattern is
memoised (bounded LRU).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, overload

from .._match import Pattern
from .._model import Record, Verdict
from .._patterns import longest_matches
from ._paths import pattern
from ._values import Scope, Statement, Tri, combine
from .content_signal import CONTENT_SIGNAL, parse_content_signal, to_aipref
from .content_usage import CONTENT_USAGE, content_usage_path, parse_content_usage
from .policy_tokens import POLICY_TOKEN, policy_groups, policy_statements
from .vocabulary import DEFAULT_VOCABULARY
from .vocabulary import vocabulary as vocabulary_of  # parameters here are named vocabulary

if TYPE_CHECKING:
    from .._parsed import ParsedFile

__all__ = [
    "ContentUsageRules",
    "SignalSummary",
    "Usage",
    "answer",
    "deciding",
    "describe",
    "explain_detail",
    "preference_parts",
    "records",
    "summarize_signals",
    "usage",
    "usage_of_verdict",
    "usage_patterns",
]

FILE_WIDE: Final = {"llm-policy": "llm-policy", "license": "license"}
#: The field names of AI-preference lines (normalised), for lint and the census.
PREFERENCE_KEYS: Final = (CONTENT_USAGE, CONTENT_SIGNAL, *FILE_WIDE)


def _statement(rec: Record, vocab: str) -> Statement | None:
    key = rec.directive  # as the tokenizer classified the key (Content_Usage: content-usage)
    if key == CONTENT_USAGE:
        return parse_content_usage(rec.value, line=rec.line, key=rec.key, vocabulary=vocab,
                                   octets=rec.octets)
    if key == CONTENT_SIGNAL:
        return parse_content_signal(rec.value, line=rec.line, key=rec.key)
    if key in FILE_WIDE:
        return Statement(FILE_WIDE[key], rec.line, rec.value, extra=(("url", rec.value),),
                         key=rec.key)
    return None


def _all_records(rules: ParsedFile) -> Iterable[Record]:
    return rules.all_records  # derived once per parsed file


def records(rules: ParsedFile, *, vocabulary: str = DEFAULT_VOCABULARY
            ) -> tuple[Statement, ...]:
    """Every AI-preference record of the file (in groups or not), in file order."""
    out = [s for rec in _all_records(rules) if (s := _statement(rec, vocabulary)) is not None]
    out.sort(key=lambda s: s.line or 0)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Usage:
    """What may be done with one URL, for one crawler.

    ``crawl``: what ``is_allowed`` says. ``u[category]``: ``True`` (allowed), ``False``
    (disallowed) or ``None`` (unknown) for the vocabulary's categories (``train-ai``,
    ``search``, and vocab-08's ``ai-use``), ``search`` combining AIPREF and Content-Signal,
    ``ai-train``, ``ai-input`` (Content-Signal), ``tdm`` (TDMRep) or any other category a
    statement named; unknown categories give ``None``. ``lines``: the robots.txt lines whose
    preferences decided, in file order. ``statements``: every preference record that applied
    (deciding Content-Usage rules, Content-Signal lines in scope, policy-token groups, file-wide
    LLM-Policy / License, and any header or TDMRep statement combined in). ``vocabulary``: the
    vocabulary version evaluated against. ``verdict``: the crawl verdict.
    """

    crawl: bool
    categories: Mapping[str, Tri]
    lines: tuple[int, ...]
    statements: tuple[Statement, ...]
    user_agent: str
    path: str
    scope: Scope = "group"
    verdict: Verdict | None = field(default=None, compare=False)
    vocabulary: str = DEFAULT_VOCABULARY

    def __getitem__(self, category: str) -> Tri:
        return self.categories.get(category)

    def get(self, category: str) -> Tri:
        return self.categories.get(category)

    @property
    def use(self) -> str | None:
        """Content-Signal ``use=`` level (``immediate``, ``reference``, ``full``), if stated."""
        level: str | None = None
        for s in self.statements:
            for k, v in s.extra:
                if k == "use":
                    level = v
        return level

    @property
    def licenses(self) -> tuple[str, ...]:
        """The ``License:`` URLs of the file (RSL documents, :mod:`robotrules.aipref.rsl`)."""
        return tuple(s.raw for s in self.statements if s.source == "license")

    @property
    def policy_tokens(self) -> tuple[str, ...]:
        """The policy tokens whose groups stated something about this URL."""
        return tuple(v for s in self.statements if s.source == POLICY_TOKEN
                     for k, v in s.extra if k == "token")

    @property
    def content_signal_as_aipref(self) -> dict[str, Tri]:
        """The Content-Signal lines that applied, as the AIPREF categories of this vocabulary
        they approximate (:func:`robotrules.aipref.content_signal.to_aipref`)."""
        return to_aipref(combine(*(s for s in self.statements if s.source == CONTENT_SIGNAL)),
                         self.vocabulary)

    def decide(self, category: str, *, search_use: bool = False) -> Tri:
        """The preference for a use of ``category``. ``search_use``: the use qualifies as
        search (vocab "Search": links back, excerpts only to judge relevance, outputs used by
        the search application alone). Where ``search`` decides for such uses
        (:attr:`Vocabulary.search_overrides`: vocab-07 by its definition of Search, vocab-08 as
        described), a qualifying search use follows ``search`` alone; otherwise it would have
        to satisfy both categories."""
        if not search_use:
            return self.categories.get(category)
        if vocabulary_of(self.vocabulary).search_overrides:
            return self.categories.get("search")
        return combine({category: self.categories.get(category)},
                       {category: self.categories.get("search")}).get(category)

    def combined_with(self, *statements: Statement) -> Usage:
        """This answer with more statements (HTTP headers, TDMRep) combined most-restrictively.

        When the crawl is disallowed nothing is combined: no preferences attach to a resource
        that may not be fetched.
        """
        if not self.crawl or not statements:
            return self
        cats = dict(self.categories)
        cats.update(combine(self.categories, *statements))
        return Usage(self.crawl, cats, self.lines, self.statements + tuple(statements),
                     self.user_agent, self.path, self.scope, self.verdict, self.vocabulary)

    def to_dict(self) -> dict[str, object]:
        known: dict[str, Tri] = dict.fromkeys(vocabulary_of(self.vocabulary).usage_keys)
        known.update(self.categories)
        return {
            "crawl": self.crawl,
            "vocabulary": self.vocabulary,
            "categories": known,
            "use": self.use,
            "content_signal_as_aipref": self.content_signal_as_aipref,
            "licenses": list(self.licenses),
            "policy_tokens": list(self.policy_tokens),
            "lines": list(self.lines),
            "statements": [s.to_dict() for s in self.statements],
            "user_agent": self.user_agent,
            "path": self.path,
            "scope": self.scope,
        }


def usage(rules: ParsedFile, url: str, *, user_agent: str = "*",
          content_signal_scope: Scope = "group", vocabulary: str = DEFAULT_VOCABULARY,
          policy_tokens: Mapping[str, str] | None = None) -> Usage:
    """The AI usage preferences of ``url`` for ``user_agent`` under ``rules`` (see the module
    docstring), evaluated against the vocabulary version ``vocabulary``."""
    if content_signal_scope not in ("group", "file"):
        raise ValueError(f"content_signal_scope must be 'group' or 'file', not "
                         f"{content_signal_scope!r}")
    _check(vocabulary)
    return usage_of_verdict(rules, rules.explain(url, user_agent=user_agent),
                            content_signal_scope=content_signal_scope, vocabulary=vocabulary,
                            policy_tokens=policy_tokens, url=url)


def _check(name: str) -> None:
    vocabulary_of(name)  # raises ValueError naming the versions


def usage_of_verdict(rules: ParsedFile, verdict: Verdict, *,
                     content_signal_scope: Scope = "group",
                     vocabulary: str = DEFAULT_VOCABULARY,
                     policy_tokens: Mapping[str, str] | None = None,
                     url: str | None = None) -> Usage:
    """:func:`usage` for a crawl verdict already computed by ``rules.explain`` (so that
    ``explain`` itself can mention the preferences without asking twice). ``url`` (default:
    the verdict's path) is what policy-token groups are asked about."""
    user_agent = verdict.user_agent
    path = verdict.path
    if not verdict.allowed:
        return Usage(False, {}, (), (), user_agent, path, content_signal_scope, verdict,
                     vocabulary)
    rules_cu, signals, others = preference_parts(rules, user_agent, content_signal_scope,
                                                 vocabulary)
    chosen = [rules_cu[i] for i in deciding(rules_cu, path, rules.dialect)]
    tokens = policy_statements(rules, url if url is not None else path, policy_tokens)
    cats, lines, stmts = answer(chosen, signals, tokens, others)
    return Usage(True, cats, lines, stmts, user_agent, path, content_signal_scope, verdict,
                 vocabulary)


class ContentUsageRules(Sequence[Statement]):
    """The Content-Usage rules of the groups that apply to an agent, each read as a
    :class:`Statement` when first asked for (its path is read at once, without the
    preference: the matcher of the paths needs only those, and an answer reads only the
    rules that decide it, so a file of many Content-Usage lines costs one Structured Fields
    parse per rule that decides, not per line). Immutable: what is read is kept."""

    __slots__ = ("_read", "_records", "_vocabulary", "paths")

    def __init__(self, records: Sequence[Record], vocabulary: str) -> None:
        self._records = tuple(records)
        self._vocabulary = vocabulary
        self._read: dict[int, Statement] = {}
        #: the path of each rule (None: none), as its statement's ``path``
        self.paths: tuple[str | None, ...] = tuple(
            content_usage_path(r.value, r.octets) for r in self._records)

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, i: int) -> Statement: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Statement]: ...

    def __getitem__(self, i: int | slice) -> Statement | Sequence[Statement]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(len(self))[i])
        if i < 0:
            i += len(self._records)
        s = self._read.get(i)
        if s is None:
            s = _statement(self._records[i], self._vocabulary)
            assert s is not None  # every record here is a Content-Usage line
            self._read[i] = s
        return s


Parts = tuple[Sequence[Statement], tuple[Statement, ...], tuple[Statement, ...]]


def preference_parts(rules: ParsedFile, user_agent: str, scope: Scope, vocabulary: str
                     ) -> Parts:
    """What may apply to any URL for ``user_agent``, whatever its path: the Content-Usage rules
    of the group(s) that apply (:func:`deciding` picks per path), the Content-Signal lines in
    ``scope`` and the file-wide statements (LLM-Policy, License). A parsed file keeps them per
    agent (the facade's ``usage``)."""
    group = rules.group_for(user_agent)
    rules_cu: list[Record] = []
    signals: list[Statement] = []
    others: list[Statement] = []
    for rec in group.records if group is not None else ():
        key = rec.directive
        if key == CONTENT_USAGE:
            rules_cu.append(rec)  # read when it decides (ContentUsageRules)
        elif key == CONTENT_SIGNAL and scope == "group":
            s = _statement(rec, vocabulary)
            assert s is not None
            signals.append(s)
    for rec in _all_records(rules):
        key = rec.directive
        if (key == CONTENT_SIGNAL and scope == "file") or key in FILE_WIDE:
            s = _statement(rec, vocabulary)
            assert s is not None
            (signals if key == CONTENT_SIGNAL else others).append(s)
    return ContentUsageRules(rules_cu, vocabulary), tuple(signals), tuple(others)


def deciding(rules_cu: Sequence[Statement], path: str, dialect: str) -> tuple[int, ...]:
    """The indices of the Content-Usage rules that decide ``path`` (the module docstring's
    precedence: the longest path match, a rule without a path at length 0, all rules of
    identical longest length), in rule order: :func:`robotrules._patterns.longest_matches`
    over the paths read as Allow/Disallow patterns. The peers' ``usage_paths`` keep the same
    (the native kernel with its own matcher; tests/aipref/test_usage_native.py holds them
    equal)."""
    return longest_matches(usage_patterns(rules_cu, dialect), path)


def usage_patterns(rules_cu: Sequence[Statement], dialect: str) -> list[Pattern | None]:
    """The paths of Content-Usage rules read as the core reads Allow/Disallow patterns
    (:func:`robotrules.aipref._paths.pattern`; ``None``: a rule without a path)."""
    paths = rules_cu.paths if isinstance(rules_cu, ContentUsageRules) else [
        s.path for s in rules_cu]
    return [None if p is None else pattern(p, dialect) for p in paths]


def answer(chosen: Iterable[Statement], signals: Iterable[Statement],
           tokens: Iterable[Statement], others: Iterable[Statement]
           ) -> tuple[dict[str, Tri], tuple[int, ...], tuple[Statement, ...]]:
    """``(categories, lines, statements)`` of a URL that may be fetched: the deciding
    Content-Usage rules, the Content-Signal lines and the policy-token statements combined
    most-restrictively; the file-wide statements listed too."""
    applied = sorted([*chosen, *signals, *tokens], key=lambda s: s.line or 0)
    cats = combine(*applied)
    lines = tuple(sorted({s.line for s in applied if s.line is not None}))
    stmts = tuple(sorted([*applied, *others], key=lambda s: s.line or 0))
    return cats, lines, stmts


def explain_detail(rules: ParsedFile, verdict: Verdict) -> str:
    """The sentence ``explain`` can append to a verdict's detail: the preferences that apply
    (per-group Content-Signal scope), or ``""`` when none is stated or the URL is disallowed."""
    if not verdict.allowed:
        return ""
    u = usage_of_verdict(rules, verdict)
    if not any(v is not None for v in u.categories.values()):
        return ""
    return describe(u)


def describe(u: Usage) -> str:
    """One sentence for people: the preferences that apply (for ``explain`` and the CLI)."""
    if not u.crawl:
        return "no usage preferences apply (the URL may not be fetched)"
    stated = [f"{k}={'y' if v else 'n'}" for k, v in u.categories.items() if v is not None]
    if not stated:
        return "no usage preference is stated"
    lines = ", ".join(str(n) for n in u.lines)
    return f"usage preferences {', '.join(stated)} (line{'s' if len(u.lines) > 1 else ''} " \
           f"{lines})"


# -- what a file carries ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SignalSummary:
    """Which usage signals a parsed robots.txt carries, wherever they stand.

    ``content_usage`` / ``content_signal``: the lines of each kind; ``licenses``: the
    ``License:`` values (RSL); ``llm_policy``: the ``LLM-Policy:`` values; ``policy_groups``:
    ``(token, category, line)`` of each policy-token group; ``use``: the Content-Signal ``use``
    levels stated; ``categories``: per category key (the vocabulary's usage keys first, then
    any other a line names) how many lines state ``y`` / ``n`` / an unknown value (``"?"``).
    """

    vocabulary: str
    content_usage: tuple[int, ...]
    content_signal: tuple[int, ...]
    licenses: tuple[str, ...]
    llm_policy: tuple[str, ...]
    policy_groups: tuple[tuple[str, str, int], ...]
    use: tuple[str, ...]
    categories: Mapping[str, Mapping[str, int]]

    @property
    def any(self) -> bool:
        """Whether the file carries any usage signal at all."""
        return bool(self.content_usage or self.content_signal or self.licenses
                    or self.llm_policy or self.policy_groups)

    def to_dict(self) -> dict[str, object]:
        return {
            "vocabulary": self.vocabulary,
            "content_usage": list(self.content_usage),
            "content_signal": list(self.content_signal),
            "licenses": list(self.licenses),
            "llm_policy": list(self.llm_policy),
            "policy_groups": [{"token": t, "category": c, "line": n}
                              for t, c, n in self.policy_groups],
            "use": list(self.use),
            "categories": {k: dict(v) for k, v in self.categories.items()},
        }


def summarize_signals(rules: ParsedFile, *, vocabulary: str = DEFAULT_VOCABULARY,
                      policy_tokens: Mapping[str, str] | None = None) -> SignalSummary:
    """Which usage signals ``rules`` carries (Content-Usage, Content-Signal, RSL ``License``,
    ``LLM-Policy``, policy-token groups) and, per category, how many lines state y / n / ?.

    One pass over the file's records; no URL is evaluated. Policy-token groups count once per
    group under their category as ``"group"``.
    """
    keys = vocabulary_of(vocabulary).usage_keys
    counts: dict[str, dict[str, int]] = {k: {"y": 0, "n": 0, "?": 0} for k in keys}
    cu: list[int] = []
    cs: list[int] = []
    lic: list[str] = []
    llm: list[str] = []
    use: list[str] = []
    for s in records(rules, vocabulary=vocabulary):
        if s.source == CONTENT_USAGE:
            cu.append(s.line or 0)
        elif s.source == CONTENT_SIGNAL:
            cs.append(s.line or 0)
            use.extend(v for k, v in s.extra if k == "use")
        elif s.source == "license":
            lic.append(s.raw)
        elif s.source == "llm-policy":
            llm.append(s.raw)
        for k, v in s.prefs:
            slot = counts.setdefault(k, {"y": 0, "n": 0, "?": 0})
            slot["y" if v is True else "n" if v is False else "?"] += 1
    groups = policy_groups(rules, policy_tokens)
    for _t, category, _n in groups:
        counts.setdefault(category, {"y": 0, "n": 0, "?": 0})
        counts[category]["group"] = counts[category].get("group", 0) + 1
    return SignalSummary(vocabulary, tuple(cu), tuple(cs), tuple(lic), tuple(llm), groups,
                         tuple(dict.fromkeys(use)), counts)
