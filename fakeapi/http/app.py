"""The HTTP surface of a server: its routes (discovery, version, health, OpenID, the control
endpoints; resources in ``resources``) and the filters every request passes (``http_app``)."""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketClose

from ..auth.serviceaccount_tokens import METADATA_MAX_AGE_SECONDS
from ..machinery.status import StatusError, bad_request, method_not_allowed_path, not_found_path
from ..store import (
    ErrCompacted,
    ErrFutureRev,
    Store,
    snapshot,
)
from . import clients as client_routes
from . import faults as fault_routes
from . import metrics as metric_routes
from . import openapi, resources
from .access import AccessMiddleware, request_user
from .discovery import AGGREGATED_KIND, AggregatedDocument, Discovery
from .faults import control_body
from .negotiation import (
    DISCOVERY_GROUP,
    PROTOBUF,
    check_route_accepts,
    error_media_type,
    negotiate_discovery,
    negotiate_plain,
)
from .recovery import answer_panic
from .request_info import RequestInfoFilter
from .responses import (
    AUDIT_ID,
    JSON,
    CHUNKED_TRANSPORT,
    NO_CACHE,
    TRANSPORT,
    body_response,
    json_bytes,
    json_response,
    route,
    served_by,
    status_response,
)
from .upgrades import UPGRADE, is_upgrade_request, uvicorn_hijack

log = logging.getLogger("fakeapi")

class _App(Starlette):
    """fakeapi's app: its middleware stack behind a first step that keeps the connection's
    transport in the scope (``TRANSPORT``; the server's ``send`` is a method of its request's
    state, which holds it), so that a watch that falls behind can be cut
    (``CacheWatcher.on_terminated``): ASGI has no other way to end a response its client has
    stopped reading. Where the response goes out as HTTP/1.1 chunks each written as it comes
    (fakeapi's own HTTP/1.1, which says so by its ``direct_chunks``; uvicorn's httptools
    protocol, which serves the embedded server of ``fakeapi.testing``) it marks the transport as
    one a watch may write its chunks to directly (``CHUNKED_TRANSPORT``,
    ``CacheWatcher.write_directly``); over uvicorn it lets a request asking for an upgrade take
    the connection (``UPGRADE``: fakeapi's own connection offers it itself). That protocol is
    looked for among the loaded modules, not imported: ``fakeapi serve`` runs no uvicorn, and
    importing it (its command line's click, its reloaders') costs a start ~20 ms; a server that
    serves over it has loaded it before its first request, when Starlette builds this stack.

    The step also adds the headers of kube's filters (``_filter_headers``) and answers a failed
    handler (``recovery``): one wrapper of ``send`` does both, as every message of every answer
    passes it. Starlette's own middleware is left out, and its wrappers of ``send`` with it:
    its ``ServerErrorMiddleware``, outermost, as an error it would answer is answered here, and
    one after the answer started it only raises again; its ``ExceptionMiddleware``, around the
    router, as the routes (``responses.route``) and the router (``_no_route``) answer what they
    would raise to it."""

    def build_middleware_stack(self) -> ASGIApp:
        stack: ASGIApp = self.router
        for cls, args, kwargs in reversed(self.user_middleware):
            stack = cls(stack, *args, **kwargs)
        httptools_impl = sys.modules.get("uvicorn.protocols.http.httptools_impl")
        httptools_cycle = httptools_impl.RequestResponseCycle if httptools_impl is not None else None

        async def serving(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await stack(scope, receive, send)
                return
            cycle = getattr(send, "__self__", None)
            scope[TRANSPORT] = getattr(cycle, "transport", None)
            over_httptools = httptools_cycle is not None and isinstance(cycle, httptools_cycle)
            scope[CHUNKED_TRANSPORT] = ((over_httptools and scope["http_version"] == "1.1")
                                        or getattr(cycle, "direct_chunks", False))
            if over_httptools and is_upgrade_request(scope["headers"]):
                scope[UPGRADE] = uvicorn_hijack(cycle)
            audit_id = _audit_id(scope["headers"])
            scope[AUDIT_ID] = audit_id.decode("latin-1")
            started = False

            async def sending(message: Message) -> None:
                nonlocal started
                if message["type"] == "http.response.start":
                    started = True
                    message = {**message, "headers": _filter_headers(message.get("headers", ()), audit_id)}
                await send(message)

            try:
                await stack(scope, receive, sending)
            except Exception:
                if started:
                    raise
                await answer_panic(scope, sending)

        return serving


def _audit_id(headers: list[tuple[bytes, bytes]]) -> bytes:
    """The request's audit ID, as kube's ``WithAuditInit`` takes it: the client's ``Audit-ID``,
    else a new version-4 UUID. Its random bits are ``random``'s (reseeded in a forked worker),
    not ``uuid.uuid4``'s ``os.urandom`` (a system call per request): an audit ID guards nothing."""
    for name, value in headers:
        if name == b"audit-id":
            if value:
                return value
            break
    digits = b"%032x" % (random.getrandbits(128) & _UUID4_CLEARED | _UUID4_SET)
    return b"%s-%s-%s-%s-%s" % (digits[:8], digits[8:12], digits[12:16], digits[16:20], digits[20:])


#: A version-4 UUID's fixed bits (RFC 9562): the version nibble 0100, the variant bits 10.
_UUID4_CLEARED = ~(0xF << 76 | 0x3 << 62)
_UUID4_SET = 0x4 << 76 | 0x2 << 62


def _filter_headers(headers: Iterable[tuple[bytes, bytes]], audit_id: bytes) -> list[tuple[bytes, bytes]]:
    """A response's ``headers`` with those kube-apiserver's filters add to every answer:
    ``Cache-Control: no-cache, private`` unless the handler set one (``WithCacheControl``), and
    ``Audit-Id`` (``WithAuditInit``)."""
    headers = list(headers)
    for name, _ in headers:
        if name.lower() == b"cache-control":
            break
    else:
        headers.append(NO_CACHE)
    headers.append((b"audit-id", audit_id))
    return headers


def http_app(server: Any, lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]]) -> Starlette:
    """The HTTP surface of ``server`` (a ``fakeapi.server.Server``): every route, and the filters
    each request passes through. Starlette runs the last added outermost: the request's
    ``RequestInfo`` is made first, as kube's ``WithRequestInfo`` does, for every filter after it;
    requests refused with 401 or 403 are measured too, and a failed handler is answered (and
    measured) like any request (``_App``)."""
    app = _App(routes=_routes(), lifespan=lifespan)
    app.state.server = server
    app.add_middleware(AccessMiddleware, registry=server.registry)
    app.add_middleware(metric_routes.MetricsMiddleware, registry=server.registry, metrics=server.metrics,
                       clients=server.clients, limits=server.config.limits)
    app.add_middleware(RequestInfoFilter, registry=server.registry)
    app.router.default = _no_route
    return app


