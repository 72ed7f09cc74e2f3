"""The etcd rules the store must keep, one test per rule (exact values, etcd's messages)."""

from __future__ import annotations

import pytest

from fakeapi.store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    ErrCompacted,
    ErrDuplicateKey,
    ErrFutureRev,
    ErrLeaseNotFound,
    ErrTooManyOps,
    EventType,
    PutRequest,
    RangeRequest,
    Store,
    TxnRequest,
    prefix_range_end,
)


def put(s: Store, key: bytes, value: bytes = b"v", **kw) -> int:  # type: ignore[no-untyped-def]
    return s.put(PutRequest(key, value, **kw)).header_revision


def test_fresh_store_is_at_1_and_first_write_gets_2():
    s = Store()
    assert s.revision == 1
    assert put(s, b"a") == 2


def test_reads_misses_and_noop_deletes_do_not_bump():
    s = Store()
    put(s, b"a")
    s.range(RangeRequest(b"zz"))
    assert s.delete_range(DeleteRangeRequest(b"nope")).header_revision == 2
    failed = s.txn(TxnRequest(compare=(Compare(b"a", CompareTarget.VERSION, CompareResult.EQUAL, 9),),
                              failure=(RangeRequest(b"a"),)))
    assert not failed.succeeded and s.revision == 2


def test_multi_key_txn_bumps_once():
    s = Store()
    resp = s.txn(TxnRequest(success=(PutRequest(b"a", b"1"), PutRequest(b"b", b"2"))))
    assert resp.header_revision == 2
    assert {kv.mod_revision for kv in s.range(RangeRequest(b"a", b"c")).kvs} == {2}


def test_versions_and_generations():
    s = Store()
    put(s, b"k")
    put(s, b"k")
    kv = s.get(b"k")
    assert (kv.create_revision, kv.mod_revision, kv.version) == (2, 3, 2)
    s.delete_range(DeleteRangeRequest(b"k"))
    put(s, b"k")
    kv = s.get(b"k")
    assert (kv.create_revision, kv.mod_revision, kv.version) == (5, 5, 1)
    assert s.get(b"k", rev=4) is None and s.get(b"k", rev=3).version == 2


def test_range_limit_count_and_past():
    s = Store()
    for k in (b"a1", b"a2", b"a3", b"b1"):
        put(s, k)
    r = s.range(RangeRequest(b"a", prefix_range_end(b"a"), limit=2))
    assert [kv.key for kv in r.kvs] == [b"a1", b"a2"] and r.count == 3 and r.more
    r = s.range(RangeRequest(b"a2", prefix_range_end(b"a")))
    assert r.count == 2  # counted from the start key
    r = s.range(RangeRequest(b"a", b"\0", revision=3))
    assert [kv.key for kv in r.kvs] == [b"a1", b"a2"] and r.header_revision == 5
    assert s.range(RangeRequest(b"a", b"\0", count_only=True)).count == 4
    assert s.range(RangeRequest(b"a1", keys_only=True)).kvs[0].value == b""
    with pytest.raises(ErrFutureRev, match="^etcdserver: mvcc: required revision is a future revision$"):
        s.range(RangeRequest(b"a", revision=99))


def test_txn_compares_missing_key_and_value():
    s = Store()
    create = TxnRequest(compare=(Compare(b"k", CompareTarget.MOD, CompareResult.EQUAL, 0),),
                        success=(PutRequest(b"k", b"v"),))
    assert s.txn(create).succeeded
    assert not s.txn(create).succeeded
    missing_value = TxnRequest(compare=(Compare(b"x", CompareTarget.VALUE, CompareResult.NOT_EQUAL, b"a"),))
    assert not s.txn(missing_value).succeeded


