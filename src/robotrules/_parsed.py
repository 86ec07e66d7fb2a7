"""What the features and analyses read of a parsed robots.txt: the :class:`ParsedFile` Protocol.

AI usage preferences (:mod:`robotrules.aipref`), the linter (:mod:`robotrules.lint`), the
user-agent check (:mod:`robotrules._ua_lint`) and the crawler registry
(:mod:`robotrules.agents`) take a parsed file through this surface alone: its records and
groups as the reading gives them, and the decisions of the matching (which groups apply, the
verdict of a URL). :class:`robotrules.RobotsTxt` satisfies it (mypy holds it to it in
:mod:`robotrules._robots`); nothing here names the facade or a private method of it, so the
layer below the facade depends only on this contract (docs/architecture.md, Layers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ._model import Group, Record, Verdict
    from ._types import Dialect

__all__ = ["ParsedFile"]


class ParsedFile(Protocol):
    """A parsed robots.txt as its readers see it (see the module docstring)."""

    @property
    def dialect(self) -> Dialect:
        """The dialect the file was read in."""
        ...

    @property
    def groups(self) -> tuple[Group, ...]:
        """Every group of the file, in file order (not merged)."""
        ...

    @property
    def records(self) -> tuple[Record, ...]:
        """The records outside any group, in file order."""
        ...

    @property
    def all_records(self) -> tuple[Record, ...]:
        """Every record of the file: the groups' (in group order), then those outside."""
        ...

    @property
    def agent_lines(self) -> tuple[tuple[int, str], ...]:
        """Each user-agent line of the groups, ``(line, value as written)``, in group order."""
        ...

    def value_column(self, line: int) -> int:
        """The 1-based column where the value of the directive on ``line`` starts."""
        ...

    def group_for(self, user_agent: str) -> Group | None:
        """The group that applies to ``user_agent`` (merged when several name it), or None."""
        ...

    def selected_groups(self, user_agent: str) -> tuple[int, ...]:
        """The indices (in :attr:`groups`) of the groups that apply to ``user_agent``."""
        ...

    def explain(self, url: str, *, user_agent: str = "*") -> Verdict:
        """The verdict of ``url`` for ``user_agent``, with what decided it."""
        ...

    def is_allowed(self, url: str, *, user_agent: str = "*") -> bool:
        """May ``user_agent`` fetch ``url``?"""
        ...
