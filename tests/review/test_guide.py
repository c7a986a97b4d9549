"""Every review page explains itself: the labelling guide ships inside the review folder."""

from __future__ import annotations

import re

from markupsafe import escape
from typer.testing import CliRunner

from review_round import build_generated_study
from sscbench.cli import app
from sscbench.core.definitions import T_U_WORDING, Y_END_WORDING, Z_S_WORDING
from sscbench.review.guide import GUIDE_HTML

QUANTITIES = ("T_F", "T_E", "T_S", "T_U", "A", "Z_S", "Y_end")


def _no_docs_reference(html: str) -> bool:
    """A reviewer has no repository: no page may send them to a file under docs/."""
    return re.search(r"docs/\S+\.md", html) is None


def test_guide_defines_every_quantity_and_the_non_step_values():
    for quantity in QUANTITIES:
        assert f"<dt>{quantity}</dt>" in GUIDE_HTML
    for word in ("∞", "Undecidable", "blank"):
        assert word in GUIDE_HTML
    assert _no_docs_reference(GUIDE_HTML)


def test_plan_and_export_pages_carry_or_link_the_guide(tmp_path):
    study = build_generated_study(tmp_path / "study")
    runner = CliRunner()
    plan = runner.invoke(
        app,
        ["review", "plan", str(study), "--out", str(tmp_path / "plan"), "--reviewers", "A,B"],
    )
    assert plan.exit_code == 0, plan.output
    page = (tmp_path / "plan" / "review-A.html").read_text()
    assert 'id="guide"' in page and "<dt>T_U</dt>" in page and _no_docs_reference(page)

    export = runner.invoke(
        app, ["review", "export", str(study), "--out", str(tmp_path / "exp"), "--runs", "2"]
    )
    assert export.exit_code == 0, export.output
    index = (tmp_path / "exp" / "index.html").read_text()
    assert 'id="guide"' in index and _no_docs_reference(index)
    for run_page in (tmp_path / "exp" / "pages").glob("*.html"):
        html = run_page.read_text()
        assert 'href="../index.html#guide"' in html and _no_docs_reference(html)


def test_guide_states_the_measurements_own_definitions():
    """Z_S, T_U and Y_end read as in core.definitions (once said 'late when T_S < T_E')."""
    for wording in (Z_S_WORDING, T_U_WORDING, Y_END_WORDING):
        assert str(escape(wording)) in GUIDE_HTML
    assert "late</i> when T_S &lt; T_E" not in GUIDE_HTML
