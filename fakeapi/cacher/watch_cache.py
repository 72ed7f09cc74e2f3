"""The watch cache of one resource: current objects plus a cyclic buffer of recent events.

Like kube-apiserver's ``watchCache`` (``pkg/storage/cacher/watch_cache.go``):
- ``objects`` is the state at ``rv``, the cache's revision, which moves on the resource's own
  events and on store progress notifications;
- the event buffer keeps the most recent events, sized automatically: when full it doubles while
  its oldest event is younger than ``fresh_window`` (kube: 75 s) and halves when the event at a
  quarter of its capacity from the newest end is older than that, between ``lower_bound`` and
  ``upper_bound`` (kube: 100 and 100 Ki);
- a watch from revision R can be served iff every event after R is still here: R >= oldest - 1,
  where oldest is the first buffered event's revision, or ``list_rv + 1`` while nothing has been
  evicted since the cache was (re)filled; otherwise it is "too old" (410 Expired).

Lists at a past revision are served from the cache too, as kube 1.35's ``ListFromCacheSnapshot``
serves them from btree snapshots: the state at a revision R is the current objects with every key
changed after R put back as the first buffered event after R found it (``objects_at``). kube keeps a
snapshot per event and drops those older than the oldest buffered event (once the buffer is full)
or than a compaction; ``snapshot_floor`` is the oldest snapshot still kept, so a list at R can be
served from the cache iff ``snapshot_floor <= R <= rv``. Rather than a tree per event (which every
write would pay for), the cache keeps the undo of the events after R (a ``PastState``) for the
revisions lists ask for: the pages of one paged list share their revision's, so each page costs its
own size, two bisections for its count and the events written since the previous page.

Objects are the stored bytes, never re-encoded: the JSON served for an ADDED or MODIFIED event,
a GET or a LIST item is the very ``raw`` the registry wrote. Only an object shown at a revision
other than its own (a DELETED event, or an update that stops matching a selector, which kube
sends as DELETED of the previous state at the event's revision) is re-encoded, once per event.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import orjson
from sortedcontainers import SortedDict, SortedList, SortedSet

from ..machinery.selectors import FieldSelector, LabelSelector
from .selector_index import SelectorIndex

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"

DEFAULT_LOWER_BOUND = 100
DEFAULT_UPPER_BOUND = 100 * 1024
#: kube's DefaultEventFreshDuration: bookmark frequency (1 min) + 15 s.
DEFAULT_FRESH_WINDOW = 75.0
#: How many past revisions' states (``PastState``) a cache keeps for the lists reading them, the
#: least recently read dropped first: one per paged list in progress at a revision the cache has
#: since moved past. A list whose state was dropped rebuilds it from the buffer.
PAST_STATES_KEPT = 8


class ObjectView(Protocol):
    """Another representation of stored objects, asked for by a client (kube's ``as=`` in the
    Accept header: ``PartialObjectMetadata``, ``Table``; or another wire format: protobuf).
    ``name`` keys the encodings cached on objects and events, so each object is converted at
    most once per view. The view also frames what a watch writes: ``event`` wraps an encoded
    object as one watch event, ``bookmark`` makes a BOOKMARK event (``json_event`` and a JSON
    bookmark of the watcher's kind for the JSON views)."""

    name: str
    shared: bool  # False: a per-request view (its encodings are not cached for others)

    def encode(self, raw: bytes) -> bytes: ...

    def event(self, event_type: str, encoded: bytes) -> bytes: ...

    def bookmark(self, rv: int, annotations: Mapping[str, str] | None) -> bytes | None:
        """The BOOKMARK event at ``rv``, or None for the watcher's JSON bookmark."""
        ...


def json_event(event_type: str, encoded: bytes) -> bytes:
    """A JSON watch event: one line of ``{"type": ..., "object": ...}``."""
    return b'{"type":"' + event_type.encode() + b'","object":' + encoded + b"}\n"


#: Decodes what selectors read from a stored object: (labels, selectable fields).
SelectorDecoder = Callable[[bytes], tuple[Mapping[str, str], Mapping[str, str]]]


class CachedObject:
    """One stored object as the cache keeps it. ``labels`` and ``fields`` (what selectors
    match) are given, or decoded from ``raw`` by ``decode_selectors`` the first time a selector
    asks: a cache filled with 100,000 objects at start decodes none of them until then."""

    __slots__ = ("key", "namespace", "name", "rv", "raw", "views", "_labels", "_fields", "_decode_selectors")

    def __init__(self, key: str, namespace: str, name: str, rv: int, raw: bytes,
                 labels: Mapping[str, str] | None = None, fields: Mapping[str, str] | None = None,
                 decode_selectors: SelectorDecoder | None = None) -> None:
        self.key = key
        self.namespace = namespace
        self.name = name
        self.rv = rv
        self.raw = raw  # the stored JSON; its metadata.resourceVersion is rv
        self.views: dict[str, bytes] | None = None  # encodings of raw in other views, made on first use
        self._labels = labels
        self._fields = fields
        self._decode_selectors = decode_selectors

    @property
    def labels(self) -> Mapping[str, str]:
        if self._labels is None:
            self._decode()
        return self._labels  # type: ignore[return-value]

    @property
    def fields(self) -> Mapping[str, str]:
        if self._fields is None:
            self._decode()
        return self._fields  # type: ignore[return-value]

    def with_raw(self, raw: bytes) -> CachedObject:
        """The same object encoded otherwise (another version of it): what selectors match is
        shared, the encodings in views are not."""
        return CachedObject(self.key, self.namespace, self.name, self.rv, raw, self._labels, self._fields,
                            self._decode_selectors)

    def set_selectors(self, labels: Mapping[str, str], fields: Mapping[str, str]) -> None:
        """What selectors match, known without decoding ``raw`` (its writer read them)."""
        self._labels, self._fields = labels, fields

    def _decode(self) -> None:
        assert self._decode_selectors is not None, "a CachedObject needs labels and fields or a decoder"
        self._labels, self._fields = self._decode_selectors(self.raw)

    def encoded(self, view: ObjectView | None) -> bytes:
        """The object as ``view`` shows it (``None``: the stored JSON itself)."""
        if view is None:
            return self.raw
        if not view.shared:
            return view.encode(self.raw)
        if self.views is None:
            self.views = {}
        encoded = self.views.get(view.name)
        if encoded is None:
            encoded = self.views[view.name] = view.encode(self.raw)
        return encoded


#: How metadata's resourceVersion starts in a stored object's JSON.
RESOURCE_VERSION_FIELD = b'"resourceVersion":"'


def with_resource_version(raw: bytes, rv: int) -> bytes:
    """The object's JSON with ``metadata.resourceVersion`` set to ``rv`` (the same bytes when it
    already is). A stored object has apiVersion and kind, then metadata in Go's field order,
    before anything else, so the first ``"resourceVersion":"`` is metadata's (name,
    generateName and namespace, the only fields before it, cannot hold a quote): its digits are
    replaced in place, without decoding the object."""
    start = raw.find(RESOURCE_VERSION_FIELD)
    if start < 0:
        obj = orjson.loads(raw)
        obj["metadata"]["resourceVersion"] = str(rv)
        return orjson.dumps(obj)
    start += len(RESOURCE_VERSION_FIELD)
    end = raw.find(b'"', start)
    if raw[start:end] == b"%d" % rv:
        return raw
    return b"%s%d%s" % (raw[:start], rv, raw[end:])


@dataclass(slots=True, eq=False)
class CacheEvent:
    type: str
    rv: int
    obj: CachedObject  # the new state; for DELETED, the last state before the delete
    prev: CachedObject | None
    record_time: float
    _lines: dict[tuple[str, str], bytes] = field(default_factory=dict)

    def line(self, event_type: str, view: ObjectView | None = None) -> bytes:
        """The watch event (a JSON line, or ``view``'s framing) for this event seen as
        ``event_type`` in ``view``, built once and shared by every watcher that sees it so."""
        cache_key = (event_type, view.name if view is not None else "")
        line = self._lines.get(cache_key) if view is None or view.shared else None
        if line is None:
            if event_type == DELETED:
                # kube sends the last state, stamped with the deleting revision.
                source = self.prev if self.type != DELETED and self.prev is not None else self.obj
                raw = with_resource_version(source.raw, self.rv)
                if view is not None:
                    raw = view.encode(raw)
            else:
                raw = self.obj.encoded(view)
            line = json_event(event_type, raw) if view is None else view.event(event_type, raw)
            if view is None or view.shared:
                self._lines[cache_key] = line
        return line


class TooOldResourceVersion(Exception):
    """A watch asked for events that have left the buffer; ``oldest`` is the oldest revision it
    could have asked for (kube: ``too old resource version: %d (%d)``)."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest


class WatchCache:
    def __init__(
        self,
        *,
        lower_bound: int = DEFAULT_LOWER_BOUND,
        upper_bound: int = DEFAULT_UPPER_BOUND,
        fresh_window: float = DEFAULT_FRESH_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = max(upper_bound, lower_bound)
        self.fresh_window = fresh_window
        self._clock = clock
        self.objects: dict[str, CachedObject] = {}
        self.keys: SortedList = SortedList()
        #: Counts the changes to ``objects`` (events applied, refills): what was read of them
        #: holds while it stays the same.
        self.changes = 0
        self.rv = 0
        self.list_rv = 0
        self.capacity = lower_bound
        self.buffer: deque[CacheEvent] = deque()
        self.evicted = False
        #: The oldest revision a list can be served at from the cache (see the module doc);
        #: ``NO_SNAPSHOT`` when compaction removed them all.
        self.snapshot_floor = 0
        #: The states at past revisions that lists read, by revision, least recently read first;
        #: none older than ``snapshot_floor`` is ever read again.
        self._past_states: dict[int, PastState] = {}
        #: The current objects' keys by the values of the label keys and fields selectors named.
        self.selector_index = SelectorIndex()

    # ----------------------------------------------------------------- filling

    def replace(self, objects: Iterable[CachedObject], rv: int) -> None:
        """(Re)fill from a list at ``rv``; the event history starts over from there."""
        self.objects = {o.key: o for o in objects}
        self.keys = SortedList(self.objects)
        self.changes += 1
        self.rv = self.list_rv = self.snapshot_floor = rv
        self.buffer.clear()
        self.evicted = False
        self._past_states.clear()
        self.selector_index.clear()

    def advance(self, rv: int) -> None:
        """A progress notification: nothing of this resource changed up to ``rv``."""
        if rv > self.rv:
            self.rv = rv

    def apply(self, key: str, new: CachedObject | None, rv: int) -> CacheEvent | None:
        """Record one change of ``key`` at ``rv`` (``new`` None = deleted); returns the event,
        or None for the delete of an object the cache never had."""
        prev = self.objects.get(key)
        if new is None:
            if prev is None:
                self.rv = max(self.rv, rv)
                return None
            del self.objects[key]
            self.keys.remove(key)
            event = CacheEvent(DELETED, rv, prev, prev, self._clock())
        else:
            if prev is None:
                self.keys.add(key)
            self.objects[key] = new
            event = CacheEvent(ADDED if prev is None else MODIFIED, rv, new, prev, self._clock())
        self.selector_index.update(key, prev, new)
        self.changes += 1
        if prev is not None:
            # A state no longer current is served again only to a watch or LIST from before
            # this event (which encodes it anew; a DELETED event is encoded at its own revision
            # anyway): its encodings would hold as much memory again as the stored history.
            prev.views = None
        self.rv = rv
        self._append(event)
        return event

    def _append(self, event: CacheEvent) -> None:
        self._resize(event.record_time)
        if len(self.buffer) >= self.capacity:
            self.buffer.popleft()
            self.evicted = True
        self.buffer.append(event)
        if self.snapshot_floor == NO_SNAPSHOT:
            self.snapshot_floor = event.rv  # the snapshot this event makes
        if len(self.buffer) >= self.capacity:  # kube: isCacheFullLocked -> RemoveLess(oldest)
            self.snapshot_floor = max(self.snapshot_floor, self.buffer[0].rv)

    def _resize(self, now: float) -> None:
        buf = self.buffer
        if len(buf) < self.capacity:
            return
        if now - buf[0].record_time < self.fresh_window:
            self.capacity = min(self.capacity * 2, self.upper_bound)
        elif now - buf[len(buf) - self.capacity // 4].record_time > self.fresh_window:
            self.capacity = max(self.capacity // 2, self.lower_bound)
            while len(buf) > self.capacity:
                buf.popleft()
                self.evicted = True

    def compact(self, revision: int) -> None:
        """The store was compacted at ``revision``: snapshots older than it go (kube's cacher
        ``compactor``), so lists before it are the store's to answer (410)."""
        if self.snapshot_floor >= revision:
            return
        candidates = [self.list_rv] if self.list_rv >= revision else []
        candidates += (event.rv for event in self.buffer if event.rv >= revision)
        self.snapshot_floor = min(candidates, default=NO_SNAPSHOT)

    def set_bounds(self, lower: int, upper: int) -> None:
        """Change the buffer's bounds at run time, evicting at once if it shrinks."""
        self.lower_bound = lower
        self.upper_bound = max(upper, lower)
        self.capacity = min(max(self.capacity, lower), self.upper_bound)
        if len(self.buffer) > self.capacity:
            while len(self.buffer) > self.capacity:
                self.buffer.popleft()
            self.evicted = True
            # A state before the oldest event left can no longer be rebuilt (kube's snapshots
            # themselves outlive the events; this cache's are made of them).
            self.snapshot_floor = max(self.snapshot_floor, self.buffer[0].rv)

    # ----------------------------------------------------------------- reading

    @property
    def oldest_watchable(self) -> int:
        """The oldest resourceVersion a watch may start from."""
        if not self.evicted:
            return self.list_rv
        return self.buffer[0].rv - 1 if self.buffer else self.rv

    def events_since(self, rv: int) -> list[CacheEvent]:
        """Every buffered event after ``rv``, or TooOldResourceVersion."""
        oldest = self.oldest_watchable
        if rv < oldest:
            raise TooOldResourceVersion(rv, oldest)
        buf = self.buffer
        if not buf or buf[-1].rv <= rv:
            return []
        # Events are in revision order; scan from the end, since watchers resume near the head.
        i = len(buf)
        while i > 0 and buf[i - 1].rv > rv:
            i -= 1
        return [buf[j] for j in range(i, len(buf))]

    def snapshot(self, start: str = "", end: str | None = None) -> list[CachedObject]:
        """The objects with start <= key < end, in key order."""
        objects = self.objects
        return [objects[k] for k in self.keys.irange(start, end, inclusive=(True, False))]

    def selected_keys(self, labels: LabelSelector, fields: FieldSelector, start: str, end: str) -> list[str] | None:
        """The keys, in order, of the current objects with start <= key < end that the selectors
        select and maybe a few more (the selector index's sets; exactly those when
        ``selector_index.answers_exactly``), or None when the index cannot narrow them (the
        selectors name no label or field value a selected object must have)."""
        selected = self.selector_index.select(labels, fields, self.objects)
        if selected is None:
            return None
        return sorted(key for key in selected if start <= key < end)

    def can_list_at(self, rv: int) -> bool:
        """Whether a list at ``rv`` (no newer than the cache) can be served from the cache."""
        return self.snapshot_floor <= rv <= self.rv

    def objects_at(self, rv: int, start: str, end: str) -> tuple[Iterator[CachedObject], int]:
        """The objects with start <= key < end as they were at ``rv`` (``can_list_at``), lazily
        in key order, and how many there are. Costs the objects taken, a few bisections and the
        events after ``rv`` not yet folded into its ``PastState``: never the size of the range."""
        keys, objects = self.keys, self.objects
        count = keys.bisect_left(end) - keys.bisect_left(start)
        current = keys.irange(start, end, inclusive=(True, False))
        buf = self.buffer
        if not buf or buf[-1].rv <= rv:  # nothing of this resource changed since rv
            return (objects[k] for k in current), count
        state = self._past_state(rv)
        state.catch_up(buf, objects)
        count += state.count_correction(start, end)
        return _merged(current, objects, state.then, state.then.irange(start, end, inclusive=(True, False))), count

    def _past_state(self, rv: int) -> PastState:
        """The kept state at ``rv``, made the most recently read, or a new one."""
        states = self._past_states
        for stale in [r for r in states if r < self.snapshot_floor]:
            del states[stale]
        state = states.pop(rv, None) or PastState(rv)
        states[rv] = state
        if len(states) > PAST_STATES_KEPT:
            del states[next(iter(states))]
        return state


class PastState:
    """The objects at revision ``rv`` kept as the current objects undone: ``then`` maps each key
    changed after ``rv`` to its object at ``rv`` (None: it had none), in key order; every other
    key is as it is now. It covers the events up to ``folded`` and catches up with the newer ones
    when read, so the pages of one list share it and each pays only for what was written since
    the previous page. ``appeared`` and ``vanished`` hold the changed keys present now but not at
    ``rv``, and present at ``rv`` but not now: the count of a key range at ``rv`` is the current
    count corrected by bisecting both."""

    __slots__ = ("folded", "then", "appeared", "vanished")

    def __init__(self, rv: int) -> None:
        self.folded = rv
        self.then: SortedDict = SortedDict()  # key -> CachedObject | None
        self.appeared: SortedSet = SortedSet()
        self.vanished: SortedSet = SortedSet()

    def catch_up(self, buffer: deque[CacheEvent], objects: Mapping[str, CachedObject]) -> None:
        """Fold in the buffered events after ``folded``; ``objects`` is the state after the last
        of them. The cache's ``can_list_at(rv)`` guarantees none of them has left the buffer."""
        i = len(buffer)
        while i > 0 and buffer[i - 1].rv > self.folded:
            i -= 1
        if i == len(buffer):
            return
        then = self.then
        touched = set()
        for j in range(i, len(buffer)):
            event = buffer[j]
            key = event.obj.key
            if key not in then:  # the first change after rv found the state at rv
                then[key] = event.prev  # None for an ADDED event
            touched.add(key)
        self.folded = buffer[-1].rv
        for key in touched:
            existed, exists = then[key] is not None, key in objects
            if exists and not existed:
                self.appeared.add(key)
            else:
                self.appeared.discard(key)
            if existed and not exists:
                self.vanished.add(key)
            else:
                self.vanished.discard(key)

    def count_correction(self, start: str, end: str) -> int:
        """How many more keys in [start, end) there were at ``rv`` than there are now."""
        def within(keys: SortedSet) -> int:
            return keys.bisect_left(end) - keys.bisect_left(start)

        return within(self.vanished) - within(self.appeared)


NO_SNAPSHOT = 1 << 63


def _merged(current: Iterator[str], objects: Mapping[str, CachedObject], then: Mapping[str, CachedObject | None],
            changed: Iterator[str]) -> Iterator[CachedObject]:
    """The current keys and the ``changed`` ones (both in key order) merged in key order, each
    object as it was: a changed key's from ``then``, skipped when it had none."""
    next_changed = next(changed, None)
    for key in current:
        while next_changed is not None and next_changed < key:
            if (old := then[next_changed]) is not None:
                yield old
            next_changed = next(changed, None)
        if key == next_changed:
            if (old := then[key]) is not None:
                yield old
            next_changed = next(changed, None)
        else:
            yield objects[key]
    while next_changed is not None:
        if (old := then[next_changed]) is not None:
            yield old
        next_changed = next(changed, None)
