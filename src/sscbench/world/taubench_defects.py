"""τ-bench's own data defects: ground truths that meet an error from τ-bench's tools.

At commit 59a200c, 38 retail tasks' ground-truth actions include calls that τ-bench's own
tool code answers with an error (an unknown product, user or order id, a gift card short of
the amount, a payment method the order cannot take, an order not yet delivered). τ-bench
still scores such a ground truth 1 (its reward replays the same calls, errors included),
but the reference does not do all that the instruction asks. The errors below are the
ones τ-bench's code returned when the conformance corpus was recorded
(``tests/data/taubench-conformance/episodes.jsonl.xz``; ``tests/world/test_selfcheck.py``
checks this table against it); ``sscbench world check`` reports them as known and fails on
any other error.
"""

from __future__ import annotations

TAUBENCH_COMMIT = "59a200c"

# domain -> task id -> the (action index, tool, observation) of every erroring call
KNOWN_GROUND_TRUTH_ERRORS: dict[str, dict[str, tuple[tuple[int, str, str], ...]]] = {
    "airline": {},
    "retail": {
        "test/2": ((1, "get_product_details", "Error: product not found"),),
        "test/3": ((1, "get_product_details", "Error: product not found"),),
        "test/4": ((1, "get_product_details", "Error: product not found"),),
        "test/12": (
            (
                4,
                "return_delivered_order_items",
                "Error: payment method should be either the original payment method or a gift card",
            ),
        ),
        "test/13": (
            (
                4,
                "return_delivered_order_items",
                "Error: payment method should be either the original payment method or a gift card",
            ),
        ),
        "test/21": (
            (5, "get_product_details", "Error: product not found"),
            (6, "get_product_details", "Error: product not found"),
            (8, "get_product_details", "Error: product not found"),
        ),
        "test/35": ((0, "find_user_id_by_email", "Error: user not found"),),
        "test/36": ((0, "find_user_id_by_email", "Error: user not found"),),
        "test/37": ((0, "find_user_id_by_email", "Error: user not found"),),
        "test/38": ((0, "find_user_id_by_email", "Error: user not found"),),
        "test/39": ((0, "find_user_id_by_name_zip", "Error: user not found"),),
        "test/46": (
            (1, "get_order_details", "Error: order not found"),
            (2, "get_order_details", "Error: order not found"),
        ),
        "test/47": (
            (1, "get_order_details", "Error: order not found"),
            (2, "get_order_details", "Error: order not found"),
        ),
        "test/54": ((0, "find_user_id_by_email", "Error: user not found"),),
        "test/55": ((0, "find_user_id_by_email", "Error: user not found"),),
        "test/64": (
            (6, "exchange_delivered_order_items", "Error: non-delivered order cannot be exchanged"),
        ),
        "test/67": (
            (0, "find_user_id_by_name_zip", "Error: user not found"),
            (1, "find_user_id_by_name_zip", "Error: user not found"),
        ),
        "test/68": ((0, "find_user_id_by_name_zip", "Error: user not found"),),
        "test/106": (
            (
                0,
                "exchange_delivered_order_items",
                "Error: insufficient gift card balance to pay for the price difference",
            ),
        ),
        "train/24": (
            (
                0,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
        ),
        "train/27": (
            (
                0,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
        ),
        "train/81": (
            (
                1,
                "modify_pending_order_items",
                "Error: insufficient gift card balance to pay for the new item",
            ),
        ),
        "train/148": (
            (
                1,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
        ),
        "train/161": (
            (
                0,
                "modify_pending_order_items",
                "Error: insufficient gift card balance to pay for the new item",
            ),
        ),
        "train/214": (
            (
                0,
                "exchange_delivered_order_items",
                "Error: insufficient gift card balance to pay for the price difference",
            ),
        ),
        "train/229": (
            (
                0,
                "modify_pending_order_items",
                "Error: insufficient gift card balance to pay for the new item",
            ),
        ),
        "train/252": (
            (
                0,
                "exchange_delivered_order_items",
                "Error: insufficient gift card balance to pay for the price difference",
            ),
        ),
        "train/253": (
            (
                0,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
        ),
        "train/288": (
            (
                0,
                "exchange_delivered_order_items",
                "Error: insufficient gift card balance to pay for the price difference",
            ),
        ),
        "train/314": (
            (
                3,
                "modify_pending_order_items",
                "Error: insufficient gift card balance to pay for the new item",
            ),
        ),
        "train/349": (
            (
                0,
                "modify_pending_order_items",
                "Error: insufficient gift card balance to pay for the new item",
            ),
        ),
        "train/351": (
            (
                2,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
            (
                6,
                "modify_pending_order_items",
                "Error: insufficient gift card balance to pay for the new item",
            ),
        ),
        "train/369": (
            (
                0,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
        ),
        "train/376": (
            (
                1,
                "modify_pending_order_items",
                "Error: insufficient gift card balance to pay for the new item",
            ),
        ),
        "train/427": (
            (
                0,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
        ),
        "train/431": (
            (
                4,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
        ),
        "train/441": (
            (
                0,
                "modify_pending_order_items",
                "Error: insufficient gift card balance to pay for the new item",
            ),
        ),
        "train/469": (
            (
                0,
                "modify_pending_order_payment",
                "Error: insufficient gift card balance to pay for the order",
            ),
        ),
    },
}
