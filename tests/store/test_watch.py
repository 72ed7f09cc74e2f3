"""Watch: keys, ranges and prefixes from start_revision (inclusive; 0 = from now; future allowed),
prev_kv, NOPUT/NODELETE; events ordered, never duplicated, never split within a revision, also
when a stream's queue overflows; a watcher below the compaction is canceled."""

import pytest

from fakeapi.store import (
    DeleteRangeRequest,
    ErrWatcherDuplicateID,
    EventType,
    KeyValue,
    PutRequest,
    Store,
    TxnRequest,
    WatchFilter,
    prefix_range_end,
)
from fakeapi.store import watcher as watcher_module


def drain(stream, limit=10_000):
    out = []
    for _ in range(limit):
        got = stream.poll()
        out.extend(got)
        if not got and not stream.has_pending:
            return out
    raise AssertionError("stream never drained")


def events_of(responses, watch_id=None):
    return [
        (ev.type, ev.kv.key, ev.kv.mod_revision)
        for r in responses if watch_id is None or r.watch_id == watch_id
        for ev in r.events
    ]


P, D = EventType.PUT, EventType.DELETE


def test_watch_a_key_a_range_and_a_prefix():
    s = Store()
    stream = s.new_stream()
    key = stream.watch(b"p/b")
    rng = stream.watch(b"p/a", b"p/c")
    pre = stream.watch(b"p/", prefix_range_end(b"p/"))
    everything = stream.watch(b"", b"\0")  # an empty key means "\0"
    for k in (b"p/a", b"p/b", b"p/c", b"q"):
        s.put(PutRequest(k, b"v"))  # 2..5
    responses = stream.poll()
    assert events_of(responses, key) == [(P, b"p/b", 3)]
    assert events_of(responses, rng) == [(P, b"p/a", 2), (P, b"p/b", 3)]
    assert events_of(responses, pre) == [(P, b"p/a", 2), (P, b"p/b", 3), (P, b"p/c", 4)]
    assert events_of(responses, everything) == [
        (P, b"p/a", 2), (P, b"p/b", 3), (P, b"p/c", 4), (P, b"q", 5),
    ]


def test_nested_and_overlapping_ranges_each_get_the_keys_they_hold():
    """The dispatch's range index (a binary search among distinct ranges) against the
    definition: each watcher gets exactly the keys in [start, end), also for ranges nested in,
    overlapping or sharing a start with others, watchers coming and going, and txns of several
    keys (one response per revision, the keys in txn order)."""
    import random

    rnd = random.Random(7)
    letters = b"abcd"

    def a_key():
        return bytes(rnd.choice(letters) for _ in range(rnd.randint(1, 3)))

    s = Store()
    stream = s.new_stream()
    bounds = {}
    for _ in range(30):
        start = a_key()
        end = rnd.choice([b"", b"\0", prefix_range_end(start), start + b"c", a_key()])
        if end not in (b"", b"\0") and end <= start:
            continue
        bounds[stream.watch(start, end)] = (start, end)
    expected = {watch_id: [] for watch_id in bounds}
    got = {watch_id: [] for watch_id in bounds}
    for step in range(300):
        if step % 50 == 49:  # a watcher goes, another comes: the index is rebuilt
            gone = rnd.choice(sorted(bounds))
            stream.cancel(gone)
            del bounds[gone], expected[gone], got[gone]
            start = a_key()
            watch_id = stream.watch(start, prefix_range_end(start))
            bounds[watch_id], expected[watch_id], got[watch_id] = (start, prefix_range_end(start)), [], []
        keys = list(dict.fromkeys(a_key() for _ in range(rnd.choice([1, 1, 3]))))
        rev = s.txn(TxnRequest(success=[PutRequest(k, b"v") for k in keys])).header_revision
        for watch_id, (start, end) in bounds.items():
            held = [k for k in keys if k == start] if end == b"" else \
                [k for k in keys if k >= start and (end == b"\0" or k < end)]
            expected[watch_id].extend((P, k, rev) for k in held)
        for response in drain(stream):
            if response.watch_id in got:
                got[response.watch_id].extend((ev.type, ev.kv.key, ev.kv.mod_revision) for ev in response.events)
    assert got == expected
    assert any(len(held) > 1 for held in got.values())


