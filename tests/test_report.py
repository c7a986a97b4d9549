"""``sscbench report``: tables, claims, figures and an escaped, self-contained HTML page."""

from __future__ import annotations

import csv
import json

import pytest

from sscbench.analysis.claims import claim_cards
from sscbench.analysis.populations import cell_table
from sscbench.errors import DataError
from sscbench.measure.study import measure_study
from sscbench.report.build import build_report
from sscbench.run.config import load_config
from sscbench.run.executor import execute_study


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "s"
    config, text = load_config(None)
    execute_study(config, text, out, progress=False)
    measure_study(out)
    return out


def test_report_files(study):
    html = build_report(study).read_text()
    for name in ("funnel", "cells", "claims", "crossing"):
        assert (study / "tables" / f"{name}.csv").exists()
    for name in ("funnel", "arrival", "adoption_forest", "gap"):
        assert (study / "figures" / f"{name}.png").stat().st_size > 1000
        assert (study / "figures" / f"{name}.svg").exists()
        assert f'id="fig-{name}"' in html
    claims = json.loads((study / "claims.json").read_text())
    names = {c["claim"] for c in claims}
    assert names == {
        "propagation",
        "adoption with eventual counterevidence",
        "adoption under pre-use counterevidence",
    }
    with (study / "tables" / "cells.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert rows and {"operator", "config_id", "A_T", "q_U", "arrival_pre"} <= set(rows[0])


def test_empty_stratum_is_unobserved_not_zero(study):
    rows = [json.loads(x) for x in (study / "measurements.jsonl").read_text().splitlines()]
    cells = cell_table(rows)
    empty = [c["a_absent"] for c in cells if c["a_absent"].denominator == 0]
    assert empty and all(iv.label() == "unobserved (0/0)" and iv.estimate is None for iv in empty)
    cards = claim_cards(rows)
    assert all(c["status"] == "observed" or c["estimate"] is None for c in cards)


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
    build_report(study, claims_file=claims, paired=variant)
    cards = json.loads((study / "claims.json").read_text())
    mine = [c for c in cards if c["claim"] == "adoption when evidence never arrived"]
    assert mine and any(c["status"] == "observed" for c in mine)
    with (study / "tables" / "sensitivity.csv").open() as handle:
        analyses = {row["analysis"] for row in csv.DictReader(handle)}
    assert analyses == {
        "primary",
        "all repetitions",
        "with controls",
        "common clean-solved seeds",
        "strict admission",
    }
    with (study / "tables" / "paired.csv").open() as handle:
        pairs = list(csv.DictReader(handle))
    # scripted agents do not read tool descriptions: the cue changes nothing for them
    assert pairs and all(p["adopted_only_in_a"] == p["adopted_only_in_b"] == "0" for p in pairs)


def test_paired_comparison_counts_discordant_pairs():
    from sscbench.analysis.sensitivity import paired_comparison

    def row(i, adopted):
        return {
            "kind": "faulted",
            "status": "completed",
            "triggered": True,
            "case_id": f"c{i}",
            "config_id": "x",
            "repetition": 0,
            "operator": "WriteEffect",
            "cluster": f"c{i}",
            "A": adopted,
        }

    a = [row(i, 1) for i in range(10)]
    b = [row(i, 1 if i < 2 else 0) for i in range(10)]
    (result,) = paired_comparison(a, b)
    assert result["pairs"] == 10 and result["adopted_only_in_a"] == 8
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
    from sscbench.run.builders import READ_BACK_CUE, with_read_back_cue
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
