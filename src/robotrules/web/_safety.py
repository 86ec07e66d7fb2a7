"""The web tester's name for the address guard, whose one home is :mod:`robotrules.fetch._guard`.

The tester refuses every hop to a non-public address (``serve --allow-private`` turns that
off); the fetch clients use the same guard and the same address table. Read the policy, its
sources and the IDNA rule there.
"""

from __future__ import annotations

from robotrules.fetch._guard import (
    FetchRefused,
    Resolver,
    ascii_host,
    checked_addresses,
    refusal,
    resolve,
    unsafe_address,
)

__all__ = ["FetchRefused", "Resolver", "ascii_host", "checked_addresses", "refusal", "resolve",
           "unsafe_address"]
