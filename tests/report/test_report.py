"""``sscbench report``: tables, claims, figures and an escaped, self-contained HTML page."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from html import escape, unescape
from pathlib import Path

import pytest

from sscbench.analysis.populations import cell_table
from sscbench.errors import DataError
from sscbench.measure.study import measure_study
from sscbench.report.build import build_report
from sscbench.report.runs import page_name
from sscbench.report.sections import SECTION_IDS
from sscbench.run.executor import execute_study
from sscbench.study.config import load_config
from sscbench.study.rows import MeasurementRow
from study_edits import reseal_measurements

ROOT = Path(__file__).resolve().parents[2]
TYPED = """
[study]
name = "typed-report"
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "DATA"
idempotency_keys = true

[cases]
operators = ["TimeoutAfterCommit", "StalePolicy"]
per_operator = 2

[[agents]]
id = "keyed"
profile = "idempotent_readback"

[[agents]]
id = "naive"
profile = "naive_retry"
"""


@pytest.fixture(scope="module")
def study(default_study):
    return default_study


def _rows(study):
    return [json.loads(x) for x in (study / "measurements.jsonl").read_text().splitlines()]


def _csv_rows(path):
    with path.open() as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def report(study):
    return build_report(study)


def test_report_files(study, report):
    html = report.read_text()
    folder = study / "report"
    assert report == folder / "report.html"
    for name in ("funnel", "cells", "claims", "crossing", "arrival", "stance", "gaps"):
        assert (folder / "tables" / f"{name}.csv").exists()
    for name in ("funnel", "arrival", "adoption", "reliance"):
        assert (folder / "figures" / f"{name}.png").stat().st_size > 1000
        assert (folder / "figures" / f"{name}.svg").exists()
        assert f'id="fig-{name}"' in html
    claims = json.loads((folder / "claims.json").read_text())
    assert {c["claim"] for c in claims} == {
        "propagation",
        "adoption with eventual counterevidence",
        "adoption under pre-use counterevidence",
    }
    cells = _csv_rows(folder / "tables" / "cells.csv")
    assert {"operator", "config_id", "quantity", "numerator", "denominator", "clusters",
            "estimate", "low", "high", "method", "population", "label"} <= set(cells[0])  # fmt: skip


def _layout(html):
    """The page's applicable sections in order, and the skipped ones with their reasons."""
    shown = re.findall(r'<section id="([a-z-]+)" data-applies="true"', html)
    skipped = re.findall(r'<span class="skipped" id="([a-z-]+)" data-applies="false">', html)
    return shown, skipped


def test_headline_first_and_sections_that_do_not_apply_listed_at_the_end(report):
    html = report.read_text()
    shown, skipped = _layout(html)
    assert shown[:2] == ["headline", "configurations"] and shown[-1] == "not-shown"
    # every section once, applicable ones in SECTION_IDS order, the others at the end
    assert sorted(shown[:-1] + skipped) == sorted(SECTION_IDS)
    assert shown[:-1] == [i for i in SECTION_IDS if i in shown]
    assert {"paired", "release"} <= set(skipped) and "funnel" in shown
    tail = html.split('<section id="not-shown"', 1)[1]
    assert "<table" not in tail and "no second study given" in tail
    assert html.index('id="headline"') < html.index('id="contents"') < html.index('id="funnel"')
    headline = html.split('<section id="headline"', 1)[1].split("</section>", 1)[0]
    assert "564 runs: 180 clean, 384 faulted; 6 configurations" in headline
    assert 'id="headline-table"' in headline and "propagation" in headline
    assert "0 faulted runs" not in html


def test_primary_population_is_one_and_funnel_p_is_sum_of_cells(study, report):
    rows = _rows(study)
    primary = [r for r in rows if r["kind"] == "faulted" and r["repetition"] == 0]
    funnel = {r["operator"]: r for r in _csv_rows(study / "report" / "tables" / "funnel.csv")}
    total = funnel["all operators"]
    assert int(total["scheduled"]) == len(primary)
    cells = cell_table([MeasurementRow.of(r) for r in rows])
    assert int(total["P"]) == sum(c["P"] for c in cells) > 0
    assert sum(c["scheduled"] for c in cells) == len(primary)
    # every table states its population
    html = report.read_text()
    assert html.count("<table") == html.count('class="pop">population:')


