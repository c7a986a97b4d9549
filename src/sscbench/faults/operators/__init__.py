"""The four SSCBench operators: ReturnDate, PaySource, ItemOption, WriteEffect."""

from sscbench.faults.operators.item_option import ItemOption
from sscbench.faults.operators.pay_source import PaySource
from sscbench.faults.operators.return_date import ReturnDate
from sscbench.faults.operators.write_effect import WriteEffect

SSCBENCH_OPERATORS = (ReturnDate, PaySource, ItemOption, WriteEffect)
"""The four operators' classes, in the one default order."""
DEFAULT_OPERATORS: tuple[str, ...] = tuple(op.name for op in SSCBENCH_OPERATORS)
"""The default operators of a study (``[cases] operators``), of ``sscbench candidates`` /
``admit`` (``--operators``) and of the Inspect task: the one list, in the order studies
have always run them."""

__all__ = [
    "DEFAULT_OPERATORS",
    "SSCBENCH_OPERATORS",
    "ItemOption",
    "PaySource",
    "ReturnDate",
    "WriteEffect",
]
