"""AI usage preferences: Content-Usage, Content-Signal, TDMRep, and what applies to one URL.

Theory of operation
-------------------
Every signal becomes a :class:`Statement`: where it came from (``source``), its line (robots.txt)
or ``None`` (HTTP header, tdmrep.json), the raw text, and a small mapping of *categories* to a
three-state value: ``True`` (allowed), ``False`` (disallowed) or ``None`` (stated but unknown).
A category a statement does not mention is simply absent (unknown). Everything downstream is one
operation, :func:`combine`, the AIPREF vocabulary's "most restrictive" rule (vocab-07 "Combining
Preferences"): per category, any ``False`` gives ``False``, else any ``True`` gives ``True``,
else ``None``.

Signals and their vocabularies
    ``Content-Usage`` (draft-ietf-aipref-attach-05, vocab-07): ``[path WS] preference``. The
    rule value starts with a path iff its first character is ``/``; the path ends before the
    first SP or HTAB and the rest is the preference (attach-05 "Processing Content-Usage
    Rules"). The preference is an RFC 9651 Dictionary, parsed by ``http-sf``: the labels
    ``train-ai`` and ``search`` are read (case-sensitive), a value is allowed only as the Token
    ``y``, disallowed only as ``n``, anything else unknown; parameters and unknown keys are
    ignored; the last duplicate wins; *any* parse failure makes every category unknown (vocab-07
    "Processing Algorithm", "Multiple Preferences"). Superseded labels of earlier vocabulary
    revisions (``ai``, ``genai``, ``tdm`` ...) are kept in ``Statement.ignored`` for the linter.

    ``Content-Signal`` (Cloudflare's Content Signals Policy): ``search=yes, ai-input=no,
    ai-train=no`` and the 2026 ``use=immediate|reference|full``. Not declared as a Structured
    Field, so it is read as comma-separated ``key=value`` pairs, keys and values compared
    without regard to case (the owner's intent is unambiguous; the linter flags odd spellings);
    ``yes``/``no`` only, a key left out "neither grants nor restricts" (unknown). Its scope is
    contested (AI-PREFERENCES.md 1.3): ``content_signal_scope="group"`` (default, Cloudflare's
    reading) applies the lines of the group that applies to the crawler, merged groups
    together; ``"file"`` (crawler-commons' reading) applies every Content-Signal line of the
    file, inside or outside groups, to every crawler.

    ``search`` exists in both vocabularies with the same meaning (AI-PREFERENCES.md 1.3,
    "Mapping to AIPREF"); ``u["search"]`` combines both sources most-restrictively, as the vocab
    says of statements from different methods. ``ai-train`` and ``ai-input`` keep their own
    names: ``ai-train`` only approximates ``train-ai`` and is not merged into it.

    TDMRep (W3C TDM Reservation Protocol): ``/.well-known/tdmrep.json`` is an array of
    ``{location, tdm-reservation, tdm-policy}``; locations are REP patterns (``*``, final ``$``,
    %-escapes) and the *first* matching entry wins. The ``tdm-reservation`` and ``tdm-policy``
    HTTP headers say the same for one response. Both become the category ``tdm``:
    ``tdm-reservation: 1`` (rights reserved) is ``False``, ``0`` is ``True``.

    ``LLM-Policy``, RSL ``License`` (file-wide) and the Content-Usage HTTP header are kept as
    statements too; the first two carry no categories.

Evaluation of one URL (:func:`usage`, ``RobotsTxt.usage``)
    Group selection is the Allow/Disallow one (``RobotsTxt.group_for``: same-token groups merge,
    a crawler with its own group does not see ``*``'s lines). Preferences attach only to URLs
    the crawler may fetch (attach-05 "Content-Usage Rule Semantics"); otherwise every category
    is unknown and no statement applies. Among the group's Content-Usage rules whose path
    matches, the longest path decides (a rule without a path matches at length 0); rules with
    identical longest paths are combined most-restrictively. Paths are matched by the core's
    own pattern matcher and URL normalisation for the file's dialect (``_compile.new_pattern``,
    ``_match.pattern_matches``, ``RobotsTxt._path``): one matcher in the project.

Sans-I/O: nothing here touches the network. :func:`parse_tdmrep` takes the bytes of
``tdmrep.json``; :func:`from_headers` takes response headers; :meth:`Usage.combined_with` folds
such statements into a robots.txt answer (the fetch client's ``usage(url)``).

Cost: one evaluation is O(R * P) for the R preference lines of the applying group(s) and the
pattern cost P of the core matcher (``_match``: O(len(path) * len(pattern)) worst case); the
parsing of each distinct preference text and pattern is memoised (bounded LRU).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Final, Literal

from ._findings import finding
from ._match import Pattern, pattern_matches
from ._model import Finding, Group, Record, Severity, Verdict
from ._token import is_global_agent, line_token
from ._url import rfc_path

try:
    import http_sf
except ImportError as exc:  # pragma: no cover - http-sf is a core dependency
    raise ImportError(
        "robotrules.aipref needs the 'http-sf' package (RFC 9651 Structured Fields): "
        "pip install http-sf") from exc

if TYPE_CHECKING:
    from ._robots import RobotsTxt

__all__ = [
    "AIPREF_LABELS",
    "CONTENT_SIGNAL_KEYS",
    "SUPERSEDED_LABELS",
    "Scope",
    "Statement",
    "TdmRep",
    "TdmRule",
    "Tri",
    "Usage",
    "combine",
    "describe",
    "explain_detail",
    "from_headers",
    "lint_findings",
    "parse_content_signal",
    "parse_content_usage",
    "parse_content_usage_header",
    "parse_preference",
    "parse_tdmrep",
    "records",
    "split_content_usage",
    "usage",
    "usage_of_verdict",
]

Tri = bool | None
Scope = Literal["group", "file"]

#: Current AIPREF labels (vocab-06/-07: "AI Model Training" and "Search"; AI-PREFERENCES.md 1.1).
AIPREF_LABELS: Final = ("train-ai", "search")
#: Labels of earlier vocab revisions (-01 to -05) and the current label to use instead (None:
#: the category was removed and has no successor).
SUPERSEDED_LABELS: Final[Mapping[str, str | None]] = {
    "ai": "train-ai",  # -01 "AI Training"
    "genai": "train-ai",  # -01 "Generative AI Training"
    "train-genai": "train-ai",  # -02/-03
    "tdm": None,  # -01 "Text and Data Mining": removed
    "inference": None,  # -01: removed
    "all": None,  # -02 "Automated Processing": removed in -05
    "bots": None,  # -03/-04 "Automated Processing": removed in -05
    "ai-use": None,  # -02 "AI Use": removed
    "ai-output": None,  # -04 "AI Output": removed in -05
}
#: Content-Signal keys with yes/no values (Cloudflare's Content Signals Policy).
CONTENT_SIGNAL_KEYS: Final = ("search", "ai-input", "ai-train")
#: Content-Signal keys with other values (2026: ``use=immediate|reference|full``).
CONTENT_SIGNAL_OTHER: Final = ("use",)
TDM: Final = "tdm"  # the category TDMRep statements fill

_CONTENT_USAGE: Final = "content-usage"
_CONTENT_SIGNAL: Final = "content-signal"
_FILE_WIDE: Final = {"llm-policy": "llm-policy", "license": "license"}
_WS: Final = re.compile(r"[ \t]")


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of preference and where it came from.

    ``source``: ``content-usage``, ``content-signal``, ``llm-policy``, ``license`` (robots.txt
    lines), ``http-content-usage``, ``http-tdm`` (response headers) or ``tdmrep``
    (``/.well-known/tdmrep.json``). ``line`` is the robots.txt line (``None`` otherwise);
    ``raw`` the value as written; ``key`` the field name as written. ``prefs`` holds the
    categories the statement mentions, each ``True`` / ``False`` / ``None`` (present but not a
    valid value); ``path`` the Content-Usage path (``None``: every path); ``error`` why the
    preference did not parse (then ``prefs`` is empty: every category unknown); ``ignored`` the
    keys ignored (unknown or superseded labels); ``extra`` non-category data (``use``,
    ``tdm-policy``, the LLM-Policy or License URL); ``duplicates`` keys given more than once.
    """

    source: str
    line: int | None
    raw: str
    prefs: tuple[tuple[str, Tri], ...] = ()
    path: str | None = None
    error: str | None = None
    ignored: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()
    duplicates: tuple[str, ...] = ()
    key: str = ""

    @property
    def values(self) -> dict[str, Tri]:
        """The categories this statement mentions (absent: unknown)."""
        return dict(self.prefs)

    def get(self, category: str) -> Tri:
        for k, v in self.prefs:
            if k == category:
                return v
        return None

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "line": self.line,
            "key": self.key,
            "raw": self.raw,
            "path": self.path,
            "values": self.values,
            "error": self.error,
            "ignored": list(self.ignored),
            "extra": dict(self.extra),
        }