@functools.cache
def _routes() -> tuple[BaseRoute, ...]:
    """Every route of an app. Their handlers find the server in ``request.app.state``, so one
    set serves every app of the process (a fresh server per pytest test builds none)."""
    routes: list[BaseRoute] = []
    # The resources' routes first: Starlette's router tries each route in turn, and nearly every
    # request is for a resource. No other route matches a path of theirs.
    methods = ["GET", "POST", "PUT", "DELETE", "PATCH"]
    route(routes, "/api/{version}/{rest:path}", _core, methods)
    # An aggregated group version's server has every method; fakeapi's own routes refuse these.
    route(routes, "/apis/{group}/{version}/{rest:path}", _grouped, [*methods, *_PROXIED_ONLY])
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
    route(routes, "/apis/{group}", _api_group, ["GET"])
    route(routes, "/apis/{group}/", _api_group, ["GET"])
    route(routes, "/apis/{group}/{version}", _group_resources, [*methods, *_PROXIED_ONLY])
    route(routes, "/.well-known/openid-configuration", _openid_configuration, ["GET"])
    route(routes, "/openid/v1/jwks", _openid_keys, ["GET"])
    route(routes, "/fakeapi/v1/compact", _compact, ["POST"])
    route(routes, "/fakeapi/v1/snapshot", _snapshot, ["GET"])
    fault_routes.add_routes(routes)
    metric_routes.add_routes(routes)
    client_routes.add_routes(routes)
    return tuple(routes)


#: Methods only an aggregated server is asked (kube's go-restful routes answer them 405).
_PROXIED_ONLY = ("HEAD", "OPTIONS")


async def _no_route(scope: Scope, receive: Receive, send: Send) -> None:
    """The router's answer where no route serves the path: ``page_not_found`` (a websocket is
    closed, as Starlette's router does)."""
    if scope["type"] == "websocket":
        await WebSocketClose()(scope, receive, send)
        return
    await page_not_found()(scope, receive, send)


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


async def _api_group(request: Request) -> Response:
    discovery = served_by(request).discovery
    body = discovery.api_group(request.path_params["group"])
    if body is None:
        return page_not_found()  # no APIService of that group: kube's delegate has no route
    return _legacy_discovery(request, discovery, body)


async def _group_resources(request: Request) -> Response:
    server = served_by(request)
    group, version = request.path_params["group"], request.path_params["version"]
    backend = server.proxy.backends.by_group_version.get((group, version))
    if backend is not None:
        return await server.proxy.forward(request, backend, request_user(request))
    if server.discovery.resource_list(group, version) is None:
        return page_not_found()  # no route for a group version kube does not serve
    if request.method != "GET":
        return status_response(method_not_allowed_path())
    return _resource_list(request, server.discovery, group, version)


async def _core(request: Request) -> Response:
    server = served_by(request)
    return await resources.handle(server.registry, request, server.faults)


async def _grouped(request: Request) -> Response:
    server = served_by(request)
    backend = server.proxy.backends.by_group_version.get((request.path_params["group"], request.path_params["version"]))
    if backend is not None:
        return await server.proxy.forward(request, backend, request_user(request))
    if not server.discovery.serves_group(request.path_params["group"]):
        return page_not_found()  # no route under a group kube does not serve
    if request.method in _PROXIED_ONLY:
        return status_response(method_not_allowed_path())
    return await resources.handle(server.registry, request, server.faults)


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
    if not isinstance(store, Store):  # the etcd client's (--etcd-servers)
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
