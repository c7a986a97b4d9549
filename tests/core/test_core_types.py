"""The typed words of core/ and faults/registry: Step, Stratum, MeasuredOperator."""

from __future__ import annotations

import json

import pytest

from sscbench.core.definitions import arrival
from sscbench.core.values import INF, UNDECIDABLE, Stratum
from sscbench.faults.registry import MeasuredOperator, get_measured_operator, get_operator
from sscbench.study.rows import Measurement


@pytest.mark.parametrize(
    ("t_e", "t_s", "expected"),
    [
        (3, 5, "pre"),
        (5, 5, "late"),
        (7, 5, "late"),
        (INF, 5, "absent"),
        (3, INF, "no-use"),
        (UNDECIDABLE, 5, "undecidable"),
        (3, UNDECIDABLE, "undecidable"),
    ],
)
def test_arrival_is_a_stratum_serialised_as_before(t_e, t_s, expected):
    z_s = arrival(t_e, t_s)
    assert isinstance(z_s, Stratum) and z_s == expected
    assert json.dumps({"Z_S": z_s}) == json.dumps({"Z_S": expected})


def test_the_non_arrival_statuses_are_strata_too():
    assert {s.value for s in Stratum} >= {
        "no-contract",
        "not-triggered",
        "measurement-missing",
        "clean",
    }
    untriggered = Measurement(triggered=False, T_F=None, Z_S=Stratum.NOT_TRIGGERED)
    assert json.dumps(untriggered.columns()["Z_S"]) == '"not-triggered"'
    with pytest.raises(ValueError):  # every measurement names its stratum
        Measurement.model_validate({"triggered": False, "T_F": None})


def test_measurement_takes_only_operators_that_can_measure():
    operator = get_measured_operator("ReturnDate")
    assert isinstance(operator, MeasuredOperator)
    assert not isinstance(get_operator("SuppressWrite"), MeasuredOperator)
    with pytest.raises(TypeError, match=r"SuppressWrite.*counterevidence"):
        get_measured_operator("SuppressWrite")
