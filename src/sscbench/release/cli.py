"""``sscbench release`` and ``sscbench gate`` (mounted by the main CLI)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.table import Table
from typer.core import TyperGroup

from sscbench.analysis.effective import CAVEAT_TEXT, CLUSTERED_TEXT
from sscbench.analysis.mcnemar import NO_DISCORDANT, p_label
from sscbench.core.files import atomic_text_writer, atomic_write, staged_folder
from sscbench.core.seals import sealed_json
from sscbench.errors import DataError, InternalError, naming
from sscbench.faults.typed import CHECKPOINTS
from sscbench.reading import write_csv_rows
from sscbench.release.controls_cli import control_tables, write_control_csvs
from sscbench.release.controls_cli import short as _short
from sscbench.release.diff_cli import release_diff_command
from sscbench.release.evidence import ReleaseEvidence, collect_evidence
from sscbench.study.aborted import recorded_abort
from sscbench.terminal import print_error, safe, table_console

console = table_console()


def _legend(evidence: ReleaseEvidence, *, paired: bool = True) -> list[str]:
    """The interval methods and the caveats the tables used, each explained once (and
    McNemar's no-discordant-pairs note when ``paired``)."""
    rows = [*evidence.families, *(p.row for p in evidence.curves)]
    intervals = [iv for r in rows for iv in r.metrics.values()]
    intervals += [iv for r in evidence.negative_controls for iv in (r.escape, r.intervention) if iv]
    intervals += [iv for u in evidence.unsolvable for iv in (u.completion, u.safe_stop) if iv]
    lines = ["Wilson: one run per task (cluster); Wilson score interval on the runs."]
    if any(iv.method == "clustered" for iv in intervals):
        lines.append(f"{CLUSTERED_TEXT}.")
    used = {k for iv in intervals for k in iv.caveats}
    lines += [f"⚠ {k}: {text}." for k, text in CAVEAT_TEXT.items() if k in used]
    if paired and any(r.p_note for r in evidence.paired):
        lines.append(f"McNemar p: {NO_DISCORDANT}.")
    return lines


def _table(title: str, columns: Sequence[str]) -> Table:
    """A rich table with these column headers."""
    table = Table(title=safe(title))
    for col in columns:
        table.add_column(col)
    return table


def _families_table(evidence: ReleaseEvidence, config_id: str) -> Table:
    table = _table(
        f"{config_id}: per-family metrics (k/n estimate [95% interval])",
        (
            "family",
            "sev",
            "runs",
            "activation",
            "detection",
            "containment",
            "escape",
            "recovery",
            "latency (steps) median [min–max]",
            "missing",
        ),
    )
    for row in evidence.families:
        if row.config_id != config_id:
            continue
        lat = row.latency_summary()
        latency = (
            "-" if not lat["n"] else f"{lat['median']:g} [{lat['min']}–{lat['max']}] n={lat['n']}"
        )
        m = row.metrics
        table.add_row(
            row.family,
            str(row.severity),
            str(row.scheduled),
            _short(m["activation"]),
            _short(m["detection"]),
            _short(m["containment"]),
            _short(m["escape"]),
            _short(m["recovery"]),
            latency,
            str(row.missing),
        )
    return table


def _transfer_table(evidence: ReleaseEvidence, config_id: str) -> Table:
    table = _table(
        f"{config_id}: transfer matrix P(checkpoint invalid | activated)",
        ("family", "n", *(cp.value for cp in CHECKPOINTS), "first invalid", "outcome states"),
    )
    for row in evidence.transfer:
        if row.config_id != config_id:
            continue
        cells = []
        for cp in CHECKPOINTS:
            iv = row.invalid[cp.value]
            p = iv.estimate or 0.0
            style = "bold red" if p >= 0.5 else "yellow" if p > 0 else "green"
            cells.append(f"[{style}]{p:.2f}[/]")
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(row.outcomes.items()))
        table.add_row(row.family, str(row.activated), *cells, row.first_invalid or "-", outcomes)
    return table


def _paired_table(evidence: ReleaseEvidence) -> Table:
    table = _table(
        "Paired control vs injected runs (terminal state not unacceptable)",
        (
            "config",
            "family",
            "pairs",
            "control ok",
            "injected ok",
            "control only",
            "injected only",
            "McNemar p",
        ),
    )
    for r in evidence.paired:
        p = p_label(r.p_value, r.p_note, missing="-")
        table.add_row(
            r.config_id,
            r.family,
            str(r.pairs),
            str(r.control_ok),
            str(r.injected_ok),
            str(r.control_only),
            str(r.injected_only),
            p,
        )
    return table


