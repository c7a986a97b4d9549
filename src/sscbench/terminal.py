"""Text from users and data made safe for the terminal.

Console output is Rich markup: a message holding ``[...]`` would lose the brackets'
content (``'sscbench[local]'`` printed as ``'sscbench'``) or raise ``MarkupError``
(``nodir[/x]here``), and a control byte from a file name (ESC) would reach the
terminal raw. Every piece of user or data text printed through Rich goes through
:func:`safe`; :func:`plain` is the same for ``print``.
"""

from __future__ import annotations

import os
import re
import sys

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from sscbench.errors import os_error_text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text: object) -> str:
    """``text`` with control characters (ESC, BEL, CR, ...) shown as ``\\x1b`` escapes;
    newlines and tabs are kept."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def safe(text: object) -> str:
    """``text`` made printable and escaped for Rich markup (shown exactly as written)."""
    return escape(plain(text))


def error_text(message: object, label: str = "error:") -> Text:
    """A red ``error:`` label followed by the message as plain text (never parsed as markup);
    an ``OSError`` is written ``FILE: reason`` (:func:`~sscbench.errors.os_error_text`)."""
    if isinstance(message, OSError):
        message = os_error_text(message)
    return Text.assemble((label, "red"), " ", plain(message))


def print_error(console: Console, message: object) -> None:
    """Print ``error: message`` on ``console`` with the message shown exactly as written."""
    console.print(error_text(message), highlight=False, soft_wrap=True)


# Rich lays tables out for 80 columns when output is not a terminal; a table written to
# a file or a pipe (``sscbench release STUDY > evidence.txt``) then wraps every cell.
_FILE_WIDTH = 160


def table_console(*, stderr: bool = False) -> Console:
    """A console for commands that print wide tables: the terminal's width on a terminal,
    ``$COLUMNS`` when set, else 160 columns when written to a file or a pipe."""
    stream = sys.stderr if stderr else sys.stdout
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return Console(stderr=stderr, width=int(columns))
    if stream.isatty():
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=_FILE_WIDTH)


def count(number: int, word: str, plural: str | None = None) -> str:
    """``number`` and ``word`` agreeing in number ("1 configuration", "2 configurations",
    "1 faulted run"): the one place the CLI's and the report's counts are worded."""
    return f"{number} {word if number == 1 else (plural or word + 's')}"
