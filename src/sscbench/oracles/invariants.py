"""The ``invariants`` oracle: database invariants mined from clean runs of the same task
(the paper's L-DB setting; no LLM).

Mining reads the clean runs' final database states: each clean run's ledger is
replayed call by call in a fresh env of the world (a replay whose observations stop
matching the ledger is dropped), and for every record an observation can show two
kinds of invariant are kept, field by field (a field is a leaf path in the record):

* ``unchanged`` — the value in the initial state and in every clean final state is the
  same: no point of a correct execution shows another value;
* ``cross-record`` — a value that agrees with another table's record in the initial
  state and in every clean final state (an order item's options and its product
  variant's; see :mod:`sscbench.oracles.cross_record`);
* ``final`` — the field is changed by the task, and every clean run ends with the same
  value: once the run has made its last write call, what it shows of the field should
  be that value.

Checking reads only what the judged run's agent saw: each tool observation that is a
record (matched by the call's arguments or the record's own id field and by its field
names) is compared with the invariants. An ``unchanged`` violation is found at the
first observation showing another value; a ``final`` violation at the first observation
after the run's last write call (the state is final from there on) that shows another
value. Any violation is a positive verdict at
the first violating step; none is a negative. With no usable clean run of the task
the oracle abstains.
"""

from __future__ import annotations

from dataclasses import dataclass

from sscbench.core.ledger import LedgerEvent
from sscbench.core.view import LedgerView
from sscbench.oracles.base import CleanRun, OracleContext, Verdict, abstain
from sscbench.oracles.cross_record import instances, mine_relations
from sscbench.oracles.inputs import OracleInputs
from sscbench.oracles.records import (
    Path,
    RecordKey,
    leaves,
    observed_records,
    path_text,
    replay_final_state,
)
from sscbench.world.state import WorldState
from sscbench.world.tools import ToolKind
from sscbench.world.world import World


@dataclass(frozen=True)
class Invariants:
    """The invariants of one record: field path → the value it must show."""

    unchanged: dict[Path, object]
    final: dict[Path, object]
    relations: frozenset = frozenset()

    @property
    def size(self) -> int:
        """Number of invariants."""
        return len(self.unchanged) + len(self.final) + len(self.relations)


def mine(record: RecordKey, states: list[WorldState]) -> Invariants:
    """The invariants of one record from the initial state and the clean final states."""
    table, key = record
    initial = WorldState(states[0].base)
    base, finals = initial.get(table, key), [s.get(table, key) for s in states]
    final_leaves = [dict(leaves(f)) if f is not None else {} for f in finals]
    base_leaves = dict(leaves(base)) if base is not None else {}
    paths = set.intersection(*(set(f) for f in final_leaves)) if final_leaves else set()
    unchanged, final = {}, {}
    for path in paths:
        values = [f[path] for f in final_leaves]
        if any(v != values[0] for v in values[1:]):
            continue
        if path in base_leaves and base_leaves[path] == values[0]:
            unchanged[path] = values[0]
        else:
            final[path] = values[0]
    relations = frozenset(mine_relations(table, key, [initial, *states]))
    return Invariants(unchanged, final, relations)


@dataclass(frozen=True)
class Violation:
    """One invariant an observation contradicts."""

    step: int
    record: RecordKey
    path: Path
    kind: str
    observed: object
    expected: object

    def text(self) -> str:
        """A one-line description."""
        table, key = self.record
        return (
            f"{self.kind} invariant {table}/{key} {path_text(self.path)}: observed "
            f"{self.observed!r} at step {self.step}, every clean run has {self.expected!r}"
        )


def violations(
    ledger: list[LedgerEvent], states: list[WorldState], write_tools: set[str]
) -> tuple[list[Violation], int]:
    """The violations the judged ledger shows, in step order, and how many invariants
    were checked (``write_tools``: the names of the world's tools that may write)."""
    cache: dict[RecordKey, Invariants] = {}
    found: list[Violation] = []
    final_seen: set[tuple[RecordKey, Path]] = set()
    view = LedgerView(ledger)
    last_write = max((c.call_step for c in view.calls if c.name in write_tools), default=-1)
    for call in view.calls:
        if call.observation_step is None:
            continue
        for record in observed_records(call, states):
            if record not in cache:
                cache[record] = mine(record, states)
            rules = cache[record]
            if rules.relations:
                initial = WorldState(states[0].base)
                for relation, path, mine_value, theirs in instances(record[0], call.data, initial):
                    if relation in rules.relations and mine_value != theirs:
                        found.append(
                            Violation(
                                call.observation_step,
                                record,
                                path,
                                f"cross-record ({relation[4]})",
                                mine_value,
                                theirs,
                            )
                        )
            for path, value in leaves(call.data):
                if path in rules.unchanged and rules.unchanged[path] != value:
                    found.append(
                        Violation(
                            call.observation_step,
                            record,
                            path,
                            "unchanged",
                            value,
                            rules.unchanged[path],
                        )
                    )
                if path in rules.final and call.observation_step > last_write:
                    if (record, path) not in final_seen and rules.final[path] != value:
                        found.append(
                            Violation(
                                call.observation_step,
                                record,
                                path,
                                "final",
                                value,
                                rules.final[path],
                            )
                        )
                    final_seen.add((record, path))
    found.sort(key=lambda v: (v.step, v.kind, path_text(v.path)))
    return found, sum(r.size for r in cache.values())


class InvariantOracle:
    """Invariants mined from clean final states; a violation is a positive verdict."""

    name = "invariants"
    context = (
        "database invariants mined from the final states of the clean runs of the same "
        "task (replayed in a fresh env), checked against the run's tool observations"
    )
    gives_adoption = True
    inputs = OracleInputs(
        numbered_trajectory=True,
        mined_invariants=True,
        other="the clean runs of the same task, replayed in a fresh env (no model call)",
        answer="invariant violations (any violation = adopted; T_U = first violation's step)",
        paper="B5 (L-DB)",
    )

    def __init__(self) -> None:
        self._finals: dict[str, WorldState | None] = {}

    def _final(self, world: World, clean: CleanRun) -> WorldState | None:
        if clean.run_id not in self._finals:
            self._finals[clean.run_id] = replay_final_state(world, clean.ledger)
        return self._finals[clean.run_id]

    def judge(self, run: OracleContext) -> Verdict:
        """Positive at the first violating observation, negative when none violates."""
        if run.world is None:
            return abstain(run.run_id, "no world to replay the clean runs in")
        if not run.clean_runs:
            return abstain(run.run_id, "no clean run of this task to mine invariants from")
        states = [s for c in run.clean_runs if (s := self._final(run.world, c)) is not None]
        if not states:
            return abstain(run.run_id, "no clean run of this task replays faithfully")
        writes = {n for n, spec in run.world.tools.specs.items() if spec.kind is ToolKind.WRITE}
        found, checked = violations(run.ledger, states, writes)
        if found:
            first = found[0]
            more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
            return Verdict(
                run_id=run.run_id, adopted=True, t_u=first.step, reason=first.text() + more
            )
        return Verdict(
            run_id=run.run_id,
            adopted=False,
            reason=f"no violation of {checked} invariants from {len(states)} clean runs",
        )

    def close(self) -> None:
        """Drop the replayed states."""
        self._finals.clear()
