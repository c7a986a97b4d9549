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


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Print the real-model tier's timings and outcome counts (set by test_local_model)."""
    text = getattr(config, "sscbench_local_metrics", None)
    if text:
        terminalreporter.write_sep("-", "real model (SmolLM2-135M via sscbench serve-local)")
        terminalreporter.write_line(text)
