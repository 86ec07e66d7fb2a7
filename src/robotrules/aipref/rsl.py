"""RSL 1.0 (Really Simple Licensing, RSL-SPEC-1.0, 2025-11-06): the licence document (sans-I/O).

Discovery: a robots.txt ``License:`` line with an absolute URI, or a ``Link: <...>;
rel="license"; type="application/rsl+xml"`` response header (:func:`license_urls`). The document
is XML in the namespace ``https://rslstandard.org/rsl``: ``<rsl>`` holds ``<content url=...
server=...>`` elements (the ``url`` a full URL or a path following RFC 9309's URL matching,
``*`` and ``$`` included), each with ``<license>`` elements holding ``<permits type="usage">``
and ``<prohibits type="usage">`` (comma-separated usage tokens) and ``<payment type=...>`` with
``<amount currency=...>`` (and ``<standard>``/``<custom>`` rate cards).

Parsing (:func:`parse_rsl`) uses ``defusedxml`` (no DTD, no entity, no external reference) on at
most ``max_bytes``; it never raises on content: a document that cannot be used gives no content
and an error. Evaluating a URL (:meth:`RslDocument.terms`): the ``<content>`` whose path matches
with the longest pattern (RFC 9309 2.2.2's most specific match; the first in document order
on a tie) decides; per usage token (:data:`RSL_USAGES`), a ``prohibits`` that covers it gives
``False``; a ``permits`` that covers it gives ``True`` with that licence's payment; a licence
with a ``permits type="usage"`` list that does not cover it gives ``False`` (nothing else is
granted); a licence without one permits every usage it does not prohibit. ``all`` covers every
usage and ``ai-all`` every ``ai-*`` usage. Which element wins between several ``<content>`` and
the reading of a missing ``permits`` are robotrules' readings of the element descriptions (see
docs/ai-preferences.md for what rests on the specification and what on secondary descriptions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from .._origin import origin_or_none
from .._patterns import match_length
from .._url import path_params_query, resolved, rfc_path
from ._paths import pattern
from ._values import Statement, Tri
from .headers import license_links
from .usage import records

if TYPE_CHECKING:
    from .._parsed import ParsedFile

__all__ = ["RSL_MEDIA_TYPE", "RSL_NAMESPACE", "RSL_USAGES", "RslContent", "RslDocument",
           "RslLicense", "RslPayment", "RslTerms", "license_urls", "parse_rsl"]

RSL_NAMESPACE: Final = "https://rslstandard.org/rsl"
RSL_MEDIA_TYPE: Final = "application/rsl+xml"
#: RSL usage tokens (AI-PREFERENCES.md 7.2; rslstandard.org): ``all`` and ``ai-all`` are
#: umbrella tokens.
RSL_USAGES: Final = ("all", "ai-all", "ai-train", "ai-input", "ai-index", "search")
DEFAULT_RSL_MAX_BYTES: Final = 512 * 1024
_NS: Final = "{" + RSL_NAMESPACE + "}"


@dataclass(frozen=True, slots=True)
class RslPayment:
    """A ``<payment>``: its ``type`` (``free`` when absent), amounts ``(value, currency)`` and
    the rate-card URLs of ``<standard>`` / ``<custom>``."""

    type: str = "free"
    amounts: tuple[tuple[str, str | None], ...] = ()
    standard: str | None = None
    custom: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type,
                "amounts": [{"amount": a, "currency": c} for a, c in self.amounts],
                "standard": self.standard, "custom": self.custom}


@dataclass(frozen=True, slots=True)
class RslLicense:
    """A ``<license>``: permitted and prohibited usages (``None``: no list of that kind), and
    its payments."""

    permits: tuple[str, ...] | None
    prohibits: tuple[str, ...]
    payments: tuple[RslPayment, ...]


@dataclass(frozen=True, slots=True)
class RslContent:
    """A ``<content>``: the asset pattern, its licence server, its licences."""

    url: str
    server: str | None
    licenses: tuple[RslLicense, ...]


def _covers(token: str, usage: str) -> bool:
    return token == usage or token == "all" or (token == "ai-all" and usage.startswith("ai-"))


@dataclass(frozen=True, slots=True)
class RslTerms:
    """What one RSL document says about one URL: per usage token ``True`` (permitted),
    ``False`` (prohibited or not granted) or ``None`` (no ``<content>`` matches); the payments
    attached to each permitted usage; the licence server (a licence must then be obtained)."""

    url: str
    content: RslContent | None
    usages: Mapping[str, Tri]
    payments: Mapping[str, tuple[RslPayment, ...]]
    server: str | None

    def permits(self, usage: str) -> Tri:
        return self.usages.get(usage)

    def statement(self, source_url: str = "") -> Statement:
        """These terms as a statement (source ``rsl``, categories the RSL usage tokens)."""
        return Statement("rsl", None, source_url, tuple(self.usages.items()),
                         self.content.url if self.content else None,
                         extra=(("license", source_url),) if source_url else (), key="rsl")

    def to_dict(self) -> dict[str, object]:
        return {"url": self.url, "content": self.content.url if self.content else None,
                "server": self.server, "usages": dict(self.usages),
                "payments": {k: [p.to_dict() for p in v] for k, v in self.payments.items()}}


@dataclass(frozen=True, slots=True)
class RslDocument:
    """A parsed RSL document. ``errors``: what was wrong (empty for a clean document)."""

    contents: tuple[RslContent, ...]
    errors: tuple[str, ...] = ()
    base: str | None = field(default=None, compare=False)

    def _matches(self, c: RslContent, url: str, path: str) -> int:
        target = c.url
        if "://" in target:  # a full URL: same origin, then its path as a pattern
            # origins compared as robots.txt's are (RFC 9309 2.3: scheme, host, port; IDN and
            # default ports canonical), the pattern read by the URL home as a query's path is
            origin = origin_or_none(target)
            if origin is None or origin != origin_or_none(url):
                return -1
            target = path_params_query(target)
        elif not target.startswith(("/", "*")):
            return -1
        return match_length(pattern(target, "rfc9309"), path)

    def content_for(self, url: str) -> RslContent | None:
        """The ``<content>`` that decides for ``url`` (longest matching pattern, first on ties)."""
        path = rfc_path(url)
        best, chosen = -1, None
        for c in self.contents:
            n = self._matches(c, url, path)
            if n > best:
                best, chosen = n, c
        return chosen

    def terms(self, url: str, usages: Iterable[str] = RSL_USAGES[2:]) -> RslTerms:
        """The terms for ``url``, per usage token (the specific ones by default)."""
        c = self.content_for(url)
        out: dict[str, Tri] = {}
        pay: dict[str, tuple[RslPayment, ...]] = {}
        for usage in usages:
            if c is None:
                out[usage] = None
                continue
            verdict: Tri = None
            for lic in c.licenses:
                if any(_covers(t, usage) for t in lic.prohibits):
                    verdict = False
                    break
                granted = lic.permits is None or any(_covers(t, usage) for t in lic.permits)
                if granted and verdict is not True:
                    verdict = True
                    pay[usage] = lic.payments
                elif not granted and verdict is None:
                    verdict = False
            out[usage] = verdict
            if verdict is not True:
                pay.pop(usage, None)
        return RslTerms(url, c, out, pay, c.server if c else None)


def _text(el: object) -> str:
    t = getattr(el, "text", None)
    return t.strip() if isinstance(t, str) else ""


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(t.strip().lower() for t in text.split(",") if t.strip())


def parse_rsl(body: bytes | str, *, max_bytes: int = DEFAULT_RSL_MAX_BYTES,
              base: str | None = None) -> RslDocument:
    """An RSL document's bytes as an :class:`RslDocument`; never raises on content.

    Refused (no content, one error): more than ``max_bytes``; a DTD, entity or external
    reference (``defusedxml``); XML that does not parse; a root other than ``<rsl>``.
    """
    try:
        from defusedxml import ElementTree as ET
        from defusedxml.common import DefusedXmlException
    except ImportError as exc:  # pragma: no cover - an optional dependency
        raise ImportError("RSL documents are parsed with defusedxml: "
                          "pip install 'robotrules[rsl]'") from exc
    from xml.etree.ElementTree import ParseError

    data = body.encode("utf-8") if isinstance(body, str) else body
    if len(data) > max_bytes:
        return RslDocument((), (f"larger than {max_bytes:,} bytes: not read",), base)
    try:
        root = ET.fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        return RslDocument((), (f"refused: {type(exc).__name__} (DTDs, entities and external "
                                "references are not read)",), base)
    except (ParseError, ValueError, RecursionError) as exc:
        return RslDocument((), (f"not XML: {exc}",), base)
    errors: list[str] = []
    tag = root.tag if isinstance(root.tag, str) else ""
    if tag == "rsl":
        errors.append(f"the <rsl> element lacks xmlns=\"{RSL_NAMESPACE}\"")
        ns = ""
    elif tag == _NS + "rsl":
        ns = _NS
    else:
        return RslDocument((), (f"the root element is <{tag}>, not <rsl>",), base)
    contents: list[RslContent] = []
    for i, c in enumerate(root.findall(ns + "content")):
        url = (c.get("url") or "").strip()
        if not url:
            errors.append(f"content {i}: 'url' missing")
            continue
        licenses: list[RslLicense] = []
        for lic in c.findall(ns + "license"):
            permits: list[str] | None = None
            prohibits: list[str] = []
            for p in lic.findall(ns + "permits"):
                if (p.get("type") or "usage").lower() == "usage":
                    permits = (permits or []) + list(_tokens(_text(p)))
            for p in lic.findall(ns + "prohibits"):
                if (p.get("type") or "usage").lower() == "usage":
                    prohibits.extend(_tokens(_text(p)))
            payments = tuple(
                RslPayment(
                    (pay.get("type") or "free").strip().lower(),
                    tuple((_text(a), a.get("currency")) for a in pay.findall(ns + "amount")),
                    _text(pay.find(ns + "standard")) or None,
                    _text(pay.find(ns + "custom")) or None)
                for pay in lic.findall(ns + "payment"))
            unknown = [t for t in (*(permits or ()), *prohibits) if t not in RSL_USAGES]
            if unknown:
                errors.append(f"content {i}: unknown usage {', '.join(unknown)}")
            licenses.append(RslLicense(None if permits is None else tuple(permits),
                                       tuple(prohibits), payments))
        server = (c.get("server") or "").strip() or None
        contents.append(RslContent(url, server, tuple(licenses)))
    if not contents:
        errors.append("no <content> element")
    return RslDocument(tuple(contents), tuple(errors), base)


def license_urls(rules: ParsedFile, headers: Mapping[str, str] | None = None,
                 base: str | None = None) -> tuple[str, ...]:
    """Where the licences of a site are: each robots.txt ``License:`` value (resolved against
    ``base``, the robots.txt URL, when relative) and each ``Link`` header with
    ``rel="license"`` of the response, in that order, without duplicates."""
    out: list[str] = []
    for s in records(rules):
        url = resolved(s.raw.strip(), base) if s.source == "license" else None
        if url:  # an empty value, or one urllib cannot read (lint: L043), names none
            out.append(url)
    if headers is not None:
        out.extend(url for url, _ in license_links(headers, base))
    return tuple(dict.fromkeys(out))
