"""The lists and watches of a served version converted by a call out (a CRD's conversion
webhook), as kube-apiserver serves them: each served version of a CRD has a watch cache of its
own, whose reflector converts every object it decodes once, as the event arrives (one
ConversionReview per event, and per object of its initial list); its lists and watches then call
no webhook. A GET reads etcd, a write's response is decoded from it: those convert per request
(``served_versions.ConvertingStore``).

``IngestedConversions`` is that cache's conversions over the storage version's cache: each event
the storage cache sees is converted in order, on the event loop, and kept by (key, revision) for
the lists and watches of the version (the storage cache's shared per-object encodings cannot hold
them: they are made synchronously when a reader first asks, and a webhook call cannot be).

An event whose conversion fails stops the version's cache where it is, as kube's does (its
reflector's watch decodes the event, gets an error event and watches again from the revision it
reached, for 30 s: ``reflector.MaxInternalErrorRetryDuration``); as measured on kube-apiserver
v1.35.4, meanwhile
  * its watchers get nothing more (the events after it wait), and every event once the webhook
    converts it again;
  * a list with no resourceVersion waits the 3 s a consistent read waits for the cache, then
    reads etcd, converting every object (a 500 ``conversion webhook for ... failed`` while one
    fails); a list at resourceVersion 0 answers the cache as it stopped;
  * a watch from now waits as long, then ends with a 504 ``Too large resource version``.
After 30 s kube's cache gives up: it is not ready (every list and watch of the version a 429
``storage is (re)initializing: failed to list <version>, Kind=<kind>: <the conversion's error>``
with a Retry-After growing with the time it has been down), ends its watchers (no error event:
the stream ends) and lists again every second, converting every object, until a list converts
them all; it is ready then at the listed revision, with no history before it (a watch from an
older resourceVersion is 410 Expired). A new cache (a version served anew, with objects stored)
starts with that list.
``ConvertingWatcher`` re-frames a storage-version watch with them as its lines are written, and
selects by the converted objects (the labels and selectable fields the webhook gave them) when
the watch has selectors, as the version's own watch cache would."""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson

from ..apis.conversion import AsyncConvert
from ..cacher import CacheEvent, Cacher, CacheWatcher, json_event
from ..cacher.watch_cache import ADDED, DELETED, with_resource_version
from ..machinery.status import StatusError, too_many_requests
from .views import ResponseView

Json = dict[str, Any]

#: How many conversions are kept (the newest): a read of an older revision converts again.
KEPT_CONVERSIONS = 10_000
#: How long the version's cache tries the conversion of an event again before it gives up and
#: lists again (kube's cacher: ``reflector.MaxInternalErrorRetryDuration``).
RETRY_FOR = 30.0
#: Between two tries: kube's reflector watches again at once, each watch a conversion (about ten
#: a second, as measured with a webhook that answers at once); paced so.
RETRY_PAUSE = 0.1
#: Between two lists of a cache that gave up (``wait.Until``'s period of ``startCaching``).
RELIST_PERIOD = 1.0

#: A conversion's result: the converted object's JSON, or the error its read answers.
Converted = bytes | StatusError


