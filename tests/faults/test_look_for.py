"""Operators declare what to look for, not how to find it (docs/writing-an-operator.md,
"What to look for"): each operator's ``extract_uses`` builds its kind's description
(``look_for(contract)``, a frozen dataclass of :mod:`sscbench.references.lookfor`) and
hands it, with the ledger, to the kind's one entry point in :mod:`sscbench.references`;
no operator module imports the readers of text themselves."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import sscbench.faults.operators as operators_package
from sscbench.core.view import LedgerView
from sscbench.faults.operators import SSCBENCH_OPERATORS
from sscbench.references import lookfor
from sscbench.world.world import World

OPERATORS_DIR = Path(operators_package.__file__).parent
# what an operator module may import of references: the descriptions, the entry points,
# τ-bench's calendar and JSON-argument test, the cue words its use rules read, and the
# record helpers its hooks and counterevidence share with the readers
ALLOWED = {
    "sscbench.references.lookfor",
    "sscbench.references.return_date_uses",
    "sscbench.references.payment_uses",
    "sscbench.references.item_uses",
    "sscbench.references.write_uses",
    "sscbench.references.values",
    "sscbench.references.cues",
    "sscbench.references.return_date_text",  # split_legs: a record's outbound / return legs
    "sscbench.references.write_derived",  # matches, legs: one logical request
    "sscbench.references.write_text",  # SUCCESS: the classifier's success words
}
ENTRY_POINTS = {
    "ReturnDate": ("return_date", "find_return_date_uses", lookfor.ReturnDateLookFor),
    "PaySource": ("pay_source", "find_payment_uses", lookfor.PaymentLookFor),
    "ItemOption": ("item_option", "find_item_option_uses", lookfor.ItemOptionLookFor),
    "WriteEffect": ("write_effect", "find_write_effect_uses", lookfor.WriteEffectLookFor),
}


def _references_imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sscbench.ref"):
            out.add(str(node.module))
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("sscbench.references")}
    return out


@pytest.mark.parametrize("path", sorted(OPERATORS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_no_operator_module_imports_a_reader_of_text(path: Path) -> None:
    assert _references_imported(path) <= ALLOWED


def test_every_builtin_operator_has_an_entry_point() -> None:
    assert {op.name for op in SSCBENCH_OPERATORS} == set(ENTRY_POINTS)


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_extract_uses_hands_the_description_to_the_entry_point(
    name: str, generated_worlds: dict[str, World], monkeypatch: pytest.MonkeyPatch
) -> None:
    operator = next(op for op in SSCBENCH_OPERATORS if op.name == name)()
    world = generated_worlds[operator.domain]
    candidate = next(c for c in operator.enumerate(world) if not operator.validate(c, world))
    contract = operator.contract(candidate, world)
    module, entry, kind = ENTRY_POINTS[name]
    received = []

    def entry_point(look_for: object, view: LedgerView, fault_step: int) -> list[object]:
        received.append((look_for, view, fault_step))
        return []

    monkeypatch.setattr(f"sscbench.faults.operators.{module}.{entry}", entry_point)
    view = LedgerView([])
    assert operator.extract_uses(contract, view, 3) == []
    ((look_for, seen_view, step),) = received
    assert isinstance(look_for, kind) and dataclasses.is_dataclass(look_for)
    assert look_for == operator.look_for(contract)
    assert seen_view is view and step == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        look_for.injected = "changed"  # type: ignore[misc]
