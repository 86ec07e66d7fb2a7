"""Stand-ins for the model's classes in the facade's namespace, until the first value is built.

:mod:`robotrules._robots` builds :class:`~robotrules._model.Verdict`, ``Rule``, ``Group``,
``Record`` and ``Decisions`` values in many methods, none of which a parse or an
``is_allowed`` query runs; importing :mod:`robotrules._model` with it would load
``dataclasses`` (and through it ``inspect``, ``ast``, ``dis``, ``tokenize``: some 6 ms of
``import robotrules``, issue 15; ``tests/core/test_import_cost.py`` guards it). So the facade
binds stand-ins made by :func:`stand_ins`, handing over its own namespace (type checkers see
the real classes). The first call of a stand-in imports the model, puts the real class in its
place in that namespace, and builds the value: every later call there is a plain call of the
class, at no cost.
"""

from __future__ import annotations

from typing import Any

__all__ = ["stand_ins"]


class _Later:
    """Stands for the class ``name`` of :mod:`robotrules._model` in ``namespace`` until first
    called."""

    __slots__ = ("name", "namespace")

    def __init__(self, name: str, namespace: dict[str, Any]) -> None:
        self.name = name
        self.namespace = namespace

    def __call__(self, *args: object, **kwargs: object) -> object:
        from . import _model

        cls = getattr(_model, self.name)
        if self.namespace.get(self.name) is self:
            self.namespace[self.name] = cls  # a dict store: atomic; racing threads store one
        return cls(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<robotrules._model.{self.name}, imported on first use>"


def stand_ins(namespace: dict[str, Any], *names: str) -> tuple[_Later, ...]:
    """A stand-in for each of the model's classes ``names``, to be bound in ``namespace`` (the
    caller's module globals, passed explicitly) under the same names."""
    return tuple(_Later(name, namespace) for name in names)
