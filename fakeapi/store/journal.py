"""A store kept in a data directory: a write-ahead log plus snapshots, replayed on start — etcd's
WAL and snap files, simplified for one member and one event loop.

What is logged, each as one checksummed record (wal.py) written *before* the store changes:
- a commit: its revision and the records it installs (puts and tombstones), and the lease it
  revokes if it is a lease revocation (a revocation is one record with the deletes of its keys,
  so a crash never leaves keys on a forgotten lease);
- a compaction: its revision;
- a lease grant or renewal: id, TTL and deadline on the *lease clock*;
- a clock tick, once a second while leases exist.

The lease clock is the lessor's clock, made to continue across restarts: it resumes from the
last value logged, so time the server was down does not count against leases (as etcd's leases,
which resume their checkpointed remaining TTL) and a lease comes back with at most a second more
than it had left.

Directory layout: ``<index>.wal`` segments and ``<index>.snap`` snapshots (16 hex digits); the
snapshot of index i is the state before segment i. A snapshot is taken when the open segment
holds ``snapshot_records`` records or ``snapshot_bytes`` bytes, or as many as the newest
snapshot holds versions or bytes if that is more: a snapshot costs about what the store weighs,
so taking one only after as much was logged keeps its cost a fraction of the writes', and a
restart replays at most a snapshot's worth of log. The store is captured on its thread (lists
of immutable records, copied: milliseconds), a new segment starts, and a background thread
encodes and writes the snapshot (temporary file, fsync, rename) and only then deletes the
segments and snapshots it supersedes. Compaction bounds the snapshot. On
start: the newest snapshot, then every segment from its index, in order; a torn last record is
dropped (and truncated away); damage anywhere else refuses to start (``CorruptLog``). ``LOCK``
(flock) keeps a second server off a directory in use.
"""

from __future__ import annotations

import fcntl
import logging
import os
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import snapshot
from .snapshot import snapshot_indexes, snapshot_name
from .kv import KeyValue
from .lease import Lease
from .wal import CorruptLog, FsyncPolicy, SegmentWriter, fsync_directory, read_segment, segment_indexes, segment_name

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger("fakeapi.store")

#: etcd 3.6's --snapshot-count: records between two snapshots.
DEFAULT_SNAPSHOT_RECORDS = 10_000
#: ... or this many bytes of log, whichever comes first.
DEFAULT_SNAPSHOT_BYTES = 64 << 20
#: The default flush interval of ``FsyncPolicy.INTERVAL``, seconds.
DEFAULT_FSYNC_INTERVAL = 0.1
#: How often the lease clock is logged while leases exist, seconds.
CLOCK_TICK = 1.0

_COMMIT = struct.Struct("<cqqI")  # b"c", revision, revoked lease, number of changes
_CHANGE = struct.Struct("<IIqqq")  # key size, value size, create revision, version, lease
_COMPACT = struct.Struct("<cq")  # b"k", revision
_LEASE = struct.Struct("<cqqdd")  # b"l", id, ttl, deadline, clock
_CLOCK = struct.Struct("<cd")  # b"t", clock


class DataDirInUse(Exception):
    """Another process holds the data directory."""