def combine(*statements: Statement | Mapping[str, Tri]) -> dict[str, Tri]:
    """Most restrictive per category (vocab-07 "Combining Preferences").

    Any ``False`` gives ``False``; otherwise any ``True`` gives ``True``; otherwise ``None``.
    Accepts statements or plain ``{category: value}`` mappings; the result names every category
    any input mentions.
    """
    out: dict[str, Tri] = {}
    for s in statements:
        items = s.prefs if isinstance(s, Statement) else tuple(s.items())
        for k, v in items:
            old = out.get(k)
            if v is False or old is False:
                out[k] = False
            elif v is True or old is True:
                out[k] = True
            else:
                out[k] = None
    return out


# -- Content-Usage ------------------------------------------------------------------------------


def split_content_usage(value: str) -> tuple[str | None, str]:
    """``(path, preference)`` of a Content-Usage rule value (attach-05 "Processing Content-Usage
    Rules"): a path iff the value starts with ``/``, ending before the first SP or HTAB."""
    if not value.startswith("/"):
        return None, value
    m = _WS.search(value)
    if m is None:
        return value, ""
    return value[: m.start()], value[m.end() :].lstrip(" \t")


@lru_cache(maxsize=2048)
def parse_preference(text: str) -> tuple[tuple[tuple[str, Tri], ...], tuple[str, ...],
                                         str | None, tuple[str, ...]]:
    """An AIPREF usage preference (vocab-07 "Processing Algorithm") as
    ``(prefs, ignored, error, duplicates)``.

    ``prefs`` holds each current label present (``True`` for the Token ``y``, ``False`` for
    ``n``, ``None`` for any other value); ``ignored`` the other keys; ``error`` the parse
    failure (then nothing else is set: every category unknown).
    """
    dups: list[str] = []
    try:
        parsed = http_sf.parse(text.encode("utf-8"), tltype="dictionary",
                               on_duplicate_key=lambda key, _ctx: dups.append(key))
    except (http_sf.StructuredFieldError, ValueError, UnicodeError) as exc:
        return (), (), str(exc) or "not a Structured Fields dictionary", ()
    if not isinstance(parsed, dict):  # pragma: no cover - a dictionary was asked for
        return (), (), "not a Structured Fields dictionary", ()
    prefs: list[tuple[str, Tri]] = []
    ignored: list[str] = []
    for key, member in parsed.items():
        if key not in AIPREF_LABELS:
            ignored.append(key)
            continue
        value = member[0] if isinstance(member, tuple) else member  # parameters ignored
        tri: Tri = None
        if isinstance(value, http_sf.Token):
            token = str(value)
            tri = True if token == "y" else False if token == "n" else None
        prefs.append((key, tri))
    return tuple(prefs), tuple(ignored), None, tuple(dict.fromkeys(dups))


