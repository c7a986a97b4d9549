"""The report's sections, one module each, listed once in page order (:data:`SECTIONS`).

A section module declares its ``ID`` (the page's stable anchor), its ``TITLE`` and
``build(ctx) -> Section``: the section (tables, figures, notes, or the one-line reason
it does not apply) with its CSV rows on ``Section.csvs``. Adding a section is one new
module here plus one line in :data:`SECTIONS`; ``SECTION_IDS``, ``TITLES`` and the
writer (:mod:`sscbench.report.build`) follow from the list. A module named
``<section>_<part>.py`` holds a sub-table of its section (the funnel's admission table,
the release gate …), not a section of its own.
"""

from __future__ import annotations

from typing import Protocol

from sscbench.report.context import ReportContext
from sscbench.report.model import Section
from sscbench.report.sections import (
    adoption,
    arrival,
    claims,
    configurations,
    cost,
    funnel,
    headline,
    oracle_settings,
    oracles,
    paired,
    recordings,
    release,
    reliance,
    runs,
    sensitivity,
    stance,
    unread,
    validation,
)


class SectionPart(Protocol):
    """What a section module provides."""

    ID: str
    TITLE: str

    def build(self, ctx: ReportContext) -> Section:
        """The section, built from the report's context."""
        ...


SECTIONS: tuple[SectionPart, ...] = (
    headline,
    configurations,
    funnel,
    validation,
    unread,
    arrival,
    adoption,
    reliance,
    stance,
    claims,
    sensitivity,
    paired,
    oracle_settings,
    oracles,
    release,
    recordings,
    cost,
    runs,
)
"""Every section in page order."""
SUMMARY: SectionPart = headline
"""Shown first but built last: it summarises the others, its counts link to run sets they
numbered, and it says how long the build took."""
SECTION_IDS = tuple(part.ID for part in SECTIONS)
TITLES = {part.ID: part.TITLE for part in SECTIONS}
