"""What every report section is built from, read from the study once.

The study folder is read through one :class:`~sscbench.study.study.Study` (its index
entries, recorded ``config.json``, plan and cases, each read once, when first asked).
:class:`ReportContext` adds what ``sscbench report`` was given (claims,
``--paired``, ``--policy``, the review folder, ``--run-pages``), the measurement rows,
the cases, the numbered run sets the tables link to, and the analyses several sections
share (computed on first use, once). Each section's ``build(ctx)`` reads only this.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from sscbench.analysis.claims import BUILT_IN, Claim, claim_cards
from sscbench.analysis.pooling import repetition_pools
from sscbench.analysis.populations import cell_entry, cell_table, operator_table, primary_rows
from sscbench.analysis.user_claims import load_claims
from sscbench.faults.case import Case
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.release.evidence import ReleaseEvidence, collect_evidence
from sscbench.report.entries import Entry
from sscbench.report.inputs import (
    check_fresh,
    find_review,
    oracle_results,
    read_measurements,
    read_review,
)
from sscbench.report.model import RunSets, Section
from sscbench.review.interrater import ReviewAgreement
from sscbench.study.rows import MeasurementRow
from sscbench.study.study import Study

NOT_SSCBENCH = "the study has no faulted run with a fault contract (SSCBench operators)"


def recorded_config(study: Study) -> JsonMapping:
    """The config the study recorded (``config.json``'s ``config``), or ``{}``."""
    config = study.record.get("config")
    return config if isinstance(config, dict) else {}


@dataclass
class ReportContext:
    """One report build's inputs and shared analyses (see the module docstring)."""

    loaded: Study  # the study folder, read once
    out: Path  # the folder the report is built in (swapped in as STUDY/report/)
    measured: Sequence[MeasurementRow]  # every measurement row (held column-wise)
    cases: dict[str, Case]  # the study's cases by id
    claims: tuple[Claim, ...]  # the built-in claims and those of --claims
    other: Sequence[MeasurementRow] | None = None  # the --paired study's measurement rows
    paired: Study | None = None  # the --paired study
    policy: Path | None = None  # the --policy file (gate verdict)
    review_folder: Path | None = None
    agreement: ReviewAgreement | None = None
    run_pages: str | None = None  # --run-pages
    started: float = 0.0  # perf_counter() when the build began
    sets: RunSets = field(default_factory=RunSets)

    @property
    def study(self) -> Path:
        """The study folder."""
        return self.loaded.root

    @property
    def figures(self) -> Path:
        """Where the sections draw their figures."""
        return self.out / "figures"

    @cached_property
    def rows(self) -> list[MeasurementRow]:
        """The runs of the SSCBench tables: those whose case has a fault contract."""
        return [r for r in self.measured if _has_contract(r, self.cases)]

    @cached_property
    def primary(self) -> list[MeasurementRow]:
        """The primary population (:func:`~sscbench.analysis.populations.primary_rows`)."""
        return primary_rows(self.rows)

    @cached_property
    def cells(self) -> Sequence[Entry]:
        """Per operator × configuration cells of the primary tables."""
        return cell_table(self.rows)

    @cached_property
    def pooled(self) -> Sequence[Entry]:
        """Per operator, pooled over configurations."""
        return operator_table(self.rows)

    @cached_property
    def total(self) -> Entry:
        """All operators and configurations together (the funnel's last row)."""
        return cell_entry("all operators", "all configurations", self.primary)

    @cached_property
    def pools(self) -> list[list[str]]:
        """The configurations of the contract runs grouped into repetitions of one model
        (:func:`~sscbench.analysis.pooling.repetition_pools`), in the study's order."""
        agents = recorded_config(self.loaded).get("agents")
        present = sorted({str(r.config_id) for r in self.rows})
        listed = agents if isinstance(agents, list) else []
        return repetition_pools([a for a in listed if isinstance(a, dict)], present)

    @cached_property
    def cards(self) -> Sequence[Entry]:
        """The claim cards (none without a primary population)."""
        return claim_cards(self.rows, self.claims, self.pools) if self.primary else []

    @cached_property
    def evidence(self) -> ReleaseEvidence:
        """The typed fault families' release evidence."""
        return collect_evidence(self.study)

    @cached_property
    def oracle_results(self) -> dict[str, JsonObject]:
        """Scored oracles by name (``oracles/*.json``)."""
        return oracle_results(self.study)

    def not_sscbench(self, section_id: str, title: str) -> Section:
        """An SSCBench section that does not apply: the study has no primary population."""
        reason = NOT_SSCBENCH
        if self.evidence.families:
            reason += "; its faulted runs are typed fault families (Release evidence)"
        return Section(section_id, title, reason=reason)


def _has_contract(row: MeasurementRow, cases: dict[str, Case]) -> bool:
    """Whether a run belongs to the SSCBench tables: its case has a fault contract (runs of
    typed families, also not-qualified or missing ones, are release evidence)."""
    if row.Z_S == "no-contract":
        return False
    case = cases.get(row.case_id or "")
    return case is None or case.contract is not None


def load_context(
    study: Path,
    out: Path,
    *,
    claims_file: str | Path | None = None,
    paired: str | Path | None = None,
    policy: str | Path | None = None,
    review: str | Path | None = None,
    run_pages: str | None = None,
) -> ReportContext:
    """Read and check everything the report needs, in the order errors are reported: the
    review folder and its agreement, the measurements (fresh against the index), the
    claims file, the paired study's measurements (checked too)."""
    review_folder = find_review(study, Path(review) if review is not None else None)
    agreement = read_review(review_folder)  # a bad agreement.json stops before any work
    started = time.perf_counter()
    measured = read_measurements(study)
    loaded = Study.open(study)
    check_fresh(loaded, measured)
    claims = BUILT_IN + (load_claims(claims_file) if claims_file else ())
    other = read_measurements(Path(paired)) if paired else None
    paired_study = Study.open(paired) if paired else None
    if paired_study is not None and other is not None:
        check_fresh(paired_study, other)  # the paired study's measurements are checked too
    loaded.check_plan()  # read now: a bad plan.jsonl is reported before the cases are read
    return ReportContext(
        loaded=loaded,
        out=out,
        measured=measured,
        cases=loaded.cases if loaded.store.cases.exists() else {},
        claims=claims,
        other=other,
        paired=paired_study,
        review_folder=review_folder,
        agreement=agreement,
        policy=Path(policy) if policy else None,
        run_pages=run_pages,
        started=started,
        sets=RunSets(r.run_id for r in measured),
    )
