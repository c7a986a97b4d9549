"""Identities unique where they are born, and names that become paths checked on every
read — through the real commands (issue 42, items 3 and 4): each refusal is one
``error:`` line naming the file and the place (pairs line, simulation, edit, label
line, plan field), exit 2, and nothing written.

The replay scenarios use the τ² sample shipped with the project and one admitted case
of the real-text corpus (τ-bench airline test/0, which the sample's simulation
``294d46c8…`` ran); the label and review scenarios use the measured tiny study."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from realtext_corpus import TAU2_SAMPLE
from sscbench.cli import app

ROOT = Path(__file__).resolve().parents[1]
CASE = "tau-bench/airline:test/0:PaySource:credit_card_4421486"
SIMULATION = "294d46c8-6bf9-4e98-8c9c-18e11068ffc9"  # τ² airline "20" = τ-bench test/0


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _one_error(args: list[str], *names: object) -> str:
    """Run the command; assert exit 2, no traceback and one ``error:`` line naming each
    of ``names``; return that line."""
    code, output = _cli(*args)
    assert code == 2, output
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    for name in names:
        assert str(name) in errors[0], output
    return errors[0]


def _pair(run_id: str | None = None, **more: object) -> str:
    pair: dict[str, object] = {"case_id": CASE, "recording": SIMULATION, **more}
    if run_id is not None:
        pair["run_id"] = run_id
    return json.dumps(pair)


def _study(tmp_path: Path, pairs: dict[str, str], recording: Path = TAU2_SAMPLE) -> Path:
    """A replay study of the one case: one agent per pairs text (file ``<agent>.jsonl``)."""
    (tmp_path / "cases.jsonl").write_text(_case_line(), "utf-8")
    text = (
        '[study]\nfirst_tool_call_only = false\n[world]\nsource = "tau-bench"\n'
        'domains = ["airline"]\n[cases]\nfile = "cases.jsonl"\n'
    )
    for agent, lines in pairs.items():
        (tmp_path / f"{agent}.jsonl").write_text(lines + "\n", "utf-8")
        text += (
            f'[[agents]]\nid = "{agent}"\nkind = "replay"\n[agents.replay]\n'
            f'path = "{recording}"\npairs = "{agent}.jsonl"\nqualify = "completed"\n'
        )
    config = tmp_path / "study.toml"
    config.write_text(text + '[user]\nkind = "replay"\n', "utf-8")
    return config


def _case_line() -> str:
    corpus = ROOT / "tests" / "data" / "realtext-tau2" / "cases.jsonl"
    (line,) = [x for x in corpus.read_text("utf-8").splitlines() if f'"{CASE}"' in x]
    return line + "\n"


# ---- class D: run ids ------------------------------------------------------------------


@pytest.mark.parametrize("command", ["plan", "run"])
def test_two_agents_naming_one_run_id_are_refused_naming_both_pairs_lines(tmp_path, command):
    """Before: ``run`` exited 0 with two index lines and one ledger overwritten."""
    config = _study(tmp_path, {"a": _pair("same"), "b": "\n" + _pair("same")})
    out = tmp_path / "out"
    args = [command, str(config)] + (["--out", str(out), "--no-report"] if command == "run" else [])
    line = _one_error(args, tmp_path / "b.jsonl", "line 2", tmp_path / "a.jsonl", "line 1")
    assert "'same'" in line and "'a'" in line and "'b'" in line
    assert not (out / "runs").exists() and not (out / "index.jsonl").exists()


@pytest.mark.parametrize("run_id", [".", "..", ".hidden", "a/b", "../x", ""])
def test_a_run_id_that_is_not_one_safe_file_name_is_refused_where_born(tmp_path, run_id):
    config = _study(tmp_path, {"a": _pair(run_id)})
    _one_error(["plan", str(config)], tmp_path / "a.jsonl", "line 1: run_id")


def test_a_pair_whose_recording_is_absent_names_its_line_not_the_case(tmp_path):
    config = _study(tmp_path, {"a": _pair("x") + "\n\n" + _pair("y", recording="no-such")})
    line = _one_error(["plan", str(config)], tmp_path / "a.jsonl", "line 3: recording")
    assert CASE not in line.split(": no recording")[0]


# ---- class D: simulations of a τ² recording --------------------------------------------


def _sample() -> dict:
    return json.loads(TAU2_SAMPLE.read_text("utf-8"))


def test_two_simulations_with_one_id_and_different_content_are_refused(tmp_path):
    raw = _sample()
    (first,) = [i for i, s in enumerate(raw["simulations"]) if s["id"] == SIMULATION]
    other = dict(raw["simulations"][0], id=SIMULATION)  # another conversation, same id
    raw["simulations"].append(other)
    recording = tmp_path / "dup.json"
    recording.write_text(json.dumps(raw), "utf-8")
    config = _study(tmp_path, {"a": _pair("x")}, recording)
    last = len(raw["simulations"]) - 1
    _one_error(["plan", str(config)], recording, f"simulations[{last}].id", f"[{first}]")


def test_an_identical_repeated_simulation_is_read_once(tmp_path):
    raw = _sample()
    raw["simulations"] += [s for s in raw["simulations"] if s["id"] == SIMULATION]
    recording = tmp_path / "twice.json"
    recording.write_text(json.dumps(raw), "utf-8")
    code, output = _cli("plan", str(_study(tmp_path, {"a": _pair("x")}, recording)))
    assert code == 0, output
    assert "faulted runs: 1" in output


def test_a_bad_message_is_named_where_it_stands_in_the_file(tmp_path):
    """Before: the path counted the converted messages (``simulations[k].traj.N``)."""
    raw = _sample()
    (index,) = [i for i, s in enumerate(raw["simulations"]) if s["id"] == SIMULATION]
    messages = raw["simulations"][index]["messages"]
    (k,) = [i for i, m in enumerate(messages) if m["role"] == "tool"][:1]
    messages[k] = {"role": "tool", "content": "{}"}  # no call id
    recording = tmp_path / "bad.json"
    recording.write_text(json.dumps(raw), "utf-8")
    config = _study(tmp_path, {"a": _pair("x")}, recording)
    _one_error(["plan", str(config)], recording, f"simulations[{index}].messages[{k}]")


# ---- class D: edits --------------------------------------------------------------------


INSERT = {"op": "insert", "content": "x", "user_reply": "y"}


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        ({**INSERT, "before": 9999}, "edits[0].before"),
        ({**INSERT, "before": -1}, "edits[0].before"),
        ({**INSERT, "before": "2"}, "edits[0].before"),
        ({**INSERT, "before": True}, "edits[0].before"),
        ({"op": "args", "turn": 1, "call": -1, "arguments": {}}, "edits[0].call"),
        ({"op": "text", "turn": -1, "content": "x"}, "edits[0].turn"),
        ({"op": "text", "turn": "1", "content": "x"}, "edits[0].turn"),
        ({"op": "delete", "turn": 1, "befor": 2}, "edits[0].befor"),
        ({"op": "text", "turn": 1, "content": 7}, "edits[0].content"),
        ({"op": "drop", "turn": 1}, "edits[0].op"),
    ],
    ids=[
        "before-9999",
        "before-negative",
        "before-text",
        "before-bool",
        "call-negative",
        "turn-negative",
        "turn-text",
        "unknown-key",
        "content-number",
        "unknown-op",
    ],
)
def test_an_edit_that_does_not_fit_its_recording_is_refused_naming_it(tmp_path, edit, field):
    """Before: an insert out of range was silently not applied (the log counted it) and
    ``call: -1`` edited the last call."""
    config = _study(tmp_path, {"a": _pair("ok") + "\n" + _pair("e", edits=[edit])})
    _one_error(["plan", str(config)], tmp_path / "a.jsonl", f"line 2: {field}")


# ---- class D: labels -------------------------------------------------------------------


def _labels(tmp_path: Path, *lines: dict) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    return path


def _faulted(study: Path) -> dict:
    rows = [json.loads(x) for x in (study / "index.jsonl").read_text("utf-8").splitlines()]
    return next(r for r in rows if r["kind"] == "faulted" and r["status"] == "completed")


def test_a_label_of_an_unknown_run_is_refused_naming_its_line(tiny_study, tmp_path):
    """Before: scored as a total disagreement."""
    run = _faulted(tiny_study)["run_id"]
    labels = _labels(tmp_path, {"run_id": run, "A": True}, {"run_id": "no-such-run", "A": True})
    line = _one_error(["agreement", str(tiny_study), "--reference", str(labels)], labels)
    assert "line 2, run_id" in line and "no-such-run" in line


def test_a_step_beyond_the_run_is_refused_by_agreement(tiny_study, tmp_path):
    run = _faulted(tiny_study)["run_id"]
    labels = _labels(tmp_path, {"run_id": run, "T_S": 99_999})
    line = _one_error(["agreement", str(tiny_study), "--reference", str(labels)], labels)
    assert "line 1, T_S" in line and "99999" in line


# ---- class D and E: a review folder read back ------------------------------------------


@pytest.fixture(scope="module")
def review(tiny_study: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A review plan of the tiny study for reviewers A and B, with both exports empty."""
    folder = tmp_path_factory.mktemp("review") / "review"
    code, output = _cli(
        "review", "plan", str(tiny_study), "--reviewers", "A,B", "--runs", "3", "--out", str(folder)
    )
    assert code == 0, output
    return folder


