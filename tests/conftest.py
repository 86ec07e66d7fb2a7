"""Shared test configuration: paths to the shared corpus and conformance data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ROBOTRULES_SHARED", ROOT.parent / "shared"))


def missing(why: str) -> None:
    """Skip a test whose shared data is absent, except in CI (``CI`` set, as `.ci/run` runs):
    there the data is always beside the clone, so its absence fails the test loudly instead of
    letting the corpus and conformance suites pass by skipping (issue 21)."""
    if os.environ.get("CI"):
        pytest.fail(f"{why}; CI runs with ../shared beside the clone", pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        missing(f"shared data not found at {SHARED} (set ROBOTRULES_SHARED)")
    return SHARED
