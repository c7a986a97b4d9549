"""The ``[oracles]`` table of a study config: which oracle settings ``sscbench run``
scores after measuring (Tables II and V of the report), and their endpoint; and the
``[second_reader]`` table (``sscbench second-read``), whose judge model is that endpoint
unless it names its own.

Scoring never changes what runs: the table is left out of the config hash, so a study
recorded without it (or with other settings) resumes, and adding ``[oracles]`` to a
finished study's config scores it on the next ``sscbench run``. The names are checked
against the oracle registry before any run by the layer that owns the oracles
(:mod:`sscbench.oracles.run_scoring`); here only their form is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field, field_validator

from sscbench.errors import DataError
from sscbench.llm.endpoint import EndpointConfig
from sscbench.names import name_problem
from sscbench.study.config_cases import Strict

ORACLE_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
"""An oracle setting's name, as the registry accepts it (it names STUDY/oracles/ files)."""

Table = TypeVar("Table", bound=BaseModel)


class OracleScoring(Strict):
    """``[oracles]``: the settings scored during ``sscbench run`` (as ``validate-oracle``
    would with one ``--oracle`` each) and what they are scored with."""

    settings: list[str] = Field(
        min_length=1,
        description="registered oracle names (rules, invariants, step-only, llm-l0, ...)",
    )
    endpoint: EndpointConfig | None = Field(
        None, description="OpenAI-compatible endpoint of the LLM settings ([oracles.endpoint])"
    )
    reference: str = Field(
        "calibration",
        description="'calibration' (scripted labels) or a labels file, relative to the config",
    )
    clean_controls: int = Field(10, ge=0, le=100_000, description="clean controls per operator")
    seed: int = Field(0, description="seed of the clean-control draw and the bootstrap")

    @field_validator("settings")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        import re

        bad = [n for n in names if not re.match(ORACLE_NAME, n) or name_problem(n)]
        if bad:
            raise ValueError(f"oracle names are letters, digits, '.', '_' and '-': {bad}")
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"each oracle setting is scored once; repeated: {repeated}")
        return names


class SecondReaderSettings(Strict):
    """``[second_reader]``: ``sscbench second-read`` sends the runs the rule reader marked
    unread (``unread > 0``) to a judge model with the L1 oracle prompt. Its endpoint is the
    study's judge model: ``[second_reader.endpoint]`` when given, else ``[oracles.endpoint]``
    (one way to configure a judge model, not a second one)."""

    endpoint: EndpointConfig | None = Field(
        None, description="the judge's endpoint (default: [oracles.endpoint])"
    )
    max_runs: int = Field(
        200, ge=1, le=100_000, description="marked runs sent at most (a bound on the cost)"
    )


def judge_settings(
    oracles: OracleScoring | None, second: SecondReaderSettings | None
) -> tuple[EndpointConfig | None, int]:
    """The second reader's endpoint and run bound from a config's ``[second_reader]`` and
    ``[oracles]`` tables (None: the study configures no judge model)."""
    second = second or SecondReaderSettings()
    endpoint = second.endpoint or (oracles.endpoint if oracles is not None else None)
    return endpoint, second.max_runs


def read_judge_settings(path: Path) -> tuple[EndpointConfig | None, int]:
    """The second reader's endpoint and run bound from a study config file (only its
    ``[oracles]`` and ``[second_reader]`` tables are read, so a study folder's own
    ``config.toml`` serves without its relative inputs); DataError names the file and
    field of a bad table."""

    from pydantic import ValidationError

    from sscbench.reading import read_toml

    raw = read_toml(path)

    def table(name: str, model: type[Table]) -> Table | None:
        if name not in raw:
            return None
        try:
            return model.model_validate(raw[name])
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in (name, *first["loc"]))
            raise DataError(path, where, first["msg"].removeprefix("Value error, ")) from None

    oracles = table("oracles", OracleScoring)
    return judge_settings(oracles, table("second_reader", SecondReaderSettings))
