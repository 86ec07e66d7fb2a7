"""The linter's findings about AI-preference lines: codes L031-L040 and L042-L047.

Catalogue entries live in :mod:`robotrules._findings`; docs/ai-preferences.md and docs/lint.md
describe each code with its source. :func:`lint_findings` is called by :func:`robotrules.lint`,
which also calls :func:`without_core_noise`: the parser's generic L002 ("not part of RFC 9309")
on each AI-preference line is replaced by one L042 for the file, saying what the lines are
(usage preferences Google ignores), not noise on every line.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .._findings import finding
from .._match import PREFIX
from .._model import Finding, Group, Record, Rule, Severity
from .._patterns import covers, pattern_of
from .._types import Dialect
from .._url import resolved
from ._values import Tri
from .content_signal import CONTENT_SIGNAL, parse_content_signal, signal_items
from .content_usage import (
    CONTENT_USAGE,
    parse_content_usage,
    parse_preference,
    raw_token,
    split_content_usage,
)
from .policy_tokens import policy_groups
from .usage import PREFERENCE_KEYS
from .vocabulary import (
    CONTENT_SIGNAL_KEYS,
    DEFAULT_VOCABULARY,
    SIGNAL_KEY_LABELS,
    VOCABULARIES,
    Vocabulary,
    vocabulary,
)

if TYPE_CHECKING:
    from .._parsed import ParsedFile

__all__ = ["lint_findings", "preference_lines", "without_core_noise"]



def _finding(code: str, line: int, message: str, fix: str | None = None, *,
             severity: Severity | None = None) -> Finding:
    """A finding of the catalogue (robotrules._findings) at column 1 of ``line``."""
    return finding(code, line, 1, message, fix, severity=severity)


def preference_lines(rules: ParsedFile) -> tuple[int, ...]:
    """The lines of the file's AI-preference records (Content-Usage, Content-Signal,
    LLM-Policy, License), in file order."""
    return tuple(sorted(r.line for r in rules.all_records
                        if r.directive in PREFERENCE_KEYS))


def without_core_noise(found: Iterable[Finding], rules: ParsedFile) -> list[Finding]:
    """``found`` without the parser's L002 on AI-preference lines (L042 reports them once)."""
    lines = set(preference_lines(rules))
    return [f for f in found if not (f.code == "L002" and f.line in lines)]


def lint_findings(rules: ParsedFile, *, vocabulary_name: str = DEFAULT_VOCABULARY,
                  policy_tokens: Mapping[str, str] | None = None) -> list[Finding]:
    """Findings about AI-preference lines (see the module docstring)."""
    out: list[Finding] = []
    groups = rules.groups
    _lint_overview(rules, out)
    for rec in rules.records:
        key = rec.directive
        if key == CONTENT_SIGNAL:
            out.append(_finding(
                "L040", rec.line,
                "Content-Signal before any user-agent line: crawler-commons applies it to every "
                "crawler, Cloudflare's reading (and robotrules' default) to none",
                "put it inside the 'User-agent: *' group"))
            _lint_content_signal(rec, out)
        elif key == CONTENT_USAGE:
            out.append(_finding(
                "L040", rec.line,
                "Content-Usage before any user-agent line belongs to no group and is ignored "
                "(attach-05: it is a rule inside a group)", "put it inside a group"))
    for rec in rules.all_records:
        if rec.directive == "license":
            _lint_license(rec, out)
    allows = _Allows()  # per group selection, its Allow rules: one merge per selection
    for g in groups:
        for rec in g.records:
            key = rec.directive
            if key == CONTENT_USAGE:
                _lint_content_usage(rules, g.tokens, rec, out, vocabulary_name, allows)
            elif key == CONTENT_SIGNAL:
                _lint_content_signal(rec, out)
    _lint_only_global(groups, out)
    for token, category, line in policy_groups(rules, policy_tokens):
        out.append(_finding(
            "L045", line,
            f"'{token}' is a policy token, not a crawler: this group states the usage "
            f"preference {category} for the paths it disallows (n) or allows (y) "
            "(draft-kelley-aipref-training-preference-signal-00); it blocks no crawler"))
    out.sort(key=lambda f: (f.line, f.column, f.code))
    return out