class Journal:
    """The log of one ``Store`` in ``directory``: ``Journal.open`` loads the store and from then on
    every change of the store is logged (``store.journal``). Driven on the store's thread; only
    flushing (``FsyncPolicy.INTERVAL``) and snapshot writing run on threads of their own, on
    bytes the store's thread has finished with."""

    def __init__(self, store: Store, directory: Path, policy: FsyncPolicy, interval: float,
                 snapshot_records: int, snapshot_bytes: int, lock_fd: int) -> None:
        self.store = store
        self.directory = directory
        self.policy = policy
        self.interval = interval
        self.snapshot_records = snapshot_records
        self.snapshot_bytes = snapshot_bytes
        self._lock_fd = lock_fd
        self.segment = 1
        self.writer: SegmentWriter | None = None
        self._clock_logged = 0.0
        self._snapshot_thread: threading.Thread | None = None
        #: (bytes, versions) of the newest snapshot: the log may grow as large before the next.
        self._last_snapshot = (0, 0)
        #: Snapshots written, and what loading found: for logs, metrics and tests.
        self.snapshots_taken = 0
        self.replayed_records = 0
        self.dropped_torn_bytes = 0

    # ----------------------------------------------------------------- opening

    @classmethod
    def open(cls, store: Store, directory: Path, *, policy: FsyncPolicy = FsyncPolicy.INTERVAL,
             interval: float = DEFAULT_FSYNC_INTERVAL, snapshot_records: int = DEFAULT_SNAPSHOT_RECORDS,
             snapshot_bytes: int = DEFAULT_SNAPSHOT_BYTES,
             monotonic: Callable[[], float] = time.monotonic) -> Journal:
        """Load ``store`` (fresh) from ``directory`` (created if missing) and log to it from now on.
        ``monotonic`` is the time source the lease clock runs on (tests pass a fake one)."""
        directory.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(directory / "LOCK", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            raise DataDirInUse(f"{directory} is in use by another fakeapi") from None
        journal = cls(store, directory, policy, interval, snapshot_records, snapshot_bytes, lock_fd)
        try:
            journal._load(monotonic)
        except BaseException:
            journal._release()
            raise
        return journal

    def _load(self, monotonic: Callable[[], float]) -> None:
        store = self.store
        replay_clock = [0.0]  # the lease clock stands still while the log is replayed
        store.lessor.clock = lambda: replay_clock[0]
        first, self._last_snapshot = _load_newest(store, self.directory, replay_clock)
        segments = [i for i in segment_indexes(self.directory) if i >= first]
        if segments and segments != list(range(first, segments[-1] + 1)):
            raise CorruptLog(f"{self.directory}: log segments missing between {first} and {segments[-1]}")
        size = 0
        for i, index in enumerate(segments):
            path = self.directory / segment_name(index)
            records, size = read_segment(path)
            torn = path.stat().st_size - size
            if torn and i != len(segments) - 1:
                raise CorruptLog(f"{path}: damaged before the last segment")
            self.dropped_torn_bytes += torn
            for record in records:
                _replay(store, record, replay_clock)
            self.replayed_records += len(records)
        if self.dropped_torn_bytes:
            log.warning("%s: dropped a torn record at the end of the log (%d bytes)", self.directory,
                        self.dropped_torn_bytes)
        self.segment = segments[-1] if segments else first
        base, opened = replay_clock[0], monotonic()
        store.lessor.clock = lambda: base + (monotonic() - opened)
        self._clock_logged = base
        self.writer = SegmentWriter(self.directory / segment_name(self.segment), self.policy, self.interval,
                                    size if segments else 0)
        fsync_directory(self.directory)
        store.journal = self

    # ----------------------------------------------------------------- logging (the store calls these)

    def log_commit(self, revision: int, changes: list[tuple[KeyValue, KeyValue | None]], revoked_lease: int) -> None:
        parts = [_COMMIT.pack(b"c", revision, revoked_lease, len(changes))]
        pack = _CHANGE.pack
        for kv, _prev in changes:
            parts.append(pack(len(kv.key), len(kv.value), kv.create_revision, kv.version, kv.lease))
            parts.append(kv.key)
            parts.append(kv.value)
        self._append(b"".join(parts))

    def log_compact(self, revision: int) -> None:
        self._append(_COMPACT.pack(b"k", revision))

    def log_lease(self, lease: Lease) -> None:
        now = self.store.lessor.clock()
        self._append(_LEASE.pack(b"l", lease.id, lease.ttl, lease.deadline, now))
        self._clock_logged = now

    def _append(self, record: bytes) -> None:
        writer = self.writer
        if writer is None:
            raise RuntimeError("the journal is closed")
        writer.append(record)

    # ----------------------------------------------------------------- upkeep (a timer calls it)

    def tick(self) -> None:
        """Log the lease clock if leases exist and a second has passed; start a snapshot when
        the log has grown enough."""
        lessor = self.store.lessor
        if lessor.count():
            now = lessor.clock()
            if now - self._clock_logged >= CLOCK_TICK:
                try:
                    self._append(_CLOCK.pack(b"t", now))
                except OSError:  # the disk is full: writes fail and say so; the clock tries again
                    log.exception("%s: logging the lease clock failed", self.directory)
                    return
                self._clock_logged = now
        writer = self.writer
        if writer is None:
            return
        last_bytes, last_versions = self._last_snapshot
        if writer.records >= max(self.snapshot_records, last_versions) or \
                writer.size >= max(self.snapshot_bytes, last_bytes):
            try:
                self.snapshot()
            except OSError:
                log.exception("%s: starting a snapshot failed; the log goes on", self.directory)

    def snapshot(self) -> threading.Thread | None:
        """Snapshot the store now (unless one is being written): the state is encoded here, a
        new segment starts, and a thread writes the snapshot and then deletes what it
        supersedes. Returns that thread (None if one was already running)."""
        if self._snapshot_thread is not None and self._snapshot_thread.is_alive():
            return None
        image = snapshot.capture(self.store)
        old = self.writer
        assert old is not None
        # The new segment first: if it cannot be made, logging goes on where it was.
        writer = SegmentWriter(self.directory / segment_name(self.segment + 1), self.policy, self.interval)
        fsync_directory(self.directory)
        self.writer, self.segment = writer, self.segment + 1
        old.close()
        thread = threading.Thread(target=self._write_snapshot, args=(self.segment, image),
                                  name="snapshot", daemon=True)
        self._snapshot_thread = thread
        thread.start()
        return thread

    def _write_snapshot(self, index: int, image: snapshot.Image) -> None:
        started = time.perf_counter()
        try:
            chunks = image.chunks()
            snapshot.write_file(self.directory / snapshot_name(index), chunks)
            fsync_directory(self.directory)
            for old in segment_indexes(self.directory):
                if old < index:
                    os.unlink(self.directory / segment_name(old))
            for old in snapshot_indexes(self.directory):
                if old < index:
                    os.unlink(self.directory / snapshot_name(old))
            fsync_directory(self.directory)
        except OSError:
            log.exception("%s: writing snapshot %d failed; the log is kept", self.directory, index)
            return
        self.snapshots_taken += 1
        self._last_snapshot = (sum(map(len, chunks)), sum(map(len, image.histories)))
        log.info("%s: snapshot %d written (%d bytes, %.3f s)", self.directory, index, sum(map(len, chunks)),
                 time.perf_counter() - started)

    # ----------------------------------------------------------------- closing

    def close(self) -> None:
        """Flush everything and let the directory go (the store keeps its state, unlogged)."""
        if self._snapshot_thread is not None:
            self._snapshot_thread.join()
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        if self.store.journal is self:
            self.store.journal = None
        self._release()

    def _release(self) -> None:
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = -1


def _load_newest(store: Store, directory: Path, replay_clock: list[float]) -> tuple[int, tuple[int, int]]:
    """Load the newest snapshot into ``store``; returns its index (1 without any: the log then
    starts at segment 1) and its (bytes, versions)."""
    indexes = snapshot_indexes(directory)
    if not indexes:
        return 1, (0, 0)
    index = indexes[-1]

    def continue_clock(header: dict) -> None:
        replay_clock[0] = float(header["leaseClock"])

    path = directory / snapshot_name(index)
    header = snapshot.load_file(store, path, on_header=continue_clock)
    return index, (path.stat().st_size, int(header["versions"]))


def _replay(store: Store, record: memoryview, replay_clock: list[float]) -> None:
    kind = record[0]
    if kind == ord("c"):
        _tag, revision, revoked, count = _COMMIT.unpack_from(record)
        offset = _COMMIT.size
        kvs: list[KeyValue] = []
        for _ in range(count):
            key_size, value_size, create, version, lease = _CHANGE.unpack_from(record, offset)
            offset += _CHANGE.size
            key = bytes(record[offset:offset + key_size])
            offset += key_size
            value = bytes(record[offset:offset + value_size])
            offset += value_size
            kvs.append(KeyValue(key, create, revision, version, value, lease))
        if kvs and revision != store.revision + 1:
            raise CorruptLog(f"log record of revision {revision} after revision {store.revision}")
        if revoked and not store.lessor.exists(revoked):
            revoked = 0
        store.commit_logged(kvs, revoked)
    elif kind == ord("k"):
        (_tag, revision) = _COMPACT.unpack_from(record)
        if revision > store.compact_revision:
            store.compact(revision)
    elif kind == ord("l"):
        _tag, lease_id, ttl, deadline, now = _LEASE.unpack_from(record)
        replay_clock[0] = max(replay_clock[0], now)
        lessor = store.lessor
        if lessor.exists(lease_id):
            lessor.get(lease_id).deadline = deadline
        else:
            lessor.restore(lease_id, ttl, deadline)
    elif kind == ord("t"):
        (_tag, now) = _CLOCK.unpack_from(record)
        replay_clock[0] = max(replay_clock[0], now)
    else:
        raise CorruptLog(f"unknown log record type {kind}")


__all__ = ["CorruptLog", "DataDirInUse", "FsyncPolicy", "Journal"]
