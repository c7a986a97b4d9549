"""Issue 29, items 6 and 7: a study folder is never read or written through a symbolic
link inside it (nothing outside the study changes), and every reader verifies the plan,
cases and measurements it uses, failing closed with the file and field named."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.measure.study import measure_study
from sscbench.report.build import build_report
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import StudyDir
from sscbench.study.lock import StudyLock

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "examples" / "release-policy.toml"
STUDY = """
[study]
seed = 3
repetitions = 1
concurrency = 2
[world]
source = "generated"
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 2
[[agents]]
id = "trusting"
profile = "trusting"
[[agents]]
id = "readback"
profile = "readback"
"""
LINKED = "is a symbolic link; sscbench does not follow links inside a study folder"


def _run(out: Path, restart: bool = False):
    config = parse_config(STUDY, "trust.toml")
    return execute_study(config, STUDY, out, progress=False, restart=restart)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished, measured small study with contracts: copied by each test."""
    out = tmp_path_factory.mktemp("trust") / "study"
    _run(out)
    measure_study(out)
    return out


@pytest.fixture
def study(finished, tmp_path) -> Path:
    shutil.copytree(finished, tmp_path / "study")
    return tmp_path / "study"


def _cli(*args: str):
    return CliRunner().invoke(app, [*map(str, args)])


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# ---- item 6: no link inside a study is followed ----------------------------------------


def _move_out(study: Path, name: str, outside: Path) -> Path:
    """Move ``study/name`` to ``outside/name`` and leave a symbolic link in its place."""
    outside.mkdir(exist_ok=True)
    target = outside / name
    shutil.move(study / name, target)
    (study / name).symlink_to(target)
    return target


