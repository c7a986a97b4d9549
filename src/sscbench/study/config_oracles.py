"""The ``[oracles]`` table of a study config: which oracle settings ``sscbench run``
scores after measuring (Tables II and V of the report), and their endpoint.

Scoring never changes what runs: the table is left out of the config hash, so a study
recorded without it (or with other settings) resumes, and adding ``[oracles]`` to a
finished study's config scores it on the next ``sscbench run``. The names are checked
against the oracle registry before any run by the layer that owns the oracles
(:mod:`sscbench.oracles.run_scoring`); here only their form is.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from sscbench.llm.endpoint import EndpointConfig
from sscbench.study.config_cases import Strict

ORACLE_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
"""An oracle setting's name, as the registry accepts it (it names STUDY/oracles/ files)."""


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

        bad = [n for n in names if not re.match(ORACLE_NAME, n)]
        if bad:
            raise ValueError(f"oracle names are letters, digits, '.', '_' and '-': {bad}")
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"each oracle setting is scored once; repeated: {repeated}")
        return names
