"""τ-bench's ``calculate`` tool (the same in both domains), observation for observation.

τ-bench filters the expression's characters and then runs
``str(round(float(eval(expression, {"__builtins__": None}, {})), 2))``, turning any
exception into ``"Error: ..."``. This module does exactly that, with two guards that
change no observation:

* the expression is compiled and evaluated on a fresh thread when it is long, so where
  Python's compiler gives up on deep nesting ("maximum recursion depth exceeded during
  compilation", or the parser's bare ``MemoryError``) depends on the expression alone,
  not on how deep the caller's stack happens to be (an episode inside asyncio or
  pytest runs much deeper than τ-bench's ``Env.step``) -- and under Python's default
  recursion limit, τ-bench's, even when the process has raised it (IPython/jedi set
  3,000, which would let the compiler accept nesting τ-bench refuses);
* an expression with ``**`` is walked node by node instead of run, so that a power
  whose integer result would exceed ``_MAX_POWER_BITS`` is refused with the error the
  reference reaches when ``float()`` meets that integer, instead of stalling for
  minutes or exhausting memory (``9**9**9``).

Everything else -- values, rounding, and the wording of every error -- is Python's own.
"""

from __future__ import annotations

import ast
import math
import operator
import sys
import threading
import warnings
from collections.abc import Callable, Iterable
from types import EllipsisType
from typing import NoReturn, TypeAlias

from pydantic import JsonValue

ALLOWED_CHARACTERS = "0123456789+-*/(). "
INVALID_CHARACTERS = "Error: invalid characters in expression"

# Longer sources are compiled on a fresh thread (shorter ones cannot nest deeply
# enough to reach the compiler's limit from any realistic stack depth).
_SHALLOW_STACK_ABOVE = 500
# An integer power whose result would exceed this many bits is refused (computing one
# of about this size takes a tenth of a second).
_MAX_POWER_BITS = 1 << 20

# τ-bench ran under CPython's default recursion limit; the compiler's nesting limit
# scales with it.
_REFERENCE_RECURSION_LIMIT = 1000
_LIMIT_LOCK = threading.Lock()

Value: TypeAlias = "int | float | EllipsisType | tuple[Value, ...]"
"""What an expression the filter admits can evaluate to: its constants are integers,
floats and ``...``; ``()`` is the empty tuple (without commas no other tuple can be
written); no value is callable, so a call always raises."""

_BINARY: dict[type[ast.operator], Callable[[Value, Value], Value]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
}


def _positive(value: Value) -> Value:
    if isinstance(value, int | float):
        return +value
    raise TypeError(f"bad operand type for unary +: '{type(value).__name__}'")


def _negative(value: Value) -> Value:
    if isinstance(value, int | float):
        return -value
    raise TypeError(f"bad operand type for unary -: '{type(value).__name__}'")


_UNARY: dict[type[ast.unaryop], Callable[[Value], Value]] = {
    ast.UAdd: _positive,
    ast.USub: _negative,
}


# A call, run by Python's own call machinery: its wording, and its order of checks (an
# argument after ``*`` or ``**`` is checked before the callee is found not callable).
_CALL_PLAIN, _CALL_STAR, _CALL_DOUBLE_STAR, _CALL_EMPTY = (
    compile(source, "<string>", "eval") for source in ("f(a)", "f(*a)", "f(**a)", "f()")
)


def calculate_observation(expression: JsonValue) -> str:
    """What τ-bench's ``calculate`` returns for ``expression`` (any JSON value).

    The character check runs outside the tool's ``try`` in τ-bench too: for a value
    whose items are not strings (``[1, "a"]``, ``5``, ``null``) it raises, and the
    env's execution point turns that into the same ``"Error: ..."`` τ-bench shows.
    """
    if not all(operator.contains(ALLOWED_CHARACTERS, char) for char in _iterate(expression)):
        return INVALID_CHARACTERS
    try:
        return str(round(_as_float(_evaluate(expression)), 2))
    except Exception as exc:
        return f"Error: {exc}"


def _as_float(value: Value) -> float:
    """``float(value)``; ``...`` and ``()`` raise Python's own error."""
    if isinstance(value, int | float):
        return float(value)
    raise TypeError(
        f"float() argument must be a string or a real number, not '{type(value).__name__}'"
    )


def _iterate(expression: JsonValue) -> Iterable[object]:
    """``iter(expression)``: a number, a boolean or ``null`` raises Python's own error."""
    if isinstance(expression, str | list | dict):
        return expression
    raise TypeError(f"'{type(expression).__name__}' object is not iterable")


def _evaluate(expression: JsonValue) -> Value:
    """``eval(expression, {"__builtins__": None}, {})`` for what passed the filter."""
    if not isinstance(expression, str):
        # What is left here is an empty or string-keyed list or object: eval() refuses
        # every such value before looking at it.
        raise TypeError("eval() arg 1 must be a string, bytes or code object")
    source = expression.lstrip(" \t")  # eval() drops leading spaces and tabs first
    if len(source) <= _SHALLOW_STACK_ABOVE:
        return _compile_and_run(source)
    return _on_fresh_thread(_compile_and_run, source)


