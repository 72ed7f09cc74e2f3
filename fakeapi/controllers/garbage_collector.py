"""The garbage collector (kube-controller-manager's ``garbagecollector``), reduced to what its
clients observe:

* **Background**: when an owner is gone, each dependent (an object whose
  ``metadata.ownerReferences`` holds the owner's uid) is deleted if none of its owners exists
  any more; otherwise the dangling reference is removed from it.
* **Foreground**: an owner being deleted with the ``foregroundDeletion`` finalizer has its
  dependents deleted; once none is left the finalizer is removed and the owner goes.
* **Orphan**: an owner being deleted with the ``orphan`` finalizer has its reference removed
  from every dependent, then the finalizer is removed.

Owners are checked the way kube checks them: by looking the referenced kind and name up and
comparing uids. The dependents index is built from the objects in the watch caches when it
starts (a store loaded from disk or a snapshot has them), then from the caches' events.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Hashable
from typing import Any

import orjson

from ..cacher import DELETED, CacheEvent, CachedObject
from ..machinery.delete_options import BACKGROUND, DeleteOptions
from ..machinery.status import StatusError
from ..registry.registry import Registry
from ..registry.rest import ResourceStore
from .workqueue import WorkQueue

log = logging.getLogger("fakeapi.controllers")

FOREGROUND_FINALIZER = "foregroundDeletion"
ORPHAN_FINALIZER = "orphan"
_BACKGROUND = DeleteOptions(propagation_policy=BACKGROUND)
#: Objects indexed per loop step by the initial sync: requests are served in between.
SYNC_STEP = 1000

#: A dependent (or an owner) by where it is stored.
ObjectRef = tuple[ResourceStore, str | None, str]  # (resource, namespace, name)


class GarbageCollector:
    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.dependents: dict[str, set[ObjectRef]] = {}  # owner uid -> dependents
        self._owners_of: dict[ObjectRef, tuple[str, ...]] = {}  # dependent -> owner uids
        self._deleting: dict[str, ObjectRef] = {}  # uid -> owner waiting on a GC finalizer
        self.queue = WorkQueue("garbage-collector", self._process)
        for resource_store in registry.stores():
            self._watch(resource_store)
        registry.on_resource_added.append(self._watch)

    def _watch(self, resource_store: ResourceStore) -> None:
        resource_store.cacher.listeners.append(lambda event: self._observe(resource_store, event))

    def start(self) -> None:
        self.queue.start(self._sync_existing)

    async def stop(self) -> None:
        await self.queue.stop()

    async def _sync_existing(self) -> None:
        """Index the objects the caches held at start, as kube's collector lists every resource
        before it acts, and collect the dependents of owners already gone. Work is queued
        meanwhile and waits for this. An object changed since the start was indexed by its event
        and is skipped; one with neither owners nor a deletion under way needs no index, and is
        not decoded."""
        owner_refs: dict[str, tuple[dict[str, Any], str | None]] = {}
        done = 0
        for resource_store in self.registry.stores():
            current = resource_store.cacher.cache.objects
            for cached in resource_store.cacher.snapshot("", None):
                done += 1
                if done % SYNC_STEP == 0:
                    await asyncio.sleep(0)
                if current.get(cached.key) is not cached:
                    continue
                if b'"ownerReferences"' not in cached.raw and b'"deletionTimestamp"' not in cached.raw:
                    continue
                meta = self._note(resource_store, cached, deleted=False)
                for owner in meta.get("ownerReferences") or ():
                    owner_refs.setdefault(owner.get("uid", ""), (owner, cached.namespace or None))
        for done, (uid, (owner, namespace)) in enumerate(owner_refs.items(), 1):
            if done % SYNC_STEP == 0:
                await asyncio.sleep(0)
            if uid in self.dependents and not self._owner_exists(owner, namespace):
                self.queue.add(uid)

    # ----------------------------------------------------------------- observing

    def _observe(self, resource_store: ResourceStore, event: CacheEvent) -> None:
        self._note(resource_store, event.obj, event.type == DELETED)

    def _note(self, resource_store: ResourceStore, cached: CachedObject, deleted: bool) -> dict[str, Any]:
        """Index one object's state (``deleted``: its last one); returns its metadata."""
        ref: ObjectRef = (resource_store, cached.namespace or None, cached.name)
        meta = orjson.loads(cached.raw).get("metadata", {})
        uid = meta.get("uid", "")
        owners = () if deleted else tuple(o.get("uid", "") for o in meta.get("ownerReferences") or ())
        self._index(ref, owners)
        if deleted:
            self._deleting.pop(uid, None)
            if uid in self.dependents:
                self.queue.add(uid)
            for owner_uid in self._owners_before_delete(meta):
                if owner_uid in self._deleting:
                    self.queue.add(owner_uid)  # a foreground owner may now be free to go
        elif meta.get("deletionTimestamp") and {FOREGROUND_FINALIZER, ORPHAN_FINALIZER} & set(meta.get("finalizers") or ()):
            self._deleting[uid] = ref
            self.queue.add(uid)
        return meta

    @staticmethod
    def _owners_before_delete(meta: dict[str, Any]) -> tuple[str, ...]:
        return tuple(o.get("uid", "") for o in meta.get("ownerReferences") or ())

    def _index(self, ref: ObjectRef, owners: tuple[str, ...]) -> None:
        before = self._owners_of.get(ref, ())
        if before == owners:
            return
        for uid in set(before) - set(owners):
            deps = self.dependents.get(uid)
            if deps is not None:
                deps.discard(ref)
                if not deps:
                    del self.dependents[uid]
        for uid in set(owners) - set(before):
            self.dependents.setdefault(uid, set()).add(ref)
        if owners:
            self._owners_of[ref] = owners
        else:
            self._owners_of.pop(ref, None)

    # ----------------------------------------------------------------- acting

    def _process(self, key: Hashable) -> None:
        uid = str(key)
        owner = self._deleting.get(uid)
        if owner is not None:
            self._process_deleting_owner(uid, owner)
        else:
            self._process_absent_owner(uid)

    def _process_deleting_owner(self, uid: str, owner: ObjectRef) -> None:
        resource_store, namespace, name = owner
        current = self._load(owner)
        if current is None or current["metadata"].get("uid") != uid:
            return
        finalizers = current["metadata"].get("finalizers") or []
        dependents = list(self.dependents.get(uid, ()))
        if ORPHAN_FINALIZER in finalizers:
            for dep in dependents:
                self._drop_owner_references(dep, {uid})
            self._remove_finalizer(owner, ORPHAN_FINALIZER)
        elif FOREGROUND_FINALIZER in finalizers:
            if dependents:
                for dep in dependents:
                    self._delete(dep)
            else:
                self._remove_finalizer(owner, FOREGROUND_FINALIZER)

    def _process_absent_owner(self, uid: str) -> None:
        for dep in list(self.dependents.get(uid, ())):
            current = self._load(dep)
            if current is None:
                continue
            refs = current["metadata"].get("ownerReferences") or []
            gone = {r.get("uid") for r in refs if not self._owner_exists(r, dep[1])}
            if len(gone) == len(refs):
                self._delete(dep)
            elif gone:
                self._drop_owner_references(dep, gone)

    # ----------------------------------------------------------------- helpers

    def _load(self, ref: ObjectRef) -> dict[str, Any] | None:
        resource_store, namespace, name = ref
        try:
            return orjson.loads(resource_store.get(namespace, name))
        except StatusError:
            return None

    def _owner_exists(self, owner_ref: dict[str, Any], namespace: str | None) -> bool:
        api_version = owner_ref.get("apiVersion", "")
        group = api_version.rpartition("/")[0]
        served = self.registry.resource_for_kind(group, owner_ref.get("kind", ""))
        if served is None:
            return False
        obj = self._load((served, namespace if served.resource_type.namespaced else None, owner_ref.get("name", "")))
        return obj is not None and obj["metadata"].get("uid") == owner_ref.get("uid")

    def _delete(self, ref: ObjectRef) -> None:
        resource_store, namespace, name = ref
        log.info("garbage collector: deleting %s %s/%s", resource_store.resource_type.plural, namespace or "", name)
        resource_store.delete(namespace, name, _BACKGROUND, gc_finalizers=True)

    def _drop_owner_references(self, ref: ObjectRef, uids: set[str]) -> None:
        resource_store, namespace, name = ref

        def drop(obj: dict[str, Any]) -> dict[str, Any]:
            refs = [r for r in obj["metadata"].get("ownerReferences") or [] if r.get("uid") not in uids]
            if refs:
                obj["metadata"]["ownerReferences"] = refs
            else:
                obj["metadata"].pop("ownerReferences", None)
            return obj

        resource_store.rewrite(namespace, name, drop)

    def _remove_finalizer(self, ref: ObjectRef, finalizer: str) -> None:
        resource_store, namespace, name = ref

        def remove(obj: dict[str, Any]) -> dict[str, Any]:
            obj["metadata"]["finalizers"] = [f for f in obj["metadata"].get("finalizers") or [] if f != finalizer]
            return obj

        resource_store.rewrite(namespace, name, remove)
