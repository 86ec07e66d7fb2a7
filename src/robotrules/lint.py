"""The linter: the parser's per-line findings plus checks that need the whole file.

Theory of operation
-------------------
The parser already reports everything a single line can show (typos, missing colons, tokens,
paths, encoding ...) as :class:`~robotrules.Finding` values on its one token stream; this module
never re-reads the lines. It adds the *semantic* checks of the catalogue (REFERENCE.md section
4), which look at the compiled groups:

- per product token, the merged rules (RFC 9309 2.2.1) are compared pairwise to find rules that
  can never decide (L011, L012): a rule is dead when another rule matches every path it
  matches and always wins (longer pattern, or equal and allow; RFC 9309 2.2.2);
- group structure: split groups (L013), named groups that drop the ``*`` rules (L014);
- what the rules do: blocking everything (L022), stylesheets and scripts (L023), prefix traps
  (L024), the implicit ``/robots.txt`` allow (L025), case variants (L026), paths worth not
  advertising (L027), huge crawl-delays (L028);
- what came with the body: size (L018), HTML (L020), HTTP status (L021).

Pattern inclusion ("does S match every path R matches?") is decided on the patterns alone: with
``R'`` = R with a trailing ``*`` unless it ends in ``$`` (likewise ``S'``), S covers R exactly
when the glob ``S'`` matches the word ``R'`` in which each ``*`` of ``R'`` is a symbol that only
a ``*`` of ``S'`` can absorb. This is an ``O(len(S) * len(R))`` table. Candidate pairs are found
through the literal prefix (text before the first ``*``): S can only cover R when S's prefix is
a prefix of R's, so a group of ``n`` rules costs about ``n * prefix length`` look-ups rather than
``n**2`` comparisons.
"""

from __future__ import annotations

import re
import sys
import types
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Final, TypeAlias

from ._compile import new_pattern
from ._dialects import SPECS
from ._findings import CATALOGUE, finding
from ._match import Pattern, pattern_matches
from ._tokenize import to_bytes

if TYPE_CHECKING:
    from . import RobotsTxt
    from ._model import Finding, Group, Rule
    from ._types import Dialect

__all__ = ["CATALOGUE", "lint"]

HUGE_CRAWL_DELAY = 30.0  # Nutch and StormCrawler skip hosts above 30 s; crawler-commons: 300 s
_SEARCH_TOKENS = frozenset({"*", "googlebot", "bingbot", "msnbot", "yandex", "yandexbot"})
# Patterns as text: re's own cache compiles each on first use, so that `import robotrules`
# (which binds lint()) does not pay about 1 ms compiling them.
_ASSET = r"(?i)\.(css|js|mjs)(?:$|[$*?])"
_SENSITIVE = (
    r"(?i)(?:^|/)(?:\.git|\.env|\.svn|backups?|bak|dump|sql|db|database|config|"
    r"private|secret|secrets|staging|passwords?|credentials|phpmyadmin|admin)(?:/|$|\.|\*)"
)
_NOT_SENSITIVE = ("/wp-admin/",)  # the WordPress default: public knowledge, nothing to leak
_HTML = rb"(?i)^\s*(?:<!doctype\s+html|<html|<head|<body|<\?xml)"
_STAR = "\x00"  # a pattern's ``*`` as a symbol in the inclusion table


