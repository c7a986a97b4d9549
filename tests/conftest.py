"""Shared fixtures: where τ-bench's data lives (optional) and small synthetic bases."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def taubench_dir() -> Path | None:
    """The τ-bench data folder (``../shared/tau-bench`` or $SSCBENCH_TAUBENCH), if present."""
    env = os.environ.get("SSCBENCH_TAUBENCH")
    candidates = [Path(env)] if env else []
    candidates.append(ROOT.parent / "shared" / "tau-bench")
    for path in candidates:
        if (path / "airline" / "flights.json").exists():
            return path
    return None


@pytest.fixture(scope="session")
def taubench() -> Path:
    """Skip the test when τ-bench's data is not beside the project."""
    path = taubench_dir()
    if path is None:
        pytest.skip("τ-bench data not found (../shared/tau-bench or $SSCBENCH_TAUBENCH)")
    return path
