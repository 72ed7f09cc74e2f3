"""kube-aggregator's availability controllers (``pkg/controllers/status/local`` and ``remote``),
which run inside kube-apiserver itself: they write each APIService's ``Available`` condition
through ``/status`` as the field manager ``kube-apiserver``.

* A local APIService (no service) is Available, reason ``Local`` (its create already says so;
  the controller puts it back when a client changed it).
* A service-backed one is unavailable when its Service is missing (``ServiceNotFound``), or, for
  a ClusterIP Service, when the Service has no port of the APIService's port
  (``ServicePortError``), when no EndpointSlice names the Service (``EndpointsNotFound``), or
  when no ready endpoint of theirs has a port of the Service port's name (``MissingEndpoints``).
* Past those checks (at once for other Service types), the backend is asked for its discovery
  document, ``GET /apis/<group>/<version>`` over HTTPS without verifying its certificate, as
  ``system:kube-aggregator`` in ``system:masters`` (the authenticating proxy's headers, and its
  client certificate when the server has one): a 2xx
  answer within 5 s is ``Passed``, anything else ``FailedDiscoveryCheck`` with Go's error text
  (``bad status from <url>: 404``, ``dial tcp ...: connect: connection refused``, ``context
  deadline exceeded (Client.Timeout exceeded while awaiting headers)``); a failed check is tried
  again after a growing delay (kube's rate limiter: 5 ms doubling up to 30 s). The backend's
  address is an ExternalName Service's name, else one of the Service's ready endpoints (kube's
  resolver with ``--enable-aggregator-routing``, as fakeapi's admission webhooks are called:
  fakeapi's cluster IPs lead nowhere). kube makes five calls at once and takes the first
  success; one is made here.

As kube's, a change to an APIService looks at it again; a change to a Service or to an
EndpointSlice (by its ``kubernetes.io/service-name`` label) looks again at the APIServices that
name that Service; and every APIService is looked at again every 30 s (the informer's resync),
so a backend that went away or came back is noticed.
"""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from ..apis.apiregistration.conditions import (
    AVAILABLE,
    available_condition,
    local_available_condition,
    set_condition,
)
from ..apis.apiregistration.transport import ClientFiles, backend_tls_context
from ..apis.discovery.endpoints import SERVICE_NAME_LABEL, host_port, ready_addresses
from ..cacher import DELETED, CacheEvent, CachedObject
from ..machinery.golang import go_quote
from ..machinery.metadata import now_rfc3339
from ..machinery.status import StatusError
from ..registry.registry import Registry
from ..runtime import cancel_and_wait
from .workqueue import WorkQueue

if TYPE_CHECKING:
    import aiohttp
    from prometheus_client.core import Metric

MANAGER = "kube-apiserver"
#: ``discoveryv1.LabelServiceName``.
#: The discovery call's client timeout, and the authenticating proxy's headers it carries.
DISCOVERY_TIMEOUT = 5.0
_PROXY_HEADERS = {"X-Remote-User": "system:kube-aggregator", "X-Remote-Group": "system:masters"}
#: The informer's resync period, and the work queue's rate limiter (first delay, longest).
RESYNC_PERIOD = 30.0
_FIRST_RETRY, _LAST_RETRY = 0.005, 30.0

Json = dict[str, Any]


