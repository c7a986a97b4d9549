"""One definition and one wording each: Z_S's boundary, T_U outside adoption, Y_end."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.core.definitions import (
    T_U_WORDING,
    Y_END_WORDING,
    Z_S_WORDING,
    arrival,
    precedes_use,
    reliance_step,
    upgrade_row,
)
from sscbench.core.values import INF, NOT_APPLICABLE, UNDECIDABLE, Stratum

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_evidence_at_the_use_step_is_late_not_pre():
    assert arrival(5, 5) is Stratum.LATE and not precedes_use(5, 5)
    assert arrival(4, 5) is Stratum.PRE and precedes_use(4, 5)
    assert arrival(6, 5) is Stratum.LATE
    assert arrival(INF, 5) is Stratum.ABSENT
    assert arrival(3, INF) is Stratum.NO_USE and arrival(UNDECIDABLE, INF) is Stratum.NO_USE
    assert arrival(UNDECIDABLE, 5) is Stratum.UNDECIDABLE
    assert arrival(2, UNDECIDABLE) is Stratum.UNDECIDABLE


@pytest.mark.parametrize(
    ("t_e", "t_s", "phrase"),
    [
        (4, 5, "pre when T_E < T_S"),
        (5, 5, "late when T_S ≤ T_E < ∞"),
        (9, 5, "late when T_S ≤ T_E < ∞"),
        (INF, 5, "absent when T_E = ∞"),
        (4, INF, "no-use when T_S = ∞"),
        (UNDECIDABLE, 5, "undecidable when T_S or T_E is"),
    ],
)
def test_the_wording_names_the_stratum_the_code_gives(t_e, t_s, phrase):
    assert phrase in Z_S_WORDING
    assert phrase.startswith(arrival(t_e, t_s).value + " when")


def test_the_old_strict_late_wording_is_gone_everywhere():
    """'late when T_S < T_E' left T_E = T_S to no stratum; no text may say it again."""
    for page in ("validating-measurement.md", "reading-the-report.md", "reviewing.md"):
        text = (DOCS / page).read_text("utf-8")
        assert "`late` when T_S < T_E" not in text and "late when T_S < T_E" not in text


def test_docs_quote_the_definitions_word_for_word():
    text = (DOCS / "validating-measurement.md").read_text("utf-8")
    for wording in (Z_S_WORDING, T_U_WORDING, Y_END_WORDING):
        assert f"> {wording}" in text


def test_t_u_wording_says_not_applicable_and_never_infinity():
    assert "not applicable when the run did not adopt" in T_U_WORDING
    assert "never ∞" in T_U_WORDING


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"A": 0, "T_U": INF}, NOT_APPLICABLE),  # an older study's non-adopting run
        ({"A": 0, "T_U": NOT_APPLICABLE}, NOT_APPLICABLE),
        ({"A": 1, "T_U": 7}, 7),
        ({"A": UNDECIDABLE, "T_U": UNDECIDABLE}, UNDECIDABLE),
        ({"A": None, "T_U": None}, None),  # not triggered: nothing to read
    ],
)
def test_older_rows_read_inf_t_u_of_non_adopters_as_not_applicable(row, expected):
    assert reliance_step(row) == expected
    assert upgrade_row(row)["T_U"] == expected


def test_upgrade_leaves_current_rows_untouched():
    row = {"A": 1, "T_U": 3}
    assert upgrade_row(row) is row
