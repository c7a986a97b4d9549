"""Hook tags: an id made from a tag gives the tag back; other ids give none."""

from __future__ import annotations

import pytest

from sscbench.faults.hooks import HookTag, hook_id, hook_tag
from sscbench.faults.surfaces import ACTIVATION_NOTES, activation_note


@pytest.mark.parametrize("tag", list(HookTag))
def test_an_id_made_from_a_tag_gives_the_tag_back(tag: HookTag) -> None:
    made = hook_id("airline:c:0001", tag)
    assert made == f"airline:c:0001:{tag.value}" and hook_tag(made) is tag


def test_an_id_of_no_tag_has_no_tag_and_no_note() -> None:
    assert hook_tag("c:not-a-tag") is None and hook_tag("") is None
    assert activation_note(hook_tag("c:not-a-tag")) is None
    assert activation_note(HookTag.TIMEOUT) is None  # a tag whose activation has no note


def test_every_note_is_keyed_by_a_tag() -> None:
    assert all(isinstance(tag, HookTag) for tag in ACTIVATION_NOTES)
    assert activation_note(hook_tag("c:stale")) == ACTIVATION_NOTES[HookTag.STALE]
