"""The cuts of issue 15, item 3: files stay small, and the command line is one app made
of each package's commands with the shared options spelled once."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.main import get_command
from typer.testing import CliRunner

import sscbench
from sscbench.cli import app
from sscbench.cli_options import DataFolder, Seed, WorldName, fail

SRC = Path(sscbench.__file__).parent
LIMIT = 450
# τ-bench's tool files are kept line for line as τ-bench has them; the generated worlds too
EXEMPT = ("world/airline/tools.py", "world/retail/tools.py", "world/generated/")


def test_no_source_file_is_over_the_limit():
    over = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(EXEMPT) or rel in EXEMPT:
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > LIMIT:
            over[rel] = lines
    assert not over, f"files over {LIMIT} lines: {over}"


def test_every_package_command_is_mounted():
    root = get_command(app)
    commands = set(root.commands)  # type: ignore[attr-defined]
    assert {
        "world",
        "lab",
        "review",
        "release",
        "gate",
        "serve-local",
        "agreement",
        "conformance",
        "run",
        "candidates",
        "admit",
        "measure",
        "calibrate",
        "validate-oracle",
        "report",
    } <= commands


def _option(path: list[str], name: str):
    command = get_command(app)
    for part in path:
        command = command.commands[part]  # type: ignore[attr-defined]
    return next(p for p in command.params if p.name == name)


def test_the_shared_options_read_the_same_everywhere():
    places = [["world", "describe"], ["world", "check"], ["candidates"], ["admit"]]
    for name in ("data", "seed"):
        helps = {_option(path, name).help for path in places}
        assert len(helps) == 1, (name, helps)
    assert not _option(["conformance"], "data").required
    assert not _option(["candidates"], "data").required


def test_an_alias_gives_a_new_command_the_same_option_and_the_error_exit():
    mini = typer.Typer()

    @mini.command()
    def show(world: WorldName = "generated", data: DataFolder = None, seed: Seed = 0) -> None:
        if seed < 0:
            fail(ValueError("seed must be >= 0 [not markup]"))
        print(world, data, seed)

    ok = CliRunner().invoke(mini, ["tau-bench", "--data", "x", "--seed", "3"])
    assert ok.exit_code == 0 and ok.output.strip() == "tau-bench x 3"
    bad = CliRunner().invoke(mini, ["--seed", "-1"])
    assert bad.exit_code == 2 and "seed must be >= 0 [not markup]" in bad.output
