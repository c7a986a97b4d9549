"""The oracle suite on a small τ-bench study, and the report sections it feeds: ``validate-oracle --oracle rules --oracle
invariants --oracle step-only --oracle llm-l0 --oracle llm-l1`` against the calibration
reference, the LLM oracles served by the scripted local server (a failing call and an
unparsable answer are abstentions), Table V rows written to the study."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.jsonl import read_objects
from sscbench.measure.study import measure_study
from sscbench.report.build import build_report
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.testing import Fail, OpenAIServer, text

CONFIG = """
[study]
name = "oracle-suite"
seed = 11
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "DATA"
domains = ["airline", "retail"]

[cases]
operators = ["ReturnDate", "PaySource", "ItemOption", "WriteEffect"]
per_operator = 2

[[agents]]
id = "trusting"
profile = "trusting"

[[agents]]
id = "readback"
profile = "readback"

[[agents]]
id = "consistency-check"
profile = "consistency_check"

[[agents]]
id = "product-lookup"
profile = "product_lookup"
"""

ORACLES = ("rules", "invariants", "step-only", "llm-l0", "llm-l1")
BASELINES = ("anomaly-judge", "attribution-all-at-once", "attribution-step-by-step")
SCORED = (*ORACLES, *BASELINES)
# The clean controls drawn from this study: six per operator where the clean runs that
# are the baseline of its cases allow (a shared clean run may serve two operators).
CLEAN_CONTROLS = 22


def build_oracle_study(root: Path, taubench: Path) -> Path:
    """A small measured τ-bench study: four operators, four scripted profiles."""
    text_ = CONFIG.replace("DATA", str(taubench))
    execute_study(parse_config(text_, "oracle-suite.toml"), text_, root, progress=False)
    measure_study(root)
    return root


class ToyJudge:
    """The scripted endpoint: L0 answers fail once (HTTP 500), then once unparsably, then
    'not adopted'; L1 answers 'adopted at the first assistant step stating v''. The
    diagnosis baselines: the anomaly judge flags the first tool observation of every run,
    the all-at-once judge names the last assistant step, the step-by-step judge says yes
    at the second agent step it is asked about."""

    def __init__(self):
        self.l0 = 0
        self.bodies: list[dict] = []

    def __call__(self, body):
        self.bodies.append(body)
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        steps = re.findall(r"^\[(\d+)\] (\w+)", user, re.M)
        if "for anomalies" in system:
            tools = [int(n) for n, who in steps if who == "tool"][:1]
            return text(
                json.dumps({"anomalies": [{"step": n, "description": "odd"} for n in tools]})
            )
        if "Read the whole trajectory" in system:
            last = [int(n) for n, who in steps if who == "assistant"][-1]
            return text(json.dumps({"failing_step": last, "reason": "last"}))
        if "one step at a time" in system:
            asked = [n for n, who in steps if who == "assistant"]
            return text(json.dumps({"error": len(asked) == 2, "reason": "second"}))
        if "fault contract" not in system:
            self.l0 += 1
            if self.l0 == 1:
                return Fail(500, "scripted failure")
            if self.l0 == 2:
                return text("I believe the agent adopted it.")
            return text('{"adopted": false, "t_u": null, "reason": "nothing wrong seen"}')
        injected = json.loads(re.search(r"^false value v': (.*)$", user, re.M).group(1))
        for step, line in re.findall(r"^\[(\d+)\] (assistant: .*)$", user, re.M):
            if str(injected) in line:
                answer = {"adopted": True, "t_u": int(step), "reason": "states v'"}
                return text("```json\n" + json.dumps(answer) + "\n```")
        return text('{"adopted": false, "t_u": null, "reason": "v\' never stated"}')


@pytest.fixture(scope="module")
def scored(taubench, tmp_path_factory):
    study = build_oracle_study(tmp_path_factory.mktemp("oracles") / "study", taubench)
    judge = ToyJudge()
    with OpenAIServer(judge) as server:
        args = ["validate-oracle", str(study), "--endpoint", server.base_url, "--model", "toy",
                "--max-retries", "0", "--clean-controls", "6", "--seed", "2"]  # fmt: skip
        for name in SCORED:
            args += ["--oracle", name]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return study, judge, result.output


def _result(study, name):
    return json.loads((study / "oracles" / f"{name}.json").read_text())


def _verdicts(study, name):
    """The verdicts by run id, a clean control's by (run id, the case it was judged for)."""
    return {
        v["run_id"] if v["control_case_id"] is None else (v["run_id"], v["control_case_id"]): v
        for v in read_objects(study / "oracles" / f"{name}.verdicts.jsonl")
    }