def test_a_linked_lock_is_refused_and_the_outside_file_kept(study, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    precious = outside / "precious.txt"
    precious.write_text("the user's data\n")
    (study / "sscbench.lock").unlink(missing_ok=True)
    (study / "sscbench.lock").symlink_to(precious)
    result = _cli("measure", study)
    assert result.exit_code == 2 and LINKED in result.output, result.output
    assert "sscbench.lock" in result.output and "Traceback" not in result.output
    assert precious.read_text() == "the user's data\n"
    # the lock itself never opens through a link (a link placed after the folder check)
    with pytest.raises(DataError, match=r"sscbench\.lock: is a symbolic link"):
        StudyLock(study).acquire()
    assert precious.read_text() == "the user's data\n"


def test_a_linked_index_is_refused_on_resume_and_nothing_is_appended(study, tmp_path):
    target = _move_out(study, "index.jsonl", tmp_path / "outside")
    lines = target.read_text().splitlines()
    target.write_text("\n".join(lines[:-3]) + "\n")  # resuming would run and append 3 runs
    before = target.read_bytes()
    with pytest.raises(DataError, match=r"index\.jsonl: is a symbolic link"):
        _run(study)
    assert target.read_bytes() == before
    result = _cli("report", study)
    assert result.exit_code == 2 and LINKED in result.output


@pytest.mark.parametrize("folder", ["runs", "report"])
def test_restart_never_deletes_through_a_linked_folder(study, tmp_path, folder):
    if folder == "report":
        build_report(study)
    outside = tmp_path / "outside"
    target = _move_out(study, folder, outside)
    (target / "mine.csv").write_text("kept\n")  # a name --restart would otherwise remove
    before = _tree(outside)
    assert before
    with pytest.raises(DataError, match=f"{folder}: is a symbolic link"):
        _run(study, restart=True)
    assert _tree(outside) == before
    assert (study / "sscbench-study.json").is_file()  # the study is left as it was


def test_a_study_folder_given_as_a_link_is_fine(study, tmp_path):
    link = tmp_path / "link-to-study"
    link.symlink_to(study)
    result = _cli("measure", link)
    assert result.exit_code == 0, result.output
    assert (study / "measurements.meta.json").is_file()


# ---- item 7: readers verify the plan, cases and measurements they use ------------------


@pytest.mark.parametrize(
    "command",
    [("measure",), ("report",), ("release",), ("gate", POLICY), ("review", "export")],
    ids=["measure", "report", "release", "gate", "review-export"],
)
def test_a_deleted_plan_stops_every_reader(study, tmp_path, command):
    (study / "plan.jsonl").unlink()
    before = _tree(study)
    if command[0] == "review":
        args = [*command, study, "--out", tmp_path / "review"]
    else:
        args = [command[0], study, *command[1:]]
    result = _cli(*args)
    assert result.exit_code == 2, result.output
    assert "plan.jsonl: missing" in result.output and "Traceback" not in result.output
    assert _tree(study) == before  # no measurement, report or release file written


def _edit_contract(study: Path) -> None:
    lines = (study / "cases.jsonl").read_text().splitlines()
    for number, line in enumerate(lines):
        case = json.loads(line)
        if case["contract"] is not None:
            case["contract"]["fault_interaction"]["tool"] = "get_user_details"
            lines[number] = json.dumps(case, separators=(",", ":"))
            break
    else:
        raise AssertionError("no case with a contract")
    (study / "cases.jsonl").write_text("\n".join(lines) + "\n")


def test_an_edited_contract_stops_measure(study):
    before = (study / "measurements.jsonl").read_bytes()
    _edit_contract(study)
    result = _cli("measure", study)
    assert result.exit_code == 2, result.output
    assert "cases.jsonl: sha256" in result.output and "differs from the" in result.output
    assert (study / "measurements.jsonl").read_bytes() == before
    for args in (("report", study), ("release", study), ("gate", study, POLICY)):
        assert "cases.jsonl: sha256" in _cli(*args).output


def test_a_flipped_a_in_measurements_is_refused_by_report(study, tmp_path):
    path = study / "measurements.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    flipped = next(r for r in rows if r.get("A") in (0, 1))
    flipped["A"] = 1 - flipped["A"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = _cli("report", study)
    assert result.exit_code == 2, result.output
    assert "measurements.jsonl, field sha256: " in result.output
    assert "sscbench measure" in result.output and "Traceback" not in result.output
    assert not (study / "report").exists()  # nothing reaches claims.csv
    exported = _cli("review", "export", study, "--out", tmp_path / "review")
    assert exported.exit_code == 2 and "measurements.jsonl, field sha256: " in exported.output
    assert _cli("measure", study).exit_code == 0  # measuring again restores them
    assert _cli("report", study).exit_code == 0
    assert (study / "report" / "tables" / "claims.csv").is_file()


def test_a_flipped_a_is_refused_by_the_oracle_contexts_and_agreement(study):
    from sscbench.oracles.contexts import StudyRuns
    from sscbench.review.agreement import agreement

    path = study / "measurements.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    flipped = next(r for r in rows if r.get("A") in (0, 1))
    flipped["A"] = 1 - flipped["A"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError, match="field sha256"):
        StudyRuns(study)  # validate-oracle's view of the study
    labels = study / "labels.jsonl"
    labels.write_text("")
    with pytest.raises(DataError, match="field sha256"):
        agreement(study, labels)


def test_measurements_of_another_index_or_without_a_record_are_refused(study):
    index = study / "index.jsonl"
    lines = index.read_text().splitlines()
    index.write_text("\n".join([*lines, lines[0]]) + "\n")  # a copied line: same runs
    with pytest.raises(DataError, match=r"field computed_from\.index\.jsonl.*another index\.jsonl"):
        build_report(study)
    index.write_text("\n".join(lines) + "\n")
    (study / "measurements.meta.json").unlink()
    with pytest.raises(DataError, match=r"measurements\.meta\.json: missing"):
        build_report(study)


def test_measure_records_what_it_computed_from(study):
    meta = json.loads((study / "measurements.meta.json").read_text())

    def sha(name: str) -> str:
        return hashlib.sha256((study / name).read_bytes()).hexdigest()

    assert meta["sha256"] == sha("measurements.jsonl")
    assert meta["rows"] == len((study / "measurements.jsonl").read_text().splitlines())
    assert meta["computed_from"] == {
        n: sha(n) for n in ("index.jsonl", "cases.jsonl", "plan.jsonl")
    }
    marker = json.loads((study / "sscbench-study.json").read_text())
    assert marker["files"] == {n: sha(n) for n in ("cases.jsonl", "plan.jsonl")}
    assert StudyDir(study).is_study()
