"""Range over [key, range_end) in byte order: empty range_end = one key, "\\0" = to the end,
prefix+1; limit -> more; count from the start key, unaffected by limit; keys_only; count_only;
revision reads the past; ErrCompacted / ErrFutureRev; the header revision is always current."""

import pytest

from fakeapi.store import (
    DeleteRangeRequest,
    ErrCompacted,
    ErrEmptyKey,
    ErrFutureRev,
    KeyValue,
    PutRequest,
    RangeRequest,
    Store,
    prefix_range_end,
)

# Byte order, not text order: b"a\x00" < b"a0" < b"a\xff" < b"b".
KEYS = [b"a", b"a\x00", b"a/1", b"a/2", b"a/3", b"a0", b"a\xff", b"b", b"\xff"]


@pytest.fixture
def s():
    store = Store()
    for i, key in enumerate(sorted(KEYS, reverse=True)):  # insertion order must not matter
        store.put(PutRequest(key, b"v%d" % i))
    return store


def keys(resp):
    return [kv.key for kv in resp.kvs]


def test_range_is_in_byte_order(s):
    assert keys(s.range(RangeRequest(b"\0", b"\0"))) == sorted(KEYS)
    assert keys(s.range(RangeRequest(b"a", b"b"))) == [
        b"a", b"a\x00", b"a/1", b"a/2", b"a/3", b"a0", b"a\xff",
    ]


@pytest.mark.parametrize(
    "key, range_end, expected",
    [
        (b"a/2", b"", [b"a/2"]),  # empty range_end: the one key
        (b"a/9", b"", []),
        (b"a0", b"\0", [b"a0", b"a\xff", b"b", b"\xff"]),  # "\0": from key to the end
        (b"\0", b"\0", sorted(KEYS)),  # key = range_end = "\0": every key
        (b"a/", prefix_range_end(b"a/"), [b"a/1", b"a/2", b"a/3"]),  # prefix + 1
        (b"a/2", b"a/3", [b"a/2"]),  # range_end is exclusive
        (b"b", b"a", []),  # an inverted range is empty
    ],
)
def test_range_end_rules(s, key, range_end, expected):
    resp = s.range(RangeRequest(key, range_end))
    assert keys(resp) == expected
    assert resp.count == len(expected)


def test_prefix_range_end():
    assert prefix_range_end(b"a/") == b"a0"
    assert prefix_range_end(b"a\xff") == b"b"
    assert prefix_range_end(b"\xff\xff") == b"\0"


def test_limit_sets_more_and_count_is_unaffected_by_limit(s):
    resp = s.range(RangeRequest(b"a", b"b", limit=3))
    assert keys(resp) == [b"a", b"a\x00", b"a/1"]
    assert resp.count == 7
    assert resp.more is True
    exact = s.range(RangeRequest(b"a", b"b", limit=7))
    assert (len(exact.kvs), exact.count, exact.more) == (7, 7, False)
    bigger = s.range(RangeRequest(b"a", b"b", limit=100))
    assert (len(bigger.kvs), bigger.count, bigger.more) == (7, 7, False)


def test_count_is_from_the_start_key_not_from_the_prefix(s):
    # kube-apiserver's continue: key = last + "\0", range_end = prefix end.
    resp = s.range(RangeRequest(b"a/1\x00", prefix_range_end(b"a/"), limit=1))
    assert keys(resp) == [b"a/2"]
    assert resp.count == 2
    assert resp.more is True


def test_keys_only_strips_values_and_keeps_metadata(s):
    full = s.range(RangeRequest(b"a/", b"a0"))
    resp = s.range(RangeRequest(b"a/", b"a0", keys_only=True))
    assert resp.kvs == [kv._replace(value=b"") for kv in full.kvs]
    assert resp.kvs[0].mod_revision == full.kvs[0].mod_revision
    assert resp.count == 3