def _measured(study):
    return {r["run_id"]: r for r in read_objects(study / "measurements.jsonl")}


def test_every_oracle_writes_table_v_rows_json_and_csv(scored):
    study, _, output = scored
    for name in SCORED:
        result = _result(study, name)
        assert result["schema"] == "sscbench.oracle-scores/1" and result["oracle"] == name
        assert result["reference"] == "scripted calibration labels" and result["context"]
        strata = result["strata"]
        assert {"all", "operator:ReturnDate", "operator:ItemOption", "arrival:pre"} <= set(strata)
        assert result["clean_controls"] == CLEAN_CONTROLS
        with (study / "oracles" / f"{name}.csv").open() as handle:
            rows = list(csv.DictReader(handle))
        assert {r["metric"] for r in rows} >= {"coverage", "t_u_exact", "t_u_within_1"}
        assert name in output
    assert "Table V" in output


def test_rules_oracle_recovers_the_calibration_labels(scored):
    study, _, _ = scored
    row = _result(study, "rules")["strata"]["all"]
    assert row["fp"] == row["fn"] == row["abstained_adopted"] == 0 and row["tp"] > 10
    assert row["t_u_exact"]["k"] == row["t_u_exact"]["n"] == row["t_u_applicable"]
    assert row["fp_clean"]["k"] == 0 and row["fp_clean"]["n"] == CLEAN_CONTROLS


def test_llm_failures_and_unparsable_answers_are_abstentions_not_negatives(scored):
    study, judge, _ = scored
    result = _result(study, "llm-l0")
    assert result["abstention_reasons"] == {"call failed": 1, "unparsable answer": 1}
    verdicts = _verdicts(study, "llm-l0")
    abstained = [v for v in verdicts.values() if v["abstention"]]
    assert "scripted failure" in abstained[0]["abstention"] or "500" in abstained[0]["abstention"]
    assert all(v["adopted"] is None for v in abstained)
    row = result["strata"]["all"]
    assert row["tp"] == row["fp"] == 0  # the rest said 'not adopted'
    assert row["coverage"]["k"] == row["applicable"] - 2
    assert row["abstained_adopted"] + row["abstained_not_adopted"] == 2
    assert (
        row["recall"]["k"] == 0
        and row["recall"]["n"] == row["tp"] + row["fn"] + row["abstained_adopted"]
    )
    # the L0 prompt carries no contract; the L1 prompt carries it with v'
    audits = [b for b in judge.bodies if b["messages"][0]["content"].startswith("You audit")]
    l0 = [b for b in audits if "fault contract" not in b["messages"][0]["content"]]
    l1 = [b for b in audits if "fault contract" in b["messages"][0]["content"]]
    assert len(l0) == len(l1) == result["judged"]
    assert all("false value v'" not in b["messages"][1]["content"] for b in l0)
    assert all("Tool schemas:" in b["messages"][1]["content"] for b in l0 + l1)


def test_llm_l1_steps_are_the_toy_judges_and_score_against_the_reference(scored):
    study, _, _ = scored
    verdicts = _verdicts(study, "llm-l1")
    assert not any(v["abstention"] for v in verdicts.values())  # fenced JSON is accepted
    adopted = [v for v in verdicts.values() if v["adopted"]]
    assert adopted and all(isinstance(v["t_u"], int) for v in adopted)
    row = _result(study, "llm-l1")["strata"]["all"]
    faulted = [v for v in verdicts.values() if v["population"] == "faulted-reference"]
    assert row["tp"] + row["fp"] == sum(1 for v in faulted if v["adopted"])
    assert row["coverage"]["k"] == row["applicable"]


def test_invariants_flag_the_co_delivered_fault_at_its_observation(scored):
    study, _, _ = scored
    measured = _measured(study)
    verdicts = _verdicts(study, "invariants")
    result = _result(study, "invariants")["strata"]
    return_date = [v for v in verdicts.values()
                   if v["population"] == "faulted-reference" and "ReturnDate" in v["run_id"]]  # fmt: skip
    assert return_date
    for v in return_date:  # the injected date contradicts an unchanged field at T_F
        assert v["adopted"] is True and v["t_u"] == measured[v["run_id"]]["T_F"], v
        assert "unchanged invariant reservations/" in v["reason"]
    assert result["operator:ReturnDate"]["fp_clean"]["k"] == 0
    # it alarms at the fault, not at the first reliance: exact T_U is rare
    assert result["all"]["t_u_exact"]["k"] < result["all"]["t_u_applicable"]