def _copy(review: Path, tmp_path: Path, **plan: object) -> Path:
    """The review folder copied (its plan edited with ``plan``), with both exports."""
    folder = tmp_path / "review"
    shutil.copytree(review, folder)
    data = json.loads((folder / "plan.json").read_text("utf-8"))
    data.update(plan)
    (folder / "plan.json").write_text(json.dumps(data), "utf-8")
    (folder / "labels").mkdir(exist_ok=True)
    for name in ("A", "B"):
        lines = [{"review_id": i, "A": False, "reviewer": name} for i in data["items"]]
        (folder / "labels" / f"{name}.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines), "utf-8"
        )
    return folder


def test_a_reviewer_name_in_plan_json_is_checked_when_read(review, tmp_path):
    """Before: ``reviewers: ["../../../evil"]`` made ``review agree`` read a file outside
    the review folder into κ."""
    folder = _copy(review, tmp_path, reviewers=["A", "../../../evil"])
    evil = (folder / "labels" / "../../../evil.jsonl").resolve()
    evil.write_text((folder / "labels" / "B.jsonl").read_text("utf-8"), "utf-8")
    _one_error(["review", "agree", str(folder)], folder / "plan.json", "reviewers")
    assert not (folder / "agreement.json").exists()


def test_a_plan_item_listed_twice_is_refused_not_counted_twice(review, tmp_path):
    items = json.loads((review / "plan.json").read_text("utf-8"))["items"]
    folder = _copy(review, tmp_path, items=[*items, items[0]])
    _one_error(["review", "agree", str(folder)], folder / "plan.json", "items")
    assert not (folder / "agreement.json").exists()