def test_count_only_returns_the_count_and_no_kvs(s):
    resp = s.range(RangeRequest(b"\0", b"\0", count_only=True))
    assert (resp.kvs, resp.count, resp.more) == ([], 9, False)
    single = s.range(RangeRequest(b"a/1", count_only=True))
    assert (single.kvs, single.count) == ([], 1)
    limited = s.range(RangeRequest(b"\0", b"\0", count_only=True, limit=2))
    assert limited.count == 9


def test_revision_reads_the_past_and_header_is_always_current():
    s = Store()
    s.put(PutRequest(b"p/a", b"1"))  # 2
    s.put(PutRequest(b"p/b", b"1"))  # 3
    s.put(PutRequest(b"p/a", b"2"))  # 4
    s.delete_range(DeleteRangeRequest(b"p/b"))  # 5
    s.put(PutRequest(b"p/c", b"1"))  # 6
    end = prefix_range_end(b"p/")
    at = {rev: s.range(RangeRequest(b"p/", end, revision=rev)) for rev in range(1, 7)}
    assert {rev: keys(r) for rev, r in at.items()} == {
        1: [], 2: [b"p/a"], 3: [b"p/a", b"p/b"], 4: [b"p/a", b"p/b"], 5: [b"p/a"],
        6: [b"p/a", b"p/c"],
    }
    assert at[3].kvs[0] == KeyValue(b"p/a", 2, 2, 1, b"1")
    assert at[4].kvs[0] == KeyValue(b"p/a", 2, 4, 2, b"2")
    assert {r.header_revision for r in at.values()} == {6}
    past = s.range(RangeRequest(b"p/", end, revision=4, limit=1))
    assert (keys(past), past.count, past.more) == ([b"p/a"], 2, True)
    assert s.range(RangeRequest(b"p/", end, revision=4, count_only=True)).count == 2
    assert s.range(RangeRequest(b"p/b", revision=3)).kvs == [KeyValue(b"p/b", 3, 3, 1, b"1")]


def test_revision_below_compaction_is_compacted_and_above_current_is_future():
    s = Store()
    for i in range(5):
        s.put(PutRequest(b"k", b"%d" % i))  # 2..6
    s.compact(4)
    with pytest.raises(ErrCompacted):
        s.range(RangeRequest(b"k", revision=3))
    assert s.range(RangeRequest(b"k", revision=4)).kvs[0].mod_revision == 4
    with pytest.raises(ErrFutureRev):
        s.range(RangeRequest(b"k", revision=7))
    assert s.range(RangeRequest(b"k", revision=6)).header_revision == 6


def test_empty_key_is_rejected():
    with pytest.raises(ErrEmptyKey):
        Store().range(RangeRequest(b""))


@pytest.mark.parametrize("writes_after", [3, 500])  # few: counted from the log; many: a scan
def test_count_at_a_past_revision_counts_the_keys_alive_then(writes_after):
    s = Store()
    for i in range(20):
        s.put(PutRequest(b"p/%02d" % i, b"v"))  # 2..21
    s.delete_range(DeleteRangeRequest(b"p/05"))  # 22
    past = s.revision  # p/00..p/19 without p/05: 19 keys
    s.delete_range(DeleteRangeRequest(b"p/10", b"p/13"))  # p/10, p/11, p/12 go
    s.put(PutRequest(b"p/05", b"back"))  # re-created
    s.put(PutRequest(b"p/99", b"new"))
    for i in range(writes_after - 3):
        s.put(PutRequest(b"p/00", b"%d" % i))
    end = prefix_range_end(b"p/")
    assert s.range(RangeRequest(b"p/", end, count_only=True, revision=past)).count == 19
    page = s.range(RangeRequest(b"p/04", end, limit=2, revision=past))
    assert keys(page) == [b"p/04", b"p/06"]
    assert (page.count, page.more) == (15, True)  # p/04 and p/06..p/19
    assert s.range(RangeRequest(b"p/10", b"p/13", count_only=True, revision=past)).count == 3
    assert s.range(RangeRequest(b"p/", end, count_only=True)).count == 18