class IngestedConversions:
    """The objects of ``cacher`` converted by ``convert`` as they arrive, for the version
    ``described`` (``<group>/<version>, Kind=<kind>``, as kube's reflector names it)."""

    def __init__(self, cacher: Cacher, key_of: Callable[[str | None, str], str], convert: AsyncConvert,
                 described: str) -> None:
        self._cacher = cacher
        self._key_of = key_of
        self._convert = convert
        self._described = described
        self._results: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        #: (key, revision, stored JSON) not yet converted, in the order the cache saw them; the
        #: first stays until its conversion succeeds (or the cache lists again).
        self._pending: deque[tuple[str, int, bytes]] = deque()
        #: The revision the version's cache has reached while events wait: the last converted.
        self._reached = cacher.cache.rv
        #: When the conversion of the first pending event first failed (None: it has not).
        self._failing_since: float | None = None
        #: While the cache lists (at first, and again once it gave up on an event): what its
        #: 429 adds to ``storage is (re)initializing`` (the last list's error), and since when
        #: it has been down. A cache with objects to convert lists them first, as kube's new
        #: cache does; one with none is ready at once.
        self._unready: str | None = "" if cacher.cache.objects else None
        self._unready_since = time.monotonic()
        #: The oldest revision a watch may start from: the last list's (0: never listed again).
        self.relisted_at = 0
        #: How many times the cache listed again: a watcher waiting for a conversion across one
        #: ends (``Relisted``).
        self._relists = 0
        self._watchers: set[ConvertingWatcher] = set()
        self._worker: asyncio.Task[None] | None = None
        #: Pulsed (set, then cleared) at every change of the above (a conversion kept, a failure,
        #: a list), waking whoever waits for one.
        self._changed = asyncio.Event()
        cacher.listeners.append(self._seen)
        with contextlib.suppress(RuntimeError):  # no event loop yet: the first event or read starts it
            self._start()

    def close(self) -> None:
        """Stop converting (the version is no longer served so)."""
        if self._seen in self._cacher.listeners:
            self._cacher.listeners.remove(self._seen)
        self._pending.clear()
        if self._worker is not None:
            self._worker.cancel()

    @property
    def rv(self) -> int:
        """The revision the version's cache has reached: the storage cache's once every event
        it saw is converted."""
        return self._reached if self._pending else self._cacher.cache.rv

    @property
    def stuck(self) -> bool:
        """Whether the conversion of the next event failed (and is being tried again)."""
        return self._failing_since is not None

    def check_ready(self) -> None:
        """kube's cacher's answer to a list or watch while it lists: a 429 whose Retry-After
        grows with the time it has been down (``calculateRetryAfterForUnreadyCache``)."""
        self._start()
        if self._unready is not None:
            down_for = time.monotonic() - self._unready_since
            raise too_many_requests(f"storage is (re)initializing{self._unready}",
                                    int(min(30.0, max(1.0, math.exp(0.06 * down_for)))))

    def watching(self, watcher: ConvertingWatcher) -> None:
        """``watcher`` ends when the cache lists again."""
        self._watchers.add(watcher)

    def not_watching(self, watcher: ConvertingWatcher) -> None:
        self._watchers.discard(watcher)

    def _seen(self, event: CacheEvent) -> None:
        if event.type == DELETED:  # a delete's object is the last state, at the deleting revision
            self._pending.append((event.obj.key, event.rv, with_resource_version(event.obj.raw, event.rv)))
        else:
            self._pending.append((event.obj.key, event.rv, event.obj.raw))
        self._start()

    def _start(self) -> None:
        if self._worker is None and (self._pending or self._unready is not None):
            self._worker = asyncio.get_running_loop().create_task(self._run())

    def _note_change(self) -> None:
        self._changed.set()
        self._changed.clear()

    async def _changes(self, timeout: float | None = None) -> None:
        """Until the next change (or ``timeout``: TimeoutError)."""
        await asyncio.wait_for(self._changed.wait(), timeout)

    async def _run(self) -> None:
        try:
            if self._unready is not None:  # a new cache's first list
                await self._list_until_converted()
            while self._pending:
                key, rv, raw = self._pending[0]
                result = await self._converted(raw)
                if isinstance(result, StatusError):
                    await self._failed()
                    continue
                self._pending.popleft()
                self._failing_since = None
                self._reached = rv
                self._keep(key, rv, result)
                self._note_change()
        finally:
            self._worker = None
            self._note_change()

    async def _failed(self) -> None:
        """The first pending event's conversion failed: tried again after ``RETRY_PAUSE``, or,
        ``RETRY_FOR`` after its first failure, the cache gives up and lists again."""
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
            self._note_change()
        if now - self._failing_since < RETRY_FOR:
            await asyncio.sleep(RETRY_PAUSE)
        else:  # kube's cacher once its watch gave up: not ready, and it lists a period later
            self._failing_since = None
            self._unready, self._unready_since = "", now
            self._note_change()
            await asyncio.sleep(RELIST_PERIOD)
            await self._list_until_converted()

    async def _list_until_converted(self) -> None:
        """kube's cacher (re)initializing (``storage is (re)initializing``): its watchers are
        ended and every object converted, again every ``RELIST_PERIOD`` until all convert; it
        is ready then at the revision listed."""
        while True:
            self._relists += 1
            for watcher in list(self._watchers):
                watcher.end()
            self._note_change()  # watchers waiting for a conversion see the relist
            self._pending.clear()  # what comes from now on is after the listed revision
            rv, objects = self._cacher.cache.rv, list(self._cacher.cache.objects.values())
            converted = []
            for obj in objects:
                result = await self._converted(obj.raw)
                if isinstance(result, StatusError):
                    self._unready = f": failed to list {self._described}: {result.message}"
                    break
                converted.append((obj.key, obj.rv, result))
            else:
                for key, obj_rv, result in converted:
                    self._keep(key, obj_rv, result)
                self._unready, self.relisted_at, self._reached = None, rv, rv
                self._note_change()
                return
            await asyncio.sleep(RELIST_PERIOD)

    async def _converted(self, raw: bytes) -> Converted:
        try:
            return orjson.dumps(await self._convert(orjson.loads(raw)))
        except StatusError as err:
            return err

    def _keep(self, key: str, rv: int, result: Converted) -> None:
        if isinstance(result, StatusError):  # converted again by the next read
            return
        self._results[(key, rv)] = result
        if len(self._results) > KEPT_CONVERSIONS:
            self._results.popitem(last=False)

    async def caught_up(self, timeout: float | None = None) -> bool:
        """Whether every event seen so far is converted, waiting until it is: at most
        ``timeout`` seconds, or (None) while conversions succeed (not once the next event's
        fails, nor while the cache lists again)."""
        self._start()
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._pending:
            if deadline is None and (self.stuck or self._unready is not None):
                return False
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await self._changes(remaining)
        return True

    async def reached(self, rv: int, timeout: float) -> bool:
        """Whether the version's cache reaches ``rv`` within ``timeout`` seconds as far as its
        conversions go: once every event it saw is converted, it is where the storage cache is
        (whose reads wait for the storage's freshness themselves)."""
        self._start()
        deadline = time.monotonic() + timeout
        while self._pending and self._reached < rv:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await self._changes(remaining)
        return True

    def converted(self, raw: bytes) -> bytes:
        """The conversion of one stored object (its revision in its resourceVersion); raises
        ``NotConverted`` if it was never converted, its conversion failed, or it is no longer kept."""
        found = self._results.get(self._version_of(raw))
        if found is None:
            raise NotConverted(raw)
        return found

    async def cached(self, raw: bytes) -> bytes | None:
        """The conversion of one stored object the cache holds once it has converted what it
        can (``caught_up``), or None."""
        await self.caught_up()
        return self._results.get(self._version_of(raw))

    async def converted_now(self, raw: bytes) -> bytes:
        """``converted``, converting the object now (and keeping it) if it was not; raises the
        error of a conversion that fails."""
        await self.caught_up()
        try:
            return self.converted(raw)
        except NotConverted:
            result = await self.convert(raw)
        if isinstance(result, StatusError):
            raise result
        return result

    async def ingested(self, raw: bytes) -> bytes:
        """The conversion the version's cache makes of an object version the storage cache has
        (an event's, an initial object's), waiting for it while the cache is stuck before it;
        raises ``Relisted`` if the cache lists again meanwhile. One it no longer keeps is
        converted now (``converted_now``)."""
        version, relists = self._version_of(raw), self._relists
        while True:
            if self._relists != relists:
                raise Relisted()
            found = self._results.get(version)
            if found is not None:
                return found
            if not self._pending or version[1] < self._pending[0][1]:
                return await self.converted_now(raw)
            self._start()
            await self._changes()

    async def convert(self, raw: bytes) -> Converted:
        """Convert one stored object now, and keep it if that succeeds (a reader met it
        unconverted)."""
        result = await self._converted(raw)
        self._keep(*self._version_of(raw), result)
        return result

    def _version_of(self, raw: bytes) -> tuple[str, int]:
        """(key, revision) of a stored object."""
        meta = orjson.loads(raw)["metadata"]
        return self._key_of(meta.get("namespace"), meta["name"]), int(meta["resourceVersion"])


