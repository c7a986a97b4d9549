"""The sharded run store: many runs' ledgers and evaluator logs in a few append-only files.

A study of tens of thousands of runs would hold two files per run; here its runs are
appended to ``runs/shard-NNNNNN.shard``, one *frame* per run:

``header`` (:data:`HEADER`, 92 bytes: magic, version, the run id's length, the ledger's
and the evaluator log's uncompressed lengths, the compressed length, how many of the
shard's dictionary frames make this frame's dictionary or -1 when it is one itself, the
sha256 of the ledger bytes and of the evaluator bytes) · ``run id`` (UTF-8) · a
``zstd frame`` of ledger + log.

The sha256s are of the same bytes the per-file layout writes, so the index records the
same ``ledger_sha256`` / ``evaluator_sha256`` in both layouts and stays byte-identical.

Why zstd with a dictionary: one run's text compresses about 6× alone, but runs of one
study repeat each other (system prompt, tool schemas, policy, catalogue rows), so a
frame compressed against the text of earlier runs of the same shard (a raw-content
dictionary: the concatenated text of the shard's *dictionary frames*) is about 20×
smaller, and stays readable by itself (random access: one frame and the shard's
dictionary frames). zlib (stdlib) was measured first: its 32 KB window cannot reach a
repeat further back than 32 KB, and a τ-bench run is 20-60 KB, so a zlib dictionary
saved ~10% (5.1 KB a run against 1.7 KB here). A frame that its dictionary compresses
to more than half of what it compresses to alone (e.g. the first run of another domain)
becomes a dictionary frame itself, up to :data:`MAX_DICTS` per shard: chosen by size
alone, so the same writes give the same bytes.

One writer (the study's lock) appends a whole frame with a single ``os.write``; a
frame cut by a kill is the shard's tail, ignored by every reader and cut off by the
next writer (:meth:`~sscbench.study.shard_writer.ShardWriter.open`). A shard is closed
after :data:`SHARD_RUNS` frames or :data:`SHARD_BYTES` bytes, *compacted* into blocks of
:data:`BLOCK_RUNS` runs (:func:`block`: ~0.3 KB a run, written whole and renamed over
the shard) and *sealed*: its sha256 is recorded in ``runs/shards.json`` (written
atomically); every reader checks a closed shard against its seal and each frame's text
against its sha256s before handing it out.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import struct
from array import array
from dataclasses import dataclass, replace
from pathlib import Path

import zstandard

from sscbench.errors import DataError, naming
from sscbench.reading import loads_json
from sscbench.study.shard_catalogue import Catalogue, shards_state

MAGIC = b"SSCR"
VERSION = 1
HEADER = struct.Struct("<4sBBHIIIq32s32s")
"""magic, version, flags, run id length, ledger length, evaluator length, compressed
length, dictionary frame offset (-1: none), ledger sha256, evaluator sha256."""
SHARD_MAGIC = b"SSCSHARD1\n"
"""The first bytes of every shard file: what it is and its format."""
SHARD_RUNS = 1000
"""Frames in a shard before it is sealed."""
SHARD_BYTES = 16 << 20
"""Bytes in a shard before it is sealed (whichever limit comes first)."""
MAX_DICTS = 4
"""Dictionary frames a shard may hold (their text is the dictionary of later frames)."""
LEVEL = 9
"""zstd's level: 0.55 ms a run, 1.7 KB (level 3: 0.2 ms, 2.1 KB; 19: 11 ms, 1.6 KB)."""
BLOCKS_MAGIC = b"SSCSHARDB\n"
"""The first bytes of a sealed shard, compacted into blocks (:func:`compact`)."""
BLOCK = struct.Struct("<4sII")
"""A block's head: magic, how many frames, the compressed bytes of their texts."""
BLOCK_MAGIC = b"SSCB"
BLOCK_RUNS = 64
"""Runs a block of a sealed shard holds (64: ~190 B a run, read in ~0.5 ms)."""
IN_BLOCK = -2
"""The dictionary field of a frame header inside a block (its size field: where its
text starts in the block's text)."""
SEALS = "shards.json"
SUFFIX = ".shard"
NAME = re.compile(r"shard-(\d{6})\.shard")