class APIServiceAvailability:
    """``client_files``: the front proxy's client certificate and key, presented to backends."""

    def __init__(self, registry: Registry, client_files: ClientFiles | None = None) -> None:
        self.client_files = client_files
        self.api_services = registry.resources[("apiregistration.k8s.io", "v1", "apiservices")].storage
        self.services = registry.resources[("", "v1", "services")].storage
        self.endpoint_slices = registry.resources[("discovery.k8s.io", "v1", "endpointslices")].storage
        self.queue = WorkQueue("apiservice-availability", self._process)
        #: By APIService name: the (namespace, name) of its Service, for the service-backed ones.
        self._backends: dict[str, tuple[str, str]] = {}
        #: By APIService name: its discovery call under way; whether it is to be looked at again
        #: once the call is done; how many checks in a row failed, and the timer of the next.
        self._calls: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._failures: dict[str, int] = {}
        self._retries: dict[str, asyncio.TimerHandle] = {}
        self._session: aiohttp.ClientSession | None = None
        #: aggregator_unavailable_apiservice_total by (APIService name, reason).
        self.unavailable_counts: dict[tuple[str, str], int] = {}
        self._resync: asyncio.Task[None] | None = None
        self.api_services.cacher.listeners.append(self._observe_api_service)
        self.services.cacher.listeners.append(self._observe_service)
        self.endpoint_slices.cacher.listeners.append(self._observe_endpoint_slice)

    def start(self) -> None:
        for cached in self.api_services.cacher.snapshot("", None):  # stored before a restart
            self._note_api_service(cached)
        self.queue.start()
        self._resync = asyncio.create_task(self._resync_periodically(), name="apiservice-availability-resync")

    async def stop(self) -> None:
        for handle in self._retries.values():
            handle.cancel()
        await cancel_and_wait([self._resync, *self._calls.values()])
        await self.queue.stop()
        if self._session is not None:
            await self._session.close()

    async def _resync_periodically(self) -> None:
        while True:
            await asyncio.sleep(RESYNC_PERIOD)
            for cached in self.api_services.cacher.snapshot("", None):
                self.queue.add(cached.name)

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
        if name in self._calls:
            self._again.add(name)  # the call under way may answer for a spec gone since
            return
        cached = self.api_services.cacher.cache.objects.get(self.api_services.key(None, name))
        if cached is None:
            self._forget(name)
            return
        spec = orjson.loads(cached.raw).get("spec") or {}
        condition, url = self._checks(spec)
        if condition is not None:
            self._write(name, condition)
            self._forget(name)
        else:
            self._calls[name] = asyncio.create_task(self._discover(name, spec, url), name=f"discovery {name}")

    def _forget(self, name: str) -> None:
        self._failures.pop(name, None)
        handle = self._retries.pop(name, None)
        if handle is not None:
            handle.cancel()

    def _write(self, name: str, condition: Json) -> None:
        """``SetAPIServiceCondition`` on the APIService as cached now, written through ``/status``
        unless that changes nothing."""
        cached = self.api_services.cacher.cache.objects.get(self.api_services.key(None, name))
        if cached is None:
            return
        original = orjson.loads(cached.raw)
        api_service = copy.deepcopy(original)
        set_condition(api_service, condition)
        if api_service.get("status") != original.get("status"):
            self.api_services.update(None, name, api_service, subresource="status", manager=MANAGER)
            if _available(original) and not _available(api_service):  # kube's setUnavailableCounter
                key = (name, condition["reason"])
                self.unavailable_counts[key] = self.unavailable_counts.get(key, 0) + 1

    def collect(self) -> Iterator[Metric]:
        """kube-aggregator's metrics of availability (``pkg/controllers/status/metrics``): a gauge
        of each APIService, 1 when it is not Available; how often each became unavailable, by
        the reason it then had (no series until one did)."""
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily  # at the first scrape

        gauge = GaugeMetricFamily("aggregator_unavailable_apiservice", "Gauge of APIServices which are marked as "
                                  "unavailable broken down by APIService name.", labels=["name"])
        for cached in self.api_services.cacher.snapshot("", None):
            gauge.add_metric([cached.name], 0.0 if _available(orjson.loads(cached.raw)) else 1.0)
        yield gauge
        if self.unavailable_counts:
            counter = CounterMetricFamily("aggregator_unavailable_apiservice", "Counter of APIServices which are "
                                          "marked as unavailable broken down by APIService name and reason.",
                                          labels=["name", "reason"])
            for key, count in self.unavailable_counts.items():
                counter.add_metric(list(key), count)
            yield counter

    def _checks(self, spec: Json) -> tuple[Json | None, str]:
        """The Available condition the checks that need no backend decide, or else the URL of the
        backend's discovery document to ask."""
        now = now_rfc3339()
        reference = spec.get("service")
        if reference is None:
            return local_available_condition(now), ""
        namespace, name, port = reference.get("namespace") or "", reference.get("name") or "", reference.get("port")
        where = f"service/{name} in {go_quote(namespace)}"
        cached = self.services.cacher.cache.objects.get(self.services.key(namespace, name))
        if cached is None:
            return available_condition("False", "ServiceNotFound", f"{where} is not present", now), ""
        service_spec = orjson.loads(cached.raw).get("spec") or {}
        service_type = service_spec.get("type", "ClusterIP")
        path = f"/api/{spec.get('version')}" if not spec.get("group") else f"/apis/{spec['group']}/{spec.get('version')}"
        if service_type == "ExternalName":
            return None, f"https://{host_port(service_spec.get('externalName') or '', port)}{path}"
        service_port = next((p for p in service_spec.get("ports") or () if p.get("port") == port), None)
        if service_port is None:
            if service_type == "ClusterIP":
                return available_condition("False", "ServicePortError", f"{where} is not listening on port {port}",
                                           now), ""
            return _failed_discovery(f"no service port {port} found for service {go_quote(name)}", now), ""
        port_name = service_port.get("name") or ""
        slices = [orjson.loads(s.raw) for s in self.endpoint_slices.cacher.snapshot(
            *self.endpoint_slices.key_range(namespace)) if s.labels.get(SERVICE_NAME_LABEL) == name]
        if not slices and service_type == "ClusterIP":
            return available_condition("False", "EndpointsNotFound", f"cannot find endpointslices for {where}", now), ""
        addresses = ready_addresses(slices, port_name)
        if not addresses:
            if service_type == "ClusterIP":
                return available_condition("False", "MissingEndpoints", f"endpointslices for {where} have no "
                                           f"addresses with port name {go_quote(port_name)}", now), ""
            return _failed_discovery(f"no endpoints available for service {go_quote(name)}", now), ""
        return None, f"https://{random.choice(addresses)}{path}"

    async def _discover(self, name: str, spec: Json, url: str) -> None:
        """Ask the backend for its discovery document; write what that says if the APIService
        still has the spec it was asked for, and look again later after a failure."""
        try:
            error = await self._get(url)
        finally:
            del self._calls[name]
        if name in self._again:
            self._again.discard(name)
            self.queue.add(name)
        cached = self.api_services.cacher.cache.objects.get(self.api_services.key(None, name))
        if cached is None or (orjson.loads(cached.raw).get("spec") or {}) != spec:
            return  # changed meanwhile: its event has it looked at again
        now = now_rfc3339()
        if error:
            failures = self._failures.get(name, 0)
            self._failures[name] = failures + 1
            delay = min(_FIRST_RETRY * 2 ** failures, _LAST_RETRY)
            previous = self._retries.get(name)
            if previous is not None:
                previous.cancel()
            self._retries[name] = asyncio.get_running_loop().call_later(delay, self.queue.add, name)
            condition = _failed_discovery(f"failing or missing response from {url}: {error}", now)
        else:
            self._forget(name)
            condition = available_condition("True", "Passed", "all checks passed", now)
        try:
            self._write(name, condition)
        except StatusError:  # written meanwhile: its event has it looked at again
            pass

    async def _get(self, url: str) -> str:
        """The discovery call's error as Go's client words it ("" for a 2xx answer)."""
        import aiohttp  # at the first call, as the webhooks' client: start-up without APIServices does not pay it

        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=backend_tls_context("", True, self.client_files), force_close=True),
                trust_env=False,
                timeout=aiohttp.ClientTimeout(total=DISCOVERY_TIMEOUT))
        try:
            async with self._session.get(url, headers=_PROXY_HEADERS, allow_redirects=False) as response:
                status = response.status
        except asyncio.TimeoutError:
            return f'Get "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
        except aiohttp.ClientConnectorError as err:
            reason = ("connect: connection refused" if isinstance(err.os_error, ConnectionRefusedError)
                      else err.os_error.strerror or str(err.os_error))
            return f'Get "{url}": dial tcp {host_port(err.host, err.port)}: {reason}'
        except aiohttp.ClientError as err:
            return f'Get "{url}": {err}'
        return "" if 200 <= status < 300 else f"bad status from {url}: {status}"


def _available(api_service: Json) -> bool:
    """``IsAPIServiceConditionTrue(apiService, Available)``."""
    conditions = (api_service.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == AVAILABLE and c.get("status") == "True" for c in conditions)


def _failed_discovery(message: str, now: str) -> Json:
    return available_condition("False", "FailedDiscoveryCheck", message, now)
