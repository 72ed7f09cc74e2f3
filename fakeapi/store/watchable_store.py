"""The KV store plus watches: an index of synced watchers and per-revision dispatch.

Synced watchers are indexed by what they watch, so a commit costs per event one dict lookup
for single-key watchers and a binary search among the *distinct* watched ranges, not a check per
watcher or per range (a thousand watchers on one prefix are one range; an API server's watch
caches, a prefix per resource, are some fifty). Unsynced watchers are not indexed; their stream
catches them up from the revision log (watcher.py).
"""

from __future__ import annotations

import bisect
import time
from collections import deque
from collections.abc import Callable

from .kv import Event, WatchResponse
from .kvstore import DEFAULT_MAX_TXN_OPS, KVStore
from .watcher import DEFAULT_STREAM_CAPACITY, Watcher, WatchStream

_RangeKey = tuple[bytes, bytes | None]


class _RangeIndex:
    """The distinct watched ranges sorted by start, for stabbing queries: the ranges holding a
    key are among those starting at or before it, and scanning those back from the last stops
    once no earlier range reaches past the key (``reach[i]``: the furthest end of ranges
    ``0..i``, None for unbounded). Ranges rarely nest, so a lookup touches one or two. Immutable:
    a change to the set of ranges drops it and the next commit builds a new one, so a dispatch
    in progress keeps its own."""

    __slots__ = ("starts", "ranges", "reach")

    def __init__(self, ranges: dict[_RangeKey, set[Watcher]]) -> None:
        ordered = sorted(ranges.items(), key=lambda item: item[0][0])
        self.starts = [start for (start, _), _ in ordered]
        self.ranges = ordered
        reach: list[bytes | None] = []
        furthest: bytes | None = b""
        for (_, end), _ in ordered:
            furthest = None if end is None or furthest is None else max(furthest, end)
            reach.append(furthest)
        self.reach = reach

    def holding(self, key: bytes) -> list[int]:
        """Indexes of the ranges holding ``key``."""
        found = []
        reach, ranges = self.reach, self.ranges
        i = bisect.bisect_right(self.starts, key) - 1
        while i >= 0 and (reach[i] is None or key < reach[i]):
            end = ranges[i][0][1]
            if end is None or key < end:
                found.append(i)
            i -= 1
        return found

#: How many of the latest commits keep their commit time (watch dispatch latency); 8 bytes each.
COMMIT_TIMES_KEPT = 1 << 16


class WatchableStore(KVStore):
    def __init__(self, *, max_txn_ops: int = DEFAULT_MAX_TXN_OPS) -> None:
        super().__init__(max_txn_ops=max_txn_ops)
        self._synced_single: dict[bytes, set[Watcher]] = {}
        self._synced_ranges: dict[_RangeKey, set[Watcher]] = {}
        #: Built at the first commit after the set of ranges changed (None until then): a
        #: server starting or stopping adds or removes dozens of ranges at once.
        self._range_index: _RangeIndex | None = None
        self._streams: set[WatchStream] = set()
        #: perf_counter() of the latest commits, oldest first: revisions are dense and
        #: ``_on_commit`` runs once per revision, so the last entry is revision ``_rev``.
        self._commit_times: deque[float] = deque(maxlen=COMMIT_TIMES_KEPT)

    def new_stream(
        self,
        capacity: int = DEFAULT_STREAM_CAPACITY,
        on_ready: Callable[[], None] | None = None,
    ) -> WatchStream:
        stream = WatchStream(self, capacity, on_ready)
        self._streams.add(stream)
        return stream

    def close_stream(self, stream: WatchStream) -> None:
        stream.close()
        self._streams.discard(stream)

    # ----------------------------------------------------------------- synced index

    def add_synced(self, w: Watcher) -> None:
        w.synced = True
        if w.single:
            self._synced_single.setdefault(w.key, set()).add(w)
        else:
            slot = (w.key, w.end)
            group = self._synced_ranges.get(slot)
            if group is None:
                group = self._synced_ranges[slot] = set()
                self._range_index = None
            group.add(w)

    def remove_synced(self, w: Watcher) -> None:
        w.synced = False
        if w.single:
            index, slot = self._synced_single, w.key
        else:
            index, slot = self._synced_ranges, (w.key, w.end)  # type: ignore[assignment]
        group = index.get(slot)
        if group is not None:
            group.discard(w)
            if not group:
                del index[slot]
                if index is self._synced_ranges:
                    self._range_index = None

    # ----------------------------------------------------------------- dispatch

    def commit_time(self, rev: int) -> float:
        """perf_counter() when ``rev`` was committed; 0.0 once it is older than the last
        ``COMMIT_TIMES_KEPT`` commits."""
        back = self._rev - rev
        times = self._commit_times
        return times[-1 - back] if 0 <= back < len(times) else 0.0

    def _on_commit(self, rev: int, events: tuple[Event, ...]) -> None:
        self._commit_times.append(time.perf_counter())
        if self._synced_single:
            single = self._synced_single
            by_key: dict[bytes, list[Event]] = {}
            for ev in events:
                if ev.kv.key in single:
                    by_key.setdefault(ev.kv.key, []).append(ev)
            # One response per revision: a key can change twice in one txn (put, then a
            # from-key delete), and both events must reach its watchers.
            for key, evs in by_key.items():
                self._deliver(single[key], rev, tuple(evs))
        index = self._range_index
        if index is None:
            index = self._range_index = _RangeIndex(self._synced_ranges)
        if not index.ranges:
            return
        if len(events) == 1:
            for i in index.holding(events[0].kv.key):
                self._deliver(index.ranges[i][1], rev, events)
            return
        by_range: dict[int, list[Event]] = {}
        for ev in events:
            for i in index.holding(ev.kv.key):
                by_range.setdefault(i, []).append(ev)
        for i in sorted(by_range):
            self._deliver(index.ranges[i][1], rev, tuple(by_range[i]))

    def _deliver(self, group: set[Watcher], rev: int, matched: tuple[Event, ...]) -> None:
        without_prev: list[Event] | None = None
        for w in list(group):
            if rev < w.next_rev:  # a watch from a future revision that is not there yet
                continue
            if w.no_put or w.no_delete:
                evs = w.select(matched, self._compact_rev)
                if not evs:
                    continue
            elif w.prev_kv:
                evs = list(matched)
            else:
                if without_prev is None:
                    without_prev = [
                        ev if ev.prev_kv is None else ev._replace(prev_kv=None) for ev in matched
                    ]
                evs = without_prev
            w.stream.deliver_live(w, rev, evs)

    # ----------------------------------------------------------------- progress

    def notify_progress(self) -> int:
        """The periodic progress tick (etcd's ``--watch-progress-notify-interval``): every synced
        watcher that asked for progress notifications and got no event since the last tick is
        told the current revision. Returns how many were notified."""
        current = self._rev
        sent = 0
        for stream in list(self._streams):
            for w in stream.watchers.values():
                if not w.progress_notify:
                    continue
                if not w.sent_since_progress and w.caught_up(current):
                    sent += stream.offer(WatchResponse(w.id, current))
                w.sent_since_progress = False
        return sent

    # ----------------------------------------------------------------- compaction

    def compact(self, rev: int) -> int:
        header = super().compact(rev)
        # Watchers behind the new compaction point must hear about it even if no write comes.
        for stream in list(self._streams):
            if stream.has_pending:
                stream.wake()
        return header


__all__ = ["WatchableStore"]
