"""The report's sections are listed once: every section module is in ``SECTIONS`` (a
``<section>_<part>`` module is a sub-table of its section), and the ids, titles and the
page order all follow from that list."""

from __future__ import annotations

from pathlib import Path

import sscbench.report.sections as sections
from sscbench.report.sections import SECTION_IDS, SECTIONS, SUMMARY, TITLES


def test_every_section_module_is_listed_once_and_the_ids_follow_the_list():
    folder = Path(sections.__file__).parent
    stems = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    listed = [part.build.__module__.rsplit(".", 1)[1] for part in SECTIONS]
    assert len(set(listed)) == len(listed)
    parts = {s for s in stems - set(listed) if s.split("_", 1)[0] in listed}
    assert stems == set(listed) | parts  # a module is a section or one section's part
    assert tuple(part.ID for part in SECTIONS) == SECTION_IDS
    assert len(set(SECTION_IDS)) == len(SECTION_IDS)
    assert {part.ID: part.TITLE for part in SECTIONS} == TITLES
    assert SECTIONS[0] is SUMMARY and SECTION_IDS[0] == "headline"
    assert all(callable(part.build) for part in SECTIONS)
