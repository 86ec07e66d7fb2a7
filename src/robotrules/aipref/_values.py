"""The values every AI-preference signal becomes: :class:`Statement` and :func:`combine`.

A statement says where it came from (``source``), its robots.txt line (or ``None`` for an HTTP
header, tdmrep.json or an RSL document), the raw text, and a small mapping of *categories* to a
three-state value: ``True`` (allowed), ``False`` (disallowed) or ``None`` (stated but unknown).
A category a statement does not mention is absent (unknown). :func:`combine` is the AIPREF
vocabulary's "most restrictive" rule (vocab-07 "Combining Preferences"), the one operation
everything downstream uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["Scope", "Statement", "Tri", "combine"]

Tri = bool | None
Scope = Literal["group", "file"]


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of preference and where it came from.

    ``source``: ``content-usage``, ``content-signal``, ``llm-policy``, ``license`` (robots.txt
    lines), ``policy-token`` (a group naming a policy token), ``http-content-usage``,
    ``http-tdm`` (response headers), ``tdmrep`` (``/.well-known/tdmrep.json``) or ``rsl`` (an
    RSL licence document). ``line`` is the robots.txt line (``None`` otherwise); ``raw`` the
    value as written; ``key`` the field name as written. ``prefs`` holds the categories the
    statement mentions, each ``True`` / ``False`` / ``None`` (present but not a valid value);
    ``path`` the Content-Usage path (``None``: every path); ``error`` why the preference did not
    parse (then ``prefs`` is empty: every category unknown); ``ignored`` the keys ignored
    (unknown or superseded labels); ``extra`` non-category data (``use``, ``tdm-policy``, the
    LLM-Policy or License URL); ``duplicates`` keys given more than once.
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
            "path": _readable(self.path),
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


def _readable(path: str | None) -> str | None:
    """A path for people and JSON: bytes that are not UTF-8 (kept as lone surrogates, see
    ``parse_content_usage``) shown as U+FFFD, like the rest of the line."""
    if path is None or path.isascii():
        return path
    try:
        data = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = path.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", "replace")