def parse_content_usage(value: str, *, line: int | None = None, key: str = "Content-Usage"
                        ) -> Statement:
    """One robots.txt ``Content-Usage`` rule value as a :class:`Statement`."""
    return _content_usage(value, line, key)


@lru_cache(maxsize=8192)  # statements are immutable: the lines of a file are read once
def _content_usage(value: str, line: int | None, key: str) -> Statement:
    path, pref = split_content_usage(value)
    prefs, ignored, error, dups = parse_preference(pref)
    return Statement(_CONTENT_USAGE, line, value, prefs, path, error, ignored, (), dups, key)


def parse_content_usage_header(value: str) -> Statement:
    """The ``Content-Usage`` HTTP response field (attach-05 "HTTP Content-Usage Header Field"):
    a Dictionary with the same vocabulary, no path."""
    prefs, ignored, error, dups = parse_preference(value)
    return Statement("http-content-usage", None, value, prefs, None, error, ignored, (), dups,
                     "Content-Usage")


# -- Content-Signal -----------------------------------------------------------------------------


@lru_cache(maxsize=2048)
def _content_signal(value: str) -> tuple[tuple[tuple[str, Tri], ...], tuple[str, ...],
                                         tuple[tuple[str, str], ...], tuple[str, ...]]:
    prefs: dict[str, Tri] = {}
    extra: dict[str, str] = {}
    ignored: list[str] = []
    seen: set[str] = set()
    dups: list[str] = []
    for item in value.split(","):
        item = item.strip(" \t")
        if not item:
            continue
        k, _, v = item.partition("=")
        name = k.strip(" \t").lower()
        val = v.strip(" \t").lower()
        if name in seen:
            dups.append(name)
        seen.add(name)
        if name in CONTENT_SIGNAL_KEYS:
            prefs[name] = True if val == "yes" else False if val == "no" else None
        elif name in CONTENT_SIGNAL_OTHER:
            extra[name] = val
        else:
            ignored.append(k.strip(" \t"))
    return (tuple(prefs.items()), tuple(ignored), tuple(extra.items()),
            tuple(dict.fromkeys(dups)))


