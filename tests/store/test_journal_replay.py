"""The store's write-ahead log and snapshots (fakeapi/store/journal.py, wal.py): what a restart
brings back is exactly the store that was logged — revisions, history, the revision log with
its events, compaction, leases with their keys and remaining TTL — and damage is handled as etcd
handles its WAL: a torn last record dropped, anything else refused."""

from __future__ import annotations

import errno
import os
import random
from pathlib import Path
from typing import Any

import pytest

from fakeapi.store import (
    Compare,
    CompareResult,
    CompareTarget,
    CorruptLog,
    DataDirInUse,
    DeleteRangeRequest,
    ErrCompacted,
    FsyncPolicy,
    Journal,
    PutRequest,
    RangeRequest,
    Store,
    TxnRequest,
    snapshot,
    wal,
)


def open_on_fake_time(directory: Path) -> tuple[list[float], Store, Journal]:
    """A store journaled in ``directory`` whose lease clock runs on ``now[0]``, moved by hand."""
    now = [1000.0]
    store = Store()
    return now, store, Journal.open(store, directory, monotonic=lambda: now[0])


def state(store: Store) -> tuple[Any, ...]:
    """Everything a restart must bring back, comparable."""
    live = [kv.key for kv in store.range(RangeRequest(b"\0", b"\0", keys_only=True)).kvs]
    return (store.contents(), live, sorted((lease.id, lease.ttl, sorted(lease.keys)) for lease in store.lessor.all()),
            store.lessor.next_id)


def reopen(journal: Journal, directory: Path, **options: Any) -> tuple[Store, Journal]:
    journal.close()
    store = Store()
    return store, Journal.open(store, directory, **options)


def segment_files(directory: Path) -> list[Path]:
    return [directory / wal.segment_name(i) for i in wal.segment_indexes(directory)]


def random_workload(store: Store, rng: random.Random, n: int) -> None:
    """Puts, deletes, multi-key txns (a key put then deleted in one txn), compactions, lease
    grants, attachments, revocations and renewals."""
    leases: list[int] = []
    for _ in range(n):
        key = f"/k/{rng.randrange(12)}".encode()
        op = rng.random()
        if op < 0.45:
            lease = rng.choice(leases) if leases and rng.random() < 0.3 else 0
            store.put(PutRequest(key, rng.randbytes(rng.randrange(40)), lease=lease))
        elif op < 0.6:
            store.delete_range(DeleteRangeRequest(key, b"/k/9" if rng.random() < 0.3 else b""))
        elif op < 0.7:
            store.txn(TxnRequest(
                compare=(Compare(key, CompareTarget.VERSION, CompareResult.GREATER, 0),),
                success=(PutRequest(b"/t/a", b"1"), DeleteRangeRequest(b"/t/", b"\0")),
                failure=(PutRequest(key, b"created"), PutRequest(b"/t/b", b"2"))))
        elif op < 0.75 and store.revision > store.compact_revision + 3:
            store.compact(rng.randrange(max(store.compact_revision + 1, 2), store.revision + 1))
        elif op < 0.85:
            leases.append(store.lease_grant(rng.randrange(10, 100)).id)
        elif op < 0.92 and leases:
            store.lease_revoke(leases.pop(rng.randrange(len(leases))))
        elif leases:
            store.lease_keep_alive(rng.choice(leases))


@pytest.mark.parametrize("policy", list(FsyncPolicy))
def test_replay_brings_back_exactly_what_was_logged(tmp_path: Path, policy: FsyncPolicy) -> None:
    rng = random.Random(13)
    store = Store()
    journal = Journal.open(store, tmp_path, policy=policy)
    random_workload(store, rng, 400)
    before = state(store)
    restored, journal = reopen(journal, tmp_path, policy=policy)
    assert state(restored) == before
    # Revisions continue: never reused.
    assert restored.put(PutRequest(b"/after", b"x")).header_revision == before[0].revision + 1
    journal.close()


