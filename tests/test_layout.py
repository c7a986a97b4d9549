"""The tests mirror the package tree (issue 31, item 5): ``tests/<pkg>/`` covers
``sscbench.<pkg>``, every package of ``src/sscbench/`` has its folder, and a test file
in ``tests/<pkg>/`` exercises ``sscbench.<pkg>`` — it imports it (directly, or through a
test helper it imports from ``tests/``, e.g. ``test_realtext_rules``), names one of its
modules in code it runs (a subprocess's ``-c`` program), or runs one of its commands
through the command line (``CliRunner`` on the app, ``python -m sscbench``).

See ``docs/testing.md`` for the layout."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from typer.main import get_command

import sscbench
from sscbench.cli import app

SRC = Path(sscbench.__file__).parent
TESTS = Path(__file__).resolve().parent
NOT_A_PACKAGE = {"data"}  # tests/data: the corpora, no tests
MODULE_NAMED = re.compile(r"\bsscbench\.([a-z_]+)")


def _source_packages() -> set[str]:
    return {p.parent.name for p in SRC.glob("*/__init__.py")}


@cache
def _command_packages() -> dict[str, set[str]]:
    """Each top-level command name (``export``, ``gate``, ...) -> the packages whose
    modules define it or its sub-commands."""
    found: dict[str, set[str]] = {}

    def walk(command, name: str) -> None:
        callback = getattr(command, "callback", None)
        module = getattr(callback, "__module__", "") or ""
        if module.startswith("sscbench."):
            found.setdefault(name, set()).add(module.split(".")[1])
        for sub in getattr(command, "commands", {}).values():
            walk(sub, name)

    for name, command in get_command(app).commands.items():  # type: ignore[attr-defined]
        walk(command, name)
    return found


def _local_helper(name: str, folder: Path) -> Path | None:
    """The test helper module ``name`` imports by module name: beside the test file, or
    at the top of ``tests/`` (pytest puts both on the path)."""
    for candidate in (folder / f"{name}.py", TESTS / f"{name}.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def _exercised(path: Path) -> frozenset[str]:
    """The sscbench packages a test file (or helper) exercises, with its helpers'."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    packages: set[str] = set()
    calls_the_cli = False
    literals: set[str] = set()
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            literals.add(node.value)
            packages.update(MODULE_NAMED.findall(node.value))
        for module in modules:
            parts = module.split(".")
            if parts[0] == "sscbench":
                packages.add(parts[1] if len(parts) > 1 else "")
                calls_the_cli |= module == "sscbench.cli"
            elif (helper := _local_helper(parts[0], path.parent)) is not None:
                packages |= _exercised(helper)
                calls_the_cli |= "cli" in _exercised(helper)
    if calls_the_cli or "sscbench" in literals:  # CliRunner on the app, or python -m sscbench
        for command, owners in _command_packages().items():
            if command in literals:
                packages |= owners
    return frozenset(packages)


def _test_files() -> list[Path]:
    return sorted(
        path
        for path in TESTS.glob("*/**/test_*.py")
        if path.relative_to(TESTS).parts[0] not in NOT_A_PACKAGE
    )


def test_every_package_has_its_test_folder():
    missing = sorted(p for p in _source_packages() if not (TESTS / p).is_dir())
    assert not missing, f"packages without a tests/<package>/ folder: {missing}"


def test_every_test_folder_is_a_package():
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    stray = sorted(folders - _source_packages() - NOT_A_PACKAGE)
    assert not stray, f"test folders with no package of that name in src/sscbench: {stray}"


def test_every_test_file_exercises_the_package_of_its_folder():
    misplaced = {}
    for path in _test_files():
        rel = path.relative_to(TESTS).as_posix()
        package = path.relative_to(TESTS).parts[0]
        exercised = _exercised(path)
        if package not in exercised:
            misplaced[rel] = sorted(exercised - {""})
    assert not misplaced, (
        "test files that exercise nothing of the package of their folder "
        f"(file: the packages they do exercise; move each to its package's folder): {misplaced}"
    )


def test_the_check_sees_imports_helpers_and_commands(tmp_path):
    folder = tmp_path / "measure"
    folder.mkdir()
    (folder / "helper_mod.py").write_text("from sscbench.measure.study import measure_study\n")
    through_helper = folder / "test_a.py"
    through_helper.write_text("from helper_mod import measure_study\n")
    cli = folder / "test_b.py"
    cli.write_text(
        "import subprocess, sys\n"
        "subprocess.run([sys.executable, '-m', 'sscbench', 'calibrate', 'x'])\n"
    )
    nothing = folder / "test_c.py"
    nothing.write_text("from sscbench.core.values import INF\nprint('calibrate')\n")
    assert "measure" in _exercised(through_helper)
    assert "measure" in _exercised(cli)
    assert "measure" not in _exercised(nothing)