def _kept_whole(html: str) -> str:
    """The page without the no-wrap spans that keep ranges and hyphenated names whole."""
    return re.sub(r'<span class="nw">([^<]*)</span>', r"\1", html)


def test_sensitivity_rows_on_the_page_equal_the_csv(study, report):
    html = _kept_whole(report.read_text())
    # the cell's text, then its caveat marker (the sentences are under the table, once)
    cells = re.findall(
        r'<span data-key="([^"]+)">([^<]*)</span>(?:<span class="caveat">([^<]*)</span>)?', html
    )
    page = {(k, unescape(v + c)) for k, v, c in cells}
    assert any(c for _, _, c in cells)  # repeated runs over 8 tasks: caveated cells
    assert "few clusters: fewer than 10 clusters" in html
    assert "clustered: repeated runs per task" in html
    assert html.count("⚠ few clusters: fewer than 10") <= html.count("<table")
    rows = _csv_rows(study / "report" / "tables" / "sensitivity.csv")
    # the page and the CSV name the interval method alike (stats.method_name)
    wanted = {
        (escape(f"{r['analysis']}|{r['operator']}|{r['config_id']}|{r['quantity']}"), r["label"])
        for r in rows
    }
    assert len(rows) == len(wanted) and page == wanted
    numeric = [r for r in rows if r["method"] != "count" and r["denominator"] not in ("", "0")]
    assert numeric and all(0 <= float(r["estimate"]) <= 1 for r in numeric)


def _sets(study):
    index = (study / "report" / "runs" / "index.html").read_text()
    blob = re.search(r'<script type="application/json" id="run-data">(.*?)</script>', index, re.S)
    return json.loads(blob.group(1))


def test_count_links_open_runs_whose_marks_agree(study, report):
    html = report.read_text()
    data = _sets(study)
    measured = {r["run_id"]: r for r in _rows(study)}
    checked = 0
    for section in ("arrival", "adoption"):
        body = html.split(f'<section id="{section}"', 1)[1].split("</section>", 1)[0]
        links = re.findall(r'<a class="count" href="runs/index.html#set=(\d+)">(\d+)</a>', body)
        assert links
        for number, count in links:
            members = data["sets"][int(number)]
            assert len(members) == int(count)
            for i in members[:3]:
                run_id = data["runs"][i][0]
                page = (study / "report" / "runs" / page_name(run_id)).read_text()
                marks = dict(re.findall(r'data-mark="(\w+)">([^<]*)<', page))
                row = measured[run_id]
                for mark in ("T_F", "T_E", "T_S", "T_U", "Z_S", "A"):
                    want = row.get(mark)
                    assert marks[mark] == ("–" if want is None else str(want)), (run_id, mark)
                for mark in ("T_F", "T_E", "T_S", "T_U"):
                    if isinstance(row.get(mark), int):
                        step = re.search(rf'<tr data-step="{row[mark]}"[^>]*>.*?</tr>', page, re.S)
                        assert step and f'data-mark-at="{mark}"' in step.group(0)
                checked += 1
    assert checked > 20


def test_clustered_intervals_carry_their_caveats_and_never_zero_width(study, report):
    cells = _csv_rows(study / "report" / "tables" / "cells.csv")
    flagged = [c for c in cells if c["caveat"]]
    assert flagged and all(c["method"] == "clustered" for c in flagged)
    assert all("⚠ " + c["caveats"] in c["label"] for c in flagged)
    boundary = [c for c in flagged if "boundary" in c["caveats"]]
    assert boundary and all(c["estimate"] in ("0.0", "1.0") for c in boundary)
    observed = [c for c in cells if c["low"] not in ("", None)]
    assert observed and all(float(c["low"]) < float(c["high"]) for c in observed)
    claims = json.loads((study / "report" / "claims.json").read_text())
    assert any(c["caveat"] and "⚠" in c["label"] for c in claims)
    assert all(c["low"] < c["high"] for c in claims if c["low"] is not None)
    assert "⚠ boundary: 0/n or n/n" in report.read_text()


