"""The words of verdicts: every sentence a :class:`~robotrules.Verdict`'s ``detail`` says.

One job: turning the facts of a verdict into a sentence for site owners. Each function here is
a pure function of facts (the lines of the groups that apply, the agent's product token, a
rule count, the deciding rule as written, the path); which facts hold is the facade's business
(:mod:`robotrules._robots`, which computes them through its peer) and never this module's.

A verdict's detail is written when it is first read: a query stores either the
sentence or ``(write, *facts)``, and :mod:`robotrules._model` calls ``write(verdict, *facts)``
on first read. The writers that need the verdict (its ``path``) are :func:`empty_rule` and
:func:`no_match`; :func:`written` reads either form. The facade stores
``(words, rules, detail)`` where the AI usage preferences join the sentence (``words``: its
``_preference_words``, which words them through :func:`joined`).
Tested sentence by sentence, each with its source, in ``tests/core/test_wording.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ._model import Verdict

__all__ = ["NO_GROUP", "ROBOTS_TXT", "decided", "empty_rule", "joined", "no_match", "where",
           "written"]

#: RFC 9309 2.2.2: "The /robots.txt URI is implicitly allowed."
ROBOTS_TXT: Final = "/robots.txt is always allowed (RFC 9309 2.2.2)"
#: RFC 9309 2.2.1: no group matches the agent and there is no "*" group: no rule applies.
NO_GROUP: Final = "no group applies to this user agent: everything is allowed"


def where(lines: Sequence[int], token: str, global_: bool) -> str:
    """Which group applies and why: ``lines`` are the first user-agent lines of the groups that
    apply (more than one: merged, RFC 9309 2.2.1), ``token`` the agent's product token,
    ``global_`` whether they apply as the ``*`` group (no group names the token)."""
    joined_lines = ", ".join(str(n) for n in lines)
    at = f"line {joined_lines}" if len(lines) == 1 else f"lines {joined_lines}, merged"
    if global_:
        if token in ("", "*"):
            return f"the '*' group ({at}) applies"
        return f"no group names '{token}', so the '*' group ({at}) applies"
    return f"the group for '{token}' ({at}) applies"


def decided(line: int, rule: str, allows: bool, where: str) -> str:
    """A rule decided: its line, the rule as written (``Disallow: /x``), its verb, and which
    group applies (:func:`where`)."""
    verb = "allows" if allows else "disallows"
    return f"line {line} '{rule}' {verb} it ({where})"


def empty_rule(v: Verdict, where: str, line: int, rule: str) -> str:
    """No pattern matched, and the groups have an empty rule: Google reports that line (robots.cc
    ``Match::HigherPriorityMatch`` at priority 0), and an empty rule allows everything."""
    return (f"{where}; no rule with a pattern matches {v.path!r}, and line {line} '{rule}' "
            "is empty: it allows everything (RFC 9309 2.2.2)")


def no_match(v: Verdict, where: str, count: int) -> str:
    """A group applies and none of its ``count`` rules matches the path: allowed."""
    return (f"{where}; none of its {count} rule(s) matches {v.path!r}, so it is allowed (a "
            "path no rule matches is allowed, RFC 9309 2.2.2)")


def written(v: Verdict, detail: object) -> str:
    """A stored detail read as a sentence: the text itself, or ``(write, *facts)`` written."""
    if type(detail) is str:
        return detail
    facts: tuple[Any, ...] = detail  # type: ignore[assignment]
    return facts[0](v, *facts[1:])  # type: ignore[no-any-return]


def joined(text: str, preferences: str) -> str:
    """The sentence of an allowed verdict followed by the AI usage preferences that apply
    (:func:`robotrules.aipref.explain_detail`), when there are any."""
    return f"{text}; {preferences}" if preferences else text
