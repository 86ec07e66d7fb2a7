"""TDMRep (W3C TDM Reservation Protocol, Final Community Group Report 2024-05-10): the file.

``/.well-known/tdmrep.json`` is an array of ``{location, tdm-reservation, tdm-policy}``;
locations are REP patterns (``*``, final ``$``, %-escapes) and the *first* matching entry wins.
Each becomes a statement of the category ``tdm``: ``tdm-reservation: 1`` (rights reserved) is
``False``, ``0`` is ``True``. Locations are read by the core's pattern reader exactly as an
Allow/Disallow pattern of the rfc9309 dialect (:mod:`robotrules.aipref._paths`): any Unicode
location is its UTF-8 percent-encoding. Fetching lives in :mod:`robotrules._tdmrep_policy`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .._match import pattern_matches
from .._url import rfc_path
from ._paths import pattern
from ._values import Statement
from .vocabulary import TDM

__all__ = ["TdmRep", "TdmRule", "parse_tdmrep"]


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
            if pattern_matches(pattern(r.location, "rfc9309"), path):
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
    except (ValueError, UnicodeError, RecursionError) as exc:
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
