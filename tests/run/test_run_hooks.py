"""The run hooks (``run/hooks.py``): the containment steps taken with them before any run
(their types are Protocols, which mypy checks against the hooks the top command passes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.run.hooks import abort_watch, containment_record


def _never(*_args: object) -> dict[str, object]:
    raise AssertionError("a hook was called without --containment")


def test_without_containment_no_hook_is_called(tmp_path: Path) -> None:
    assert containment_record(_never, None, None) is None
    assert abort_watch(_never, None, tmp_path, resume=False) is None


def test_containment_without_a_check_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot check a containment plan"):
        containment_record(None, None, tmp_path / "policy.toml")


def test_the_watch_is_made_for_the_policy_and_study(tmp_path: Path) -> None:
    made: list[tuple[Path, Path]] = []

    class Watch:
        abort = None

        def __call__(self, entry: object, /) -> bool:
            return False

    def watch(policy: Path, out: Path, /) -> Watch:
        made.append((policy, out))
        return Watch()

    policy = tmp_path / "policy.toml"
    assert isinstance(abort_watch(watch, policy, tmp_path, resume=True), Watch)
    assert made == [(policy, tmp_path)]
