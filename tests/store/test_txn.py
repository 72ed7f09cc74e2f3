"""Txn: compares AND-ed over VERSION, CREATE, MOD, VALUE, LEASE with EQUAL, GREATER, LESS,
NOT_EQUAL (optional range_end); missing keys compare as zeros, VALUE on a missing key is false;
ops run in order at one revision; reads see the txn's earlier writes; ErrDuplicateKey,
ErrTooManyOps; an error changes nothing."""

import pytest

from fakeapi.store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    DeleteRangeResponse,
    ErrDuplicateKey,
    ErrEmptyKey,
    ErrFutureRev,
    ErrKeyNotFound,
    ErrLeaseNotFound,
    ErrTooManyOps,
    EventType,
    KeyValue,
    PutRequest,
    PutResponse,
    RangeRequest,
    Store,
    TxnRequest,
)

T, R = CompareTarget, CompareResult


@pytest.fixture
def s():
    store = Store()
    lease = store.lease_grant(60, lease_id=7).id
    store.put(PutRequest(b"other", b"o"))  # 2
    store.put(PutRequest(b"k", b"m"))  # 3
    store.put(PutRequest(b"k", b"m", lease=lease))  # 4: k = (create 3, mod 4, version 2, "m", 7)
    return store


def holds(store, *compares):
    return store.txn(TxnRequest(compare=compares)).succeeded


@pytest.mark.parametrize(
    "target, lower, actual, higher",
    [
        (T.VERSION, 1, 2, 3),
        (T.CREATE, 2, 3, 4),
        (T.MOD, 3, 4, 5),
        (T.VALUE, b"l", b"m", b"n"),
        (T.LEASE, 6, 7, 8),
    ],
)
def test_compare_targets_and_results(s, target, lower, actual, higher):
    expected = {
        R.EQUAL: (False, True, False),
        R.NOT_EQUAL: (True, False, True),
        R.GREATER: (True, False, False),  # actual > operand
        R.LESS: (False, False, True),
    }
    for result, outcome in expected.items():
        got = tuple(holds(s, Compare(b"k", target, result, op)) for op in (lower, actual, higher))
        assert got == outcome, result
    assert s.revision == 4


@pytest.mark.parametrize(
    "compare, outcome",
    [
        (Compare(b"missing", T.VERSION, R.EQUAL, 0), True),
        (Compare(b"missing", T.CREATE, R.EQUAL, 0), True),
        (Compare(b"missing", T.MOD, R.EQUAL, 0), True),  # kube-apiserver's "does not exist"
        (Compare(b"missing", T.LEASE, R.EQUAL, 0), True),
        (Compare(b"missing", T.MOD, R.LESS, 1), True),
        (Compare(b"missing", T.VERSION, R.GREATER, 0), False),
        (Compare(b"missing", T.VALUE, R.EQUAL, b""), False),
        (Compare(b"missing", T.VALUE, R.NOT_EQUAL, b"x"), False),
        (Compare(b"missing", T.VALUE, R.LESS, b"z"), False),
        (Compare(b"missing", T.VALUE, R.GREATER, b""), False),
    ],
)
def test_missing_key_compares_as_zeros_and_value_is_false(s, compare, outcome):
    assert holds(s, compare) is outcome


def test_compares_are_and_ed(s):
    yes = Compare(b"k", T.VERSION, R.EQUAL, 2)
    no = Compare(b"k", T.VERSION, R.EQUAL, 3)
    assert holds(s, yes, yes) is True
    assert holds(s, yes, no) is False
    assert holds(s, no, yes) is False
    assert holds(s) is True  # no compare: success


def test_compare_with_range_end_must_hold_for_every_key_in_range():
    s = Store()
    for key, ver in ((b"r/a", 1), (b"r/b", 2), (b"r/c", 1)):
        for _ in range(ver):
            s.put(PutRequest(key, b"v"))
    assert holds(s, Compare(b"r/", T.VERSION, R.GREATER, 0, b"r0")) is True
    assert holds(s, Compare(b"r/", T.VERSION, R.EQUAL, 1, b"r0")) is False
    assert holds(s, Compare(b"r/", T.VERSION, R.EQUAL, 1, b"r/b")) is True  # [r/, r/b) is r/a
    assert holds(s, Compare(b"r/b", T.VERSION, R.EQUAL, 1, b"\0")) is False  # to the end
    # An empty range compares as a missing key.
    assert holds(s, Compare(b"x/", T.MOD, R.EQUAL, 0, b"x0")) is True
    assert holds(s, Compare(b"x/", T.VALUE, R.EQUAL, b"", b"x0")) is False


