"""The read path of ``ResourceStore``: kube-apiserver's routing of reads between the watch cache
and etcd (``storage/cacher/delegator.go``): which LISTs the cache serves, at which revision, and
which go to the store (see ``CacheDelegator.list``); GETs read the store; every WATCH starts
from the cache. Bodies are assembled from stored bytes (``lists``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..cacher import CachedObject, CacheWatcher, TooOldResourceVersion
from ..cacher.selector_index import answers_exactly
from ..machinery import continue_token
from ..machinery.list_options import EXACT, NOT_OLDER_THAN, ListOptions, parse_resource_version
from ..machinery.selectors import (
    FieldSelector,
    LabelSelector,
    SelectableKind,
    parse_field_selector,
    parse_label_selector,
)
from ..machinery.status import (
    StatusError,
    not_found,
    resource_expired,
    too_large_resource_version,
    unclassified_error,
)
from ..store import ErrCompacted, ErrFutureRev, RangeRequest
from . import request_cost
from .lists import list_bytes, list_item
from .views import ResponseView

#: ``cached_objects`` keeps the reads of at most this many namespaces (all let go when full).
_LISTED_NAMESPACES = 1024
#: ``_filter`` keeps at most this many parsed selectors (all let go when full).
_PARSED_SELECTORS = 256

Json = dict[str, Any]


#: What ``_filter`` makes of a request's selectors: the matcher of cached objects, and them.
ParsedSelectors = tuple[Callable[[CachedObject], bool] | None, "Selectors"]


@dataclass(slots=True)
class WatchStart:
    """A watch ready to stream, or the error to send in-stream as its only event."""

    watcher: CacheWatcher | None
    error: StatusError | None = None


class CacheDelegator:
    """GET, LIST and WATCH of ``ResourceStore``, and the lookups other resources' storages and
    admission make, routed between its ``cacher`` and its ``store``."""

    def get(self, namespace: str | None, name: str, view: ResponseView | None = None) -> bytes:
        key = self.key(namespace, name)
        kv = self.store.get(key.encode())
        if kv is None:
            raise not_found(self.resource_type.group, self.resource_type.plural, name)
        cost = request_cost.current.get()
        if cost is not None:  # a GET reads the store, as kube's does etcd for RV ""
            cost.from_store = True
            cost.returned = cost.examined = 1
        value = self._read(kv.value, kv.mod_revision)
        if view is None:
            return value
        # The watch cache's copy of this version keeps its encodings: converted once per view.
        cached = self.cacher.cache.objects.get(key) if view.shared else None
        if cached is not None and cached.rv == kv.mod_revision:
            return view.body(cached.encoded(view))
        return view.body(view.encode(value))

    def exists(self, namespace: str | None, name: str) -> bool:
        return self.store.get(self.key(namespace, name).encode()) is not None

    def cached_or_stored(self, namespace: str | None, name: str) -> Json | None:
        """An object as the watch cache has it, else as the store has it (None: in neither):
        kube's admission plugins read listers with a live lookup on a miss, so an object
        created a moment ago is found, and a hit costs no store round trip."""
        key = self.key(namespace, name)
        cached = self.cacher.cache.objects.get(key)
        if cached is not None:
            return orjson.loads(cached.raw)
        kv = self.store.get(key.encode())
        return None if kv is None else orjson.loads(self._read(kv.value, kv.mod_revision))

    def cached_objects(self, namespace: str | None) -> list[Json]:
        """The watch cache's objects (in one namespace, or all): a lister's read. Decoded once
        per namespace until the cache changes (admission reads a pod's namespace's LimitRanges
        and the PriorityClasses at every pod create), so shared: never changed by the caller."""
        changes = self.cacher.cache.changes
        listed = self._listed.get(namespace)
        if listed is not None and listed[0] == changes:
            return listed[1]
        start, end = self.key_range(namespace)
        objects = [orjson.loads(o.raw) for o in self.cacher.snapshot(start, end)]
        if len(self._listed) >= _LISTED_NAMESPACES:
            self._listed.clear()
        self._listed[namespace] = (changes, objects)
        return objects

    def stored_objects(self, namespace: str | None) -> list[Json]:
        """Every object of one namespace (or all), decoded, in key order: a storage's read of
        another resource (the eviction's disruption budgets)."""
        start, end = self.key_range(namespace)
        return [orjson.loads(self._read(kv.value, kv.mod_revision))
                for kv in self.store.range(RangeRequest(start.encode(), end.encode())).kvs]

    # ----------------------------------------------------------------- list

    def _filter(self, opts: ListOptions, field_labels: SelectableKind | None) -> ParsedSelectors:
        """The request's selectors as a matcher of cached objects, and themselves; the field
        selector names the field labels of ``field_labels`` (a served version's kind; default
        this resource's). Kept by their text: controllers and kubelets send the same selectors
        again and again, and parsing one is ~8 % of a small LIST's CPU (the parsed selectors
        and their matcher are immutable; a refused one raises before it is kept)."""
        kind = field_labels or self.resource_type
        key = (opts.label_selector, opts.field_selector)
        kept = self._parsed_selectors.get(key)
        if kept is not None and kept[0] is kind:
            return kept[1]
        labels = parse_label_selector(opts.label_selector)
        fields = parse_field_selector(kind, opts.field_selector)
        parsed = _compile_filter(labels, fields), Selectors(labels, fields)
        if len(self._parsed_selectors) >= _PARSED_SELECTORS:
            self._parsed_selectors.clear()
        self._parsed_selectors[key] = (kind, parsed)
        return parsed

    async def list(
        self, namespace: str | None, opts: ListOptions, view: ResponseView | None = None, *,
        field_labels: SelectableKind | None = None, selected: Callable[[CachedObject], bool] | None = None,
    ) -> bytes:
        """kube 1.35's routing (``cacher/delegator.go`` with ``ConsistentListFromCache`` and
        ``ListFromCacheSnapshot``): RV "0" and NotOlderThan N -> the cache (once it has reached N);
        RV "" -> a consistent read from the cache once it has caught up with the store; Exact N,
        N with a limit, and continue pages -> the cache's state at N while it still has it,
        else the store at N (410 once compacted). ``selected``: what the objects are selected
        by instead of the request's selectors (a served version that selects the objects as a
        webhook converts them)."""
        opts.validate()
        if selected is not None:  # the cache's objects are not what is selected: no index
            matches, selectors = selected, Selectors(LabelSelector(), FieldSelector())
        else:
            matches, selectors = self._filter(opts, field_labels)
        start, end = self.key_range(namespace)
        limit = opts.limit
        if opts.continue_token:
            rv, start_key = continue_token.decode(opts.continue_token)
            if rv < 0:  # an inconsistent continue token: the rest of a consistent read
                return await self._list_consistent(start, self.prefix + start_key, end, limit, matches, selectors, view)
            return await self._list_at(start, self.prefix + start_key, end, rv, limit, matches, view, paged=True)
        rv_text = opts.resource_version
        if rv_text == "0":
            return self._list_from_cache(start, end, 0, matches, selectors, view)
        if rv_text == "":
            return await self._list_consistent(start, start, end, limit, matches, selectors, view)
        rv = opts.resource_version_number()
        match = opts.resource_version_match
        if match == EXACT or (match != NOT_OLDER_THAN and limit > 0):
            return await self._list_at(start, start, end, rv, limit, matches, view, paged=False)
        if not await self.cacher.wait_fresh(rv):
            raise too_large_resource_version(rv, self.cacher.cache.rv)
        return self._list_from_cache(start, end, limit, matches, selectors, view)

    async def _list_consistent(
        self, start: str, from_key: str, end: str, limit: int, matches: Callable[[CachedObject], bool] | None,
        selectors: Selectors, view: ResponseView | None,
    ) -> bytes:
        """The cache once it has reached the store's current revision (the store itself should it
        not catch up in time, as kube falls back to etcd)."""
        if not await self.cacher.wait_fresh(self.store.revision):
            return self._list_from_store(start, end, from_key, 0, limit, matches, view, paged=False)
        return self._list_from_cache(from_key, end, limit, matches, selectors, view)

    async def _list_at(
        self, start: str, from_key: str, end: str, rv: int, limit: int,
        matches: Callable[[CachedObject], bool] | None, view: ResponseView | None, *, paged: bool,
    ) -> bytes:
        """The state at ``rv``: from the cache's snapshots while it has one (waiting for a revision
        it has not reached yet), else from the store at that revision."""
        cacher = self.cacher
        if rv > cacher.cache.rv and not await cacher.wait_fresh(rv):
            raise too_large_resource_version(rv, cacher.cache.rv)
        cache = cacher.cache
        if not cache.can_list_at(rv):
            return self._list_from_store(start, end, from_key, rv, limit, matches, view, paged=paged)
        objects, count = cache.objects_at(rv, from_key, end)
        return self._page(objects, count, matches, view, rv, limit)

    def _list_from_cache(
        self, start: str, end: str, limit: int, matches: Callable[[CachedObject], bool] | None,
        selectors: Selectors, view: ResponseView | None,
    ) -> bytes:
        """The cache's current state of keys from ``start`` (a continue key, or the range's start):
        the objects the selector index picks for the selectors where it can (matched against
        them again only when it may pick more), else all of them."""
        cache = self.cacher.cache
        rv = cache.rv
        selected = None if matches is None else cache.selected_keys(selectors.labels, selectors.fields, start, end)
        if selected is None:
            objects, count = cache.objects_at(rv, start, end)
            return self._page(objects, count, matches, view, rv, limit)
        keys, current = cache.keys, cache.objects
        first = keys.bisect_left(start)
        if answers_exactly(selectors.labels, selectors.fields):
            matches = _every
        # A page ends with a continue token while keys of the range follow its last object,
        # selected or not, as when every object is read.
        return self._page((current[key] for key in selected), keys.bisect_left(end) - first, matches, view, rv, limit,
                          position=lambda key: keys.bisect_right(key) - first)

    def _list_from_store(
        self,
        start: str,
        end: str,
        from_key: str,
        rv: int,
        limit: int,
        matches: Callable[[CachedObject], bool] | None,
        view: ResponseView | None,
        paged: bool,
    ) -> bytes:
        store = self.store
        try:
            read_rv = rv if rv > 0 else store.revision
            resp = store.range(RangeRequest(from_key.encode(), end.encode(), revision=read_rv))
        except ErrCompacted:
            if paged:
                raise _inconsistent_continue(from_key[len(self.prefix):]) from None
            raise resource_expired("The resourceVersion for the provided list is too old.") from None
        except ErrFutureRev:
            raise too_large_resource_version(rv, store.revision) from None
        cost = request_cost.current.get()
        if cost is not None:
            cost.from_store = True
        # Stored values are decoded only when a selector has to look inside, and only as far as
        # the page goes.
        objects = [CachedObject(kv.key.decode(), "", "", kv.mod_revision, self._read(kv.value, kv.mod_revision), {}, {})
                   for kv in resp.kvs]
        decoded = None if matches is None else (
            lambda o: matches(self._decode(o.key, o.raw, o.rv))  # type: ignore[misc]
        )
        return self._page(iter(objects), len(objects), decoded, view, read_rv, limit)

    def _page(
        self,
        objects: Iterator[CachedObject],
        count: int,
        matches: Callable[[CachedObject], bool] | None,
        view: ResponseView | None,
        rv: int,
        limit: int,
        position: Callable[[str], int] | None = None,
    ) -> bytes:
        """One LIST page of ``objects`` (in key order; ``count`` of them, or of their range when
        they are some of a range's objects and ``position`` gives how many keys of the range
        come up to a key): the first ``limit`` that match, and a continue token at ``rv`` when
        objects of the range remain after the last one taken, with how many remain when no
        selector makes that unknown (``remainingItemCount``). The objects examined are counted
        as kube's cacher goes through them: every object of the range up to the last one taken,
        whichever the selector index spared (the client report's cost of a LIST)."""
        items: list[bytes] = []
        token = remaining = None
        examined = 0
        for obj in objects:
            examined += 1
            if matches is not None and not matches(obj):
                continue
            items.append(self._list_item(obj, view))
            if limit and len(items) == limit:
                if position is not None:
                    examined = position(obj.key)
                if examined < count:
                    token = continue_token.encode(rv, obj.key[len(self.prefix):] + "\x00")
                    if matches is None:
                        remaining = count - examined
                break
        else:
            if position is not None:
                examined = count
        cost = request_cost.current.get()
        if cost is not None:
            cost.returned += len(items)
            cost.examined += examined
        return self._list_body(items, rv, token, remaining, view)

    def _list_item(self, obj: CachedObject, view: ResponseView | None) -> bytes:
        """One item of a LIST body: a built-in kind's without its apiVersion and kind (a typed
        list's items carry none), a custom resource's as stored (an unstructured list's do)."""
        if view is not None:
            return view.item(obj)
        return obj.raw if self.resource_type.custom else list_item(obj.raw)

    def _list_body(
        self, items: list[bytes], rv: int, token: str | None, remaining: int | None, view: ResponseView | None = None,
    ) -> bytes:
        meta: Json = {"resourceVersion": str(rv)}
        if token:
            meta["continue"] = token
            if remaining is not None:
                meta["remainingItemCount"] = remaining
        if self.resource_type.custom:
            # An unstructured list's metadata is a map: the storage's SetContinue sets
            # "continue" even when empty (ListMeta's omitempty drops it from a built-in list),
            # and Go writes the map's keys sorted.
            meta.setdefault("continue", "")
            meta = dict(sorted(meta.items()))
        if view is not None:
            return view.list_body(items, meta)
        return list_bytes(self.list_kind, self.api_version, meta, items)

    # ----------------------------------------------------------------- watch

    async def watch(
        self, namespace: str | None, opts: ListOptions, view: ResponseView | None = None, *,
        field_labels: SelectableKind | None = None,
    ) -> WatchStart:
        """Start a watch from the cache (see kube's ``Cacher.Watch``). Too-old resource versions
        come back as an in-stream error, as kube-apiserver sends them."""
        opts.validate()
        matches, _selectors = self._filter(opts, field_labels)
        if namespace and self.resource_type.namespaced:
            matches = _and_namespace(matches, namespace)
        start, end = self.key_range(namespace)
        cacher = self.cacher
        rv_text = opts.resource_version
        if rv_text not in ("", "0"):
            rv, problem = parse_resource_version(rv_text)
            if problem:  # the watch handler passes the versioner's error on unclassified
                raise unclassified_error(problem)
            if not await cacher.wait_fresh(rv):
                raise too_large_resource_version(rv, cacher.cache.rv)
        elif rv_text == "" and (opts.send_initial_events or opts.send_initial_events is None):
            # Initial state "most recent": the cache must have caught up with the store.
            await cacher.wait_fresh(self.store.revision)
        watcher = cacher.new_watcher(
            kind=self.kind if view is None else view.kind,
            api_version=self.api_version if view is None else view.api_version,
            matches=matches,
            allow_bookmarks=opts.allow_watch_bookmarks,
            timeout=opts.watch_timeout(),
            view=view,
            namespace=namespace if self.resource_type.namespaced else None,
        )
        cache = cacher.cache
        cost = request_cost.current.get()
        if opts.send_initial_events or (opts.send_initial_events is None and rv_text in ("", "0")):
            watcher.add_initial(cacher.snapshot(start, end), cache.rv)
            if opts.send_initial_events and opts.allow_watch_bookmarks:
                watcher.add_initial_events_end(cache.rv)
        elif rv_text in ("", "0"):
            watcher.last_rv = cache.rv  # sendInitialEvents=false: changes from now on
        else:
            rv = int(rv_text)
            try:
                watcher.add_initial_events(cache.events_since(rv))
            except TooOldResourceVersion as err:
                if cost is not None:
                    cost.expired = True
                return WatchStart(None, resource_expired(str(err)))
            watcher.last_rv = max(watcher.last_rv, rv)
        cacher.register(watcher)
        if cost is not None:
            cost.watcher = watcher
        return WatchStart(watcher)


def _inconsistent_continue(start_key: str) -> StatusError:
    err = resource_expired(
        "The provided continue parameter is too old to display a consistent list result. You can "
        "start a new list without the continue parameter, or use the continue token in this "
        "response to retrieve the remainder of the results. Continuing with the provided token "
        "results in an inconsistent list - objects that were created, modified, or deleted between "
        "the time the first chunk was returned and now may show up in the list."
    )
    err.continue_token = continue_token.encode(-1, start_key)
    return err


@dataclass(frozen=True)
class Selectors:
    """A request's label and field selectors, parsed."""

    labels: LabelSelector
    fields: FieldSelector


def _every(obj: CachedObject) -> bool:
    """The matcher of objects the selector index selected exactly: each of them matches (a
    matcher still, not None: a selective page gives no remainingItemCount)."""
    return True


def _compile_filter(
    labels: LabelSelector, fields: FieldSelector
) -> Callable[[CachedObject], bool] | None:
    if labels.empty and fields.empty:
        return None
    if fields.empty:
        return lambda o: labels.matches(o.labels)
    if labels.empty:
        return lambda o: fields.matches(o.fields)
    return lambda o: labels.matches(o.labels) and fields.matches(o.fields)


def _and_namespace(
    matches: Callable[[CachedObject], bool] | None, namespace: str
) -> Callable[[CachedObject], bool]:
    if matches is None:
        return lambda o: o.namespace == namespace
    return lambda o: o.namespace == namespace and matches(o)
