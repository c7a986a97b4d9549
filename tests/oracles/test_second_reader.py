"""The second reader of marked runs (``sscbench second-read``) against the local test
server: only runs with ``unread > 0`` are sent, with the L1 prompt and their contract; a
quote found at its step is a valid proposal, one that is not is invalid and shown; a 401
or an unreachable endpoint gives abstentions with reasons and the CLI's exit codes; the
rule rows stay byte-identical. Every call goes to 127.0.0.1, a handful per test."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.measure.study import measure_study
from sscbench.oracles.prompts import L1_JUDGEMENT
from sscbench.oracles.second_reader import parse_second, quote_problem
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import StudyDir
from sscbench.study.rows import MeasurementRow
from sscbench.study.seal import study_sources, write_seal
from sscbench.study.second_reading import (
    SECOND_READING,
    compare,
    read_second_reading,
    unread_of,
)
from sscbench.study.study import Study
from sscbench.testing import Fail, OpenAIServer, text

CONFIG = """
[study]
name = "second-reader"
seed = 5
repetitions = 1

[world]
source = "tau-bench"
data = "DATA"
domains = ["airline"]

[cases]
operators = ["ReturnDate"]
per_operator = 3

[[agents]]
id = "trusting"
profile = "trusting"
"""

JUDGE = """
[oracles]
settings = ["rules"]