def test_success_ops_run_in_order_at_one_revision(s):
    resp = s.txn(TxnRequest(
        compare=(Compare(b"k", T.MOD, R.EQUAL, 4),),
        success=(
            RangeRequest(b"k"),
            PutRequest(b"a", b"1"),
            PutRequest(b"k", b"2", prev_kv=True),
            DeleteRangeRequest(b"other", prev_kv=True),
        ),
        failure=(PutRequest(b"f", b"1"),),
    ))
    assert resp.succeeded is True
    assert resp.header_revision == 5
    assert resp.responses[0].kvs == [KeyValue(b"k", 3, 4, 2, b"m", 7)]
    assert isinstance(resp.responses[1], PutResponse)
    assert resp.responses[2].prev_kv == KeyValue(b"k", 3, 4, 2, b"m", 7)
    assert isinstance(resp.responses[3], DeleteRangeResponse)
    assert resp.responses[3].prev_kvs == [KeyValue(b"other", 2, 2, 1, b"o")]
    assert s.get(b"a").mod_revision == s.get(b"k").mod_revision == 5
    assert s.get(b"f") is None


def test_failure_ops_run_when_a_compare_fails(s):
    resp = s.txn(TxnRequest(
        compare=(Compare(b"k", T.MOD, R.EQUAL, 3),),
        success=(PutRequest(b"k", b"never"),),
        failure=(RangeRequest(b"k"), PutRequest(b"f", b"1")),
    ))
    assert resp.succeeded is False
    assert resp.header_revision == 5
    assert resp.responses[0].kvs[0].mod_revision == 4
    assert s.get(b"f").mod_revision == 5
    assert s.get(b"k").value == b"m"


def test_events_of_a_txn_come_in_op_order_at_one_revision(s):
    stream = s.new_stream()
    stream.watch(b"\0", b"\0")
    s.txn(TxnRequest(success=(
        PutRequest(b"z", b"1"), DeleteRangeRequest(b"k"), PutRequest(b"a", b"1"),
    )))
    (resp,) = stream.poll()
    assert [(ev.type, ev.kv.key, ev.kv.mod_revision) for ev in resp.events] == [
        (EventType.PUT, b"z", 5), (EventType.DELETE, b"k", 5), (EventType.PUT, b"a", 5),
    ]


def test_reads_see_the_txns_earlier_writes(s):
    resp = s.txn(TxnRequest(success=(
        PutRequest(b"n/a", b"1"),
        RangeRequest(b"n/a"),
        RangeRequest(b"\0", b"\0", count_only=True),
        DeleteRangeRequest(b"k"),
        RangeRequest(b"k"),
        RangeRequest(b"\0", b"\0", limit=1),
        RangeRequest(b"\0", b"\0", revision=4),  # an explicit revision reads the past
    )))
    assert resp.responses[1].kvs == [KeyValue(b"n/a", 5, 5, 1, b"1")]
    assert resp.responses[2].count == 3  # k, n/a, other
    assert resp.responses[4].kvs == []
    assert (resp.responses[5].kvs[0].key, resp.responses[5].count, resp.responses[5].more) == (
        b"n/a", 2, True,
    )
    assert [kv.key for kv in resp.responses[6].kvs] == [b"k", b"other"]


def test_a_range_at_the_txns_own_revision_is_a_future_revision(s):
    # etcd checks a txn's ranges against the store before the txn runs.
    for ops in (
        (RangeRequest(b"k", revision=5),),
        (PutRequest(b"a", b"1"), RangeRequest(b"k", revision=5)),
    ):
        with pytest.raises(ErrFutureRev):
            s.txn(TxnRequest(success=ops))
    assert s.revision == 4


def test_nested_txn_runs_at_the_same_revision(s):
    resp = s.txn(TxnRequest(success=(
        PutRequest(b"a", b"1"),
        TxnRequest(
            compare=(Compare(b"k", T.VERSION, R.EQUAL, 2),),
            success=(PutRequest(b"b", b"1"), RangeRequest(b"a")),
            failure=(PutRequest(b"c", b"1"),),
        ),
    )))
    assert resp.header_revision == 5
    inner = resp.responses[1]
    assert inner.succeeded is True
    assert inner.responses[1].kvs == [KeyValue(b"a", 5, 5, 1, b"1")]
    assert s.get(b"b").mod_revision == 5
    assert s.get(b"c") is None


def test_nested_txn_compares_see_the_store_before_the_txn(s):
    # etcd evaluates every compare of the txn tree before running any op (compareToPath).
    resp = s.txn(TxnRequest(success=(
        PutRequest(b"new", b"1"),
        DeleteRangeRequest(b"k"),
        TxnRequest(
            compare=(
                Compare(b"new", T.MOD, R.EQUAL, 0),
                Compare(b"k", T.VERSION, R.EQUAL, 2),
            ),
            success=(PutRequest(b"seen-before", b"1"),),
            failure=(PutRequest(b"seen-after", b"1"),),
        ),
    )))
    assert resp.responses[2].succeeded is True
    assert s.get(b"seen-before") is not None
    assert s.get(b"seen-after") is None


