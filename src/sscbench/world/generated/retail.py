"""The generated retail world: products, users, orders and tasks in τ-bench's schema.

Product type names are τ-bench's (facts); their option dimensions and values,
prices, people and places are this generator's own.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

from sscbench.world.generated import common
from sscbench.world.generated.size import GeneratedSize
from sscbench.world.jsoncopy import json_copy
from sscbench.world.retail.tables import (
    Fulfillment,
    Item,
    Order,
    Payment,
    PaymentMethod,
    Product,
    User,
    Variant,
)
from sscbench.world.task import Task

DOMAIN = "retail"

# (product type, price range, option dimensions with their values)
CATALOG: tuple[tuple[str, tuple[int, int], dict[str, list[str]]], ...] = (
    (
        "T-Shirt",
        (18, 45),
        {
            "color": ["black", "white", "navy", "olive", "rust"],
            "size": ["S", "M", "L", "XL"],
            "fit": ["regular", "slim"],
        },
    ),
    (
        "Running Shoes",
        (70, 160),
        {
            "size": ["7", "8", "9", "10", "11"],
            "color": ["grey", "blue", "black"],
            "sole": ["foam", "rubber"],
        },
    ),
    (
        "Backpack",
        (40, 150),
        {
            "color": ["black", "green", "grey"],
            "capacity": ["18L", "25L", "32L"],
            "material": ["nylon", "canvas", "polyester"],
        },
    ),
    (
        "Water Bottle",
        (12, 45),
        {
            "capacity": ["500ml", "750ml", "1000ml"],
            "material": ["stainless steel", "glass", "plastic"],
            "color": ["blue", "white", "red", "black"],
        },
    ),
    (
        "Desk Lamp",
        (25, 120),
        {
            "color": ["white", "black", "brass"],
            "brightness": ["low", "medium", "high"],
            "power source": ["USB", "AC adapter", "battery"],
        },
    ),
    (
        "Notebook",
        (5, 25),
        {
            "size": ["A5", "A4", "pocket"],
            "cover type": ["soft cover", "hard cover"],
            "paper": ["lined", "dotted", "blank"],
        },
    ),
    (
        "Sunglasses",
        (60, 250),
        {
            "frame color": ["black", "tortoise", "silver"],
            "lens color": ["grey", "green", "brown"],
            "lens type": ["polarized", "non-polarized"],
        },
    ),
    (
        "Wristwatch",
        (80, 600),
        {
            "strap material": ["leather", "metal", "silicone"],
            "dial color": ["black", "white", "blue"],
            "case size": ["38mm", "42mm"],
        },
    ),
    (
        "Electric Toothbrush",
        (30, 180),
        {
            "color": ["white", "black", "pink"],
            "speed settings": ["low", "high"],
            "battery type": ["rechargeable", "AA batteries"],
        },
    ),
    (
        "Yoga Mat",
        (20, 90),
        {
            "thickness": ["4mm", "6mm", "8mm"],
            "material": ["PVC", "TPE", "natural rubber"],
            "color": ["purple", "teal", "grey"],
        },
    ),
    (
        "Bluetooth Speaker",
        (40, 260),
        {
            "color": ["black", "red", "blue"],
            "battery life": ["10 hours", "20 hours"],
            "water resistance": ["yes", "no"],
        },
    ),
    (
        "Gaming Mouse",
        (30, 140),
        {
            "color": ["black", "white"],
            "sensor type": ["optical", "laser"],
            "connectivity": ["wired", "wireless"],
        },
    ),
    (
        "Action Camera",
        (150, 520),
        {
            "resolution": ["1080p", "4K", "5K"],
            "waterproof": ["yes", "no"],
            "color": ["black", "silver"],
        },
    ),
    (
        "Garden Hose",
        (20, 110),
        {
            "length": ["25ft", "50ft", "100ft"],
            "material": ["rubber", "vinyl", "latex"],
            "color": ["green", "blue", "black"],
        },
    ),
    (
        "Hiking Boots",
        (90, 280),
        {
            "size": ["7", "8", "9", "10", "11", "12"],
            "material": ["leather", "synthetic"],
            "waterproof": ["yes", "no"],
        },
    ),
    (
        "Tablet",
        (200, 1100),
        {
            "screen size": ["8-inch", "10-inch", "12-inch"],
            "storage": ["64GB", "128GB", "256GB"],
            "color": ["black", "silver", "gold"],
        },
    ),
    (
        "E-Reader",
        (90, 300),
        {
            "screen size": ["6-inch", "7-inch", "8-inch"],
            "connectivity": ["Wi-Fi", "Wi-Fi + Cellular"],
            "storage": ["8GB", "32GB"],
        },
    ),
    (
        "Portable Charger",
        (20, 90),
        {
            "capacity": ["5000mAh", "10000mAh", "20000mAh"],
            "output": ["USB-A", "USB-C", "Wireless"],
            "color": ["white", "black", "blue"],
        },
    ),
    (
        "Electric Kettle",
        (25, 160),
        {
            "capacity": ["1L", "1.5L", "2L"],
            "material": ["glass", "stainless steel", "plastic"],
            "color": ["white", "black", "silver"],
        },
    ),
    (
        "Mechanical Keyboard",
        (60, 260),
        {
            "switch type": ["linear", "tactile", "clicky"],
            "backlight": ["none", "white", "RGB"],
            "size": ["60%", "80%", "full size"],
        },
    ),
    (
        "Wireless Earbuds",
        (50, 280),
        {
            "color": ["black", "white", "blue"],
            "battery life": ["4 hours", "6 hours", "8 hours"],
            "water resistance": ["IPX4", "IPX7", "not resistant"],
        },
    ),
    (
        "Smart Thermostat",
        (100, 300),
        {
            "compatibility": ["Apple HomeKit", "Google Assistant", "Amazon Alexa"],
            "color": ["white", "black", "stainless steel"],
        },
    ),
    (
        "Fleece Jacket",
        (40, 160),
        {
            "size": ["S", "M", "L", "XL"],
            "color": ["navy", "red", "black", "green"],
            "zipper": ["full", "half"],
        },
    ),
    (
        "Wall Clock",
        (20, 120),
        {
            "diameter": ["10 inches", "12 inches", "14 inches"],
            "color": ["white", "black", "wood"],
            "type": ["analog", "digital"],
        },
    ),
    (
        "Dumbbell Set",
        (50, 500),
        {
            "weight range": ["5-25 lbs", "30-50 lbs", "55-75 lbs"],
            "material": ["iron", "rubber", "urethane"],
            "set type": ["fixed", "adjustable"],
        },
    ),
    (
        "Pet Bed",
        (30, 200),
        {
            "size": ["small", "medium", "large"],
            "material": ["memory foam", "polyester", "fleece"],
            "color": ["beige", "grey", "brown"],
        },
    ),
    (
        "Espresso Machine",
        (150, 2800),
        {
            "pressure": ["9 bar", "15 bar", "19 bar"],
            "capacity": ["1L", "1.5L", "2L"],
            "type": ["manual", "automatic", "capsule"],
        },
    ),
    (
        "Cycling Helmet",
        (40, 230),
        {
            "size": ["S", "M", "L"],
            "color": ["red", "blue", "white", "black"],
            "ventilation": ["low", "medium", "high"],
        },
    ),
    (
        "Office Chair",
        (120, 520),
        {
            "material": ["mesh", "fabric", "leather"],
            "color": ["black", "grey", "blue"],
            "armrest": ["none", "fixed", "adjustable"],
        },
    ),
    (
        "Luggage Set",
        (120, 620),
        {
            "piece count": ["2-piece", "3-piece", "4-piece"],
            "color": ["silver", "black", "red"],
            "material": ["softshell", "hardshell"],
        },
    ),
    (
        "Air Purifier",
        (90, 520),
        {
            "room size": ["small", "medium", "large"],
            "filter type": ["HEPA", "carbon", "ionic"],
            "features": ["quiet operation", "smart sensors", "night mode"],
        },
    ),
    (
        "Skateboard",
        (60, 260),
        {
            "deck material": ["maple", "bamboo", "plastic"],
            "length": ["28 inch", "31 inch", "34 inch"],
            "design": ["plain", "graphic", "custom"],
        },
    ),
    (
        "Headphones",
        (40, 400),
        {
            "type": ["in-ear", "on-ear", "over-ear"],
            "connectivity": ["wired", "wireless"],
            "color": ["black", "white", "red"],
        },
    ),
    (
        "Grill",
        (150, 1200),
        {
            "type": ["charcoal", "gas", "electric"],
            "size": ["portable", "medium", "large"],
            "features": ["side burner", "rotisserie", "none"],
        },
    ),
)

MIN_VARIANTS = 4
MAX_VARIANTS = 14
# Order statuses with their weights: τ-bench's four plus the three its tools write.
STATUSES = (
    ("pending", 34),
    ("processed", 10),
    ("delivered", 34),
    ("cancelled", 10),
    ("return requested", 4),
    ("exchange requested", 4),
    ("pending (item modified)", 4),
)
CANCEL_REASONS = ("no longer needed", "ordered by mistake")
KINDS = ("exchange", "return", "modify_items", "modify_payment", "cancel_order", "modify_address")


def options_text(options: dict[str, str]) -> str:
    """Options as a user says them: ``color black, size M``."""
    return ", ".join(f"{k} {v}" for k, v in options.items())


class _Retail:
    """Builds the tables from one rng and keeps the indexes the task makers need."""

    def __init__(self, rng: random.Random, size: GeneratedSize):
        if size.products > len(CATALOG):
            raise ValueError(
                f"GeneratedSize.products can be at most {len(CATALOG)}, got {size.products}"
            )
        self.rng = rng
        self.size = size
        self.products: dict[str, Product] = {}
        self.users: dict[str, User] = {}
        self.orders: dict[str, Order] = {}
        self._ids: set[str] = set()  # product and item ids, never confused
        self._payment_ids: set[str] = set()
        self._tracking: set[str] = set()
        self._order_ids: set[str] = set()

    # ---- catalogue -----------------------------------------------------------------
    def build_products(self) -> None:
        rng = self.rng
        for name, (low, high), dimensions in rng.sample(CATALOG, self.size.products):
            combos = list(itertools.product(*dimensions.values()))
            count = rng.randint(MIN_VARIANTS, min(MAX_VARIANTS, len(combos)))
            chosen = rng.sample(combos, count)
            base = rng.uniform(low, high)
            product_id = common.unique_digits(rng, 10, self._ids)
            variants: dict[str, Variant] = {}
            for combo in chosen:
                item_id = common.unique_digits(rng, 10, self._ids)
                variants[item_id] = {
                    "item_id": item_id,
                    "options": dict(zip(dimensions, combo, strict=True)),
                    "available": rng.random() < 0.78,
                    "price": round(base * rng.uniform(0.9, 1.1), 2),
                }
            available = [v for v in variants.values() if v["available"]]
            for variant in list(variants.values())[: max(0, 3 - len(available))]:
                variant["available"] = True  # every product keeps several buyable variants
            self.products[product_id] = {
                "name": name,
                "product_id": product_id,
                "variants": variants,
            }

    # ---- people --------------------------------------------------------------------
    def _payment_id(self, source: str) -> str:
        return f"{source}_{common.unique_digits(self.rng, 7, self._payment_ids)}"

    def build_users(self) -> None:
        rng = self.rng
        used: set[str] = set()
        identities: set[tuple[str, str, str]] = set()
        mixes = (
            ("credit_card",),
            ("paypal",),
            ("gift_card",),
            ("credit_card", "paypal"),
            ("credit_card", "gift_card"),
            ("gift_card", "paypal"),
            ("credit_card", "gift_card", "paypal"),
        )
        weights = (16, 12, 14, 16, 18, 12, 12)
        while len(self.users) < self.size.users:
            first, last = common.person(rng)
            home = common.address(rng)
            if (first, last, home["zip"]) in identities:
                continue  # name + zip must identify a user
            identities.add((first, last, home["zip"]))
            uid = common.user_id(rng, first, last, used)
            methods: list[PaymentMethod] = []
            for source in rng.choices(mixes, weights)[0]:
                if source == "credit_card":
                    methods.append(
                        {
                            "source": "credit_card",
                            "brand": rng.choice(("visa", "mastercard")),
                            "last_four": f"{rng.randint(0, 9999):04d}",
                            "id": self._payment_id("credit_card"),
                        }
                    )
                elif source == "gift_card":
                    balance = rng.randint(0, 120) if rng.random() < 0.6 else rng.randint(120, 2500)
                    methods.append(
                        {
                            "source": "gift_card",
                            "balance": balance,
                            "id": self._payment_id("gift_card"),
                        }
                    )
                else:
                    methods.append({"source": "paypal", "id": self._payment_id("paypal")})
            rng.shuffle(methods)
            self.users[uid] = {
                "name": {"first_name": first, "last_name": last},
                "address": home,
                "email": common.email(rng, first, last),
                "payment_methods": {m["id"]: m for m in methods},
                "orders": [],
            }

    # ---- orders --------------------------------------------------------------------
    def _item(self, product: Product, variant: Variant) -> Item:
        return {
            "name": product["name"],
            "product_id": product["product_id"],
            "item_id": variant["item_id"],
            "price": variant["price"],
            "options": dict(variant["options"]),
        }

    def alternatives(self, item: Item) -> list[Variant]:
        """The available variants of the item's product other than the item itself."""
        variants = self.products[item["product_id"]]["variants"]
        return [v for v in variants.values() if v["available"] and v["item_id"] != item["item_id"]]

    def _fulfillment(self, items: list[Item]) -> list[Fulfillment]:
        tracking = common.unique_digits(self.rng, 12, self._tracking)
        return [{"tracking_id": [tracking], "item_ids": [i["item_id"] for i in items]}]

    def build_orders(self) -> None:
        rng = self.rng
        user_ids = list(self.users)
        product_ids = list(self.products)
        statuses = [s for s, _ in STATUSES]
        weights = [w for _, w in STATUSES]
        while len(self.orders) < self.size.orders:
            uid = rng.choice(user_ids)
            user = self.users[uid]
            items: list[Item] = []
            for _ in range(rng.choice((1, 1, 2, 2, 3, 3, 4, 5))):
                product = self.products[rng.choice(product_ids)]
                variant = rng.choice(list(product["variants"].values()))
                if all(i["item_id"] != variant["item_id"] for i in items):
                    items.append(self._item(product, variant))
            status = rng.choices(statuses, weights)[0]
            payer = rng.choice(list(user["payment_methods"]))
            amount = round(sum(i["price"] for i in items), 2)
            history: list[Payment] = [
                {"transaction_type": "payment", "amount": amount, "payment_method_id": payer}
            ]
            order_id = "#W" + common.unique_digits(rng, 7, self._order_ids)
            order: Order = {
                "order_id": order_id,
                "user_id": uid,
                "address": user["address"].copy() if rng.random() < 0.85 else common.address(rng),
                "items": items,
                "fulfillments": [],
                "status": status,
                "payment_history": history,
            }
            if status in ("pending", "pending (item modified)"):
                pass
            else:
                order["fulfillments"] = self._fulfillment(items)
            if status == "cancelled":
                history.append(
                    {"transaction_type": "refund", "amount": amount, "payment_method_id": payer}
                )
            elif status == "return requested":
                chosen = rng.sample(items, rng.randint(1, len(items)))
                gifts = [m for m in user["payment_methods"] if m.startswith("gift_card")]
                order["return_items"] = sorted(i["item_id"] for i in chosen)
                order["return_payment_method_id"] = rng.choice([payer, *gifts])
            elif status in ("exchange requested", "pending (item modified)"):
                pairs = []
                for item in rng.sample(items, rng.randint(1, len(items))):
                    others = self.alternatives(item)
                    if others:
                        pairs.append((item, rng.choice(others)))
                if not pairs:
                    order["status"] = "delivered" if status == "exchange requested" else "pending"
                else:
                    difference = round(sum(n["price"] - i["price"] for i, n in pairs), 2)
                    method = rng.choice(list(user["payment_methods"]))
                    if status == "exchange requested":
                        order["exchange_items"] = sorted(i["item_id"] for i, _ in pairs)
                        order["exchange_new_items"] = sorted(n["item_id"] for _, n in pairs)
                        order["exchange_payment_method_id"] = method
                        order["exchange_price_difference"] = difference
                    else:
                        for item, new in pairs:
                            item["item_id"] = new["item_id"]
                            item["price"] = new["price"]
                            item["options"] = dict(new["options"])
                        history.append(
                            {
                                "transaction_type": "payment" if difference > 0 else "refund",
                                "amount": abs(difference),
                                "payment_method_id": method,
                            }
                        )
            self.orders[order_id] = order
            user["orders"].append(order_id)

    def tables(self) -> dict[str, dict[str, Any]]:
        return {"orders": self.orders, "products": self.products, "users": self.users}