class Relisted(Exception):
    """The version's cache listed again: its watchers end."""


class ListedConversions:
    """One list's reads of ``IngestedConversions``: an object it has no conversion of (a past
    revision's, or one a relisted cache holds: a relist sends no events) is noted, its stored
    JSON standing in, and converted afterwards (``convert_missing``) for the list to be made
    again; kept here too, so that the next pass finds it whatever ``IngestedConversions`` keeps."""

    def __init__(self, conversions: IngestedConversions) -> None:
        self._conversions = conversions
        self._converted: dict[bytes, Converted] = {}
        self.missing: list[bytes] = []

    def encode(self, raw: bytes) -> bytes:
        found = self._converted.get(raw)
        if found is None:
            try:
                return self._conversions.converted(raw)
            except NotConverted:
                self.missing.append(raw)
                return raw
        if isinstance(found, StatusError):
            raise found
        return found

    async def convert_missing(self) -> None:
        """Convert what the last pass missed, one call per object (kube's list from etcd
        decodes each item on its own)."""
        missing, self.missing = self.missing, []
        for raw in missing:
            self._converted[raw] = await self._conversions.convert(raw)


class NotConverted(Exception):
    """A read met an object ``IngestedConversions`` has no conversion of (``raw``)."""

    def __init__(self, raw: bytes) -> None:
        super().__init__("not converted")
        self.raw = raw


