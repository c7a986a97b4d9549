"""The release keeps a trial per unit, each record and verdict once for all the runs that
gave an equal one (``release/trials.SharedRecords``): a shared record is equal to the
one it stands for, never merely of the same digest."""

from __future__ import annotations

from pydantic import BaseModel

from sscbench.release import trials
from sscbench.release.trials import SharedRecords


class _Seen(BaseModel):
    step: int
    note: str


class _Record(BaseModel):
    system: str
    score: float | int
    seen: list[_Seen]


def _record(score: float | int = 1, note: str = "read back") -> _Record:
    return _Record(system="case-1", score=score, seen=[_Seen(step=3, note=note)])


def test_equal_records_are_kept_once_and_others_apart():
    shared = SharedRecords()
    first = shared.keep(_record())
    again = shared.keep(_record())
    assert again is first and first == _record()
    other = shared.keep(_record(note="never read"))
    assert other is not first and other == _record(note="never read")
    as_float = shared.keep(_record(score=1.0))  # 1.0 is not 1 in the evidence's JSON
    assert as_float is not first and type(as_float.score) is float


def test_records_of_one_digest_are_shared_only_when_equal(monkeypatch):
    class _Same:
        def __init__(self, *args, **kwargs):
            pass

        def digest(self):
            return b"0" * 16

    monkeypatch.setattr(trials.hashlib, "blake2b", _Same)  # every record one digest
    shared = SharedRecords()
    first = shared.keep(_record())
    other = shared.keep(_record(note="never read"))
    assert other is not first and other == _record(note="never read")
    assert shared.keep(_record()) is first