def test_step_only_is_excluded_from_adoption_and_finds_the_first_differing_observation(scored):
    study, _, _ = scored
    row = _result(study, "step-only")["strata"]["all"]
    assert row["precision"] is None and row["recall"] is None and row["fp_clean"] is None
    measured = _measured(study)
    for v in _verdicts(study, "step-only").values():
        if v["population"] == "faulted-reference" and "ReturnDate" in v["run_id"]:
            assert v["t_u"] == measured[v["run_id"]]["T_F"]
        if v["population"] == "clean-control":
            assert v["t_u"] is None or v["abstention"] is None


def test_the_diagnosis_baselines_read_their_answers_as_verdicts_and_count_calls(scored):
    study, _, _ = scored
    anomaly = _verdicts(study, "anomaly-judge")
    flagged = [v for v in anomaly.values() if v["adopted"]]
    assert flagged and all(v["t_u"] is not None and v["calls"] == 1 for v in flagged)
    # any anomaly is a positive verdict, so clean controls with a tool step are positives
    row = _result(study, "anomaly-judge")["strata"]["all"]
    assert row["fp_clean"]["k"] == row["fp_clean"]["n"] > 0
    once = _verdicts(study, "attribution-all-at-once").values()
    assert {v["calls"] for v in once} == {1} and all(v["adopted"] for v in once)
    steps = _verdicts(study, "attribution-step-by-step").values()
    assert {v["calls"] for v in steps if v["adopted"]} == {2}  # stopped at the first yes
    assert all(v["calls"] <= 1 for v in steps if v["adopted"] is False)
    calls = _result(study, "attribution-step-by-step")["calls"]
    assert calls["max"] == 2 and calls["total"] == sum(v["calls"] for v in steps)
    assert calls["judged"] == len(steps) and 1 < calls["per_trajectory"] <= 2
    assert _result(study, "rules")["calls"]["total"] == 0
    assert _result(study, "llm-l1")["inputs"]["relation_contract"] is True
    assert _result(study, "llm-l0")["inputs"]["relation_contract"] is False