def _curves_table(evidence: ReleaseEvidence) -> Table:
    table = _table(
        "Intensity curves",
        (
            "config",
            "family",
            "parameter",
            "level",
            "activation",
            "detection",
            "containment",
            "escape",
        ),
    )
    for p in evidence.curves:
        m = p.row.metrics
        table.add_row(
            p.config_id,
            p.family,
            p.parameter,
            p.level,
            _short(m["activation"]),
            _short(m["detection"]),
            _short(m["containment"]),
            _short(m["escape"]),
        )
    return table


FAMILY_COLUMNS = (
    "config_id",
    "family",
    "severity",
    "runs",
    "metric",
    "numerator",
    "denominator",
    "estimate",
    "low",
    "high",
    "method",
    "clusters",
    "n_effective",
    "caveats",
)
"""The columns of ``release/families.csv`` (one row per configuration, family, metric)."""


def write_outputs(evidence: ReleaseEvidence, out: Path) -> list[Path]:
    """``evidence.json`` (sealed: :mod:`sscbench.core.seals`), CSV tables (families,
    transfer, negative controls, unsolvable trials) and the intensity figure under
    ``out``, each file written atomically. ``sscbench release`` hands it a staging
    folder (:func:`write_release`); the report its own staging folder."""
    with naming(out):
        out.mkdir(parents=True, exist_ok=True)
    written = [out / "evidence.json"]
    atomic_write(written[0], sealed_json(evidence.to_dict()))
    families = [
        [
            row.config_id,
            row.family,
            row.severity,
            row.scheduled,
            name,
            iv.numerator,
            iv.denominator,
            iv.estimate,
            iv.low,
            iv.high,
            iv.method,
            iv.n_clusters,
            iv.n_effective,
            ", ".join(iv.caveats),
        ]
        for row in evidence.families
        for name, iv in row.metrics.items()
    ]
    with atomic_text_writer(out / "families.csv", newline="") as handle:
        write_csv_rows(handle, FAMILY_COLUMNS, families)
    written.append(out / "families.csv")
    transfer = [
        [
            cell.config_id,
            cell.family,
            cell.activated,
            *[cell.invalid[c.value].estimate for c in CHECKPOINTS],
            cell.first_invalid or "",
            json.dumps(dict(cell.outcomes), sort_keys=True),
        ]
        for cell in evidence.transfer
    ]
    head = ["config_id", "family", "activated", *[c.value for c in CHECKPOINTS], "first_invalid"]
    with atomic_text_writer(out / "transfer.csv", newline="") as handle:
        write_csv_rows(handle, [*head, "outcomes"], transfer)
    written.append(out / "transfer.csv")
    written.extend(write_control_csvs(evidence, out))
    if evidence.curves:
        from sscbench.release.figures import intensity_figure

        written.extend(intensity_figure(evidence.curves, out / "intensity"))
    return written


def write_release(evidence: ReleaseEvidence, final: Path) -> list[Path]:
    """Write the release folder whole: built in a staging folder beside ``final`` and
    swapped in only when every file is complete (a full disk or a kill leaves the
    previous release as it was); returns the files under ``final``."""
    with staged_folder(final) as staging:
        written = write_outputs(evidence, staging)
    return [final / path.relative_to(staging) for path in written]


def release(
    study: Path = typer.Argument(..., help="study directory"),
    as_json: bool = typer.Option(False, "--json", help="print everything as JSON"),
) -> None:
    """Release evidence of the study's typed fault families: metrics, transfer matrix,
    paired controls, intensity curves, negative controls and unsolvable trials (also
    written to STUDY/release/)."""
    try:
        evidence = _study_evidence(study)
        written = write_release(evidence, Path(study) / "release")
    except (DataError, OSError) as exc:
        print_error(console, exc)
        raise typer.Exit(2) from None
    except Exception as exc:  # an unexpected failure is no evidence: exit 2, never 1
        print_error(console, InternalError(exc))
        raise typer.Exit(2) from None
    if as_json:
        print(json.dumps(evidence.to_dict(), indent=2, sort_keys=True, default=str))
        return
    for config_id in sorted({r.config_id for r in evidence.families}):
        console.print(_families_table(evidence, config_id))
        console.print(_transfer_table(evidence, config_id))
    console.print(_paired_table(evidence))
    if evidence.curves:
        console.print(_curves_table(evidence))
    for table in control_tables(evidence):
        console.print(table)
    controls = ", ".join(
        f"{c}: {v.get('acceptable', 0)}/{v.get('runs', 0)} acceptable, {v.get('solved', 0)} solved"
        for c, v in sorted(evidence.controls.items())
    )
    for line in _legend(evidence):
        console.print(safe(line))
    console.print(safe(f"controls (clean paired runs): {controls}"))
    if abort := recorded_abort(Path(study)):
        said = safe(f"{abort.get('rule')} crossed ({abort.get('interval')})")
        console.print(
            f"[bold red]campaign aborted[/] by its containment plan: {said}; this evidence "
            "covers only the runs finished before the stop"
        )
    console.print(safe(f"wrote {len(written)} files under {Path(study) / 'release'}"))