def shard_name(number: int) -> str:
    """The file name of shard ``number``."""
    return f"shard-{number:06d}{SUFFIX}"


@dataclass(frozen=True, slots=True)
class Frame:
    """One run's frame as its header says: where it is and what its text hashes to."""

    run_id: str
    shard: Path
    offset: int
    ledger_len: int
    evaluator_len: int
    size: int  # compressed bytes
    dicts: int  # the shard's first ``dicts`` dictionary frames are its dictionary; -1: one itself
    ledger_sha256: str
    evaluator_sha256: str
    block: int = -1  # a sealed shard's frame: where its block's compressed bytes start
    block_size: int = 0  # that block's compressed bytes
    at: int = 0  # where the run's text starts in the block's text

    @property
    def end(self) -> int:
        """The offset just past the frame."""
        return self.offset + HEADER.size + len(self.run_id.encode("utf-8")) + self.size


def _parse_header(data: bytes, offset: int, shard: Path) -> Frame | None:
    """The frame starting at ``offset`` of ``data``; None when it is cut (the tail a kill
    left); :class:`ValueError` when it is not a frame."""
    if len(data) - offset < HEADER.size:
        return None
    magic, version, _, id_len, led, ev, size, dict_at, lsha, esha = HEADER.unpack_from(data, offset)
    if magic != MAGIC or version != VERSION:
        raise ValueError(f"no frame starts at byte {offset}")
    start = offset + HEADER.size
    if len(data) < start + id_len:
        return None
    run_id = data[start : start + id_len].decode("utf-8")
    frame = Frame(run_id, shard, offset, led, ev, size, dict_at, lsha.hex(), esha.hex())
    return frame if frame.end <= len(data) else None


def scan(data: bytes, shard: Path) -> tuple[list[Frame], int, str | None]:
    """Every whole frame of a shard's bytes, the offset where whole frames end, and why
    the scan stopped early (damage), if it did."""
    if data.startswith(BLOCKS_MAGIC):
        return _scan_blocks(data, shard)
    if not data.startswith(SHARD_MAGIC):
        return [], 0, "it does not start as a shard file"
    frames: list[Frame] = []
    offset = len(SHARD_MAGIC)
    while offset < len(data):
        try:
            frame = _parse_header(data, offset, shard)
        except (ValueError, UnicodeDecodeError) as exc:
            return frames, offset, str(exc) if isinstance(exc, ValueError) else "bad run id"
        if frame is None:
            break  # cut by a kill: not a finished run
        frames.append(frame)
        offset = frame.end
    return frames, offset, None


def block(chunk: list[tuple[Frame, bytes]]) -> bytes:
    """One block of a sealed shard: up to :data:`BLOCK_RUNS` frames' headers, then their
    texts as one zstd frame. Runs of a study repeat each other, so a block of 64 stores a
    τ-bench run in ~350 bytes (its header ~150 of them) where a frame of its own against
    the shard's dictionary takes ~1,700; a run is read by decompressing its block
    (~0.5 ms). A sealed shard is :data:`BLOCKS_MAGIC` and its blocks."""
    headers, at = [], 0
    for frame, text in chunk:
        name = frame.run_id.encode("utf-8")
        headers.append(header(name, frame.ledger_len, frame.evaluator_len, at, IN_BLOCK, frame))
        headers.append(name)
        at += len(text)
    packed = zstandard.ZstdCompressor(level=LEVEL).compress(b"".join(t for _, t in chunk))
    return b"".join([BLOCK.pack(BLOCK_MAGIC, len(chunk), len(packed)), *headers, packed])


