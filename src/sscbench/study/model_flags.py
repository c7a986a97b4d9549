"""``sscbench run --model PROVIDER/NAME`` and its companion options, applied to a study
file (or the embedded default study).

The rule (``docs/running-a-study.md``, "Evaluate your model"):

- each ``--model`` is one agent configuration of kind ``openai`` (id ``PROVIDER-NAME``)
  whose endpoint comes from the provider table (:mod:`sscbench.llm.providers`);
  ``--base-url`` points every ``--model`` (and ``--user-model``) at another server and
  ``--temperature`` sets their sampling temperature;
- the ``--model`` configurations **replace** the study's agents; with ``--keep-agents``
  they are appended to them (e.g. beside the scripted baselines);
- the study's protocol stays: clean-qualified faulted runs, the step limits of
  ``[cases] max_steps``, the seeds; ``--operators``, ``--world`` and ``--repetitions``
  replace ``[cases] operators``, ``[world] source`` / ``domains`` and
  ``[study] repetitions``;
- ``--user-model`` makes the simulated user an LLM (``[user] kind = "llm"``); without
  it the user is the study's, in the embedded default the scripted user.

The result is a TOML text like any study file (written to ``STUDY/config.toml``), so the
same command resumes the same study (same config hash) and ``--restart`` is needed for
another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from sscbench.errors import DataError
from sscbench.llm.providers import agent_id, endpoint_fields
from sscbench.reading import loads_toml

SOURCES = ("generated", "tau-bench")
DOMAINS = ("airline", "retail")


@dataclass(frozen=True)
class ModelOptions:
    """The model options of one ``run`` (or ``plan``) command."""

    models: list[str] = field(default_factory=list)
    base_url: str | None = None
    user_model: str | None = None
    operators: list[str] = field(default_factory=list)
    world: str | None = None
    repetitions: int | None = None
    temperature: float | None = None
    keep_agents: bool = False

    def given(self) -> bool:
        """Whether any option that changes the study was given."""
        return bool(
            self.models
            or self.user_model
            or self.operators
            or self.world
            or self.repetitions is not None
        )


def _world(raw: dict[str, Any], value: str) -> None:
    """``--world SOURCE``, ``--world DOMAIN[,DOMAIN]`` or ``--world SOURCE:DOMAIN[,...]``."""
    source, _, domains = value.partition(":")
    world = raw.setdefault("world", {})
    if source in DOMAINS and not domains:
        source, domains = "", value
    elif source not in SOURCES:
        raise DataError(
            "--world",
            None,
            f"{value!r}: use generated, tau-bench, airline, retail or "
            "SOURCE:DOMAIN (e.g. tau-bench:retail)",
        )
    if source:
        world["source"] = source
        if source == "generated":
            world.pop("data", None)
    if domains:
        names = [d.strip() for d in domains.split(",") if d.strip()]
        unknown = [d for d in names if d not in DOMAINS]
        if unknown or not names:
            raise DataError("--world", None, f"unknown domain {unknown or domains!r}")
        world["domains"] = names


def _agents(raw: dict[str, Any], options: ModelOptions) -> None:
    """Replace (or, with ``keep_agents``, extend) ``[[agents]]`` with the ``--model``s."""
    added = []
    for spec in options.models:
        fields = endpoint_fields(spec, options.base_url, options.temperature)
        added.append({"id": agent_id(spec), "kind": "openai", "endpoint": fields})
    ids = [a["id"] for a in added]
    if len(set(ids)) != len(ids):
        raise DataError("--model", None, f"a model is given twice: {ids}")
    kept = list(raw.get("agents", [])) if options.keep_agents else []
    clash = sorted({a.get("id") for a in kept} & set(ids))
    if clash:
        raise DataError("--model", None, f"the study already has an agent {clash[0]!r}")
    raw["agents"] = kept + added


def _fit_operators(raw: dict[str, Any]) -> None:
    """``--world DOMAIN`` without ``--operators``: keep the study's operators that apply to
    the chosen domains (none fitting: left as is, and the study is refused naming them)."""
    from sscbench.study.config_cases import CaseSettings
    from sscbench.study.config_domains import narrow_operators

    cases = raw.setdefault("cases", {})
    domains = raw.get("world", {}).get("domains")
    if cases.get("file") or not domains:
        return
    listed = cases.get("operators", CaseSettings().operators)
    fitting = narrow_operators(list(listed), list(domains))
    if fitting and fitting != listed:
        cases["operators"] = fitting


def apply_model_options(raw: dict[str, Any], options: ModelOptions) -> dict[str, Any]:
    """The study's TOML table with the options applied (see the module's rule)."""
    if options.models:
        _agents(raw, options)
    elif (options.temperature is not None or options.base_url is not None) and not (
        options.user_model
    ):
        raise DataError("--temperature", None, "applies to --model (or --user-model) only")
    if options.user_model:
        fields = endpoint_fields(options.user_model, options.base_url, options.temperature)
        raw["user"] = {"kind": "llm", "endpoint": fields}
    if options.operators:
        cases = raw.setdefault("cases", {})
        if cases.get("file"):
            raise DataError("--operators", None, "the study reads its cases from a file")
        cases["operators"] = list(options.operators)
    if options.world:
        _world(raw, options.world)
        if not options.operators:
            _fit_operators(raw)
    if options.repetitions is not None:
        raw.setdefault("study", {})["repetitions"] = options.repetitions
    return raw


def study_text(text: str, path: str | Path, options: ModelOptions) -> str:
    """The TOML text of the study at ``path`` (its ``text``) with ``options`` applied;
    ``text`` itself when no option changes it."""
    if not options.given():
        if options.temperature is not None or options.base_url is not None:
            raise DataError("--base-url", None, "applies to --model (or --user-model) only")
        return text
    raw = loads_toml(path, text)
    applied = apply_model_options(raw, options)
    head = "# the study with sscbench run's --model options applied\n"
    return head + tomli_w.dumps(applied)
