"""The composition root: one server's store, registry, caches, controllers, timers, faults and
metrics, built from a ``ServerConfig`` and started and stopped as one (kube's
``apiserver/pkg/server`` and ``pkg/controlplane``). The HTTP layer reads it; it never builds it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
from starlette.applications import Starlette

from ..clients import ClientReport
from ..controllers import (
    APIServiceAvailability,
    CRDRegistration,
    ClusterRoleAggregation,
    CustomResourceCleanup,
    FlowSchemaStatus,
    GarbageCollector,
    NamespaceController,
    PodTermination,
    PolicyStatus,
)
from ..faults.engine import Faults
from ..http import openapi
from ..http.aggregated_discovery import AggregatedDiscoveryManager
from ..http.app import http_app
from ..http.discovery import Discovery
from ..http.proxy import APIServiceProxy
from ..metrics.collector import ServerMetrics, version_labels
from ..metrics.storage_timing import TimedStore
from ..registry import versioner
from ..registry.registry import Registry
from ..runtime import cancel_and_wait
from ..store import FsyncPolicy, Journal, StoreTimers, snapshot
from .config import (CLUSTERROLE_AGGREGATION, GARBAGE_COLLECTOR, NAMESPACE_CONTROLLER, POD_TERMINATION, POLICY_STATUS,
                     ServerConfig)

if TYPE_CHECKING:
    from ..metrics.remote_store_timing import TimedRemoteStore

log = logging.getLogger("fakeapi")


class Server:
    """Everything one fakeapi instance owns; started and stopped with the app's lifespan."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store: TimedStore | TimedRemoteStore
        self.journal = None
        if config.etcd_servers:
            from ..metrics import remote_store_timing  # gRPC: loaded only for an etcd

            self.store = remote_store_timing.TimedRemoteStore(config.etcd_servers, versioner.with_resource_version,
                                                              socket_path=config.etcd_socket)
        else:
            self.store = TimedStore()
            self.store.max_request_bytes = config.max_request_bytes
            self.journal = _load_store(self.store, config)
        gc = config.garbage_collection
        self.registry = Registry(self.store, cacher_config=config.cacher, garbage_collection=gc,
                                 event_ttl=config.event_ttl, service_account_issuers=config.service_account_issuers,
                                 service_account_keys=config.service_account_keys,
                                 advertise_port=config.port or 443, access=config.access,
                                 admission_plugins=config.admission_plugins,
                                 extension_authentication=config.extension_authentication)
        self.controllers: list[GarbageCollector | NamespaceController | CustomResourceCleanup
                               | ClusterRoleAggregation | PodTermination | APIServiceAvailability
                               | CRDRegistration | FlowSchemaStatus | PolicyStatus] = []
        if GARBAGE_COLLECTOR in config.controllers:
            self.controllers.append(GarbageCollector(self.registry))
        if NAMESPACE_CONTROLLER in config.controllers:
            self.controllers.append(NamespaceController(self.registry, gc_finalizers=gc))
        if CLUSTERROLE_AGGREGATION in config.controllers:
            self.controllers.append(ClusterRoleAggregation(self.registry))
        if POLICY_STATUS in config.controllers:
            self.controllers.append(PolicyStatus(self.registry))
        if POD_TERMINATION in config.controllers:
            self.controllers.append(PodTermination(self.registry, gc_finalizers=gc))
        # kube-apiserver's own controllers: they run whatever --controllers says.
        self.controllers.append(CustomResourceCleanup(self.registry, gc_finalizers=gc))
        self.controllers.append(CRDRegistration(self.registry))
        self.controllers.append(FlowSchemaStatus(self.registry))
        availability = APIServiceAvailability(self.registry, config.proxy_client_files)
        self.controllers.append(availability)
        # kube-aggregator: requests for a service-backed APIService's group version go to its
        # server; its discovery is fetched from there and merged into the server's.
        self.proxy = APIServiceProxy(self.registry, config.proxy_client_files, config.limits.request_timeout)
        self.aggregated_discovery = AggregatedDiscoveryManager(self.proxy, self._aggregation_changed)
        self.discovery = Discovery(self.registry, f"{config.host}:{config.port}",
                                   lambda: self.aggregated_discovery.versions.values())
        self.openapi = openapi.OpenAPI(self.registry)
        self.registry.on_resources_changed.append(self._resources_changed)
        self.timers = StoreTimers(self.store, config.progress_interval)
        self.faults = Faults(self.registry, self.timers)
        self.metrics = ServerMetrics(self.registry, self.store, version_labels(orjson.loads(self.discovery.version)),
                                     self.faults.totals)
        self.clients = ClientReport(config.clients)
        self.metrics.collectors += [self.clients, availability]
        self._compactor: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.registry.start()
        for controller in self.controllers:
            controller.start()
        self.proxy.start()
        self.aggregated_discovery.start()
        self.timers.start()
        if self.config.compaction_interval > 0:
            self._compactor = asyncio.create_task(self._compact_periodically())
        for spec in self.config.faults:
            self.faults.apply(spec)

    async def stop(self) -> None:
        self.faults.clear()  # ends stalls, whose timers would outlive the loop's tasks
        await cancel_and_wait([self._compactor])
        for controller in self.controllers:
            await controller.stop()
        await self.aggregated_discovery.stop()
        await self.proxy.aclose()
        await self.timers.stop()
        await self.registry.stop()
        if self.journal is not None:
            self.journal.close()
        if not isinstance(self.store, TimedStore):  # the etcd client's
            await self.store.aclose()

    def _resources_changed(self) -> None:
        self.discovery.invalidate()
        self.openapi.sync_custom_resources(self.registry)

    def _aggregation_changed(self) -> None:
        self.discovery.invalidate()

    def compact(self, revision: int | None = None) -> int:
        """Compact at ``revision`` (etcd's answers: a revision compacted already or not yet
        written fails) or, when None, at the current revision: "compact now", done already when
        nothing was written since the last compaction (a quiet store compacted twice)."""
        rev = self.store.revision if revision is None else revision
        if revision is None and rev == self.store.compact_revision:
            return rev
        self.store.compact(rev)
        self.registry.compacted(rev)
        log.info("compacted at revision %d", rev)
        return rev

    async def _compact_periodically(self) -> None:
        """kube-apiserver compacts one interval behind: each tick compacts at the revision the
        previous tick saw, so clients always have at least one interval of history."""
        previous = 0
        while True:
            await asyncio.sleep(self.config.compaction_interval)
            if previous > self.store.compact_revision:
                self.compact(previous)
            previous = self.store.revision


def _load_store(store: TimedStore, config: ServerConfig) -> Journal | None:
    """Fill the fresh ``store`` from ``config.from_snapshot`` and/or ``config.data_dir``; returns
    the journal that persists it from now on (None: memory only)."""
    data_dir = None if config.data_dir is None else Path(config.data_dir)
    if config.from_snapshot is not None:
        if data_dir is not None:
            snapshot.restore(Path(config.from_snapshot), data_dir)
        else:
            snapshot.load_file(store, Path(config.from_snapshot))
    if data_dir is None:
        return None
    return Journal.open(store, data_dir, policy=FsyncPolicy(config.fsync), interval=config.fsync_interval)


def create_app(config: ServerConfig | None = None) -> Starlette:
    """A server built from ``config``, behind its HTTP app; started and stopped with the app's
    lifespan."""
    server = Server(config or ServerConfig())

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        server.start()
        try:
            yield
        finally:
            await server.stop()

    return http_app(server, lifespan)
