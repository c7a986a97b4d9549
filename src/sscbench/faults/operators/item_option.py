"""ItemOption (retail): an order read shows one ordered item with another option value.

The substituted value is an existing option of the same product, so the faulted item
reads like another real variant. The product record refutes it only once the visible
execution has bound the order item to its variant (the item id in a delivered order
record); a product record seen before the binding completes the relation at the binding.
"""

from __future__ import annotations

from typing import Any

from sscbench.core.injection import Injection
from sscbench.core.values import INF, ClassifiedUse, Evidence, Step, UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.case import Candidate, Case
from sscbench.faults.contract import AcquisitionRoute, FaultContract, Sufficiency, Target
from sscbench.faults.family import family_spec
from sscbench.faults.operators.base import ReadFaultOperator, ScriptedTurn, UserParams
from sscbench.faults.operators.item_variants import (
    labelled_option_evidence,
    one_option_neighbours,
)
from sscbench.faults.operators.uses import classify_value_use
from sscbench.faults.typed import Checkpoint, Semantics, Surface, Timing
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.references.item_uses import find_item_option_uses
from sscbench.references.lookfor import ItemOptionLookFor
from sscbench.world.task import Task
from sscbench.world.world import World

READ = "get_order_details"
PRODUCT = "get_product_details"
ITEM_ARGS = ("item_ids", "new_item_ids")


class ItemOptionParams(UserParams):
    """An ordered item (``item_index`` in its order), its product and options, and the
    substitution: another variant (``injected_variant``) differing in one ``option``
    (absent when the product has no such variant: the candidate is then invalid)."""

    order_id: str
    item_id: str
    item_index: int
    product_id: str
    product_name: str
    options: dict[str, JsonValue]
    option: str | None = None
    true_value: JsonValue = None
    injected_value: JsonValue = None
    injected_variant: str | None = None
    injected_options: dict[str, JsonValue] | None = None