def test_a_review_label_beyond_its_run_is_refused_naming_its_line(review, tmp_path):
    folder = _copy(review, tmp_path)
    export = folder / "labels" / "B.jsonl"
    lines = export.read_text("utf-8").splitlines()
    lines[-1] = json.dumps({**json.loads(lines[-1]), "T_U": 99_999, "A": True})
    export.write_text("\n".join(lines) + "\n", "utf-8")
    line = _one_error(["review", "agree", str(folder)], export)
    assert f"line {len(lines)}, T_U" in line and "99999" in line


def test_a_run_id_that_names_no_safe_file_is_refused_when_the_index_is_read(tiny_study, tmp_path):
    study = tmp_path / "study"
    shutil.copytree(tiny_study, study)
    index = study / "index.jsonl"
    rows = index.read_text("utf-8").splitlines()
    rows[0] = json.dumps({**json.loads(rows[0]), "run_id": "../../x"})
    index.write_text("\n".join(rows) + "\n", "utf-8")
    _one_error(["measure", str(study)], index, "line 1")


def test_a_faulted_run_planned_twice_is_refused_not_counted_twice(tiny_study, tmp_path):
    """``plan.jsonl`` edited (and recorded again, so the tamper checks pass) to list a
    run twice: the report refuses it instead of scheduling it twice in Table I."""
    from study_edits import rerecord_file, reseal_measurements

    study = tmp_path / "study"
    shutil.copytree(tiny_study, study)
    plan = study / "plan.jsonl"
    lines = plan.read_text("utf-8").splitlines()
    plan.write_text("\n".join([*lines, lines[0]]) + "\n", "utf-8")
    rerecord_file(study, "plan.jsonl")
    reseal_measurements(study)
    line = _one_error(["report", str(study)], plan, "faulted_run_id")
    assert f"lines 1 and {len(lines) + 1}" in line
    assert not (study / "report").exists()
