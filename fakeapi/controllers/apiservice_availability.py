"""kube-aggregator's availability controllers (``pkg/controllers/status/local`` and ``remote``),
which run inside kube-apiserver itself: they write each APIService's ``Available`` condition
through ``/status`` as the field manager ``kube-apiserver``.

* A local APIService (no service) is Available, reason ``Local`` (its create already says so;
  the controller puts it back when a client changed it).
* A service-backed one is unavailable when its Service is missing (``ServiceNotFound``), or, for
  a ClusterIP Service, when the Service has no port of the APIService's port
  (``ServicePortError``), when no EndpointSlice names the Service (``EndpointsNotFound``), or
  when no ready endpoint of theirs has a port of the Service port's name (``MissingEndpoints``).

What kube decides next, by calling the backend (``GET /apis/<group>/<version>`` at the Service's
address: ``FailedDiscoveryCheck`` or ``Passed``), is not done: fakeapi's Services have no
addresses to call. An APIService that passes every check above keeps the condition it has.

As kube's, a change to an APIService looks at it again; a change to a Service or to an
EndpointSlice (by its ``kubernetes.io/service-name`` label) looks again at the APIServices that
name that Service.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable
from typing import Any

import orjson

from ..apis.apiregistration.conditions import available_condition, local_available_condition, set_condition
from ..cacher import DELETED, CacheEvent, CachedObject
from ..machinery.golang import go_quote
from ..machinery.metadata import now_rfc3339
from ..registry.registry import Registry
from .workqueue import WorkQueue

MANAGER = "kube-apiserver"
#: ``discoveryv1.LabelServiceName``.
SERVICE_NAME_LABEL = "kubernetes.io/service-name"

Json = dict[str, Any]


class APIServiceAvailability:
    def __init__(self, registry: Registry) -> None:
        self.api_services = registry.resources[("apiregistration.k8s.io", "v1", "apiservices")].storage
        self.services = registry.resources[("", "v1", "services")].storage
        self.endpoint_slices = registry.resources[("discovery.k8s.io", "v1", "endpointslices")].storage
        self.queue = WorkQueue("apiservice-availability", self._process)
        #: By APIService name: the (namespace, name) of its Service, for the service-backed ones.
        self._backends: dict[str, tuple[str, str]] = {}
        self.api_services.cacher.listeners.append(self._observe_api_service)
        self.services.cacher.listeners.append(self._observe_service)
        self.endpoint_slices.cacher.listeners.append(self._observe_endpoint_slice)

    def start(self) -> None:
        for cached in self.api_services.cacher.snapshot("", None):  # stored before a restart
            self._note_api_service(cached)
        self.queue.start()

    async def stop(self) -> None:
        await self.queue.stop()

    def _observe_api_service(self, event: CacheEvent) -> None:
        if event.type == DELETED:
            self._backends.pop(event.obj.name, None)
        else:
            self._note_api_service(event.obj)

    def _note_api_service(self, cached: CachedObject) -> None:
        service = (orjson.loads(cached.raw).get("spec") or {}).get("service")
        if service is None:
            self._backends.pop(cached.name, None)
        else:
            self._backends[cached.name] = (service.get("namespace") or "", service.get("name") or "")
        self.queue.add(cached.name)

    def _observe_service(self, event: CacheEvent) -> None:
        self._enqueue_backed_by(event.obj.namespace, event.obj.name)

    def _observe_endpoint_slice(self, event: CacheEvent) -> None:
        # kube looks at the slice's labels before an update; after it too, for a slice that
        # changed Services, rather than wait for the next resync.
        for cached in (event.prev, event.obj):
            if cached is not None and cached.labels.get(SERVICE_NAME_LABEL):
                self._enqueue_backed_by(cached.namespace, cached.labels[SERVICE_NAME_LABEL])

    def _enqueue_backed_by(self, namespace: str, name: str) -> None:
        for api_service, backend in self._backends.items():
            if backend == (namespace, name):
                self.queue.add(api_service)

    def _process(self, key: Hashable) -> None:
        name = str(key)
        cached = self.api_services.cacher.cache.objects.get(self.api_services.key(None, name))
        if cached is None:
            return
        original = orjson.loads(cached.raw)
        api_service = copy.deepcopy(original)
        condition = self._condition(api_service.get("spec") or {})
        if condition is None:
            return
        set_condition(api_service, condition)
        if api_service.get("status") == original.get("status"):
            return
        self.api_services.update(None, name, api_service, subresource="status", manager=MANAGER)

    def _condition(self, spec: Json) -> Json | None:
        """The Available condition the checks decide (None: only the backend could tell)."""
        now = now_rfc3339()
        reference = spec.get("service")
        if reference is None:
            return local_available_condition(now)
        namespace, name, port = reference.get("namespace") or "", reference.get("name") or "", reference.get("port")
        where = f"service/{name} in {go_quote(namespace)}"
        cached = self.services.cacher.cache.objects.get(self.services.key(namespace, name))
        if cached is None:
            return available_condition("False", "ServiceNotFound", f"{where} is not present", now)
        service_spec = orjson.loads(cached.raw).get("spec") or {}
        if service_spec.get("type", "ClusterIP") != "ClusterIP":
            return None
        service_port = next((p for p in service_spec.get("ports") or () if p.get("port") == port), None)
        if service_port is None:
            return available_condition("False", "ServicePortError", f"{where} is not listening on port {port}", now)
        port_name = service_port.get("name") or ""
        slices = [orjson.loads(s.raw) for s in self.endpoint_slices.cacher.snapshot(
            *self.endpoint_slices.key_range(namespace)) if s.labels.get(SERVICE_NAME_LABEL) == name]
        if not slices:
            return available_condition("False", "EndpointsNotFound", f"cannot find endpointslices for {where}", now)
        if not any(_serves(endpoint_slice, port_name) for endpoint_slice in slices):
            return available_condition("False", "MissingEndpoints",
                                       f"endpointslices for {where} have no addresses with port name {go_quote(port_name)}", now)
        return None


def _serves(endpoint_slice: Json, port_name: str) -> bool:
    """Whether a slice has a ready endpoint (readiness unknown counts as ready) and a port of
    ``port_name`` with a number."""
    ready = any((endpoint.get("conditions") or {}).get("ready") is not False
                for endpoint in endpoint_slice.get("endpoints") or ())
    return ready and any(port.get("name") == port_name and port.get("port") is not None
                         for port in endpoint_slice.get("ports") or ())
