"""Per key: create_revision, mod_revision, version (1 on create, +1 per put, reset by delete),
lease; deletes leave tombstones; a re-create starts a new generation."""

from fakeapi.store import (
    DeleteRangeRequest,
    EventType,
    KeyValue,
    PutRequest,
    RangeRequest,
    Store,
)


def test_per_key_create_mod_version_and_lease():
    s = Store()
    lease = s.lease_grant(60).id
    s.put(PutRequest(b"other", b"x"))  # 2
    s.put(PutRequest(b"k", b"v1"))  # 3
    s.put(PutRequest(b"k", b"v2", lease=lease))  # 4
    s.put(PutRequest(b"k", b"v3"))  # 5
    assert s.get(b"k") == KeyValue(b"k", 3, 5, 3, b"v3", 0)
    assert s.get(b"k", 4) == KeyValue(b"k", 3, 4, 2, b"v2", lease)
    assert s.get(b"k", 3) == KeyValue(b"k", 3, 3, 1, b"v1", 0)
    assert s.get(b"k", 2) is None


def test_delete_leaves_a_tombstone_readable_history_and_a_delete_event():
    s = Store()
    s.put(PutRequest(b"k", b"v1"))  # 2
    stream = s.new_stream()
    stream.watch(b"k")
    s.delete_range(DeleteRangeRequest(b"k"))  # 3
    assert s.get(b"k") is None
    assert s.range(RangeRequest(b"k")).count == 0
    assert s.get(b"k", 2) == KeyValue(b"k", 2, 2, 1, b"v1")  # the past is still there
    (resp,) = stream.poll()
    (ev,) = resp.events
    assert ev.type is EventType.DELETE
    assert ev.kv == KeyValue(b"k", 0, 3, 0, b"", 0)  # a tombstone: key and mod_revision only
    assert ev.kv.is_tombstone
    assert s.stats()["keys_live"] == 0
    assert s.stats()["keys_indexed"] == 1


def test_recreate_starts_a_new_generation():
    s = Store()
    s.put(PutRequest(b"k", b"v1"))  # 2
    s.put(PutRequest(b"k", b"v2"))  # 3
    s.delete_range(DeleteRangeRequest(b"k"))  # 4
    s.put(PutRequest(b"k", b"v3"))  # 5
    s.put(PutRequest(b"k", b"v4"))  # 6
    assert s.get(b"k") == KeyValue(b"k", 5, 6, 2, b"v4")
    assert s.get(b"k", 5) == KeyValue(b"k", 5, 5, 1, b"v3")
    assert s.get(b"k", 4) is None
    assert s.get(b"k", 3) == KeyValue(b"k", 2, 3, 2, b"v2")
