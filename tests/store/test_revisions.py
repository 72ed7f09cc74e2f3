"""One global revision: a fresh store is at 1, the first write gets 2, a request that changes
something bumps it by exactly one whatever the number of keys, and nothing else moves it."""

import pytest

from fakeapi.store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    ErrLeaseNotFound,
    PutRequest,
    RangeRequest,
    Store,
    TxnRequest,
)


def test_fresh_store_is_at_revision_1_and_first_write_gets_2():
    s = Store()
    assert s.revision == 1
    assert s.range(RangeRequest(b"a")).header_revision == 1
    resp = s.put(PutRequest(b"a", b"1"))
    assert resp.header_revision == 2
    assert s.revision == 2
    assert s.get(b"a").mod_revision == 2


def test_each_write_request_bumps_by_exactly_one_whatever_the_number_of_keys():
    s = Store()
    s.put(PutRequest(b"a", b"1"))  # 2
    s.put(PutRequest(b"a", b"2"))  # 3: an update bumps too
    resp = s.txn(TxnRequest(success=(
        PutRequest(b"b", b"1"), PutRequest(b"c", b"1"), PutRequest(b"d", b"1"),
    )))
    assert resp.header_revision == 4
    assert [s.get(k).mod_revision for k in (b"b", b"c", b"d")] == [4, 4, 4]
    deleted = s.delete_range(DeleteRangeRequest(b"a", b"z"))
    assert deleted.deleted == 4
    assert deleted.header_revision == 5
    assert s.revision == 5


def _noop_read(s):
    return s.range(RangeRequest(b"a"))


def _miss(s):
    return s.range(RangeRequest(b"zzz"))


def _noop_delete(s):
    return s.delete_range(DeleteRangeRequest(b"zzz"))


def _noop_delete_range(s):
    return s.delete_range(DeleteRangeRequest(b"x", b"y"))


def _failed_compare_with_reads(s):
    return s.txn(TxnRequest(
        compare=(Compare(b"a", CompareTarget.VERSION, CompareResult.EQUAL, 99),),
        success=(PutRequest(b"a", b"never"),),
        failure=(RangeRequest(b"a"), RangeRequest(b"a", b"b")),
    ))


def _read_only_txn(s):
    return s.txn(TxnRequest(success=(RangeRequest(b"a"),)))


def _empty_txn(s):
    return s.txn(TxnRequest())


def _txn_deleting_nothing(s):
    return s.txn(TxnRequest(success=(DeleteRangeRequest(b"nope"), RangeRequest(b"a"))))


@pytest.mark.parametrize(
    "request_fn",
    [_noop_read, _miss, _noop_delete, _noop_delete_range, _failed_compare_with_reads,
     _read_only_txn, _empty_txn, _txn_deleting_nothing],
)
def test_requests_that_change_nothing_do_not_bump_the_revision(request_fn):
    s = Store()
    s.put(PutRequest(b"a", b"1"))
    stream = s.new_stream()
    stream.watch(b"\0", b"\0")
    resp = request_fn(s)
    assert resp.header_revision == 2
    assert s.revision == 2
    assert stream.poll() == []


def test_a_failed_request_does_not_bump_the_revision():
    s = Store()
    s.put(PutRequest(b"a", b"1"))
    with pytest.raises(ErrLeaseNotFound):
        s.txn(TxnRequest(success=(PutRequest(b"b", b"1"), PutRequest(b"c", b"1", lease=42))))
    assert s.revision == 2
    assert s.get(b"b") is None
    assert s.put(PutRequest(b"b", b"1")).header_revision == 3
