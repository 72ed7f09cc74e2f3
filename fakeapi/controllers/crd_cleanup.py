"""The CRD finalizer (apiextensions-apiserver's ``finalizer`` controller): a CRD marked for
deletion has every object of its resource deleted, then its
``customresourcecleanup.apiextensions.k8s.io`` finalizer removed, which deletes it (and the
registry stops serving the resource)."""

from __future__ import annotations

import logging
from collections.abc import Hashable

import orjson

from ..cacher import DELETED, CacheEvent, CachedObject
from ..machinery.delete_options import BACKGROUND, DeleteOptions
from ..machinery.list_options import ListOptions
from ..registry.custom_resources import CLEANUP_FINALIZER
from ..registry.registry import Registry
from ..registry.rest import Json, ResourceStore
from .workqueue import WorkQueue

log = logging.getLogger("fakeapi.controllers")

_BACKGROUND = DeleteOptions(propagation_policy=BACKGROUND)


class CustomResourceCleanup:
    def __init__(self, registry: Registry, *, gc_finalizers: bool) -> None:
        self.registry = registry
        self._gc_finalizers = gc_finalizers
        self._stores: dict[str, ResourceStore] = {}  # CRD name -> its objects' store, while terminating
        self.queue = WorkQueue("crd-cleanup", self._process)
        registry.definitions.cacher.listeners.append(self._observe_definition)

    def start(self) -> None:
        for cached in self.registry.definitions.cacher.snapshot("", None):  # deleted before a restart
            self._note_definition(cached)
        self.queue.start()

    async def stop(self) -> None:
        await self.queue.stop()

    def _observe_definition(self, event: CacheEvent) -> None:
        if event.type != DELETED:
            self._note_definition(event.obj)

    def _note_definition(self, cached: CachedObject) -> None:
        if b'"deletionTimestamp"' in cached.raw:
            self.queue.add(cached.name)

    def _observe_objects(self, crd_name: str, event: CacheEvent) -> None:
        if event.type == DELETED:
            self.queue.add(crd_name)  # one fewer: maybe the last

    def _process(self, key: Hashable) -> None:
        name = str(key)
        crd: Json = orjson.loads(self.registry.definitions.get(None, name))
        if CLEANUP_FINALIZER not in (crd["metadata"].get("finalizers") or ()):
            return
        spec = crd.get("spec") or {}
        served = self.registry.resource_for_kind(spec.get("group", ""), (crd.get("status") or {}).get(
            "acceptedNames", {}).get("kind", ""))
        if served is not None and served.count():
            if name not in self._stores:
                self._stores[name] = served
                served.cacher.listeners.append(lambda event: self._observe_objects(name, event))
            served.delete_collection(None, ListOptions(), _BACKGROUND, gc_finalizers=self._gc_finalizers)
            if served.count():
                return  # objects held by finalizers: their DELETED events bring the CRD back
        log.info("crd cleanup: %s has no objects left, removing its finalizer", name)

        def remove_finalizer(obj: Json) -> Json:
            obj["metadata"]["finalizers"] = [f for f in obj["metadata"].get("finalizers") or () if f != CLEANUP_FINALIZER]
            return obj

        self._stores.pop(name, None)
        self.registry.definitions.rewrite(None, name, remove_finalizer)
