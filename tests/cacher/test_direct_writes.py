"""``CacheWatcher.write_directly``: live events skip the queue while the connection keeps up,
one write per flush; the queue takes over, in order, when it backs up; initial events and a
terminated watcher's lines never go to the direct writer."""

from __future__ import annotations

import asyncio
import json
import time

from fakeapi.cacher import CacheEvent, CachedObject, CacheWatcher


def _event(rv: int) -> CacheEvent:
    return CacheEvent("ADDED", rv, CachedObject(f"/k/{rv}", "default", f"o{rv}", rv, b'{"rv":%d}' % rv, {}, {}),
                      None, 0.0)


def _rvs(data: bytes) -> list[int]:
    return [json.loads(line)["object"]["rv"] for line in data.splitlines()]


def test_live_events_are_written_directly_one_write_per_flush() -> None:
    async def scenario() -> None:
        dirty: set[CacheWatcher] = set()
        writes: list[bytes] = []
        backed_up = False
        watcher = CacheWatcher(kind="ConfigMap", api_version="v1", matches=None, allow_bookmarks=False,
                               deadline=time.monotonic() + 60, bookmark_interval=60, capacity=100, dirty=dirty)
        watcher.write_directly(writes.append, lambda: backed_up)
        watcher.add_initial_events([_event(1)])
        lines = watcher.lines()
        assert _rvs(await anext(lines)) == [1]  # the initial events go through lines()
        consumer = asyncio.ensure_future(anext(lines))
        await asyncio.sleep(0)
        watcher.add(_event(2))
        watcher.add(_event(3))
        assert writes == [] and dirty == {watcher}  # collected until the flush
        for w in list(dirty):
            w.flush()
        assert [_rvs(w) for w in writes] == [[2, 3]] and not dirty and not consumer.done()
        backed_up = True  # the socket backs up: the queue and lines() take over
        watcher.add(_event(4))
        backed_up = False
        watcher.add(_event(5))  # behind a queued line: queued too, to keep the order
        assert _rvs(await consumer) == [4, 5] and len(writes) == 1
        assert watcher.events_written == 5 and watcher.bytes_written_directly == len(writes[0])
        watcher.close()

    asyncio.run(scenario())


def test_a_terminated_watchers_collected_lines_are_dropped() -> None:
    async def scenario() -> None:
        writes: list[bytes] = []
        watcher = CacheWatcher(kind="ConfigMap", api_version="v1", matches=None, allow_bookmarks=False,
                               deadline=time.monotonic() + 60, bookmark_interval=60, capacity=1)
        watcher.write_directly(writes.append, lambda: False)
        lines = watcher.lines()
        consumer = asyncio.ensure_future(anext(lines))
        await asyncio.sleep(0)
        watcher.add(_event(1))
        watcher.terminate()
        watcher.flush()
        assert writes == [] and watcher.overflowed
        consumer.cancel()

    asyncio.run(scenario())
