"""The report at every size: run pages all/sample/none with a working browser, the
not-qualified run page's reason, and figures whose ticks and lines read true."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from sscbench.analysis.stats import wilson
from sscbench.release.evidence import CurvePoint, FamilyRow
from sscbench.release.figures import intensity_plot
from sscbench.report import figures, run_sample
from sscbench.report.build import build_report
from sscbench.report.run_sample import sample_runs
from sscbench.study.rows import MeasurementRow
from study_edits import reseal_measurements


def _index(report: Path) -> dict:
    html = (report.parent / "runs" / "index.html").read_text()
    blob = re.search(r'<script type="application/json" id="run-data">(.*?)</script>', html, re.S)
    assert blob
    return json.loads(blob.group(1))


def _pages(report: Path) -> set[str]:
    runs = report.parent / "runs"
    return {p.stem for p in runs.glob("*.html") if p.name != "index.html"} - {
        p.stem for p in runs.glob("system-*.html")
    }


def _links_resolve(report: Path) -> None:
    """Every href of every run page points at a file that exists."""
    runs = report.parent / "runs"
    for page in runs.glob("*.html"):
        for href in re.findall(r'href="([^"#]+)"', page.read_text()):
            assert (runs / href).exists(), (page.name, href)


@pytest.fixture(scope="module")
def study(default_study):
    return default_study


def test_run_pages_all_none_and_sample(study, monkeypatch):
    ids = [json.loads(x)["run_id"] for x in _rows_text(study)]
    report = build_report(study, run_pages="all")
    data = _index(report)
    assert _pages(report) == set(ids) and all(data["rendered"])
    assert f"{len(ids)} run pages (one per run)" in report.read_text()
    _links_resolve(report)

    report = build_report(study, run_pages="none")
    data = _index(report)
    assert _pages(report) == set() and not any(data["rendered"])
    assert len(data["runs"]) == len(ids)  # the list still names every run
    assert f"0 of {len(ids)} run pages rendered" in report.read_text()

    monkeypatch.setattr(run_sample, "SAMPLE_CAP", 40)
    report = build_report(study, run_pages="sample")
    data = _index(report)
    rendered = {row[0] for row, shown in zip(data["runs"], data["rendered"], strict=True) if shown}
    assert _pages(report) == rendered and 0 < len(rendered) < len(ids)
    assert f"{len(rendered)} of {len(ids)} run pages rendered" in report.read_text()
    _links_resolve(report)  # a partner without a page is named, not linked
    # the same study samples the same runs
    assert sample_runs([MeasurementRow.from_line(x) for x in _rows_text(study)], 40) == rendered


def _rows_text(study: Path) -> list[str]:
    return (study / "measurements.jsonl").read_text().split("\n")[:-1]


def test_the_default_samples_above_the_threshold_only(monkeypatch, study):
    rows = [MeasurementRow.from_line(x) for x in _rows_text(study)]
    sample = sample_runs(rows, 30)
    groups = {tuple(str(getattr(r, k, None)) for k in run_sample.STRATUM) for r in rows}
    covered = {
        tuple(str(getattr(r, k, None)) for k in run_sample.STRATUM)
        for r in rows
        if r.run_id in sample
    }
    assert covered == groups  # every outcome group keeps at least one page
    assert len(sample) <= max(30, len(groups))
    assert run_sample.pages_for(rows, "all") == {r.run_id for r in rows}
    monkeypatch.setattr(run_sample, "SAMPLE_ABOVE", 10)
    monkeypatch.setattr("sscbench.report.runs.SAMPLE_ABOVE", 10)
    monkeypatch.setattr(run_sample, "SAMPLE_CAP", 30)
    report = build_report(study)
    assert len(_pages(report)) == len(sample_runs(rows, 30)) < len(rows)


def test_bad_run_pages_value_is_refused(study):
    with pytest.raises(ValueError, match="run_pages"):
        build_report(study, run_pages="some")


def test_not_qualified_run_page_says_why(default_study_source, tmp_path):
    import shutil

    study = tmp_path / "study"
    shutil.copytree(default_study_source, study)
    index = [json.loads(x) for x in (study / "index.jsonl").read_text().splitlines()]
    target = next(e for e in index if e["kind"] == "faulted")
    target.update(
        status="not-qualified",
        reason="clean task not solved",
        ledger_sha256=None,
        evaluator_sha256=None,
    )
    (study / "index.jsonl").write_text("".join(json.dumps(e) + "\n" for e in index))
    for path in (study / "runs").glob(f"{target['run_id']}.*"):
        path.unlink()  # a run that did not qualify never ran
    rows = [json.loads(x) for x in _rows_text(study)]
    row = next(r for r in rows if r["run_id"] == target["run_id"])
    for key in ("T_F", "T_E", "T_S", "T_U", "A", "triggered"):
        row.pop(key, None)
    row.update(status="not-qualified", Z_S="not-qualified")
    (study / "measurements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.utime(study / "measurements.jsonl")
    reseal_measurements(study)  # the edit stands for what measure records
    report = build_report(study)
    page = (report.parent / "runs" / f"{target['run_id']}.html").read_text()
    reason = page.split('id="why-reason"', 1)[1].split("</p>", 1)[0]
    assert "Not qualified: clean task not solved" in reason
    assert target["clean_run_id"] in reason and "never executed" in reason
    assert 'id="ledger-table"' not in page and 'id="marks-table"' not in page


def _point(config: str, level: str, escape: tuple[int, int]) -> CurvePoint:
    metrics = {m: wilson(*escape) for m in ("activation", "detection", "containment", "escape")}
    row = FamilyRow(config, "Throttled", 2, {"burst": level}, escape[1], 0, 0, metrics)
    return CurvePoint(config, "Throttled", "burst", level, row)


def test_intensity_curves_have_integer_ticks_and_name_identical_lines():
    points = [
        _point(c, lv, (k, 10)) for c in ("a", "b") for lv, k in (("1", 2), ("2", 5), ("3", 9))
    ]
    points += [_point("c", lv, (k, 10)) for lv, k in (("1", 0), ("2", 1), ("3", 1))]
    fig = intensity_plot(points)
    try:
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3"]
        assert list(ax.get_xticks()) == [1.0, 2.0, 3.0]
        assert "identical lines: a = b" in ax.get_title(loc="left")
        lines = [line.get_xdata() for line in ax.get_lines() if len(line.get_xdata()) == 3]
        firsts = {round(float(x[0]), 4) for x in lines}
        assert len(firsts) == 3  # a and b drawn side by side, not on top of each other
        assert fig.legends and {t.get_text() for t in fig.legends[0].get_texts()} == {"a", "b", "c"}
    finally:
        plt.close(fig)


def test_gap_panel_without_adopted_runs_draws_no_fake_axis():
    fig, (left, absent) = plt.subplots(1, 2)
    try:
        figures._gap_panels(left, absent, "WriteEffect", [])
        assert list(left.get_xticks()) == [] and list(left.get_yticks()) == []
        assert any("no adopted run" in t.get_text() for t in left.texts)
        left.cla()
        absent.cla()
        figures._gap_panels(left, absent, "ItemOption", [-3, -3, 1, "inf"], 5)
        assert sorted(t.get_text() for t in left.texts) == ["1/5", "2/5"]  # shares with n
        assert [t.get_text() for t in absent.texts] == ["1/5"]
        assert set(left.get_xticks()) == {-3, 0, 1}
        figures._gap_panels(left, absent, "PaySource", ["inf", "inf"])  # every gap ∞
        assert absent.patches
    finally:
        plt.close(fig)
