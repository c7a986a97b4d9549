"""A model that fails makes the sample an Inspect error (never a silent nan success), and
docs/inspect.md's next step, ``sscbench report STUDY``, works on the study the task wrote."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("inspect_ai")

import inspect_ai
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.integrations.inspect_task import arrival


def _failing_model():
    """A mockllm whose every answer is an error output (as a provider's failure is)."""

    def answer(input, tools, tool_choice, config):
        output = ModelOutput.from_content(model="mockllm", content="")
        output.error = "the provider refused: quota exhausted"
        output.usage = ModelUsage(input_tokens=1, output_tokens=0, total_tokens=1)  # no tiktoken
        return output

    return get_model("mockllm/model", custom_outputs=answer)


def test_a_failed_run_is_a_sample_error_and_the_eval_is_not_a_success(tmp_path):
    out = tmp_path / "study"
    task = arrival(operators="ReturnDate", per_operator=1, out=str(out))
    [log] = inspect_ai.eval(
        task, model=_failing_model(), log_dir=str(tmp_path / "logs"), display="none"
    )
    assert log.status == "error"
    assert log.samples and all(s.error is not None for s in log.samples)
    message = log.samples[0].error.message
    assert "is missing: agent model error" in message and "quota exhausted" in message
    assert all(not s.scores for s in log.samples)  # no score, so no nan metric
    # the study folder records the run missing, as sscbench run would
    statuses = [json.loads(line)["status"] for line in (out / "index.jsonl").open()]
    assert statuses and set(statuses) == {"missing"}


@pytest.mark.slow  # builds a report
def test_report_measures_a_study_the_task_wrote(tmp_path):
    out = tmp_path / "study"
    task = arrival(operators="ReturnDate", per_operator=1, out=str(out))
    [log] = inspect_ai.eval(
        task, model="sscbench/trusting", log_dir=str(tmp_path / "logs"), display="none"
    )
    assert log.status == "success", log.error
    assert not (out / "measurements.jsonl").exists()
    result = CliRunner().invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert "measured " in result.output and "wrote " in result.output
    assert (out / "measurements.jsonl").is_file()
    assert (out / "report" / "report.html").is_file()


def test_scripted_model_refuses_outside_the_task_and_unknown_profiles():
    import asyncio

    from inspect_ai.model import ChatMessageUser

    model = get_model("sscbench/trusting")
    with pytest.raises(RuntimeError, match="answers only inside the sscbench/arrival task"):
        asyncio.run(model.generate([ChatMessageUser(content="hi")]))
    with pytest.raises(Exception, match="not a scripted profile"):
        get_model("sscbench/no_such_profile")
