"""The type checker: mypy with the project's configuration is clean on ``src/``.

The configuration lives in ``pyproject.toml`` (``[tool.mypy]``); these tests run mypy
in a subprocess exactly as a developer would (``mypy`` from the project folder), so the
README's test command checks the types too.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "pyproject.toml"


def _mypy(*arguments: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run mypy with the project's configuration (fails, not skips, when mypy is missing:
    it is part of the ``test`` extra)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(CONFIG), *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_mypy_is_clean_on_src() -> None:
    result = _mypy(str(ROOT / "src" / "sscbench"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_configuration_is_the_strictness_we_claim(tmp_path: Path) -> None:
    """A module with one violation of each promised check fails with those error codes:
    an untyped function's body is checked, ``None`` defaults are not implicitly optional,
    a needless ``type: ignore`` is an error (so every ignore must still be needed)."""
    module = tmp_path / "violations.py"
    module.write_text(
        textwrap.dedent(
            """
            def untyped():
                return 1 + "one"

            def implicit(value: int = None) -> int:
                return 0

            COUNT: int = 1  # type: ignore[assignment]
            """
        ),
        encoding="utf-8",
    )
    result = _mypy("--cache-dir", str(tmp_path / "cache"), str(module), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    codes = {
        line.rsplit("[", 1)[1].rstrip("]")
        for line in result.stdout.splitlines()
        if ": error:" in line and line.endswith("]")
    }
    assert {"operator", "assignment", "unused-ignore"} <= codes, result.stdout


def test_package_declares_its_types() -> None:
    """``py.typed`` ships in the package (PEP 561), so users' type checkers read our hints."""
    assert resources.files("sscbench").joinpath("py.typed").is_file()
    assert '"py.typed"' in CONFIG.read_text("utf-8")
