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

import hashlib
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import zstandard

from sscbench.errors import DataError
from sscbench.reading import loads_json

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
    """The frames of a sealed (compacted) shard; it is written whole, so nothing is cut.
    Each :class:`Frame` is made once, from its header and its block's place (made, then
    copied twice by ``dataclasses.replace``, it cost 19 of the 30 s that cataloguing a
    million-run study took)."""
    frames: list[Frame] = []
    offset, end, unpack = len(BLOCKS_MAGIC), len(data), HEADER.unpack_from
    while offset < end:
        damaged = (frames, offset, f"a block is damaged at byte {offset}")
        if end - offset < BLOCK.size:
            return damaged
        magic, count, packed = BLOCK.unpack_from(data, offset)
        if magic != BLOCK_MAGIC:
            return damaged
        offset += BLOCK.size
        members = []
        for _ in range(count):
            if end - offset < HEADER.size:
                return damaged
            magic, version, _, id_len, led, ev, at, dicts, lsha, esha = unpack(data, offset)
            start = offset + HEADER.size
            try:
                run_id = data[start : start + id_len].decode("utf-8")
            except UnicodeDecodeError:
                return damaged
            if magic != MAGIC or version != VERSION or dicts != IN_BLOCK:
                return damaged
            members.append((run_id, offset, led, ev, at, lsha, esha))
            offset = start + id_len
        if offset + packed > end:
            return damaged
        frames += [
            Frame(
                run_id,
                shard,
                head,
                led,
                ev,
                0,
                IN_BLOCK,
                lsha.hex(),
                esha.hex(),
                offset,
                packed,
                at,
            )
            for run_id, head, led, ev, at, lsha, esha in members
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


def dictionary(texts: list[bytes]) -> zstandard.ZstdCompressionDict:
    """The raw-content dictionary of a shard's dictionary frames' texts."""
    return zstandard.ZstdCompressionDict(b"".join(texts), dict_type=zstandard.DICT_TYPE_RAWCONTENT)


__all__ = [
    "SEALS",
    "SUFFIX",
    "Frame",
    "block",
    "dictionary",
    "header",
    "read_seals",
    "scan",
    "sha256_hex",
    "shard_files",
    "shard_name",
]
