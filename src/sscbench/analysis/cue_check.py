"""The read-back-cue paired check: adoption, read-back and pre-use arrival on matched runs.

Two studies that differ in one interface feature (the paper: write tools that ask to
read the record back, ``[world] read_back_cue``) are matched on (case, configuration,
repetition), as in :func:`sscbench.analysis.sensitivity.paired_comparison`. For each
operator and configuration (and all configurations together) three 0/1 quantities are
compared pair by pair, each with McNemar's exact test on its discordant pairs:

* ``adoption`` — A = 1;
* ``read_back`` — the agent read the affected record back before its first dependent
  use (``read_back_step`` < T_S; with no use, any read-back counts); undecidable when
  T_S is;
* ``pre_arrival`` — Z_S = pre (T_E < T_S); undecidable when Z_S is.

Every value comes from the measurement rows (the model-visible ledger), never from the
study's configuration: the cue can only matter through what the agent did. A pair
whose quantity is undecidable (or was not measured: rows written before
``read_back_step`` existed) in either study is left out of that quantity's pairs and
counted as ``undecided_pairs``.

Each share (k/n in study a, and in study b) carries its interval by the project's one
rule (:func:`~sscbench.analysis.stats.proportion_interval`): clustered where one of
its clusters gives more than one decided run — a case in several configurations, in the
"all configurations" rows — and Wilson where every cluster gives one. The tidy columns
are ``a_numerator``, ``a_denominator``, ``a_clusters``, ``a_estimate``, ``a_low``,
``a_high``, ``a_method`` (and ``a_caveats``), the same for b, and ``a`` / ``b`` the
interval labels.
"""

from __future__ import annotations

from sscbench.analysis.claims import POOLED
from sscbench.analysis.mcnemar import mcnemar_exact, p_label
from sscbench.analysis.populations import faulted_rows, interval_label
from sscbench.analysis.stats import Interval, proportion_interval
from sscbench.core.values import INF, Stratum
from sscbench.json_types import JsonObject
from sscbench.study.rows import MeasurementRow

Row = JsonObject
Key = tuple[str, str, int]

QUANTITIES = ("adoption", "read_back", "pre_arrival")
ALL_CONFIGS = POOLED  # the pooled row, named as in every other table
DECIDED_ARRIVAL = {Stratum.PRE, Stratum.LATE, Stratum.ABSENT, Stratum.NO_USE}

__all__ = ["ALL_CONFIGS", "QUANTITIES", "cue_check_table", "quantity", "share_fields"]


def quantity(row: MeasurementRow, name: str) -> int | None:
    """One pair member's 0/1 value of ``name`` (see the module), or None when undecidable."""
    if name == "adoption":
        return row.A if row.A in (0, 1) else None
    if name == "pre_arrival":
        z_s = row.Z_S
        return int(z_s == Stratum.PRE) if z_s in DECIDED_ARRIVAL else None
    if name != "read_back":
        raise ValueError(f"unknown cue-check quantity {name!r}")
    read, t_s = row.read_back_step, row.T_S
    if read == INF:
        return 0
    if not isinstance(read, int) or isinstance(read, bool):
        return None  # not measured
    if t_s == INF:
        return 1
    return int(read < t_s) if isinstance(t_s, int) else None


def _matched(rows: list[MeasurementRow], all_repetitions: bool) -> dict[Key, MeasurementRow]:
    """Completed triggered faulted runs with decidable adoption, by (case, config, rep);
    repetition 0 without controls unless ``all_repetitions``."""
    return {
        (r.case_id, r.config_id, r.repetition): r
        for r in faulted_rows(rows)
        if r.status == "completed"
        and r.triggered
        and r.A in (0, 1)
        and (all_repetitions or (r.repetition == 0 and not r.control))
    }


def cue_check_table(
    a: list[MeasurementRow], b: list[MeasurementRow], *, all_repetitions: bool = False
) -> list[Row]:
    """Tidy rows, one per operator × configuration (and :data:`ALL_CONFIGS`) × quantity:
    matched pairs, the pairs decided for the quantity, the share in a and in b with its
    interval (clusters from each study's rows), the discordant pairs and McNemar's exact p."""
    left, right = _matched(a, all_repetitions), _matched(b, all_repetitions)
    keys = sorted(set(left) & set(right))
    groups: dict[tuple[str, str], list[Key]] = {}
    for k in keys:
        operator = left[k].operator or "?"
        groups.setdefault((operator, k[1]), []).append(k)
        groups.setdefault((operator, ALL_CONFIGS), []).append(k)
    out = []
    for (operator, config_id), members in sorted(groups.items(), key=_group_order):
        for name in QUANTITIES:
            values = {k: (quantity(left[k], name), quantity(right[k], name)) for k in members}
            decided: dict[Key, tuple[int, int]] = {
                k: (x, y) for k, (x, y) in values.items() if x is not None and y is not None
            }
            shares = {
                "a": _share([x for x, _ in decided.values()], [left[k] for k in decided]),
                "b": _share([y for _, y in decided.values()], [right[k] for k in decided]),
            }
            out.append(
                _row(operator, config_id, name, len(members), list(decided.values()), shares)
            )
    return out


def _share(values: list[int], rows: list[MeasurementRow]) -> Interval:
    """The share of 1s among one study's decided pair members, clustered by its rows."""
    return proportion_interval(values, [r.cluster for r in rows])


def share_fields(side: str, interval: Interval) -> Row:
    """One study's share as tidy columns prefixed ``a_`` / ``b_``, and its label."""
    return {
        side: interval_label(interval),
        f"{side}_numerator": interval.numerator,
        f"{side}_denominator": interval.denominator,
        f"{side}_clusters": interval.n_clusters,
        f"{side}_estimate": interval.estimate,
        f"{side}_low": interval.low,
        f"{side}_high": interval.high,
        f"{side}_method": interval.method,
        f"{side}_caveats": ", ".join(interval.caveats),
    }


def _group_order(item: tuple[tuple[str, str], list[Key]]) -> tuple[str, bool, str]:
    (operator, config_id), _ = item
    return (operator, config_id == ALL_CONFIGS, config_id)


def _row(operator: str, config_id: str, name: str, pairs: int, decided: list, shares: dict) -> Row:
    n = len(decided)
    only_a = sum(1 for x, y in decided if x == 1 and y == 0)
    only_b = sum(1 for x, y in decided if x == 0 and y == 1)
    p, note = mcnemar_exact(only_a, only_b) if n else (None, "")
    return {
        "operator": operator,
        "config_id": config_id,
        "quantity": name,
        "pairs": pairs,
        "decided_pairs": n,
        "undecided_pairs": pairs - n,
        **share_fields("a", shares["a"]),
        **share_fields("b", shares["b"]),
        "only_in_a": only_a,
        "only_in_b": only_b,
        "mcnemar_exact_p": p,
        "mcnemar_note": note,
        "mcnemar": p_label(p, note),
    }
