"""What the command says when it starts without the ``cli`` extra (Click and Rich).

Apart from the entry point (:mod:`robotrules.cli`) so that the group (:mod:`robotrules.cli._app`)
can say it too without importing its own package's face (the import graph stays a DAG,
``tests/test_layers.py``).
"""

from __future__ import annotations

__all__ = ["CLI_DEPENDENCIES", "missing_extra"]

#: The modules of the ``cli`` extra the command cannot start without.
CLI_DEPENDENCIES = frozenset({"click", "rich"})


def missing_extra(module: str) -> str:
    """The one line for a command started without the ``cli`` extra."""
    return (f"robotrules: the command needs the 'cli' extra ({module} is not installed): "
            "pip install 'robotrules[cli]' (from a checkout: pip install -e '.[cli]')")