def test_txn_reads_its_own_writes_and_rejects_duplicates():
    s = Store()
    resp = s.txn(TxnRequest(success=(PutRequest(b"k", b"v"), RangeRequest(b"k"))))
    assert resp.responses[1].kvs[0].value == b"v"
    with pytest.raises(ErrDuplicateKey, match="duplicate key given in txn request"):
        s.txn(TxnRequest(success=(PutRequest(b"k"), PutRequest(b"k"))))
    with pytest.raises(ErrTooManyOps):
        s.txn(TxnRequest(success=tuple(PutRequest(bytes([i % 250 + 1, i // 250 + 1])) for i in range(129))))


def test_failed_txn_changes_nothing():
    s = Store()
    with pytest.raises(ErrLeaseNotFound, match="^etcdserver: requested lease not found$"):
        s.txn(TxnRequest(success=(PutRequest(b"a"), PutRequest(b"b", lease=42))))
    assert s.revision == 1 and s.get(b"a") is None


def test_compaction_rules_and_release():
    s = Store()
    for i in range(5):
        put(s, b"k", str(i).encode())
    s.delete_range(DeleteRangeRequest(b"k"))
    put(s, b"j")
    s.compact(5)
    assert s.get(b"k", rev=5).value == b"3"
    with pytest.raises(ErrCompacted, match="^etcdserver: mvcc: required revision has been compacted$"):
        s.range(RangeRequest(b"k", revision=4))
    with pytest.raises(ErrCompacted):
        s.compact(5)
    with pytest.raises(ErrFutureRev):
        s.compact(99)
    s.compact(8)
    assert s.stats()["versions"] == 1  # only j's value is left: k's tombstone went with its generation


def test_watch_from_past_is_ordered_and_prev_kv_optional():
    s = Store()
    put(s, b"a", b"1")
    put(s, b"a", b"2")
    stream = s.new_stream()
    stream.watch(b"a", start_revision=2, prev_kv=True)
    put(s, b"a", b"3")
    events = [ev for r in stream.poll() for ev in r.events]
    assert [(e.kv.mod_revision, e.kv.value) for e in events] == [(2, b"1"), (3, b"2"), (4, b"3")]
    assert events[0].prev_kv is None and events[2].prev_kv.value == b"2"


def test_slow_stream_catches_up_without_gaps_or_duplicates():
    s = Store()
    stream = s.new_stream(capacity=2)
    stream.watch(b"k", prefix_range_end(b"k"))
    for i in range(50):
        s.txn(TxnRequest(success=(PutRequest(b"k%d" % i), PutRequest(b"kk%d" % i))))
    revs = []
    while stream.has_pending:
        for r in stream.poll():
            revs.extend(ev.kv.mod_revision for ev in r.events)
    assert revs == sorted(r for r in range(2, 52) for _ in range(2))


def test_watch_below_compaction_is_canceled():
    s = Store()
    for i in range(4):
        put(s, b"k")
    s.compact(4)
    stream = s.new_stream()
    stream.watch(b"k", start_revision=2)
    (resp,) = stream.poll()
    assert resp.canceled and resp.compact_revision == 4


def test_progress_notifications():
    s = Store()
    stream = s.new_stream()
    stream.watch(b"k", progress_notify=True)
    put(s, b"other")
    assert stream.request_progress()
    (resp,) = stream.poll()
    assert resp.watch_id == -1 and resp.header_revision == 2 and resp.is_progress_notify
    assert s.notify_progress() == 1
    assert stream.poll()[0].header_revision == 2


def test_lease_expiry_deletes_keys_at_one_revision():
    now = [0.0]
    s = Store(clock=lambda: now[0])
    lease = s.lease_grant(1)
    assert lease.ttl == 2  # the minimum TTL
    put(s, b"a", lease=lease.id)
    put(s, b"b", lease=lease.id)
    stream = s.new_stream()
    stream.watch(b"\0", b"\0")
    now[0] = 3.0
    assert s.expire_leases() == [lease.id]
    (resp,) = stream.poll()
    assert [e.type for e in resp.events] == [EventType.DELETE, EventType.DELETE]
    assert {e.kv.mod_revision for e in resp.events} == {4}
    assert s.lease_time_to_live(lease.id).ttl == -1
