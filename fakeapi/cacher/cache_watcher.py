"""One client watch served from the watch cache (kube's ``cacheWatcher``).

The cacher pushes ready-made watch lines into a bounded queue; the HTTP layer drains it onto the
socket through ``lines()``. Once its initial events are written, a watcher given a direct writer
(``write_directly``) skips the queue while its connection keeps up: the lines of one dispatch
are collected and written in one call when the cacher flushes them, in the dispatch's own loop
step, with no task switch and no ASGI send per event (the queue, and ``lines()``, take over
whenever the socket backs up, lines are held, or some are still queued, so order is kept). A watcher that cannot keep up (its queue is full) is terminated and
counted, never waited for: one slow client must not delay the others or grow memory without
bound. Its queue is dropped and its connection cut (``on_terminated``); its client re-watches
from the last resourceVersion it saw, as client-go does.

A watcher can be stalled (a fault: the network or the apiserver holding a watch back): while
stalled, lines go to ``held``, which is upstream of the bounded queue and unbounded, so a stall
delays events without ever overflowing the watcher; when the last stall ends, ``held`` is
written before anything queued after it. Stalls are bounded in time, and so is ``held``.
"""

from __future__ import annotations

import asyncio
import math
import time
from bisect import bisect_left
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable

import orjson

from .watch_cache import ADDED, DELETED, CacheEvent, CachedObject, ObjectView, json_event

DEFAULT_QUEUE_CAPACITY = 1000
#: Initial events are written in chunks of about this size rather than one write per object.
INITIAL_CHUNK_BYTES = 64 * 1024

#: Annotation on the bookmark that ends a WatchList's initial events.
INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end"

ObjectFilter = Callable[[CachedObject], bool]

#: apiserver_watch_events_sizes' bucket edges: 1 KiB ... 128 KiB (kube's
#: ``ExponentialBuckets(1024, 2.0, 8)``, apiserver pkg/endpoints/metrics/metrics.go).
WATCH_EVENT_SIZE_EDGES: tuple[float, ...] = tuple(1024.0 * 2**k for k in range(8))
#: Edges fine enough for sub-millisecond latencies: 1-2.5-5 steps from 10 µs to 60 s.
FINE_LATENCY_EDGES: tuple[float, ...] = (
    0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class BucketCounts:
    """A histogram as plain numbers, observed on the hot path without locks (one event-loop
    thread) and read by the metrics collector at scrape time. ``counts[i]`` counts observations
    ``v`` with ``edges[i-1] < v <= edges[i]`` (Prometheus' ``le``); the last slot is +Inf."""

    __slots__ = ("edges", "counts", "sum")

    def __init__(self, edges: tuple[float, ...]) -> None:
        self.edges = edges
        self.counts = [0] * (len(edges) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.edges, value)] += 1
        self.sum += value