def test_cards_per_operator_and_configuration_name_both(study, report):
    claims = json.loads((study / "report" / "claims.json").read_text())
    configs = {r["config_id"] for r in _rows(study)}
    assert {c["config_id"] for c in claims} == configs | {"all configurations"}
    html = report.read_text()
    assert not re.search(r"</b><br>\w+ ·\s*<br>", html)
    # each card shows its own population (rule, runs, clusters), not one shared string
    shown = set(re.findall(r'class="card-pop">population: ([^<]*)<', html))
    assert shown == {escape(c["population"]) for c in claims if "family" not in c}
    assert len(shown) > 1


def test_stance_counts_are_columns_not_reprs(study, report):
    rows = _csv_rows(study / "report" / "tables" / "stance.csv")
    assert rows and {"endorses", "rejects", "undecidable", "none"} <= set(rows[0])
    assert all(r["endorses"].isdigit() for r in rows)
    assert "{&#39;" not in report.read_text()


def test_gap_bins_are_whole_steps_with_infinity_apart(study, report):
    gaps = _csv_rows(study / "report" / "tables" / "gaps.csv")
    assert gaps and all(g["gap"] == "inf" or g["gap"].lstrip("-").isdigit() for g in gaps)
    adopted = [
        r for r in _rows(study)
        if r["kind"] == "faulted" and r["repetition"] == 0 and not r["control"]
        and r.get("A") == 1 and isinstance(r.get("T_S"), int) and isinstance(r.get("T_U"), int)
    ]  # fmt: skip
    assert sum(int(g["runs"]) for g in gaps) == sum(
        1 for r in adopted if isinstance(r["T_E"], int) or r["T_E"] == "inf"
    )


