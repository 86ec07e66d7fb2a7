"""The clients refuse nonsensical numbers at construction, naming the parameter.

Source: issue 12, item 6 ("``--timeout nan`` is accepted and caches 'disallow all' for the
next run; ``--timeout inf`` is an internal error ... validate every number"). NaN passes every
comparison, so ``timeout <= 0`` alone let it through; the clients must say which setting is
wrong instead. RFC 9309 2.3.1.2 ("at least five" redirects) and 2.5 (the 500 KiB parsing
limit) are what the defaults follow; smaller non-negative values stay accepted (tests,
embedded use), as docs/fetching.md says.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from robotrules._policy import check_number
from robotrules.fetch import AsyncRobotsClient, RobotsClient

CLIENTS = [RobotsClient, AsyncRobotsClient]
NONSENSE = [-1, -0.5, math.nan, math.inf, -math.inf, True, "5", None]

# parameter -> values that must be refused besides NONSENSE, and edge values that must not
CASES: dict[str, tuple[list[Any], list[Any]]] = {
    "timeout": ([0, 0.0], [1e-3, 30, 30.0]),
    "connect_timeout": ([0, 0.0], [1e-3, 5, 5.0]),
    "max_bytes": ([0, 1.5, 512_000.0], [1, 512_000]),
    "max_redirects": ([1.5, 5.0], [0, 5]),
}


def _make(cls: type, **kwargs: Any) -> None:
    client = cls(**kwargs)
    if isinstance(client, RobotsClient):
        client.close()
    # the async client's own httpx.AsyncClient holds no connection until used


@pytest.mark.parametrize("cls", CLIENTS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_nonsense_is_refused_naming_the_parameter(cls: type, name: str) -> None:
    bad, good = CASES[name]
    for value in NONSENSE + bad:
        with pytest.raises(ValueError, match=name):
            _make(cls, **{name: value})
    for value in good:
        _make(cls, **{name: value})


@given(value=st.floats(allow_nan=True, allow_infinity=True))
def test_timeout_is_accepted_exactly_when_finite_and_positive(value: float) -> None:
    if math.isfinite(value) and value > 0:
        _make(RobotsClient, timeout=value)
    else:
        with pytest.raises(ValueError, match="timeout"):
            _make(RobotsClient, timeout=value)


@given(value=st.one_of(st.integers(), st.floats()))
def test_check_number_accepts_exactly_finite_numbers_at_or_above_the_minimum(
    value: float,
) -> None:
    if math.isfinite(value) and value >= 2:
        check_number("x", value, minimum=2)
    else:
        with pytest.raises(ValueError, match=r"^x must be"):
            check_number("x", value, minimum=2)


def test_check_number_messages() -> None:
    with pytest.raises(ValueError, match=r"^timeout must be > 0, got 0$"):
        check_number("timeout", 0, allow_zero=False)
    with pytest.raises(ValueError, match=r"^timeout must be a finite number, got nan$"):
        check_number("timeout", math.nan)
    with pytest.raises(ValueError, match=r"^max_bytes must be >= 1, got 0$"):
        check_number("max_bytes", 0, minimum=1, integer=True)
    with pytest.raises(ValueError, match=r"^max_redirects must be an integer, got 1.5$"):
        check_number("max_redirects", 1.5, integer=True)
    check_number("max_redirects", 0, integer=True)


def test_clients_reject_bad_numbers_by_name() -> None:
    """Issue 12 item 6: ``timeout=nan`` once cached "disallow all"; constructors refuse it."""
    from robotrules.fetch import AsyncRobotsClient, RobotsClient

    cases = [("timeout", math.nan), ("timeout", -1.0), ("timeout", math.inf),
             ("connect_timeout", 0.0), ("min_ttl", -5.0), ("min_ttl", math.nan),
             ("min_ttl", math.inf), ("min_ttl", 90_000.0), ("max_bytes", 0),
             ("max_redirects", -1)]
    for cls in (RobotsClient, AsyncRobotsClient):
        for name, value in cases:
            with pytest.raises(ValueError, match=name):
                cls(**{name: value})  # type: ignore[arg-type]
    RobotsClient(min_ttl=0).close()


def test_min_ttl_flows_into_freshness(serve_robots: Callable[..., Any]) -> None:
    """RFC 9309 2.4 / RFC 9111 4.2.1: the client's floor, not a module constant."""
    from robotrules.fetch import RobotsClient

    server = serve_robots(b"User-agent: *\nDisallow: /x\n",
                          headers={"Cache-Control": "max-age=1"})
    now = [1_000_000.0]
    for floor, expect in ((0.0, 1.0), (30.0, 30.0), (60.0, 60.0)):
        with RobotsClient(min_ttl=floor, clock=lambda: now[0]) as client:
            f = client.rules_for(server.origin + "/")
            assert f.expires_at - f.fetched_at == expect
    with RobotsClient(clock=lambda: now[0]) as client:
        assert client.min_ttl == 60.0
