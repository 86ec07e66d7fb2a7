"""Shared test configuration: paths to the shared corpus and conformance data, the rule
that a run which must have them (CI) fails loudly without them instead of skipping, and
Hypothesis without its per-example deadline (a time limit is a speed assertion, which
tests do not make: a loaded machine or a sanitizer build would fail it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("robotrules", deadline=None)
settings.load_profile("robotrules")

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ROBOTRULES_SHARED", ROOT.parent / "shared"))
#: What the corpus, conformance and seed suites read under SHARED.
NEEDED = ("corpus/sites", "corpus/fixtures", "conformance")


def shared_required() -> bool:
    """Must this run have the shared data? ``ROBOTRULES_REQUIRE_SHARED=1`` (``.ci/run`` sets
    it) or, unless that variable says 0, ``CI`` set: there the data is always beside the
    clone. Elsewhere (a clone on its own, the wheel's tests in cibuildwheel) the suites that
    read it skip, saying why."""
    flag = os.environ.get("ROBOTRULES_REQUIRE_SHARED")
    if flag is not None:
        return flag not in ("", "0")
    return bool(os.environ.get("CI"))


def missing(why: str) -> None:
    """Skip a test whose shared data is absent, except where the data is required
    (:func:`shared_required`): there its absence fails the test loudly instead of letting the
    corpus and conformance suites pass by skipping (issue 21)."""
    if shared_required():
        pytest.fail(f"{why}; CI runs with ../shared beside the clone", pytrace=False)
    pytest.skip(why)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Where the shared data is required, a run without it stops before any test, naming what
    is missing: suites that read it with their own ``skipif`` cannot pass by skipping."""
    if not shared_required():
        return
    absent = [name for name in NEEDED if not (SHARED / name).is_dir()]
    if absent:
        raise pytest.UsageError(
            f"shared test data missing under {SHARED}: {', '.join(absent)} (CI runs with "
            "../shared beside the clone; set ROBOTRULES_SHARED, or ROBOTRULES_REQUIRE_SHARED=0 "
            "to let those suites skip)")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        missing(f"shared data not found at {SHARED} (set ROBOTRULES_SHARED)")
    return SHARED
