"""Import cost, in one place: what the core defers so that ``import robotrules`` stays light.

``import robotrules`` loads the parser, the matcher and the facade and nothing else
(``tests/core/test_import_cost.py`` guards it: no module of its ``HEAVY`` list is loaded by the
import or by a first ``is_allowed``). Two things are deferred, and only here (or, for the
package's public names, in the package face's lazy name map, PEP 562):

- **the model** (:mod:`robotrules._model`): its frozen dataclasses load ``dataclasses`` (and
  through it ``inspect``, ``ast``, ``dis``, ``tokenize``) and ``datetime``. Measured with
  ``python -X importtime -c "import robotrules._model"`` after ``import robotrules``: about 10
  ms (``dataclasses`` 4.6, ``datetime`` 0.9, the classes themselves 4.3) against about 5 ms for
  all of ``import robotrules``; it cannot be made cheap without giving up the dataclasses users
  rely on (``fields``, ``replace``, ``asdict``). So the modules below the model's users call
  :func:`model` when they build a value (``_findings.finding``, ``_directives``' value
  parsers, ``_peers.fast_constructor``), and the facade binds :func:`stand_ins` for the classes
  it builds (type checkers see the real classes). The first call of a stand-in imports the
  model, puts the real class in its place in the facade's namespace (:func:`resolve`, handed
  that namespace explicitly), and builds the value: every later call there is a plain call of
  the class, at no cost. The registry and the dialect specs are plain classes, not
  dataclasses, for the same reason.
- **AI usage preferences** (:mod:`robotrules.aipref`: ``http_sf``, ``json`` and the model):
  asked only by ``usage()``, ``explain()``'s detail and lint. The layers forbid this module to
  import them (they sit above it), so the facade asks for them through its one accessor,
  ``robotrules._robots._preferences``, and :func:`robotrules.lint.lint` imports them (and the
  crawler registry) when it runs; lint's transport findings import the HTTP policy's cap
  (``email.utils``) likewise.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

__all__ = ["model", "resolve", "stand_ins"]


def model() -> ModuleType:
    """:mod:`robotrules._model`, imported on first call (then a lookup in ``sys.modules``)."""
    from . import _model

    return _model


def resolve(namespace: dict[str, Any], name: str) -> Any:
    """The model's class ``name``, put in the place of its stand-in in ``namespace`` (a dict
    store: atomic; racing threads store the same class)."""
    cls = getattr(model(), name)
    if isinstance(namespace.get(name), _Later):
        namespace[name] = cls
    return cls


class _Later:
    """Stands for the class ``name`` of :mod:`robotrules._model` in ``namespace`` until first
    called."""

    __slots__ = ("name", "namespace")

    def __init__(self, name: str, namespace: dict[str, Any]) -> None:
        self.name = name
        self.namespace = namespace

    def __call__(self, *args: object, **kwargs: object) -> object:
        return resolve(self.namespace, self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<robotrules._model.{self.name}, imported on first use>"


def stand_ins(namespace: dict[str, Any], *names: str) -> tuple[_Later, ...]:
    """A stand-in for each of the model's classes ``names``, to be bound in ``namespace`` (the
    caller's module globals, passed explicitly) under the same names."""
    return tuple(_Later(name, namespace) for name in names)