def header(
    name: bytes, led: int, ev: int, size: int, dicts: int, shas: Frame | tuple[str, str]
) -> bytes:
    """A frame header (:data:`HEADER`) for a run id ``name`` (UTF-8)."""
    lsha, esha = (shas.ledger_sha256, shas.evaluator_sha256) if isinstance(shas, Frame) else shas
    return HEADER.pack(
        MAGIC, VERSION, 0, len(name), led, ev, size, dicts, bytes.fromhex(lsha), bytes.fromhex(esha)
    )


def _scan_blocks(data: bytes, shard: Path) -> tuple[list[Frame], int, str | None]:
    """The frames of a sealed (compacted) shard; it is written whole, so nothing is cut."""
    frames: list[Frame] = []
    offset = len(BLOCKS_MAGIC)
    while offset < len(data):
        damaged = (frames, offset, f"a block is damaged at byte {offset}")
        if len(data) - offset < BLOCK.size:
            return damaged
        magic, count, packed = BLOCK.unpack_from(data, offset)
        if magic != BLOCK_MAGIC:
            return damaged
        offset += BLOCK.size
        members = []
        for _ in range(count):
            if len(data) - offset < HEADER.size:
                return damaged
            magic, version, _, id_len, led, ev, at, dicts, lsha, esha = HEADER.unpack_from(
                data, offset
            )
            start = offset + HEADER.size
            try:
                run_id = data[start : start + id_len].decode("utf-8")
            except UnicodeDecodeError:
                return damaged
            if magic != MAGIC or version != VERSION or dicts != IN_BLOCK:
                return damaged
            members.append((run_id, offset, led, ev, dicts, lsha.hex(), esha.hex(), at))
            offset = start + id_len
        if offset + packed > len(data):
            return damaged
        frames += [  # built whole: dataclasses.replace cost more than the scan itself
            Frame(run_id, shard, head, led, ev, 0, dicts, lsha, esha, offset, packed, at)
            for run_id, head, led, ev, dicts, lsha, esha, at in members
        ]
        offset += packed
    return frames, offset, None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_seals(runs: Path) -> dict[str, dict[str, object]]:
    """The closed shards' seals (``runs/shards.json``): name → sha256, bytes, frames."""
    path = runs / SEALS
    if not path.exists():
        return {}
    try:
        seals = loads_json(path.read_bytes())["sealed"]
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise DataError(path, "sealed", f"unreadable: {exc}") from None
    if not isinstance(seals, dict):
        raise DataError(path, "sealed", "expected an object of shard name -> seal")
    return seals


def shard_files(runs: Path) -> list[Path]:
    """The study's shard files in order."""
    if not runs.is_dir():
        return []
    return sorted(p for p in runs.iterdir() if NAME.fullmatch(p.name))