def test_snapshots_bound_the_log_and_replay_from_snapshot_plus_log(tmp_path: Path) -> None:
    rng = random.Random(7)
    store = Store()
    journal = Journal.open(store, tmp_path, snapshot_records=50)
    for round_ in range(10):
        random_workload(store, rng, 60)
        journal.tick()  # takes a snapshot once the segment holds 50 records
        if journal._snapshot_thread is not None:
            journal._snapshot_thread.join()
        # Only the newest snapshot and the segments from it on are kept.
        assert len(snapshot.snapshot_indexes(tmp_path)) <= 1
        assert len(segment_files(tmp_path)) <= 2, round_
    assert journal.snapshots_taken >= 5
    random_workload(store, rng, 30)  # some records after the last snapshot
    before = state(store)
    restored, journal = reopen(journal, tmp_path)
    assert state(restored) == before
    assert 0 < journal.replayed_records < 60
    journal.close()


def test_compaction_is_kept(tmp_path: Path) -> None:
    store = Store()
    journal = Journal.open(store, tmp_path)
    for i in range(10):
        store.put(PutRequest(b"/k", b"v%d" % i))
    store.compact(6)
    restored, journal = reopen(journal, tmp_path)
    assert restored.compact_revision == 6
    with pytest.raises(ErrCompacted):
        restored.range(RangeRequest(b"/k", revision=5))
    assert restored.range(RangeRequest(b"/k", revision=6)).kvs[0].value == b"v4"
    # A watch from the compaction point still gets every event since.
    stream = restored.new_stream()
    stream.watch(b"/k", b"", start_revision=7)
    assert [ev.kv.value for resp in stream.poll() for ev in resp.events] == [b"v5", b"v6", b"v7", b"v8", b"v9"]
    journal.close()


def test_leases_resume_with_their_remaining_ttl_and_keys(tmp_path: Path) -> None:
    now, store, journal = open_on_fake_time(tmp_path)
    lease = store.lease_grant(60).id
    store.put(PutRequest(b"/owned", b"x", lease=lease))
    now[0] += 20
    journal.tick()  # logs the lease clock: 20 s of the lease are spent
    now[0] += 0.4  # less than a tick: not logged, so at most this much is given back
    journal.close()

    now[0] += 3600  # the server is down for an hour: that does not count against leases
    store = Store()
    journal = Journal.open(store, tmp_path, monotonic=lambda: now[0])
    ttl = store.lease_time_to_live(lease, keys=True)
    assert (ttl.ttl, ttl.granted_ttl, ttl.keys) == (40, 60, (b"/owned",))
    now[0] += 40
    assert store.expire_leases() == [lease]
    assert store.get(b"/owned") is None
    # The revocation is logged with its deletes; a new lease never gets the revoked id.
    store, journal = reopen(journal, tmp_path, monotonic=lambda: now[0])
    assert store.get(b"/owned") is None and store.leases() == []
    assert store.lease_grant(10).id != lease
    journal.close()


def test_a_renewal_is_logged(tmp_path: Path) -> None:
    now, store, journal = open_on_fake_time(tmp_path)
    lease = store.lease_grant(30).id
    now[0] += 25
    store.lease_keep_alive(lease)
    store, journal = reopen(journal, tmp_path, monotonic=lambda: now[0])
    assert store.lease_time_to_live(lease).ttl == 30
    journal.close()


