"""The embedded default study, cut to one case per operator (for the export tests)."""

from __future__ import annotations

from pathlib import Path

from sscbench.run.executor import execute_study
from sscbench.study.config import load_config, parse_config


def run_small_default_study(out: Path, per_operator: int = 1) -> Path:
    """Run the default study (its world, operators, six profiles, two repetitions) with
    ``per_operator`` cases per operator into ``out``; returns ``out``."""
    _, text = load_config(None)
    text = text.replace("per_operator = 8", f"per_operator = {per_operator}")
    assert f"per_operator = {per_operator}" in text
    config = parse_config(text, "<default study, small>")
    execute_study(config, text, out, progress=False)
    return out
