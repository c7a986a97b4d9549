"""Table III b on T_U: not applicable (the run did not adopt) is a value of its own."""

from __future__ import annotations

from same_runs_rows import run
from sscbench.report.model import RunSets
from sscbench.report.sections.validation import validation_section


def test_t_u_not_applicable_agrees_only_with_not_applicable():
    na = "not-applicable"
    rows = [run(i, A=0, T_U=na) for i in range(4)] + [run(4, T_U=6), run(5, A=0, T_U=na)]
    reference = {
        "r0": {"T_U": na},  # agree
        "r1": {"T_U": 5},  # measured n/a, reference a step: disagree
        "r2": {"T_U": "inf"},  # an old ∞ beside a non-false A: disagree
        "r3": {"T_U": "undecidable"},  # undecidable: not scored
        "r4": {"T_U": na},  # measured a step, reference n/a: disagree
        "r5": {"A": 0},  # T_U not labelled: not scored
    }
    csv_rows = validation_section("test", reference, rows, RunSets()).csvs["validation"]
    t_u = next(r for r in csv_rows if r["field"] == "T_U" and r["operator"] == "all operators")
    assert (t_u["agree"], t_u["applicable"]) == (1, 4)