def parse_content_signal(value: str, *, line: int | None = None, key: str = "Content-Signal"
                         ) -> Statement:
    """A ``Content-Signal`` value (``search=yes, ai-train=no``) as a :class:`Statement`.

    A key left out is absent (Cloudflare: it "neither grants nor restricts"); a value other than
    ``yes``/``no`` is unknown; the last duplicate wins; unknown keys are ignored.
    """
    return _signal_statement(value, line, key)


@lru_cache(maxsize=8192)
def _signal_statement(value: str, line: int | None, key: str) -> Statement:
    prefs, ignored, extra, dups = _content_signal(value)
    return Statement(_CONTENT_SIGNAL, line, value, prefs, None, None, ignored, extra, dups, key)


# -- robots.txt records -------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _norm_key(key: str) -> str:
    # the tokenizer's own normalisation of field names (classify_key): "_" and " " read as "-"
    return key.lower().replace("_", "-").replace(" ", "-")


def _statement(rec: Record) -> Statement | None:
    key = _norm_key(rec.key)
    if key == _CONTENT_USAGE:
        return parse_content_usage(rec.value, line=rec.line, key=rec.key)
    if key == _CONTENT_SIGNAL:
        return parse_content_signal(rec.value, line=rec.line, key=rec.key)
    source = _FILE_WIDE.get(key)
    if source is not None:
        return Statement(source, rec.line, rec.value, extra=(("url", rec.value),), key=rec.key)
    return None


def records(rules: RobotsTxt) -> tuple[Statement, ...]:
    """Every AI-preference record of the file (in groups or not), in file order."""
    out = [s for rec in _all_records(rules) if (s := _statement(rec)) is not None]
    out.sort(key=lambda s: s.line or 0)
    return tuple(out)


def _all_records(rules: RobotsTxt) -> Iterable[Record]:
    return rules._every_record()  # derived once per parsed file


@lru_cache(maxsize=4096)
def _pattern(raw: str, dialect: str) -> Pattern:
    from ._compile import new_pattern  # the core's one way to read a pattern

    # allow=False: Google's derived "/dir/$" companion of Allow rules is not wanted here
    return new_pattern(raw, dialect, False)


def _path_length(rule_path: str | None, path: str, dialect: str) -> int:
    """Length of ``rule_path`` if it matches ``path`` (a rule without a path: 0), else -1."""
    if rule_path is None:
        return 0
    p = _pattern(rule_path, dialect)
    return p.priority if pattern_matches(p, path) else -1


