"""The jinja2 environment of the report's HTML templates (autoescape everywhere)."""

from __future__ import annotations

import re
from functools import cache

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

# a range ("92.6–100.0%", "min–max") or a short hyphenated id ("tell-then-readback"): the
# dash is a line-break opportunity the browser takes when a table is tight, splitting an
# interval or a name over two lines; table cells, headers and short names keep them
# whole (prose may still break after a hyphen, as print does)
KEEP = re.compile(r"[\w.]+%?–[\w.]+%?|\b[\w.]+(?:-[\w.]+)+\b")
KEEP_MAX = 32  # longer ids (run ids) may still wrap rather than widen their column


def keep_ranges(value: object) -> Markup:
    """``value`` escaped, each numeric range and short hyphenated name in a
    ``<span class="nw">`` that does not wrap, so no interval breaks at its dash and no
    name at its hyphen (the text itself is unchanged)."""

    def keep(m: re.Match[str]) -> str:
        word = m.group(0)
        return f'<span class="nw">{word}</span>' if len(word) <= KEEP_MAX else word

    return Markup(KEEP.sub(keep, escape(value)))


@cache
def environment() -> Environment:
    """Templates from ``sscbench/report/templates`` with HTML autoescape on every file."""
    env = Environment(
        loader=PackageLoader("sscbench.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["keep_ranges"] = keep_ranges
    return env
