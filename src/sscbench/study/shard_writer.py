"""The sharded run store's one writer: runs appended as frames to the open shard, a
full shard compacted and sealed (the format: :mod:`sscbench.study.shards`)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import zstandard

from sscbench.core.files import atomic_path, atomic_write
from sscbench.errors import naming
from sscbench.study.shard_reader import ShardReader
from sscbench.study.shards import (
    BLOCK_RUNS,
    BLOCKS_MAGIC,
    LEVEL,
    MAX_DICTS,
    NAME,
    SEALS,
    SHARD_BYTES,
    SHARD_MAGIC,
    SHARD_RUNS,
    Frame,
    block,
    dictionary,
    header,
    read_seals,
    scan,
    sha256_hex,
    shard_files,
    shard_name,
)

FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)


class ShardWriter:
    """Appends runs to the open shard (one writer: the study's lock), sealing each shard
    when it is full. Thread-safe: frames are appended one at a time. With :attr:`hold`
    set, the open shard stays open from one frame to the next (closed by :meth:`close`,
    before a seal and before :meth:`open`)."""

    def __init__(self, runs: Path, shard_runs: int = SHARD_RUNS, shard_bytes: int = SHARD_BYTES):
        self.runs = runs
        self.shard_runs = shard_runs
        self.shard_bytes = shard_bytes
        self._lock = threading.Lock()
        self._opened = False
        self._number = 0
        self._size = 0
        self._frames = 0
        self._texts: list[bytes] = []  # the open shard's dictionary frames' texts
        self._packer: zstandard.ZstdCompressor | None = None
        self.hold = False
        self._fd: int | None = None  # the open shard's descriptor, while held

    def open(self) -> list[str]:
        """Make the store ready to append: cut a frame a kill left half-written off the
        open shard's end, seal an open shard that is full. Returns what it did."""
        done: list[str] = []
        self._close_fd()
        self.runs.mkdir(parents=True, exist_ok=True)
        seals = read_seals(self.runs)
        files = shard_files(self.runs)
        last = int(NAME.fullmatch(files[-1].name)[1]) if files else -1  # type: ignore[index]
        self._number, self._size, self._frames = last + 1, 0, 0
        self._texts, self._packer = [], None
        if files and files[-1].name not in seals:  # the open shard: append to it
            path = files[-1]
            self._number = last
            data = path.read_bytes()
            frames, end, _ = scan(data, path)
            if end < len(data):
                with naming(path), path.open("r+b") as handle:
                    handle.truncate(end)
                done.append(f"cut {len(data) - end} bytes a kill left at the end of {path.name}")
            self._size, self._frames = end, len(frames)
            reader = ShardReader(self.runs)
            self._texts = [reader.text(frame) for frame in frames if frame.dicts == -1]
            self._packer = self._compressor()
            if self._full():
                self._seal()
                done.append(f"sealed {path.name}")
        self._opened = True
        return done

    def _full(self) -> bool:
        return self._frames >= self.shard_runs or self._size >= self.shard_bytes

    @property
    def path(self) -> Path:
        """The open shard's file."""
        return self.runs / shard_name(self._number)

    def append(self, run_id: str, ledger: bytes, evaluator: bytes) -> tuple[str, str]:
        """Append one run as one frame (one ``os.write``); returns the sha256 of its ledger
        and of its evaluator bytes, the ones the index records."""
        shas = (sha256_hex(ledger), sha256_hex(evaluator))
        with self._lock:
            if not self._opened:
                self.open()
            frame = self._frame(run_id, ledger + evaluator, len(ledger), len(evaluator), shas)
            path = self.path
            with naming(path):
                fd = self._fd if self._fd is not None else os.open(path, FLAGS, 0o644)
                self._fd = fd
                try:
                    if self._size == 0:
                        os.write(fd, SHARD_MAGIC)
                        self._size = len(SHARD_MAGIC)
                    written = os.write(fd, frame)
                    if written != len(frame):
                        raise OSError(f"short write: {written} of {len(frame)} bytes")
                except OSError:
                    os.ftruncate(fd, self._size)  # a full disk: no half frame stays
                    self._close_fd()
                    raise
                if not self.hold:
                    self._close_fd()
            self._size += len(frame)
            self._frames += 1
            if self._full():
                self._seal()
        return shas

    def _close_fd(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def close(self) -> None:
        """Close the open shard's held descriptor and stop holding it (the next frame
        opens it again)."""
        with self._lock:
            self.hold = False
            self._close_fd()

    def _compressor(self) -> zstandard.ZstdCompressor | None:
        if not self._texts:
            return None
        return zstandard.ZstdCompressor(level=LEVEL, dict_data=dictionary(self._texts))

    def _frame(self, run_id: str, text: bytes, led: int, ev: int, shas: tuple[str, str]) -> bytes:
        """The frame's bytes, compressed against the shard's dictionary (or alone, making
        this frame a dictionary frame when the dictionary saves less than half)."""
        dicts = len(self._texts)
        packed = self._packer.compress(text) if self._packer is not None else b""
        if self._packer is None or len(self._texts) < MAX_DICTS:
            alone = len(zstandard.ZstdCompressor(level=3).compress(text))  # a quick measure
            if self._packer is None or len(packed) * 2 > alone:
                packed, dicts = zstandard.ZstdCompressor(level=LEVEL).compress(text), -1
                self._texts.append(text)
                self._packer = self._compressor()
        name = run_id.encode("utf-8")
        return header(name, led, ev, len(packed), dicts, shas) + name + packed

    def seal(self) -> None:
        """Compact and seal the open shard now, when it holds a frame (a conversion's
        last shard: nothing will be appended to it)."""
        with self._lock:
            if not self._opened:
                self.open()
            if self._frames:
                self._seal()

    def _seal(self) -> None:
        """Compact the full shard into blocks (:func:`~sscbench.study.shards.block`,
        written block by block to a temporary file renamed over it), record its sha256
        in ``shards.json``, start the next shard.

        A kill before the rename leaves the shard as it was, a kill before the seal a
        compacted shard unsealed: either is sealed by the next :meth:`open`. A shard with
        a frame whose text fails its sha256 is sealed as it is (readers refuse that run)."""
        self._close_fd()  # the shard is replaced by its compacted copy
        path = self.path
        frames, _, damage = scan(path.read_bytes(), path)
        if damage is None and frames and frames[0].block < 0:
            try:
                with atomic_path(path) as tmp, tmp.open("wb") as out:
                    out.write(BLOCKS_MAGIC)
                    reader = ShardReader(self.runs)
                    for start in range(0, len(frames), BLOCK_RUNS):
                        chunk = frames[start : start + BLOCK_RUNS]
                        out.write(block([(frame, _whole(reader, frame)) for frame in chunk]))
            except _Broken:
                pass  # the temporary file is gone, the shard is as it was
        data = path.read_bytes()
        seals = read_seals(self.runs)
        seals[path.name] = {"sha256": sha256_hex(data), "bytes": len(data), "frames": len(frames)}
        body = {"format": 1, "sealed": dict(sorted(seals.items()))}
        atomic_write(self.runs / SEALS, json.dumps(body, indent=1, sort_keys=True).encode())
        self._number += 1
        self._size, self._frames, self._texts, self._packer = 0, 0, [], None


class _Broken(Exception):
    """A frame whose text does not fit its sha256s: its shard is not compacted."""


def _whole(reader: ShardReader, frame: Frame) -> bytes:
    try:
        text = reader.text(frame)
    except (zstandard.ZstdError, OSError, ValueError) as exc:
        raise _Broken from exc
    if sha256_hex(text[: frame.ledger_len]) != frame.ledger_sha256 or (
        sha256_hex(text[frame.ledger_len :]) != frame.evaluator_sha256
    ):
        raise _Broken
    return text


__all__ = ["ShardWriter"]
