"""An exact set of run ids that keeps no string: each id as its hash and where a line names it.

A study of a million runs has a million run ids of ~70 characters; a Python ``set`` of
them costs ~150–250 bytes an id (the string, its hash slot). The readers that stream a
study's index or plan only need to ask "seen before?" / "planned?", and the ids are all
written in a file they read line by line. :class:`LineIds` keeps, for each distinct id,
its 64-bit hash and the byte offset of the line it was read from (16 bytes, in dense
``array``\\ s), and an open-addressing table of 4-byte slots over them (kept at most half
full): 24–32 bytes an id, no object per id.

Exact, never probable: a hash is only a candidate; an id is found only when the line at
the recorded offset, read again (``os.pread``), names that very id. Two different ids of
one hash are both kept. For the index's repeats, a hash match is rare (a repeated line,
or a 2⁻⁶⁴ coincidence), so the index is re-read only then; a plan test confirms every
planned id (one short read of a line the page cache holds).
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Collection

_MASK = (1 << 64) - 1
_FIRST_SIZE = 1 << 10
_BLOCK = 4096


def line_at(fd: int, offset: int) -> bytes:
    """The bytes of the line starting at ``offset`` of an open file, without its newline
    (read with ``os.pread``: the descriptor's position is not moved)."""
    chunks: list[bytes] = []
    while True:
        block = os.pread(fd, _BLOCK, offset)
        if not block:
            break
        cut = block.find(b"\n")
        if cut >= 0:
            chunks.append(block[:cut])
            break
        chunks.append(block)
        offset += len(block)
    return b"".join(chunks)


class LineIds:
    """An exact set of ids read from the lines of one file, each kept as its hash and its
    line's offset; ``names(offset)`` gives the ids the line at that offset holds (what
    confirms a hash match)."""

    def __init__(
        self, names: Callable[[int], Collection[object]], key: Callable[[str], int] = hash
    ):
        self._names = names
        self._key = key  # a test may pass one that collides, to show matches are confirmed
        self._hashes = array("Q")  # dense: the i-th distinct id's hash
        self._offsets = array("Q")  # dense: the offset of the line it was read from
        self._slots = array("I", bytes(4 * _FIRST_SIZE))  # 0 empty, else dense index + 1

    def __len__(self) -> int:
        return len(self._hashes)

    def _find(self, run_id: str, key: int) -> int:
        """The slot of ``run_id``: where it is, or the empty slot it would take (negative:
        ``-1 - slot``)."""
        slots, hashes = self._slots, self._hashes
        mask = len(slots) - 1
        slot = key & mask
        while True:
            held = slots[slot]
            if held == 0:
                return -1 - slot
            if hashes[held - 1] == key and run_id in self._names(self._offsets[held - 1]):
                return slot
            slot = (slot + 1) & mask

    def __contains__(self, run_id: object) -> bool:
        return isinstance(run_id, str) and self._find(run_id, self._key(run_id) & _MASK) >= 0

    def place(self, run_id: str) -> int | None:
        """The order in which ``run_id`` was first kept (0: the first id), None when it
        is not here: a place in a file's order without a string per id."""
        slot = self._find(run_id, self._key(run_id) & _MASK)
        return None if slot < 0 else self._slots[slot] - 1

    def offset(self, run_id: str) -> int | None:
        """The offset of the line ``run_id`` was first kept from, None when it is not here."""
        place = self.place(run_id)
        return None if place is None else self._offsets[place]

    def add(self, run_id: str, offset: int) -> bool:
        """Keep ``run_id``, read from the line at ``offset``; False (nothing kept) when
        it is already here."""
        key = self._key(run_id) & _MASK
        slot = self._find(run_id, key)
        if slot >= 0:
            return False
        self._hashes.append(key)
        self._offsets.append(offset)
        self._slots[-1 - slot] = len(self._hashes)
        if 2 * len(self._hashes) > len(self._slots):
            self._grow()
        return True

    def _grow(self) -> None:
        """Double the slots and place every id again from its hash (no line is read)."""
        slots = array("I", bytes(8 * len(self._slots)))
        mask = len(slots) - 1
        for number, key in enumerate(self._hashes, start=1):
            slot = key & mask
            while slots[slot]:
                slot = (slot + 1) & mask
            slots[slot] = number
        self._slots = slots
