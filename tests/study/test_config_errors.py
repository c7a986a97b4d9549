"""A config's problems all at once, one line each, naming the file and the field, with
"did you mean" for a misspelt key (``study.config_errors``)."""

from __future__ import annotations

import tomllib

import pytest
from pydantic import ValidationError

from sscbench.errors import DataError
from sscbench.study.config import StudyConfig, parse_config
from sscbench.study.config_errors import config_problems

AGENT = '[[agents]]\nid = "a"\nprofile = "trusting"\n'


def _error(text: str) -> DataError:
    with pytest.raises(DataError) as info:
        parse_config(text, "study.toml")
    return info.value


def test_one_problem_reads_as_one_line_with_a_suggestion():
    """A misspelt key names its field and the key it was meant to be."""
    error = _error("[study]\nrepetitons = 2\n" + AGENT)
    assert error.field == "study.repetitons"
    assert str(error) == (
        "study.toml, field study.repetitons: not a setting of [study]; did you mean `repetitions`?"
    )


def test_every_problem_is_listed_at_once_one_line_each():
    """Misspellings in several tables, a bad value and a nested key: all named together."""
    text = (
        '[study]\nrepetitons = 2\n[cases]\nper_operater = 2\n[world]\ndomains = ["airlines"]\n'
        + AGENT
        + "profle = 1\n"
    )
    error = _error(text)
    lines = str(error).splitlines()
    assert lines[0] == "study.toml: 4 problems:"
    body = "\n".join(lines[1:])
    assert "field study.repetitons: not a setting of [study]; did you mean `repetitions`?" in body
    assert (
        "field cases.per_operater: not a setting of [cases]; did you mean `per_operator`?" in body
    )
    assert "field agents[0].profle:" in body and "did you mean `profile`?" in body
    assert "field world.domains[0]:" in body and "'airlines'" in body
    assert len(lines) == 5 and "more problems" not in str(error)


def test_no_suggestion_when_nothing_is_close():
    """A key like no field is refused without a guess; a misspelt table gets one."""
    error = _error("[study]\ncolour = 'red'\n" + AGENT)
    assert str(error).endswith("not a setting of [study]")
    error = _error("[studdy]\nseed = 1\n" + AGENT)
    assert error.field == "studdy" and "did you mean `study`?" in str(error)


def test_suggestions_come_from_the_table_the_key_is_in():
    """A key of a list's table (an agent's replay settings) is matched against that
    table's fields, not the top level's."""
    text = (
        '[[agents]]\nid = "a"\nkind = "replay"\n[agents.replay]\npath = "x"\nqualfy = "completed"\n'
    )
    with pytest.raises(ValidationError) as info:
        StudyConfig.model_validate(tomllib.loads(text))
    problems = dict(config_problems(StudyConfig, info.value))
    assert "did you mean `qualify`?" in problems["agents[0].replay.qualfy"]
