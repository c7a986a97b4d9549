"""Fixtures the fault-family tests share."""

from __future__ import annotations

import pytest

from sscbench.world.load import load_world


@pytest.fixture(scope="module")
def worlds(taubench):
    """τ-bench's airline and retail worlds (skipped without ../shared, like `taubench`)."""
    return [load_world("tau-bench", d, taubench) for d in ("airline", "retail")]