def _lint_overview(rules: ParsedFile, out: list[Finding]) -> None:
    """L042: one info for the file naming its AI-preference lines."""
    lines = preference_lines(rules)
    if not lines:
        return
    kinds = sorted({r.key for r in rules.all_records if r.directive in PREFERENCE_KEYS})
    shown = ", ".join(str(n) for n in lines[:8]) + (" ..." if len(lines) > 8 else "")
    out.append(_finding(
        "L042", lines[0],
        f"{len(lines)} AI usage-preference line{'s' if len(lines) > 1 else ''} ("
        f"{', '.join(kinds)}; line{'s' if len(lines) > 1 else ''} {shown}): they state how "
        "content may be used, not what may be crawled; Google's crawlers ignore them "
        "(robots.cc lists content-usage and content-signal as known, unused tags)"))


def _lint_license(rec: Record, out: list[Finding]) -> None:
    """L043: RSL's robots.txt ``License:`` value is an absolute URI."""
    value = rec.value.strip()
    if resolved(value, None) is not None:  # None: urllib cannot read it ("http://[::1")
        parts = urlsplit(value)
        if parts.scheme.lower() in ("http", "https") and parts.netloc:
            return
    out.append(_finding(
        "L043", rec.line,
        f"License '{value}' is not an absolute http(s) URI: RSL 1.0 discovery asks for one "
        "(a crawler resolving a relative one may not reach your licence)",
        "License: https://<your host>" + (value if value.startswith("/") else "/" + value)))


def _lint_content_usage(rules: ParsedFile, tokens: tuple[str, ...], rec: Record,
                        out: list[Finding], vocab: str, allows: _Allows) -> None:
    """The findings of one Content-Usage line of a group (``tokens``: its agents' tokens)."""
    path, pref = split_content_usage(rec.value)
    if _path_without_slash(rec, path, out):
        return  # the parse failure that follows is this same mistake
    s = parse_content_usage(rec.value, line=rec.line, key=rec.key, vocabulary=vocab,
                            octets=rec.octets)
    if s.error is not None:
        _unparsed_preference(rec.line, path, pref, s.error, vocab, out)
        return
    _ignored_labels(rec.line, pref, s.ignored, vocabulary(vocab), out)
    _unknown_values(rec.line, pref, s.prefs, out)
    for k in s.duplicates:
        out.append(_finding(
            "L035", rec.line,
            f"'{k}' is given more than once: only the last value counts (vocab-07 'Multiple "
            "Preferences')", None))
    if _only_disallowed(rules, tokens, path, allows):
        out.append(_finding(
            "L038", rec.line,
            f"Content-Usage for '{path or '/'}' has no effect: the group disallows that path and "
            "preferences attach only to crawlable URLs (attach-05 'Content-Usage Rule "
            "Semantics')", None))


def _path_without_slash(rec: Record, path: str | None, out: list[Finding]) -> bool:
    """L037: a first word meant as a path that lacks its ``/`` (reported: True)."""
    first, _, rest = rec.value.partition(" ")
    if path is not None or not rest.strip() or "=" in first:
        return False
    out.append(_finding(
        "L037", rec.line,
        f"Content-Usage path '{first}' does not start with '/': the whole value is read as "
        "the preference (attach-05 'Processing Content-Usage Rules')",
        f"Content-Usage: /{first.lstrip('*')} {rest.strip()}"))
    return True


