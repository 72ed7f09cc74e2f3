"""One client watch served from the watch cache (kube's ``cacheWatcher``).

The cacher pushes ready-made watch lines into a bounded queue; the HTTP layer drains it onto the
socket through ``lines()``. A watcher that cannot keep up (its queue is full) is closed and
counted, never waited for: one slow client must not delay the others or grow memory without
bound. Its client re-watches from the last resourceVersion it saw, as client-go does.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable

import orjson

from .watch_cache import ADDED, DELETED, CacheEvent, CachedObject, ObjectView

DEFAULT_QUEUE_CAPACITY = 1000
#: Initial events are written in chunks of about this size rather than one write per object.
INITIAL_CHUNK_BYTES = 64 * 1024

#: Annotation on the bookmark that ends a WatchList's initial events.
INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end"

ObjectFilter = Callable[[CachedObject], bool]


class CacheWatcher:
    def __init__(
        self,
        *,
        kind: str,
        api_version: str,
        matches: ObjectFilter | None,
        allow_bookmarks: bool,
        deadline: float,
        bookmark_interval: float,
        view: ObjectView | None = None,
        capacity: int = DEFAULT_QUEUE_CAPACITY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.kind = kind  # of bookmark objects: the resource's kind, or the view's
        self.api_version = api_version
        self.view = view
        self.matches = matches  # None: every object of the resource
        self.allow_bookmarks = allow_bookmarks
        self.deadline = deadline
        self.bookmark_interval = bookmark_interval
        self.capacity = capacity
        self._clock = clock
        self.initial: deque[bytes] = deque()  # sent before anything queued, not bounded
        self.queue: deque[bytes] = deque()
        self.last_rv = 0  # resourceVersion of the last event or bookmark handed over
        self.closed = False
        self.overflowed = False
        self._ready = asyncio.Event()
        now = clock()
        self.next_bookmark = self._bookmark_time(now)

    # ----------------------------------------------------------------- producer side

    def add_initial(self, objects: Iterable[CachedObject], rv: int) -> None:
        """Synthetic ADDED events for the current state (legacy watch from RV 0, or WatchList)."""
        for obj in objects:
            if self.matches is None or self.matches(obj):
                self.initial.append(b'{"type":"ADDED","object":' + obj.encoded(self.view) + b"}\n")
        self.last_rv = rv

    def add_initial_events(self, events: Iterable[CacheEvent]) -> None:
        """Buffered events a watch resumes from; not bounded by the live queue."""
        for event in events:
            line = self._line_for(event)
            if line is not None:
                self.initial.append(line)
            self.last_rv = event.rv

    def add_initial_events_end(self, rv: int) -> None:
        """The WatchList bookmark that tells the client its initial list is complete."""
        self.initial.append(self._bookmark_line(rv, initial_events_end=True))
        self.last_rv = rv

    def add(self, event: CacheEvent) -> None:
        if self.closed or event.rv <= self.last_rv:
            return
        line = self._line_for(event)
        self.last_rv = event.rv
        if line is not None:
            self._enqueue(line)

    def add_bookmark(self, rv: int, now: float) -> None:
        """A BOOKMARK at ``rv`` (queued after every earlier event, so the promise that all
        events up to ``rv`` were delivered holds)."""
        if self.closed or not self.allow_bookmarks:
            return
        self.next_bookmark = self._bookmark_time(now)
        if rv < self.last_rv:
            return
        self.last_rv = rv
        self._enqueue(self._bookmark_line(rv))

    def close(self) -> None:
        self.closed = True
        self._ready.set()

    def _enqueue(self, line: bytes) -> None:
        if len(self.queue) >= self.capacity:
            self.overflowed = True
            self.close()
            return
        self.queue.append(line)
        self._ready.set()

    def _line_for(self, event: CacheEvent) -> bytes | None:
        """kube's ``convertToWatchEvent``: an update that makes the object start matching is
        ADDED, one that makes it stop matching is DELETED, others pass as they are."""
        matches, view = self.matches, self.view
        if matches is None:
            return event.line(event.type, view)
        cur = event.type != DELETED and matches(event.obj)
        old = event.prev is not None and matches(event.prev)
        if cur and old:
            return event.line(event.type, view)
        if cur:
            return event.line(ADDED, view)
        if old:
            return event.line(DELETED, view)
        return None

    def _bookmark_line(self, rv: int, initial_events_end: bool = False) -> bytes:
        metadata: dict[str, object] = {"resourceVersion": str(rv)}
        if initial_events_end:
            metadata["annotations"] = {INITIAL_EVENTS_END_ANNOTATION: "true"}
        obj = {"kind": self.kind, "apiVersion": self.api_version, "metadata": metadata}
        return b'{"type":"BOOKMARK","object":' + orjson.dumps(obj) + b"}\n"

    def _bookmark_time(self, now: float) -> float:
        """Next bookmark: one interval from now, but no later than 2 s before the deadline, so
        a client gets a fresh resourceVersion before the server ends the watch (kube's
        ``nextBookmarkTime``)."""
        return min(now + self.bookmark_interval, self.deadline - 2.0)

    # ----------------------------------------------------------------- consumer side

    async def lines(self) -> AsyncIterator[bytes]:
        """Watch lines until the watcher closes or its deadline passes. Lines that are ready are
        yielded in batches so the writer can coalesce them into one socket write."""
        initial = self.initial
        while initial:
            chunk = [initial.popleft()]
            size = len(chunk[0])
            while initial and size < INITIAL_CHUNK_BYTES:
                line = initial.popleft()
                chunk.append(line)
                size += len(line)
            yield b"".join(chunk)
        queue = self.queue
        while True:
            if queue:
                batch = b"".join(queue)
                queue.clear()
                yield batch
                continue
            if self.closed:
                return
            remaining = self.deadline - self._clock()
            if remaining <= 0:
                return
            self._ready.clear()
            try:
                await asyncio.wait_for(self._ready.wait(), remaining)
            except TimeoutError:
                return