class ItemOption(ReadFaultOperator[ItemOptionParams]):
    """Substitute another existing option value of the same product for one ordered item."""

    name = "ItemOption"
    spec = family_spec(
        name=name,
        surface=Surface.TOOL,
        timing=Timing.DURING_EXECUTION,
        semantics=Semantics.CORRUPTION,
        entry_checkpoint=Checkpoint.CONTEXT,
        description="an order item's options are misreported; the product record bound "
        "by item id refutes them",
        expected_barrier="product lookup by item id",
        safe_response="look the item up before stating or exchanging its options",
        recoverable=True,
        severity=3,
    )
    params_model = ItemOptionParams
    early_target_argument = "order_id"

    def params(self, owner: Case | Candidate) -> ItemOptionParams:
        """The parameters of an ItemOption case or candidate."""
        return owner.params.as_model(ItemOptionParams)

    def calibration_fact(self, case: Case) -> str:
        """The calibration-label key of the order item's options."""
        p = self.params(case)
        return f"order:{p.order_id}:item:{p.item_id}:options"

    def labelled_evidence(self, case: Case, labels: JsonMapping, t_f: int) -> Step:
        """T_E from the labels: a later order read, or an order read with the product's."""
        p = self.params(case)
        return labelled_option_evidence(p.order_id, p.product_id, labels, t_f)

    domain = "retail"
    structure = "cross-record"
    default_max_steps = 30
    paper_candidates = 203
    read_tool = READ
    basis = "the product record's variant with the item's id"

    def enumerate(self, world: World) -> list[Candidate]:
        """(task, order item) for every item a test-split task's ground truth acts on."""
        orders = world.base.tables["orders"]
        out: list[Candidate] = []
        # τ-bench's retail world has train and dev splits too; the paper's frame is the test split
        tasks = [t for t in world.tasks if t.task_id.startswith("test/")] or world.tasks
        for task in tasks:
            seen: set[tuple[str, str]] = set()
            for action in task.actions:
                oid = action.kwargs.get("order_id")
                if not isinstance(oid, str) or orders.get(oid) is None:
                    continue
                for item_id in action.kwargs.get("item_ids") or []:
                    if (oid, item_id) in seen:
                        continue
                    seen.add((oid, item_id))
                    found = self._candidate(world, task, oid, item_id, len(out))
                    if found is not None:
                        out.append(found)
        return out

    def _candidate(
        self, world: World, task: Task, oid: str, item_id: str, rank: int
    ) -> Candidate | None:
        """The candidate of one ordered item (None when the order has no such item)."""
        order = world.base.tables["orders"][oid]
        index = next((i for i, it in enumerate(order["items"]) if it["item_id"] == item_id), None)
        if index is None:
            return None
        item = order["items"][index]
        product = world.base.tables["products"].get(item["product_id"], {})
        neighbours = one_option_neighbours(product, item_id)
        params: dict[str, Any] = {
            "user_id": task.user_id,
            "order_id": oid,
            "item_id": item_id,
            "item_index": index,
            "product_id": item["product_id"],
            "product_name": item.get("name", ""),
            "options": item.get("options", {}),
        }
        control = False
        if neighbours:
            variant, key, value = neighbours[0]
            injected = {**item["options"], key: value}
            params.update(
                option=key,
                true_value=item["options"][key],
                injected_value=value,
                injected_variant=variant,
                injected_options=injected,
            )
            targets = {n for a in task.actions for n in a.kwargs.get("new_item_ids") or []}
            control = variant in targets
        return Candidate(
            candidate_id=f"{world.source}/retail:{task.task_id}:{self.name}:{oid}:{item_id}",
            operator=self.name,
            world=world.source,
            domain="retail",
            task_id=task.task_id,
            cluster=f"{oid}:{item_id}",
            rank=rank,
            params=ItemOptionParams.model_validate(params),
            control=control,
        )

    def validate(self, candidate: Candidate, world: World) -> list[str]:
        """The injected options must be another real variant of the same product."""
        p = self.params(candidate)
        if p.injected_options is None:
            return ["no other variant of the product differs in exactly one option"]
        product = world.base.tables["products"].get(p.product_id)
        if product is None:
            return ["product does not exist"]
        variants = product.get("variants", {})
        reasons = []
        if p.item_id not in variants:
            reasons.append("ordered item is not a variant of its product")
        matching = [v for v, spec in variants.items() if spec.get("options") == p.injected_options]
        if not matching:
            reasons.append("ItemOption value is no variant of the product")
        elif p.item_id in matching:
            reasons.append("injected options equal the item's own options")
        if set(p.injected_options) != set(p.options):
            reasons.append("injected options change the option keys")
        return reasons

    # ---- the contract and the hook (built by ReadFaultOperator) -------------------------
    def read_match(self, p: ItemOptionParams) -> tuple[str, str]:
        """The order read."""
        return "order_id", p.order_id

    def subject(self, p: ItemOptionParams) -> str:
        """The user names the order."""
        return f"my order {p.order_id}"

    def mutate(self, p: ItemOptionParams, data: JsonObject) -> bool:
        """The item's option substituted in the order record."""
        items = data["items"]
        item = items[p.item_index] if isinstance(items, list) else None
        if not isinstance(item, dict) or item["item_id"] != p.item_id:
            return False
        options = item["options"]
        if not isinstance(options, dict) or p.option is None:
            return False
        options[p.option] = p.injected_value
        return True

    def target(self, p: ItemOptionParams, world: World) -> Target:
        """One option of one order item."""
        return Target(
            entity_type="order_item",
            entity_id=p.item_id,
            attribute=f"options.{p.option}",
            related_ids={
                "order_id": p.order_id,
                "product_id": p.product_id,
                "injected_variant": p.injected_variant or "",
                "product_name": p.product_name,
            },
        )

    def fault_values(self, p: ItemOptionParams) -> tuple[JsonValue, JsonValue]:
        """The substituted option value and the item's own."""
        return p.injected_value, p.true_value

    def sufficiency(self, world: World) -> Sufficiency:
        """The product record bound by item id refutes the option."""
        return Sufficiency(
            relation="variant-binding",
            requires=("order item bound to its variant by item id", "the product record"),
            semantics="a product's variants are keyed by item id; an ordered item is that variant",
        )

    def acquisition(self) -> tuple[AcquisitionRoute, ...]:
        """The product lookup (its id in the order record), or a second order read."""
        return (
            AcquisitionRoute(
                tool=PRODUCT, arguments={"product_id": "the order record (items[].product_id)"}
            ),
            AcquisitionRoute(
                tool=READ,
                arguments={"order_id": "user message"},
                note="a second read shows the true options",
            ),
        )

    def consistent_source(self, case: Case, world: World) -> list[Injection]:
        """The contradiction-relation variant's hooks (:mod:`.consistent`)."""
        from sscbench.faults.operators.consistent import consistent_product

        p = self.params(case)
        injected = p.injected_options or {}
        return [consistent_product(p.item_id, injected, p.product_id, self._hook_id(case))]

    def witness_turns(self, case: Case, world: World, view: LedgerView) -> list[ScriptedTurn]:
        """Look the product up (its id from the order record), then state the item's option."""
        p = self.params(case)
        return [
            ScriptedTurn("assistant", tool=PRODUCT, arguments={"product_id": p.product_id}),
            ScriptedTurn(
                "assistant",
                content=(
                    f"Your {p.product_name} (item {p.item_id}) has {p.option}: {p.true_value}."
                ),
                proposed_use=True,
            ),
        ]

    # ---- relations --------------------------------------------------------------------
    def counterevidence(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> Evidence:
        """min(a delivered order record with the true option, max(binding, product record)).

        An order record refutes directly only when every line with the item's id shows the
        true option: two lines with one id and different values (the faulted line and an
        identical item's) contradict each other without saying which is true; only the
        product record, keyed by that id, settles it."""
        item_id = contract.target.entity_id
        oid = contract.target.related_ids["order_id"]
        pid = contract.target.related_ids["product_id"]
        key = contract.target.attribute.split(".", 1)[1]
        binding = product = direct = None
        for call in view.calls:
            step, data = call.observation_step, call.data
            if step is None or not isinstance(data, dict):
                continue
            if data.get("order_id") == oid:
                shown = _lines_shown(data, item_id, key)
                if shown:
                    binding = step if binding is None else binding
                # settles the option only when every line with the item's id shows the true
                # value: a record showing the id with both values does not say which is true
                if direct is None and shown == {str(contract.authoritative_value)}:
                    direct = step
            variant = (
                (data.get("variants") or {}).get(item_id) if data.get("product_id") == pid else None
            )
            if (
                product is None
                and isinstance(variant, dict)
                and variant.get("options", {}).get(key) == contract.authoritative_value
            ):
                product = step
        candidates: list[tuple[int, tuple[int, ...], str]] = []
        if direct is not None:
            candidates.append((direct, (direct,), "a delivered order record shows the true option"))
        if binding is not None and product is not None:
            step = max(binding, product)
            candidates.append(
                (
                    step,
                    tuple(sorted({binding, product})),
                    "product record with the item's variant, bound by item id",
                )
            )
        if not candidates:
            return Evidence(INF, (), "no product record bound to the item")
        return Evidence(*min(candidates))

    def extract_uses(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> list[UseCandidate]:
        """Texts stating the item's option (the item named by id, position, table row,
        bullet block, or a product name only it has — see :mod:`sscbench.references.items`);
        calls acting on the variant the injected option names, or replacing the item by a
        variant that keeps the injected option the user never asked for (derived from v′)."""
        return find_item_option_uses(self.look_for(contract), view, fault_step)

    def look_for(self, contract: FaultContract) -> ItemOptionLookFor:
        """What to look for: the item's option (named in the target's attribute,
        ``options.<name>``), v′ and v, the order, the product's name and the variant v′
        names, as the contract's target carries them."""
        related = contract.target.related_ids
        return ItemOptionLookFor(
            item_id=contract.target.entity_id,
            option=contract.target.attribute.split(".", 1)[1],
            injected=str(contract.injected_value),
            authoritative=str(contract.authoritative_value),
            order_id=related.get("order_id"),
            product_name=str(related.get("product_name", "")),
            injected_variant=related.get("injected_variant", ""),
        )

    def classify(
        self, contract: FaultContract, view: LedgerView, candidate: UseCandidate
    ) -> ClassifiedUse:
        """The injected option stated for the item (or its variant acted on, or kept in its
        replacement) is reliance; the disputed value said of a name two items share is
        undecidable."""
        if candidate.detail.get("undecidable"):
            return ClassifiedUse(
                candidate, UseLabel.UNDECIDABLE, "the name fits several items of the order"
            )
        return classify_value_use(candidate, view)


def _lines_shown(order: dict[str, Any], item_id: str, key: str) -> set[str]:
    """The values of option ``key`` on the order record's lines with ``item_id``."""
    return {
        str((item.get("options") or {}).get(key))
        for item in order.get("items") or []
        if isinstance(item, dict) and item.get("item_id") == item_id
    }
