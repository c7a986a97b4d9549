"""The ``binding_lost`` parameter in a study config: only SubjectBindingLost has it, and
only at levels 1 (handoff), 2 (lookup) and 3 (execution); bad input names the field."""

from __future__ import annotations

import pytest

from sscbench.errors import DataError
from sscbench.study.config import parse_config

BASE = """
[world]
source = "generated"

[cases]
operators = ["SubjectBindingLost"]
{extra}

[[agents]]
id = "a"
profile = "naive_retry"
"""


def _parse(extra: str):
    return parse_config(BASE.format(extra=extra), "study.toml")


def test_binding_lost_levels_and_params_are_accepted():
    config = _parse(
        "[cases.params.SubjectBindingLost]\nbinding_lost = 3\n"
        '[[cases.intensity]]\nfamily = "SubjectBindingLost"\nparameter = "binding_lost"\n'
        "levels = [1, 2, 3]"
    )
    assert config.cases.intensity[0].levels == [1, 2, 3]
    assert config.cases.params["SubjectBindingLost"]["binding_lost"] == 3


@pytest.mark.parametrize(
    ("extra", "field", "reason"),
    [
        (
            '[[cases.intensity]]\nfamily = "SubjectBindingLost"\nparameter = "binding_lost"\n'
            "levels = [1, 4]",
            "cases.intensity[0]",
            "got [4]",
        ),
        (
            '[[cases.intensity]]\nfamily = "IdentityRebind"\nparameter = "binding_lost"\n'
            "levels = [1]",
            "cases.intensity[0]",
            "not IdentityRebind",
        ),
        (
            "[cases.params.SubjectBindingLost]\nbinding_lost = 0",
            "cases.params",
            "got [0]",
        ),
    ],
)
def test_a_bad_binding_lost_names_the_file_and_field(extra, field, reason):
    with pytest.raises(DataError) as error:
        _parse(extra)
    text = str(error.value)
    assert "study.toml" in text and field in text and reason in text
