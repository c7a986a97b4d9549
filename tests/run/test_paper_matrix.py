"""examples/paper-matrix.toml: the paper's execution matrix (F/V/L three repetitions,
T/S one) as one offline study; planned, and a reduced copy run end to end by
``sscbench run``, whose report then holds Tables I-V (the oracles scored during the run)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.oracles.run_scoring import score_configured
from sscbench.report.sections.configurations import configuration_rows
from sscbench.run.builders import build_cases
from sscbench.run.planning import make_plan
from sscbench.study.config import load_config, parse_config
from sscbench.study.study import Study
from sscbench.study.worlds import build_worlds

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "paper-matrix.toml"
PAPER = {"F": 3, "V": 3, "L": 3, "T": 1, "S": 1}
OFFLINE = ["rules", "invariants", "step-only"]
SECTIONS = (
    "configurations",
    "funnel",
    "validation",
    "arrival",
    "adoption",
    "reliance",
    "oracle-settings",
    "oracles",
)


def reduced(text: str | None = None) -> str:
    """The example cut to one case per operator on one domain."""
    text = EXAMPLE.read_text() if text is None else text
    text = text.replace("per_operator = 30", "per_operator = 1")
    # ItemOption is retail's: an airline-only study that named it would be refused
    text = text.replace('"PaySource", "ItemOption", "WriteEffect"]', '"PaySource", "WriteEffect"]')
    return text.replace('domains = ["airline", "retail"]', 'domains = ["airline"]')


@pytest.fixture(scope="module")
def matrix(tmp_path_factory) -> tuple[Path, Path]:
    """A reduced paper matrix run by ``sscbench run`` (measured, scored, reported)."""
    root = tmp_path_factory.mktemp("matrix")
    config = root / "paper-matrix.toml"
    config.write_text(reduced())
    out = root / "study"
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return config, out


def test_the_paper_matrix_plans_five_configurations_with_mixed_repetitions():
    config, _ = load_config(EXAMPLE)
    assert [a.id for a in config.agents] == list(PAPER)
    assert all(a.kind == "scripted" for a in config.agents)  # offline: no endpoint
    assert config.user.kind == "scripted"
    assert config.oracles is not None and config.oracles.settings == OFFLINE
    assert config.oracles.endpoint is None  # the offline settings need none
    cases = build_cases(config, build_worlds(config))
    plan = make_plan(config, cases)
    assert plan.repetitions == PAPER
    units = Counter(u.config_id for u in plan)
    assert units == {c: n * len(cases) for c, n in PAPER.items()}
    reps = {c: {u.repetition for u in plan if u.config_id == c} for c in PAPER}
    assert reps == {c: set(range(n)) for c, n in PAPER.items()}


def test_a_reduced_paper_matrix_runs_and_table_one_shows_its_scale(matrix):
    _, out = matrix
    rows = {r["config_id"]: r for r in configuration_rows(Study.open(out))}
    assert {c: r["repetitions"] for c, r in rows.items()} == PAPER
    per_rep = rows["T"]["faulted_scheduled"]
    assert per_rep > 0
    assert {c: r["faulted_scheduled"] for c, r in rows.items()} == {
        c: n * per_rep for c, n in PAPER.items()
    }
    for row in rows.values():
        assert row["faulted_run"] + row["not_qualified"] == row["faulted_scheduled"]


def test_the_run_scores_the_oracles_so_the_report_has_tables_one_to_five(matrix):
    _, out = matrix
    for name in OFFLINE:
        body = json.loads((out / "oracles" / f"{name}.json").read_text())
        assert body["oracle"] == name and body["schema"] == "sscbench.oracle-scores/1"
        assert body["judged"] > 0 and body["scored_from"]["oracle"] == name
        assert (out / "oracles" / f"{name}.verdicts.jsonl").is_file()
    html = (out / "report" / "report.html").read_text()
    for section in SECTIONS:
        assert f'<section id="{section}" data-applies="true"' in html, section
    shown = {r.split(",")[0] for r in (out / "report/tables/oracles.csv").read_text().split()}
    assert set(OFFLINE) <= shown


def test_a_resumed_run_does_not_rescore_unchanged_settings(matrix, tmp_path):
    config_path, study = matrix
    out = tmp_path / "copy"
    shutil.copytree(study, out)
    config, _ = load_config(config_path)
    before = {n: (out / "oracles" / f"{n}.json").stat().st_ino for n in OFFLINE}
    assert score_configured(out, config) == dict.fromkeys(OFFLINE, "unchanged")
    assert {n: (out / "oracles" / f"{n}.json").stat().st_ino for n in OFFLINE} == before
    text = config_path.read_text().replace(
        'settings = ["rules", "invariants", "step-only"]',
        'settings = ["rules", "invariants", "step-only"]\nclean_controls = 1',
    )
    changed = parse_config(text, config_path, base_dir=config_path.parent)
    assert score_configured(out, changed) == dict.fromkeys(OFFLINE, "scored")
    body = json.loads((out / "oracles" / "rules.json").read_text())
    assert body["scored_from"]["clean_controls"] == 1
    assert (out / "oracles" / "rules.json").stat().st_ino != before["rules"]


def test_the_oracles_table_leaves_the_config_hash_alone():
    with_oracles = parse_config(EXAMPLE.read_text(), EXAMPLE)
    head, _, _ = EXAMPLE.read_text().partition("\n[oracles]")
    without = parse_config(head, EXAMPLE)
    assert without.oracles is None
    assert with_oracles.config_hash() == without.config_hash()
    assert "oracles" not in with_oracles.canonical_json()