def lint(
    body: bytes | str,
    *,
    dialect: Dialect = "rfc9309",
    content_type: str | None = None,
    status: int | None = None,
    size: int | None = None,
    truncated: bool = False,
    policy_tokens: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Every finding for ``body``, sorted by line: the parser's and the semantic checks'.

    ``content_type`` and ``status``, when the file came over HTTP, add L020 and L021. A clean,
    ordinary file gets no warning and no error (``info`` findings are advice).

    ``truncated`` says that ``body`` is only the start of a longer file (what a reader with a
    size limit read) and ``size`` is the whole file's size when known: L018 reports that size.
    The partial last line of a truncated body is not parsed, as crawlers drop it (RFC 9309
    2.5), but it is looked at: NUL bytes anywhere are L048, a line that runs on past the
    500 KiB crawlers read is L049.

    ``policy_tokens`` (token -> usage category) names the policy tokens whose groups are usage
    statements (L045, :mod:`robotrules.aipref.policy_tokens`); by default the built-in table
    :data:`robotrules.aipref.POLICY_TOKENS`.
    """
    # Imported late: parse because the linter is a consumer of the core; aipref because it
    # needs http_sf and json, which `import robotrules` (it binds lint()) must not pay for.
    from . import aipref, parse

    raw = to_bytes(body)  # the same bytes the parser reads
    tail = b""
    if truncated:
        cut = max(raw.rfind(b"\n"), raw.rfind(b"\r")) + 1
        raw, tail = raw[:cut], raw[cut:]
        body = raw
    rules = parse(body, dialect=dialect)
    findings = list(rules.findings)
    if _looks_html(raw):
        # An HTML page: one finding for the page, not one per line of markup.
        findings = [f for f in findings if f.code not in _HTML_NOISE]
    findings.extend(_not_text(raw, tail, truncated))
    findings.extend(_transport(raw, content_type, status, _whole_size(raw, tail, size,
                                                                      truncated)))
    findings.extend(_semantic(rules))
    # -- AI preferences (issue 24/26): their own findings; the parser's L002 on each of their
    # lines is replaced by one L042; L041 (user-agent values Google misreads) in robotrules._ua_lint
    from ._ua_lint import agent_findings

    findings = aipref.without_core_noise(findings, rules)
    findings.extend(aipref.lint_findings(rules, policy_tokens=policy_tokens))
    findings.extend(agent_findings(rules))
    # -- end AI preferences
    findings = _dedupe(findings)
    findings.sort(key=lambda f: (f.line, f.column, f.code))
    return findings


_HTML_NOISE = frozenset({"L001", "L004", "L016", "L020", "L029"})


def _looks_html(raw: bytes) -> bool:
    return bool(re.match(_HTML, raw[:1024].lstrip(b"\xef\xbb\xbf")))


# -- transport: size, HTML, status --------------------------------------------------------


def _whole_size(raw: bytes, tail: bytes, size: int | None, truncated: bool) -> str | None:
    """The file's size in words when it is over the crawlers' limit (L018), else None."""
    from ._policy import DEFAULT_MAX_BYTES as max_bytes

    read = len(raw) + len(tail)
    if size is not None and size > max_bytes:
        return f"{size:,} bytes"
    if truncated and size is None:
        return f"more than {read:,} bytes"
    return f"{read:,} bytes" if read > max_bytes else None


def _not_text(raw: bytes, tail: bytes, truncated: bool) -> Iterator[Finding]:
    """L048: NUL bytes (binary data, not text); L049: a line with no end past the cap."""
    from ._policy import DEFAULT_MAX_BYTES as max_bytes

    nuls = raw.count(0) + tail.count(0)
    if nuls:
        first = raw.find(0)
        line = raw.count(b"\n", 0, first) + 1 if first >= 0 else raw.count(b"\n") + 1
        yield finding(
            "L048", line, 1,
            f"the file holds {nuls:,} NUL byte(s) (the first on line {line}): binary data, not "
            "text; a robots.txt is UTF-8 text (RFC 9309 2.3), and parsers stop a line at NUL",
            "serve the robots.txt text file itself (is this an image, an archive, a device?)")
    if truncated and (tail or not raw) and len(raw) <= max_bytes:
        line = raw.count(b"\n") + 1
        # (a fetched body arrives already cut at its last line end: then only its emptiness
        # tells that no line ended within the limit)
        read = f"the {len(raw) + len(tail):,} bytes read" if tail else "what was read"
        yield finding(
            "L049", line, 1,
            f"line {line} has no end within {read}: the {max_bytes:,} bytes crawlers read "
            "(500 KiB, RFC 9309 2.5) end inside it, and they drop a line the limit cuts, so "
            "nothing from here on counts",
            "end every line with a newline, and keep the file under 500 KiB")


def _transport(raw: bytes, content_type: str | None, status: int | None,
               whole: str | None = None) -> Iterator[Finding]:
    # The fetch policy's size limit and status classes, imported here for the same reason
    # as aipref in lint(): the policy imports email.utils and the stores.
    from ._policy import DEFAULT_MAX_BYTES as max_bytes  # RFC 9309 2.5: at least 500 KiB
    from ._policy import classify_status

    if whole is not None:
        cut = raw.count(b"\n", 0, max_bytes) + 1
        yield finding(
            "L018", cut, 1,
            f"the file is {whole}; crawlers read only the first {max_bytes:,} "
            f"(500 KiB, RFC 9309 2.5) and ignore everything from about line {cut} on",
            "shorten the file: merge rules with * patterns, drop rules for retired paths",
        )
    media = (content_type or "").split(";", 1)[0].strip().lower()
    looks_html = _looks_html(raw)
    if media and media != "text/plain":
        what = "HTML" if "html" in media else f"'{media}'"
        yield finding(
            "L020", 0, 0,
            f"served as {what}, not text/plain (RFC 9309 2.3)"
            + ("; the body is an HTML page" if looks_html else ""),
            "serve the file as 'Content-Type: text/plain; charset=utf-8'",
        )
    elif looks_html:
        yield finding(
            "L020", 1, 1,
            "the body is an HTML page, not a robots.txt (often an error page or a catch-all "
            "route); crawlers find no rules in it",
            "serve a plain-text robots.txt at /robots.txt",
        )
    if status is None:
        return
    what = classify_status(status)
    if what == "ok":
        return
    if what in ("unreachable", "invalid"):
        yield finding(
            "L021", 0, 0,
            f"HTTP {status}: the file is unreachable, so crawlers must assume everything is "
            "disallowed (RFC 9309 2.3.1.4; Google treats 429 the same way)",
            "serve /robots.txt with status 200 (or 404 if there are no rules)",
        )
    elif status in (401, 403):  # classify_status(status, auth_failure="disallow") differs
        yield finding(
            "L021", 0, 0,
            f"HTTP {status}: RFC 9309 and Google treat this as 'no robots.txt' and crawl "
            "everything; older crawlers (1996 draft) treat it as disallow all",
            "serve /robots.txt with status 200 and say what you mean in it",
            severity="warning",
        )
    elif what == "unavailable":
        yield finding(
            "L021", 0, 0,
            f"HTTP {status}: no robots.txt, so everything may be crawled (RFC 9309 2.3.1.3)",
            severity="info",
        )
    else:  # a redirect
        yield finding(
            "L021", 0, 0,
            f"HTTP {status}: redirect not followed to a file (RFC 9309 2.3.1.2: follow at "
            "least five redirects)",
            severity="warning",
        )


# -- patterns -----------------------------------------------------------------------------


@lru_cache(maxsize=65536)
def _core_pattern(pattern: str, dialect: Dialect) -> Pattern:
    """A rule's pattern (as displayed) read by the core, exactly as its matcher reads it."""
    raw = pattern.encode("utf-8", "surrogatepass").decode("latin-1")  # back to the file's octets
    return new_pattern(raw, dialect, False)


def _priority(pattern: str, dialect: Dialect) -> int:
    """The rule's priority as the core's matcher counts it (RFC 9309 2.2.2: octets)."""
    return _core_pattern(pattern, dialect).priority


def _word(pattern: str) -> str:
    """The pattern as a word of the inclusion table: ``*`` a symbol, a tail ``*`` unless ``$``."""
    if pattern.endswith("$"):
        return pattern[:-1].replace("*", _STAR)
    return pattern.replace("*", _STAR) + _STAR


def _literal_prefix(pattern: str) -> str:
    cut = pattern.find("*")
    body = pattern if cut < 0 else pattern[:cut]
    if cut < 0 and body.endswith("$"):
        body = body[:-1]
    return body


@lru_cache(maxsize=1 << 18)
def covers(general: str, specific: str) -> bool:
    """Whether pattern ``general`` matches every path that pattern ``specific`` matches."""
    if "*" not in general:
        if general.endswith("$"):
            return specific == general
        return _literal_prefix(specific).startswith(general) and (
            "*" in specific or not specific.endswith("$") or len(specific) > len(general))
    if any(seg not in specific for seg in general.rstrip("$").split("*")):
        return False  # a literal part of the general pattern that the specific one lacks
    if len(general) * len(specific) > _COVERS_WORK:
        return False  # too costly to prove: say nothing rather than stall (lint is advice)
    s, r = _word(general), _word(specific)
    # reach[j]: s[:i] can match r[:j]
    reach = [True] + [False] * len(r)
    for ch in s:
        if ch == _STAR:
            seen = False
            for j in range(len(r) + 1):
                seen = seen or reach[j]
                reach[j] = seen
        else:
            nxt = [False] * (len(r) + 1)
            for j in range(len(r)):
                if reach[j] and r[j] == ch:
                    nxt[j + 1] = True
            reach = nxt
            if not any(reach):
                return False
    return reach[len(r)]


def matches(pattern: str, path: str, dialect: Dialect = "rfc9309") -> bool:
    """Whether ``pattern`` matches the URL path ``path``: the core's matcher and normalisers."""
    if not pattern:
        return False
    return pattern_matches(_core_pattern(pattern, dialect), SPECS[dialect].path(path))


def _beats(winner: Rule, loser: Rule, dialect: Dialect) -> bool:
    """Whether ``winner`` wins against ``loser`` wherever both match."""
    if dialect == "1994":  # first match (1996 draft 3.2.2)
        return winner.line < loser.line
    pw, pl = _priority(winner.pattern, dialect), _priority(loser.pattern, dialect)
    if pw != pl:
        return pw > pl
    if winner.allow != loser.allow:
        return winner.allow  # RFC 9309 2.2.2: allow wins ties
    return winner.line < loser.line


# How many rules that might shadow a rule are compared with it: the comparison is pairwise, so
# a file of 38,000 wildcard rules sharing one literal prefix would cost 38,000² inclusion
# tests; past the cap a rule's shadowing goes unreported (lint stays linear in the file).
_CANDIDATES: Final = 64
_COVERS_WORK: Final = 250_000  # cells of covers()' table at most (two 500-character patterns)


def _deciders(rules: Sequence[Rule], dialect: Dialect) -> dict[int, tuple[Rule, Rule]]:
    """For each dead rule (by index): ``(rule, the rule that always beats it)``.

    Rules with the same pattern are settled first, in one pass (the winner among them beats
    the others everywhere); then each remaining rule is compared with at most
    ``_CANDIDATES`` rules whose literal prefix is a prefix of its own.
    """
    legacy = dialect == "1994"
    dead: dict[int, tuple[Rule, Rule]] = {}
    best: dict[str, int] = {}  # pattern -> index of the rule that wins among its equals
    for i, r in enumerate(rules):
        if not r.pattern:
            continue
        j = best.get(r.pattern)
        if j is None:
            best[r.pattern] = i
        elif _beats(r, rules[j], dialect):
            dead[j] = (rules[j], r)
            best[r.pattern] = i
        else:
            dead[i] = (r, rules[j])
    live = sorted(best.values())
    by_prefix: dict[str, list[int]] = defaultdict(list)
    for i in live:
        prefix = rules[i].pattern if legacy else _literal_prefix(rules[i].pattern)
        by_prefix[prefix].append(i)
    prio = {i: _priority(rules[i].pattern, dialect) for i in live}
    if not legacy:  # the highest priorities first: a lower one can never beat the rule
        for bucket in by_prefix.values():
            bucket.sort(key=lambda j: -prio[j])
    for i in live:
        rule = rules[i]
        prefix = rule.pattern if legacy else _literal_prefix(rule.pattern)
        budget = _CANDIDATES
        for n in range(len(prefix), -1, -1):  # the nearest prefixes first
            for j in by_prefix.get(prefix[:n], ()):
                if not legacy and prio[j] < prio[i]:
                    break
                budget -= 1
                if budget < 0:
                    break
                other = rules[j]
                if j == i or not _beats(other, rule, dialect):
                    continue
                if legacy:
                    ok = rule.pattern.startswith(other.pattern)
                else:
                    ok = covers(other.pattern, rule.pattern)
                if ok:
                    dead[i] = (rule, other)
                    break
            if i in dead or budget < 0:
                break
    return dead


# -- groups -------------------------------------------------------------------------------


# (aliases as text: the model stays off the import path, issue 15)
Merged: TypeAlias = "dict[str, tuple[list[Group], list[Rule]]]"


def _merged(groups: Sequence[Group], dialect: Dialect) -> Merged:
    """Per lower-cased token: the groups naming it and the rules that apply (RFC 9309 2.2.1)."""
    out: dict[str, tuple[list[Group], list[Rule]]] = {}
    for g in groups:
        for tok in dict.fromkeys(t.lower() for t in g.tokens if t):
            named, rules = out.setdefault(tok, ([], []))
            if dialect == "1994" and named:
                named.append(g)  # 1994: only the first record applies
                continue
            named.append(g)
            rules.extend(g.rules)
    for _, rules in out.values():
        rules.sort(key=lambda r: r.line)
    return out


def _column(rules: RobotsTxt, rule: Rule) -> int:
    """Where the rule's value starts on its line, as the parser read it."""
    return rules._value_column(rule.line)


def _label(tok: str, named: Sequence[Group] = ()) -> str:
    """How a lower-cased token was written in the file (its first group), for messages."""
    if tok == "*":
        return "every crawler (*)"
    for g in named[:1]:
        for t in g.tokens:
            if t.lower() == tok:
                return t
    return tok


def _semantic(rules: RobotsTxt) -> Iterator[Finding]:
    dialect = rules.dialect
    merged = _merged(rules.groups, dialect)
    dead = {tok: _deciders(group_rules, dialect) for tok, (_, group_rules) in merged.items()}
    yield from _stars(rules)
    yield from _split(merged, dialect)
    for tok, (named, group_rules) in merged.items():
        yield from _dead(rules, _label(tok, named), dead[tok], dialect)
        yield from _case_variants(rules, group_rules)
    yield from _drops_star(merged, dead, dialect)
    yield from _blocks(rules, merged, dead, dialect)
    yield from _per_rule(rules)
    yield from _crawl_delay(rules)


def _all_rules(rules: RobotsTxt) -> Iterator[Rule]:
    seen: set[int] = set()
    for g in rules.groups:
        for r in g.rules:
            if r.line not in seen:
                seen.add(r.line)
                yield r


def _stars(rules: RobotsTxt) -> Iterator[Finding]:
    """L010: ``**`` and a trailing ``*`` (``/dir/*`` matches what ``/dir/`` matches)."""
    if rules.dialect == "1994":
        return  # no wildcards in 1994: a * is a literal character
    for r in _all_rules(rules):
        p = r.pattern
        if "**" in p:
            fixed = re.sub(r"\*{2,}", "*", p)
            yield finding("L010", r.line, _column(rules, r),
                        f"'{p}': consecutive * match the same as one",
                        f"{r.directive.capitalize()}: {fixed}")
        elif len(p) > 1 and p.endswith("*"):
            fixed = p.rstrip("*")
            yield finding(
                "L010", r.line, _column(rules, r),
                f"'{p}': a trailing * is implied; it matches the same paths as '{fixed}' "
                "(it only adds one to the rule's length in precedence)",
                f"{r.directive.capitalize()}: {fixed}",
            )


def _split(merged: Merged, dialect: Dialect) -> Iterator[Finding]:
    """L013: the same token in several groups: merged (RFC 9309 2.2.1), or ignored (1994)."""
    for tok, (named, _) in merged.items():
        if len(named) < 2:
            continue
        first = named[0]
        for g in named[1:]:
            if dialect == "1994":
                yield finding(
                    "L013", g.line, 1,
                    f"user-agent {_label(tok, named)} already has a group at line {first.line}; "
                    "crawlers of the 1994 standard obey only the first one, so this group is "
                    "ignored",
                    f"move these rules into the group at line {first.line}",
                    severity="warning",
                )
            else:
                yield finding(
                    "L013", g.line, 1,
                    f"user-agent {_label(tok, named)} also has a group at line {first.line}; "
                    "the groups are merged (RFC 9309 2.2.1), but older parsers use only the first",
                    f"move these rules into the group at line {first.line}",
                )


Dead: TypeAlias = "dict[int, tuple[Rule, Rule]]"


def _dead(rules: RobotsTxt, tok: str, dead: Dead, dialect: Dialect) -> Iterator[Finding]:
    """L011 / L012: rules that can never decide for ``tok``."""
    for rule, winner in dead.values():
        col = _column(rules, rule)
        scope = "" if tok.endswith("(*)") else f" for {tok}"
        if winner.pattern == rule.pattern and winner.directive == rule.directive:
            yield finding("L011", rule.line, col,
                        f"duplicate of line {winner.line}{scope}: '{rule}'", "delete this line")
        elif winner.pattern == rule.pattern:
            yield finding(
                "L012", rule.line, col,
                f"'{rule}' and line {winner.line} '{winner}' have the same pattern{scope}; "
                "allow wins (RFC 9309 2.2.2), so this line never decides",
                "delete one of the two lines",
            )
        elif winner.directive == rule.directive:
            continue  # same verdict either way: redundant, not wrong
        else:
            why = ("comes first (1994: first match wins)" if dialect == "1994"
                   else "matches every path it matches and is at least as long")
            yield finding(
                "L011", rule.line, col,
                f"'{rule}' never decides{scope}: line {winner.line} '{winner}' {why} "
                "(RFC 9309 2.2.2: most specific match wins)",
                f"delete this line, or make it longer than '{winner.pattern}'",
            )


def _case_variants(rules: RobotsTxt, group_rules: list[Rule]) -> Iterator[Finding]:
    """L026: two rules whose patterns differ only in case (paths are case-sensitive)."""
    seen: dict[str, Rule] = {}
    for r in group_rules:
        if not r.pattern:
            continue
        key = r.pattern.lower()
        first = seen.setdefault(key, r)
        if first is not r and first.pattern != r.pattern:
            yield finding(
                "L026", r.line, _column(rules, r),
                f"'{r.pattern}' and '{first.pattern}' (line {first.line}) differ only in case; "
                "paths match case-sensitively (RFC 9309 2.2.2), so they are two rules",
            )


def _blanket(rule: Rule) -> bool:
    return rule.directive == "disallow" and bool(rule.pattern) and covers(rule.pattern, "/")


def access_of(group_rules: Sequence[Rule], dialect: Dialect,
              dead: dict[int, tuple[Rule, Rule]] | None = None) -> tuple[str, Rule | None]:
    """``("blocked" | "partial" | "allowed", deciding rule)`` for one agent's merged rules.

    Blocked: a disallow matches every path and no allow can beat it. Allowed: every non-empty
    disallow is beaten everywhere by an allow. Partly blocked otherwise. ``dead`` is
    ``_deciders(group_rules)`` when the caller has it.
    """
    live = [r for r in group_rules if r.pattern]
    blankets = [r for r in live if _blanket(r)]
    if blankets:
        top = max(blankets, key=lambda r: (_priority(r.pattern, dialect), -r.line))
        if dialect == "1994":
            top = min(blankets, key=lambda r: r.line)
        opens = [r for r in live if r.allow and _beats(r, top, dialect)]
        return ("partial", top) if opens else ("blocked", top)
    if not any(not r.allow for r in live):
        return "allowed", None
    if dead is None:
        dead = _deciders(group_rules, dialect)
    dead_lines = {rule.line for rule, winner in dead.values() if winner.allow}
    alive = [r for r in live if not r.allow and r.line not in dead_lines]
    return ("partial", alive[0]) if alive else ("allowed", None)


def _drops_star(merged: Merged, dead: dict[str, Dead], dialect: Dialect) -> Iterator[Finding]:
    """L014: a named group exists, so the ``*`` rules do not apply to that crawler."""
    star = merged.get("*")
    if star is None:
        return
    star_disallows = [r for r in star[1] if not r.allow and r.pattern]
    if not star_disallows:
        return
    for tok, (named, group_rules) in merged.items():
        if tok == "*":
            continue
        if access_of(group_rules, dialect, dead[tok])[0] == "blocked":
            continue
        own = {(r.directive, r.pattern) for r in group_rules}
        missing = [r for r in star_disallows if (r.directive, r.pattern) not in own]
        if not missing:
            continue
        example = missing[0]
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        yield finding(
            "L014", named[0].line, 1,
            f"{_label(tok, named)} has its own group, so the * group does not apply to it "
            f"(RFC 9309 2.2.1): '{example}' (line {example.line}){more} do not apply to "
            f"{_label(tok, named)}",
            "repeat the * rules in this group if they should apply to it too",
        )


def _blocks(rules: RobotsTxt, merged: Merged, dead: dict[str, Dead],
            dialect: Dialect) -> Iterator[Finding]:
    """L022 (everything blocked for *) and L023 (CSS/JS blocked for search engines)."""
    star = merged.get("*")
    if star is not None:
        state, rule = access_of(star[1], dialect, dead["*"])
        if state == "blocked" and rule is not None:
            yield finding(
                "L022", rule.line, _column(rules, rule),
                f"'{rule}' for every crawler (*) blocks the whole site, search engines included "
                "(often left over from a staging site)",
                "delete it, or name the crawlers to block",
            )
    for tok, (named, group_rules) in merged.items():
        if tok not in _SEARCH_TOKENS:
            continue
        if access_of(group_rules, dialect, dead[tok])[0] == "blocked":
            continue
        dead_lines = {rule.line for rule, _ in dead[tok].values()}
        for r in group_rules:
            if r.allow or not r.pattern or r.line in dead_lines or not re.search(_ASSET, r.pattern):
                continue
            yield finding(
                "L023", r.line, _column(rules, r),
                f"'{r}' blocks stylesheets or scripts for {_label(tok, named)}; search engines "
                "need them to render pages and may rank them lower",
                f"delete it, or add 'Allow: {r.pattern}' in a group for Googlebot",
            )


def _per_rule(rules: RobotsTxt) -> Iterator[Finding]:
    """L024, L025, L027: one rule at a time (L024 once per file, it is advice on a habit)."""
    traps: list[Rule] = []
    for r in _all_rules(rules):
        p = r.pattern
        if r.allow or not p:
            continue
        if "robots" in p.lower() and matches(p, "/robots.txt", rules.dialect):
            yield finding(
                "L025", r.line, _column(rules, r),
                f"'{r}' matches /robots.txt, which is always allowed (RFC 9309 2.2.2)",
                "delete this line",
            )
        last = p.rsplit("/", 1)[-1]
        if (p.startswith("/") and len(p) > 1 and last and last[-1].isalnum()
                and not any(c in last for c in ".?=*$&%")):
            traps.append(r)
        if re.search(_SENSITIVE, p) and not any(p.startswith(x) for x in _NOT_SENSITIVE):
            yield finding(
                "L027", r.line, _column(rules, r),
                f"'{p}' is listed publicly: robots.txt tells everyone where it is, and it keeps "
                "no one out (RFC 9309 3)",
                "protect the path with authentication instead",
            )
    if traps:
        r = traps[0]
        p = r.pattern
        more = ""
        if len(traps) > 1:
            lines = ", ".join(str(t.line) for t in traps[1:6]) + (", ..." if len(traps) > 6 else "")
            more = f" ({len(traps) - 1} more rules like it: lines {lines})"
        yield finding(
            "L024", r.line, _column(rules, r),
            f"'{p}' is a prefix: it also blocks '{p}-old', '{p}ping' and '{p}.html'{more}",
            f"use '{p}/' for the directory only, or '{p}$' for that path only",
        )


def _crawl_delay(rules: RobotsTxt) -> Iterator[Finding]:
    """L028: huge crawl-delays (non-numbers come from the parser)."""
    for g in rules.groups:
        if g.crawl_delay is None or g.crawl_delay <= HUGE_CRAWL_DELAY:
            continue
        line = next((r.line for r in g.records if r.key.lower().replace(" ", "-") == "crawl-delay"),
                    g.line)
        yield finding(
            "L028", line, 1,
            f"crawl-delay {g.crawl_delay:g} s is huge (at most {86400 / g.crawl_delay:.0f} "
            "pages a day); many crawlers skip hosts above 30 s "
            "(Nutch, StormCrawler) or treat above 300 s as disallow all (crawler-commons)",
            "use at most 10",
        )


_ONCE_PER_LINE = frozenset({"L011", "L012", "L023"})  # not once per agent of the group


def _dedupe(findings: Iterable[Finding]) -> list[Finding]:
    findings = list(findings)
    # L041 says with the registry what L006 says in general about the same value
    misread = {f.line for f in findings if f.code == "L041"}
    seen: set[tuple[str, int, str]] = set()
    out = []
    for f in findings:
        if f.code == "L006" and f.line in misread:
            continue
        key = (f.code, f.line, "" if f.code in _ONCE_PER_LINE else f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


class _LintModule(types.ModuleType):
    """This module's class: ``robotrules.lint`` is the module (``import robotrules.lint as L``
    gives it), and calling it runs :func:`lint` (``robotrules.lint(body)``)."""

    def __call__(self, body: bytes | str, *, dialect: Dialect = "rfc9309",
                 content_type: str | None = None, status: int | None = None,
                 size: int | None = None, truncated: bool = False) -> list[Finding]:
        return lint(body, dialect=dialect, content_type=content_type, status=status,
                    size=size, truncated=truncated)


sys.modules[__name__].__class__ = _LintModule
