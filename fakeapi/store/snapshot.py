"""A whole store in one file: what ``fakeapi snapshot save`` writes, what a data directory keeps
beside its log, and what ``--from-snapshot`` loads.

A snapshot holds everything a restart must bring back: every retained version of every key (so
reads at past revisions and watches from them still work down to the compaction point), the
revision log since the compaction point with each event's ``prev_kv``, the revision, the
compaction revision, and the leases with the time each has left.

Layout (little-endian): ``MAGIC``, a JSON header, then sections of columns, then the crc32 of
all that precedes it. Columns, not records: a store of 100,000 objects is cut into its
``KeyValue`` records by a few C-level passes (``array``, ``zip``, ``map``) instead of a Python
loop per record, which is what makes loading it take a fraction of a second.

Sections, each ``<u64 length><bytes>``:
  keys        the distinct keys, concatenated, in key order
  key_sizes   u32 per key
  versions    u32 per key: how many retained versions it has (its history's length)
  values      every version's value, concatenated, key by key, oldest version first
  value_sizes u32 per version
  create, mod, version, lease   i64 per version
  log_sizes   u32 per logged revision (from ``log_base``): its number of events
  log_kv      u32 per logged event: the version it installed (an index into the versions)
  log_prev    i32 per logged event: its ``prev_kv`` (an index), or -1 for none
"""

from __future__ import annotations

import contextlib
import mmap
import os
import shutil
import struct
import sys
import time
import zlib
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import accumulate, chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..runtime import collector_paused
from .kv import Event, EventType, KeyValue
from .kvstore import KVContents
from .wal import numbered_files

if TYPE_CHECKING:
    from .store import Store

MAGIC = b"fakeapi-snapshot\x00\x01"
_U64 = struct.Struct("<Q")
_SECTIONS = ("keys", "key_sizes", "versions", "values", "value_sizes", "create", "mod", "version", "lease",
             "log_sizes", "log_kv", "log_prev")
_TYPECODES = {"key_sizes": "I", "versions": "I", "value_sizes": "I", "create": "q", "mod": "q", "version": "q",
              "lease": "q", "log_sizes": "I", "log_kv": "I", "log_prev": "i"}
_BIG_ENDIAN = sys.byteorder == "big"


SNAPSHOT_SUFFIX = ".snap"


def snapshot_indexes(directory: Path) -> list[int]:
    return numbered_files(directory, SNAPSHOT_SUFFIX)


def snapshot_name(index: int) -> str:
    return f"{index:016x}{SNAPSHOT_SUFFIX}"


class SnapshotError(Exception):
    """Not a snapshot, or a damaged one."""


@dataclass(slots=True)
class SnapshotInfo:
    """What ``fakeapi snapshot status`` prints (etcdctl's: hash, revision, keys, size)."""

    revision: int
    compact_revision: int
    keys: int
    versions: int
    leases: int
    size: int
    crc32: int


def _column(code: str, values: object) -> bytes:
    arr = array(code, values)  # type: ignore[call-overload]
    if _BIG_ENDIAN:
        arr.byteswap()
    return arr.tobytes()


def _read_column(code: str, data: memoryview) -> array:
    arr = array(code)
    arr.frombytes(data)
    if _BIG_ENDIAN:
        arr.byteswap()
    return arr


@dataclass(frozen=True, slots=True)
class Image:
    """A store at one revision, taken on the store's thread (``capture``) in a few tens of
    milliseconds per 100,000 keys: the lists of records are copied, the records themselves are
    immutable and shared. Encoding it (``chunks``) may then run on any thread while the store
    goes on."""

    keys: list[bytes]
    histories: list[list[KeyValue]]
    log: list[tuple[Event, ...]]
    header: dict[str, Any]

    def chunks(self) -> list[bytes]:
        """The snapshot file's bytes, as chunks to write in order (the last one the crc32)."""
        keys, histories = self.keys, self.histories
        kvs = list(chain.from_iterable(histories))
        if kvs:
            _keys, creates, mods, versions, values, leases = zip(*kvs)
        else:
            creates = mods = versions = values = leases = ()
        position = {id(kv): i for i, kv in enumerate(kvs)}
        events = list(chain.from_iterable(self.log))
        columns: dict[str, list[bytes]] = {
            "keys": [b"".join(keys)],
            "key_sizes": [_column("I", map(len, keys))],
            "versions": [_column("I", map(len, histories))],
            # Joined a few MiB at a time: no one step holds the interpreter long.
            "values": _batches(values),
            "value_sizes": [_column("I", map(len, values))],
            "create": [_column("q", creates)],
            "mod": [_column("q", mods)],
            "version": [_column("q", versions)],
            "lease": [_column("q", leases)],
            "log_sizes": [_column("I", map(len, self.log))],
            "log_kv": [_column("I", [position[id(ev.kv)] for ev in events])],
            "log_prev": [_column("i", [-1 if ev.prev_kv is None else position[id(ev.prev_kv)] for ev in events])],
        }
        header = orjson.dumps({**self.header, "keys": len(keys), "versions": len(kvs)})
        chunks = [MAGIC, _U64.pack(len(header)), header]
        for name in _SECTIONS:
            chunks.append(_U64.pack(sum(map(len, columns[name]))))
            chunks.extend(columns[name])
        crc = 0
        for chunk in chunks:
            crc = zlib.crc32(chunk, crc)  # lets go of the interpreter for chunks over 5 KiB
        chunks.append(struct.pack("<I", crc))
        return chunks