# -- the answer for one URL ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Usage:
    """What may be done with one URL, for one crawler.

    ``crawl``: what ``is_allowed`` says. ``u[category]``: ``True`` (allowed), ``False``
    (disallowed) or ``None`` (unknown) for ``train-ai``, ``search`` (AIPREF and Content-Signal,
    combined), ``ai-train``, ``ai-input`` (Content-Signal), ``tdm`` (TDMRep) or any other
    category a statement named; unknown categories give ``None``. ``lines``: the robots.txt
    lines whose preferences decided, in file order. ``statements``: every preference record
    that applied (deciding Content-Usage rules, Content-Signal lines in scope, file-wide
    LLM-Policy / License, and any header or TDMRep statement combined in). ``use``:
    Content-Signal's ``use`` level when one applies. ``verdict``: the crawl verdict.
    """

    crawl: bool
    categories: Mapping[str, Tri]
    lines: tuple[int, ...]
    statements: tuple[Statement, ...]
    user_agent: str
    path: str
    scope: Scope = "group"
    verdict: Verdict | None = field(default=None, compare=False)

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
                     self.user_agent, self.path, self.scope, self.verdict)

    def to_dict(self) -> dict[str, object]:
        known = dict.fromkeys(("train-ai", "search", "ai-train", "ai-input"))
        known.update(self.categories)
        return {
            "crawl": self.crawl,
            "categories": known,
            "use": self.use,
            "lines": list(self.lines),
            "statements": [s.to_dict() for s in self.statements],
            "user_agent": self.user_agent,
            "path": self.path,
            "scope": self.scope,
        }


def usage(rules: RobotsTxt, url: str, *, user_agent: str = "*",
          content_signal_scope: Scope = "group") -> Usage:
    """The AI usage preferences of ``url`` for ``user_agent`` under ``rules`` (see the module
    docstring for the rules applied)."""
    if content_signal_scope not in ("group", "file"):
        raise ValueError(f"content_signal_scope must be 'group' or 'file', not "
                         f"{content_signal_scope!r}")
    return usage_of_verdict(rules, rules.explain(url, user_agent=user_agent),
                            content_signal_scope=content_signal_scope)


def usage_of_verdict(rules: RobotsTxt, verdict: Verdict, *,
                     content_signal_scope: Scope = "group") -> Usage:
    """:func:`usage` for a crawl verdict already computed by ``rules.explain`` (so that
    ``explain`` itself can mention the preferences without asking twice)."""
    user_agent = verdict.user_agent
    path = verdict.path
    if not verdict.allowed:
        return Usage(False, {}, (), (), user_agent, path, content_signal_scope, verdict)
    group = rules.group_for(user_agent)
    dialect = rules.dialect
    best = -1
    deciding: list[Statement] = []
    signals: list[Statement] = []
    for rec in group.records if group is not None else ():
        key = _norm_key(rec.key)
        if key == _CONTENT_USAGE:
            s = parse_content_usage(rec.value, line=rec.line, key=rec.key)
            n = _path_length(s.path, path, dialect)
            if n > best:
                best, deciding = n, [s]
            elif n == best and n >= 0:
                deciding.append(s)  # identical lengths: combined most-restrictively
        elif key == _CONTENT_SIGNAL and content_signal_scope == "group":
            signals.append(parse_content_signal(rec.value, line=rec.line, key=rec.key))
    others: list[Statement] = []
    for rec in _all_records(rules):
        key = _norm_key(rec.key)
        if key == _CONTENT_SIGNAL and content_signal_scope == "file":
            signals.append(parse_content_signal(rec.value, line=rec.line, key=rec.key))
        elif key in _FILE_WIDE:
            s2 = _statement(rec)
            if s2 is not None:
                others.append(s2)
    applied = sorted(deciding + signals, key=lambda s: s.line or 0)
    cats = combine(*applied)
    lines = tuple(sorted({s.line for s in applied if s.line is not None}))
    stmts = tuple(sorted(applied + others, key=lambda s: s.line or 0))
    return Usage(True, cats, lines, stmts, user_agent, path, content_signal_scope, verdict)


def explain_detail(rules: RobotsTxt, verdict: Verdict) -> str:
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


# -- TDMRep -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TdmRule:
    """One entry of ``tdmrep.json``: a location pattern, reservation (0/1) and policy URL."""

    location: str
    reservation: int
    policy: str | None
    index: int


