"""The paper's primary sections: funnel (Table III a), arrival (Table IV), adoption
(Fig. 3), reliance (Fig. 4) and stance — all on one population, counts linked to runs.

Each function returns the page section and the tidy CSV rows of its table(s).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sscbench.analysis.populations import (
    ORDERS,
    PRIMARY,
    PRIMARY_ADOPTION,
    STANCES,
    STRATA,
    adopted_primary,
    gap_of,
)
from sscbench.analysis.sensitivity import interval_fields
from sscbench.core.definitions import T_U_WORDING, Y_END_WORDING, Z_S_WORDING
from sscbench.report import figures
from sscbench.report.model import Figure, RunSets, Section, Table, rate, text

Row = dict[str, Any]
NONE_WORDING = "'none' counts rows that carry no Y_end value at all."
FUNNEL = ("scheduled", "not_qualified", "missing", "observed", "not_triggered", "triggered",
          "no_use", "undecidable_use", "measurement_missing", "P")  # fmt: skip


def selection_notes(config: dict[str, Any]) -> list[str]:
    """The study's case and qualification selections, stated beside the funnel.

    ``[cases] prefer`` (e.g. early-trigger) chose which admitted cases run, and an agent
    with ``qualify = "completed"`` ran faulted runs after unsolved clean runs: neither
    may pass silently.
    """
    notes = []
    prefer = (config.get("cases") or {}).get("prefer")
    if prefer:
        also = (" and whose opening request needs a read before any write"
                if prefer == "read-first" else "")  # fmt: skip
        notes.append(f"Selection: cases.prefer = {prefer!r} — candidates whose fault-bearing "
                     f"call is an early natural call of the task{also} were screened first; "
                     "the cases are not a sample of all admissible candidates.")  # fmt: skip
    loose = [a["id"] for a in config.get("agents", []) if a.get("qualify") == "completed"]
    if loose:
        notes.append(f"Selection: agents {', '.join(loose)} qualify a faulted run by a "
                     "completed clean run (not reward 1, the paper's protocol).")  # fmt: skip
    return notes


def funnel_section(
    total: Row, by_operator: list[Row], sets: RunSets, folder: Path, notes: Sequence[str] = ()
) -> tuple[Section, list[Row]]:
    """Table III a: the primary execution funnel per operator and in total, n_Z/u_Z.

    ``notes`` are the study's selections (:func:`selection_notes`), shown as lines.
    """
    table = Table("funnel-table", "Execution funnel per operator (Table III a)", PRIMARY,
                  ["operator", *[k.replace("_", " ") for k in FUNNEL], "n_Z/u_Z", "controls in P"])  # fmt: skip
    csv_rows = []
    for entry in [*by_operator, total]:
        runs = entry["runs"]
        table.add(
            entry["operator"],
            *[sets.count(runs[k]) for k in FUNNEL],
            [*sets.count(runs["n_Z"]), {"t": "/"}, *sets.count(runs["u_Z"])],
            sets.count(runs["controls"]),
            key=entry["operator"],
        )
        csv_rows.append({"population": PRIMARY, "operator": entry["operator"],
                         **{k: entry[k] for k in (*FUNNEL, "n_Z", "u_Z", "controls")}})  # fmt: skip
    png = figures.funnel_figure(total, folder)
    section = Section(
        "funnel", "Execution funnel",
        intro=f"Population: {PRIMARY}. P holds triggered runs with a decidable first "
        "dependent use; n_Z/u_Z are decidable/undecidable arrival within P. "
        f"P = {total['P']} runs in total.",
        tables=[table],
        notes=[text(n) for n in notes],
        figures=[Figure("funnel", f"Primary funnel, n = {total['scheduled']} faulted runs.",
                        "bar chart of scheduled, observed, triggered and P runs", png)],
    )  # fmt: skip
    return section, csv_rows


def arrival_section(
    cells: list[Row], by_operator: list[Row], structures: dict[str, str], crossing: list[Row],
    sets: RunSets, folder: Path, *, repeated: int | None = None,
) -> tuple[Section, list[Row]]:  # fmt: skip
    """Table IV: pre/late/absent with n/k runs/entities per operator × configuration;
    co-delivered operators summarised in one line each; the groups crossing strata as
    k/n, n the groups with decidable arrival in more than one repetition (``repeated``)."""
    section = Section(
        "arrival",
        "Counterevidence arrival",
        intro=f"Population: {PRIMARY}; runs in P with decidable Z_S. n/k = runs/entities. "
        + Z_S_WORDING,
    )
    table = Table("arrival-table", "Arrival for acquisition-dependent operators (Table IV)",
                  PRIMARY, ["operator", "configuration", *STRATA, "decidable n/k", "u_Z"])  # fmt: skip
    csv_rows = []
    for entry in by_operator:
        op = entry["operator"]
        if structures.get(op) == "co-delivered":
            runs = entry["runs"]
            if entry["n_pre"] == entry["n_Z"]:
                words = "received valid counterevidence before first use (pre)"
            else:
                words = "are split " + ", ".join(f"{s} {entry[f'n_{s}']}" for s in STRATA)
            section.notes.append([{"t": f"{op} (co-delivered): all "}, *sets.count(runs["n_Z"]),
                                  {"t": f" evaluable runs, {entry['k_Z']} entities, {words}."}])  # fmt: skip
    for c in cells:
        runs = c["runs"]
        row_cells = [[*sets.count(runs[f"arrival_{s}"]), {"t": f"/{c[f'k_{s}']}"}] for s in STRATA]
        if structures.get(c["operator"]) != "co-delivered":
            table.add(c["operator"], c["config_id"], *row_cells,
                      [*sets.count(runs["n_Z"]), {"t": f"/{c['k_Z']}"}], sets.count(runs["u_Z"]))  # fmt: skip
        for s in STRATA:
            csv_rows.append({"population": PRIMARY, "operator": c["operator"],
                             "config_id": c["config_id"], "stratum": s, "runs": c[f"n_{s}"],
                             "entities": c[f"k_{s}"], **interval_fields(c[f"arrival_{s}"])})  # fmt: skip
    if table.rows:
        section.tables.append(table)
    n = len(crossing) if repeated is None else repeated
    share = f"{len(crossing)}/{n}"
    cross = Table(
        "crossing-table",
        f"Case–configuration groups whose arrival crosses strata across repetitions: {share}",
        f"faulted runs of every repetition with decidable Z_S; {share} of the groups with "
        "decidable arrival in more than one repetition",
        ["case", "configuration", "strata by repetition"],
    )
    for g in crossing:
        cross.add(
            g["case_id"], g["config_id"], ", ".join(f"r{k}: {v}" for k, v in g["strata"].items())
        )
    section.notes.append(
        text(
            f"{share} case–configuration groups with decidable arrival in more than one "
            "repetition cross arrival strata across repetitions."
        )
    )
    if crossing:
        section.tables.append(cross)
    png = figures.arrival_figure(cells, folder)
    n = sum(c["n_Z"] for c in cells)
    section.figures.append(Figure("arrival", f"Arrival per operator × configuration, n = {n} runs.",
                                  "stacked bars of pre, late and absent arrival shares", png))  # fmt: skip
    return section, csv_rows


def _stratum(c: Row, s: str, sets: RunSets) -> list[dict[str, str]]:
    iv = c[f"a_{s}"]
    if not iv.observed:
        return [{"t": "0/0/0 unobserved", "cls": "unobserved"}]
    runs = c["runs"]
    return [*rate(iv, sets, runs[f"a_{s}_adopted"], runs[f"a_{s}_evaluable"]),
            {"t": "; stratum total "}, *sets.count(runs[f"a_{s}_total"]),
            {"t": f"/{c[f'a_{s}_total_clusters']} clusters"}]  # fmt: skip


def adoption_section(
    cells: list[Row], pooled: list[Row], sets: RunSets, folder: Path
) -> tuple[Section, list[Row]]:
    """Fig. 3: A_T vs A_P per configuration; adoption per arrival stratum."""
    section = Section("adoption", "Adoption", intro=f"Population: {PRIMARY_ADOPTION}; A_T over "
                      "triggered runs. Empty strata read 0/0/0 unobserved.")  # fmt: skip
    overall = Table("adoption-table", "A_T and A_P per configuration (Fig. 3 a/c)",
                    PRIMARY_ADOPTION, ["operator", "configuration", "A_T", "A_P"])  # fmt: skip
    strata = Table("adoption-strata-table", "Adoption per arrival stratum (Fig. 3 b/d)",
                   PRIMARY_ADOPTION, ["operator", "configuration", *STRATA])  # fmt: skip
    csv_rows = []
    for c in [*cells, *pooled]:
        runs = c["runs"]
        overall.add(c["operator"], c["config_id"],
                    rate(c["A_T"], sets, runs["A_T_adopted"], runs["A_T_evaluable"]),
                    rate(c["A_P"], sets, runs["A_P_adopted"], runs["A_P_evaluable"]))  # fmt: skip
        strata.add(c["operator"], c["config_id"], *[_stratum(c, s, sets) for s in STRATA])
        for q in ("A_T", "A_P", *[f"a_{s}" for s in STRATA]):
            csv_rows.append({"population": PRIMARY_ADOPTION, "operator": c["operator"],
                             "config_id": c["config_id"], "quantity": q, **interval_fields(c[q])})  # fmt: skip
    section.tables += [overall, strata]
    png = figures.adoption_figure(cells, folder)
    section.figures.append(Figure("adoption", "Adoption per configuration and arrival stratum, "
                                  f"n = {sum(c['A_T'].denominator for c in cells)} triggered runs.",
                                  "interval plots of A_T, A_P and adoption per stratum", png))  # fmt: skip
    return section, csv_rows


def reliance_section(
    primary: list[Row], cells: list[Row], pooled: list[Row], sets: RunSets, folder: Path
) -> tuple[Section, list[Row], list[Row]]:
    """Fig. 4: signed gap T_U − T_E and q_U per configuration with a pooled estimate."""
    section = Section(
        "reliance",
        "Arrival relative to first faulty reliance",
        intro=f"Population: adopted runs of {PRIMARY_ADOPTION}. q_U = P(T_E < T_U | A = 1). "
        + T_U_WORDING,
    )
    gaps: dict[str, list[int | str]] = {}
    gap_runs: dict[tuple[str, str], list[str]] = {}
    adopted: dict[str, int] = {}
    for r in adopted_primary(primary):
        adopted[r["operator"]] = adopted.get(r["operator"], 0) + 1
        g = gap_of(r)
        if g is not None:
            gaps.setdefault(r["operator"], []).append(g)
            gap_runs.setdefault((r["operator"], str(g)), []).append(r["run_id"])
    table = Table("reliance-table", "q_U per configuration and pooled (Fig. 4 b/d)",
                  PRIMARY_ADOPTION, ["operator", "configuration", "q_U before/n_q", "k_q",
                                     "u_q", "T_S ≤ T_E < T_U"])  # fmt: skip
    csv_rows = []
    for c in [*cells, *pooled]:
        runs = c["runs"]
        table.add(c["operator"], c["config_id"],
                  rate(c["q_U"], sets, runs["q_U_before"], runs["q_U_ordered"]),
                  c["q_U"].n_clusters, sets.count(runs["q_U_undecidable"]),
                  sets.count(runs["between_anchors"]))  # fmt: skip
        csv_rows.append({"population": PRIMARY_ADOPTION, "operator": c["operator"],
                         "config_id": c["config_id"], "quantity": "q_U",
                         "u_q": c["q_U_undecidable"], "between_anchors": c["between_anchors"],
                         **interval_fields(c["q_U"])})  # fmt: skip
    gap_table = Table(
        "gap-table",
        "Signed gap T_U − T_E among adopted runs (Fig. 4 a/c)",
        PRIMARY_ADOPTION,
        ["operator", "gap", "runs", "share of adopted runs"],
    )
    gap_rows = []
    for (op, g), ids in sorted(
        gap_runs.items(),
        key=lambda kv: (kv[0][0], kv[0][1] == "inf", int(kv[0][1]) if kv[0][1] != "inf" else 0),
    ):
        share = f"{len(ids)}/{adopted[op]} ({len(ids) / adopted[op]:.0%})"
        gap_table.add(op, "∞ (absent)" if g == "inf" else g, sets.count(ids), share)
        gap_rows.append(
            {
                "population": PRIMARY_ADOPTION,
                "operator": op,
                "gap": g,
                "runs": len(ids),
                "adopted": adopted[op],
            }
        )
    section.tables += [table, gap_table]
    by_op = {c["operator"]: c for c in pooled}
    png = figures.reliance_figure(gaps, cells, by_op, folder, adopted)
    each = ", ".join(f"{op} n = {k}" for op, k in sorted(adopted.items()))
    caption = (
        f"Signed gap and q_U per operator, n = {sum(adopted.values())} adopted runs"
        f"{f' ({each})' if each else ''}; bar heights are shares of the operator's n "
        "adopted runs, labelled k/n."
    )
    section.figures.append(
        Figure("reliance", caption, "bar charts of the signed gap and interval plots of q_U", png)
    )
    return section, csv_rows, gap_rows


ORDER_WORDS = {
    "before": "T_E < T_U",
    "after": "T_E ≥ T_U",
    "absent": "T_E = ∞",
    "undecidable": "order undecidable",
}
NOT_REPAIR = (
    "Stance is not repair: Y_end says whether the agent still endorses the faulty "
    "assertion at the end of observation; it is no evidence that an earlier external "
    "effect (a write or action taken under the fault) was undone."
)


def stance_section(cells: list[Row], sets: RunSets) -> tuple[Section, list[Row]]:
    """Y_end (final stance toward the fault) of adopted runs by arrival stratum, each
    stratum cut by whether counterevidence preceded the first faulty reliance (T_E < T_U,
    as in RQ3); the section says that stance is not repair."""
    table = Table(
        "stance-table",
        "Y_end of adopted runs by arrival stratum and T_E < T_U",
        PRIMARY_ADOPTION,
        ["operator", "configuration", "stratum", "T_E vs T_U", *STANCES],
    )
    csv_rows = []
    for c in cells:
        for s, order in ((s, o) for s in STRATA for o in ORDERS):
            keys = [f"Y_end_{s}_{order}_{y}" for y in STANCES]
            counts = [c[k] for k in keys]
            if not any(counts):
                continue
            where = [c["operator"], c["config_id"], s, ORDER_WORDS[order]]
            table.add(*where, *[sets.count(c["runs"][k]) for k in keys])
            csv_rows.append(
                {
                    "population": PRIMARY_ADOPTION,
                    **dict(
                        zip(("operator", "config_id", "stratum", "T_E_vs_T_U"), where, strict=True)
                    ),
                    **dict(zip(STANCES, counts, strict=True)),
                }
            )
    section = Section(
        "stance",
        "Final stance",
        intro=f"Population: adopted runs of {PRIMARY_ADOPTION}. {Y_END_WORDING} {NONE_WORDING} "
        "Rows cut each stratum by where counterevidence stood at the first faulty reliance: "
        "T_E < T_U (before), T_E ≥ T_U (at or after), T_E = ∞.",
        tables=[table],
        notes=[text(NOT_REPAIR)],
    )
    if not table.rows:
        section.reason = "no adopted run in the primary population"
    return section, csv_rows