def test_start_revision_is_inclusive_and_zero_means_from_now():
    s = Store()
    for i in range(4):
        s.put(PutRequest(b"k", b"%d" % i))  # 2..5
    stream = s.new_stream()
    past = stream.watch(b"k", start_revision=3)
    now = stream.watch(b"k", start_revision=0)
    s.put(PutRequest(b"k", b"x"))  # 6
    responses = drain(stream)
    assert events_of(responses, past) == [(P, b"k", 3), (P, b"k", 4), (P, b"k", 5), (P, b"k", 6)]
    assert events_of(responses, now) == [(P, b"k", 6)]


def test_live_responses_carry_their_revision_and_catch_up_the_current_one():
    s = Store()
    s.put(PutRequest(b"k", b"1"))  # 2
    s.put(PutRequest(b"k", b"2"))  # 3
    stream = s.new_stream()
    stream.watch(b"k", start_revision=2)
    (catch_up,) = stream.poll()
    assert catch_up.header_revision == 3
    assert [ev.kv.mod_revision for ev in catch_up.events] == [2, 3]
    s.put(PutRequest(b"k", b"3"))  # 4
    s.put(PutRequest(b"other", b"3"))  # 5
    (live,) = stream.poll()
    assert live.header_revision == 4


def test_a_future_start_revision_waits_for_it():
    s = Store()
    stream = s.new_stream()
    w = stream.watch(b"k", start_revision=4)
    s.put(PutRequest(b"k", b"2"))  # 2
    s.put(PutRequest(b"k", b"3"))  # 3
    assert stream.poll() == []
    s.put(PutRequest(b"k", b"4"))  # 4
    s.put(PutRequest(b"k", b"5"))  # 5
    assert events_of(stream.poll(), w) == [(P, b"k", 4), (P, b"k", 5)]


def test_prev_kv_only_when_asked():
    s = Store()
    s.put(PutRequest(b"k", b"1"))  # 2
    stream = s.new_stream()
    with_prev = stream.watch(b"k", prev_kv=True)
    without = stream.watch(b"k")
    s.put(PutRequest(b"k", b"2"))  # 3
    s.delete_range(DeleteRangeRequest(b"k"))  # 4
    s.put(PutRequest(b"k", b"3"))  # 5: a create has no prev_kv
    responses = stream.poll()
    got = [ev.prev_kv for r in responses if r.watch_id == with_prev for ev in r.events]
    assert got == [KeyValue(b"k", 2, 2, 1, b"1"), KeyValue(b"k", 2, 3, 2, b"2"), None]
    assert [ev.prev_kv for r in responses if r.watch_id == without for ev in r.events] == [None] * 3
    # The same from history (catch-up).
    late = s.new_stream()
    late_id = late.watch(b"k", start_revision=3, prev_kv=True)
    assert [ev.prev_kv for r in drain(late) if r.watch_id == late_id for ev in r.events] == got


@pytest.mark.parametrize("start", [0, 2])  # live and from history
def test_noput_and_nodelete_filters(start):
    s = Store()
    stream = s.new_stream()
    no_put = stream.watch(b"k", start_revision=start, filters=(WatchFilter.NOPUT,))
    no_delete = stream.watch(b"k", start_revision=start, filters=(WatchFilter.NODELETE,))
    s.put(PutRequest(b"k", b"1"))  # 2
    s.delete_range(DeleteRangeRequest(b"k"))  # 3
    s.put(PutRequest(b"k", b"2"))  # 4
    responses = drain(stream)
    assert events_of(responses, no_put) == [(D, b"k", 3)]
    assert events_of(responses, no_delete) == [(P, b"k", 2), (P, b"k", 4)]
    assert all(r.events for r in responses)  # a filtered-out revision sends nothing


def _expected(events_by_rev, lo, hi, key_filter):
    return [e for rev in range(lo, hi + 1) for e in events_by_rev.get(rev, []) if key_filter(e[1])]