def _unparsed_preference(line: int, path: str | None, pref: str, error: str, vocab: str,
                         out: list[Finding]) -> None:
    """L034: the preference is no Structured Fields dictionary, with the likely cause (an
    upper-case key, a space in the path) and its fix when that reading parses."""
    lowered = pref.lower()
    fix = f"Content-Usage: {path + ' ' if path else ''}{lowered}" if (
        parse_preference(lowered, vocab)[2] is None and lowered != pref) else None
    head, _, tail = pref.partition(" ")
    hint = "keys are lower case: an upper-case key makes the whole line state nothing"
    if path and "=" not in head and parse_preference(tail, vocab)[2] is None:
        # attach-05 3.1: SP and HTAB in paths "need to be replaced with %20 and %09"
        hint = "a space in the path ends it: write it as %20"
        fix = f"Content-Usage: {path}%20{head} {tail}"
    out.append(_finding(
        "L034", line,
        f"Content-Usage preference is not a valid Structured Fields dictionary ({error}): "
        f"every category is unknown (vocab-07 'Multiple Preferences'; {hint})", fix))


def _ignored_labels(line: int, pref: str, ignored: tuple[str, ...], v: Vocabulary,
                    out: list[Finding]) -> None:
    """L031 (a label of another vocabulary version) and L046 (a Content-Signal key) among
    the keys the preference's vocabulary ignores."""
    for k in ignored:
        if k in v.superseded:
            new = v.superseded[k]
            later = [w.name for w in VOCABULARIES.values() if k in w.labels]
            hint = (f"use '{new}'" if new else
                    f"it is a category of {later[0]} (usage(..., vocabulary='{later[0]}'))"
                    if later else "the category was removed; drop it")
            out.append(_finding(
                "L031", line,
                f"'{k}' is a label of an earlier AIPREF vocabulary and is ignored by {v.name}; "
                f"{hint}", new))
        elif k in SIGNAL_KEY_LABELS:
            meant = SIGNAL_KEY_LABELS[k]
            raw = raw_token(pref, k)
            value = {"no": "n", "yes": "y"}.get(raw or "", raw or "n")
            out.append(_finding(
                "L046", line,
                f"'{k}' is a Content-Signal key: in Content-Usage it is an unknown label and "
                "states nothing (vocab-07 'Processing Algorithm': unknown keys are ignored)"
                + (f"; the AIPREF label is '{meant}'" if meant else
                   "; AIPREF has no such category: use a Content-Signal line"),
                f"{meant}={value}" if meant else f"Content-Signal: {k}={raw or 'no'}"))


def _unknown_values(line: int, pref: str, prefs: tuple[tuple[str, Tri], ...],
                    out: list[Finding]) -> None:
    """L032 (``yes``/``no`` for ``y``/``n``) and L047 (any other value) for each label whose
    value states nothing."""
    for k, val in prefs:
        if val is not None:
            continue
        raw = raw_token(pref, k)
        if raw in ("yes", "no"):
            out.append(_finding(
                "L032", line,
                f"Content-Usage '{k}={raw}': AIPREF values are the tokens y and n, so this "
                "is unknown (vocab-07 'Preference Labels')", f"{k}={raw[0]}"))
        else:
            shown = raw if raw is not None else "(not a token)"
            out.append(_finding(
                "L047", line,
                f"Content-Usage '{k}' has the value {shown}: only the tokens y and n state a "
                "preference, anything else is unknown (vocab-07 'Preference Labels')", None))


class _Reopening:
    """The Allow rules of one group selection, read for :func:`_only_disallowed`: whether one
    has a wildcard, and the literal ones' prefixes, sorted (those under a path are one run of
    the sorted list, found by bisection: one look-up per line, not one per rule)."""

    __slots__ = ("prefixes", "rules", "wild")

    def __init__(self, rules: tuple[Rule, ...], dialect: Dialect) -> None:
        self.rules = rules
        self.wild = any("*" in r.pattern for r in rules)
        self.prefixes = [] if self.wild else sorted(
            pattern_of(r.pattern, dialect).prefix for r in rules)

    def under(self, probe: str, dialect: Dialect) -> bool:
        """Whether a rule lies under ``probe`` (a literal path prefix, no ``*`` or ``$``): one
        that ``probe`` covers (:func:`robotrules._patterns.covers`), or any with a wildcard."""
        if self.wild:
            return True
        general = pattern_of(probe, dialect)
        if general.kind != PREFIX:  # not a plain prefix: the rule by rule reading
            return any(covers(probe, r.pattern, dialect) for r in self.rules)
        # a literal pattern is covered by a prefix exactly when its prefix starts with it
        at = bisect_left(self.prefixes, general.prefix)
        return at < len(self.prefixes) and self.prefixes[at].startswith(general.prefix)


