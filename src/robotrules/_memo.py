"""A process-wide memo of what short texts read as, bounded by bytes rather than by entries.

The same preference texts (``train-ai=n``) and paths recur across the lines of a file and
across files, so their readings are worth keeping from one file to the next. A memo bounded
only by its number of entries lets one hostile file (500 KiB of distinct Content-Usage lines)
leave megabytes of readings behind in the process after the call that read it. So a
:class:`TextMemo` keeps only texts of at most ``max_text`` characters, charges each entry an
estimate of what it holds (``entry_bytes`` plus ``char_bytes`` per character of the text: the
key and the reading, measured with ``tracemalloc`` on CPython 3.11, 64-bit, on the widest
readings: one key per two characters), and drops the oldest entries first once ``budget``
bytes would be passed. A longer text is read every time it is asked for: it costs as much to
read as to find. Worst case: about ``budget`` bytes per memo, whatever files the process reads.

Threading: a look-up is one dict read; an insert and the evictions it causes hold a lock, so
the byte count stays exact. Two threads may read the same text at once; both readings are
equal and the first one kept wins.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final, Generic, TypeVar, cast

__all__ = ["TextMemo"]

_V = TypeVar("_V")
_MISSING: Final = object()  # (a reading may be any value, None included)


class TextMemo(Generic[_V]):
    """``make(text, variant)``, kept for short texts within a byte budget (module docstring).

    ``variant`` is a short name the reading also depends on (a vocabulary, a dialect)."""

    __slots__ = ("_entries", "_lock", "_make", "budget", "char_bytes", "entry_bytes", "kept",
                 "max_text")

    def __init__(self, make: Callable[[str, str], _V], *, budget: int, max_text: int,
                 entry_bytes: int, char_bytes: int) -> None:
        self._make = make
        self._entries: dict[tuple[str, str], object] = {}
        self._lock = threading.Lock()
        self.budget = budget
        self.max_text = max_text
        self.entry_bytes = entry_bytes
        self.char_bytes = char_bytes
        self.kept = 0  # estimated bytes of the entries kept

    def cost(self, text: str) -> int:
        """The estimated bytes an entry for ``text`` keeps."""
        return self.entry_bytes + self.char_bytes * len(text)

    def __call__(self, text: str, variant: str) -> _V:
        key = (text, variant)
        hit = self._entries.get(key, _MISSING)
        if hit is not _MISSING:
            return cast("_V", hit)
        value = self._make(text, variant)
        if len(text) <= self.max_text:
            self._keep(key, value)
        return value

    def _keep(self, key: tuple[str, str], value: object) -> None:
        cost = self.cost(key[0])
        entries = self._entries
        with self._lock:
            if key in entries:
                return
            while entries and self.kept + cost > self.budget:
                oldest = next(iter(entries))
                del entries[oldest]
                self.kept -= self.cost(oldest[0])
            entries[key] = value
            self.kept += cost

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self.kept = 0
