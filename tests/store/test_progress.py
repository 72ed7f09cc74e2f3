"""Progress notifications: periodic (``notify_progress``: progress_notify watchers with no event
since the last tick, only when synced) and on request (``request_progress``: watch_id -1, only
when every watcher of the stream is synced and has reached its start revision, ordered after
earlier responses), both carrying the current revision. Also ``StoreTimers``."""

import asyncio

from fakeapi.store import (
    STREAM_PROGRESS_ID,
    PutRequest,
    Store,
    StoreTimers,
    WatchResponse,
)
from fakeapi.store import timers as timers_module


def test_periodic_progress_only_for_progress_notify_watchers_without_events():
    s = Store()
    s.put(PutRequest(b"x", b"1"))  # 2
    stream = s.new_stream()
    quiet = stream.watch(b"q", progress_notify=True)
    busy = stream.watch(b"b", progress_notify=True)
    plain = stream.watch(b"q")
    s.put(PutRequest(b"b", b"1"))  # 3
    assert s.notify_progress() == 1
    responses = stream.poll()
    assert responses[0].watch_id == busy and responses[0].events
    assert responses[1:] == [WatchResponse(quiet, 3)]
    assert responses[1].is_progress_notify
    # Next tick: nothing happened since the last one, so both are told; never the plain one.
    s.put(PutRequest(b"x", b"2"))  # 4
    assert s.notify_progress() == 2
    assert sorted(stream.poll()) == sorted([WatchResponse(quiet, 4), WatchResponse(busy, 4)])
    assert plain not in {r.watch_id for r in stream.poll()}


def test_periodic_progress_skips_unsynced_watchers_and_future_starts():
    s = Store()
    for i in range(3):
        s.put(PutRequest(b"k", b"%d" % i))  # 2..4
    stream = s.new_stream()
    behind = stream.watch(b"k", start_revision=2, progress_notify=True)
    future = stream.watch(b"k", start_revision=10, progress_notify=True)
    assert s.notify_progress() == 0
    responses = stream.poll()  # catches `behind` up
    assert [r.watch_id for r in responses] == [behind]
    assert s.notify_progress() == 0  # it just got events
    assert s.notify_progress() == 1
    assert stream.poll() == [WatchResponse(behind, 4)]
    assert future in stream.watchers


def test_requested_progress_has_watch_id_minus_one_and_the_current_revision():
    s = Store()
    s.put(PutRequest(b"x", b"1"))  # 2
    stream = s.new_stream()
    stream.watch(b"k")
    stream.watch(b"j")
    s.put(PutRequest(b"x", b"2"))  # 3
    assert stream.request_progress() is True
    assert stream.poll() == [WatchResponse(STREAM_PROGRESS_ID, 3)]
    assert STREAM_PROGRESS_ID == -1


def test_requested_progress_is_ordered_after_earlier_responses():
    s = Store()
    stream = s.new_stream()
    w = stream.watch(b"k")
    s.put(PutRequest(b"k", b"1"))  # 2
    s.put(PutRequest(b"k", b"2"))  # 3
    assert stream.request_progress() is True
    s.put(PutRequest(b"k", b"3"))  # 4
    responses = stream.poll()
    assert [(r.watch_id, r.header_revision, len(r.events)) for r in responses] == [
        (w, 2, 1), (w, 3, 1), (-1, 3, 0), (w, 4, 1),
    ]


def test_requested_progress_only_when_every_watcher_is_synced_and_started():
    s = Store()
    for i in range(3):
        s.put(PutRequest(b"k", b"%d" % i))  # 2..4
    stream = s.new_stream()
    stream.watch(b"k")
    behind = stream.watch(b"k", start_revision=2)
    assert stream.request_progress() is False  # one is unsynced: dropped, not deferred
    stream.poll()
    assert stream.request_progress() is True
    assert stream.poll() == [WatchResponse(-1, 4)]
    stream.cancel(behind)
    future = stream.watch(b"k", start_revision=6)
    assert stream.request_progress() is False  # the store has not reached its start
    s.put(PutRequest(b"k", b"x"))  # 5
    s.put(PutRequest(b"k", b"y"))  # 6
    stream.poll()
    assert stream.request_progress() is True
    assert stream.poll()[-1] == WatchResponse(-1, 6)
    assert future in stream.watchers


def test_requested_progress_on_a_stream_without_watchers_sends_nothing():
    s = Store()
    stream = s.new_stream()
    stream.request_progress()
    assert stream.poll() == []


def test_requested_progress_with_a_full_queue_is_dropped():
    s = Store()
    stream = s.new_stream(capacity=1)
    stream.watch(b"k")
    s.put(PutRequest(b"k", b"1"))
    assert stream.request_progress() is False
    assert len(stream.poll()) == 1


def test_store_timers_send_progress_and_expire_leases(monkeypatch):
    monkeypatch.setattr(timers_module, "LEASE_CHECK_INTERVAL", 0.01)
    now = [0.0]
    s = Store(clock=lambda: now[0])
    lease = s.lease_grant(5).id
    s.put(PutRequest(b"l", b"1", lease=lease))  # 2
    ready = []

    async def main():
        event = asyncio.Event()
        stream = s.new_stream(on_ready=event.set)
        stream.watch(b"q", progress_notify=True)
        stream.watch(b"l")
        timers = StoreTimers(s, progress_interval=0.01)
        timers.start()
        try:
            await asyncio.wait_for(event.wait(), 2)
            ready.extend(stream.poll())
            now[0] = 10.0  # the lease is past its deadline
            for _ in range(200):
                if s.get(b"l") is None:
                    break
                await asyncio.sleep(0.01)
            event.clear()
            await asyncio.wait_for(event.wait(), 2)
            ready.extend(stream.poll())
        finally:
            await timers.stop()
        assert timers._tasks == []

    asyncio.run(main())
    assert ready[0].is_progress_notify and ready[0].header_revision == 2
    assert s.get(b"l") is None
    assert s.leases() == []
    deletes = [ev for r in ready for ev in r.events]
    got = [(ev.type.name, ev.kv.key, ev.kv.mod_revision) for ev in deletes]
    assert got == [("DELETE", b"l", 3)]