class ShardReader:
    """Finds and reads runs in a study's shards, checking seals and sha256s.

    The catalogue (run id → its last frame: a run run again is appended again, and its
    index line always names the last one) is built once, on first use, and again when a
    run is asked for that it does not hold (the study grew). It holds no object per run:
    two sorted arrays of 8 bytes a frame (:class:`Catalogue`: the run id's hash, where
    its frame's header is), the run id itself read back from that header."""

    def __init__(self, runs: Path):
        self.runs = runs
        # run id → shard number << 40 | its frame header's offset, 16 bytes a frame; a
        # frame's header is read again from its shard when the run is read
        self._where = Catalogue(array("q"), array("q"))
        self._dict_frames: list[list[Frame]] = []  # each shard's dictionary frames
        self._blocks: list[list[tuple[int, int, int]]] = []  # (first header, block, size)
        self._paths: list[Path] = []
        self.damage: dict[Path, str] = {}
        self._dicts: dict[tuple[int, int], zstandard.ZstdDecompressor] = {}
        self._last: tuple[tuple[Path, int], bytes] | None = None
        self._built = False
        self._state: tuple[tuple[str, int, int, int], ...] = ()  # the files of the last scan

    def build(self) -> None:
        """Scan every shard (checking each closed one against its seal)."""
        files = shard_files(self.runs)
        self._state = shards_state(self.runs, [SEALS, *(p.name for p in files)])
        seals = read_seals(self.runs)
        self._dict_frames, self._blocks, self._paths = [], [], []
        self.damage, self._dicts, self._last = {}, {}, None
        keys, spots = array("q"), array("q")
        for number, path in enumerate(files):
            with naming(path):
                data = path.read_bytes()
            seal = seals.get(path.name)
            if isinstance(seal, dict) and seal.get("sha256") != sha256_hex(data):
                self.damage[path] = (
                    f"sha256 {sha256_hex(data)[:12]}… differs from the "
                    f"{str(seal.get('sha256'))[:12]}… its seal in {SEALS} recorded "
                    "(the closed shard was changed, cut or replaced)"
                )
            frames, _, why = scan(data, path)
            if why and path not in self.damage:
                self.damage[path] = f"damaged: {why}"
            self._paths.append(path)
            self._dict_frames.append([f for f in frames if f.dicts == -1])
            blocks: dict[int, tuple[int, int, int]] = {}
            for frame in frames:
                keys.append(hash(frame.run_id))
                spots.append(number << 40 | frame.offset)
                if frame.block >= 0 and frame.block not in blocks:
                    blocks[frame.block] = (frame.offset, frame.block, frame.block_size)
            self._blocks.append(list(blocks.values()))
        self._where = Catalogue(keys, spots)
        self._built = True

    def locate(self, run_id: str) -> Frame | None:
        """The run's last frame, or None when no shard holds one."""
        if not self._built:
            self.build()
        for attempt in (1, 2):
            try:
                frame = self._find(run_id)
            except (ValueError, UnicodeDecodeError, OSError):
                if attempt == 2:
                    raise
                frame = None  # the writer compacted that shard since: scan it again
            else:
                if frame is None and self._state == self._current():
                    return None  # not held, and no shard changed since the scan
            if frame is not None or attempt == 2:
                return frame
            self.build()  # not held: the study grew (or its shards changed) since
        return None

    def _current(self) -> tuple[tuple[str, int, int, int], ...]:
        """The shards' state now (:func:`shards_state`), to compare with the scan's."""
        return shards_state(self.runs, [SEALS, *(p.name for p in shard_files(self.runs))])

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
        frame = Frame(run_id, path, offset, led, ev, size, dicts, lsha.hex(), esha.hex())
        if dicts != IN_BLOCK:
            return frame
        blocks = self._blocks[number]
        _first, block, block_size = blocks[bisect.bisect_right(blocks, (offset, 1 << 62)) - 1]
        return replace(frame, size=0, block=block, block_size=block_size, at=size)

    def shard_of(self, run_id: str) -> Path:
        """The shard holding the run (for messages), or the runs folder when none does."""
        frame = self.locate(run_id)
        return frame.shard if frame is not None else self.runs

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
        if frame.shard not in self._paths:
            self.build()
        number = self._paths.index(frame.shard)
        key = (number, frame.dicts)
        if key not in self._dicts:
            sources = self._dict_frames[number][: frame.dicts]
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


def dictionary(texts: list[bytes]) -> zstandard.ZstdCompressionDict:
    """The raw-content dictionary of a shard's dictionary frames' texts."""
    return zstandard.ZstdCompressionDict(b"".join(texts), dict_type=zstandard.DICT_TYPE_RAWCONTENT)


__all__ = [
    "SEALS",
    "SUFFIX",
    "Frame",
    "ShardReader",
    "block",
    "dictionary",
    "header",
    "read_seals",
    "scan",
    "sha256_hex",
    "shard_files",
    "shard_name",
]
