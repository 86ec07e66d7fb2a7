"""The selector: which peer reads a file, decided here and nowhere else.

Two peers read robots.txt files with one surface (:class:`robotrules._peer.Peer`): the native
kernel (:class:`robotrules._native.Doc`, Cython) and the pure-Python core
(:class:`robotrules._pure.PurePeer`, the reference). Once, at import: the native peer is used
unless ``ROBOTRULES_PURE=1`` asks for the pure one or it was not built (no C compiler at
install time; said once, with a ``RuntimeWarning``). Then per input (:func:`peer_for`): a
dialect the kernel does not match (1994) or a body past its cap (:data:`MAX_NATIVE_BODY`)
goes to the pure peer. Nothing else chooses: the kernel never calls back into Python to
answer, and the facade (:class:`robotrules.RobotsTxt`) asks whichever peer it got.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Final, TypeVar

from . import _later, _pure
from ._pure import PurePeer

if TYPE_CHECKING:
    from ._native import Doc
    from ._peer import Peer
    from ._types import Dialect

    # mypy holds both peers to the declared surface
    _PURE_HAS_IT: type[Peer] = PurePeer
    _NATIVE_HAS_IT: type[Peer] = Doc

__all__ = ["MAX_NATIVE_BODY", "NATIVE", "NATIVE_DIALECTS", "NativePeer", "PurePeer",
           "decide_strings", "fast_constructor", "peer_for"]

_T = TypeVar("_T")
_native: ModuleType | None = None
if os.environ.get("ROBOTRULES_PURE") != "1":
    try:
        from . import _native
    except ImportError:  # pragma: no cover - a build without a C compiler
        _native = None
        # An install without a compiler must not fall back silently. Said once, at
        # import; ROBOTRULES_PURE=1 chooses the pure core on purpose and silences it.
        import warnings

        warnings.warn("robotrules: the native kernels are not built (no C compiler at install "
                      "time?), so the pure-Python core answers, 10 to 20 times slower; "
                      "reinstall with a compiler, bypassing pip's wheel cache (pip install "
                      "--no-cache-dir --force-reinstall ...), or set ROBOTRULES_PURE=1 to "
                      "choose it",
                      RuntimeWarning, stacklevel=2)

#: True when the native peer is in use (for the dialects and sizes it reads).
NATIVE: Final[bool] = _native is not None
#: The native peer's class, or None where it is not in use.
NativePeer: Final[type[Doc] | None] = _native.Doc if _native is not None else None
#: The dialects the native peer reads (none where it is not in use).
NATIVE_DIALECTS: Final[frozenset[str]] = frozenset(
    _native.DIALECTS if _native is not None else ())
#: The longest body the native peer reads (its offsets are 32-bit); a longer one is pure.
MAX_NATIVE_BODY: Final[int] = _native.MAX_BODY if _native is not None else 0


def peer_for(body: bytes, dialect: Dialect) -> type[Doc] | type[PurePeer]:
    """The peer class that reads ``body`` in ``dialect``: the native one where it is in use
    and reads both, else the pure one."""
    if NativePeer is not None and dialect in NATIVE_DIALECTS and len(body) <= MAX_NATIVE_BODY:
        return NativePeer
    return PurePeer


def fast_constructor(cls: type[_T], order: Sequence[str] | None = None) -> Callable[..., _T]:
    """A constructor of the slotted dataclass ``cls`` (``Verdict``, ``Usage``, ``Decisions``)
    that stores every field without a Python frame (the native module's ``Maker``)
    where the native peer is in use; else ``cls`` itself. Either builds the same value.
    ``order``, unless None, names every field in the order the constructor takes them."""
    names = list(getattr(cls, "__dataclass_fields__", ()))  # in field order
    if order is not None and sorted(order) != sorted(names):
        raise ValueError(f"order must name the fields of {cls.__name__} once each")
    if _native is None:
        if order is None:
            return cls
        at = [list(order).index(n) for n in names]
        return lambda *values: cls(*[values[i] for i in at])
    slots = _later.model().field_slots(cls)
    if order is not None:
        slots = tuple(slots[names.index(n)] for n in order)
    make: Callable[..., _T] = _native.Maker(cls, slots)
    return make


def decide_strings(peer: Peer, offsets: object, data: object, rows: object, user_agent: str,
                   no_match: tuple[int, int], out: tuple[object, object, object, object],
                   base: int) -> tuple[int, ...]:
    """The batch API on Arrow string buffers (:func:`robotrules._pure.decide_strings` says
    what it takes and gives) by the peer that read the file: the native kernel's
    (``_kernel/arrow.pxi``) for the native peer, the pure one for the pure peer."""
    if NativePeer is not None and isinstance(peer, NativePeer):
        assert _native is not None
        rules: tuple[int, ...] = _native.decide_strings(peer, offsets, data, rows, user_agent,
                                                        no_match, out, base)
        return rules
    return _pure.decide_strings(peer, offsets, data, rows, user_agent, no_match, out, base)