@pytest.mark.parametrize(
    "ops",
    [
        (PutRequest(b"a"), PutRequest(b"a")),
        (PutRequest(b"a"), DeleteRangeRequest(b"a")),
        (DeleteRangeRequest(b"a"), PutRequest(b"a")),
        (DeleteRangeRequest(b"a", b"c"), PutRequest(b"b")),
        (PutRequest(b"a"), TxnRequest(success=(PutRequest(b"a"),))),
        (PutRequest(b"a"), TxnRequest(failure=(PutRequest(b"a"),))),
        (DeleteRangeRequest(b"a"), TxnRequest(success=(PutRequest(b"a"),))),
        (PutRequest(b"a"), TxnRequest(success=(DeleteRangeRequest(b"a"),))),
        (TxnRequest(success=(PutRequest(b"a"),)), TxnRequest(success=(PutRequest(b"a"),))),
        (TxnRequest(success=(DeleteRangeRequest(b"a"),)), TxnRequest(success=(PutRequest(b"a"),))),
        (TxnRequest(success=(PutRequest(b"a"), PutRequest(b"a"))),),
    ],
)
def test_writing_a_key_twice_is_duplicate_key(s, ops):
    for txn in (TxnRequest(success=ops), TxnRequest(failure=ops)):  # both branches are checked
        with pytest.raises(ErrDuplicateKey) as err:
            s.txn(txn)
        assert str(err.value) == "etcdserver: duplicate key given in txn request"
    assert s.revision == 4


@pytest.mark.parametrize(
    "ops",
    [
        (DeleteRangeRequest(b"a"), DeleteRangeRequest(b"a", b"c")),  # deletes may overlap
        (PutRequest(b"a"), RangeRequest(b"a")),
        # then and else of one nested txn are exclusive (etcd's checkIntervals)
        (TxnRequest(success=(PutRequest(b"a"),), failure=(PutRequest(b"a"),)),),
        (TxnRequest(success=(DeleteRangeRequest(b"a"),), failure=(PutRequest(b"a"),)),),
    ],
)
def test_writes_that_are_not_duplicates(s, ops):
    s.txn(TxnRequest(success=ops))


def test_success_and_failure_may_write_the_same_key(s):
    s.txn(TxnRequest(success=(PutRequest(b"a", b"1"),), failure=(PutRequest(b"a", b"2"),)))
    assert s.get(b"a").value == b"1"


def test_more_than_128_ops_is_too_many_ops(s):
    ok = tuple(PutRequest(b"k%03d" % i, b"v") for i in range(128))
    assert s.txn(TxnRequest(success=ok)).header_revision == 5
    too_many = tuple(PutRequest(b"x%03d" % i, b"v") for i in range(129))
    cmp = Compare(b"k", T.VERSION, R.GREATER, 0)
    for txn in (
        TxnRequest(success=too_many),
        TxnRequest(failure=too_many),
        TxnRequest(compare=(cmp,) * 129),
        TxnRequest(success=(TxnRequest(success=too_many),)),
    ):
        with pytest.raises(ErrTooManyOps) as err:
            s.txn(txn)
        assert str(err.value) == "etcdserver: too many operations in txn request"
    assert s.revision == 5
    assert s.get(b"x000") is None


@pytest.mark.parametrize(
    "bad_op, error",
    [
        (PutRequest(b"z", b"1", lease=99), ErrLeaseNotFound),
        (PutRequest(b"missing", ignore_value=True), ErrKeyNotFound),
        (RangeRequest(b"k", revision=100), ErrFutureRev),
        (PutRequest(b"", b"1"), ErrEmptyKey),
        (TxnRequest(success=(PutRequest(b"z", b"1", lease=99),)), ErrLeaseNotFound),
    ],
)
def test_an_error_changes_nothing(s, bad_op, error):
    stream = s.new_stream()
    stream.watch(b"\0", b"\0")
    before = s.range(RangeRequest(b"\0", b"\0")).kvs
    with pytest.raises(error):
        s.txn(TxnRequest(success=(
            PutRequest(b"a", b"1"), DeleteRangeRequest(b"other"), PutRequest(b"k", b"2"), bad_op,
        )))
    assert s.revision == 4
    assert s.range(RangeRequest(b"\0", b"\0")).kvs == before
    assert stream.poll() == []
    assert s.lease_time_to_live(7, keys=True).keys == (b"k",)
    assert s.put(PutRequest(b"a", b"1")).header_revision == 5
