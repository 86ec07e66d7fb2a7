"""The local HTTP site the compat tests read from (a helper, not a test)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Site:
    base: str
    routes: dict[str, tuple[int, bytes, dict[str, str]]]
    seen: list[tuple[str, str]] = field(default_factory=list)  # (path, User-Agent)

    def url(self, path: str) -> str:
        return self.base + path
