"""The tau-bench world answers adversarial tool calls exactly as τ-bench's own tool code.

The corpus ``conformance/fuzz_episodes.jsonl`` was recorded by running τ-bench's tools
(through its ``Env.step``) on wrong-typed, missing and extra arguments, odd strings,
huge numbers, damaged nested fields and long ``calculate`` expressions. The other
tests pin the causes one by one on the embedded generated world (same tool code), so
they need no τ-bench data at all.
"""

from __future__ import annotations

import sys
import warnings

import pytest

from sscbench.study.config import parse_config
from sscbench.study.worlds import build_worlds
from sscbench.world.conformance import run_conformance

FUZZ_SUMMARY = "conformance: 6000/6000 observations identical, 1232/1232 final hashes identical"


def test_fuzz_corpus_replays_identically(taubench_conformance, taubench_worlds):
    corpus = taubench_conformance / "fuzz_episodes.jsonl"
    report = run_conformance(corpus, taubench_worlds.__getitem__)
    shown = "\n".join(
        f"{d.episode}/{d.step}: {d.expected!r} != {d.got!r}" for d in report.differences[:5]
    )
    assert report.summary() == FUZZ_SUMMARY, shown
    assert report.passed


@pytest.fixture
def airline(generated_worlds):
    return generated_worlds["airline"].new_env()


@pytest.fixture
def retail(generated_worlds):
    return generated_worlds["retail"].new_env()


def _a_user(env) -> str:
    return next(iter(env.world.base.tables["users"]))


def test_wrong_typed_amount_still_issues_a_certificate(airline):
    """τ-bench's send_certificate checks no type: a string amount is stored as given."""
    user_id = _a_user(airline)
    out = airline.execute("send_certificate", {"user_id": user_id, "amount": "100"})
    assert out.observation == (
        f"Certificate certificate_3221322 added to user {user_id} with amount 100."
    )
    stored = airline.state.get("users", user_id)["payment_methods"]["certificate_3221322"]
    assert stored["amount"] == "100"


def test_an_object_is_stored_as_the_city(retail):
    user_id = _a_user(retail)
    address = dict.fromkeys(("address1", "address2", "state", "country", "zip"), "x")
    out = retail.execute("modify_user_address", {"user_id": user_id, "city": {"k": "v"}, **address})
    assert '"city": {"k": "v"}' in out.observation
    assert retail.state.get("users", user_id)["address"]["city"] == {"k": "v"}


def test_unhashable_id_fails_with_pythons_text(retail):
    assert retail.execute("get_order_details", {"order_id": ["#W1"]}).observation == (
        "Error: unhashable type: 'list'"
    )


def test_extra_data_argument_reads_as_taubench_binding_error(airline, retail):
    assert airline.execute("list_all_airports", {"data": {}}).observation == (
        "Error: tau_bench.envs.airline.tools.list_all_airports.ListAllAirports.invoke() "
        "got multiple values for keyword argument 'data'"
    )
    # The collision is found while the call is assembled, before any other argument check.
    assert retail.execute("calculate", {"x": 1, "data": False}).observation == (
        "Error: tau_bench.envs.retail.tools.calculate.Calculate.invoke() "
        "got multiple values for keyword argument 'data'"
    )


def _order(env, status: str) -> tuple[str, dict]:
    for order_id, order in env.world.base.tables["orders"].items():
        if order["status"] == status and len(order["items"]) >= 2:
            return order_id, order
    raise AssertionError(f"no {status} order with two items")


def test_null_item_id_is_refused_by_returns_exchanges_and_modifications(retail):
    """A ``null`` id is missing from the order, as in τ-bench (it was once taken for
    "nothing missing" and the return went through with items ``[None]``)."""
    order_id, order = _order(retail, "delivered")
    first = order["items"][0]["item_id"]
    payment = order["payment_history"][0]["payment_method_id"]
    out = retail.execute(
        "return_delivered_order_items",
        {"order_id": order_id, "item_ids": [None], "payment_method_id": payment},
    )
    assert out.observation == "Error: some item not found"
    out = retail.execute(
        "exchange_delivered_order_items",
        {
            "order_id": order_id,
            "item_ids": [first, None],
            "new_item_ids": [first, first],
            "payment_method_id": payment,
        },
    )
    assert out.observation == "Error: None not found"
    pending_id, pending = _order(retail, "pending")
    out = retail.execute(
        "modify_pending_order_items",
        {
            "order_id": pending_id,
            "item_ids": [None],
            "new_item_ids": ["x"],
            "payment_method_id": pending["payment_history"][0]["payment_method_id"],
        },
    )
    assert out.observation == "Error: None not found"
    assert retail.state.changes() == {}


