"""The shard reader's catalogue: where each run's frame is, in two sorted arrays.

A dict of run id → place held ~300 bytes a run (the id's string, the dict's slot, the
int); a study resumed after 200,000 runs kept ~70 MB of it while it ran. The catalogue
keeps 16 bytes a frame: the run id's ``hash`` and the frame's place, sorted by hash.
A hash only names candidates; the reader reads each candidate frame's header, which
holds the run id, and takes the one that matches, so two ids of one hash are told
apart exactly.
"""

from __future__ import annotations

import os
from array import array
from pathlib import Path

import numpy


class Catalogue:
    """Where each frame is, by its run id's ``hash``: two arrays sorted by hash (frames of
    one hash in the order they were written), 16 bytes a frame and no object per run. A
    hash names candidates only: the caller reads each candidate's run id from its header."""

    def __init__(self, keys: array[int], spots: array[int]):
        order = numpy.argsort(numpy.frombuffer(keys, dtype=numpy.int64), kind="stable")
        self.keys = numpy.frombuffer(keys, dtype=numpy.int64)[order]
        self.spots = numpy.frombuffer(spots, dtype=numpy.int64)[order]

    def spots_of(self, key: int) -> list[int]:
        """The spots of the frames whose run id hashes to ``key``, the last written first."""
        low = int(numpy.searchsorted(self.keys, key, side="left"))
        high = int(numpy.searchsorted(self.keys, key, side="right"))
        return [int(spot) for spot in self.spots[low:high][::-1]]


def shards_state(runs: Path, names: list[str]) -> tuple[tuple[str, int, int, int], ...]:
    """What a catalogue of ``runs``' shards (and seals file) ``names`` was built from:
    each file's name, inode, size and modification time. A run the catalogue lacks is
    looked for again only when this changed (the study grew, a shard was compacted or
    sealed): a report asking for each run that never ran no longer scans every shard."""
    state = []
    for name in names:
        try:
            info = os.stat(runs / name)
        except FileNotFoundError:
            continue
        state.append((name, info.st_ino, info.st_size, info.st_mtime_ns))
    return tuple(state)


__all__ = ["Catalogue", "shards_state"]
