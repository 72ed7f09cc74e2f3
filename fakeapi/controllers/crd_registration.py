"""kube-aggregator's ``crdregistration`` and ``autoregister`` controllers, which run inside
kube-apiserver: every group version a CustomResourceDefinition serves has a local APIService,
``<version>.<group>`` (``groupPriorityMinimum`` 1000, ``versionPriority`` 100, labelled
``kube-aggregator.kubernetes.io/automanaged: "true"``), written by ``kube-apiserver``; when no
definition serves that group version any more, the APIService is deleted.

Only APIServices so labelled are the controller's: one a user created for the group version
(without the label, or managed ``onstart``) is left alone, as kube's ``autoregister`` leaves it.
A definition's change looks again at the group versions it served before and serves now, and a
change to an APIService labelled ``"true"`` at its group version (one deleted or edited by a
user is put back, as kube's ``autoregister`` keeps its APIServices); at start every served
group version and every APIService labelled ``"true"`` is looked at (a definition deleted while
the server was down leaves one behind).
"""

from __future__ import annotations

from collections.abc import Hashable

import orjson

from ..cacher import CacheEvent, CachedObject
from ..registry.registry import Registry
from .workqueue import WorkQueue

MANAGER = "kube-apiserver"
AUTOMANAGED_LABEL = "kube-aggregator.kubernetes.io/automanaged"
#: crdregistration's priorities: a custom resource's group comes after every built-in one, and
#: its versions are ordered as kube orders versions.
GROUP_PRIORITY_MINIMUM = 1000
VERSION_PRIORITY = 100


class CRDRegistration:
    def __init__(self, registry: Registry) -> None:
        self.definitions = registry.definitions
        self.api_services = registry.resources[("apiregistration.k8s.io", "v1", "apiservices")].storage
        self.queue = WorkQueue("crd-registration", self._process)
        self.definitions.cacher.listeners.append(self._observe_definition)
        self.api_services.cacher.listeners.append(self._observe_api_service)

    def start(self) -> None:
        for cached in self.definitions.cacher.snapshot("", None):
            self._enqueue_served(cached)
        for cached in self.api_services.cacher.snapshot("", None):
            if cached.labels.get(AUTOMANAGED_LABEL) == "true":
                self._enqueue_named(cached.name)
        self.queue.start()

    async def stop(self) -> None:
        await self.queue.stop()

    def _observe_definition(self, event: CacheEvent) -> None:
        for cached in (event.prev, event.obj):
            if cached is not None:
                self._enqueue_served(cached)

    def _observe_api_service(self, event: CacheEvent) -> None:
        for cached in (event.prev, event.obj):
            if cached is not None and cached.labels.get(AUTOMANAGED_LABEL) == "true":
                self._enqueue_named(cached.name)

    def _enqueue_named(self, name: str) -> None:
        version, _, group = name.partition(".")
        self.queue.add((group, version))

    def _enqueue_served(self, cached: CachedObject) -> None:
        for group_version in _served(orjson.loads(cached.raw)):
            self.queue.add(group_version)

    def _process(self, key: Hashable) -> None:
        group, version = key  # type: ignore[misc]
        name = f"{version}.{group}"
        served = any((group, version) in _served(orjson.loads(cached.raw))
                     for cached in self.definitions.cacher.snapshot("", None))
        existing = self.api_services.cacher.cache.objects.get(self.api_services.key(None, name))
        if existing is not None and existing.labels.get(AUTOMANAGED_LABEL) != "true":
            return  # not the controller's
        # A write that fails as written meanwhile (another API process of --workers was first)
        # is the work queue's to log: that write's event has the key looked at again.
        if not served:
            if existing is not None:
                self.api_services.delete(None, name)
            return
        spec = {"group": group, "version": version, "groupPriorityMinimum": GROUP_PRIORITY_MINIMUM,
                "versionPriority": VERSION_PRIORITY}
        if existing is None:
            self.api_services.create(None, {"metadata": {"name": name, "labels": {AUTOMANAGED_LABEL: "true"}},
                                            "spec": spec}, manager=MANAGER)
            return
        api_service = orjson.loads(existing.raw)
        if api_service.get("spec") != spec:  # changed by someone: put back
            api_service["spec"] = spec
            self.api_services.update(None, name, api_service, manager=MANAGER)


def _served(definition: dict) -> set[tuple[str, str]]:
    """The group versions a definition serves."""
    spec = definition.get("spec") or {}
    return {(spec.get("group") or "", version.get("name") or "") for version in spec.get("versions") or ()
            if version.get("served")}
