"""``sscbench.load_study``: a measured, reported study as typed rows and DataFrames, the
pandas extra optional (``study.results``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import sscbench
from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.study.results import ClaimRow, StudyResults, read_claims
from sscbench.study.rows import read_measurements


@pytest.fixture(scope="module")
def reported(tiny_study):
    """The tiny study with its report written by ``sscbench report``."""
    result = CliRunner().invoke(app, ["report", str(tiny_study)])
    assert result.exit_code == 0, result.output
    return tiny_study


def test_load_study_gives_every_measurement_row_and_claim_card(reported):
    """Typed rows: the rows of measurements.jsonl in its order, the cards of claims.json."""
    results = sscbench.load_study(reported)
    assert isinstance(results, StudyResults) and results.root == reported
    rows = list(read_measurements(reported / "measurements.jsonl"))
    assert [r.run_id for r in results.measurements] == [r.run_id for r in rows]
    assert results.faulted() and all(r.kind == "faulted" for r in results.faulted())
    cards = json.loads((reported / "report" / "claims.json").read_text("utf-8"))
    assert len(results.claims) == len(cards) > 0
    first = results.claims[0]
    assert isinstance(first, ClaimRow) and first.claim == cards[0]["claim"]
    assert first.label == cards[0]["label"] and first.numerator == cards[0]["numerator"]


def test_the_frames_hold_the_same_values(reported):
    """One DataFrame row per run and per claim card, the columns the rows have."""
    import pandas  # noqa: F401 - statsmodels (a core dependency) brings it: never skipped

    results = sscbench.load_study(reported)
    frame = results.measurements_frame()
    assert list(frame["run_id"]) == [r.run_id for r in results.measurements]
    assert {"T_S", "Z_S", "A", "Y_end"} <= set(frame.columns)
    faulted = frame[frame["kind"] == "faulted"]
    assert list(faulted["Z_S"]) == [r.Z_S for r in results.faulted()]
    claims = results.claims_frame()
    assert len(claims) == len(results.claims)
    assert list(claims["label"]) == [c.label for c in results.claims]


def test_without_pandas_the_frame_names_the_extra(reported, monkeypatch):
    """The typed rows need nothing; a frame without pandas says which extra brings it."""
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    results = sscbench.load_study(reported)
    assert results.measurements and results.claims
    with pytest.raises(ImportError, match=r"sscbench\[pandas\]"):
        results.measurements_frame()
    with pytest.raises(ImportError, match=r"sscbench\[pandas\]"):
        results.claims_frame()


def test_an_unreported_or_unmeasured_study_names_the_command(reported, tmp_path):
    """No claims.json: refused, naming `sscbench report`; not a study: refused."""
    (reported / "report" / "claims.json").rename(tmp_path / "claims.json")
    try:
        with pytest.raises(DataError, match="sscbench report"):
            sscbench.load_study(reported)
    finally:
        (tmp_path / "claims.json").rename(reported / "report" / "claims.json")
    with pytest.raises(DataError):
        sscbench.load_study(tmp_path)


def test_a_malformed_claims_file_names_the_card(tmp_path):
    """A card without its claim is refused by place."""
    path = tmp_path / "claims.json"
    path.write_text(json.dumps([{"claim": "propagation"}, {"operator": "ReturnDate"}]))
    with pytest.raises(DataError, match=r"\[1\]\.claim"):
        read_claims(path)


def test_import_sscbench_stays_light():
    """``import sscbench`` loads neither the study layer nor pydantic nor pandas; the face
    is imported on first use."""
    code = (
        "import sys, sscbench; assert 'sscbench.study' not in sys.modules; "
        "assert 'pydantic' not in sys.modules and 'pandas' not in sys.modules; "
        "assert callable(sscbench.load_study); print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
