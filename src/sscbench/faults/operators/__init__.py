"""The four SSCBench operators: ReturnDate, PaySource, ItemOption, WriteEffect."""

from sscbench.faults.operators.item_option import ItemOption
from sscbench.faults.operators.pay_source import PaySource
from sscbench.faults.operators.return_date import ReturnDate
from sscbench.faults.operators.write_effect import WriteEffect

SSCBENCH_OPERATORS = (ReturnDate, ItemOption, PaySource, WriteEffect)

__all__ = ["SSCBENCH_OPERATORS", "ItemOption", "PaySource", "ReturnDate", "WriteEffect"]
