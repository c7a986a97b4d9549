"""The ``paired`` section's read-back-cue table (:mod:`sscbench.analysis.cue_check`).

Per operator and configuration, and all configurations together: adoption, read-back
before first use and pre-use arrival in study a and in study b on matched pairs, each
share with its interval (clustered or Wilson, caveats marked), the discordant pairs and
McNemar's exact p. The caption says which study had the cue, read
from each study's recorded config (``[world] read_back_cue``); the counts themselves
come from the measurement rows only.
"""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.analysis.cue_check import ALL_CONFIGS
from sscbench.json_types import JsonMapping
from sscbench.report.entries import Entry, text_at
from sscbench.report.model import Table, label_cell

QUANTITY_TEXT = {
    "adoption": "adoption (A = 1)",
    "read_back": "read-back before first use",
    "pre_arrival": "pre-use arrival (Z_S = pre)",
}
COLUMNS = [
    "operator",
    "configuration",
    "quantity",
    "pairs",
    "a",
    "b",
    "only in a",
    "only in b",
    "McNemar p",
]


def read_back_cue(record: JsonMapping) -> bool | None:
    """A study's recorded ``[world] read_back_cue`` (``record``: its config.json, see
    :attr:`sscbench.study.study.Study.record`), or None when it has none readable."""
    config = record.get("config")
    world = config.get("world", {}) if isinstance(config, dict) else None
    return bool(world.get("read_back_cue", False)) if isinstance(world, dict) else None


def _cue_words(flag: bool | None) -> str:
    """How a study stood as to the cue."""
    return {True: "with the cue", False: "without the cue", None: "cue unknown"}[flag]


def cue_caption(a: bool | None, b: bool | None) -> str:
    """What study a and study b were, as to the read-back cue."""
    text = f"study a {_cue_words(a)}, study b {_cue_words(b)}"
    if a is not None and a == b:
        text += " (the two studies do not differ in the cue)"
    return text


def cue_table(rows: Sequence[Entry], cue_a: bool | None, cue_b: bool | None) -> Table:
    """The read-back-cue table: one row per operator × configuration × quantity;
    ``cue_a`` and ``cue_b`` say whether each study had the cue (:func:`read_back_cue`)."""
    table = Table(
        "read-back-cue-table",
        "Read-back-cue check: adoption, read-back and pre-use arrival in matched pairs, "
        f"by configuration ({cue_caption(cue_a, cue_b)})",
        "repetition 0, controls excluded, matched triggered runs with decidable adoption; "
        "a quantity's n leaves out pairs it is undecidable for; each share's interval is "
        "clustered by case when a case gives more than one run, Wilson otherwise",
        COLUMNS,
    )
    for r in rows:
        config = "all configurations" if r["config_id"] == ALL_CONFIGS else r["config_id"]
        table.add(
            r["operator"],
            config,
            QUANTITY_TEXT[text_at(r, "quantity")],
            r["pairs"],
            label_cell(text_at(r, "a")),
            label_cell(text_at(r, "b")),
            r["only_in_a"],
            r["only_in_b"],
            r["mcnemar"],
        )
    table.notes.append(
        "Read-back: the agent read the affected record (a tool of the contract's "
        "acquisition routes, naming the record) after the fault and before its first "
        "dependent use, whatever the read showed; with no use, any read-back counts."
    )
    return table
