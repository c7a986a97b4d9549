"""The paper's read-back-cue paired check offline: examples/read-back-cue.toml and its
pair without the cue, with scripted profiles, on τ-bench's airline world. The cue shows
only in the write tools' descriptions; the profiles that honour it read back before
telling the user, so read-back, pre-use arrival and adoption move for them — measured
from the ledgers alone — and for no other profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.analysis.cue_check import ALL_CONFIGS, cue_check_table
from sscbench.measure.study import measure_study
from sscbench.report.inputs import read_measurements
from sscbench.run.executor import execute_study
from sscbench.study.config import StudyConfig, load_config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _small(name: str) -> tuple[StudyConfig, str]:
    config, text = load_config(EXAMPLES / f"{name}.toml")
    cases = config.cases.model_copy(update={"per_operator": 8})
    return config.model_copy(update={"cases": cases}), text


def _study(name: str, out: Path) -> Path:
    config, text = _small(name)
    execute_study(config, text, out, progress=False)
    measure_study(out)
    return out


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> dict[tuple[str, str], dict]:
    root = tmp_path_factory.mktemp("cue")
    on, off = _study("read-back-cue", root / "on"), _study("read-back-cue-off", root / "off")
    rows = cue_check_table(read_measurements(on), read_measurements(off))
    return {(r["config_id"], r["quantity"]): r for r in rows}


def test_the_two_examples_differ_only_in_the_cue() -> None:
    (on, _), (off, _) = _small("read-back-cue"), _small("read-back-cue-off")
    assert on.world.read_back_cue and not off.world.read_back_cue
    same = {"world": on.world.model_copy(update={"read_back_cue": False}), "study": off.study}
    assert on.model_copy(update=same) == off


def test_profiles_that_honour_the_cue_read_back_before_use_only_with_it(table) -> None:
    for config in ("cue-follower", "cued-tell-then-readback"):
        read, pre = table[(config, "read_back")], table[(config, "pre_arrival")]
        assert read["pairs"] >= 3 and read["decided_pairs"] == read["pairs"]
        assert read["b_numerator"] == 0 < read["a_numerator"]  # b: without the cue
        assert read["only_in_b"] == 0 and pre["only_in_b"] == 0
        assert pre["a_numerator"] > pre["b_numerator"] == 0
        adoption = table[(config, "adoption")]
        assert adoption["a_numerator"] < adoption["b_numerator"] == adoption["pairs"]
        assert adoption["only_in_a"] == 0
    # every cued write of the tell-then-read-back profile is read back first
    tell = table[("cued-tell-then-readback", "read_back")]
    assert tell["a_numerator"] == tell["pairs"]


def test_profiles_that_ignore_the_cue_do_not_move(table) -> None:
    for config in ("trusting", "readback"):
        for quantity in ("adoption", "read_back", "pre_arrival"):
            row = table[(config, quantity)]
            assert row["only_in_a"] == row["only_in_b"] == 0, (config, quantity)
            assert row["mcnemar"] == "1 (no discordant pairs)"
    read = table[("trusting", "read_back")]
    assert (read["a_numerator"], read["a_denominator"]) == (0, read["pairs"])
    assert read["a"].startswith(f"0/{read['pairs']} (0.0%, 95% CI 0.0–")


def test_all_configurations_together_show_the_shift(table) -> None:
    adoption = table[(ALL_CONFIGS, "adoption")]
    read = table[(ALL_CONFIGS, "read_back")]
    assert adoption["pairs"] == sum(
        table[(c, "adoption")]["pairs"]
        for c in ("trusting", "readback", "cue-follower", "cued-tell-then-readback")
    )
    assert adoption["b_numerator"] > adoption["a_numerator"]
    assert read["a_numerator"] > read["b_numerator"]
    assert read["mcnemar_exact_p"] < 0.05
