"""Reading runs out of a study's shards (:mod:`sscbench.study.shards` is their format):
a run's last frame, its closed shard checked against its seal, its text against the
frame's sha256s, a damaged shard named.

Two ways to find a frame. A reader asked for one run (``sscbench show``) *searches*: it
reads the shards newest first, and only a shard whose bytes hold the run id's (every
frame header holds it uncompressed) is checked against its seal and scanned; the first
holding a frame of the run holds its last one (a run run again is appended to the open
shard, the newest), and within it the last such frame counts. A reader asked for many
runs (``measure``, the exporters, a resumed ``run``) *catalogues* every shard once after
:data:`SEARCHES` searches (:class:`~sscbench.study.shard_catalogue.Catalogue`: 16 bytes
a frame). Both give the same frame and the same damage for a run: a shard that fails
its seal or its scan is named by the read of any frame it holds, never skipped; a search
that finds no frame catalogues every shard, so a run found nowhere is reported with every
damaged shard named. A damaged shard may hide a run's later frame: then the frame found
is an older one, which the index's sha256s tell apart
(:meth:`~sscbench.study.runfiles.RunFiles.shard_problem` names the damaged shards).
"""

from __future__ import annotations

import bisect
from array import array
from pathlib import Path

import zstandard

from sscbench.errors import DataError, naming
from sscbench.study.shard_catalogue import Catalogue, shards_state
from sscbench.study.shards import (
    HEADER,
    IN_BLOCK,
    MAGIC,
    SEALS,
    VERSION,
    Frame,
    dictionary,
    read_seals,
    scan,
    sha256_hex,
    shard_files,
)

SEARCHES = 3
"""Runs a reader finds by searching the shards' bytes before it catalogues them all: a
search of a million-run study reads its 270 MB of shards once (~0.3 s) and scans one;
the catalogue scans every frame (~10 s) and then finds any run in microseconds."""