[oracles.endpoint]
base_url = "URL"
model = "toy-judge"
api_key_env = "SSCBENCH_TEST_KEY"
max_retries = 0
timeout = 10
unreachable_after = 1
"""


def _faulted(root: Path) -> list[MeasurementRow]:
    rows = Study.open(root).measurements.values()
    return [r for r in rows if r.kind == "faulted" and r.status == "completed"]


@pytest.fixture(scope="module")
def measured(taubench, tmp_path_factory) -> Path:
    """A small measured study whose first faulted run is marked unread, the second marked
    checked (unread 0) and the rest carry no mark (as rows before the marks)."""
    root = tmp_path_factory.mktemp("second") / "study"
    config = CONFIG.replace("DATA", str(taubench))
    execute_study(parse_config(config, "second.toml"), config, root, progress=False)
    measure_study(root)
    faulted = [r.run_id for r in _faulted(root)]
    assert len(faulted) >= 3
    marks = {faulted[0]: 2, faulted[1]: 0}
    path, lines = root / "measurements.jsonl", []
    for line in path.read_text("utf-8").splitlines(keepends=True):
        row = json.loads(line)
        if row["run_id"] not in marks:  # as rows measured before the marks existed
            row.pop("unread", None)
            row.pop("unread_steps", None)
        else:
            row["unread"] = marks[row["run_id"]]
            row["unread_steps"] = (
                [{"step": 9, "kind": "unresolved-mention", "span": "the date"}]
                if marks[row["run_id"]]
                else []
            )
        lines.append(json.dumps(row) + "\n")
    text_ = "".join(lines)
    path.write_text(text_, encoding="utf-8")
    digest = hashlib.sha256(text_.encode("utf-8")).hexdigest()
    write_seal(path, digest, len(lines), study_sources(StudyDir(root)))
    return root


def _copy(measured: Path, tmp_path: Path, url: str) -> Path:
    study = tmp_path / "study"
    shutil.copytree(measured, study)
    (study / "judge.toml").write_text(JUDGE.replace("URL", url), encoding="utf-8")
    return study


def _invoke(study: Path, *more: str):
    args = ["second-read", str(study), "--config", str(study / "judge.toml"), *more]
    return CliRunner().invoke(app, args, env={"SSCBENCH_TEST_KEY": "k-test"})


class QuotingJudge:
    """Answers with the first assistant step stating v' as T_S and T_U, quoting it
    (``honest``) or quoting words that step does not hold."""

    def __init__(self, honest: bool = True):
        self.honest = honest
        self.bodies: list[dict] = []

    def __call__(self, body):
        self.bodies.append(body)
        user = body["messages"][1]["content"]
        injected = json.loads(re.search(r"^false value v': (.*)$", user, re.M).group(1))
        for step, line in re.findall(r"^\[(\d+)\] assistant: (.*)$", user, re.M):
            if str(injected) in line:
                quote = str(injected) if self.honest else "a sentence nobody wrote"
                answer = {
                    "t_s": int(step),
                    "t_s_quote": quote,
                    "adopted": True,
                    "t_u": int(step),
                    "t_u_quote": quote,
                    "reason": "states v'",
                }
                return text(json.dumps(answer))
        return text(
            '{"t_s": null, "t_s_quote": null, "adopted": false, "t_u": null, '
            '"t_u_quote": null, "reason": "never used"}'
        )


def test_only_the_marked_run_is_sent_and_its_quote_is_checked(measured, tmp_path):
    judge = QuotingJudge()
    before = (measured / "measurements.jsonl").read_bytes()
    with OpenAIServer(judge) as server:
        study = _copy(measured, tmp_path, server.base_url)
        result = _invoke(study)
    assert result.exit_code == 0, result.output
    assert len(judge.bodies) == 1  # unread 0 and unmarked rows are never sent
    system, user = (m["content"] for m in judge.bodies[0]["messages"])
    assert system.startswith(L1_JUDGEMENT) and "t_s_quote" in system
    assert "Fault contract:" in user and "false value v'" in user
    readings = read_second_reading(study / SECOND_READING)
    marked = [r for r in _faulted(study) if unread_of(r)]
    assert list(readings) == [marked[0].run_id]
    reading = readings[marked[0].run_id]
    assert reading.model == "toy-judge" and reading.unread == 2 and reading.answered
    assert [m.columns() for m in reading.unread_steps] == [
        {"step": 9, "kind": "unresolved-mention", "span": "the date"}
    ]
    assert len(reading.prompt_sha256) == 64
    proposals = reading.proposals
    assert set(proposals) == {"T_S", "T_U", "A"}
    assert all(p.valid for p in proposals.values()), proposals
    assert proposals["A"].value == 1 and proposals["T_U"].quote_step == proposals["T_U"].value
    # the rule rows are byte-identical, and the CLI names the file and the counts
    assert (study / "measurements.jsonl").read_bytes() == before
    assert "1 marked runs, 1 answered, 0 abstained" in result.output


def test_a_quote_not_at_its_step_makes_the_proposal_invalid(measured, tmp_path):
    with OpenAIServer(QuotingJudge(honest=False)) as server:
        study = _copy(measured, tmp_path, server.base_url)
        result = _invoke(study, "--json")
    assert result.exit_code == 0, result.output
    (reading,) = read_second_reading(study / SECOND_READING).values()
    if reading.proposals["T_U"].value == "not-applicable":
        pytest.skip("the marked run never stated v'")  # the scripted agent always does
    assert not reading.proposals["T_U"].valid
    assert "does not occur at step" in str(reading.proposals["T_U"].problem)
    assert not reading.proposals["A"].valid
    row = Study.open(study).measurements[reading.run_id]
    assert compare(reading, row)["T_U"] == "invalid"
    assert json.loads(result.output)["standings"]["T_U"] == {"invalid": 1}


def test_a_401_is_an_abstention_with_its_reason_and_exit_1(measured, tmp_path):
    with OpenAIServer(lambda body: Fail(401, "bad key")) as server:
        study = _copy(measured, tmp_path, server.base_url)
        result = _invoke(study)
    assert result.exit_code == 1, result.output
    (reading,) = read_second_reading(study / SECOND_READING).values()
    assert not reading.answered and reading.proposals == {}
    assert reading.abstention.startswith("call failed:") and "401" in reading.abstention
    assert "k-test" not in (study / SECOND_READING).read_text("utf-8")
    assert "0 answered, 1 abstained" in result.output


def test_an_unreachable_endpoint_abstains_with_its_reason_and_exit_2(measured, tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    study = _copy(measured, tmp_path, f"http://127.0.0.1:{port}/v1")
    before = (study / "measurements.jsonl").read_bytes()
    result = _invoke(study)
    assert result.exit_code == 2, result.output
    (reading,) = read_second_reading(study / SECOND_READING).values()
    assert "unreachable" in str(reading.abstention)
    assert (study / "measurements.jsonl").read_bytes() == before


def test_no_judge_model_is_a_clear_error(measured, tmp_path):
    study = _copy(measured, tmp_path, "http://127.0.0.1:9/v1")
    (study / "judge.toml").write_text('[oracles]\nsettings = ["rules"]\n', encoding="utf-8")
    result = _invoke(study)
    assert result.exit_code == 2
    assert "no judge model" in result.output
    assert not (study / SECOND_READING).exists()


def test_parse_second_reads_steps_quotes_and_refuses_bad_answers(measured):
    study = Study.open(measured)
    run_id = _faulted(measured)[0].run_id
    ledger = study.ledger(run_id)
    said = next(e for e in ledger if e.type == "user")
    words = " ".join(said.content.split()[:3])
    assert quote_problem(ledger, said.step, "  " + words.replace(" ", "\n ")) is None
    assert quote_problem(ledger, said.step + 1, "zzz never said zzz") is not None
    answer = {
        "t_s": said.step,
        "t_s_quote": words,
        "adopted": False,
        "t_u": None,
        "t_u_quote": None,
        "reason": "r",
    }
    proposals, _ = parse_second(json.dumps(answer), ledger)
    assert proposals["T_S"].valid and proposals["A"].value == 0 and proposals["A"].valid
    assert proposals["T_U"].value == "not-applicable"
    for bad in (
        "not json",
        '{"adopted": "yes"}',
        json.dumps({**answer, "t_u": 3}),
        json.dumps({**answer, "t_s": 10_000}),
        json.dumps({**answer, "extra": 1}),
    ):
        with pytest.raises(ValueError):
            parse_second(bad, ledger)


@pytest.fixture(scope="module")
def read_twice(measured, tmp_path_factory) -> Path:
    """The measured study after a second reading whose quotes are invalid for the marked
    run (so the report and the review pages show an invalid proposal beside the rules)."""
    with OpenAIServer(QuotingJudge(honest=False)) as server:
        study = _copy(measured, tmp_path_factory.mktemp("read"), server.base_url)
        assert _invoke(study).exit_code == 0
    return study


def _between(html: str, start: str, end: str) -> str:
    return html[html.index(start) : html.index(end, html.index(start))]


def test_the_run_page_lists_the_second_reading_beside_the_rules(read_twice):
    from sscbench.report.build import build_report

    before = (read_twice / "measurements.jsonl").read_bytes()
    report = build_report(read_twice, run_pages="all")
    (reading,) = read_second_reading(read_twice / SECOND_READING).values()
    page = (report.parent / "runs" / f"{reading.run_id}.html").read_text("utf-8")
    panel = _between(page, 'id="second-reading"', "</table>")
    assert "toy-judge" in panel and "a sentence nobody wrote" in panel
    assert "does not occur at step" in panel and "invalid" in panel
    row = Study.open(read_twice).measurements[reading.run_id]
    marks = _between(page, 'id="marks-table"', "</table>")
    assert f'data-mark="T_U">{row.T_U}<' in marks  # the marks keep the rule reading
    other = next(r for r in _faulted(read_twice) if r.run_id != reading.run_id)
    assert "second-reading" not in (report.parent / "runs" / f"{other.run_id}.html").read_text()
    validation = _between(report.read_text("utf-8"), 'id="validation"', "</section>")
    assert "1 of 2 checked faulted runs marked unread, 1 sent" in validation
    assert "second-reading-standing" in validation
    csv = (report.parent / "tables" / "second_reading.csv").read_text("utf-8")
    assert "T_U,invalid,1" in csv
    assert (read_twice / "measurements.jsonl").read_bytes() == before


def test_review_export_shows_the_second_reading_only_when_asked(read_twice, tmp_path):
    from sscbench.review.export import export_review

    (reading,) = read_second_reading(read_twice / SECOND_READING).values()
    for asked in (False, True):
        out = tmp_path / f"review-{asked}"
        key = tmp_path / f"key-{asked}.json"
        summary = export_review(read_twice, out, key=key, second_reading=asked)
        mapping = json.loads(key.read_text("utf-8"))["runs"]
        review_id = next(r for r, run in mapping.items() if run == reading.run_id)
        page = (out / "pages" / f"{review_id}.html").read_text("utf-8")
        assert ("second-reading" in page) is asked
        assert summary["second_readings"] == (1 if asked else 0)
        if asked:
            assert "a sentence nobody wrote" in page and "does not occur at step" in page
            assert reading.run_id not in page  # the run id stays masked
        others = [r for r, run in mapping.items() if run != reading.run_id]
        for other in others:
            assert "second-reading" not in (out / "pages" / f"{other}.html").read_text()


def test_the_file_names_its_schema_one_line_per_marked_run(read_twice):
    (line,) = (read_twice / SECOND_READING).read_text("utf-8").splitlines()
    record = json.loads(line)
    assert record["schema"] == "sscbench.second-reading/1" and "schema_" not in record
    assert set(record) >= {"run_id", "model", "prompt_sha256", "proposals", "abstention"}


def test_a_reading_from_an_earlier_measurement_is_flagged_stale(read_twice, tmp_path):
    from sscbench.study.second_reading import run_panel

    (reading,) = read_second_reading(read_twice / SECOND_READING).values()
    row = Study.open(read_twice).measurements[reading.run_id]
    assert reading.measured_from is not None
    assert not run_panel(reading, row, reading.measured_from)["stale"]
    assert run_panel(reading, row, "0" * 64)["stale"]