def test_stale_measurements_are_refused(study, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(study, copy, ignore=shutil.ignore_patterns("runs", "report"))
    later = (copy / "measurements.jsonl").stat().st_mtime_ns + 10**9
    os.utime(copy / "index.jsonl", ns=(later, later))
    with pytest.raises(DataError, match=r"measurements\.jsonl: older than index\.jsonl"):
        build_report(copy)
    lines = (copy / "measurements.jsonl").read_text().splitlines()
    (copy / "measurements.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    os.utime(copy / "index.jsonl", ns=(0, 0))
    with pytest.raises(DataError, match=r"measurements\.jsonl, field sha256: .* differs"):
        build_report(copy)  # a cut file is not the one `measure` wrote
    reseal_measurements(copy)
    with pytest.raises(DataError, match=r"has no row for 1 run"):
        build_report(copy)


def test_a_killed_report_leaves_the_old_report_whole(study, report, monkeypatch):
    folder = study / "report"
    before = {p: p.read_bytes() for p in folder.rglob("*.csv")} | {report: report.read_bytes()}
    import sscbench.report.sections.runs as runs_section

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runs_section, "write_run_pages", killed)
    with pytest.raises(KeyboardInterrupt):
        build_report(study)
    after = {p: p.read_bytes() for p in folder.rglob("*.csv")} | {report: report.read_bytes()}
    assert after == before
    assert not list(study.glob(".report-*"))


def test_typed_study_shows_release_and_gate_not_sscbench_sections(taubench, tmp_path):
    from sscbench.study.config import parse_config

    text = TYPED.replace("DATA", str(taubench))
    out = tmp_path / "typed"
    execute_study(parse_config(text, "typed.toml"), text, out, progress=False)
    measure_study(out)
    # a typed run that did not qualify is release evidence too, not an SSCBench funnel row
    rows = _rows(out)
    faulted = next(r for r in rows if r["kind"] == "faulted")
    faulted.update(status="not-qualified", Z_S="not-qualified")
    (out / "measurements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal_measurements(out)  # the edit stands for what measure would write
    html = build_report(out, policy=ROOT / "examples" / "release-policy.toml").read_text()
    shown, skipped = _layout(html)
    assert set(SECTION_IDS[2:10]) <= set(skipped)
    assert "release" in shown and "runs" in shown and shown[:2] == ["headline", "configurations"]
    headline = html.split('<section id="headline"', 1)[1].split("</section>", 1)[0]
    assert "Typed fault families (2: StalePolicy, TimeoutAfterCommit)" in headline
    assert 'id="headline-typed-table"' in headline and "primary analysis" not in html
    # one line for the eight SSCBench sections sharing a reason, not eight
    assert (
        html.count(
            "no faulted run with a fault contract (SSCBench operators); its faulted runs are typed"
        )
        == 1
    )
    # the typed study's claims.json holds its family metrics; its figure is in figures/
    claims = json.loads((out / "report" / "claims.json").read_text())
    assert {c["claim"] for c in claims} >= {"activation", "escape"}
    assert {c["config_id"] for c in claims} == {"keyed", "naive"}
    assert all({"numerator", "denominator", "low", "high", "method"} <= set(c) for c in claims)
    for name in re.findall(r"Files: (figures/[\w.]+)", html):
        assert (out / "report" / name).exists()
    assert 'id="gate-table"' in html and 'id="release-paired-table"' in html
    # the clean runs are negative controls: a table of their own and a CSV
    assert (
        'id="negative-controls-table"' in html and "Negative controls: runs with no fault" in html
    )
    negative = (out / "report" / "tables" / "release_negative_controls.csv").read_text()
    assert negative.startswith("config_id,family,runs,escapes")
    assert re.search(r'class="(block|pass)">(BLOCK|PASS)<', html)
    # a blocked verdict lists its failed checks one per row (the policy names families
    # this study did not run, so at least those block)
    failed = html.split('id="gate-failed-table"', 1)[1].split("</table>", 1)[0]
    assert failed.count("<tr") >= 2 and "was run" in failed
    assert 'id="funnel-table"' not in html and 'class="card' not in html


def test_trajectory_text_is_escaped(study, tmp_path):
    rows = [json.loads(x) for x in (study / "measurements.jsonl").read_text().splitlines()]
    rows[0] = {**rows[0], "case_id": "<script>alert(1)</script>"}
    rows.append(
        {
            **next(r for r in rows if r["kind"] == "faulted"),
            "repetition": 1,
            "case_id": "<script>alert(1)</script>",
            "Z_S": "pre",
        }
    )
    rows.append({**rows[-1], "repetition": 2, "Z_S": "late"})
    target = tmp_path / "x"
    target.mkdir()
    (target / "measurements.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    html = build_report(target).read_text()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


def test_missing_measurements_name_the_file(tmp_path):
    with pytest.raises(DataError, match=r"measurements\.jsonl: not found"):
        build_report(tmp_path)


def test_sensitivity_user_claims_and_paired(study, tmp_path):
    claims = tmp_path / "claims.toml"
    claims.write_text(
        '[[claims]]\nname = "adoption when evidence never arrived"\n'
        'required_condition = "no valid counterevidence in the observed run"\n'
        'population = { Z_S = ["absent"] }\n'
    )
    variant = tmp_path / "variant"
    config, text = load_config(None)
    cued = config.model_copy(
        update={"world": config.world.model_copy(update={"read_back_cue": True})}
    )
    execute_study(cued, text, variant, progress=False)
    measure_study(variant)
    html = build_report(study, claims_file=claims, paired=variant).read_text()
    assert '<section id="paired" data-applies="true"' in html and 'id="paired-table"' in html
    cards = json.loads((study / "report" / "claims.json").read_text())
    mine = [c for c in cards if c["claim"] == "adoption when evidence never arrived"]
    assert mine and any(c["status"] == "observed" for c in mine)
    with (study / "report" / "tables" / "sensitivity.csv").open() as handle:
        analyses = {row["analysis"] for row in csv.DictReader(handle)}
    assert analyses == {
        "primary",
        "all repetitions",
        "with controls",
        "common clean-solved seeds",
        "strict admission",
    }
    with (study / "report" / "tables" / "paired.csv").open() as handle:
        pairs = list(csv.DictReader(handle))
    # the default study's profiles do not follow the read-back cue: it changes nothing
    assert pairs and all(p["adopted_only_in_a"] == p["adopted_only_in_b"] == "0" for p in pairs)
    assert 'id="read-back-cue-table"' in html
    assert "study a without the cue, study b with the cue" in html
    with (study / "report" / "tables" / "read_back_cue.csv").open() as handle:
        cue = list(csv.DictReader(handle))
    assert {r["quantity"] for r in cue} == {"adoption", "read_back", "pre_arrival"}
    assert "all configurations" in {r["config_id"] for r in cue}
    assert all(r["only_in_a"] == r["only_in_b"] == "0" for r in cue)
    for side in ("a", "b"):  # each share with its interval, as the other tidy tables
        assert all(r[f"{side}_method"] in ("wilson", "clustered") for r in cue if r["pairs"] != "0")
        assert all(r[f"{side}_low"] and r[f"{side}_high"] and r[f"{side}_clusters"] for r in cue)


def test_paired_comparison_counts_discordant_pairs():
    from sscbench.analysis.sensitivity import paired_comparison

    def row(i, adopted, repetition=0):
        return MeasurementRow.of(
            {
                "kind": "faulted",
                "status": "completed",
                "triggered": True,
                "case_id": f"c{i}",
                "config_id": "x",
                "repetition": repetition,
                "operator": "WriteEffect",
                "cluster": f"c{i}",
                "A": adopted,
            }
        )

    a = [row(i, 1) for i in range(10)]
    b = [row(i, 1 if i < 2 else 0) for i in range(10)]
    # other repetitions stay out of the primary paired comparison
    a += [row(i, 0, repetition=1) for i in range(10)]
    b += [row(i, 1, repetition=1) for i in range(10)]
    (result,) = paired_comparison(a, b)
    assert result["pairs"] == 10 and result["adopted_only_in_a"] == 8
    assert paired_comparison(a, b, all_repetitions=True)[0]["pairs"] == 20
    assert result["adopted_only_in_b"] == 0 and result["mcnemar_exact_p"] < 0.01


def test_bad_claims_file_names_field(tmp_path):
    from sscbench.analysis.user_claims import load_claims

    path = tmp_path / "c.toml"
    path.write_text(
        '[[claims]]\nname = "x"\nrequired_condition = "y"\npopulation = { colour = [1] }\n'
    )
    with pytest.raises(DataError, match=r"c\.toml, field claims\.0\.population: unknown fields"):
        load_claims(path)


def test_read_back_cue_changes_only_write_descriptions():
    from sscbench.study.worlds import READ_BACK_CUE, with_read_back_cue
    from sscbench.world.load import load_world

    plain = load_world("generated", "airline")
    cued = with_read_back_cue(load_world("generated", "airline"))
    changed = [
        a["function"]["name"]
        for a, b in zip(plain.tool_schemas(), cued.tool_schemas(), strict=True)
        if a != b
    ]
    assert "update_reservation_flights" in changed and "get_user_details" not in changed
    assert all(
        READ_BACK_CUE in s["function"]["description"]
        for s in cued.tool_schemas()
        if s["function"]["name"] in changed
    )


def test_oracle_results_and_reviewer_labels_feed_their_sections(study, tmp_path):
    from sscbench.oracles.validate import calibration_reference, read_rows, validate

    copy = tmp_path / "copy"
    shutil.copytree(study, copy, ignore=shutil.ignore_patterns("report"))
    scores = validate(read_rows(copy / "measurements.jsonl"), calibration_reference(copy))
    (copy / "oracles").mkdir()
    (copy / "oracles" / "rules.json").write_text(json.dumps(scores))
    rows = _rows(copy)
    labelled = next(r for r in rows if r["kind"] == "faulted" and r["repetition"] == 0)
    (copy / "review").mkdir()
    (copy / "review" / "labels.jsonl").write_text(
        json.dumps({"run_id": labelled["run_id"], "A": 1 - labelled["A"], "Z_S": labelled["Z_S"]})
        + "\n"
    )
    os.utime(copy / "measurements.jsonl")
    html = build_report(copy).read_text()
    oracles = html.split('<section id="oracles"', 1)[1].split("</section>", 1)[0]
    assert 'data-applies="true"' in oracles and 'id="oracles-table"' in oracles
    assert oracles.count("<tr>") - 1 == len(scores)
    validation = html.split('<section id="validation"', 1)[1].split("</section>", 1)[0]
    assert "reviewer labels (review/labels.jsonl)" in validation
    table = _csv_rows(copy / "report" / "tables" / "validation.csv")
    a = next(r for r in table if r["operator"] == "all operators" and r["field"] == "A")
    assert (a["agree"], a["applicable"]) == ("0", "1")
    (copy / "review" / "labels.jsonl").write_text(
        json.dumps({"run_id": labelled["run_id"], "T_S": -3}) + "\n"
    )
    with pytest.raises(DataError, match=r"labels\.jsonl.*T_S"):
        build_report(copy)  # a reviewer's label is read through the labels schema
