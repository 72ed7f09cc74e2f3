"""Watchers and watch streams.

A ``WatchStream`` is etcd's ``watchStream``: a set of watchers sharing one bounded queue of
``WatchResponse`` and one consumer. The consumer registers ``on_ready`` (called, on the store's
thread, whenever the stream may have something to poll) and calls ``poll()`` to take everything
that is ready.

A ``Watcher`` is in one of two states, as in etcd's watchable store:
- *synced*: it has seen every revision up to the current one; new revisions are pushed to it
  as they commit.
- *unsynced*: it is behind (it started in the past, or the stream queue was full when a revision
  of interest committed). It is caught up from the store's revision log in ``poll()``, at most
  ``CATCHUP_BATCH_REVISIONS`` revisions per response, until it reaches the current revision and
  becomes synced again. A watcher behind the compaction point is canceled with
  ``compact_revision`` instead.

``next_rev`` is the lowest revision whose events the watcher has not yet been given (queued). Since
every event queued is for a revision below ``next_rev`` and catch-up starts at ``next_rev``,
events are never duplicated, never skipped, and a revision is never split across responses.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol

from .errors import ErrEmptyWatcherRange, ErrWatcherDuplicateID
from .kv import Event, EventType, WatchFilter, WatchResponse, range_bounds

#: etcd's ``watchBatchMaxRevs``: revisions per catch-up response.
CATCHUP_BATCH_REVISIONS = 1000
#: etcd's ``chanBufLen``: responses a stream holds before its watchers fall behind.
DEFAULT_STREAM_CAPACITY = 128
#: ``WatchResponse.watch_id`` of a progress notification answering a stream-wide request.
STREAM_PROGRESS_ID = -1


class Watcher:
    __slots__ = (
        "id", "stream", "key", "end", "single", "prev_kv", "no_put", "no_delete",
        "progress_notify", "start_rev", "next_rev", "synced", "sent_since_progress",
    )

    def __init__(
        self,
        watch_id: int,
        stream: WatchStream,
        key: bytes,
        range_end: bytes,
        start_rev: int,
        next_rev: int,
        prev_kv: bool,
        filters: tuple[WatchFilter, ...],
        progress_notify: bool,
    ) -> None:
        self.id = watch_id
        self.stream = stream
        start, end, single = range_bounds(key, range_end)
        self.key = start
        self.end = end  # None: to the end of the key space (or the one key when single)
        self.single = single
        self.prev_kv = prev_kv
        self.no_put = WatchFilter.NOPUT in filters
        self.no_delete = WatchFilter.NODELETE in filters
        self.progress_notify = progress_notify
        self.start_rev = start_rev  # as requested: 0 means "from now"
        self.next_rev = next_rev
        self.synced = False
        self.sent_since_progress = False

    def caught_up(self, current: int) -> bool:
        """etcd's ``progressIfSync`` test: synced, and the store has reached the start revision
        (a watch from a future revision gets no progress notification before it exists)."""
        return self.synced and current >= self.start_rev

    def contains(self, key: bytes) -> bool:
        if self.single:
            return key == self.key
        return key >= self.key and (self.end is None or key < self.end)

    def select(self, events: tuple[Event, ...], compact_rev: int) -> list[Event]:
        """The events of one revision this watcher wants, shaped as it asked (prev_kv or not)."""
        out = []
        for ev in events:
            if not self.contains(ev.kv.key):
                continue
            if ev.type is EventType.PUT:
                if self.no_put:
                    continue
            elif self.no_delete:
                continue
            out.append(self.shape(ev, compact_rev))
        return out

    def shape(self, ev: Event, compact_rev: int) -> Event:
        if ev.prev_kv is None:
            return ev
        # prev_kv is read at mod_revision-1: absent when not asked for or already compacted.
        if not self.prev_kv or ev.kv.mod_revision - 1 < compact_rev:
            return ev._replace(prev_kv=None)
        return ev


class Watchable(Protocol):
    """What a stream calls on the store that holds it (watchable_store.py's ``WatchableStore``;
    etcd's ``watchable``), declared here, below that store."""

    @property
    def revision(self) -> int: ...

    @property
    def compact_revision(self) -> int: ...

    def events_between(self, first: int, last: int) -> list[tuple[int, tuple[Event, ...]]]: ...

    def add_synced(self, w: Watcher) -> None: ...

    def remove_synced(self, w: Watcher) -> None: ...


class WatchStream:
    """Many watchers, one bounded response queue, one consumer (see module docstring)."""

    def __init__(
        self,
        store: Watchable,
        capacity: int = DEFAULT_STREAM_CAPACITY,
        on_ready: Callable[[], None] | None = None,
    ) -> None:
        self._store = store
        self.capacity = capacity
        self.on_ready = on_ready
        self.watchers: dict[int, Watcher] = {}
        self._queue: deque[WatchResponse] = deque()
        self._next_id = 0
        self._behind = 0  # number of unsynced watchers
        self.closed = False

    # ----------------------------------------------------------------- requests

    def watch(
        self,
        key: bytes,
        range_end: bytes = b"",
        start_revision: int = 0,
        *,
        prev_kv: bool = False,
        filters: tuple[WatchFilter, ...] = (),
        progress_notify: bool = False,
        watch_id: int = -1,
    ) -> int:
        """Start a watch; ``start_revision`` is inclusive, 0 means "after the current revision"
        and a future revision waits for it. Returns the watch id."""
        if not key:
            key = b"\0"  # etcd treats an empty key as "\0"
        if range_end and range_end != b"\0" and key >= range_end:
            raise ErrEmptyWatcherRange()  # checked before an id is taken, as etcd does
        if watch_id < 0:
            while self._next_id in self.watchers:
                self._next_id += 1
            watch_id = self._next_id
            self._next_id += 1
        elif watch_id in self.watchers:
            raise ErrWatcherDuplicateID()
        current = self._store.revision
        start = current + 1 if start_revision <= 0 else start_revision
        w = Watcher(
            watch_id, self, key, range_end, start_revision, start, prev_kv, filters,
            progress_notify,
        )
        self.watchers[watch_id] = w
        if start > current:
            self._store.add_synced(w)
        else:
            self._behind += 1
            self.wake()
        return watch_id

    def cancel(self, watch_id: int) -> bool:
        w = self.watchers.pop(watch_id, None)
        if w is None:
            return False
        if w.synced:
            self._store.remove_synced(w)
        else:
            self._behind -= 1
        return True

    def request_progress(self) -> bool:
        """etcd's ``RequestProgressAll``: one notification for the whole stream with the current
        revision, queued after every earlier response, and only when every watcher is synced (and
        has reached its start revision); otherwise dropped, and the caller asks again later."""
        current = self._store.revision
        if self._behind or any(not w.caught_up(current) for w in self.watchers.values()):
            return False
        if not self.watchers:
            return True  # etcd's progressIfSync has no watcher to send it through: nothing
        return self.offer(WatchResponse(STREAM_PROGRESS_ID, current))

    def close(self) -> None:
        for watch_id in list(self.watchers):
            self.cancel(watch_id)
        self._queue.clear()
        self.closed = True

    # ----------------------------------------------------------------- consumer side

    def poll(self) -> list[WatchResponse]:
        """Everything ready now: queued responses first, then catch-up of watchers behind."""
        if self._behind:
            self._catch_up()
        out = list(self._queue)
        self._queue.clear()
        return out

    @property
    def has_pending(self) -> bool:
        return bool(self._queue) or self._behind > 0

    # ----------------------------------------------------------------- store side

    def wake(self) -> None:
        if self.on_ready is not None:
            self.on_ready()

    def offer(self, resp: WatchResponse) -> bool:
        if len(self._queue) >= self.capacity:
            return False
        self._queue.append(resp)
        self.wake()
        return True

    def deliver_live(self, w: Watcher, rev: int, events: list[Event]) -> None:
        """Push one committed revision to a synced watcher, or let it fall behind (etcd's
        victim path) when the queue is full; it then catches up from the log, losing nothing."""
        if self.offer(WatchResponse(w.id, rev, tuple(events))):
            w.next_rev = rev + 1
            w.sent_since_progress = True
        else:
            w.next_rev = rev
            self._store.remove_synced(w)
            self._behind += 1

    def _catch_up(self) -> None:
        store = self._store
        current = store.revision
        compact_rev = store.compact_revision
        for w in list(self.watchers.values()):
            if w.synced:
                continue
            if len(self._queue) >= self.capacity:
                return
            if w.next_rev < compact_rev:
                # etcd: an unsynced watcher below the compaction point is told and removed. Its
                # response carries no revision (etcd's chooseAll leaves it 0: header.revision 0).
                self.watchers.pop(w.id)
                self._behind -= 1
                self._queue.append(
                    WatchResponse(w.id, 0, (), compact_revision=compact_rev, canceled=True)
                )
                continue
            last = min(current, w.next_rev + CATCHUP_BATCH_REVISIONS - 1)
            events: list[Event] = []
            for _rev, evs in store.events_between(w.next_rev, last):
                events.extend(w.select(evs, compact_rev))
            w.next_rev = last + 1
            if events:
                self._queue.append(WatchResponse(w.id, current, tuple(events)))
                w.sent_since_progress = True
            if w.next_rev > current:
                self._behind -= 1
                store.add_synced(w)
