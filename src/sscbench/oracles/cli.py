"""``sscbench validate-oracle`` (mounted by the main CLI).

Two forms:

* ``validate-oracle STUDY [--oracle FILE.jsonl] [--reference calibration|LABELS] [--json]``
  — the original scoring of one verdicts file (default: ``measurements.jsonl``): printed,
  nothing written;
* ``validate-oracle STUDY --oracle NAME [--oracle NAME ...] [--reference ...]`` with
  registered oracle names — runs the oracles, prints Table V and writes
  ``STUDY/oracles/<name>.json``, ``.verdicts.jsonl`` and ``.csv`` (see
  :mod:`sscbench.oracles.suite`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.table import Table

from sscbench.cli_options import StudyFolder
from sscbench.errors import DataError
from sscbench.terminal import plain, print_error, table_console

if TYPE_CHECKING:  # the oracles themselves are imported when a command runs
    from sscbench.json_types import JsonValue
    from sscbench.oracles.base import OracleSettings
    from sscbench.oracles.suite import OracleResult

console = table_console()


def _fail(exc: Exception) -> NoReturn:
    print_error(console, exc)
    raise typer.Exit(2)


def _legacy(study: Path, oracle: Path | None, reference: str, as_json: bool) -> None:
    from sscbench.oracles.validate import calibration_reference, read_rows, validate, with_strata

    try:
        measurements = read_rows(oracle or study / "measurements.jsonl")
        if reference == "calibration":
            ref = calibration_reference(study)
        else:
            ref = with_strata(read_rows(Path(reference)), read_rows(study / "measurements.jsonl"))
    except (DataError, OSError) as exc:
        _fail(exc)
    scores = validate(measurements, ref)
    if as_json:
        print(json.dumps(scores, indent=2))
        return
    if not scores:
        print("no reference labels for this study")
        raise typer.Exit(1)
    for key, row in scores.items():
        print(
            f"{key}: {row['runs']} runs, {row['abstentions']} abstained; adoption "
            f"P {_label(row['precision'])}, R {_label(row['recall'])}, F1 {row['f1']}, "
            f"kappa {row['kappa']}; T_U exact {_label(row['t_u_exact'])}, "
            f"within 1 {_label(row['t_u_within_1'])}"
        )


def _label(cell: JsonValue) -> JsonValue:
    """The printed label of a proportion cell (``interval_cell``)."""
    return cell.get("label") if isinstance(cell, dict) else None


def _short(cell: object) -> str:
    if cell is None:
        return "—"
    if isinstance(cell, dict):
        if cell.get("estimate") is None:
            return "0/0" if "k" in cell else "—"
        if "k" in cell:
            return f"{cell['k']}/{cell['n']} {cell['estimate'] * 100:.0f}%"
        return f"{cell['estimate']:.2f}"
    return str(cell)


TABLE_COLUMNS = (
    ("coverage", "cov."),
    ("precision", "P"),
    ("recall", "R"),
    ("f1", "F1"),
    ("fp_clean", "FP clean"),
    ("fp_non_adopting", "FP non-adopt."),
    ("t_u_exact", "T_U exact"),
    ("t_u_within_1", "T_U ±1"),
)


def print_table_v(results: dict[str, OracleResult], strata: str = "all") -> None:
    """Table V on the terminal: one row per oracle and stratum."""
    table = Table(title="Table V: automated recovery of measurement targets")
    table.add_column("oracle", no_wrap=True)
    table.add_column("stratum", no_wrap=True)
    for _, title in TABLE_COLUMNS:
        table.add_column(title, justify="right")
    table.add_column("calls/run", justify="right")  # model calls per judged trajectory
    for name, result in results.items():
        per_run = result["calls"].get("per_trajectory")
        for stratum, row in result["strata"].items():
            if strata == "all" and stratum != "all":
                continue
            label = stratum.replace("operator:", "").replace("arrival:", "Z_S=")
            table.add_row(
                plain(name),
                plain(label),
                *[_short(row.get(k)) for k, _ in TABLE_COLUMNS],
                "—" if per_run is None else f"{per_run:g}",
            )
    console.print(table)


OracleNames = Annotated[
    list[str] | None,
    typer.Option(
        "--oracle",
        help="a registered oracle (rules, llm-l0, llm-l1, invariants, step-only, anomaly-judge, "
        "attribution-all-at-once, attribution-step-by-step, or an entry "
        "point), repeatable; or one JSONL verdicts file (run_id, A, T_U) for the plain "
        "scoring (default: measurements.jsonl)",
    ),
]
ReferenceLabels = Annotated[
    str,
    typer.Option(
        help="'calibration' (scripted labels) or a JSONL labels file (e.g. a "
        "review folder's reference.jsonl)"
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="print the scores as JSON")]
LlmEndpoint = Annotated[str | None, typer.Option(help="LLM oracles: OpenAI-compatible base URL")]
LlmModel = Annotated[str | None, typer.Option(help="LLM oracles: model name")]
LlmKeyEnv = Annotated[str, typer.Option(help="LLM oracles: env var of the key")]
LlmTemperature = Annotated[float, typer.Option(help="LLM oracles: sampling temperature")]
LlmSeed = Annotated[int | None, typer.Option(help="LLM oracles: sampling seed")]
LlmRetries = Annotated[int, typer.Option(help="LLM oracles: retries of a failed call")]
LlmTimeout = Annotated[float, typer.Option(help="LLM oracles: seconds one attempt may take")]
CleanControls = Annotated[int, typer.Option(min=0, help="clean controls drawn per operator")]
DrawSeed = Annotated[int, typer.Option(help="seed of the clean-control draw and the bootstrap")]
TableRows = Annotated[
    str, typer.Option(help="terminal table: 'all' rows only, or 'strata' (every stratum)")
]


@dataclass(frozen=True)
class LlmOptions:
    """The LLM oracles' endpoint as the options give it (none of it: no LLM endpoint)."""

    endpoint: str | None
    model: str | None
    api_key_env: str
    temperature: float
    seed: int | None
    max_retries: int
    timeout: float

    def settings(self) -> OracleSettings:
        """The oracles' settings: the endpoint from ``--endpoint`` and ``--model`` (both or
        neither, else DataError) and the sampling options."""
        from sscbench.llm.endpoint import endpoint_from_options
        from sscbench.oracles.base import OracleSettings

        config = None
        if self.endpoint is not None or self.model is not None:
            if self.endpoint is None or self.model is None:
                raise DataError(
                    "--endpoint" if self.endpoint is None else "--model",
                    None,
                    "LLM oracles need both --endpoint and --model",
                )
            config = endpoint_from_options(
                {"base_url": "--endpoint", "seed": "--llm-seed"},
                base_url=self.endpoint,
                model=self.model,
                api_key_env=self.api_key_env,
                temperature=self.temperature,
                seed=self.seed,
                max_retries=self.max_retries,
                timeout=self.timeout,
            )
        return OracleSettings(endpoint=config)


