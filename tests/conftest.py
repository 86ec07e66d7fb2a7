"""Shared test configuration: paths to the shared corpus and conformance data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ROBOTRULES_SHARED", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared data not found at {SHARED} (set ROBOTRULES_SHARED)")
    return SHARED
