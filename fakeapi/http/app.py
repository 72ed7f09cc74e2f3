"""The ASGI application: one ``Server`` (store, registry, timers) behind a Starlette app."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import RequestResponseCycle as HttpToolsCycle

from ..cacher import CacherConfig
from ..clients import ClientReport, ClientReportConfig
from ..controllers import (
    ClusterRoleAggregation,
    CustomResourceCleanup,
    GarbageCollector,
    NamespaceController,
    PodTermination,
)
from ..faults.engine import Faults
from ..machinery.status import StatusError, bad_request, method_not_allowed_path, not_found_path
from ..etcd.client import RemoteStore
from ..metrics.collector import ServerMetrics, TimedRemoteStore, TimedStore, version_labels
from ..auth.authorization import AccessControl
from ..registry.registry import (
    DEFAULT_EVENT_TTL,
    DEFAULT_SERVICE_ACCOUNT_ISSUER,
    Registry,
)
from ..registry import versioner
from ..auth.serviceaccount_tokens import METADATA_MAX_AGE_SECONDS
from ..store import (
    ErrCompacted,
    ErrFutureRev,
    FsyncPolicy,
    Journal,
    StoreTimers,
    snapshot,
)
from ..store.journal import DEFAULT_FSYNC_INTERVAL
from ..store.request_size import DEFAULT_MAX_REQUEST_BYTES
from ..runtime import cancel_and_wait
from . import clients as client_routes
from . import faults as fault_routes
from . import metrics as metric_routes
from . import openapi, resources
from .access import AccessMiddleware
from .discovery import AGGREGATED_KIND, AggregatedDocument, Discovery
from .faults import control_body
from .limits import Limits
from .negotiation import (
    DISCOVERY_GROUP,
    PROTOBUF,
    check_route_accepts,
    error_media_type,
    negotiate_discovery,
    negotiate_plain,
)
from .recovery import PanicRecovery
from .responses import (
    JSON,
    CHUNKED_TRANSPORT,
    TRANSPORT,
    body_response,
    json_bytes,
    json_response,
    route,
    served_by,
    status_response,
)

log = logging.getLogger("fakeapi")

GARBAGE_COLLECTOR = "garbage-collector-controller"
NAMESPACE_CONTROLLER = "namespace-controller"
CLUSTERROLE_AGGREGATION = "clusterrole-aggregation-controller"
#: Not kube-controller-manager's: the kubelets' part in graceful pod deletion (kwok's, when it runs).
POD_TERMINATION = "pod-termination"
CONTROLLERS = (GARBAGE_COLLECTOR, NAMESPACE_CONTROLLER, CLUSTERROLE_AGGREGATION, POD_TERMINATION)


@dataclass(slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 6443
    #: kube-apiserver's --etcd-compaction-interval (5 min); 0 disables.
    compaction_interval: float = 300.0
    #: etcd's --watch-progress-notify-interval as kubeadm sets it.
    progress_interval: float = 5.0
    cacher: CacherConfig = field(default_factory=CacherConfig)
    #: Built-in controllers to run, by kube-controller-manager's names (see ``CONTROLLERS``).
    controllers: frozenset[str] = frozenset(CONTROLLERS)
    #: kube-apiserver's --enable-garbage-collector: deletes add the orphan/foregroundDeletion
    #: finalizers their propagation policy asks for. The apiserver's choice, not the controllers':
    #: with fakeapi's garbage collector off, the real kube-controller-manager's removes them.
    garbage_collection: bool = True
    #: kube-apiserver's --event-ttl in seconds; 0 keeps events forever.
    event_ttl: int = DEFAULT_EVENT_TTL
    #: Faults in force from the start, as flat specs (``fakeapi.faults.engine.parse_spec``).
    faults: tuple[dict[str, object], ...] = ()
    #: kube-apiserver's --service-account-issuer: the ``iss`` of the tokens ``serviceaccounts/token``
    #: issues, and the API audience.
    service_account_issuer: str = DEFAULT_SERVICE_ACCOUNT_ISSUER
    #: Where the store persists (write-ahead log + snapshots); None: memory only.
    data_dir: Path | None = None
    #: When a logged write reaches the disk (see the README's "Persistence").
    fsync: FsyncPolicy = FsyncPolicy.INTERVAL
    fsync_interval: float = DEFAULT_FSYNC_INTERVAL
    #: A ``fakeapi snapshot save`` file the store starts from (into an empty ``data_dir``, if set).
    from_snapshot: Path | None = None
    #: The per-client report: client cap, client header, history, detectors' knobs.
    clients: ClientReportConfig = field(default_factory=ClientReportConfig)
    #: Authentication and authorization: modes, static tokens, anonymous requests.
    access: AccessControl = field(default_factory=AccessControl)
    #: kube-apiserver's --request-timeout and in-flight limits (``limits``).
    limits: Limits = field(default_factory=Limits)
    #: etcd's --max-request-bytes: a write whose raft entry would be larger is refused as etcd
    #: refuses it (kube-apiserver answers 500, after retrying without managedFields).
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    #: kube-apiserver's --etcd-servers: the store is an etcd (``fakeapi etcd``, a real etcd
    #: cluster, or the store process of ``--workers``) reached over its v3 API, not in-process.
    #: ``data_dir``, ``fsync`` and ``from_snapshot`` are then the etcd's business.
    etcd_servers: tuple[str, ...] = ()


class Server:
    """Everything one fakeapi instance owns; started and stopped with the app's lifespan."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store: TimedStore | TimedRemoteStore
        self.journal = None
        if config.etcd_servers:
            self.store = TimedRemoteStore(config.etcd_servers, versioner.with_resource_version)
        else:
            self.store = TimedStore()
            self.store.max_request_bytes = config.max_request_bytes
            self.journal = _load_store(self.store, config)
        gc = config.garbage_collection
        self.registry = Registry(self.store, cacher_config=config.cacher, garbage_collection=gc,
                                 event_ttl=config.event_ttl, service_account_issuer=config.service_account_issuer,
                                 advertise_port=config.port or 443, access=config.access)
        self.controllers: list[GarbageCollector | NamespaceController | CustomResourceCleanup
                               | ClusterRoleAggregation | PodTermination] = []
        if GARBAGE_COLLECTOR in config.controllers:
            self.controllers.append(GarbageCollector(self.registry))
        if NAMESPACE_CONTROLLER in config.controllers:
            self.controllers.append(NamespaceController(self.registry, gc_finalizers=gc))
        if CLUSTERROLE_AGGREGATION in config.controllers:
            self.controllers.append(ClusterRoleAggregation(self.registry))
        if POD_TERMINATION in config.controllers:
            self.controllers.append(PodTermination(self.registry, gc_finalizers=gc))
        self.controllers.append(CustomResourceCleanup(self.registry, gc_finalizers=gc))
        self.discovery = Discovery(self.registry, f"{config.host}:{config.port}")
        self.openapi = openapi.OpenAPIV3(self.registry)
        self.registry.on_resources_changed.append(self._resources_changed)
        self.timers = StoreTimers(self.store, config.progress_interval)
        self.faults = Faults(self.registry, self.timers)
        self.metrics = ServerMetrics(self.registry, self.store, version_labels(orjson.loads(self.discovery.version)),
                                     self.faults.totals)
        self.clients = ClientReport(config.clients)
        self.metrics.prometheus.register(self.clients)  # type: ignore[arg-type]
        self._compactor: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.registry.start()
        for controller in self.controllers:
            controller.start()
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
        await self.timers.stop()
        await self.registry.stop()
        if self.journal is not None:
            self.journal.close()
        if isinstance(self.store, RemoteStore):
            await self.store.aclose()

    def _resources_changed(self) -> None:
        self.discovery.invalidate()
        self.openapi.sync_custom_resources(self.registry)

    def compact(self, revision: int | None = None) -> int:
        rev = self.store.revision if revision is None else revision
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