@pytest.mark.parametrize("capacity", [1, 2, 3])
def test_events_ordered_unique_and_never_split_when_the_queue_overflows(monkeypatch, capacity):
    monkeypatch.setattr(watcher_module, "CATCHUP_BATCH_REVISIONS", 3)
    s = Store()
    stream = s.new_stream(capacity=capacity)
    watches = {
        stream.watch(b"w/", b"w0"): lambda k: k.startswith(b"w/"),
        stream.watch(b"w/1"): lambda k: k == b"w/1",
        stream.watch(b"\0", b"\0"): lambda k: True,
        stream.watch(b"w/", b"w0", start_revision=1): lambda k: k.startswith(b"w/"),
    }
    by_rev: dict[int, list] = {}
    received = []
    for i in range(30):
        keys = [b"w/%d" % (i % 3), b"w/%d" % ((i + 1) % 3), b"x%d" % i]
        rev = s.txn(TxnRequest(success=tuple(PutRequest(k, b"v") for k in keys))).header_revision
        by_rev[rev] = [(P, k, rev) for k in keys]
        if i % 7 == 0:  # a slow consumer: poll now and then
            received.extend(stream.poll())
    received.extend(drain(stream))
    assert any(len({ev.kv.mod_revision for ev in r.events}) > 1 for r in received)  # caught up
    for watch_id, key_filter in watches.items():
        got = events_of(received, watch_id)
        assert got == _expected(by_rev, 2, s.revision, key_filter)
        for r in received:
            if r.watch_id != watch_id or not r.events:
                continue
            revs = {ev.kv.mod_revision for ev in r.events}
            for rev in revs:  # every revision of a response is complete in it
                whole = [e for e in by_rev[rev] if key_filter(e[1])]
                assert [e for e in events_of([r]) if e[2] == rev] == whole
            assert len(revs) <= 3  # catch-up batches hold at most CATCHUP_BATCH_REVISIONS


def test_a_watcher_below_the_compaction_is_canceled_with_the_compact_revision():
    s = Store()
    for i in range(5):
        s.put(PutRequest(b"k", b"%d" % i))  # 2..6
    s.compact(4)
    stream = s.new_stream()
    old = stream.watch(b"k", start_revision=3)
    at = stream.watch(b"k", start_revision=4)
    responses = drain(stream)
    canceled = [r for r in responses if r.watch_id == old]
    assert len(canceled) == 1
    assert canceled[0].canceled is True
    assert canceled[0].compact_revision == 4
    assert canceled[0].events == ()
    assert old not in stream.watchers
    assert events_of(responses, at) == [(P, b"k", 4), (P, b"k", 5), (P, b"k", 6)]


def test_a_fallen_behind_watcher_is_canceled_when_compaction_passes_it():
    s = Store()
    stream = s.new_stream(capacity=1)
    w = stream.watch(b"k")
    s.put(PutRequest(b"k", b"1"))  # 2: queued
    s.put(PutRequest(b"k", b"2"))  # 3: the queue is full, the watcher falls behind at 3
    s.put(PutRequest(b"k", b"3"))  # 4
    s.compact(4)
    responses = drain(stream)
    assert events_of(responses, w) == [(P, b"k", 2)]
    assert responses[-1].canceled and responses[-1].compact_revision == 4


def test_watch_from_the_compaction_revision_sees_a_delete_at_it():
    s = Store()
    s.put(PutRequest(b"k", b"1"))  # 2
    s.delete_range(DeleteRangeRequest(b"k"))  # 3
    s.compact(3)
    stream = s.new_stream()
    w = stream.watch(b"k", start_revision=3, prev_kv=True)
    responses = drain(stream)
    assert events_of(responses, w) == [(D, b"k", 3)]
    assert responses[0].events[0].prev_kv is None  # read at revision 2, which is compacted


def test_cancel_stops_events_and_ids_are_unique():
    s = Store()
    stream = s.new_stream()
    a = stream.watch(b"k")
    b = stream.watch(b"k", watch_id=10)
    assert b == 10
    with pytest.raises(ErrWatcherDuplicateID) as err:
        stream.watch(b"k", watch_id=a)
    assert str(err.value) == "mvcc: duplicate watch ID provided on the WatchStream"
    assert stream.cancel(a) is True
    assert stream.cancel(a) is False
    s.put(PutRequest(b"k", b"1"))
    assert [r.watch_id for r in stream.poll()] == [10]


def test_a_closed_stream_gets_nothing():
    s = Store()
    stream = s.new_stream()
    stream.watch(b"k")
    s.close_stream(stream)
    s.put(PutRequest(b"k", b"1"))
    assert stream.poll() == []


def test_on_ready_is_called_when_there_is_something_to_poll():
    s = Store()
    calls = []
    stream = s.new_stream(on_ready=lambda: calls.append(1))
    stream.watch(b"k")
    s.put(PutRequest(b"other", b"1"))
    assert calls == []
    s.put(PutRequest(b"k", b"1"))
    assert calls == [1]
    stream.watch(b"k", start_revision=1)  # behind: needs a poll
    assert len(calls) == 2
