"""Leases: grant (TTL, minimum TTL clamp), revoke, keep-alive, time-to-live (-1 for a missing
lease), expiry with an injected clock deleting attached keys as DELETE events at one revision per
lease; a put with an unknown lease is ErrLeaseNotFound; re-putting without the lease detaches."""

import pytest

from fakeapi.store import (
    DeleteRangeRequest,
    ErrLeaseExist,
    ErrLeaseNotFound,
    ErrLeaseTTLTooLarge,
    EventType,
    KeyValue,
    LeaseTimeToLive,
    PutRequest,
    Store,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def s(clock):
    return Store(clock=clock)


def test_grant_returns_id_and_ttl_and_does_not_bump_the_revision(s):
    resp = s.lease_grant(30)
    assert resp.header_revision == 1
    assert resp.ttl == 30
    assert resp.id > 0
    other = s.lease_grant(30)
    assert other.id != resp.id
    assert s.leases() == sorted([resp.id, other.id])
    assert s.lease_grant(30, lease_id=5).id == 5
    with pytest.raises(ErrLeaseExist) as err:
        s.lease_grant(30, lease_id=5)
    assert str(err.value) == "etcdserver: lease already exists"
    assert s.revision == 1


def test_grant_clamps_to_the_minimum_ttl_and_rejects_too_large(s):
    assert s.lease_grant(1).ttl == 2
    assert s.lease_grant(0).ttl == 2
    assert Store(min_lease_ttl=7).lease_grant(3).ttl == 7
    with pytest.raises(ErrLeaseTTLTooLarge) as err:
        s.lease_grant(9_000_000_001)
    assert str(err.value) == "etcdserver: too large lease TTL"
    assert s.lease_grant(9_000_000_000).ttl == 9_000_000_000


def test_time_to_live_counts_down_and_is_minus_one_for_a_missing_lease(s, clock):
    lid = s.lease_grant(10).id
    s.put(PutRequest(b"b", b"1", lease=lid))
    s.put(PutRequest(b"a", b"1", lease=lid))
    clock.now += 3.5
    assert s.lease_time_to_live(lid) == LeaseTimeToLive(lid, 6, 10, ())  # etcd truncates
    assert s.lease_time_to_live(lid, keys=True).keys == (b"a", b"b")
    assert s.lease_time_to_live(12345) == LeaseTimeToLive(12345, -1, 0, ())


def test_keep_alive_restarts_the_ttl(s, clock):
    lid = s.lease_grant(10).id
    clock.now += 8
    assert s.lease_keep_alive(lid) == 10
    assert s.lease_time_to_live(lid).ttl == 10
    clock.now += 8
    assert s.expire_leases() == []
    with pytest.raises(ErrLeaseNotFound) as err:
        s.lease_keep_alive(999)
    assert str(err.value) == "etcdserver: requested lease not found"


def test_keep_alive_of_an_expired_lease_is_not_found_and_revokes_it(s, clock):
    lid = s.lease_grant(10).id
    s.put(PutRequest(b"k", b"1", lease=lid))  # 2
    clock.now += 10
    with pytest.raises(ErrLeaseNotFound):
        s.lease_keep_alive(lid)  # too late: etcd answers once the lease is revoked
    assert s.get(b"k") is None
    assert s.revision == 3
    assert s.leases() == []


def test_revoke_deletes_attached_keys_as_delete_events_at_one_revision(s):
    lid = s.lease_grant(60).id
    other = s.lease_grant(60).id
    s.put(PutRequest(b"b", b"1", lease=lid))  # 2
    s.put(PutRequest(b"a", b"1", lease=lid))  # 3
    s.put(PutRequest(b"c", b"1", lease=other))  # 4
    stream = s.new_stream()
    stream.watch(b"\0", b"\0", prev_kv=True)
    assert s.lease_revoke(lid) == 5
    (resp,) = stream.poll()
    assert [(ev.type, ev.kv, ev.prev_kv) for ev in resp.events] == [
        (EventType.DELETE, KeyValue(b"a", 0, 5, 0), KeyValue(b"a", 3, 3, 1, b"1", lid)),
        (EventType.DELETE, KeyValue(b"b", 0, 5, 0), KeyValue(b"b", 2, 2, 1, b"1", lid)),
    ]
    assert s.get(b"c") is not None
    assert s.leases() == [other]
    with pytest.raises(ErrLeaseNotFound):
        s.lease_revoke(lid)


def test_revoking_a_lease_without_keys_does_not_bump_the_revision(s):
    lid = s.lease_grant(60).id
    s.put(PutRequest(b"k", b"1", lease=lid))  # 2
    s.delete_range(DeleteRangeRequest(b"k"))  # 3: detaches
    assert s.lease_revoke(lid) == 3
    assert s.revision == 3


def test_expiry_deletes_keys_at_one_revision_per_lease(s, clock):
    short = s.lease_grant(5).id
    short2 = s.lease_grant(6).id
    long = s.lease_grant(60).id
    s.put(PutRequest(b"s1", b"1", lease=short))  # 2
    s.put(PutRequest(b"s2", b"1", lease=short))  # 3
    s.put(PutRequest(b"t1", b"1", lease=short2))  # 4
    s.put(PutRequest(b"l1", b"1", lease=long))  # 5
    stream = s.new_stream()
    stream.watch(b"\0", b"\0")
    clock.now += 4.99
    assert s.expire_leases() == []
    clock.now += 1.01
    assert sorted(s.expire_leases()) == sorted([short, short2])
    responses = stream.poll()
    assert sorted([(r.header_revision, [ev.kv.key for ev in r.events]) for r in responses]) == [
        (6, [b"s1", b"s2"]), (7, [b"t1"]),
    ]
    assert all(ev.type is EventType.DELETE for r in responses for ev in r.events)
    assert s.revision == 7
    assert s.get(b"l1") is not None
    assert s.lease_time_to_live(short).ttl == -1


def test_put_with_an_unknown_lease_is_lease_not_found(s):
    with pytest.raises(ErrLeaseNotFound):
        s.put(PutRequest(b"k", b"1", lease=42))
    assert s.revision == 1
    assert s.get(b"k") is None


def test_reputting_without_the_lease_detaches_the_key(s, clock):
    lid = s.lease_grant(5).id
    s.put(PutRequest(b"k", b"1", lease=lid))  # 2
    s.put(PutRequest(b"j", b"1", lease=lid))  # 3
    s.put(PutRequest(b"j", b"2", ignore_lease=True))  # 4: keeps it
    s.put(PutRequest(b"k", b"2"))  # 5: detached
    assert s.get(b"k").lease == 0
    assert s.lease_time_to_live(lid, keys=True).keys == (b"j",)
    clock.now += 5
    s.expire_leases()
    assert s.get(b"k") == KeyValue(b"k", 2, 5, 2, b"2")
    assert s.get(b"j") is None


def test_moving_a_key_to_another_lease(s):
    a = s.lease_grant(60).id
    b = s.lease_grant(60).id
    s.put(PutRequest(b"k", b"1", lease=a))
    s.put(PutRequest(b"k", b"1", lease=b))
    assert s.lease_time_to_live(a, keys=True).keys == ()
    assert s.lease_time_to_live(b, keys=True).keys == (b"k",)
    s.lease_revoke(a)
    assert s.get(b"k") is not None
