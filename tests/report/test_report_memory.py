"""What the report keeps per run: compact rows and index entries, equal to the file's.

The report holds one measurement row per run (index entries and plan lines are streamed
where a section reads them, never kept: the last test); kept as plain pydantic models
rows and entries cost ~8 KB a run (the 2.4x growth of ``report`` from 3,486 to 34,860
runs). :class:`~sscbench.study.compact.Compactor` keeps the repeated words, field
sets and nested models once: these tests bound what a run costs against the plain
models (traced bytes, no wall clock) and check nothing read differs.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from live_objects import NewObjects
from sscbench.report.inputs import read_measurements
from sscbench.study.compact import Compactor
from sscbench.study.folder import StudyDir
from sscbench.study.rows import MeasurementRow
from sscbench.study.rows import read_measurements as plain_rows
from sscbench.study.study import Study


def _kept(make: Callable[[], Any]) -> tuple[Any, int]:
    """What ``make`` returns and the traced bytes it keeps."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = make()
        return value, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_report_rows_cost_at_most_a_sixth_of_the_plain_rows_and_read_the_same(default_study):
    """The report's rows are held column-wise (a code per run and column); each row reads
    as the file's (values, fields set, JSON line)."""
    path = default_study / "measurements.jsonl"
    compact, compact_bytes = _kept(lambda: read_measurements(default_study))
    plain, plain_bytes = _kept(lambda: plain_rows(path))
    assert len(compact) == len(plain) > 500
    assert list(compact) == plain and compact[-1] == plain[-1]
    assert [r.model_fields_set for r in compact] == [r.model_fields_set for r in plain]
    assert all(
        getattr(a, k) == getattr(b, k)
        for a, b in zip(compact, plain, strict=True)
        for k in b.columns()
    )
    assert "".join(r.line() for r in compact) == path.read_text()
    assert compact_bytes <= plain_bytes / 6, (
        compact_bytes / len(plain),
        plain_bytes / len(plain),
    )


def test_study_entries_cost_at_most_a_third_of_the_plain_entries(default_study):
    store = StudyDir(default_study)
    compact, compact_bytes = _kept(lambda: Study.open(default_study).entries)
    plain, plain_bytes = _kept(lambda: list(store.read_index()))
    assert compact == plain and len(plain) > 500
    assert [e.model_dump_json() for e in compact] == [e.model_dump_json() for e in plain]
    assert compact_bytes <= plain_bytes / 3, (compact_bytes / len(plain), plain_bytes / len(plain))


def test_a_compact_record_keeps_values_and_their_json_forms():
    compactor = Compactor()
    rows = [
        MeasurementRow.model_construct(
            _fields_set={"run_id", "reward", "Z_S", "cases"},
            **{"run_id": f"r{i}", "reward": value, "Z_S": "pre", "cases": ["x"]},
        )
        for i, value in enumerate([0, 0.0, 1.0, True])
    ]
    kept = [compactor.record(r) for r in rows]
    assert [r.line() for r in kept] == [r.line() for r in rows]  # 0 is not 0.0, nor True 1
    assert kept[0].Z_S is kept[3].Z_S  # a repeated word is one object
    assert kept[0].model_fields_set is kept[1].model_fields_set  # so is a row's shape
    assert kept[1].run_id == "r1" and kept[2].has("cases") and not kept[2].has("T_F")


def test_a_compact_record_is_read_not_updated():
    row = Compactor().record(MeasurementRow.of({"run_id": "r", "Z_S": "pre"}))
    with pytest.raises(AttributeError):
        row.Z_S = "late"  # the shape is shared: an update would change every row's


def test_report_holds_no_index_entry_or_plan_line_per_run(tiny_study, tmp_path, monkeypatch):
    """After each section is built, no index entry and no plan line of the study is
    alive (nor kept by the study): the report streams ``index.jsonl`` and ``plan.jsonl`` where a section reads
    them (the old report kept ``Study.entries`` and ``Study.plan``, one of each per run,
    for the whole build). Counted objects, not time or bytes."""
    import gc
    import shutil

    from sscbench.report import build as build_module
    from sscbench.study.folder import IndexEntry

    root = tmp_path / "study"
    shutil.copytree(tiny_study, root)
    runs = (root / "index.jsonl").read_text().count("\n")
    planned = {line for line in (root / "plan.jsonl").read_text().splitlines() if line}
    seen: dict[str, tuple[int, list[str]]] = {}
    made = NewObjects(IndexEntry)  # entries other tests left alive are not this report's

    def watched(part: Any) -> Callable[[Any], Any]:
        real = part.build

        def build(ctx: Any) -> Any:
            section = real(ctx)
            gc.collect()
            entries = made.count()
            # a plan line is a dict of atoms, which gc does not track: the plan is checked
            # as the study's cache of it (``Study.plan``, kept once read)
            seen[part.ID] = (entries, sorted({"entries", "plan"} & set(vars(ctx.loaded))))
            return section

        return build

    for part in build_module.SECTIONS:
        monkeypatch.setattr(part, "build", watched(part))
    build_module.build_report(root)
    assert runs >= 30 and len(planned) >= 10 and len(seen) == len(build_module.SECTIONS)
    for section, (entries, cached) in seen.items():
        assert entries <= 2 and not cached, (section, entries, cached, runs)


def test_report_holds_no_measurement_row_per_run(tiny_study, tmp_path, monkeypatch):
    """After each section is built, no measurement row of the study is alive as a record:
    the rows are held column-wise (:class:`~sscbench.study.row_table.RowTable`) and a
    record is rebuilt only while a section reads it (the old report kept one compact
    :class:`MeasurementRow` per run for the whole build). Counted objects, not bytes."""
    import gc
    import shutil

    from sscbench.report import build as build_module

    root = tmp_path / "study"
    shutil.copytree(tiny_study, root)
    runs = (root / "measurements.jsonl").read_text().count("\n")
    seen: dict[str, int] = {}
    made = NewObjects(MeasurementRow)  # rows other tests left alive are not this report's

    def watched(part: Any) -> Callable[[Any], Any]:
        real = part.build

        def build(ctx: Any) -> Any:
            section = real(ctx)
            gc.collect()
            seen[part.ID] = made.count()
            return section

        return build

    for part in build_module.SECTIONS:
        monkeypatch.setattr(part, "build", watched(part))
    build_module.build_report(root)
    assert runs >= 30 and len(seen) == len(build_module.SECTIONS)
    assert max(seen.values()) <= 2, (seen, runs)
