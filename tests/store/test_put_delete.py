"""Put (prev_kv, ignore_value, ignore_lease) and DeleteRange (prev_kvs, one revision for all
deleted keys)."""

import pytest

from fakeapi.store import (
    DeleteRangeRequest,
    ErrEmptyKey,
    ErrKeyNotFound,
    ErrLeaseProvided,
    ErrValueProvided,
    EventType,
    KeyValue,
    PutRequest,
    Store,
)


def test_put_prev_kv_returns_the_previous_value_only_when_asked():
    s = Store()
    assert s.put(PutRequest(b"k", b"v1", prev_kv=True)).prev_kv is None  # a create
    resp = s.put(PutRequest(b"k", b"v2", prev_kv=True))
    assert resp.prev_kv == KeyValue(b"k", 2, 2, 1, b"v1")
    assert resp.header_revision == 3
    assert s.put(PutRequest(b"k", b"v3")).prev_kv is None


def test_put_ignore_value_keeps_the_value_and_ignore_lease_keeps_the_lease():
    s = Store()
    lease = s.lease_grant(60).id
    s.put(PutRequest(b"k", b"v1", lease=lease))  # 2
    s.put(PutRequest(b"k", ignore_value=True))  # 3: keeps the value, drops the lease
    assert s.get(b"k") == KeyValue(b"k", 2, 3, 2, b"v1", 0)
    s.put(PutRequest(b"k", b"v2", lease=lease))  # 4
    s.put(PutRequest(b"k", b"v3", ignore_lease=True))  # 5: keeps the lease
    assert s.get(b"k") == KeyValue(b"k", 2, 5, 4, b"v3", lease)
    s.put(PutRequest(b"k", ignore_value=True, ignore_lease=True))  # 6
    assert s.get(b"k") == KeyValue(b"k", 2, 6, 5, b"v3", lease)


@pytest.mark.parametrize(
    "req, error",
    [
        (PutRequest(b"k", b"x", ignore_value=True), ErrValueProvided),
        (PutRequest(b"k", lease=7, ignore_lease=True), ErrLeaseProvided),
        (PutRequest(b"missing", ignore_value=True), ErrKeyNotFound),
        (PutRequest(b"missing", ignore_lease=True), ErrKeyNotFound),
        (PutRequest(b"", b"x"), ErrEmptyKey),
    ],
)
def test_put_argument_errors(req, error):
    s = Store()
    s.put(PutRequest(b"k", b"v"))
    with pytest.raises(error):
        s.put(req)
    assert s.revision == 2


def test_delete_range_prev_kvs_and_one_revision_for_all_deleted_keys():
    s = Store()
    for key in (b"d/a", b"d/b", b"d/c", b"e"):
        s.put(PutRequest(key, key))  # 2..5
    stream = s.new_stream()
    stream.watch(b"\0", b"\0")
    resp = s.delete_range(DeleteRangeRequest(b"d/", b"d0", prev_kv=True))
    assert resp.header_revision == 6
    assert resp.deleted == 3
    assert resp.prev_kvs == [
        KeyValue(b"d/a", 2, 2, 1, b"d/a"),
        KeyValue(b"d/b", 3, 3, 1, b"d/b"),
        KeyValue(b"d/c", 4, 4, 1, b"d/c"),
    ]
    (watch_resp,) = stream.poll()
    assert watch_resp.header_revision == 6
    assert [(ev.type, ev.kv) for ev in watch_resp.events] == [
        (EventType.DELETE, KeyValue(b"d/a", 0, 6, 0)),
        (EventType.DELETE, KeyValue(b"d/b", 0, 6, 0)),
        (EventType.DELETE, KeyValue(b"d/c", 0, 6, 0)),
    ]
    assert s.get(b"e") is not None


def test_delete_range_without_prev_kv_returns_no_prev_kvs():
    s = Store()
    s.put(PutRequest(b"k", b"v"))
    resp = s.delete_range(DeleteRangeRequest(b"k"))
    assert (resp.header_revision, resp.deleted, resp.prev_kvs) == (3, 1, [])


def test_delete_range_to_the_end():
    s = Store()
    for key in (b"a", b"b", b"c"):
        s.put(PutRequest(key, b"v"))
    assert s.delete_range(DeleteRangeRequest(b"b", b"\0")).deleted == 2
    assert s.stats()["keys_live"] == 1