def test_unknown_cabin_fails_before_passengers_without_length(airline):
    """τ-bench looks up the cabin's seats before it takes ``len(passengers)``."""
    flight_number, flight = next(iter(airline.world.base.tables["flights"].items()))
    date = next(d for d, v in flight["dates"].items() if v["status"] == "available")
    out = airline.execute(
        "book_reservation",
        {
            "user_id": _a_user(airline),
            "origin": "A",
            "destination": "B",
            "flight_type": "one_way",
            "cabin": "first",
            "flights": [{"flight_number": flight_number, "date": date}],
            "passengers": False,
            "payment_methods": [],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )
    assert out.observation == "Error: 'first'"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1+" * 1000 + "1", "1001.0"),
        ("1+" * 3000 + "1", "Error: maximum recursion depth exceeded during compilation"),
        ("-" * 7000 + "1", "Error: "),  # the 3.11 parser's bare MemoryError
        ("(" * 250 + "1" + ")" * 250, "Error: too many nested parentheses (<string>, line 1)"),
        ({}, "Error: eval() arg 1 must be a string, bytes or code object"),
        ([], "Error: eval() arg 1 must be a string, bytes or code object"),
        ({"k": "v"}, "Error: invalid characters in expression"),
        ([1, "a"], "Error: 'in <string>' requires string as left operand, not int"),
        (5, "Error: 'int' object is not iterable"),
        (None, "Error: 'NoneType' object is not iterable"),
        ("2**10 / 4", "256.0"),
        ("(1)(2)", "Error: 'int' object is not callable"),
    ],
)
def test_calculate_is_pythons_eval_in_both_domains(airline, retail, expression, expected):
    for env in (airline, retail):
        assert env.execute("calculate", {"expression": expression}).observation == expected


def _reference_calculate(expression: str) -> str:
    """τ-bench's own body of the tool (safe here: no runaway power among the inputs)."""
    if not all(char in "0123456789+-*/(). " for char in expression):
        return "Error: invalid characters in expression"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))
    except Exception as exc:
        return f"Error: {exc}"


@pytest.mark.parametrize(
    "expression",
    # values that are not numbers (``()``, ``...``), unary signs, calls plain, with ``*``
    # and ``**`` and empty: each on the eval path and, with a ``**``, on the walked path
    [
        *("()", "...", "-()", "+...", "(1)(*2)", "(1)()", "(...)(*())", "(2)(3)"),
        *("(-())**2", "(+...)**2", "()**2", "...**1", "(1)(**2)", "(1)(*2)**2", "(())(*())**2"),
        *("(1)()**2", "(2)(3)**2", "-(2**3)", "2**-1", "(-2)**0.5", "4**.5/3", "0**-1"),
    ],
)
def test_calculate_matches_pythons_eval_on_values_that_are_not_numbers(airline, expression):
    expected = _reference_calculate(expression)
    assert airline.execute("calculate", {"expression": expression}).observation == expected


def _at_depth(depth: int, fn):
    return fn() if depth == 0 else _at_depth(depth - 1, fn)


def test_calculate_does_not_depend_on_a_raised_recursion_limit(airline):
    # IPython and jedi raise the limit to 3,000 on import; τ-bench ran under the default
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(3000)
    try:
        got = airline.execute("calculate", {"expression": "1+" * 3000 + "1"}).observation
    finally:
        sys.setrecursionlimit(previous)
    assert got == "Error: maximum recursion depth exceeded during compilation"
    assert sys.getrecursionlimit() == previous


def test_calculate_does_not_depend_on_the_callers_stack_depth(airline):
    """Deep in an agent's stack, a 2,900-term sum compiles as it does in τ-bench's Env.step."""
    expression = "1+" * 2900 + "1"
    assert sys.getrecursionlimit() >= 1000
    shallow = airline.execute("calculate", {"expression": expression}).observation
    deep = _at_depth(400, lambda: airline.execute("calculate", {"expression": expression}))
    assert shallow == deep.observation == "2901.0"


STRICT_STUDY = """
[world]
source = "generated"
domains = ["airline"]
strict_arguments = {strict}

[[agents]]
id = "trusting"
profile = "trusting"
"""


def test_strict_arguments_is_an_interface_variant_recorded_in_the_config(airline):
    default = parse_config(STRICT_STUDY.format(strict="false"), "s.toml")
    strict = parse_config(STRICT_STUDY.format(strict="true"), "s.toml")
    assert '"strict_arguments":true' in strict.canonical_json()
    assert strict.config_hash() != default.config_hash()

    user_id = _a_user(airline)
    call = {"user_id": user_id, "amount": "100"}
    strict_env = build_worlds(strict)["airline"].new_env()
    out = strict_env.execute("send_certificate", call)
    assert out.observation == "Error: argument 'amount' must be of type number, got string"
    assert out.is_error and strict_env.state.changes() == {}

    default_env = build_worlds(default)["airline"].new_env()
    out = default_env.execute("send_certificate", call)
    assert out.observation.startswith("Certificate certificate_3221322 added")
    assert default_env.state.changes() != {}
