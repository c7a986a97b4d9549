"""The import contracts of pyproject.toml hold, and they are not hollow.

The stages import only downward (world → core → faults|llm → study → measure → admission
→ agents → users → run → analysis → review → oracles|release → report → integrations →
cli), the root package's sub-packages import one another without a cycle, and the stages
above run read a study through ``sscbench.study``; lab, local and testing stand apart. See docs/architecture.md, "Layers".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def _lint(src: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the package under ``src`` (never the installed copy)."""
    code = (
        "import sys; from importlinter.cli import lint_imports; "
        f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))"
    )
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"][
        "contracts"
    ]


def test_every_contract_is_kept():
    result = _lint(SRC, ROOT / "pyproject.toml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_stage_is_ignored():
    """Only lab, local and testing stand outside the stages (their own contracts)."""
    stages = next(c for c in _contracts() if c["id"] == "stages")
    assert sorted(stages["exhaustive_ignores"]) == ["lab", "local", "testing"]


def test_a_back_edge_breaks_the_contract(tmp_path):
    """A lower stage importing a higher one (core -> study) is refused, as a cycle too."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(SRC / "sscbench", tmp_path / "sscbench", ignore=ignore)
    ledger = tmp_path / "sscbench" / "core" / "ledger.py"
    ledger.write_text(ledger.read_text("utf-8") + "\nfrom sscbench.study.folder import StudyDir\n")
    result = _lint(tmp_path, ROOT / "pyproject.toml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "sscbench.core.ledger -> sscbench.study.folder" in result.stdout
    assert "No cycles are allowed in sscbench." in result.stdout  # the root package's cycle