def test_a_torn_last_record_is_dropped_and_cut_off(tmp_path: Path) -> None:
    store = Store()
    journal = Journal.open(store, tmp_path)
    for i in range(5):
        store.put(PutRequest(b"/k%d" % i, b"v"))
    before = state(store)
    journal.close()
    [segment] = segment_files(tmp_path)
    intact = segment.stat().st_size
    record = wal.frame(b"c" + b"\x07" * 40)
    with segment.open("ab") as f:
        f.write(record[: len(record) // 2])  # the crash came in the middle of an append

    restored = Store()
    journal = Journal.open(restored, tmp_path)
    assert state(restored) == before
    assert journal.dropped_torn_bytes == len(record) // 2
    assert segment.stat().st_size == intact
    assert restored.put(PutRequest(b"/next", b"v")).header_revision == before[0].revision + 1
    journal.close()
    restored2 = Store()
    Journal.open(restored2, tmp_path).close()
    assert restored2.get(b"/next") is not None


@pytest.mark.parametrize("damage", ["checksum", "zeros", "header"])
def test_torn_tails_of_every_shape(tmp_path: Path, damage: str) -> None:
    records = [b"c" + bytes([i]) * 20 for i in range(3)]
    data = b"".join(map(wal.frame, records))
    last = wal.frame(b"c" + b"\x09" * 20)
    if damage == "checksum":  # whole length, wrong bytes: a page of the last record never written
        tail = last[:8] + b"\x00" * (len(last) - 8)
    elif damage == "zeros":  # blocks allocated, nothing written
        tail = b"\x00" * 64
    else:
        tail = last[:5]
    found, end = wal.read_records(data + tail)
    assert [bytes(r) for r in found] == records and end == len(data)


def test_damage_before_the_end_refuses_to_start(tmp_path: Path) -> None:
    store = Store()
    journal = Journal.open(store, tmp_path)
    for i in range(5):
        store.put(PutRequest(b"/k%d" % i, b"value"))
    journal.close()
    [segment] = segment_files(tmp_path)
    data = bytearray(segment.read_bytes())
    data[20] ^= 0xFF  # inside the first record: intact records follow it
    segment.write_bytes(bytes(data))
    with pytest.raises(CorruptLog, match="checksum mismatch"):
        Journal.open(Store(), tmp_path)
    # The directory was let go: after repair it opens.
    data[20] ^= 0xFF
    segment.write_bytes(bytes(data))
    Journal.open(Store(), tmp_path).close()


def test_a_missing_segment_refuses_to_start(tmp_path: Path) -> None:
    store = Store()
    journal = Journal.open(store, tmp_path)
    store.put(PutRequest(b"/a", b"1"))
    journal.snapshot().join()  # type: ignore[union-attr]
    store.put(PutRequest(b"/b", b"1"))
    journal.close()
    for path in segment_files(tmp_path):
        path.unlink()
    (tmp_path / wal.segment_name(7)).write_bytes(b"")
    with pytest.raises(CorruptLog, match="missing"):
        Journal.open(Store(), tmp_path)


def test_one_server_per_data_dir(tmp_path: Path) -> None:
    journal = Journal.open(Store(), tmp_path)
    with pytest.raises(DataDirInUse):
        Journal.open(Store(), tmp_path)
    journal.close()
    Journal.open(Store(), tmp_path).close()


def test_a_failed_append_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store()
    journal = Journal.open(store, tmp_path, policy=FsyncPolicy.ALWAYS)
    store.put(PutRequest(b"/a", b"1"))
    before = state(store)
    real_write = os.write
    calls = []

    def disk_full(fd: int, data: Any) -> int:
        calls.append(fd)
        if len(calls) == 1:
            return real_write(fd, bytes(data)[:7])  # part of the record, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", disk_full)
    with pytest.raises(OSError):
        store.put(PutRequest(b"/b", b"2"))
    monkeypatch.undo()
    assert state(store) == before
    store.put(PutRequest(b"/c", b"3"))
    restored, journal = reopen(journal, tmp_path)
    assert state(restored) == state(store)
    assert restored.get(b"/b") is None
    journal.close()


def test_a_server_with_a_torn_log_says_so_and_serves(tmp_path: Path) -> None:
    """``fakeapi serve --data-dir`` over a log whose last record a kill tore: the warning comes
    before "listening on", and the harness (``ServerProcess``) waits past it for the server."""
    from fakeapi.testing.server_process import ServerProcess

    data_dir = tmp_path / "data"
    with ServerProcess(tmp_path, "--data-dir", str(data_dir)) as server:
        created = server.http.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "kept"}})
        assert created.status_code == 201
    segment = segment_files(data_dir)[-1]
    record = wal.frame(b"c" + b"\x07" * 40)
    with segment.open("ab") as f:
        f.write(record[: len(record) // 2])
    with ServerProcess(tmp_path, "--data-dir", str(data_dir)) as server:
        assert any("dropped a torn record" in line for line in server.startup_output)
        assert server.http.get("/api/v1/namespaces/default/configmaps/kept").status_code == 200