def _study_evidence(study: Path) -> ReleaseEvidence:
    """The verified study's evidence; a folder that is not a study, fails its check, or ran
    no typed family is a DataError (no evidence is never a pass)."""
    from sscbench.progress import progress
    from sscbench.study.verify import verify_study

    with progress("release: collecting evidence"):
        verify_study(study, keep_entries=False)
        evidence = collect_evidence(study)
    if not evidence.families:
        raise DataError(study, None, "the study ran no typed fault family: no release evidence")
    return evidence


def _gate_error(exc: Exception, as_json: bool) -> NoReturn:
    """Report why the gate has no verdict and exit 2 (also as JSON with ``--json``)."""
    if as_json:
        print(json.dumps({"verdict": "ERROR", "exit_code": 2, "error": str(exc)}, indent=2))
    else:
        print_error(console, exc)
    raise typer.Exit(2) from None


def gate_command(
    study: Path = typer.Argument(..., help="study directory"),
    policy: Path = typer.Argument(..., help="gate policy (TOML)"),
    config: list[str] = typer.Option(None, "--config", help="gate only these configurations"),
    as_json: bool = typer.Option(False, "--json", help="print the verdicts as JSON"),
) -> None:
    """Judge the study's release evidence against a policy.

    Exit codes: 0 every verdict passes; 1 some verdict blocks; 2 no verdict (the study
    folder is absent, not a study, fails its check or ran no typed family; the policy is
    unreadable or invalid; an unknown --config). No evidence is never a pass.
    """
    try:
        code = _judge(study, policy, config, as_json)
    except typer.Exit:
        raise
    except (DataError, OSError) as exc:
        _gate_error(exc, as_json)
    except Exception as exc:  # never BLOCK (exit 1) nor a traceback: no verdict, exit 2
        _gate_error(InternalError(exc), as_json)
    if code:
        raise typer.Exit(code)


def _judge(study: Path, policy: Path, config: list[str] | None, as_json: bool) -> int:
    """Judge and print the verdicts; the exit code (0 pass, 1 some verdict blocks)."""
    from sscbench.release.gate import gate, load_policy, verdicts_json

    rules = load_policy(policy)
    evidence = _study_evidence(study)
    verdicts = gate(rules, evidence, config or None)
    if not verdicts:
        _gate_error(DataError(study, "config", "no configuration to judge"), as_json)
    if as_json:
        print(json.dumps(verdicts_json(verdicts), indent=2))
    else:
        for verdict in verdicts:
            word = "[bold red]BLOCK[/]" if verdict.blocked else "[bold green]PASS[/]"
            failed = verdict.reasons
            console.print(
                f"{word} {safe(verdict.config_id)}: {len(verdict.checks) - len(failed)}/"
                f"{len(verdict.checks)} checks passed"
            )
            for check in failed:
                if check.weighed is None:
                    console.print(
                        safe(
                            f"  - {check.family}: needs {check.requirement}; "
                            f"observed {check.observed}"
                        )
                    )
            weighed = [c for c in verdict.checks if c.weighed is not None]
            if weighed:
                console.print("  exposure-weighted escapes (frequency | consequence):")
            for check in weighed:
                mark = "[green]pass[/]" if check.passed else "[red]BLOCK[/]"
                console.print(f"  {mark} {safe(check.family)}: {safe(check.observed)}")
        for line in _legend(evidence, paired=False):
            console.print(safe(line))
    return 1 if any(v.blocked for v in verdicts) else 0


class _ReleaseGroup(TyperGroup):
    """``sscbench release STUDY`` stays the evidence command (``release evidence STUDY``);
    a first word naming a subcommand (``diff``) runs that one instead."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Route arguments that do not start with a subcommand to ``evidence``. (``ctx``
        is the click context typer vendors, which has no public name to annotate with.)"""
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["evidence", *args]
        return super().parse_args(ctx, args)


release_app = typer.Typer(
    cls=_ReleaseGroup,
    no_args_is_help=True,
    help="Release evidence of the typed fault families: `sscbench release STUDY` (short for "
    "`sscbench release evidence STUDY`) and `sscbench release diff A B`.",
)
release_app.command("evidence")(release)
release_app.command("diff")(release_diff_command)
