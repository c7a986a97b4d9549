"""The jinja2 environment of the report's HTML templates (autoescape everywhere)."""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, PackageLoader, select_autoescape


@cache
def environment() -> Environment:
    """Templates from ``sscbench/report/templates`` with HTML autoescape on every file."""
    return Environment(
        loader=PackageLoader("sscbench.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
