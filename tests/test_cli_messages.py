"""Messages are printed as written: square brackets survive, markup-like text never raises,
control bytes (ESC) never reach the terminal raw (issue 14, item 13)."""

from __future__ import annotations

import pytest
from rich.console import Console
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.terminal import plain, print_error, safe

ESC = "\x1b"


def _invoke(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert "MarkupError" not in repr(result.exception), result.exception
    return result


@pytest.mark.parametrize("command", ["run", "measure", "report", "release", "calibrate"])
def test_a_path_with_markup_is_shown_as_written(tmp_path, command):
    path = str(tmp_path / "nodir[/x]here")
    result = _invoke(command, path)
    assert result.exit_code == 2, result.output
    assert "nodir[/x]here" in result.output, result.output


def test_gate_shows_bracketed_paths(tmp_path):
    result = _invoke("gate", str(tmp_path / "st[/u]dy"), str(tmp_path / "po[bold]licy"))
    assert result.exit_code == 2 and "po[bold]licy" in result.output, result.output


def test_a_bracketed_hint_is_not_swallowed(tmp_path):
    config = tmp_path / "study.toml"
    config.write_text('[[agents]]\nid = "a"\nkind = "openai"\n')
    result = _invoke("run", str(config), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "an openai agent needs an [agents.endpoint] table" in result.output, result.output


def test_an_esc_byte_in_a_path_never_reaches_the_terminal(tmp_path):
    result = _invoke("run", str(tmp_path / f"evil{ESC}[31mname.toml"))
    assert result.exit_code == 2
    assert ESC not in result.output
    assert "evil\\x1b[31mname.toml" in result.output, result.output


def test_serve_local_errors_keep_brackets(tmp_path):
    result = _invoke("serve-local", "--model", str(tmp_path / "no[/x]such.gguf"))
    assert result.exit_code == 2, result.output
    # without llama-cpp the hint names the extra; with it, the missing model is named
    assert "sscbench[local]" in result.output or "no[/x]such.gguf" in result.output, result.output


def test_success_lines_show_a_bracketed_out_folder(tmp_path):
    config = tmp_path / "study.toml"
    config.write_text(
        '[world]\ndomains = ["airline"]\n[cases]\noperators = ["SuppressWrite"]\n'
        'per_operator = 1\n[[agents]]\nid = "a"\nprofile = "trusting"\n'
    )
    out = tmp_path / "o[red]ut"
    result = _invoke("run", str(config), "--out", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    assert f"ran study in {out}" in result.output and "report: " in result.output


def test_helpers_escape_markup_and_control_bytes():
    console = Console(record=True, width=200)
    print_error(console, f"nodir[/x]here and {ESC}[2J and [bold]x[/bold] trailing\\")
    text = console.export_text()
    assert text.strip() == "error: nodir[/x]here and \\x1b[2J and [bold]x[/bold] trailing\\"
    assert safe("[bold]") == "\\[bold]" and plain("a\tb\nc\x07") == "a\tb\nc\\x07"


def test_wide_tables_are_not_squeezed_to_80_columns_in_a_file(monkeypatch, tmp_path):
    import io
    import sys

    from rich.table import Table

    from sscbench.terminal import table_console

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    console = table_console()
    assert console.width == 160
    table = Table("family", "observed")
    table.add_row(
        "InterveningUpdate", "0/14 (0.0%, 95% CI 0.0–0.0%, cluster bootstrap, 7 clusters)"
    )
    with console.capture() as captured:
        console.print(table)
    assert "0/14 (0.0%, 95% CI 0.0–0.0%, cluster bootstrap, 7 clusters)" in captured.get()
    monkeypatch.setenv("COLUMNS", "100")
    assert table_console().width == 100


def test_run_help_keeps_config_table_names():
    """Config table names in help texts ("[study] executor") are not eaten as Rich markup."""
    from typer.testing import CliRunner

    from sscbench.cli import app

    result = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "[study] executor" in result.output and "[study.ray]" in result.output


def test_counts_agree_in_number():
    """One helper words every count: "1 configuration", "2 configurations", "0 runs"."""
    from sscbench.terminal import count

    assert count(1, "configuration") == "1 configuration"
    assert count(2, "configuration") == "2 configurations"
    assert count(0, "faulted run") == "0 faulted runs"
    assert count(1, "faulted run") == "1 faulted run"
    assert count(3, "repetition", "repetitions") == "3 repetitions"


def test_a_plan_of_one_configuration_says_so(tmp_path):
    """`sscbench plan` of a one-agent study: "1 configuration", "1 faulted run" wording."""
    from tiny_study import TINY_STUDY

    path = tmp_path / "one.toml"
    text = TINY_STUDY.split("[[agents]]")[0] + '[[agents]]\nid = "t"\nprofile = "trusting"\n'
    path.write_text(text, "utf-8")
    result = _invoke("plan", str(path))
    assert result.exit_code == 0, result.output
    assert "1 configuration\n" in result.output and "1 configurations" not in result.output