def _compile_and_run(source: str) -> Value:
    with warnings.catch_warnings():
        # e.g. "(1)(2)" warns "'int' object is not callable; perhaps you missed a
        # comma?"; the warning must not become an error under strict filters.
        warnings.simplefilter("ignore")
        code = compile(source, "<string>", "eval")
        if "**" not in source:
            # Safe: the filter admits digits, operators, parentheses, dots and spaces only.
            return eval(code, {"__builtins__": None}, {})
        return _walk(ast.parse(source, "<string>", "eval"))


def _at_reference_limit(target: Callable[[], None]) -> None:
    """``target()`` under the recursion limit τ-bench ran with (the limit is process-wide,
    so it is set and restored under a lock, and only when the process changed it)."""
    with _LIMIT_LOCK:
        previous = sys.getrecursionlimit()
        if previous != _REFERENCE_RECURSION_LIMIT:
            sys.setrecursionlimit(_REFERENCE_RECURSION_LIMIT)
        try:
            target()
        finally:
            if previous != _REFERENCE_RECURSION_LIMIT:
                sys.setrecursionlimit(previous)


def _on_fresh_thread(function: Callable[[str], Value], argument: str) -> Value:
    """``function(argument)`` run at the bottom of a new thread's stack; re-raises."""
    results: list[Value] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            results.append(function(argument))
        except BaseException as exc:  # handed back to the caller's thread below
            errors.append(exc)

    worker = threading.Thread(
        target=_at_reference_limit, args=(target,), name="sscbench-calculate", daemon=True
    )
    worker.start()
    worker.join()
    if errors:
        raise errors[0]
    return results[0]


def _power(base: Value, exponent: Value) -> Value:
    if (
        type(base) is int
        and type(exponent) is int
        and abs(base) > 1
        and exponent > 0
        and (exponent > _MAX_POWER_BITS or exponent * math.log2(abs(base)) > _MAX_POWER_BITS)
    ):
        # What the reference reaches once float() meets the (astronomical) integer.
        raise OverflowError("int too large to convert to float")
    return operator.pow(base, exponent)


def _operands(node: ast.AST) -> list[ast.AST]:
    """The sub-expressions of ``node``, in the order Python evaluates them."""
    if isinstance(node, ast.Expression):
        return [node.body]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    if isinstance(node, ast.Call):
        # Without commas a call has at most one (possibly starred) argument.
        if node.args:
            arg = node.args[0]
            return [node.func, arg.value if isinstance(arg, ast.Starred) else arg]
        if node.keywords:
            return [node.func, node.keywords[0].value]
        return [node.func]
    if isinstance(node, ast.Constant):
        return []
    raise SyntaxError("invalid syntax")  # pragma: no cover - unreachable with the filter


def _constant(node: ast.Constant) -> Value:
    """The value of a literal the filter lets through (digits and dots: a number or ``...``)."""
    value = node.value
    if isinstance(value, int | float | EllipsisType):
        return value
    raise SyntaxError("invalid syntax")  # pragma: no cover - unreachable with the filter


def _call(node: ast.Call, values: list[Value]) -> NoReturn:
    """Call ``values[0]`` with the argument as written (plain, ``*``, ``**`` or none)."""
    if node.args:
        code = _CALL_STAR if isinstance(node.args[0], ast.Starred) else _CALL_PLAIN
    else:
        code = _CALL_DOUBLE_STAR if node.keywords else _CALL_EMPTY
    argument = values[1] if len(values) > 1 else None
    eval(code, {"__builtins__": None}, {"f": values[0], "a": argument})
    raise AssertionError("unreachable: no value of the expression language is callable")


def _combine(node: ast.AST, values: list[Value]) -> Value:
    """Apply ``node`` to its evaluated operands with Python's own operations."""
    if isinstance(node, ast.Constant):
        return _constant(node)
    if isinstance(node, ast.Expression):
        return values[0]
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Pow):
            return _power(values[0], values[1])
        return _BINARY[type(node.op)](values[0], values[1])
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](values[0])
    if isinstance(node, ast.Tuple):
        return tuple(values)
    assert isinstance(node, ast.Call)
    _call(node, values)


def _walk(root: ast.AST) -> Value:
    """Evaluate the tiny expression language the character filter allows.

    Operands are evaluated left to right and combined with Python's own operators, so
    results and exception messages are those of ``eval``; only runaway integer powers
    are cut short. The walk uses an explicit stack: an expression deep enough to pass
    the compiler must not hit Python's recursion limit here.
    """
    values: list[Value] = []
    stack: list[tuple[ast.AST, int]] = [(root, -1)]
    while stack:
        node, arity = stack.pop()
        if arity < 0:
            operands = _operands(node)
            stack.append((node, len(operands)))
            stack.extend((child, -1) for child in reversed(operands))
            continue
        args = values[len(values) - arity :] if arity else []
        del values[len(values) - arity :]
        values.append(_combine(node, args))
    return values[0]
