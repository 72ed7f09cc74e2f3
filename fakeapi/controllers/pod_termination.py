"""What a kubelet does for a pod deleted gracefully, for the kubelets fakeapi has none of (kwok's
fake kubelet does the same): a scheduled pod that a delete marked (deletionTimestamp, a grace
period) has its containers stopped at once, and is deleted with grace period 0 — so clients see
kube's two steps (MODIFIED with the deletionTimestamp, then DELETED) without waiting out the
period. Turned off (``--controllers``) when kwok or a test plays the kubelets."""

from __future__ import annotations

import logging
from collections.abc import Hashable

import orjson

from ..cacher import DELETED, CacheEvent
from ..machinery.delete_options import DeleteOptions
from ..registry.registry import Registry
from .workqueue import WorkQueue

log = logging.getLogger("fakeapi.controllers")


class PodTermination:
    def __init__(self, registry: Registry, *, gc_finalizers: bool) -> None:
        pods = registry.resource_for_kind("", "Pod")
        assert pods is not None, "pods are always served"
        self.pods = pods
        self._gc_finalizers = gc_finalizers
        self.queue = WorkQueue("pod-termination", self._process)
        pods.cacher.listeners.append(self._observe)

    def start(self) -> None:
        for cached in self.pods.cacher.snapshot("", None):  # marked before a restart
            if b'"deletionGracePeriodSeconds"' in cached.raw:
                self.queue.add((cached.namespace, cached.name))
        self.queue.start()

    async def stop(self) -> None:
        await self.queue.stop()

    def _observe(self, event: CacheEvent) -> None:
        # Cheap test first: only a pod marked for deletion carries deletionGracePeriodSeconds.
        if event.type != DELETED and b'"deletionGracePeriodSeconds"' in event.obj.raw:
            self.queue.add((event.obj.namespace, event.obj.name))

    def _process(self, key: Hashable) -> None:
        namespace, name = key  # type: ignore[misc]
        pod = orjson.loads(self.pods.get(namespace, name))
        meta = pod["metadata"]
        if not meta.get("deletionGracePeriodSeconds"):
            return  # not marked, or already at period 0 (finalizers hold it)
        log.debug("pod termination: %s/%s stopped, deleting it", namespace, name)
        # The kubelet's status manager: period 0, and only this pod (not one recreated meanwhile).
        self.pods.delete(namespace, name, DeleteOptions(grace_period_seconds=0, precondition_uid=meta["uid"]),
                         gc_finalizers=self._gc_finalizers)