class ShardReader:
    """Finds and reads runs in a study's shards, checking seals and sha256s.

    Its first :data:`SEARCHES` lookups search the shards newest first (see the module);
    then it catalogues every shard (run id → its last frame: a run run again is appended
    again, and its index line always names the last one), again when a run is asked for
    that the catalogue does not hold (the study grew). The catalogue holds no object per
    run: two sorted arrays of 8 bytes a frame (:class:`Catalogue`: the run id's hash,
    where its frame's header is), the run id itself read back from that header."""

    def __init__(self, runs: Path):
        self.runs = runs
        # run id → shard number << 40 | its frame header's offset, 16 bytes a frame; a
        # frame's header is read again from its shard when the run is read
        self._where = Catalogue(array("q"), array("q"))
        self._dict_frames: dict[Path, list[Frame]] = {}  # each scanned shard's dictionary frames
        self._blocks: list[list[tuple[int, int, int]]] = []  # (first header, block, size)
        self._paths: list[Path] = []
        self.damage: dict[Path, str] = {}
        self._dicts: dict[tuple[Path, int], zstandard.ZstdDecompressor] = {}
        self._last: tuple[tuple[Path, int], bytes] | None = None
        self._built = False
        self._state: tuple[tuple[str, int, int, int], ...] = ()  # the files of the last scan
        self._found: dict[str, Frame] = {}  # runs found by searching, before a catalogue
        self.searches = 0  # lookups answered by searching

    def _scan(self, path: Path, data: bytes, seals: dict[str, dict[str, object]]) -> list[Frame]:
        """A shard's frames, its damage recorded (a closed shard whose sha256 differs from
        its seal, a scan stopped early) and its dictionary frames kept: what both ways of
        finding a run do with each shard they read."""
        self.damage.pop(path, None)
        seal = seals.get(path.name)
        if isinstance(seal, dict) and seal.get("sha256") != (actual := sha256_hex(data)):
            self.damage[path] = (
                f"sha256 {actual[:12]}… differs from the "
                f"{str(seal.get('sha256'))[:12]}… its seal in {SEALS} recorded "
                "(the closed shard was changed, cut or replaced)"
            )
        frames, _, why = scan(data, path)
        if why and path not in self.damage:
            self.damage[path] = f"damaged: {why}"
        self._dict_frames[path] = [f for f in frames if f.dicts == -1]
        return frames

    def build(self) -> None:
        """Scan every shard (checking each closed one against its seal)."""
        files = shard_files(self.runs)
        self._state = self._state_of(files)
        seals = read_seals(self.runs)
        self._dict_frames, self._blocks, self._paths = {}, [], []
        self.damage, self._dicts, self._last, self._found = {}, {}, None, {}
        keys, spots = array("q"), array("q")
        for number, path in enumerate(files):
            with naming(path):
                data = path.read_bytes()
            frames = self._scan(path, data, seals)
            self._paths.append(path)
            keys.extend([hash(frame.run_id) for frame in frames])
            spots.extend([number << 40 | frame.offset for frame in frames])
            self._blocks.append(
                [
                    (frame.offset, frame.block, frame.block_size)
                    for i, frame in enumerate(frames)
                    if frame.block >= 0 and (i == 0 or frames[i - 1].block != frame.block)
                ]
            )
        self._where = Catalogue(keys, spots)
        self._built = True

    def locate(self, run_id: str) -> Frame | None:
        """The run's last frame, or None when no shard holds one."""
        fresh = False  # the catalogue was built by this lookup: not again for a run it lacks
        if not self._built:
            if run_id in self._found:
                return self._found[run_id]
            if self.searches < SEARCHES:
                self.searches += 1
                frame = self._search(run_id)
                if frame is not None:
                    self._found[run_id] = frame
                    return frame
            self.build()  # many runs asked for, or none found: every shard catalogued
            fresh = True
        for attempt in (1, 2):
            try:
                frame = self._find(run_id)
            except (ValueError, UnicodeDecodeError, OSError):
                if attempt == 2:
                    raise
                frame, fresh = None, False  # the writer compacted that shard since: scan again
            if frame is not None or attempt == 2 or fresh:
                return frame
            if self._state == self._current():
                return None  # not held, and no shard changed since the scan
            self.build()  # not held: the study grew (or its shards changed) since
        return None

    def _current(self) -> tuple[tuple[str, int, int, int], ...]:
        """The shards' state now (:func:`shards_state`), to compare with the scan's."""
        return self._state_of(shard_files(self.runs))

    def _state_of(self, files: list[Path]) -> tuple[tuple[str, int, int, int], ...]:
        """The state of these shard files and of the seals file."""
        return shards_state(self.runs, [SEALS, *(p.name for p in files)])

    def _search(self, run_id: str) -> Frame | None:
        """The run's last frame without a catalogue: the shards read newest first, and
        the first whose bytes hold the run id's and whose scan finds a frame of the run
        gives its last such frame (see the module); None when none does."""
        try:
            needle = run_id.encode("utf-8")
        except UnicodeEncodeError:
            return None  # no frame header holds a lone surrogate
        seals = read_seals(self.runs)
        for path in reversed(shard_files(self.runs)):
            with naming(path):
                data = path.read_bytes()
            if needle not in data:
                continue
            frames = [frame for frame in self._scan(path, data, seals) if frame.run_id == run_id]
            if frames:
                return frames[-1]
        return None

    def _find(self, run_id: str) -> Frame | None:
        """The last frame of ``run_id`` the catalogue names (the frames of its hash read
        from the last, the first whose header names this run id)."""
        for spot in self._where.spots_of(hash(run_id)):
            frame = self._frame_at(spot >> 40, spot & ((1 << 40) - 1))
            if frame.run_id == run_id:
                return frame
        return None

    def _frame_at(self, number: int, offset: int) -> Frame:
        """The frame whose header starts at ``offset`` of shard ``number``, read again."""
        path = self._paths[number]
        with path.open("rb") as handle:
            handle.seek(offset)
            head = handle.read(HEADER.size)
            if len(head) < HEADER.size:
                raise ValueError(f"no frame starts at byte {offset}")
            id_len = HEADER.unpack(head)[3]
            data = head + handle.read(id_len)
        magic, version, _, id_len, led, ev, size, dicts, lsha, esha = HEADER.unpack_from(data)
        if magic != MAGIC or version != VERSION:
            raise ValueError(f"no frame starts at byte {offset}")
        run_id = data[HEADER.size :].decode("utf-8")
        if dicts != IN_BLOCK:
            return Frame(run_id, path, offset, led, ev, size, dicts, lsha.hex(), esha.hex())
        blocks = self._blocks[number]
        _first, block, block_size = blocks[bisect.bisect_right(blocks, (offset, 1 << 62)) - 1]
        return Frame(
            run_id, path, offset, led, ev, 0, dicts, lsha.hex(), esha.hex(), block, block_size, size
        )

    def shard_of(self, run_id: str) -> Path:
        """The shard holding the run (for messages), or the runs folder when none does."""
        frame = self.locate(run_id)
        return frame.shard if frame is not None else self.runs

    def hiding(self, frame: Frame) -> list[str]:
        """The damaged shards newer than ``frame``'s, each with why: one of them may hold
        a later frame of its run (a frame found there would have been refused)."""
        name = frame.shard.name
        return [f"{path.name} is {why}" for path, why in self.damage.items() if path.name > name]

    def read(self, run_id: str) -> tuple[bytes, bytes, Frame]:
        """The run's ledger and evaluator bytes, checked against its frame's sha256s and
        its closed shard against its seal; :class:`DataError` naming the shard and run."""
        frame = self.locate(run_id)
        field = f"run {run_id}"
        if frame is None:
            damaged = "; ".join(f"{p.name} is {why}" for p, why in self.damage.items())
            raise DataError(
                self.runs,
                field,
                "missing: the index records this run but no shard holds it"
                + (f" ({damaged})" if damaged else ""),
            )
        if frame.shard in self.damage:
            raise DataError(frame.shard, field, self.damage[frame.shard])
        try:
            text = self._checked_text(frame)
        except (zstandard.ZstdError, OSError, ValueError) as exc:
            raise DataError(frame.shard, field, f"its frame cannot be read ({exc})") from None
        ledger, evaluator = text[: frame.ledger_len], text[frame.ledger_len :]
        if (
            len(ledger) != frame.ledger_len
            or len(evaluator) != frame.evaluator_len
            or sha256_hex(ledger) != frame.ledger_sha256
            or sha256_hex(evaluator) != frame.evaluator_sha256
        ):
            raise DataError(
                frame.shard,
                field,
                "its frame's text differs from the sha256 the frame recorded (the shard "
                "was changed)",
            )
        return ledger, evaluator, frame

    def _checked_text(self, frame: Frame) -> bytes:
        """The frame's text; when it does not fit its sha256s, the shards are scanned
        again once (the writer may have compacted that shard since) and it is read anew."""
        text = self.text(frame)
        if sha256_hex(text[: frame.ledger_len]) == frame.ledger_sha256:
            return text
        self.build()
        again = self.locate(frame.run_id)
        return self.text(again) if again is not None else text

    def text(self, frame: Frame) -> bytes:
        """A frame's uncompressed text (ledger, then evaluator log), unchecked."""
        size = frame.ledger_len + frame.evaluator_len
        if frame.block >= 0:
            return self._block(frame)[frame.at : frame.at + size]
        with frame.shard.open("rb") as handle:
            handle.seek(frame.end - frame.size)
            packed = handle.read(frame.size)
        if frame.dicts < 0:
            return zstandard.ZstdDecompressor().decompress(packed, max_output_size=size)
        if frame.shard not in self._dict_frames:  # its shard alone, not every shard
            with naming(frame.shard):
                data = frame.shard.read_bytes()
            self._scan(frame.shard, data, read_seals(self.runs))
        key = (frame.shard, frame.dicts)
        if key not in self._dicts:
            sources = self._dict_frames[frame.shard][: frame.dicts]
            if len(sources) < frame.dicts:
                raise ValueError(f"its shard lacks the {frame.dicts} dictionary frames it names")
            self._dicts[key] = zstandard.ZstdDecompressor(
                dict_data=dictionary([self.text(source) for source in sources])
            )
        return self._dicts[key].decompress(packed, max_output_size=size)

    def _block(self, frame: Frame) -> bytes:
        """A sealed shard's block text (the last one read is kept: readers go in order)."""
        key = (frame.shard, frame.block)
        if self._last is None or self._last[0] != key:
            with frame.shard.open("rb") as handle:
                handle.seek(frame.block)
                packed = handle.read(frame.block_size)
            self._last = (key, zstandard.ZstdDecompressor().decompress(packed))
        return self._last[1]


__all__ = ["SEARCHES", "ShardReader"]
