"""The finding catalogue and the one factory that makes findings.

Every oddity robotrules reports (the parser's structural findings and the linter's semantic
ones) is a :class:`~robotrules._model.Finding` made by :func:`finding` from an entry of
:data:`CATALOGUE`: the code's stable slug (``kind``) and default severity live here and only
here. A call site gives the line, column, message and fix, and may raise or lower the
severity where the same check has graver and milder cases (an HTTP 503 is an error, a 404
only information); the kind is never given by a call site.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from . import _later
from ._types import Severity

if TYPE_CHECKING:
    from ._model import Finding

__all__ = ["CATALOGUE", "CatalogueEntry", "code_range", "finding"]


class CatalogueEntry:
    """One code of the catalogue: its stable slug, default severity and what it means. It
    unpacks like a tuple (``kind, severity, description = entry``); a plain class, not a
    ``NamedTuple``, whose creation would cost ``import robotrules`` about 2 ms."""

    __slots__ = ("description", "kind", "severity")

    def __init__(self, kind: str, severity: Severity, description: str) -> None:
        self.kind: Final = kind
        self.severity: Final[Severity] = severity
        self.description: Final = description

    def __iter__(self) -> Iterator[str]:
        return iter((self.kind, self.severity, self.description))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CatalogueEntry):
            return NotImplemented
        return tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return (f"CatalogueEntry(kind={self.kind!r}, severity={self.severity!r}, "
                f"description={self.description!r})")


# Severity: "error" when the line does not do what it says for the crawlers it addresses (it
# is ignored, never applies, or only some parsers read it as written: a rule before any
# user-agent, a misspelt or colon-less key, a pattern that cannot match, a rule that can never
# decide, an unreadable crawl-delay, a relative sitemap, a file that is not text); "warning"
# when it works but is likely not what was meant; "info" for advice (docs/lint.md, Severity).
_ENTRIES: Final[dict[str, tuple[str, Severity, str]]] = {
    "L001": ("unknown-directive", "warning", "key not in the known set"),
    "L002": ("unsupported-directive", "info", "known key the target engine ignores"),
    "L003": ("typo-directive", "error", "misspelt key, e.g. Dissalow, User agent"),
    "L004": ("missing-colon", "error", "no colon between key and value"),
    "L005": ("rule-outside-group", "error", "rule before the first user-agent line"),
    "L006": ("ua-not-token", "warning",
             "user-agent value that is a full UA string or not a product token"),
    "L007": ("empty-ua", "error", "user-agent line without a value"),
    "L008": ("path-not-slash", "error", "pattern not empty and not starting with /"),
    "L009": ("dollar-not-last", "error", "$ that is not the last character"),
    "L010": ("redundant-star", "info", "trailing * or ** that changes nothing it matches"),
    "L011": ("shadowed-rule", "error",
             "rule that can never decide: duplicate or overridden"),
    "L012": ("conflicting-equal", "info", "allow and disallow with the same pattern"),
    "L013": ("split-groups", "info", "the same user-agent in several groups"),
    "L014": ("specific-group-drops-star", "info",
             "a named group stops the * rules applying"),
    "L015": ("sitemap", "error",
             "sitemap URL that is not absolute http(s), or listed twice"),
    "L016": ("bare-url-line", "warning", "a line that is only a URL"),
    "L017": ("encoding", "info", "byte order mark, or not UTF-8"),
    "L018": ("too-big", "error", "file over 500 KiB: the rest is ignored"),
    "L019": ("line-too-long", "warning",
             "line longer than the 16,663 bytes Google reads of a line"),
    "L020": ("html", "error", "HTML served as robots.txt, or HTML markup in it"),
    "L021": ("bad-status", "error", "HTTP status that overrides the file"),
    "L022": ("blocks-everything", "warning", "Disallow: / for every crawler"),
    "L023": ("blocks-assets", "warning", "stylesheets or scripts blocked for search engines"),
    "L024": ("trailing-slash-trap", "info",
             "prefix without a slash also blocks longer names"),
    "L025": ("self-block", "info", "disallowing /robots.txt has no effect"),
    "L026": ("case-sensitivity", "info", "rules that differ only in letter case"),
    "L027": ("sensitive-path-leak", "info", "robots.txt advertises a private-looking path"),
    "L028": ("extension-value", "error",
             "crawl-delay, request-rate or visit-time unreadable, or a huge crawl-delay"),
    "L029": ("junk", "warning",
             "NUL bytes, or a line that is not 'field: value' (ignored)"),
    "L030": ("ua-joins-group", "warning",
             "user-agent line joining a group that has no rules yet"),
    # AI usage preferences (robotrules.aipref; docs/ai-preferences.md)
    "L031": ("aipref-superseded-label", "warning",
             "an older AIPREF vocabulary label (ai, genai, tdm ...): use the current one"),
    "L032": ("content-usage-yes-no", "warning", "yes/no in Content-Usage means unknown: y/n"),
    "L033": ("content-signal-y-n", "warning", "y/n in Content-Signal means unknown: yes/no"),
    "L034": ("content-usage-unparsable", "error",
             "a preference that does not parse: every category of the line unknown"),
    "L035": ("aipref-duplicate-key", "warning", "a preference key given twice: the last wins"),
    "L036": ("content-signal-unknown-key", "warning",
             "a Content-Signal key other than search, ai-input, ai-train, use"),
    "L037": ("content-usage-path-not-slash", "warning",
             "a Content-Usage path not starting with /: read as part of the preference"),
    "L038": ("content-usage-on-disallowed", "warning",
             "Content-Usage only on paths the group disallows: no effect"),
    "L039": ("preferences-only-global", "warning",
             "preferences only in the * group while named groups exist"),
    "L040": ("preference-outside-group", "warning",
             "Content-Signal or Content-Usage before any user-agent line"),
    "L041": ("ua-token-misread", "error",
             "a user-agent value Google reads as another crawler's token (AI2Bot is AI)"),
    # AI usage preferences (robotrules.aipref.findings; docs/ai-preferences.md)
    "L042": ("aipref-lines", "info",
             "AI usage-preference lines, named once: usage preferences Google ignores"),
    "L043": ("license-not-absolute", "warning",
             "a License: value that is not an absolute http(s) URI (RSL 1.0)"),
    "L044": ("rsl-media-type", "warning",
             "an RSL document not served as application/rsl+xml"),
    "L045": ("policy-token-group", "info",
             "a group naming a policy token: a usage statement, not a crawler"),
    "L046": ("content-signal-key-in-content-usage", "warning",
             "a Content-Signal key (ai-train ...) in Content-Usage: states nothing"),
    "L047": ("content-usage-value", "warning",
             "a Content-Usage value other than the tokens y and n: unknown"),
    # the file as bytes: what is not a text file at all
    "L048": ("not-text", "error", "NUL bytes: binary data, not a text file"),
    "L049": ("unterminated-line", "error",
             "a line that runs on past the 500 KiB crawlers read: they drop it"),
}
CATALOGUE: Final[dict[str, CatalogueEntry]] = {
    code: CatalogueEntry(*entry) for code, entry in _ENTRIES.items()}


def finding(code: str, line: int, column: int, message: str, fix: str | None = None, *,
            severity: Severity | None = None) -> Finding:
    """The finding ``code`` at ``line``/``column`` (1-based; line 0: the whole file)."""
    global _FINDING
    entry = CATALOGUE[code]
    make = _FINDING
    if make is None:  # the model, imported on the first finding (import cost: _later)
        make = _FINDING = _later.model().Finding
    made: Finding = make(code, entry.kind, severity or entry.severity, line, column, message,
                         fix)
    return made


_FINDING: type[Finding] | None = None


def code_range() -> str:
    """``L001–L049``: the first and last codes of the catalogue, for help texts and docs."""
    codes = sorted(CATALOGUE)
    return f"{codes[0]}–{codes[-1]}"