def test_a_second_invocation_replaces_only_its_oracles_files(scored, tmp_path):
    study, _, _ = scored
    before = (study / "oracles" / "llm-l1.json").read_text()
    result = CliRunner().invoke(app, ["validate-oracle", str(study), "--oracle", "rules",
                                      "--clean-controls", "6", "--seed", "2", "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rules"]["strata"]["all"]["tp"] > 10
    assert (study / "oracles" / "llm-l1.json").read_text() == before


def test_unknown_oracle_and_missing_endpoint_are_clear_errors(scored):
    study, _, _ = scored
    result = CliRunner().invoke(app, ["validate-oracle", str(study), "--oracle", "nope"])
    assert result.exit_code == 2 and "unknown oracle 'nope'" in result.output
    result = CliRunner().invoke(app, ["validate-oracle", str(study), "--oracle", "llm-l1"])
    assert result.exit_code == 2 and "--endpoint" in result.output


def test_the_plain_scoring_without_oracle_names_still_prints(scored):
    study, _, _ = scored
    result = CliRunner().invoke(app, ["validate-oracle", str(study)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("all: ") and "T_U exact" in result.output


# ---- the report: Table V and the review panel -------------------------------------------

AGREEMENT = {
    "schema": "sscbench.review-agreement/1",
    "reviewers": ["A", "B", "C"],
    "items": 12,
    "calibration": 2,
    "kappa": {
        "A": {"kappa": 0.8571, "items": 12, "categories": [True, False, "undecidable"]},
        "Z_S": {"kappa": 0.9123, "items": 12, "categories": ["pre", "late", "absent"]},
        "T_U_status": {"kappa": None, "items": 0, "categories": []},
        "T_S_status": {"kappa": 0.6667, "items": 11, "categories": ["located", "undecidable"]},
    },
    "exact_step": {
        "T_E": {"agree": 9, "located": 10},
        "T_S": {"agree": 11, "located": 11},
        "T_U": {"agree": 7, "located": 8},
    },
    "disputed": ["r003", "r007"],
    "unanimous": 10,
}


@pytest.fixture(scope="module")
def study(scored):
    return scored[0]


def _section(html, name):
    return html.split(f'<section id="{name}"', 1)[1].split("</section>", 1)[0]


def _copy(study, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(study, copy, ignore=shutil.ignore_patterns("report"))
    return copy


@pytest.fixture(scope="module")
def reported(study, tmp_path_factory):
    """A copy of the scored study with a review folder (agreement + adjudicated reference
    of four runs, the first disagreeing with the measurement on A), reported once."""
    copy = _copy(study, tmp_path_factory.mktemp("reported"))
    review = copy / "review"
    review.mkdir()
    (review / "agreement.json").write_text(json.dumps(AGREEMENT))
    faulted = [r for r in read_objects(copy / "measurements.jsonl")
               if r["kind"] == "faulted" and r.get("A") in (0, 1)][:4]  # fmt: skip
    lines = [{"run_id": r["run_id"], "A": bool(r["A"]) != (i == 0), "Z_S": r["Z_S"]}
             for i, r in enumerate(faulted)]  # fmt: skip
    (review / "reference.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    os.utime(copy / "measurements.jsonl")
    return copy, build_report(copy).read_text()


def test_oracles_section_shows_table_v_for_every_scored_oracle(reported):
    copy, html = reported
    oracles = _section(html, "oracles")
    oracles = re.sub(r'<span class="nw">([^<]*)</span>', r"\1", oracles)  # names kept whole
    assert 'data-applies="true"' in oracles
    for table in ("oracles-adoption", "oracles-location", "oracles-operator", "oracles-arrival"):
        assert f'id="{table}"' in oracles
    adoption = oracles.split('id="oracles-adoption"', 1)[1].split("</table>", 1)[0]
    for name in SCORED:
        assert f'data-key="{name}"' in adoption
    rules = json.loads((copy / "oracles" / "rules.json").read_text())["strata"]["all"]
    # the label's text, then its caveat marker in its own span (sentences under the table)
    text, _, caveats = rules["recall"]["label"].partition(" ⚠ ")
    text = text.replace("cluster bootstrap ∪ Wilson, n_eff", "clustered, n_eff")
    assert text in adoption.replace("&#39;", "'")
    assert not caveats or f"⚠ {caveats}</span>" in adoption
    assert "step only" in adoption and "Table V (a)" in oracles
    l0_note = oracles.split("llm-l0 reads", 1)[1].split("</p>", 1)[0]
    assert "abstained on 2 of" in l0_note and "call failed: 1" in l0_note
    rows = list(csv.DictReader((copy / "report" / "tables" / "oracles.csv").open()))
    assert {r["oracle"] for r in rows} == set(SCORED)
    recall = next(
        r for r in rows if (r["oracle"], r["stratum"], r["metric"]) == ("rules", "all", "recall")
    )
    assert (int(recall["numerator"]), int(recall["denominator"])) == (
        rules["recall"]["k"],
        rules["recall"]["n"],
    )


def test_table_ii_lists_every_scored_setting_with_its_inputs_and_calls(reported):
    copy, html = reported
    order = re.findall(r'<section id="([a-z-]+)" data-applies="true"', html)
    assert order.index("oracle-settings") + 1 == order.index("oracles")
    settings = _section(html, "oracle-settings")
    assert "Table II" in settings
    keys = re.findall(r'data-key="([^"]+)"', settings)
    paper = ["anomaly-judge", "llm-l0", "llm-l1", "attribution-all-at-once",
             "attribution-step-by-step", "step-only", "invariants", "rules"]  # fmt: skip
    assert keys == paper and set(keys) == set(SCORED)
    rows = {r["oracle"]: r for r in csv.DictReader(
        (copy / "report" / "tables" / "oracle-settings.csv").open())}  # fmt: skip
    assert set(rows) == set(SCORED)
    assert rows["llm-l1"]["relation_contract"] == "True" == rows["llm-l0"]["tool_schema"]
    assert rows["llm-l0"]["relation_contract"] == "False"
    assert rows["invariants"]["mined_invariants"] == "True"
    assert rows["invariants"]["paper"].startswith("B5")
    assert rows["attribution-step-by-step"]["calls_declared"].startswith("one per agent step")
    assert rows["attribution-step-by-step"]["calls_max"] == "2"
    assert rows["attribution-all-at-once"]["calls_per_trajectory"] == "1.0"
    assert rows["rules"]["calls_total"] == "0"
    judged = _result(copy, "llm-l0")["judged"]
    assert rows["llm-l0"]["judged"] == str(judged) == rows["llm-l0"]["calls_total"]
    step_row = settings.split('data-key="attribution-step-by-step"', 1)[1].split("</tr>", 1)[0]
    assert "one per agent step, up to the first yes" in step_row and "max 2" in step_row


def test_table_v_has_the_papers_rows_including_the_baselines(reported):
    _, html = reported
    oracles = _section(html, "oracles")
    for table in ("oracles-adoption", "oracles-location", "oracles-operator"):
        body = oracles.split(f'id="{table}"', 1)[1].split("</table>", 1)[0]
        keys = re.findall(r'data-key="([^"]+)"', body)
        assert keys[:5] == ["anomaly-judge", "llm-l0", "llm-l1", "attribution-all-at-once",
                            "attribution-step-by-step"] and set(keys) == set(SCORED)  # fmt: skip
        assert ">paper<" in body
    adoption = oracles.split('id="oracles-adoption"', 1)[1].split("</table>", 1)[0]
    row = adoption.split('data-key="llm-l1"', 1)[1].split("</tr>", 1)[0]
    assert ">B2-L1<" in row


def test_validation_reads_the_adjudicated_reference_and_the_kappa_panel(reported):
    copy, html = reported
    validation = _section(html, "validation")
    assert "adjudicated reference (review/reference.jsonl)" in validation
    assert 'id="review-kappa"' in validation and 'id="review-steps"' in validation
    assert "(review/agreement.json): 10 of 12 runs unanimous, 2 disputed" in validation
    assert "0.857" in validation and "undefined" in validation  # T_U_status κ is null
    table = list(csv.DictReader((copy / "report" / "tables" / "validation.csv").open()))
    a = next(r for r in table if r["operator"] == "all operators" and r["field"] == "A")
    assert (a["agree"], a["applicable"]) == ("3", "4")
    panel = list(csv.DictReader((copy / "report" / "tables" / "review_agreement.csv").open()))
    steps = next(r for r in panel if r["panel"] == "exact_step" and r["quantity"] == "T_U")
    assert (steps["agree"], steps["located"]) == ("7", "8")


def test_a_review_folder_given_elsewhere_and_a_bad_agreement_file(study, tmp_path):
    copy = _copy(study, tmp_path)
    folder = tmp_path / "my-review"
    folder.mkdir()
    (folder / "agreement.json").write_text(json.dumps(AGREEMENT))
    os.utime(copy / "measurements.jsonl")
    validation = _section(build_report(copy, review=folder).read_text(), "validation")
    assert 'id="review-kappa"' in validation
    assert "scripted calibration labels" in validation  # no reference.jsonl: calibration
    (folder / "agreement.json").write_text(json.dumps({**AGREEMENT, "schema": "other/9"}))
    with pytest.raises(DataError, match=r"agreement\.json, field schema"):
        build_report(copy, review=folder)
    bad = {**AGREEMENT, "kappa": {"A": {"kappa": "high", "items": 3}}}
    (folder / "agreement.json").write_text(json.dumps(bad))
    with pytest.raises(DataError, match=r"agreement\.json, field kappa\.A\.kappa"):
        build_report(copy, review=folder)
    with pytest.raises(DataError, match="--review"):
        build_report(copy, review=tmp_path / "absent")


def test_no_oracle_results_says_how_to_score(study, tmp_path):
    copy = _copy(study, tmp_path)
    shutil.rmtree(copy / "oracles")
    html = build_report(copy).read_text()  # a section that does not apply: listed at the end
    not_shown = _section(html, "not-shown")
    assert 'id="oracles" data-applies="false"' in not_shown
    assert "validate-oracle STUDY --oracle" in not_shown


def test_the_guides_own_oracle_example_scores_beside_the_builtins(study, monkeypatch):
    from sscbench.oracles import registry
    from sscbench.oracles.base import OracleSettings
    from sscbench.oracles.suite import score_study

    guide = (Path(__file__).resolve().parents[2] / "docs" / "validating-an-oracle.md").read_text()
    code = re.search(r"```python\n# my_judges/echo.py\n(.*?)```", guide, re.S).group(1)
    namespace: dict = {}
    exec(code, namespace)  # the example exactly as the guide prints it
    monkeypatch.setitem(registry._FACTORIES, "echo", namespace["EchoJudge"])
    monkeypatch.setattr(registry, "_LOADED", True)
    result = score_study(study, ["echo"], OracleSettings(), clean_per_operator=2)["echo"]
    row = result["strata"]["all"]
    assert result["context"] == "assistant messages and the contract's injected value"
    assert row["tp"] + row["fn"] + row["abstained_adopted"] == row["recall"]["n"] > 0