class ConvertingWatcher:
    """A watch of the storage version (``inner``, its lines storage-version JSON) written in a
    served version: each event's object is its ingested conversion, framed in ``view`` (None:
    JSON). Lines go through ``lines`` only (no direct writes): each waits for its conversion,
    as long as the version's cache is stuck before it (until the watch's deadline). The watch
    ends when the version's cache lists again (``end``), or when a conversion made for it
    fails."""

    def __init__(self, inner: CacheWatcher, cacher: Cacher, conversions: IngestedConversions, api_version: str,
                 view: ResponseView | None, selection: Callable[[bytes], bool] | None = None,
                 selected: dict[tuple[str, str], bytes] | None = None) -> None:
        self._inner = inner
        self._cacher = cacher
        self._conversions = conversions
        self._api_version = api_version
        self._view = view
        #: The watch's selectors as a test of converted objects (None: none), and the objects in
        #: its selection (their conversions, by namespace and name) as the events left them.
        self._selection = selection
        self._selected = selected if selected is not None else {}
        self._ended = False
        self.bytes_written_directly = 0
        conversions.watching(self)

    @property
    def on_terminated(self) -> Callable[[], None] | None:
        return self._inner.on_terminated

    @on_terminated.setter
    def on_terminated(self, callback: Callable[[], None] | None) -> None:
        self._inner.on_terminated = callback

    def write_directly(self, write: Callable[[bytes], None], backed_up: Callable[[], bool]) -> None:
        """Not taken: a converted line is ready only once its conversion is."""

    def close(self) -> None:
        """The cacher's ``unregister`` of this watcher: the storage version's watch ends."""
        self._conversions.not_watching(self)
        self._cacher.unregister(self._inner)

    def end(self) -> None:
        """kube's ``terminateAllWatchers`` of the version's cache that lists again: the stream
        ends without an error event, and without what the storage version's watch has queued."""
        self._ended = True
        self._inner.ended_by_server = True
        self.close()

    async def lines(self) -> AsyncIterator[bytes]:
        async for batch in self._inner.lines():
            out: list[bytes] = []
            for line in batch.splitlines():
                if self._ended:
                    return
                event = orjson.loads(line)
                event_type, obj = event["type"], event["object"]
                if event_type in ("ERROR", "BOOKMARK"):
                    out.append(self._framed(event_type, obj))
                    continue
                raw = orjson.dumps(obj)
                try:
                    converted = self._conversions.converted(raw)
                except NotConverted:
                    if out:  # what is ready goes before the wait
                        yield b"".join(out)
                        out = []
                    try:
                        converted = await asyncio.wait_for(self._conversions.ingested(raw),
                                                           max(0.0, self._inner.remaining()))
                    except (Relisted, TimeoutError, StatusError):
                        # The version's cache listed again (its watchers end, the client
                        # watches again), or the watch's time ran out waiting, or a conversion
                        # made for it failed (an event the cache no longer kept).
                        return
                    if self._ended:
                        return
                out.append(self._object_line(event_type, converted))
            yield b"".join(out)

    def _framed(self, event_type: str, obj: Json) -> bytes:
        """An error or a bookmark (no object to convert) in the served version's framing."""
        if event_type == "ERROR":
            return json_event(event_type, orjson.dumps(obj))
        meta = obj.get("metadata") or {}
        framed = self._view.bookmark(int(meta["resourceVersion"]), meta.get("annotations")) if self._view else None
        return framed or json_event(event_type, orjson.dumps({**obj, "apiVersion": self._api_version}))

    def _object_line(self, event_type: str, converted: bytes) -> bytes:
        """An event of a converted object, selected by the watch's selectors, framed."""
        if self._selection is not None:
            seen = self._selected_event(event_type, converted)
            if seen is None:
                return b""
            event_type, converted = seen
        if self._view is None:
            return json_event(event_type, converted)
        return self._view.event(event_type, self._view.encode(converted))

    def _selected_event(self, event_type: str, converted: bytes) -> tuple[str, bytes] | None:
        """kube's ``convertToWatchEvent`` over the converted objects: an event of an object that
        enters the selection is ADDED, one that leaves it DELETED (its last selected state at
        the event's revision), one outside it none."""
        meta = orjson.loads(converted)["metadata"]
        key = (meta.get("namespace") or "", meta["name"])
        before = self._selected.pop(key, None)
        if event_type != DELETED and self._selection is not None and self._selection(converted):
            self._selected[key] = converted
            return (event_type if before is not None else ADDED), converted
        if before is None:
            return None
        if event_type == DELETED:
            return DELETED, converted
        return DELETED, with_resource_version(before, int(meta["resourceVersion"]))