def _check_oracle_names(names: list[str], by: str) -> None:
    """Refuse a ``--by`` other than all or strata, and a verdicts file among oracle names."""
    if by not in ("all", "strata"):
        _fail(DataError("--by", None, f"expected all or strata, not {by!r}"))
    for name in names:
        if name.endswith(".jsonl") or "/" in name:
            _fail(
                DataError(
                    name, None, "not found (a verdicts file is scored alone: one --oracle FILE)"
                )
            )


def _score_oracles(
    study: Path,
    names: list[str],
    llm: LlmOptions,
    reference: str,
    clean_controls: int,
    seed: int,
) -> tuple[dict[str, OracleResult], list[Path]]:
    """Run and score the named oracles on the verified, locked study and write their
    results; returns the results and the files written."""
    from sscbench.oracles.suite import score_study, write_results
    from sscbench.study.lock import StudyLock
    from sscbench.study.verify import require_study, verify_study

    try:
        settings = llm.settings()
        require_study(study)
        with StudyLock(study):
            verify_study(study, keep_entries=False)
            results = score_study(
                study, names, settings, reference, clean_per_operator=clean_controls, seed=seed
            )
            written = write_results(study, results)
    except KeyError as exc:
        _fail(DataError("--oracle", None, str(exc.args[0])))
    except (DataError, OSError) as exc:
        _fail(exc)
    return results, written


def _print_scores(
    results: dict[str, OracleResult], written: list[Path], study: Path, by: str, as_json: bool
) -> None:
    """The scores as JSON, or Table V with each oracle's abstentions and the files written."""
    if as_json:
        print(
            json.dumps(
                {n: {k: v for k, v in r.items() if k != "_verdicts"} for n, r in results.items()},
                indent=2,
            )
        )
        return
    print_table_v(results, by)
    for name, result in results.items():
        if result["abstentions"]:
            reasons = ", ".join(f"{k}: {v}" for k, v in result["abstention_reasons"].items())
            console.print(
                plain(
                    f"{name}: {result['abstentions']} of {result['judged']} abstained ({reasons})"
                ),
                highlight=False,
            )
    console.print(
        plain(f"wrote {len(written)} files to {Path(study) / 'oracles'}"), highlight=False
    )


def validate_oracle_command(
    study: StudyFolder,
    oracle: OracleNames = None,
    reference: ReferenceLabels = "calibration",
    as_json: AsJson = False,
    endpoint: LlmEndpoint = None,
    model: LlmModel = None,
    api_key_env: LlmKeyEnv = "OPENAI_API_KEY",
    temperature: LlmTemperature = 0.0,
    llm_seed: LlmSeed = None,
    max_retries: LlmRetries = 4,
    timeout: LlmTimeout = 120.0,
    clean_controls: CleanControls = 10,
    seed: DrawSeed = 0,
    by: TableRows = "all",
) -> None:
    """Score oracles' adoption verdicts and T_U steps against reference labels (Table V:
    P/R/F1 with intervals, false positives on clean controls and non-adopters, coverage,
    exact and ±1 T_U, by operator and arrival); abstentions are misses."""
    names = list(oracle or [])
    if not names or (len(names) == 1 and Path(names[0]).is_file()):
        _legacy(study, Path(names[0]) if names else None, reference, as_json)
        return
    _check_oracle_names(names, by)
    llm = LlmOptions(endpoint, model, api_key_env, temperature, llm_seed, max_retries, timeout)
    results, written = _score_oracles(study, names, llm, reference, clean_controls, seed)
    _print_scores(results, written, study, by, as_json)
