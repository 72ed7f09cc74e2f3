"""Errors carry etcd's exact message strings (clients match on them), raised by the store's
operations."""

import pytest

from fakeapi.store import (
    DeleteRangeRequest,
    ErrCompacted,
    ErrDuplicateKey,
    ErrEmptyKey,
    ErrFutureRev,
    ErrKeyNotFound,
    ErrLeaseExist,
    ErrLeaseNotFound,
    ErrLeaseProvided,
    ErrLeaseTTLTooLarge,
    ErrTooManyOps,
    ErrValueProvided,
    ErrWatcherDuplicateID,
    EtcdError,
    PutRequest,
    RangeRequest,
    Store,
    TxnRequest,
)


def _store():
    s = Store()
    s.lease_grant(60, lease_id=1)
    for i in range(3):
        s.put(PutRequest(b"k", b"%d" % i))  # 2..4
    s.compact(3)
    return s


def _dup_watch(s):
    stream = s.new_stream()
    stream.watch(b"k", watch_id=1)
    stream.watch(b"k", watch_id=1)


CASES = [
    (ErrCompacted, "etcdserver: mvcc: required revision has been compacted", "OutOfRange",
     lambda s: s.range(RangeRequest(b"k", revision=2))),
    (ErrCompacted, "etcdserver: mvcc: required revision has been compacted", "OutOfRange",
     lambda s: s.compact(3)),
    (ErrFutureRev, "etcdserver: mvcc: required revision is a future revision", "OutOfRange",
     lambda s: s.range(RangeRequest(b"k", revision=5))),
    (ErrFutureRev, "etcdserver: mvcc: required revision is a future revision", "OutOfRange",
     lambda s: s.compact(5)),
    (ErrEmptyKey, "etcdserver: key is not provided", "InvalidArgument",
     lambda s: s.put(PutRequest(b""))),
    (ErrEmptyKey, "etcdserver: key is not provided", "InvalidArgument",
     lambda s: s.delete_range(DeleteRangeRequest(b""))),
    (ErrKeyNotFound, "etcdserver: key not found", "InvalidArgument",
     lambda s: s.put(PutRequest(b"nope", ignore_value=True))),
    (ErrValueProvided, "etcdserver: value is provided", "InvalidArgument",
     lambda s: s.put(PutRequest(b"k", b"v", ignore_value=True))),
    (ErrLeaseProvided, "etcdserver: lease is provided", "InvalidArgument",
     lambda s: s.put(PutRequest(b"k", lease=1, ignore_lease=True))),
    (ErrDuplicateKey, "etcdserver: duplicate key given in txn request", "InvalidArgument",
     lambda s: s.txn(TxnRequest(success=(PutRequest(b"a"), PutRequest(b"a"))))),
    (ErrTooManyOps, "etcdserver: too many operations in txn request", "InvalidArgument",
     lambda s: s.txn(TxnRequest(success=(RangeRequest(b"a"),) * 129))),
    (ErrLeaseNotFound, "etcdserver: requested lease not found", "NotFound",
     lambda s: s.put(PutRequest(b"k", lease=2))),
    (ErrLeaseNotFound, "etcdserver: requested lease not found", "NotFound",
     lambda s: s.lease_revoke(2)),
    (ErrLeaseExist, "etcdserver: lease already exists", "FailedPrecondition",
     lambda s: s.lease_grant(60, lease_id=1)),
    (ErrLeaseTTLTooLarge, "etcdserver: too large lease TTL", "OutOfRange",
     lambda s: s.lease_grant(10**10)),
    (ErrWatcherDuplicateID, "mvcc: duplicate watch ID provided on the WatchStream",
     "InvalidArgument", _dup_watch),
]


@pytest.mark.parametrize("error, message, code, action", CASES)
def test_errors_carry_etcds_exact_messages(error, message, code, action):
    s = _store()
    with pytest.raises(error) as caught:
        action(s)
    assert type(caught.value) is error
    assert isinstance(caught.value, EtcdError)
    assert str(caught.value) == message
    assert caught.value.grpc_code == code
    assert s.revision == 4
