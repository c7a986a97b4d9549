"""``sscbench --help`` lists the commands by stage, in the order of the work, with help
that reflows to the terminal; ``sscbench --version`` prints the version (issue 44, item 4)."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from sscbench.cli import STAGES, app
from sscbench.version import __version__

PANELS = {
    "Set up": ["world", "conformance", "candidates", "admit", "plan"],
    "Run": ["run", "show", "store"],
    "Measure": ["measure", "calibrate", "agreement", "review", "validate-oracle", "second-read"],
    "Report": ["report", "diff"],
    "Release": ["release", "gate"],
    "Interop": ["export", "serve-local", "lab"],
}


def _help(width: int) -> str:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": str(width)}, terminal_width=width)
    assert result.exit_code == 0, result.output
    return result.output


def _panels(text: str) -> dict[str, list[str]]:
    """Each panel's title and the command names at the start of its rows."""
    panels: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        title = re.match(r"╭─ (.+?) ─", line)
        if title:
            current = title.group(1)
            panels[current] = []
            continue
        row = re.match(r"│ ([a-z][a-z-]*)\s{2,}", line)
        if current and current != "Options" and row:
            panels[current].append(row.group(1))
    return panels


def test_commands_are_grouped_by_stage_in_the_order_of_the_work():
    panels = _panels(_help(200))
    assert list(panels) == ["Options", *STAGES]
    assert {k: v for k, v in panels.items() if k != "Options"} == PANELS


def test_each_summary_is_one_line_on_a_wide_terminal():
    # a docstring's own line breaks would split a summary over rows; reflowed, a wide
    # terminal shows every command's summary on its own single row
    rows = [line for line in _help(400).splitlines() if line.startswith("│")]
    named = [r for r in rows if re.match(r"│ [a-z][a-z-]*\s{2,}\S", r)]
    continued = [r for r in rows if re.match(r"│\s{10,}\S", r)]
    assert len(named) == sum(map(len, PANELS.values())) and not continued, rows


def test_version_prints_the_package_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"sscbench {__version__}"