@dataclass(frozen=True, slots=True)
class TdmRep:
    """A parsed ``/.well-known/tdmrep.json`` (W3C TDMRep). ``errors`` lists entries skipped."""

    rules: tuple[TdmRule, ...]
    errors: tuple[str, ...] = ()

    def match(self, url: str) -> TdmRule | None:
        """The first entry whose location matches ``url`` (TDMRep: first in sequence wins)."""
        path = rfc_path(url)
        for r in self.rules:
            if pattern_matches(_pattern(r.location, "rfc9309"), path):
                return r
        return None

    def evaluate(self, url: str) -> Statement | None:
        """The statement for ``url`` (category ``tdm``), or ``None`` when no entry matches."""
        r = self.match(url)
        if r is None:
            return None
        extra = (("tdm-policy", r.policy),) if r.policy else ()
        raw = json.dumps({"location": r.location, "tdm-reservation": r.reservation,
                          **({"tdm-policy": r.policy} if r.policy else {})})
        return Statement("tdmrep", None, raw, ((TDM, r.reservation == 0),), r.location,
                         extra=extra, key=f"tdmrep.json[{r.index}]")


def parse_tdmrep(body: bytes | str) -> TdmRep:
    """``tdmrep.json`` bytes as a :class:`TdmRep`. Never raises on content: a body that is not
    a JSON array gives no rules and one error; a bad entry is skipped with an error."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeError) as exc:
        return TdmRep((), (f"not JSON: {exc}",))
    if not isinstance(data, list):
        return TdmRep((), ("tdmrep.json must be a JSON array of objects",))
    rules: list[TdmRule] = []
    errors: list[str] = []
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            errors.append(f"entry {i}: not an object")
            continue
        loc = entry.get("location")
        res = entry.get("tdm-reservation")
        pol = entry.get("tdm-policy")
        if not isinstance(loc, str) or not loc:
            errors.append(f"entry {i}: 'location' missing or not a string")
            continue
        if isinstance(res, str) and res.strip() in ("0", "1"):
            res = int(res.strip())
        if isinstance(res, bool) or res not in (0, 1):
            errors.append(f"entry {i}: 'tdm-reservation' must be 0 or 1")
            continue
        if pol is not None and not isinstance(pol, str):
            errors.append(f"entry {i}: 'tdm-policy' must be a URL string")
            pol = None
        if not loc.startswith(("/", "*")):
            loc = "/" + loc  # locations are paths; a bare one is read from the root
        rules.append(TdmRule(loc, int(res), pol or None, i))
    return TdmRep(tuple(rules), tuple(errors))


def from_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> tuple[Statement, ...]:
    """Statements carried by HTTP response headers: ``Content-Usage`` (an SF Dictionary,
    attach-05) and ``tdm-reservation`` / ``tdm-policy`` (TDMRep). Names are case-insensitive;
    repeated fields are joined with ``,`` as HTTP allows."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    fields: dict[str, list[str]] = {}
    for name, value in items:
        fields.setdefault(name.lower(), []).append(value)
    out: list[Statement] = []
    if "content-usage" in fields:
        out.append(parse_content_usage_header(", ".join(fields["content-usage"])))
    if "tdm-reservation" in fields:
        raw = ", ".join(fields["tdm-reservation"]).strip()
        tri: Tri = True if raw == "0" else False if raw == "1" else None
        policy = ", ".join(fields.get("tdm-policy", [])).strip()
        out.append(Statement("http-tdm", None, raw, ((TDM, tri),),
                             extra=(("tdm-policy", policy),) if policy else (),
                             key="tdm-reservation"))
    return tuple(out)


# -- lint ---------------------------------------------------------------------------------------


def _finding(code: str, line: int, message: str, fix: str | None = None, *,
             severity: Severity | None = None) -> Finding:
    """A finding of the catalogue (robotrules._findings) at column 1 of ``line``."""
    return finding(code, line, 1, message, fix, severity=severity)


def lint_findings(rules: RobotsTxt) -> list[Finding]:
    """Findings about AI-preference lines (codes L031-L041; see docs/ai-preferences.md)."""
    out: list[Finding] = []
    groups = rules.groups
    for rec in rules.records:
        key = _norm_key(rec.key)
        if key == _CONTENT_SIGNAL:
            out.append(_finding(
                "L040", rec.line,
                "Content-Signal before any user-agent line: crawler-commons applies it to every "
                "crawler, Cloudflare's reading (and robotrules' default) to none",
                "put it inside the 'User-agent: *' group"))
        elif key == _CONTENT_USAGE:
            out.append(_finding(
                "L040", rec.line,
                "Content-Usage before any user-agent line belongs to no group and is ignored "
                "(attach-05: it is a rule inside a group)", "put it inside a group"))
    for g in groups:
        for rec in g.records:
            key = _norm_key(rec.key)
            if key == _CONTENT_USAGE:
                _lint_content_usage(rules, g.tokens, rec, out)
            elif key == _CONTENT_SIGNAL:
                _lint_content_signal(rec, out)
    for rec in rules.records:
        if _norm_key(rec.key) == _CONTENT_SIGNAL:
            _lint_content_signal(rec, out)
    _lint_only_global(groups, out)
    _lint_agents(rules, out)
    out.sort(key=lambda f: (f.line, f.column, f.code))
    return out


