"""``sscbench validate-oracle``: score an oracle's verdicts against reference labels."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from sscbench.cli_options import StudyFolder, fail
from sscbench.errors import DataError


def validate_oracle(
    study: StudyFolder,
    oracle: Path | None = typer.Option(
        None, help="the oracle's verdicts, JSONL with run_id, A, T_U (default: measurements)"
    ),
    reference: str = typer.Option(
        "calibration", help="'calibration' (scripted labels) or a JSONL labels file"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the scores as JSON"),
) -> None:
    """Score an oracle's adoption verdicts (P/R/F1, kappa) and T_U locations (exact, ±1)
    against reference labels, overall and by operator and arrival; abstentions are misses."""
    from sscbench.oracles.validate import (
        calibration_reference,
        read_rows,
        validate,
        with_strata,
    )

    try:
        measurements = read_rows(oracle or study / "measurements.jsonl")
        if reference == "calibration":
            ref = calibration_reference(study)
        else:
            ref = with_strata(read_rows(Path(reference)), read_rows(study / "measurements.jsonl"))
    except (DataError, OSError) as exc:
        fail(exc)
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
            f"P {row['precision']}, R {row['recall']}, F1 {row['f1']}, kappa {row['kappa']}; "
            f"T_U exact {row['t_u_exact']}, within 1 {row['t_u_within_1']}"
        )


__all__ = ["validate_oracle"]