# ---- tasks ------------------------------------------------------------------------------


def _items_text(items: list[Item]) -> str:
    return "; ".join(f"the {i['name']} ({options_text(i['options'])})" for i in items)


class _TaskMaker:
    """Makes tasks whose ground truth the retail tools accept and the policy allows."""

    def __init__(self, world: _Retail, rng: random.Random):
        self.w = world
        self.rng = rng
        self.used_orders: set[str] = set()
        self.rows: list[tuple[str, str, dict[str, Any], list, list[str]]] = []

    def _orders(self, status: str) -> list[Order]:
        out = [
            o
            for oid, o in self.w.orders.items()
            if o["status"] == status and oid not in self.used_orders
        ]
        self.rng.shuffle(out)
        return out

    def _methods(self, uid: str) -> list[PaymentMethod]:
        return list(self.w.users[uid]["payment_methods"].values())

    def _who(self, uid: str) -> str:
        user = self.w.users[uid]
        name = user["name"]
        return (
            f"Your user id is {uid}. You are {name['first_name']} {name['last_name']}, your "
            f"zip code is {user['address']['zip']} and your email is {user['email']}. "
        )

    def _add(
        self,
        kind: str,
        order: Order,
        instruction: str,
        slots: dict[str, Any],
        actions: list[tuple[str, dict[str, Any]]],
        outputs: list[str] | None = None,
    ) -> None:
        uid = order["user_id"]
        self.used_orders.add(order["order_id"])
        intent = {"kind": kind, "user_id": uid, "order_id": order["order_id"], **json_copy(slots)}
        self.rows.append((uid, self._who(uid) + instruction, intent, actions, outputs or []))

    def _swaps(self, order: Order) -> list[tuple[Item, Variant]]:
        """One or two items of the order, each paired with another available variant."""
        rng = self.rng
        swappable = [i for i in order["items"] if self.w.alternatives(i)]
        if not swappable:
            return []
        chosen = rng.sample(swappable, min(len(swappable), rng.choice((1, 1, 2))))
        chosen.sort(key=lambda i: order["items"].index(i))
        return [(i, rng.choice(self.w.alternatives(i))) for i in chosen]

    def _price_method(self, order: Order, difference: float) -> PaymentMethod | None:
        """A payment method for a price difference; a gift card must cover it."""
        usable = [
            m
            for m in self._methods(order["user_id"])
            if m["source"] != "gift_card" or m["balance"] >= difference + 1
        ]
        if not usable:
            return None
        sources = sorted({m["source"] for m in usable})
        source = self.rng.choice(sources)
        return self.rng.choice([m for m in usable if m["source"] == source])

    # ---- exchange / modify_items ---------------------------------------------------
    def _swap_task(self, kind: str) -> bool:
        status = "delivered" if kind == "exchange" else "pending"
        tool = (
            "exchange_delivered_order_items" if kind == "exchange" else "modify_pending_order_items"
        )
        for order in self._orders(status):
            pairs = self._swaps(order)
            if not pairs:
                continue
            difference = round(sum(n["price"] - i["price"] for i, n in pairs), 2)
            method = self._price_method(order, difference)
            if method is None:
                continue
            item_ids = [i["item_id"] for i, _ in pairs]
            new_item_ids = [n["item_id"] for _, n in pairs]
            link = "for" if kind == "exchange" else "to"
            wants = "; and ".join(
                f"your {i['name']} ({options_text(i['options'])}) {link} the one with "
                f"{options_text(n['options'])}"
                for i, n in pairs
            )
            if kind == "exchange":
                instruction = (
                    f"You received order {order['order_id']} and want to exchange {wants}. "
                    "You want every exchange done in one request. "
                )
            else:
                instruction = (
                    f"Your order {order['order_id']} has not shipped yet and you want to change "
                    f"{wants}. These are all the changes you want. "
                )
            instruction += f"Use your {common.card_text(method)} for the price difference."
            slots = {
                "item_ids": item_ids,
                "new_item_ids": new_item_ids,
                "items": [
                    {
                        "item_id": i["item_id"],
                        "product_id": i["product_id"],
                        "name": i["name"],
                        "options": i["options"],
                        "new_item_id": n["item_id"],
                        "new_options": n["options"],
                    }
                    for i, n in pairs
                ],
                "payment_method_id": method["id"],
                "payment_source": method["source"],
                "price_difference": difference,
            }
            kwargs = {
                "order_id": order["order_id"],
                "item_ids": list(item_ids),
                "new_item_ids": list(new_item_ids),
                "payment_method_id": method["id"],
            }
            self._add(kind, order, instruction, slots, [(tool, kwargs)])
            return True
        return False

    # ---- return --------------------------------------------------------------------
    def return_items(self) -> bool:
        rng = self.rng
        for order in self._orders("delivered"):
            items = order["items"]
            chosen = rng.sample(items, rng.randint(1, len(items)))
            chosen.sort(key=lambda i: items.index(i))
            original = order["payment_history"][0]["payment_method_id"]
            refund_to = [original] + [
                m["id"]
                for m in self._methods(order["user_id"])
                if m["source"] == "gift_card" and m["id"] != original
            ]
            target = rng.choice(refund_to)
            method = self.w.users[order["user_id"]]["payment_methods"][target]
            refund = round(sum(i["price"] for i in chosen), 2)
            where = (
                "the original payment method"
                if target == original
                else f"your {common.card_text(method)}"
            )
            every = "all items" if len(chosen) == len(items) else "these items"
            instruction = (
                f"You received order {order['order_id']} and want to return {every}: "
                f"{_items_text(chosen)}. You want the refund to go to {where}. "
                "You want to know the total amount you will get back."
            )
            slots = {
                "item_ids": [i["item_id"] for i in chosen],
                "items": [
                    {
                        "item_id": i["item_id"],
                        "product_id": i["product_id"],
                        "name": i["name"],
                        "options": i["options"],
                        "price": i["price"],
                    }
                    for i in chosen
                ],
                "payment_method_id": target,
                "payment_source": method["source"],
                "refund_to_original": target == original,
                "refund_amount": refund,
            }
            kwargs = {
                "order_id": order["order_id"],
                "item_ids": [i["item_id"] for i in chosen],
                "payment_method_id": target,
            }
            self._add(
                "return",
                order,
                instruction,
                slots,
                [("return_delivered_order_items", kwargs)],
                [common.money_text(refund)],
            )
            return True
        return False

    # ---- modify_payment ------------------------------------------------------------
    def modify_payment(self) -> bool:
        rng = self.rng
        for order in self._orders("pending"):
            history = order["payment_history"]
            original = history[0]["payment_method_id"]
            amount = history[0]["amount"]
            usable = [
                m
                for m in self._methods(order["user_id"])
                if m["id"] != original and (m["source"] != "gift_card" or m["balance"] >= amount)
            ]
            if len(history) != 1 or not usable:
                continue
            method = rng.choice(usable)
            instruction = (
                f"You want to pay for your pending order {order['order_id']} with your "
                f"{common.card_text(method)} instead of the current payment method."
            )
            slots = {
                "old_payment_method_id": original,
                "payment_method_id": method["id"],
                "payment_source": method["source"],
                "amount": amount,
            }
            kwargs = {"order_id": order["order_id"], "payment_method_id": method["id"]}
            self._add(
                "modify_payment",
                order,
                instruction,
                slots,
                [("modify_pending_order_payment", kwargs)],
            )
            return True
        return False

    # ---- cancel_order --------------------------------------------------------------
    def cancel_order(self) -> bool:
        for order in self._orders("pending"):
            reason = self.rng.choice(CANCEL_REASONS)
            instruction = (
                f"You want to cancel your pending order {order['order_id']} "
                f"({_items_text(order['items'])}) because it was {reason}."
                if reason == "ordered by mistake"
                else f"You want to cancel your pending order {order['order_id']} "
                f"({_items_text(order['items'])}) because it is {reason}."
            )
            slots = {"reason": reason, "refund_amount": order["payment_history"][0]["amount"]}
            kwargs = {"order_id": order["order_id"], "reason": reason}
            self._add("cancel_order", order, instruction, slots, [("cancel_pending_order", kwargs)])
            return True
        return False

    # ---- modify_address ------------------------------------------------------------
    def modify_address(self) -> bool:
        for order in self._orders("pending"):
            new = common.address(self.rng)
            if new == order["address"]:
                continue
            instruction = (
                f"You want the pending order {order['order_id']} shipped to a new address: "
                f"{new['address1']}, {new['address2']}, {new['city']}, {new['state']} "
                f"{new['zip']}, {new['country']}. You do not want to change your default address."
            )
            slots = {"address": new}
            kwargs = {
                "order_id": order["order_id"],
                "address1": new["address1"],
                "address2": new["address2"],
                "city": new["city"],
                "state": new["state"],
                "country": new["country"],
                "zip": new["zip"],
            }
            self._add(
                "modify_address",
                order,
                instruction,
                slots,
                [("modify_pending_order_address", kwargs)],
            )
            return True
        return False

    # ---- all -----------------------------------------------------------------------
    def make(self, per_kind: int) -> list[Task]:
        makers: dict[str, Callable[[], bool]] = {
            "exchange": lambda: self._swap_task("exchange"),
            "return": self.return_items,
            "modify_items": lambda: self._swap_task("modify_items"),
            "modify_payment": self.modify_payment,
            "cancel_order": self.cancel_order,
            "modify_address": self.modify_address,
        }
        for kind in KINDS:
            for _ in range(per_kind):
                if not makers[kind]():
                    raise ValueError(
                        f"the generated retail world is too small for another {kind} task; "
                        "raise GeneratedSize.users/orders or lower tasks_per_kind"
                    )
        return [
            common.make_task(DOMAIN, i, uid, text, intent, actions, outputs)
            for i, (uid, text, intent, actions, outputs) in enumerate(self.rows)
        ]


def build_retail(seed: int, size: GeneratedSize) -> tuple[dict[str, dict[str, Any]], list[Task]]:
    """The retail tables and tasks of one seed."""
    world = _Retail(random.Random(f"sscbench/generated/retail/{seed}/data"), size)
    world.build_products()
    world.build_users()
    world.build_orders()
    tasks = _TaskMaker(world, random.Random(f"sscbench/generated/retail/{seed}/tasks"))
    return world.tables(), tasks.make(size.tasks_per_kind)