def _lint_content_usage(rules: RobotsTxt, tokens: tuple[str, ...], rec: Record,
                        out: list[Finding]) -> None:
    s = parse_content_usage(rec.value, line=rec.line, key=rec.key)
    path, pref = split_content_usage(rec.value)
    line = rec.line
    first, _, rest = rec.value.partition(" ")
    if path is None and rest.strip() and "=" not in first:
        out.append(_finding(
            "L037", line,
            f"Content-Usage path '{first}' does not start with '/': the whole value is read as "
            "the preference (attach-05 'Processing Content-Usage Rules')",
            f"Content-Usage: /{first.lstrip('*')} {rest.strip()}"))
        return  # the parse failure that follows is this same mistake
    if s.error is not None:
        lowered = pref.lower()
        fix = f"Content-Usage: {path + ' ' if path else ''}{lowered}" if (
            parse_preference(lowered)[2] is None and lowered != pref) else None
        head, _, tail = pref.partition(" ")
        hint = "keys are lower case"
        if path and "=" not in head and parse_preference(tail)[2] is None:
            # attach §3.1: SP and HTAB in paths "need to be replaced with %20 and %09"
            hint = "a space in the path ends it: write it as %20"
            fix = f"Content-Usage: {path}%20{head} {tail}"
        out.append(_finding(
            "L034", line,
            f"Content-Usage preference is not a valid Structured Fields dictionary ({s.error}): "
            f"every category is unknown (vocab-07 'Multiple Preferences'; {hint})", fix))
        return
    for k in s.ignored:
        if k in SUPERSEDED_LABELS:
            new = SUPERSEDED_LABELS[k]
            hint = (f"use '{new}'" if new else "the category was removed; drop it")
            out.append(_finding(
                "L031", line,
                f"'{k}' is a label of an earlier AIPREF vocabulary and is ignored today; {hint}",
                new))
    for k, v in s.prefs:
        if v is None:
            raw = _raw_value(pref, k)
            if raw in ("yes", "no"):
                out.append(_finding(
                    "L032", line,
                    f"Content-Usage '{k}={raw}': AIPREF values are the tokens y and n, so this "
                    "is unknown (vocab-07 'Preference Labels')", f"{k}={raw[0]}"))
    for k in s.duplicates:
        out.append(_finding(
            "L035", line,
            f"'{k}' is given more than once: only the last value counts (vocab-07 'Multiple "
            "Preferences')", None))
    if _only_disallowed(rules, tokens, path):
        out.append(_finding(
            "L038", line,
            f"Content-Usage for '{path or '/'}' has no effect: the group disallows that path and "
            "preferences attach only to crawlable URLs (attach-05 'Content-Usage Rule "
            "Semantics')", None))


def _raw_value(pref: str, key: str) -> str | None:
    try:
        parsed = http_sf.parse(pref.encode("utf-8"), tltype="dictionary")
    except (http_sf.StructuredFieldError, ValueError):
        return None
    if not isinstance(parsed, dict) or key not in parsed:
        return None
    member = parsed[key]
    value = member[0] if isinstance(member, tuple) else member
    return str(value) if isinstance(value, http_sf.Token) else None


def _only_disallowed(rules: RobotsTxt, tokens: tuple[str, ...], path: str | None) -> bool:
    """The Content-Usage path is disallowed for the group and no Allow rule reopens part of it."""
    probe = (path or "/").split("*", 1)[0].rstrip("$") or "/"
    agent = next((t for t in tokens if t), "*")
    group = rules.group_for(agent)
    if group is None:
        return False
    if rules.is_allowed(probe, user_agent=agent):
        return False
    return not any(r.allow and (r.pattern.startswith(probe) or "*" in r.pattern)
                   for r in group.rules)


