"""The cacher of one resource: keeps a ``WatchCache`` in step with the store and fans events out
to client watchers (kube's ``Cacher``, ``pkg/storage/cacher/cacher.go``).

It lists the resource's key prefix once, then follows a store watch from the next revision with
progress notifications on. Its own task applies each store event to the cache and offers it to
every ``CacheWatcher``; progress notifications move the cache's revision forward when other
resources are written, which is what lets a consistent read (RV "") be served from the cache:
``wait_fresh`` asks the store for progress until the cache has reached the revision the read
must reflect. If the store cancels the watch (its start fell behind a compaction) the cacher
relists and ends every client watch, as kube's cacher does on a reflector relist.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..runtime import cancel_and_wait, collector_paused
from ..store import EventType, RangeRequest, StoreInterface, WatchStreamInterface, prefix_range_end
from .cache_watcher import DEFAULT_QUEUE_CAPACITY, CacheWatcher, ObjectFilter, WatchStats
from .watch_cache import (
    DEFAULT_FRESH_WINDOW,
    DEFAULT_LOWER_BOUND,
    DEFAULT_UPPER_BOUND,
    CacheEvent,
    CachedObject,
    ObjectView,
    WatchCache,
)

#: Decodes one stored value into a cached object: (key, raw, mod_revision) -> CachedObject.
Decoder = Callable[[str, bytes, int], CachedObject]

#: kube's cacher asks etcd for progress every 100 ms while a consistent read waits.
PROGRESS_REQUEST_INTERVAL = 0.1
#: How often the owner should call ``send_due_bookmarks`` (kube: every second, with jitter).
BOOKMARK_TICK = 1.0
#: Object versions whose writes prepared something for the cache (``Cacher.prepare``), at most.
PREPARED_LIMIT = 10_000


class _Prepared:
    """What writes made of one object version before its event reaches the cache: encodings
    by view name, and (labels, fields) for selectors."""

    __slots__ = ("rv", "views", "selectors")

    def __init__(self, rv: int) -> None:
        self.rv = rv
        self.views: dict[str, bytes] | None = None
        self.selectors: tuple[Mapping[str, str], Mapping[str, str]] | None = None


@dataclass(slots=True)
class CacherConfig:
    lower_bound: int = DEFAULT_LOWER_BOUND
    upper_bound: int = DEFAULT_UPPER_BOUND
    fresh_window: float = DEFAULT_FRESH_WINDOW
    bookmark_interval: float = 60.0
    watcher_queue: int = DEFAULT_QUEUE_CAPACITY
    #: kube's blockTimeout: how long a read waits for the cache to reach a revision.
    fresh_timeout: float = 3.0
    #: The longest a watch may last, whatever timeout it asked for (0: no cap).
    max_watch_timeout: float = 0.0


class Cacher:
    def __init__(
        self,
        store: StoreInterface,
        prefix: str,
        decode: Decoder,
        config: CacherConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.prefix = prefix
        self._prefix_bytes = prefix.encode()
        self._decode = decode
        self.config = config or CacherConfig()
        self._clock = clock
        self.cache = WatchCache(
            lower_bound=self.config.lower_bound,
            upper_bound=self.config.upper_bound,
            fresh_window=self.config.fresh_window,
            clock=clock,
        )
        self.watchers: set[CacheWatcher] = set()
        self.terminated_watchers = 0  # closed for falling behind (apiserver_terminated_watchers_total)
        self.stats = WatchStats()  # shared by this resource's client watches
        #: In-process observers of every event (controllers); called in the dispatch, so they
        #: must only note work and return, never write.
        self.listeners: list[Callable[[CacheEvent], None]] = []
        self._stream: WatchStreamInterface | None = None
        self._ready = asyncio.Event()
        self._fresh = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        #: What a write made of an object version before it reaches the cache, by key; see
        #: ``prepare`` and ``prepare_selectors``.
        self._prepared: dict[str, _Prepared] = {}
        #: Watchers with lines for their direct writer, written after each dispatch (``flush``).
        self._dirty: set[CacheWatcher] = set()

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """List and start following the store; must run on the store's event loop."""
        self._list_and_watch()
        self._tasks = [asyncio.create_task(self._follow(), name=f"cacher {self.prefix}")]

    async def stop(self) -> None:
        await cancel_and_wait(self._tasks)
        self._tasks = []
        if self._stream is not None:
            self.store.close_stream(self._stream)
            self._stream = None
        self.terminate_all()

    def _list_and_watch(self) -> None:
        store = self.store
        if self._stream is not None:
            store.close_stream(self._stream)
        start, end = self._prefix_bytes, prefix_range_end(self._prefix_bytes)
        listed = store.range(RangeRequest(start, end))
        rev = listed.header_revision  # the list's revision: the watch goes on from the next one
        decode = self._decode
        with collector_paused():  # a store loaded with 100,000 objects fills its caches at once
            self.cache.replace((decode(kv.key.decode(), kv.value, kv.mod_revision) for kv in listed.kvs), rev)
        self._stream = store.new_stream(on_ready=self._ready.set)
        self._stream.watch(start, end, rev + 1, progress_notify=True)
        self._fresh.set()

    def relist(self) -> None:
        """Start over from the store's present: every client watch ends, the event history is
        dropped, so resuming from an older resourceVersion gets 410 (an apiserver restart)."""
        self.terminate_all()
        self._list_and_watch()

    def terminate_all(self, namespace: str | None = None) -> int:
        """End every client watch, or only those scoped to ``namespace`` (they see their stream
        close, as on an apiserver restart); returns how many were ended."""
        ended = self.watchers_in(namespace)
        for w in ended:
            w.ended_by_server = True
            w.close()
        self.watchers.difference_update(ended)
        return len(ended)

    def watchers_in(self, namespace: str | None) -> list[CacheWatcher]:
        """Every client watch (namespace None), or those scoped to ``namespace``."""
        if namespace is None:
            return list(self.watchers)
        return [w for w in self.watchers if w.namespace == namespace]

    # ----------------------------------------------------------------- following the store

    async def _follow(self) -> None:
        store, cache = self.store, self.cache
        decode = self._decode
        while True:
            stream = self._stream
            assert stream is not None
            self._ready.clear()
            responses = stream.poll()
            if not responses:
                if stream.has_pending:
                    await asyncio.sleep(0)
                else:
                    await self._ready.wait()
                continue
            before = cache.rv
            for resp in responses:
                if resp.canceled:  # compacted past us: relist, like a reflector on 410
                    self.relist()
                    break
                if not resp.events:
                    cache.advance(resp.header_revision)
                    continue
                for ev in resp.events:
                    kv = ev.kv
                    key = kv.key.decode()
                    prepared = self._prepared.get(key) if self._prepared else None
                    if prepared is not None and prepared.rv <= kv.mod_revision:
                        del self._prepared[key]  # (one for a later version waits for it)
                    if ev.type is EventType.DELETE:
                        event = cache.apply(key, None, kv.mod_revision)
                    else:
                        obj = decode(key, kv.value, kv.mod_revision)
                        if prepared is not None and prepared.rv == kv.mod_revision:
                            obj.views = prepared.views
                            if prepared.selectors is not None:
                                obj.set_selectors(*prepared.selectors)
                        event = cache.apply(key, obj, kv.mod_revision)
                    if event is not None:
                        self._dispatch(event, store.commit_time(kv.mod_revision))
            if self._dirty:
                self.flush()
            if cache.rv != before:
                self._fresh.set()

    def _dispatch(self, event: CacheEvent, committed_at: float) -> None:
        """Offer ``event`` to the listeners and every watcher; ``committed_at`` is the
        perf_counter() of its store commit (0.0: unknown)."""
        for listener in self.listeners:
            listener(event)
        closed = None
        for w in self.watchers:
            w.add(event, committed_at)
            if w.closed:
                closed = closed or []
                closed.append(w)
        if committed_at and self.watchers:
            self.stats.queued_latency.observe(time.perf_counter() - committed_at)
        if closed:
            for w in closed:
                self.watchers.discard(w)
                if w.overflowed:
                    self.terminated_watchers += 1

    def flush(self) -> None:
        """Write what the dispatches since the last flush collected for direct writers: one
        write per watcher however many events it got."""
        dirty = list(self._dirty)
        self._dirty.clear()
        for w in dirty:
            w.flush()

    async def wait_fresh(self, rv: int) -> bool:
        """Wait until the cache has reached ``rv`` (at most ``fresh_timeout``), asking the store
        for progress notifications meanwhile; False on timeout."""
        cache = self.cache
        if cache.rv >= rv:
            return True
        deadline = self._clock() + self.config.fresh_timeout
        while cache.rv < rv:
            remaining = deadline - self._clock()
            if remaining <= 0:
                return False
            if self._stream is not None:
                self._stream.request_progress()
            self._fresh.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._fresh.wait(), min(PROGRESS_REQUEST_INTERVAL, remaining))
        return True

    def prepare(self, key: str, rv: int, view_name: str, encoded: bytes) -> None:
        """Keep ``encoded`` (the object version ``rv`` of ``key`` in view ``view_name``, made for a
        write's response) for the cached object that version becomes: a client that writes in
        protobuf has the bytes its LISTs and watches will serve encoded once, not twice. A write
        commits and answers in one step of the loop, before this cacher sees the event; what
        was prepared for a version that never arrives is dropped with the key's next event, and
        the whole table when it grows past ``PREPARED_LIMIT``."""
        entry = self._prepared_entry(key, rv)
        if entry.views is None:
            entry.views = {}
        entry.views[view_name] = encoded

    def prepare_selectors(self, key: str, rv: int, labels: Mapping[str, str], fields: Mapping[str, str]) -> None:
        """Keep what selectors match of the object version ``rv`` of ``key`` (read by the write
        from the object it stored) for the cached object: as kube's cacher keeps each event's
        labels and fields, so the first LIST or watch with a selector decodes no object."""
        self._prepared_entry(key, rv).selectors = (labels, fields)

    def _prepared_entry(self, key: str, rv: int) -> _Prepared:
        entry = self._prepared.get(key)
        if entry is None or entry.rv != rv:
            if len(self._prepared) >= PREPARED_LIMIT:
                self._prepared.clear()
            entry = self._prepared[key] = _Prepared(rv)
        return entry

    def send_due_bookmarks(self) -> None:
        now = self._clock()
        rv = self.cache.rv
        for w in self.watchers:
            if w.allow_bookmarks and now >= w.next_bookmark:
                w.add_bookmark(rv, now)
        if self._dirty:
            self.flush()

    # ----------------------------------------------------------------- client watches

    def new_watcher(
        self,
        *,
        kind: str,
        api_version: str,
        matches: ObjectFilter | None,
        allow_bookmarks: bool,
        timeout: float,
        view: ObjectView | None = None,
        namespace: str | None = None,
    ) -> CacheWatcher:
        return CacheWatcher(
            kind=kind,
            api_version=api_version,
            matches=matches,
            allow_bookmarks=allow_bookmarks,
            view=view,
            namespace=namespace,
            deadline=self._clock() + self._capped(timeout),
            bookmark_interval=self.config.bookmark_interval,
            capacity=self.config.watcher_queue,
            clock=self._clock,
            stats=self.stats,
            dirty=self._dirty,
        )

    def register(self, watcher: CacheWatcher) -> None:
        """Start live delivery; the watcher's initial part must already be filled in, in the
        same loop step, so no event falls between the two."""
        self.watchers.add(watcher)

    def unregister(self, watcher: CacheWatcher) -> None:
        watcher.close()
        self.watchers.discard(watcher)

    def snapshot(self, start: str, end: str | None) -> list[CachedObject]:
        return self.cache.snapshot(start, end)

    def set_bounds(self, lower: int, upper: int) -> None:
        self.config.lower_bound, self.config.upper_bound = lower, upper
        self.cache.set_bounds(lower, upper)

    def set_bookmark_interval(self, interval: float) -> None:
        """For new watches and, from now on, for the open ones."""
        self.config.bookmark_interval = interval
        for w in self.watchers:
            w.set_bookmark_interval(interval)

    def set_max_watch_timeout(self, seconds: float) -> None:
        """Cap how long watches last (0: no cap); open watches then end at most that long from
        now."""
        self.config.max_watch_timeout = seconds
        if seconds > 0:
            deadline = self._clock() + seconds
            for w in self.watchers:
                if w.deadline > deadline:
                    w.set_deadline(deadline)

    def _capped(self, timeout: float) -> float:
        cap = self.config.max_watch_timeout
        return min(timeout, cap) if cap > 0 else timeout
