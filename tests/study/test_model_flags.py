"""``run --model`` options applied to a study: the rule of :mod:`sscbench.study.model_flags`
(the models replace the study's agents, or join them with ``--keep-agents``; the protocol
stays; ``--operators``, ``--world``, ``--repetitions`` override), and the same command
giving the same config hash (so it resumes)."""

from __future__ import annotations

import pytest

from sscbench.errors import DataError
from sscbench.study.config import load_config
from sscbench.study.model_flags import ModelOptions


def test_models_replace_the_default_agents_and_keep_the_protocol() -> None:
    base, _ = load_config(None)
    options = ModelOptions(models=["openai/gpt-4o", "anthropic/claude-sonnet-4-5"])
    study, text = load_config(None, options)
    assert [a.id for a in study.agents] == ["openai-gpt-4o", "anthropic-claude-sonnet-4-5"]
    claude = study.agents[1].endpoint
    assert claude is not None and claude.base_url == "https://api.anthropic.com/v1/"
    assert claude.api_key_env == "ANTHROPIC_API_KEY" and claude.model == "claude-sonnet-4-5"
    assert study.cases == base.cases and study.study == base.study and study.world == base.world
    assert study.user.kind == "scripted"
    again, _ = load_config(None, options)
    assert again.config_hash() == study.config_hash()  # the same command resumes
    assert "[[agents]]" in text


def test_keep_agents_operators_world_repetitions_user_model() -> None:
    options = ModelOptions(
        models=["vllm/qwen"],
        base_url="http://127.0.0.1:8001/v1",
        user_model="openai/gpt-4o-mini",
        operators=["ReturnDate", "PaySource"],
        world="tau-bench:airline",
        repetitions=3,
        temperature=0.5,
        keep_agents=True,
    )
    study, _ = load_config(None, options)
    assert study.agents[-1].id == "vllm-qwen" and len(study.agents) == 7
    assert study.agents[-1].endpoint.base_url == "http://127.0.0.1:8001/v1"
    assert study.agents[-1].endpoint.temperature == 0.5
    assert study.user.kind == "llm" and study.user.endpoint.model == "gpt-4o-mini"
    assert study.user.endpoint.base_url == "http://127.0.0.1:8001/v1"
    assert study.cases.operators == ["ReturnDate", "PaySource"]
    assert (study.world.source, study.world.domains) == ("tau-bench", ["airline"])
    assert study.study.repetitions == 3
    assert "LLM (gpt-4o-mini" in study.user.describe()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (ModelOptions(temperature=0.3), "applies to --model"),
        (ModelOptions(models=["nosuch/m"]), "unknown provider"),
        (ModelOptions(models=["openai/a", "openai/a"]), "given twice"),
        (ModelOptions(world="mars"), "--world"),
        (ModelOptions(operators=["NoSuchOperator"]), "NoSuchOperator"),
        (ModelOptions(models=["anthropic/c"], temperature=1.2), "range 0 to 1"),
    ],
)
def test_bad_options_are_one_line_errors(options: ModelOptions, message: str) -> None:
    with pytest.raises(DataError, match=message):
        load_config(None, options)


def test_hosted_example_loads_and_takes_the_options() -> None:
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "hosted-model.toml"
    study, _ = load_config(example)
    assert [a.id for a in study.agents] == ["gpt-4o", "trusting"]
    swapped, _ = load_config(example, ModelOptions(models=["google/gemini-2.5-flash"]))
    assert [a.id for a in swapped.agents] == ["google-gemini-2.5-flash"]
    assert swapped.cases.max_steps == study.cases.max_steps  # the protocol stays


def test_operators_of_no_study_domain_are_refused_naming_them() -> None:
    """A retail study naming airline operators plans nothing for them: refused, not silent."""
    options = ModelOptions(operators=["ItemOption", "WriteEffect", "PaySource"], world="retail")
    with pytest.raises(DataError) as caught:
        load_config(None, options)
    text = str(caught.value)
    assert caught.value.field == "cases.operators"
    assert "WriteEffect, PaySource apply only to airline" in text and "(retail;" in text
    assert "ItemOption" not in text
    with pytest.raises(DataError, match="ItemOption applies only to retail"):
        load_config(None, ModelOptions(operators=["ItemOption"], world="airline"))


def test_world_alone_keeps_the_operators_that_fit_the_domain() -> None:
    """--world retail without --operators keeps the default study's retail operators."""
    study, _ = load_config(None, ModelOptions(world="retail"))
    assert study.cases.operators == ["ItemOption"]
    study, _ = load_config(None, ModelOptions(world="airline"))
    assert study.cases.operators == ["ReturnDate", "PaySource", "WriteEffect"]
