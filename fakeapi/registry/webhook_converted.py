"""The lists and watches of a served version converted by a call out (a CRD's conversion
webhook), as kube-apiserver serves them: each served version of a CRD has a watch cache of its
own, whose reflector converts every object it decodes once, as the event arrives (one
ConversionReview per event, and per object of its initial list); its lists and watches then call
no webhook. A GET reads etcd, a write's response is decoded from it: those convert per request
(``served_versions.ConvertingStore``).

``IngestedConversions`` is that cache's conversions over the storage version's cache: each event
the storage cache sees is converted in order, on the event loop, and kept by (key, revision) for
the lists and watches of the version (the storage cache's shared per-object encodings cannot hold
them: they are made synchronously when a reader first asks, and a webhook call cannot be). A
conversion that failed is not kept: kube's cache of the version cannot hold an object it could
not convert (its reflector lists again, and reads go to etcd meanwhile, converting as they
read), so a webhook that was down when the object was written (a manager whose webhook server
starts after the informers list) converts it at the next read.
``ConvertingWatcher`` re-frames a storage-version watch with them as its lines are written, and
selects by the converted objects (the labels and selectable fields the webhook gave them) when
the watch has selectors, as the version's own watch cache would."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable

import orjson

from ..apis.conversion import AsyncConvert
from ..cacher import CacheEvent, Cacher, CacheWatcher, json_event
from ..cacher.watch_cache import ADDED, DELETED, with_resource_version
from ..machinery.status import StatusError
from .views import ResponseView

#: How many conversions are kept (the newest): a read of an older revision converts again.
KEPT_CONVERSIONS = 10_000

#: A conversion's result: the converted object's JSON, or the error its read answers.
Converted = bytes | StatusError


class IngestedConversions:
    """The objects of ``cacher`` converted by ``convert`` as they arrive."""

    def __init__(self, cacher: Cacher, key_of: Callable[[str | None, str], str], convert: AsyncConvert) -> None:
        self._cacher = cacher
        self._key_of = key_of
        self._convert = convert
        self._results: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        #: (key, revision, stored JSON) not yet converted, in the order the cache saw them.
        self._pending: deque[tuple[str, int, bytes]] = deque(
            (obj.key, obj.rv, obj.raw) for obj in cacher.cache.objects.values())
        self._worker: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
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

    def _seen(self, event: CacheEvent) -> None:
        if event.type == DELETED:  # a delete's object is the last state, at the deleting revision
            self._pending.append((event.obj.key, event.rv, with_resource_version(event.obj.raw, event.rv)))
        else:
            self._pending.append((event.obj.key, event.rv, event.obj.raw))
        self._start()

    def _start(self) -> None:
        if self._worker is None and self._pending:
            self._idle.clear()
            self._worker = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            while self._pending:
                key, rv, raw = self._pending.popleft()
                self._keep(key, rv, await self._converted(raw))
        finally:
            self._worker = None
            self._idle.set()

    async def _converted(self, raw: bytes) -> Converted:
        try:
            return orjson.dumps(await self._convert(orjson.loads(raw)))
        except StatusError as err:
            return err

    def _keep(self, key: str, rv: int, result: Converted) -> None:
        if isinstance(result, StatusError):  # converted again by the next read (see the module doc)
            return
        self._results[(key, rv)] = result
        if len(self._results) > KEPT_CONVERSIONS:
            self._results.popitem(last=False)

    async def caught_up(self) -> None:
        """Once every event seen so far is converted."""
        self._start()
        if self._worker is not None:
            await asyncio.shield(self._idle.wait())

    def converted(self, raw: bytes) -> bytes:
        """The conversion of one stored object (its revision in its resourceVersion); raises
        ``NotConverted`` if it was never converted, its conversion failed, or it is no longer kept."""
        found = self._results.get(self._version_of(raw))
        if found is None:
            raise NotConverted(raw)
        return found

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
    JSON). Lines go through ``lines`` only (no direct writes): each may wait for its conversion.
    A conversion that failed ends the watch."""

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
        self.bytes_written_directly = 0

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
        self._cacher.unregister(self._inner)

    async def lines(self) -> AsyncIterator[bytes]:
        async for batch in self._inner.lines():
            out = []
            for line in batch.splitlines():
                try:
                    out.append(await self._converted_line(orjson.loads(line)))
                except StatusError:
                    # kube's watch cache of the version cannot hold the event: it stops its
                    # watchers and lists again; the client watches again from what it saw.
                    yield b"".join(out)
                    return
            yield b"".join(out)

    async def _converted_line(self, event: dict[str, object]) -> bytes:
        event_type, obj = str(event["type"]), event["object"]
        assert isinstance(obj, dict)
        if event_type == "ERROR":
            return json_event(event_type, orjson.dumps(obj))
        if event_type == "BOOKMARK":
            meta = obj.get("metadata") or {}
            assert isinstance(meta, dict)
            framed = self._view.bookmark(int(meta["resourceVersion"]), meta.get("annotations")) if self._view else None
            return framed or json_event(event_type, orjson.dumps({**obj, "apiVersion": self._api_version}))
        converted = await self._conversions.converted_now(orjson.dumps(obj))
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
