"""Compaction at rev: reads below fail at once, reads at rev see the same as before, compacting at
or below the last compaction is ErrCompacted, a future revision is ErrFutureRev, and memory is
actually released."""

import gc
import tracemalloc

import pytest

from fakeapi.store import (
    DeleteRangeRequest,
    ErrCompacted,
    ErrFutureRev,
    PutRequest,
    RangeRequest,
    Store,
)

EVERYTHING = RangeRequest(b"\0", b"\0")


def history_store():
    s = Store()
    s.put(PutRequest(b"a", b"a1"))  # 2
    s.put(PutRequest(b"b", b"b1"))  # 3
    s.put(PutRequest(b"a", b"a2"))  # 4
    s.delete_range(DeleteRangeRequest(b"b"))  # 5
    s.put(PutRequest(b"c", b"c1"))  # 6
    s.put(PutRequest(b"b", b"b2"))  # 7
    s.put(PutRequest(b"a", b"a3"))  # 8
    return s


def test_reads_below_the_compaction_fail_at_once_and_reads_at_it_see_the_same():
    s = history_store()
    before = {rev: s.range(EVERYTHING._replace(revision=rev)).kvs for rev in range(1, 9)}
    assert s.compact(5) == 8
    assert s.compact_revision == 5
    for rev in range(1, 5):
        with pytest.raises(ErrCompacted) as err:
            s.range(EVERYTHING._replace(revision=rev))
        assert str(err.value) == "etcdserver: mvcc: required revision has been compacted"
        with pytest.raises(ErrCompacted):
            s.get(b"a", rev)
    for rev in range(5, 9):
        assert s.range(EVERYTHING._replace(revision=rev)).kvs == before[rev]
        assert s.range(EVERYTHING._replace(revision=rev, count_only=True)).count == len(before[rev])
    assert s.range(RangeRequest(b"a", revision=5)).kvs == before[5][:1]
    assert s.range(EVERYTHING).kvs == before[8]


def test_compacting_at_or_below_the_last_compaction_is_compacted_and_future_is_future():
    s = history_store()
    with pytest.raises(ErrFutureRev) as err:
        s.compact(9)
    assert str(err.value) == "etcdserver: mvcc: required revision is a future revision"
    s.compact(5)
    for rev in (5, 4, 1):
        with pytest.raises(ErrCompacted):
            s.compact(rev)
    assert s.compact_revision == 5
    assert s.compact(8) == 8  # the current revision may be compacted
    assert s.revision == 8


def test_compaction_does_not_bump_the_revision_or_emit_events():
    s = history_store()
    stream = s.new_stream()
    stream.watch(b"\0", b"\0")
    s.compact(6)
    assert s.revision == 8
    assert stream.poll() == []


def test_compaction_shrinks_versions_and_log():
    s = history_store()
    assert s.stats() == {
        "revision": 8, "compact_revision": -1, "keys_live": 3, "keys_indexed": 3,
        "versions": 7, "log_revisions": 7,
    }
    s.compact(5)
    # a: a2@4 (visible at 5), a3@8; b: tombstone@5, b2@7; c: c1@6.
    assert s.stats()["versions"] == 5
    assert s.stats()["log_revisions"] == 4  # revisions 5..8
    s.compact(8)
    assert s.stats()["versions"] == 3
    assert s.stats()["log_revisions"] == 1


def test_a_tombstone_at_the_compaction_revision_stays_until_a_later_compaction():
    s = Store()
    s.put(PutRequest(b"k", b"v"))  # 2
    s.delete_range(DeleteRangeRequest(b"k"))  # 3
    s.compact(3)
    assert s.stats()["keys_indexed"] == 1
    assert s.stats()["versions"] == 1  # the tombstone only
    s.put(PutRequest(b"other", b"v"))  # 4
    s.compact(4)
    assert s.stats()["keys_indexed"] == 1  # only "other"
    assert s.get(b"k", 4) is None


def test_versions_superseded_exactly_at_the_compaction_revision_are_released():
    s = Store()
    s.put(PutRequest(b"a", b"1"))  # 2
    s.put(PutRequest(b"b", b"1"))  # 3
    s.compact(3)
    s.put(PutRequest(b"a", b"2"))  # 4: supersedes a@2, older than the last compaction
    s.compact(4)
    assert s.stats()["versions"] == 2
    s.put(PutRequest(b"x", b"1"))  # 5
    s.delete_range(DeleteRangeRequest(b"b"))  # 6: a tombstone over b@3
    s.compact(6)
    assert s.stats()["versions"] == 3  # a@4, x@5, the tombstone of b@6; nothing of b@3
    assert s.range(RangeRequest(b"b", revision=6)).kvs == []


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_compaction_frees_superseded_values():
    size, versions = 200_000, 20
    s = Store()
    stream = s.new_stream()
    stream.watch(b"k")  # a watcher whose queue is drained must not pin old values
    tracemalloc.start()
    try:
        base = _traced()
        for i in range(versions):
            s.put(PutRequest(b"k", bytes([i]) * size))
            stream.poll()
        grown = _traced() - base
        assert grown > versions * size
        s.compact(s.revision)
        kept = _traced() - base
    finally:
        tracemalloc.stop()
    assert kept < 2 * size  # one value left, plus small change
    assert s.stats()["versions"] == 1
    assert s.get(b"k").value == bytes([versions - 1]) * size


def test_compaction_frees_deleted_keys():
    s = Store()
    tracemalloc.start()
    try:
        base = _traced()
        for i in range(200):
            s.put(PutRequest(b"d/%03d" % i, b"x" * 10_000))
        s.delete_range(DeleteRangeRequest(b"d/", b"d0"))
        assert _traced() - base > 200 * 10_000
        s.put(PutRequest(b"z", b"1"))
        s.compact(s.revision)
        kept = _traced() - base
    finally:
        tracemalloc.stop()
    assert kept < 50_000
    assert s.stats()["keys_indexed"] == 1