def capture(store: Store) -> Image:
    """The store as it is now; runs on the store's thread (a 100,000-key store: ~30 ms)."""
    lessor = store.lessor
    now = lessor.clock()
    with collector_paused():
        contents = store.contents()
    return Image(contents.keys, contents.histories, contents.log, {
        "revision": contents.revision,
        "compactRevision": contents.compact_revision,
        "logBase": contents.log_base,
        "nextLeaseId": lessor.next_id,
        # The lessor's clock when saved: a data directory's clock continues from it.
        "leaseClock": now,
        # Time left, not deadlines: the reader's clock is not ours.
        "leases": [[lease.id, lease.ttl, max(0.0, lease.deadline - now)] for lease in lessor.all()],
        "savedAt": time.time(),
    })


def encode(store: Store) -> list[bytes]:
    """``capture`` and encode at once (on the store's thread)."""
    return capture(store).chunks()


def _batches(values: tuple[bytes, ...], size: int = 4 << 20) -> list[bytes]:
    batches = []
    start = 0
    total = 0
    for i, value in enumerate(values):
        total += len(value)
        if total >= size:
            batches.append(b"".join(values[start:i + 1]))
            start, total = i + 1, 0
    batches.append(b"".join(values[start:]))
    return batches


def _split(data: bytes, start: int, sizes: array) -> list[bytes]:
    """The bytes of ``data`` from ``start`` on, cut into pieces of ``sizes``: slicing the bytes
    object itself, one copy per piece and no view objects in between."""
    ends = list(accumulate(sizes, initial=start))
    return list(map(data.__getitem__, map(slice, ends, ends[1:])))


def parse(data: bytes) -> tuple[dict, dict[str, tuple[int, int]], int]:
    """Check ``data`` and find its parts: (header, section name -> (offset, size), crc32)."""
    if len(data) < len(MAGIC) + 12 or data[:len(MAGIC)] != MAGIC:
        raise SnapshotError("not a fakeapi snapshot (bad magic)")
    offset = len(MAGIC)
    sections: dict[str, tuple[int, int]] = {}
    try:
        (size,) = _U64.unpack_from(data, offset)
        header = orjson.loads(data[offset + 8:offset + 8 + size])
        offset += 8 + size
        for name in _SECTIONS:
            (size,) = _U64.unpack_from(data, offset)
            sections[name] = (offset + 8, size)
            offset += 8 + size
        if offset != len(data) - 4 or not isinstance(header, dict):
            raise SnapshotError("malformed snapshot: sections do not add up")
    except (struct.error, orjson.JSONDecodeError, SnapshotError) as err:
        # Damage is the likelier story, and the more useful message.
        _check_crc(data, struct.unpack_from("<I", data, len(data) - 4)[0])
        raise SnapshotError(f"malformed snapshot: {err}") from None
    (crc,) = struct.unpack_from("<I", data, len(data) - 4)
    return header, sections, crc


def _check_crc(data: bytes, crc: int) -> None:
    with memoryview(data) as view:
        computed = zlib.crc32(view[:-4])
    if computed != crc:
        raise SnapshotError("snapshot checksum mismatch: the file is damaged or incomplete")


def info(data: bytes) -> SnapshotInfo:
    header, _sections, crc = parse(data)
    _check_crc(data, crc)
    return SnapshotInfo(header["revision"], header["compactRevision"], header["keys"], header["versions"],
                        len(header["leases"]), len(data), crc)