class WatchStats:
    """What one resource's client watches did, for the metrics (kube: apiserver_init_events_total,
    apiserver_watch_events_total and _sizes) plus dispatch latencies: from the store commit to
    the event queued for every watcher, and to it written on each watcher's socket."""

    __slots__ = ("init_events", "event_sizes", "queued_latency", "written_latency")

    def __init__(self) -> None:
        self.init_events = 0
        self.event_sizes = BucketCounts(WATCH_EVENT_SIZE_EDGES)  # one per line written
        self.queued_latency = BucketCounts(FINE_LATENCY_EDGES)
        self.written_latency = BucketCounts(FINE_LATENCY_EDGES)


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
        namespace: str | None = None,
        capacity: int = DEFAULT_QUEUE_CAPACITY,
        clock: Callable[[], float] = time.monotonic,
        stats: WatchStats | None = None,
        dirty: set[CacheWatcher] | None = None,
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
        #: Lines kept back while stalled; always older than everything in ``queue``.
        self.held: deque[bytes] = deque()
        self._stalls = 0  # stalls in force (they may overlap)
        #: The namespace the watch is scoped to (None: every namespace), for faults that select
        #: watches by namespace.
        self.namespace = namespace
        self.last_rv = 0  # resourceVersion of the last event or bookmark handed over
        self.stats = stats if stats is not None else WatchStats()
        #: perf_counter() of the store commit of the oldest live event not yet written; 0.0
        #: when none is pending or its commit time is unknown.
        self._unwritten_since = 0.0
        #: Lines written to the client so far (events and bookmarks), for the client report.
        self.events_written = 0
        self.closed = False
        self.overflowed = False
        #: Ended by the server (a restart, a close-watches fault), not by its client, its
        #: timeout or falling behind.
        self.ended_by_server = False
        #: Called when the watcher is terminated for falling behind: the HTTP layer cuts the
        #: connection then (a client that stopped reading would otherwise keep its writer
        #: blocked on a full socket for as long as it keeps the connection open).
        self.on_terminated: Callable[[], None] | None = None
        self._ready = asyncio.Event()
        now = clock()
        self.next_bookmark = self._bookmark_time(now)
        #: Direct delivery (``write_directly``): the writer, whether the connection is backed
        #: up, and whether the live phase has begun (initial events written).
        self._write: Callable[[bytes], None] | None = None
        self._backed_up: Callable[[], bool] = _never
        self._direct = False
        #: Lines of the current dispatch for the direct writer, written by ``flush``; the
        #: watcher is in ``dirty`` (its cacher's set to flush) while this is not empty.
        self._pending: list[bytes] = []
        self._dirty = dirty if dirty is not None else set()
        #: Bytes handed to the direct writer (the HTTP layer counts them as response bytes).
        self.bytes_written_directly = 0

    # ----------------------------------------------------------------- producer side

    def add_initial(self, objects: Iterable[CachedObject], rv: int) -> None:
        """Synthetic ADDED events for the current state (legacy watch from RV 0, or WatchList)."""
        before = len(self.initial)
        view, matches, initial = self.view, self.matches, self.initial
        frame = json_event if view is None else view.event
        for obj in objects:
            if matches is None or matches(obj):
                initial.append(frame(ADDED, obj.encoded(view)))
        self.stats.init_events += len(self.initial) - before
        self.last_rv = rv

    def add_initial_events(self, events: Iterable[CacheEvent]) -> None:
        """Buffered events a watch resumes from; not bounded by the live queue."""
        before = len(self.initial)
        for event in events:
            line = self._line_for(event)
            if line is not None:
                self.initial.append(line)
            self.last_rv = event.rv
        self.stats.init_events += len(self.initial) - before

    def add_initial_events_end(self, rv: int) -> None:
        """The WatchList bookmark that tells the client its initial list is complete."""
        self.initial.append(self._bookmark_line(rv, initial_events_end=True))
        self.last_rv = rv

    def add(self, event: CacheEvent, committed_at: float = 0.0) -> None:
        """Queue ``event``; ``committed_at`` is the perf_counter() of its store commit (0.0:
        unknown), for the commit-to-socket latency."""
        if self.closed or event.rv <= self.last_rv:
            return
        line = self._line_for(event)
        self.last_rv = event.rv
        if line is not None:
            if not self._unwritten_since:
                self._unwritten_since = committed_at
            self._push(line)

    def add_bookmark(self, rv: int, now: float) -> None:
        """A BOOKMARK at ``rv`` (queued after every earlier event, so the promise that all
        events up to ``rv`` were delivered holds)."""
        if self.closed or not self.allow_bookmarks:
            return
        self.next_bookmark = self._bookmark_time(now)
        if rv < self.last_rv:
            return
        self.last_rv = rv
        self._push(self._bookmark_line(rv))

    def close(self) -> None:
        self.closed = True
        self._ready.set()

    def stall(self) -> None:
        """Hold every line back until as many ``resume`` calls as ``stall`` calls; what was
        queued but not yet written is held too, so order is kept."""
        self._stalls += 1
        if self._stalls == 1:
            self.held.extend(self.queue)
            self.queue.clear()

    def resume(self) -> None:
        """End one stall; after the last, the held lines are written first."""
        if self._stalls > 0:
            self._stalls -= 1
            if self._stalls == 0:
                self._ready.set()

    @property
    def stalled(self) -> bool:
        return self._stalls > 0

    def remaining(self) -> float:
        """Seconds until the watch's deadline."""
        return self.deadline - self._clock()

    def set_deadline(self, deadline: float) -> None:
        """Move the end of the watch (a shorter watch-timeout cap); the writer wakes to see it."""
        self.deadline = deadline
        self.next_bookmark = min(self.next_bookmark, self._bookmark_time(self._clock()))
        self._ready.set()

    def set_bookmark_interval(self, interval: float) -> None:
        self.bookmark_interval = interval
        self.next_bookmark = self._bookmark_time(self._clock())

    def _push(self, line: bytes) -> None:
        if self._stalls:
            self.held.append(line)
        else:
            self._enqueue(line)

    def _enqueue(self, line: bytes) -> None:
        if self._direct and not self.queue and not self.held and not self._backed_up():
            if not self._pending:
                self._dirty.add(self)
            self._pending.append(line)
            return
        if len(self.queue) >= self.capacity:
            self.terminate()
            return
        self.queue.append(line)
        self._ready.set()

    def write_directly(self, write: Callable[[bytes], None], backed_up: Callable[[], bool]) -> None:
        """From the end of the initial events on, write lines with ``write`` (one call per
        flush, the lines joined) while ``backed_up()`` is false."""
        self._write, self._backed_up = write, backed_up

    def flush(self) -> None:
        """Write the lines collected for the direct writer (the cacher calls it after each
        dispatch); dropped if the watcher was terminated meanwhile."""
        pending = self._pending
        self._dirty.discard(self)
        if not pending:
            return
        self._pending = []
        if self.overflowed or self._write is None:
            return
        batch = self._take(pending)
        self.bytes_written_directly += len(batch)
        self._write(batch)
        committed_at, self._unwritten_since = self._unwritten_since, 0.0
        if committed_at:
            self.stats.written_latency.observe(time.perf_counter() - committed_at)

    def terminate(self) -> None:
        """kube's ``forget`` of a watcher that fell behind: closed, what it had queued dropped
        (its client resumes from the last resourceVersion it read, as client-go does, so nothing
        is lost), and its connection cut."""
        self.overflowed = True
        self.queue.clear()
        self.held.clear()
        self.close()
        if self.on_terminated is not None:
            self.on_terminated()

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
        """kube's bookmark object: an empty object of the watched kind carrying only the
        resourceVersion (and, ending a WatchList's initial events, its annotation)."""
        annotations = {INITIAL_EVENTS_END_ANNOTATION: "true"} if initial_events_end else None
        if self.view is not None:
            framed = self.view.bookmark(rv, annotations)
            if framed is not None:
                return framed
        metadata: dict[str, object] = {"resourceVersion": str(rv)}
        if annotations:
            metadata["annotations"] = annotations
        obj = {"kind": self.kind, "apiVersion": self.api_version, "metadata": metadata}
        return json_event("BOOKMARK", orjson.dumps(obj))

    def _bookmark_time(self, now: float) -> float:
        """Next bookmark: one interval from now, but no later than 2 s before the deadline, so
        a client gets a fresh resourceVersion before the server ends the watch; none at all
        (infinity) once that moment has passed, as for a watch shorter than 2 s (kube's
        ``nextBookmarkTime``)."""
        heartbeat = min(now + self.bookmark_interval, self.deadline - 2.0)
        return heartbeat if heartbeat >= now else math.inf

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
            yield self._take(chunk)
        self._direct = self._write is not None
        queue, held = self.queue, self.held
        while True:
            # A closed watcher's held lines are still written: they are events in order.
            if not self._stalls or self.closed:
                pending = held or queue
                if pending:
                    # Lines added while this batch is written get a stamp of their own. After
                    # a stall, the held batch takes the stamp; what queued behind it goes without.
                    committed_at, self._unwritten_since = self._unwritten_since, 0.0
                    yield self._take(pending)
                    if committed_at:  # the generator resumes once the batch reached the socket
                        self.stats.written_latency.observe(time.perf_counter() - committed_at)
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

    def _take(self, lines: deque[bytes] | list[bytes]) -> bytes:
        """``lines`` joined for one write (and emptied), each counted as a written event."""
        sizes = self.stats.event_sizes
        for line in lines:
            sizes.observe(len(line))
        self.events_written += len(lines)
        batch = b"".join(lines)
        lines.clear()
        return batch


def _never() -> bool:
    return False
