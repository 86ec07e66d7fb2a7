"""The web tester's name for the pinned transport, whose one home is
:mod:`robotrules.fetch._guard` (resolve once, check every address, connect to a checked one).
"""

from __future__ import annotations

from robotrules.fetch._guard import Hop, PinnedTransport

__all__ = ["Hop", "PinnedTransport"]