class _Allows:
    """The Allow rules of each group selection, for one lint: one merge per selection, found
    by the agent's token (a selection is the group index's own tuple: known by identity, so
    that no look-up hashes a tuple as long as the groups), not one per line."""

    __slots__ = ("by_agent", "by_selection")

    def __init__(self) -> None:
        self.by_agent: dict[str, _Reopening | None] = {}
        self.by_selection: dict[int, tuple[tuple[int, ...], _Reopening]] = {}

    def of(self, rules: ParsedFile, agent: str) -> _Reopening | None:
        """The Allow rules of the groups that apply to ``agent`` (None: no group applies)."""
        if agent in self.by_agent:
            return self.by_agent[agent]
        selection = rules.selected_groups(agent)
        found: _Reopening | None = None
        if selection:
            kept = self.by_selection.get(id(selection))
            if kept is None or kept[0] is not selection:
                groups = rules.groups
                kept = self.by_selection[id(selection)] = (selection, _Reopening(tuple(
                    r for g in selection for r in groups[g].rules if r.allow), rules.dialect))
            found = kept[1]
        self.by_agent[agent] = found
        return found


def _only_disallowed(rules: ParsedFile, tokens: tuple[str, ...], path: str | None,
                     allows: _Allows) -> bool:
    """The Content-Usage path is disallowed for the group and no Allow rule of the groups
    that apply (merged, RFC 9309 2.2.1) reopens part of it: none under it
    (:func:`robotrules._patterns.covers`), and none with a wildcard (it may reach into it).
    ``allows`` keeps each selection's Allow rules for the call, sorted by prefix: linear in
    the lines (a bisection each) whatever number of groups or Allow rules there are."""
    probe = (path or "/").split("*", 1)[0].rstrip("$") or "/"
    agent = next((t for t in tokens if t), "*")
    reopening = allows.of(rules, agent)
    if reopening is None or rules.is_allowed(probe, user_agent=agent):
        return False
    return not reopening.under(probe, rules.dialect)


def _lint_content_signal(rec: Record, out: list[Finding]) -> None:
    s = parse_content_signal(rec.value, line=rec.line, key=rec.key)
    line = rec.line
    for k, v in signal_items(rec.value):
        name, val = k.lower(), v.lower()
        if name in CONTENT_SIGNAL_KEYS and val in ("y", "n"):
            out.append(_finding(
                "L033", line,
                f"Content-Signal '{name}={v}': the values are yes and no, so this is "
                "unknown (Cloudflare Content Signals Policy)",
                f"{name}={'yes' if val == 'y' else 'no'}"))
    for k in s.ignored:
        out.append(_finding(
            "L036", line,
            f"Content-Signal key '{k}' is not one of search, ai-input, ai-train, use: ignored",
            _signal_guess(k)))
    for k in s.duplicates:
        out.append(_finding(
            "L035", line,
            f"'{k}' is given more than once: only the last value counts", None))


def _signal_guess(key: str) -> str | None:
    low = key.lower().replace("_", "-")
    table = {"train-ai": "ai-train", "ai-training": "ai-train", "search-ai": "ai-input",
             "ai-search": "ai-input", "input-ai": "ai-input", "train": "ai-train"}
    return table.get(low)


def _lint_only_global(groups: tuple[Group, ...], out: list[Finding]) -> None:
    pref_keys = (CONTENT_USAGE, CONTENT_SIGNAL)
    star_line: int | None = None
    named: list[str] = []
    named_with = False
    for g in groups:
        has = [r.line for r in g.records if r.directive in pref_keys]
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

