"""The namespace controller (kube-controller-manager's ``namespace`` controller): a namespace
marked for deletion has its contents deleted (objects with finalizers stay until those go),
and once it is empty its ``kubernetes`` finalizer is removed through ``/finalize``, which
deletes it."""

from __future__ import annotations

import logging
from collections.abc import Hashable

import orjson

from ..cacher import DELETED, CacheEvent, CachedObject
from ..machinery.delete_options import BACKGROUND, DeleteOptions
from ..machinery.list_options import ListOptions
from ..registry.namespaces import TERMINATING, NamespaceStore
from ..registry.registry import Registry
from ..registry.rest import ResourceStore
from ..registry.strategy import NAMESPACE_FINALIZER
from .workqueue import WorkQueue

log = logging.getLogger("fakeapi.controllers")

_BACKGROUND = DeleteOptions(propagation_policy=BACKGROUND)


class NamespaceController:
    def __init__(self, registry: Registry, *, gc_finalizers: bool) -> None:
        self.registry = registry
        self.namespaces: NamespaceStore = registry.namespaces
        self._gc_finalizers = gc_finalizers
        self._terminating: set[str] = set()
        self.queue = WorkQueue("namespace-controller", self._process)
        self.namespaces.cacher.listeners.append(self._observe_namespace)
        for resource_store in registry.stores():
            self._watch(resource_store)
        registry.on_resource_added.append(self._watch)

    def _watch(self, resource_store: ResourceStore) -> None:
        if resource_store.resource_type.namespaced:
            resource_store.cacher.listeners.append(self._observe_content)

    def start(self) -> None:
        for cached in self.namespaces.cacher.snapshot("", None):  # Terminating before a restart
            self._note_namespace(cached)
        self.queue.start()

    async def stop(self) -> None:
        await self.queue.stop()

    def _observe_namespace(self, event: CacheEvent) -> None:
        name = event.obj.name
        if event.type == DELETED:
            self._terminating.discard(name)
        else:
            self._note_namespace(event.obj)

    def _note_namespace(self, cached: CachedObject) -> None:
        if b'"deletionTimestamp"' in cached.raw:
            self._terminating.add(cached.name)
            self.queue.add(cached.name)

    def _observe_content(self, event: CacheEvent) -> None:
        if event.type == DELETED and event.obj.namespace in self._terminating:
            self.queue.add(event.obj.namespace)

    def _process(self, key: Hashable) -> None:
        name = str(key)
        if self.namespaces.phase(name) != TERMINATING:
            return
        remaining = 0
        for resource_store in self.registry.stores():
            if not resource_store.resource_type.namespaced:
                continue
            if resource_store.count(name):
                resource_store.delete_collection(name, ListOptions(), _BACKGROUND, gc_finalizers=self._gc_finalizers)
                remaining += resource_store.count(name)
        if remaining:
            return  # objects held by finalizers: their DELETED events bring the namespace back
        namespace = orjson.loads(self.namespaces.get(None, name))
        finalizers = [f for f in (namespace.get("spec") or {}).get("finalizers") or [] if f != NAMESPACE_FINALIZER]
        log.info("namespace controller: %s is empty, finalizing", name)
        self.namespaces.finalize(name, {"spec": {"finalizers": finalizers}})
