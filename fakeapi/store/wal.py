"""Write-ahead log files: checksummed records appended to numbered segment files.

A record on disk is ``<u32 length><u32 crc32(payload)><payload>`` (little-endian), like etcd's
WAL frames with their CRCs. Reading stops at the first record that is not whole and intact:

- if nothing intact follows it (its length runs past the end of the file, or it and everything
  after it is zeros — what a crash or power failure during an append leaves), it is a *torn
  tail*: the reader reports where the intact part ends and the writer truncates there;
- otherwise the segment is corrupt in the middle, which no crash of ours produces: reading fails
  with ``CorruptLog`` rather than silently dropping acknowledged writes after it.

Durability is the writer's policy (``FsyncPolicy``): every record reaches the operating system
(``write(2)``) before ``append`` returns, so a process crash never loses an appended record;
``always`` also flushes it to the disk first, ``interval`` flushes from a background thread at
most ``interval`` seconds after it was appended, ``never`` leaves flushing to the OS.
"""

from __future__ import annotations

import enum
import os
import struct
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

_FRAME = struct.Struct("<II")
#: The largest record accepted when reading: a length beyond it is damage, not a record.
MAX_RECORD_BYTES = 1 << 30

SEGMENT_SUFFIX = ".wal"


class CorruptLog(Exception):
    """A damaged record with intact data after it: the log cannot be replayed safely."""


class FsyncPolicy(enum.Enum):
    ALWAYS = "always"
    INTERVAL = "interval"
    NEVER = "never"


def segment_name(index: int) -> str:
    return f"{index:016x}{SEGMENT_SUFFIX}"


def numbered_files(directory: Path, suffix: str) -> list[int]:
    """The indexes of the files named ``<16 hex digits><suffix>`` in ``directory``, in order."""
    found = []
    for entry in os.scandir(directory):
        stem = entry.name[:-len(suffix)]
        if entry.name.endswith(suffix) and len(stem) == 16 and entry.is_file():
            try:
                found.append(int(stem, 16))
            except ValueError:
                continue
    return sorted(found)


def segment_indexes(directory: Path) -> list[int]:
    return numbered_files(directory, SEGMENT_SUFFIX)


def frame(payload: bytes) -> bytes:
    return _FRAME.pack(len(payload), zlib.crc32(payload)) + payload


def read_records(data: bytes, name: str = "log") -> tuple[list[memoryview], int]:
    """The intact records of one segment's bytes and the offset where they end (``len(data)``
    unless the tail is torn). Raises ``CorruptLog`` for damage with intact records after it."""
    view = memoryview(data)
    records = []
    offset = 0
    end = len(data)
    header = _FRAME.size
    while offset < end:
        if end - offset < header:
            break  # a torn header
        length, crc = _FRAME.unpack_from(data, offset)
        start = offset + header
        if length == 0 or length > MAX_RECORD_BYTES:
            if not any(view[offset:]):  # zeros: blocks allocated but never written
                break
            raise CorruptLog(f"{name}: bad record length {length} at offset {offset}")
        if start + length > end:
            break  # a torn record
        payload = view[start:start + length]
        if zlib.crc32(payload) != crc:
            if start + length == end or not any(view[start + length:]):
                break  # the last record, torn
            raise CorruptLog(f"{name}: checksum mismatch at offset {offset}")
        records.append(payload)
        offset = start + length
    return records, offset


class SegmentWriter:
    """Appends records to one segment file, flushing them by ``policy``."""

    def __init__(self, path: Path, policy: FsyncPolicy, interval: float, size: int = 0) -> None:
        self.path = path
        self.policy = policy
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        os.lseek(self.fd, size, os.SEEK_SET)
        os.ftruncate(self.fd, size)  # drops a torn tail left by the last run
        self.size = size
        self.records = 0
        self._dirty = False
        self._lock = threading.Lock()  # the flusher thread and close() never race on the fd
        self._stop = threading.Event()
        self._flusher: threading.Thread | None = None
        if policy is FsyncPolicy.INTERVAL:
            self._flusher = threading.Thread(target=self._flush_every, args=(interval,),
                                             name=f"wal flush {path.name}", daemon=True)
            self._flusher.start()

    def append(self, record: bytes) -> None:
        """Append one record; on failure (disk full, I/O error) the file is cut back to what it
        was, so the caller, which changes nothing when this raises, and the log agree."""
        data = memoryview(frame(record))
        try:
            while data:  # a regular file writes short only when the disk is full
                data = data[os.write(self.fd, data):]
            if self.policy is FsyncPolicy.ALWAYS:
                os.fdatasync(self.fd)
        except OSError:
            os.ftruncate(self.fd, self.size)
            os.lseek(self.fd, self.size, os.SEEK_SET)
            raise
        self.size += len(record) + _FRAME.size
        self.records += 1
        if self.policy is not FsyncPolicy.ALWAYS:
            self._dirty = True

    def _flush_every(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self.flush()

    def flush(self) -> None:
        with self._lock:
            if self._dirty and self.fd >= 0:
                self._dirty = False
                os.fdatasync(self.fd)

    def close(self) -> None:
        """Flush what is pending and close (any policy: a clean stop loses nothing)."""
        self._stop.set()
        if self._flusher is not None:
            self._flusher.join()
        with self._lock:
            if self.fd >= 0:
                os.fdatasync(self.fd)
                os.close(self.fd)
                self.fd = -1


def read_segment(path: Path) -> tuple[list[memoryview], int]:
    return read_records(path.read_bytes(), path.name)


def iter_segments(directory: Path, first: int) -> Iterator[tuple[int, Path]]:
    for index in segment_indexes(directory):
        if index >= first:
            yield index, directory / segment_name(index)


def fsync_directory(directory: Path) -> None:
    """Make renames and removals in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
