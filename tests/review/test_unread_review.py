"""Unread marks where reviewers look: ``sscbench agreement`` split by marked / unmarked /
not-checked runs, and ``review export --unread`` drawing marked runs first."""

from __future__ import annotations

from sscbench.review.agreement import compare, unread_status
from sscbench.review.cli import unread_table
from sscbench.review.export import Candidate, draw
from sscbench.review.labels import RunLabel
from sscbench.study.rows import MeasurementRow

MARK = {"step": 5, "kind": "unparsed-value", "span": "Zorvember 17"}


def _row(run_id: str, t_s: int, **unread) -> MeasurementRow:
    values = {"run_id": run_id, "operator": "ReturnDate", "triggered": True, "T_S": t_s}
    return MeasurementRow.of({**values, **unread})


def test_unread_status_tells_marked_unmarked_and_not_checked():
    assert unread_status(_row("a", 3, unread=1, unread_steps=[MARK])) == "marked"
    assert unread_status(_row("b", 3, unread=0, unread_steps=[])) == "unmarked"
    assert unread_status(_row("c", 3)) == "not checked"  # measured before the marks
    assert unread_status(None) == "unmeasured"


def test_agreement_is_split_by_unread_marks():
    labels = {r: RunLabel(run_id=r, T_S=3, A=False, Z_S="pre") for r in ("a", "b", "c")}
    rows = {
        "a": _row("a", 9, unread=1, unread_steps=[MARK]),  # a miss, marked
        "b": _row("b", 3, unread=0, unread_steps=[]),
        "c": _row("c", 3),
    }
    data = compare(labels, rows, lambda _: []).to_dict()
    assert data["unread_runs"] == {"marked": 1, "unmarked": 1, "not checked": 1}
    t_s = data["by_unread"]["T_S"]
    assert (t_s["marked"]["agree"], t_s["marked"]["n"]) == (0, 1)
    assert (t_s["unmarked"]["agree"], t_s["unmarked"]["n"]) == (1, 1)
    assert (t_s["not checked"]["agree"], t_s["not checked"]["n"]) == (1, 1)
    assert data["quantities"]["T_S"]["all"]["n"] == 3  # the overall table is unchanged
    table = unread_table(data)
    assert "1 marked, 1 unmarked, 1 not checked" in str(table.title)


def _candidate(run_id: str, unread: int | None) -> Candidate:
    return Candidate(run_id, None, "ReturnDate", "pre", "c", unread)  # type: ignore[arg-type]


def test_export_draws_marked_runs_first():
    pool = [_candidate(f"r{i}", 1 if i % 4 == 0 else 0) for i in range(20)]
    marked = {c.run_id for c in pool if c.unread}
    chosen = draw(pool, 8, seed=3, stratify=(), unread_first=True)
    assert {c.run_id for c in chosen[: len(marked)]} == marked
    assert len(chosen) == 8 and len({c.run_id for c in chosen}) == 8
    few = draw(pool, 3, seed=3, stratify=(), unread_first=True)
    assert {c.run_id for c in few} <= marked
    everything = draw(pool, None, seed=3, stratify=(), unread_first=True)
    assert [bool(c.unread) for c in everything] == sorted(
        (bool(c.unread) for c in pool), reverse=True
    )
    plain = draw(pool, 8, seed=3, stratify=())
    assert [c.run_id for c in plain] == [c.run_id for c in draw(pool, 8, seed=3, stratify=())]
