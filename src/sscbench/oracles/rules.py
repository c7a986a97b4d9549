"""The ``rules`` oracle: sscbench's own measurement, as an oracle among others.

Context: the run's row of ``measurements.jsonl`` — the operators' rules over the
model-visible ledger and the fault contract, the evaluator log having only located
T_F. A clean control's row says no fault was delivered (``Z_S`` ``clean``): the
measurement then reports no adoption, so the rules have no false positive on clean
controls by construction. A run without a measurement row is an abstention (run
``sscbench measure`` first).
"""

from __future__ import annotations

from sscbench.oracles.base import OracleContext, Verdict, abstain
from sscbench.oracles.inputs import OracleInputs
from sscbench.study.rows import MeasurementRow


def verdict_from_row(run_id: str, row: MeasurementRow | None) -> Verdict:
    """A verdict from a measurement row's A and T_U (a clean row: not adopted)."""
    if row is None:
        return abstain(run_id, "no measurement row (run `sscbench measure` on the study)")
    if row.Z_S == "clean":
        return Verdict(run_id=run_id, adopted=False, reason="measurement: no fault delivered")
    if row.Z_S == "measurement-missing":
        return abstain(run_id, f"the measurement is missing: {row.error or ''}".strip())
    value = row.A
    if value is None or value == "undecidable" or value not in (0, 1, True, False):
        return abstain(run_id, f"the measurement gives no adoption value ({row.Z_S})")
    t_u = row.T_U
    step = t_u if isinstance(t_u, int) and not isinstance(t_u, bool) else None
    return Verdict(
        run_id=run_id, adopted=bool(value), t_u=step if value else None, reason="measurement row"
    )


class RulesOracle:
    """Today's measurement (``measurements.jsonl``)."""

    name = "rules"
    context = (
        "the run's measurement row: the operator rules over the model-visible ledger and the "
        "fault contract (the evaluator log only locates T_F; a clean run has no adoption)"
    )
    gives_adoption = True
    inputs = OracleInputs(
        numbered_trajectory=True,
        relation_contract=True,
        other="the run's measurement row (the operator rules; no model call)",
    )

    def judge(self, run: OracleContext) -> Verdict:
        """The measurement's A and T_U."""
        return verdict_from_row(run.run_id, run.measurement)

    def close(self) -> None:
        """Nothing to release."""
