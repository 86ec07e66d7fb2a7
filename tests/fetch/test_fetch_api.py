"""The public surface of robotrules.fetch and robotrules.stores (STYLE: __all__ checked)."""

from __future__ import annotations

import inspect
from types import ModuleType

import pytest

import robotrules.fetch
import robotrules.stores
from robotrules.fetch import AsyncRobotsClient, RobotsClient


@pytest.mark.parametrize("module", [robotrules.fetch, robotrules.stores])
def test_all_complete(module: ModuleType) -> None:
    for name in module.__all__:  # every name resolves (robotrules.stores loads backends lazily)
        getattr(module, name)
    public = {n for n in vars(module)
              if not n.startswith("_") and n not in {"annotations", "TYPE_CHECKING"}}
    public -= {n for n, v in vars(module).items() if isinstance(v, ModuleType)}
    assert set(module.__all__) == public
    assert len(module.__all__) == len(set(module.__all__))  # order: ruff RUF022


def test_twins_have_the_same_api() -> None:
    """STYLE (httpx): Client and AsyncClient are twins; close/aclose, same signatures."""
    sync = {n for n in dir(RobotsClient) if not n.startswith("_")}
    asyn = {n for n in dir(AsyncRobotsClient) if not n.startswith("_")}
    assert sync - {"close"} == asyn - {"aclose"}
    for name in ("rules_for", "is_allowed", "explain", "crawl_delay", "request_rate",
                 "sitemaps", "forget"):
        assert inspect.iscoroutinefunction(getattr(AsyncRobotsClient, name)), name
        s = inspect.signature(getattr(RobotsClient, name))
        a = inspect.signature(getattr(AsyncRobotsClient, name))
        assert s.parameters.keys() == a.parameters.keys(), name
    s_init = inspect.signature(RobotsClient.__init__).parameters
    a_init = inspect.signature(AsyncRobotsClient.__init__).parameters
    assert s_init.keys() == a_init.keys()
    assert all(p.kind is p.KEYWORD_ONLY for n, p in s_init.items() if n != "self")
    assert s_init["max_bytes"].default == 512_000  # RFC 9309 2.5: at least 500 KiB


def test_constructor_validates() -> None:
    with pytest.raises(ValueError):
        RobotsClient(auth_failure="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        RobotsClient(dialect="klingon")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        RobotsClient(timeout=0)
