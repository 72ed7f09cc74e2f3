"""Serving a resource in a version other than its storage version, over the storage version's
``ResourceStore`` (its keys, its watch cache), as kube-apiserver serves core and events.k8s.io
events, autoscaling v1 and v2 HPAs, and the versions of a multi-version CRD.

Reads are the stored objects converted (``ConvertedView``: each object and watch event is
converted once, the result cached on it for every reader of that version). A conversion that
calls out (a CRD's conversion webhook) is not cached so: a GET and a write's response convert
per request (kube decodes them from etcd), lists and watches read the conversions made as the
storage cache saw each event (``webhook_converted``), as kube's per-version watch cache holds
them.

Writes follow kube's handlers: the field manager of the served version records the request's
fields in the object of that version (``fieldmanager`` converts to its own version), patches
apply to the object in the served version, then the result is converted to the storage version
and goes through the storage version's strategy and write; the response is converted back.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import orjson

from ..apiextensions.structural import StructuralSchema
from ..apis.catalogue import ResourceType
from ..apis.rules import NO_RULES, rules_for
from ..cacher import CachedObject, Cacher, TooOldResourceVersion
from ..machinery import gostruct, metadata
from ..apis.conversion import Conversion, Convert
from ..machinery.delete_options import DeleteOptions
from ..machinery.list_options import EXACT, NOT_OLDER_THAN, ListOptions
from ..machinery.scale_handler import ReplicasPaths
from ..machinery.schema import Schema, kind_schema
from ..machinery.selectors import parse_field_selector, parse_label_selector, selectable_fields
from ..machinery.status import StatusError, qualified_resource, resource_expired, too_large_resource_version
from ..runtime import wait_for
from .delegator import WatchStart
from .deletes import is_status
from .lists import list_bytes, list_item
from . import scale
from .patch_apply import FieldManagedWrites
from .rest import Json, ResourceStore
from .views import JsonView, ResponseView
from .webhook_converted import ConvertingWatcher, IngestedConversions, ListedConversions
from .writes import request_rules


class ConvertedView(JsonView):
    """Stored objects as a served version shows them, each converted by ``encode`` (stored JSON
    to served JSON); shared by every request of that version, unless the conversion calls out
    (each request then converts: it must see the webhook's answer of its own time)."""

    def __init__(self, resource_type: ResourceType, list_kind: str, encode: Callable[[bytes], bytes], *,
                 shared: bool = True) -> None:
        self.name = resource_type.group_version  # unique among the versions of one storage prefix
        self.kind = resource_type.kind
        self.api_version = resource_type.group_version
        self.list_kind = list_kind
        self.shared = shared
        self._encode = encode
        self._custom = resource_type.custom

    def encode(self, raw: bytes) -> bytes:
        return self._encode(raw)

    def item(self, obj: CachedObject) -> bytes:
        encoded = obj.encoded(self)
        return encoded if self._custom else list_item(encoded)

    def list_body(self, items: list[bytes], list_meta: dict[str, Any]) -> bytes:
        return list_bytes(self.list_kind, self.api_version, list_meta, items)


class ConvertedThen:
    """A client's view (``Table``, protobuf) of the objects converted to the served version
    first."""

    metadata_only = False

    def __init__(self, converted: ConvertedView, then: ResponseView) -> None:
        self.name = f"{then.name}@{converted.name}"
        self.shared = then.shared and converted.shared
        self.kind = then.kind
        self.api_version = then.api_version
        self._converted = converted
        self._then = then

    def encode(self, raw: bytes) -> bytes:
        return self._then.encode(self._converted.encode(raw))

    def body(self, encoded: bytes) -> bytes:
        return self._then.body(encoded)

    def item(self, obj: CachedObject) -> bytes:
        if self.shared:  # a shared view's item is its encoding: cached on the stored object
            return obj.encoded(self)
        return self._then.item(obj.with_raw(obj.encoded(self._converted)))

    def list_body(self, items: list[bytes], list_meta: dict[str, Any]) -> bytes:
        return self._then.list_body(items, list_meta)

    def event(self, event_type: str, encoded: bytes) -> bytes:
        return self._then.event(event_type, encoded)

    def bookmark(self, rv: int, annotations: Mapping[str, str] | None) -> bytes | None:
        return self._then.bookmark(rv, annotations)


class ConvertingStore(FieldManagedWrites):
    """One served version (``resource_type``) of the objects ``storage`` keeps in its storage version.
    Exposes what the HTTP layer calls on a ``ResourceStore``."""

    def __init__(
        self, storage: ResourceStore, resource_type: ResourceType, conversion: Conversion, *,
        list_kind: str | None = None, custom_schema: Schema | None = None,
        structural: StructuralSchema | None = None, printer_columns: Sequence[Mapping[str, Any]] | None = None,
        scale_paths: scale.ScalePaths = scale.BUILT_IN,
    ) -> None:
        self.storage = storage
        self.scale_paths = scale_paths
        self.resource_type = resource_type
        self.kind = resource_type.kind
        self.api_version = resource_type.group_version
        self.list_kind = list_kind or f"{resource_type.kind}List"
        self.schema = None if resource_type.custom else kind_schema(resource_type.group, resource_type.version,
                                                                    resource_type.kind)
        self.custom_schema = custom_schema
        self.structural = structural
        self.printer_columns = tuple(printer_columns) if printer_columns is not None else None
        #: Between the storage version and this one: what reads and writes convert with, and
        #: what admission uses to see an object of this resource in another version.
        self.conversion = conversion
        self._view = ConvertedView(resource_type, self.list_kind, _encoded(conversion.to_served),
                                   shared=not conversion.waits)
        #: A conversion that calls out: what the storage cache's events became, for lists and
        #: watches, made as the events arrive.
        self._ingested: IngestedConversions | None = None
        if conversion.served_async is not None:
            self._ingested = IngestedConversions(  # described as GroupVersionKind.String() is
                storage.cacher, storage.key, conversion.served_async,
                f"{resource_type.group_version}, Kind={resource_type.kind}")
        self._field_managers = {}
        #: The served version's defaulting runs on bodies in that version, before conversion
        #: (kube defaults a body in the version it was decoded from); its validation, if it has
        #: its own, validates the writes sent in it.
        self._rules = NO_RULES if resource_type.custom else rules_for(resource_type.group, resource_type.version,
                                                                      resource_type.kind)
        self._default = self._rules.default

    @property
    def cacher(self) -> Cacher:
        return self.storage.cacher

    @property
    def replicas_paths(self) -> ReplicasPaths:
        return self.storage.replicas_paths

    @property
    def waits(self) -> bool:
        """Whether its reads and writes wait on the event loop (``runtime.run_awaiting``): its
        conversion calls out, or its storage's store calls wait."""
        return self.conversion.waits or self.storage.waits

    def close(self) -> None:
        """The version is no longer served so: stop converting what the storage cache sees."""
        if self._ingested is not None:
            self._ingested.close()

    # ----------------------------------------------------------------- conversions

    def _served_view(self, view: ResponseView | None) -> ResponseView:
        """What a read in ``view`` asks of the storage version's store: the converted objects,
        in ``view`` if any. Metadata is the same in every version: PartialObjectMetadata needs
        no conversion."""
        if view is None:
            return self._view
        if view.metadata_only:
            return view
        return ConvertedThen(self._view, view)

    def _served(self, raw: bytes) -> bytes:
        return self._view.encode(raw)

    def _served_object(self, obj: Json) -> Json:
        return self.conversion.to_served(obj)

    def _update_start(self, stored: Json) -> tuple[Json, bool]:
        """The object an update of the served version starts from, as kube's
        ``GuaranteedUpdate`` has it, and whether it is the version's watch cache's. Through a
        webhook: the conversion the cache holds (``IngestedConversions``: no call of its own),
        encoded for etcd as the update's ``origState`` (a call the webhook sees); else the
        stored object converted now (kube reads etcd then: a call). A pure conversion has
        nothing to show."""
        if self._ingested is None:
            return self._served_object(stored), False
        raw = orjson.dumps(stored)
        cached = wait_for(self._ingested.cached(raw))
        if cached is None:
            return orjson.loads(wait_for(self._ingested.converted_now(raw))), False
        live = orjson.loads(cached)
        self._existing_encoded(live)
        return live, True

    def _after_failed_update(self, namespace: str | None, name: str, from_cache: bool) -> None:
        """kube's ``GuaranteedUpdate`` once an update that started from the cache's object
        failed: it reads etcd's (decoded: a call, whose own failure is then the answer), the
        cache's may have been stale, before it answers the update's error."""
        if from_cache:
            self._served_object(orjson.loads(self.storage.get(namespace, name)))

    def _existing_encoded(self, live: Json) -> None:
        """kube's ``GuaranteedUpdate`` encodes the existing object it starts from to the storage
        version (``origState``, what the update is then compared with): through a webhook, a
        call the webhook sees, made here as kube makes it. A pure conversion has nothing to show."""
        if self._ingested is not None:
            self._stored_object(live)

    def _existing_decoded(self, namespace: str | None, name: str) -> Json | None:
        """Before a delete through a webhook, what kube's does with the existing object: read
        from etcd and decoded into the served version (the registry's precondition and graceful
        deletion checks), then encoded back as ``GuaranteedUpdate``'s ``origState`` (the
        storage's delete). Each a call the webhook sees; None for a pure conversion."""
        if self._ingested is None:
            return None
        stored = orjson.loads(self.storage.get(namespace, name))
        self._existing_encoded(self._served_object(stored))
        return stored

    def _stored_object(self, obj: Json) -> Json:
        return self.conversion.to_storage(obj)

    @contextlib.contextmanager
    def _requested(self) -> Iterator[None]:
        """A request sent in this version: the storage version's store validates its writes with
        this version's rules, if it has any (``writes.request_rules``), and its errors name this
        version's resource where the group differs (kube serves such a version by its own
        storage: ``events.events.k8s.io "x" not found``; ``Invalid`` names the stored Kind, as
        kube's does)."""
        token = request_rules.set(self._rules)
        try:
            yield
        except StatusError as error:
            raise self._served_error(error) from None
        finally:
            request_rules.reset(token)

    def _served_error(self, error: StatusError) -> StatusError:
        stored, details = self.storage.resource_type, error.details
        if (self.resource_type.group == stored.group or details is None
                or (details.group, details.kind) != (stored.group, stored.plural)):
            return error
        message = error.message.replace(
            f'{qualified_resource(stored.group, stored.plural)} "',
            f'{qualified_resource(self.resource_type.group, self.resource_type.plural)} "', 1)
        return StatusError(error.code, error.reason, message,
                           dataclasses.replace(details, group=self.resource_type.group, kind=self.resource_type.plural),
                           error.continue_token)

    def _typed(self, body: Any, go_decoded: bool = False) -> Json:
        """The request body, checked to be of the served kind and version, and defaulted (as
        ``StoreWrites._decode_body``, ``go_decoded`` included)."""
        obj = metadata.check_type(body, self.kind, self.api_version)
        if self.resource_type.custom:
            return obj
        if not go_decoded:
            obj = gostruct.decode_body(obj, self.api_version, self.kind)
        if self._default is not None:
            self._default(obj)
        return obj

    def _managed(self, subresource: str | None, live: Json | None, new: Json, manager: str) -> Json:
        """``new`` with managedFields recomputed by the served version's field manager."""
        if not manager:
            return new
        return self._field_manager(subresource).update(live, new, manager, now=metadata.now_rfc3339())

    # ----------------------------------------------------------------- reads

    def exists(self, namespace: str | None, name: str) -> bool:
        return self.storage.exists(namespace, name)

    def get(self, namespace: str | None, name: str, view: ResponseView | None = None) -> bytes:
        with self._requested():
            return self.storage.get(namespace, name, self._served_view(view))

    async def list(self, namespace: str | None, opts: ListOptions, view: ResponseView | None = None) -> bytes:
        if self._ingested is None or (view is not None and view.metadata_only):
            return await self.storage.list(namespace, opts, self._served_view(view), field_labels=self.resource_type)
        ingested = self._ingested
        opts = await self._cache_list_options(opts, ingested)
        listed = ListedConversions(ingested)
        converted = ConvertedView(self.resource_type, self.list_kind, listed.encode, shared=False)
        served_view = converted if view is None else ConvertedThen(converted, view)
        selection = self._converted_selection(opts)
        # an object not converted yet is selected as stored, and the list made again once it is
        selected = None if selection is None else (lambda o: selection(listed.encode(o.raw)))
        while True:
            body = await self.storage.list(namespace, opts, served_view, field_labels=self.resource_type,
                                           selected=selected)
            if not listed.missing:
                return body
            await listed.convert_missing()

    async def _cache_list_options(self, opts: ListOptions, ingested: IngestedConversions) -> ListOptions:
        """The storage version's list that answers a list of this version as kube's cache of
        the version would (see ``webhook_converted``), once that is ready (else its 429). No
        resourceVersion: once every event is converted, or the cacher's wait for a fresh cache
        has passed (the objects it misses are then converted now, as kube reads etcd).
        resourceVersion 0, or one not older than the version's cache has reached: the cache at
        the revision it reached (one it does not reach within that wait: its 504). Exact
        revisions and continued lists read their revision as they are (kube reads etcd)."""
        rv_text, match = opts.resource_version, opts.resource_version_match
        if opts.continue_token or rv_text not in ("", "0") and (
                match == EXACT or match != NOT_OLDER_THAN and opts.limit > 0):
            return opts
        ingested.check_ready()
        fresh_timeout = self.storage.cacher.config.fresh_timeout
        if rv_text == "":
            await ingested.caught_up(fresh_timeout)
            return opts
        at_least = opts.resource_version_number()
        if not await ingested.reached(at_least, fresh_timeout):
            raise too_large_resource_version(at_least, ingested.rv)
        if await ingested.caught_up():
            return opts
        return dataclasses.replace(opts, resource_version=str(ingested.rv), resource_version_match=EXACT)

    async def watch(self, namespace: str | None, opts: ListOptions, view: ResponseView | None = None) -> WatchStart:
        if self._ingested is None or (view is not None and view.metadata_only):
            return await self.storage.watch(namespace, opts, self._served_view(view), field_labels=self.resource_type)
        ingested = self._ingested
        refused = await self._cache_watch_refused(opts, ingested)
        if refused is not None:
            return WatchStart(None, refused)
        selection = self._converted_selection(opts)
        # selected as converted: the storage version's watch sends every object
        storage_opts = opts if selection is None else dataclasses.replace(opts, label_selector="", field_selector="")
        start = await self.storage.watch(namespace, storage_opts, None, field_labels=self.resource_type)
        if start.watcher is None:
            return start
        selected = None
        if selection is not None:
            selected = await self._selected_at(namespace, opts, start.watcher.last_rv, selection)
        return WatchStart(ConvertingWatcher(start.watcher, self.storage.cacher, ingested, self.api_version,
                                            view, selection, selected))  # type: ignore[arg-type]

    async def _cache_watch_refused(self, opts: ListOptions, ingested: IngestedConversions) -> StatusError | None:
        """What kube's cache of the version answers a watch it cannot start (see
        ``webhook_converted``): raises its 429 while it lists again; a 410 for a resourceVersion
        older than its last list (the in-stream error, as the storage's watch sends it); a
        watch from now whose initial state the cache does not reach within the cacher's wait
        for a fresh cache, the in-stream 504 of that wait (a resourceVersion it does not
        reach: the 504 the storage's watch raises)."""
        ingested.check_ready()
        fresh_timeout = self.storage.cacher.config.fresh_timeout
        if opts.resource_version not in ("", "0"):
            since = opts.resource_version_number()
            if since < ingested.relisted_at:
                return resource_expired(str(TooOldResourceVersion(since, ingested.relisted_at)))
            if not await ingested.reached(since, fresh_timeout):
                raise too_large_resource_version(since, ingested.rv)
        elif opts.resource_version == "" and opts.send_initial_events is not False:
            current = self.storage.store.revision
            if not await ingested.reached(current, fresh_timeout):
                return too_large_resource_version(current, ingested.rv)
        return None

    def _converted_selection(self, opts: ListOptions) -> Callable[[bytes], bool] | None:
        """The request's selectors as a test of objects in this version (their JSON), as kube's
        watch cache of a webhook-converted version selects its converted objects: the labels
        and selectable fields the webhook gave them. None: no selector."""
        labels = parse_label_selector(opts.label_selector)
        fields = parse_field_selector(self.resource_type, opts.field_selector)
        if labels.empty and fields.empty:
            return None

        def selects(converted: bytes) -> bool:
            obj = orjson.loads(converted)
            return labels.matches((obj.get("metadata") or {}).get("labels") or {}) \
                and fields.matches(selectable_fields(self.resource_type, obj))
        return selects

    async def _selected_at(self, namespace: str | None, opts: ListOptions, watched_from: int,
                           selection: Callable[[bytes], bool]) -> dict[tuple[str, str], bytes]:
        """What a watch without initial events starts from (from a resourceVersion, or from now):
        the conversions of the objects in its selection at that revision, by (namespace, name),
        against which its first events enter or leave the selection. A watch with initial
        events starts from none: they add every object."""
        if opts.send_initial_events or (opts.send_initial_events is None and opts.resource_version in ("", "0")):
            return {}
        since = int(opts.resource_version) if opts.resource_version not in ("", "0") else watched_from
        cache = self.storage.cacher.cache
        if not cache.can_list_at(since):
            return {}
        start, end = self.storage.key_range(namespace)
        selected = {}
        for obj in list(cache.objects_at(since, start, end)[0]):
            assert self._ingested is not None
            converted = await self._ingested.converted_now(obj.raw)
            if selection(converted):
                selected[(obj.namespace, obj.name)] = converted
        return selected

    # ----------------------------------------------------------------- writes

    def create(self, namespace: str | None, body: Any, dry_run: bool = False, *, manager: str = "",
               go_decoded: bool = False) -> bytes:
        obj = self._managed(None, None, self._typed(body, go_decoded), manager)
        with self._requested():
            return self._served(self.storage.create(namespace, self._stored_object(obj), dry_run))

    def update(
        self, namespace: str | None, name: str, body: Any, *, subresource: str | None = None, dry_run: bool = False,
        manager: str = "", go_decoded: bool = False,
    ) -> bytes:
        obj = self._typed(body, go_decoded)
        from_cache = False
        try:
            with self._requested():
                if manager or self._ingested is not None:
                    stored = orjson.loads(self.storage.get(namespace, name))
                    live, from_cache = self._update_start(stored)
                    obj = self._managed(subresource, live, obj, manager)
                    # kube's store refuses a stale resourceVersion before it encodes the object
                    self.storage.check_resource_version(name, obj["metadata"].get("resourceVersion"),
                                                        int(stored["metadata"]["resourceVersion"]))
                written = self.storage.update(
                    namespace, name, self._stored_object(obj), subresource=subresource, dry_run=dry_run)
        except StatusError:
            self._after_failed_update(namespace, name, from_cache)
            raise
        return self._served(written)

    def rewrite(
        self, namespace: str | None, name: str, change: Callable[[Json], Json], *,
        subresource: str | None = None, dry_run: bool = False, manager: str = "", go_decoded: bool = False,
        scaled: scale.Scales | None = None,
    ) -> bytes:
        """``ResourceStore.rewrite`` with ``change`` made to the object in the served version
        (whose conversion to the storage version the storage's decoding reads: ``go_decoded``
        does not carry over). ``scaled`` makes Scales of objects in the served version: kube
        validates a ``/scale`` write on the objects of the version it is sent in, before they
        are encoded for storage."""
        #: The last try of ``change``: the served objects it saw ("live") and made ("changed"),
        #: and whether it started from the version's cache ("from_cache").
        tried: dict[str, Any] = {}

        def change_served(stored: Json) -> Json:
            live, tried["from_cache"] = self._update_start(stored)
            changed = self._typed(change(copy.deepcopy(live)))
            tried.update(live=live, changed=changed)
            # kube's store refuses a stale resourceVersion before it encodes the object for etcd
            self.storage.check_resource_version(name, changed["metadata"].get("resourceVersion"),
                                                int(stored["metadata"]["resourceVersion"]))
            return self._stored_object(self._managed(subresource, live, changed, manager))

        def stored_scales(new: Json, old: Json) -> tuple[Json, Json]:
            # the storage's strategy has prepared the metadata since, which every version shares
            assert scaled is not None
            return scaled({**tried["changed"], "metadata": new["metadata"]}, {**tried["live"], "metadata": old["metadata"]})

        try:
            with self._requested():
                written = self.storage.rewrite(namespace, name, change_served, subresource=subresource,
                                               dry_run=dry_run, scaled=scaled and stored_scales)
        except StatusError:
            self._after_failed_update(namespace, name, tried.get("from_cache", False))
            raise
        return self._served(written)

    def delete(
        self, namespace: str | None, name: str, options: DeleteOptions = DeleteOptions(), *,
        gc_finalizers: bool = False,
    ) -> tuple[bytes, bool]:
        with self._requested():
            current = self._existing_decoded(namespace, name)
            body, gone = self.storage.delete(namespace, name, options, gc_finalizers=gc_finalizers)
        if current is not None and gone:
            # kube decodes what etcd's delete answers, the last state, into the served version
            # (a call the webhook sees), though a custom resource's delete answers a Status.
            self._served_object(current)
        if not is_status(body):
            return self._served(body), gone
        if self.resource_type.group != self.storage.resource_type.group:
            status = orjson.loads(body)
            details = status["details"]
            status["details"] = {"name": details["name"], "group": self.resource_type.group,
                                 "kind": self.resource_type.plural, "uid": details["uid"]}
            body = orjson.dumps(status)
        return body, gone

    def delete_collection(
        self, namespace: str | None, opts: ListOptions, options: DeleteOptions = DeleteOptions(), *,
        gc_finalizers: bool = False, view: ResponseView | None = None,
    ) -> bytes:
        selection = None if self._ingested is None else self._converted_selection(opts)
        ingested = self._ingested
        selected = None if selection is None or ingested is None else (
            lambda o: selection(wait_for(ingested.converted_now(o.raw))))
        return self.storage.delete_collection(namespace, opts, options, gc_finalizers=gc_finalizers,
                                              view=self._served_view(view), field_labels=self.resource_type,
                                              selected=selected)

    # ----------------------------------------------------------------- scale

    def get_scale(self, namespace: str | None, name: str) -> bytes:
        """kube's ``ScaleREST.Get`` of this version: the object read in it (converted as a GET
        converts it), its Scale by this version's ``scale_paths``."""
        return orjson.dumps(scale.to_scale(orjson.loads(self.get(namespace, name)), self.scale_paths))


def _encoded(convert: Convert) -> Callable[[bytes], bytes]:
    """``convert`` of JSON objects as a conversion of their encodings."""
    def encode(raw: bytes) -> bytes:
        return orjson.dumps(convert(orjson.loads(raw)))
    return encode
