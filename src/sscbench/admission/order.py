"""The frozen candidate order: one deterministic ranking of valid candidates, stored.

Admission screens valid candidates in this order until the target count is admitted,
and a case rejected in semantic review is replaced by the next admissible candidate of
the *same* order. The order cycles through entity clusters (the first candidate of each
cluster, then the second, ...), each cluster sorted by the candidates' stable rank;
under a case preference (``[cases] prefer``) the preferred candidates come first, each
group cycled alike. Only the world and the tasks decide it, never an agent's outcome.

``sscbench admit`` stores it as ``order.jsonl``, one line per valid candidate::

    {"operator": "ItemOption", "rank": 1, "candidate_id": "...", "cluster": "..."}

``rank`` counts from 1 per operator. A later ``sscbench admit --order order.jsonl``
follows the stored order and refuses one that no longer matches the world's valid
candidates (the file, the operator and the difference are named).
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from sscbench.admission.prefer import Preference, preferred_first
from sscbench.errors import DataError
from sscbench.faults.case import Candidate
from sscbench.json_types import JsonObject
from sscbench.jsonl import read_lines
from sscbench.reading import loads_json
from sscbench.world.world import World


def cluster_cycle(candidates: list[Candidate]) -> list[Candidate]:
    """Frozen order that cycles through entity clusters: the first of each, then the second..."""
    clusters: OrderedDict[str, list[Candidate]] = OrderedDict()
    for candidate in sorted(candidates, key=lambda c: c.rank):
        clusters.setdefault(candidate.cluster, []).append(candidate)
    out: list[Candidate] = []
    depth = 0
    while len(out) < len(candidates):
        for members in clusters.values():
            if depth < len(members):
                out.append(members[depth])
        depth += 1
    return out


def frozen_order(
    valid: list[Candidate], world: World, prefer: Preference | None = None
) -> tuple[list[Candidate], int]:
    """The screening order of ``valid`` candidates and how many the preference puts first."""
    if prefer is None:
        return cluster_cycle(valid), 0
    chosen, preferred = preferred_first(valid, world, prefer)
    return cluster_cycle(chosen[:preferred]) + cluster_cycle(chosen[preferred:]), preferred


def order_rows(order: list[Candidate]) -> list[JsonObject]:
    """The order as ``order.jsonl`` lines (rank from 1)."""
    return [
        {"operator": c.operator, "rank": rank, "candidate_id": c.candidate_id, "cluster": c.cluster}
        for rank, c in enumerate(order, start=1)
    ]


def _row(path: Path, number: int, text: str) -> tuple[str, int, str]:
    try:
        row = loads_json(text)
    except ValueError as exc:
        raise DataError(path, f"line {number}", f"not JSON: {exc}") from exc
    if not isinstance(row, dict):
        raise DataError(path, f"line {number}", "must be a JSON object")
    for key, kind in (("operator", str), ("rank", int), ("candidate_id", str)):
        value = row.get(key)
        if not isinstance(value, kind) or isinstance(value, bool) or value == "":
            raise DataError(path, f"line {number}, {key}", f"must be a {kind.__name__}")
    return row["operator"], row["rank"], row["candidate_id"]


def read_order(path: str | Path) -> dict[str, list[str]]:
    """A stored order: candidate ids per operator, by rank (ranks must run 1, 2, ...)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, None, "not found: the frozen order `sscbench admit` wrote")
    out: dict[str, list[str]] = {}
    for number, text in enumerate(read_lines(path), start=1):
        if not text.strip():
            continue
        operator, rank, candidate_id = _row(path, number, text)
        ids = out.setdefault(operator, [])
        if rank != len(ids) + 1:
            raise DataError(
                path, f"line {number}, rank", f"{operator} rank {rank} follows {len(ids)}"
            )
        ids.append(candidate_id)
    return out


def follow_stored(
    path: str | Path, operator: str, valid: list[Candidate], stored: list[str]
) -> list[Candidate]:
    """``valid`` in the stored order, refused unless both hold the same candidates."""
    by_id = {c.candidate_id: c for c in valid}
    missing = [cid for cid in stored if cid not in by_id]
    extra = [cid for cid in by_id if cid not in set(stored)]
    if missing or extra:
        first = (missing or extra)[0]
        raise DataError(
            path,
            operator,
            f"the stored order does not match the world's valid candidates "
            f"({len(missing)} stored but not valid, {len(extra)} valid but not stored; "
            f"first: {first}); the world or the operator changed",
        )
    return [by_id[cid] for cid in stored]


__all__ = ["cluster_cycle", "follow_stored", "frozen_order", "order_rows", "read_order"]