def load(store: Store, data: bytes, on_header: Callable[[dict], None] | None = None) -> dict:
    """Fill ``store``, which must be fresh (revision 1, nothing written), from snapshot bytes;
    returns the header. Raises ``SnapshotError`` for anything that is not an intact snapshot
    (the store is then to be thrown away). ``on_header`` sees the header first (a data
    directory sets the lessor's clock from it).

    The checksum is computed on another thread while the store is filled (zlib lets go of the
    GIL), and the cyclic garbage collector is held off meanwhile: the load allocates a few
    hundred thousand containers, none of them garbage."""
    # A store still at revision 1 has never been written (a write moves the revision).
    if store.revision != 1 or store.lessor.all():
        raise ValueError("a snapshot loads only into a fresh store")
    header, sections, crc = parse(data)
    with ThreadPoolExecutor(1, thread_name_prefix="snapshot crc") as pool:
        checked = pool.submit(_check_crc, data, crc)
        try:
            if on_header is not None:
                on_header(header)
            with collector_paused():
                _install(store, header, data, sections)
        except (KeyError, IndexError, TypeError, ValueError) as err:
            checked.result()  # damage explains it better, if that is what it is
            raise SnapshotError(f"malformed snapshot: {err!r}") from None
        checked.result()
    return header


def load_file(store: Store, path: Path, on_header: Callable[[dict], None] | None = None) -> dict:
    """``load`` from a file, mapped rather than read: each value is copied once, straight from
    the page cache into its bytes object."""
    with mapped_file(path) as mapped:
        return load(store, mapped, on_header)  # type: ignore[arg-type]


@contextlib.contextmanager
def mapped_file(path: Path) -> Iterator[mmap.mmap]:
    """The snapshot file at ``path``, mapped read-only with its pages faulted in at once."""
    with path.open("rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            raise SnapshotError(f"{path}: empty file")
        mapped = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0),
                           prot=mmap.PROT_READ)
    try:
        yield mapped
    finally:
        with contextlib.suppress(BufferError):  # a view held by a traceback: unmapped with it
            mapped.close()


def _install(store: Store, header: dict, data: bytes, sections: dict[str, tuple[int, int]]) -> None:
    with memoryview(data) as view:
        col = {name: _read_column(code, view[sections[name][0]:sum(sections[name])])
               for name, code in _TYPECODES.items()}
    keys = _split(data, sections["keys"][0], col["key_sizes"])
    counts = col["versions"]
    values = _split(data, sections["values"][0], col["value_sizes"])
    if not (len(keys) == len(counts) and sum(counts) == len(values) == len(col["create"]) == len(col["mod"])
            == len(col["version"]) == len(col["lease"])):
        raise ValueError("column lengths differ")
    single = all(c == 1 for c in counts)
    entry_keys = keys if single else list(chain.from_iterable(map(repeat, keys, counts)))
    # tuple.__new__ straight from C: KeyValue's own constructor is a Python function.
    kvs = list(map(tuple.__new__, repeat(KeyValue),
                   zip(entry_keys, col["create"], col["mod"], col["version"], values, col["lease"])))
    if single:
        histories = list(map(list, zip(kvs)))
    else:
        ends = list(accumulate(counts))
        histories = [kvs[start:end] for start, end in zip([0, *ends], ends)]
    # The revision log: each event refers to versions by index.
    put, delete = EventType.PUT, EventType.DELETE
    events = [
        Event(delete if kv.version == 0 else put, kv, None if prev < 0 else kvs[prev])
        for kv, prev in zip(map(kvs.__getitem__, col["log_kv"]), col["log_prev"])
    ]
    ends = list(accumulate(col["log_sizes"]))
    log = [tuple(events[start:end]) for start, end in zip([0, *ends], ends)]
    store.restore(KVContents(keys, histories, log, int(header["revision"]), int(header["compactRevision"]),
                             int(header["logBase"])))
    lessor = store.lessor
    now = lessor.clock()
    for lease_id, ttl, remaining in header["leases"]:
        lessor.restore(int(lease_id), int(ttl), now + float(remaining))
    lessor.next_id = max(lessor.next_id, int(header["nextLeaseId"]))
    for key, h in zip(keys, histories):
        last = h[-1]
        if last.lease and last.version:
            lessor.attach(last.lease, key)


def write_file(path: Path, chunks: list[bytes]) -> None:
    """Write snapshot chunks to ``path`` atomically and durably (a temporary file renamed)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def restore(path: Path, directory: Path) -> SnapshotInfo:
    """``etcdctl snapshot restore``: make ``directory`` (missing or empty) a data directory whose
    store is the snapshot at ``path``. The snapshot's checksum and layout are checked before
    anything is written; the data directory's first start loads it."""
    if directory.exists() and any(directory.iterdir()):
        raise FileExistsError(f"{directory} is not empty: restore into a new data directory")
    with mapped_file(path) as mapped:
        checked = info(mapped)  # type: ignore[arg-type]
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / (snapshot_name(1) + ".tmp")
    shutil.copyfile(path, tmp)
    with tmp.open("rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, directory / snapshot_name(1))
    return checked