class _App(Starlette):
    """fakeapi's app: its middleware stack behind a step that keeps the connection's transport
    in the scope (``TRANSPORT``; uvicorn's ``send`` is a method of its request cycle, which
    holds it), so that a watch that falls behind can be cut (``CacheWatcher.on_terminated``):
    ASGI has no other way to end a response its client has stopped reading. Over uvicorn's
    httptools protocol and HTTP/1.1 it marks the transport as one a watch may write its chunks
    to directly (``CHUNKED_TRANSPORT``, ``CacheWatcher.write_directly``)."""

    def build_middleware_stack(self) -> ASGIApp:
        stack = super().build_middleware_stack()

        async def with_transport(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                cycle = getattr(send, "__self__", None)
                scope[TRANSPORT] = getattr(cycle, "transport", None)
                scope[CHUNKED_TRANSPORT] = isinstance(cycle, HttpToolsCycle) and scope["http_version"] == "1.1"
            await stack(scope, receive, send)

        return with_transport


def create_app(config: ServerConfig | None = None) -> Starlette:
    server = Server(config or ServerConfig())

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        server.start()
        try:
            yield
        finally:
            await server.stop()

    app = _App(routes=_routes(), lifespan=lifespan)
    app.state.server = server
    # Starlette runs the last added outermost: requests refused with 401 or 403 are measured too.
    app.add_middleware(AccessMiddleware, registry=server.registry)
    app.add_middleware(metric_routes.MetricsMiddleware, registry=server.registry, metrics=server.metrics,
                       clients=server.clients, limits=server.config.limits)
    app.add_middleware(PanicRecovery)  # a failed handler is answered (and measured) like any request
    app.add_exception_handler(404, _no_route)
    app.add_exception_handler(405, _method_not_allowed)
    return app


@functools.cache
def _routes() -> tuple[BaseRoute, ...]:
    """Every route of an app. Their handlers find the server in ``request.app.state``, so one
    set serves every app of the process (a fresh server per pytest test builds none)."""
    routes: list[BaseRoute] = []
    openapi.add_routes(routes)
    for path in ("/healthz", "/livez", "/readyz"):
        route(routes, path, _ok, ["GET"])
    route(routes, "/version", _version, ["GET"])
    route(routes, "/api", _api_versions, ["GET"])
    # kube serves /apis (and /apis/) outside go-restful, to any method.
    every_method = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
    route(routes, "/apis", _api_groups, every_method)
    route(routes, "/apis/", _api_groups, every_method)
    route(routes, "/api/{version}", _core_resources, ["GET"])
    route(routes, "/apis/{group}/{version}", _group_resources, ["GET"])
    methods = ["GET", "POST", "PUT", "DELETE", "PATCH"]
    route(routes, "/api/{version}/{rest:path}", _core, methods)
    route(routes, "/apis/{group}/{version}/{rest:path}", _grouped, methods)
    route(routes, "/.well-known/openid-configuration", _openid_configuration, ["GET"])
    route(routes, "/openid/v1/jwks", _openid_keys, ["GET"])
    route(routes, "/fakeapi/v1/compact", _compact, ["POST"])
    route(routes, "/fakeapi/v1/snapshot", _snapshot, ["GET"])
    fault_routes.add_routes(routes)
    metric_routes.add_routes(routes)
    client_routes.add_routes(routes)
    return tuple(routes)


async def _no_route(_request: Request, _exc: Exception) -> Response:
    return page_not_found()


async def _method_not_allowed(_request: Request, _exc: Exception) -> Response:
    """A method a route does not take: go-restful's 405, as kube's Status."""
    return status_response(method_not_allowed_path())


def page_not_found() -> Response:
    """A path no handler serves: Go's ``http.NotFound``, as kube's mux answers it."""
    return Response(b"404 page not found\n", status_code=404, media_type="text/plain; charset=utf-8",
                    headers={"X-Content-Type-Options": "nosniff"})


async def _ok(_request: Request) -> Response:
    return Response(b"ok", media_type="text/plain")


async def _version(request: Request) -> Response:
    return json_bytes(served_by(request).discovery.version)


async def _api_versions(request: Request) -> Response:
    discovery = served_by(request).discovery
    return _discovery(request, discovery, discovery.api_versions, discovery.aggregated_core)


async def _api_groups(request: Request) -> Response:
    discovery = served_by(request).discovery
    return _discovery(request, discovery, discovery.api_groups, discovery.aggregated_groups)


def _discovery(request: Request, discovery: Discovery, legacy: bytes, aggregated: AggregatedDocument) -> Response:
    """``/api`` or ``/apis``: the aggregated document when the Accept header asks for it (with
    kube's ETag and 304 on ``If-None-Match``), else the legacy one (kube's ``WrappedHandler``)."""
    try:
        check_route_accepts(request.headers.get("accept"))
    except StatusError as err:
        return status_response(err)
    negotiated = negotiate_discovery(request.headers.get("accept"))
    if negotiated is None:
        return _legacy_discovery(request, discovery, legacy)
    headers = {"ETag": aggregated.etag, "Vary": "Accept", "Cache-Control": "public"}
    if request.headers.get("if-none-match") == aggregated.etag:
        return Response(status_code=304, headers=headers)
    protobuf = negotiated.media_type == PROTOBUF
    media_type = f"{negotiated.media_type};g={DISCOVERY_GROUP};v=v2;as={AGGREGATED_KIND}"
    return Response(aggregated.body(protobuf), media_type=media_type, headers=headers)


def _legacy_discovery(request: Request, discovery: Discovery, body: bytes) -> Response:
    try:
        media_type = negotiate_plain(request.headers.get("accept"))
    except StatusError as err:
        return status_response(err)
    if media_type == PROTOBUF:
        return Response(discovery.legacy_protobuf(body), media_type=PROTOBUF)
    return body_response(body, media_type)


async def _core_resources(request: Request) -> Response:
    return _resource_list(request, served_by(request).discovery, "", request.path_params["version"])


async def _group_resources(request: Request) -> Response:
    group, version = request.path_params["group"], request.path_params["version"]
    if served_by(request).discovery.resource_list(group, version) is None:
        return page_not_found()  # no route for a group version kube does not serve
    return _resource_list(request, served_by(request).discovery, group, version)


async def _core(request: Request) -> Response:
    server, params = served_by(request), request.path_params
    return await resources.handle(server.registry, request, "", params["version"], params["rest"], server.faults)


async def _grouped(request: Request) -> Response:
    server, params = served_by(request), request.path_params
    group = params["group"]
    if not server.discovery.serves_group(group):
        return page_not_found()  # no route under a group kube does not serve
    return await resources.handle(server.registry, request, group, params["version"], params["rest"], server.faults)


#: kube-apiserver's answers on the service-account issuer's discovery endpoints are cacheable.
_OPENID_CACHE_CONTROL = {"Cache-Control": f"public, max-age={METADATA_MAX_AGE_SECONDS}"}


async def _openid_configuration(request: Request) -> Response:
    """The service-account issuer's OpenID discovery document; its keys are at this server."""
    signer = served_by(request).registry.token_signer
    jwks_uri = f"{request.url.scheme}://{request.url.netloc}/openid/v1/jwks"
    return Response(signer.openid_configuration(jwks_uri), media_type=JSON, headers=_OPENID_CACHE_CONTROL)


async def _openid_keys(request: Request) -> Response:
    signer = served_by(request).registry.token_signer
    return Response(signer.jwks, media_type="application/jwk-set+json", headers=_OPENID_CACHE_CONTROL)


async def _compact(request: Request) -> Response:
    server = served_by(request)
    try:
        revision = _optional(await control_body(request), "revision", int)
        try:
            rev = server.compact(revision)
        except (ErrCompacted, ErrFutureRev) as err:
            raise bad_request(str(err)) from None
        return json_response({"revision": rev, "currentRevision": server.store.revision})
    except StatusError as err:
        return status_response(err)


async def _snapshot(request: Request) -> Response:
    """The whole store as a ``fakeapi snapshot`` file (``fakeapi snapshot save --url``): captured
    in one step of the loop, so it is the store at one revision, and encoded off the loop."""
    store = served_by(request).store
    if isinstance(store, RemoteStore):
        return status_response(bad_request(
            f"the store is an etcd at {store.target}: save its snapshot there (etcdctl snapshot save)"))
    image = snapshot.capture(store)
    chunks = await asyncio.to_thread(image.chunks)
    return StreamingResponse(iter(chunks), media_type="application/octet-stream")


def _optional(body: dict[str, object], name: str, kind: type) -> Any:
    value = body.get(name)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise bad_request(f"{name} must be {'an integer' if kind is int else 'a string'}")
    return value


def _resource_list(request: Request, discovery: Discovery, group: str, version: str) -> Response:
    try:
        check_route_accepts(request.headers.get("accept"))
    except StatusError as err:
        return status_response(err)
    body = discovery.resource_list(group, version)
    if body is None:
        return status_response(not_found_path(), error_media_type(request.headers.get("accept")))
    return _legacy_discovery(request, discovery, body)