def _lint_content_signal(rec: Record, out: list[Finding]) -> None:
    s = parse_content_signal(rec.value, line=rec.line, key=rec.key)
    line = rec.line
    for item in rec.value.split(","):
        k, _, v = item.strip(" \t").partition("=")
        name, val = k.strip(" \t").lower(), v.strip(" \t").lower()
        if name in CONTENT_SIGNAL_KEYS and val in ("y", "n"):
            out.append(_finding(
                "L033", line,
                f"Content-Signal '{name}={v.strip()}': the values are yes and no, so this is "
                "unknown (Cloudflare Content Signals Policy)",
                f"{name}={'yes' if val == 'y' else 'no'}"))
    for k in s.ignored:
        guess = _signal_guess(k)
        out.append(_finding(
            "L036", line,
            f"Content-Signal key '{k}' is not one of search, ai-input, ai-train, use: ignored",
            guess))
    for k in s.duplicates:
        out.append(_finding(
            "L035", line,
            f"'{k}' is given more than once: only the last value counts", None))


def _signal_guess(key: str) -> str | None:
    low = key.lower().replace("_", "-")
    table = {"train-ai": "ai-train", "ai-training": "ai-train", "search-ai": "ai-input",
             "ai-search": "ai-input", "input-ai": "ai-input", "train": "ai-train"}
    if low in table:
        return table[low]
    return None


def _lint_only_global(groups: tuple[Group, ...], out: list[Finding]) -> None:
    pref_keys = (_CONTENT_USAGE, _CONTENT_SIGNAL)
    star_line: int | None = None
    named: list[str] = []
    named_with = False
    for g in groups:
        has = [r.line for r in g.records if _norm_key(r.key) in pref_keys]
        if g.is_global:
            if has and star_line is None:
                star_line = has[0]
        elif has:
            named_with = True
        else:
            named.extend(a for a in g.agents if a)
    if star_line is not None and named and not named_with:
        shown = ", ".join(named[:5]) + (" ..." if len(named) > 5 else "")
        out.append(_finding(
            "L039", star_line,
            f"AI preferences are only in the '*' group, but {shown} have their own group and so "
            "do not see them (RFC 9309 2.2.1 group selection; attach-05)",
            "repeat the Content-Usage / Content-Signal lines in each named group"))


def _lint_agents(rules: RobotsTxt, out: list[Finding]) -> None:
    """User-agent values that are not product tokens, read by Google (and RFC 9309) as their
    leading ``[A-Za-z_-]`` run, checked against the crawler registry."""
    if rules.dialect == "1994":
        return
    from .agents import known_agents

    by_token: dict[str, str] = {}
    for a in known_agents():
        for t in (*a.tokens[:1], *a.aliases):
            by_token.setdefault(t.lower(), a.token)
    for g in rules.groups:
        for value in g.agents:
            value = value.strip()
            if not value or is_global_agent(value):
                continue
            token = line_token(value, "google")  # Google's reading, whatever the dialect
            if token == value:
                continue
            named = by_token.get(value.lower())
            # the cut falls inside a word ("Googlebot2", "MJ12bot"), not before a version or a
            # comment ("dotbot/1.0", "Sogou web spider"), which name the token's own crawler
            inside = value[len(token)].isalnum() or value[len(token)] == "."
            other = by_token.get(token.lower()) if token and inside else None
            line = _agent_line(rules, g.line, value)
            if other is not None and (named is None or other != named):
                out.append(_finding(
                    "L041", line,
                    f"'{value}' is not a product token: Google reads it as '{token}', so this "
                    f"group applies to the crawler {other}", f"User-agent: {token}"))
            elif named is not None and token.lower() != named.lower():
                out.append(_finding(
                    "L041", line,
                    f"'{value}' names the crawler {named}, but it is not a product token: "
                    f"Google reads it as '{token or '(nothing)'}', which matches no crawler, so "
                    f"{named} follows the '*' group instead", None, severity="warning"))


def _agent_line(rules: RobotsTxt, first: int, value: str) -> int:
    """The line of the user-agent value ``value`` in the group starting at ``first``."""
    for n in range(first, min(first + 200, rules.line_count) + 1):
        text = rules.line_text(n)
        _, sep, rest = text.partition(":")
        if sep and rest.split("#", 1)[0].strip() == value:
            return n
    return first
