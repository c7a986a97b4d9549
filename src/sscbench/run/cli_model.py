"""The options of ``sscbench run`` (and ``sscbench plan``) that evaluate a model in one
command: ``--model PROVIDER/NAME`` and its companions, applied to the study by
:mod:`sscbench.study.model_flags`; ``--retry-missing`` and ``--preflight``."""

from __future__ import annotations

from typing import Annotated

import typer

from sscbench.llm.providers import PROVIDERS
from sscbench.study.model_flags import ModelOptions

Models = Annotated[
    list[str] | None,
    typer.Option(
        "--model",
        help="evaluate this model: PROVIDER/NAME, PROVIDER one of "
        + ", ".join(PROVIDERS)
        + " (or any with --base-url); repeat for several agent configurations; they "
        "replace the study's agents (see --keep-agents)",
    ),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        "--base-url", help="the OpenAI-compatible endpoint of every --model and --user-model"
    ),
]
UserModel = Annotated[
    str | None,
    typer.Option(
        "--user-model",
        help="simulate the user with this LLM (PROVIDER/NAME); default: the study's user, "
        "in the embedded study the scripted user",
    ),
]
OperatorNames = Annotated[
    list[str] | None,
    typer.Option("--operators", help="the operators (comma-separated or repeated)"),
]
WorldChoice = Annotated[
    str | None,
    typer.Option(
        "--world",
        help="generated, tau-bench, a domain (airline, retail) or SOURCE:DOMAIN[,DOMAIN]",
    ),
]
Repetitions = Annotated[
    int | None, typer.Option("--repetitions", min=1, help="repetitions of each run")
]
Temperature = Annotated[
    float | None, typer.Option("--temperature", help="sampling temperature of the --model(s)")
]
KeepAgents = Annotated[
    bool,
    typer.Option(
        "--keep-agents", help="add the --model(s) to the study's agents instead of replacing them"
    ),
]
RetryMissing = Annotated[
    bool,
    typer.Option(
        "--retry-missing",
        help="run again the runs recorded missing (lost to the harness: a refused key, an "
        "outage, a rate limit, a timeout); every finished run is kept",
    ),
]
Preflight = Annotated[
    bool,
    typer.Option(
        help="check each model endpoint's key, model name and tool calls with one request "
        "before the first run"
    ),
]


def model_options(
    models: list[str] | None,
    base_url: str | None,
    user_model: str | None,
    operators: list[str] | None,
    world: str | None,
    repetitions: int | None,
    temperature: float | None,
    keep_agents: bool,
) -> ModelOptions:
    """The options as one :class:`ModelOptions` (operators split at commas)."""
    names = [n.strip() for o in operators or [] for n in o.split(",") if n.strip()]
    return ModelOptions(
        list(models or []),
        base_url,
        user_model,
        names,
        world,
        repetitions,
        temperature,
        keep_agents,
    )


def model_args(options: ModelOptions) -> list[str]:
    """The options as command-line arguments (the resume command names them again)."""
    args: list[str] = []
    for spec in options.models:
        args += ["--model", spec]
    pairs = (
        ("--base-url", options.base_url),
        ("--user-model", options.user_model),
        ("--operators", ",".join(options.operators) or None),
        ("--world", options.world),
        ("--repetitions", options.repetitions),
        ("--temperature", options.temperature),
    )
    for flag, value in pairs:
        if value is not None:
            args += [flag, str(value)]
    return args + (["--keep-agents"] if options.keep_agents else [])
