"""Populations use the measurement's definitions: the Z_S boundary, T_U's not-applicable."""

from __future__ import annotations

from sscbench.analysis.populations import q_u
from sscbench.analysis.user_claims import load_claims
from sscbench.study.rows import MeasurementRow


def _adopted(run_id: str, t_e, t_s, t_u) -> MeasurementRow:
    values = {"run_id": run_id, "cluster": run_id, "A": 1, "T_E": t_e, "T_S": t_s, "T_U": t_u}
    return MeasurementRow.of(values)


def test_between_anchors_uses_the_z_s_boundary():
    """T_E = T_S is late (core.definitions.precedes_use), so evidence completed at the
    first use and before a later first reliance lies between the two anchors."""
    runs = [_adopted("equal", 5, 5, 8), _adopted("pre", 4, 5, 8), _adopted("after", 6, 5, 8)]
    _, ids = q_u(runs)
    assert sorted(ids["q_U_before"]) == ["after", "equal", "pre"]
    assert sorted(ids["between_anchors"]) == ["after", "equal"]


def _row(run_id: str, a: int, t_u) -> MeasurementRow:
    return MeasurementRow.of(
        {
            "run_id": run_id,
            "status": "completed",
            "triggered": True,
            "repetition": 0,
            "A": a,
            "T_U": t_u,
        }
    )


def test_a_decidable_t_u_population_leaves_non_adopters_out(tmp_path):
    """Not applicable is not 'never': a claim over runs with a decidable T_U holds only
    adopting runs, also when an older study stored the non-adopters' T_U as inf."""
    path = tmp_path / "claims.toml"
    path.write_text(
        '[[claims]]\nname = "located"\nrequired_condition = "T_U decidable"\n'
        'population = { T_U = ["decidable"] }\n'
    )
    (claim,) = load_claims(path)
    rows = [_row("adopted", 1, 7), _row("new", 0, "not-applicable"), _row("old", 0, "inf")]
    assert [r.run_id for r in rows if claim.population(r)] == ["adopted"]
