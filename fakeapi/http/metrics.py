"""``/metrics`` and the middleware that measures resource requests.

Labels follow kube-apiserver (k8s.io/apiserver ``pkg/endpoints/metrics/metrics.go``:
``MonitorRequest``, ``CleanScope``, ``CanonicalVerb``, ``CleanVerb``, ``cleanDryRun``;
``pkg/endpoints/request/requestinfo.go`` for name and namespace): the verb is the HTTP method,
except GET which is LIST unless one object is named (the path, or a ``metadata.name=`` field
selector), WATCH when ``watch`` is set, APPLY for an apply patch, CONNECT for the connect
subresources; scope is ``resource`` for one named object or a create, else ``namespace`` or
``cluster``. Only resource requests of served resources are measured (kube's instrumented
routes); discovery, health and control endpoints are not.

The middleware is pure ASGI (Starlette's BaseHTTPMiddleware would buffer watch streams). A
watch counts once it ends, with its whole duration, as in kube.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from urllib.parse import parse_qs

from fastapi import FastAPI
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..cacher import INITIAL_EVENTS_END_ANNOTATION
from ..machinery.status import StatusError
from ..metrics import RequestKey, ServerMetrics
from ..registry.registry import Registry
from .resources import parse_path
from .responses import served_by

APPLY_PATCH = "application/apply-patch+yaml"
#: kube's ``validConnectRequests``.
CONNECT_SUBRESOURCES = frozenset({"log", "exec", "portforward", "attach", "proxy"})
_INITIAL_EVENTS_END = INITIAL_EVENTS_END_ANNOTATION.encode()


class RequestInfo:
    """What the metrics need of one resource request."""

    __slots__ = ("key", "canonical_verb", "watch_list")

    def __init__(self, key: RequestKey, canonical_verb: str, watch_list: bool) -> None:
        self.key = key
        self.canonical_verb = canonical_verb  # before CleanVerb: GET, LIST, POST, ...
        self.watch_list = watch_list  # a watch with sendInitialEvents=true


def request_info(registry: Registry, scope: Scope) -> RequestInfo | None:
    """The labels of a request to a served resource, or None for any other request."""
    parts = scope["path"].split("/", 4)
    if len(parts) < 4 or parts[0] != "":
        return None
    if parts[1] == "api":
        group, version, rest = "", parts[2], "/".join(parts[3:])
    elif parts[1] == "apis" and len(parts) == 5:
        group, version, rest = parts[2], parts[3], parts[4]
    else:
        return None
    try:
        req = parse_path(registry, group, version, rest)
    except StatusError:
        return None
    method: str = scope["method"]
    raw_query: bytes = scope["query_string"]
    query = parse_qs(raw_query.decode("latin-1")) if raw_query else {}
    name = req.name or ""
    if method == "GET" and not name:
        name = _name_from_field_selector(query.get("fieldSelector", ()))
    # CleanScope: a create is "resource" scoped too.
    create = method == "POST" and req.name is None
    scope_label = "resource" if name or create else "namespace" if req.namespace else "cluster"
    canonical = method
    if method in ("GET", "HEAD"):
        canonical = "GET" if scope_label == "resource" else "LIST"
    verb = canonical
    watch = method == "GET" and query.get("watch", ["false"])[0].lower() not in ("0", "false")
    if watch:
        verb = "WATCH"
    elif method == "PATCH" and _header(scope, b"content-type") == APPLY_PATCH:
        verb = "APPLY"
    if req.subresource in CONNECT_SUBRESOURCES:
        verb = "CONNECT"
    key = RequestKey(verb, _dry_run(query.get("dryRun")), group, version, req.resource, req.subresource or "",
                     scope_label)
    watch_list = watch and query.get("sendInitialEvents", ["false"])[0] == "true"
    return RequestInfo(key, canonical, watch_list)


def _name_from_field_selector(selectors: Sequence[str]) -> str:
    """The name a ``metadata.name=x`` (or ``==``) field selector requires, as RequestInfo reads it."""
    for selector in selectors:
        for term in selector.split(","):
            field, eq, value = term.partition("=")
            if eq and field.strip() == "metadata.name":
                return value.removeprefix("=").strip()
    return ""


def _dry_run(values: list[str] | None) -> str:
    """kube's ``cleanDryRun``: "" without dryRun, "invalid" for values other than All, else the
    sorted distinct values joined by commas."""
    if not values:
        return ""
    if any(v != "All" for v in values):
        return "invalid"
    return ",".join(sorted(set(values)))


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return ""


class MetricsMiddleware:
    """Counts and times every resource request into ``ServerMetrics``."""

    def __init__(self, app: ASGIApp, registry: Registry, metrics: ServerMetrics) -> None:
        self.app = app
        self.registry = registry
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        info = request_info(self.registry, scope) if scope["type"] == "http" else None
        if info is None:
            await self.app(scope, receive, send)
            return
        metrics = self.metrics
        key = info.key
        start = time.perf_counter()
        status = 500  # what kube records for a handler that fails before writing
        size = 0
        first_chunk_at = 0.0

        async def measured_send(message: Message) -> None:
            nonlocal status, size, first_chunk_at
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                body = message.get("body", b"")
                size += len(body)
                if info.watch_list and not first_chunk_at and _INITIAL_EVENTS_END in body:
                    first_chunk_at = time.perf_counter()
            await send(message)

        # Watches are long-running: counted in apiserver_longrunning_requests, not in flight.
        longrunning = key.verb == "WATCH"
        inflight = None
        if longrunning:
            metrics.longrunning[key] = metrics.longrunning.get(key, 0) + 1
        else:
            inflight = metrics.inflight["readOnly" if info.canonical_verb in ("GET", "LIST") else "mutating"]
            inflight.change(1, start)
        try:
            await self.app(scope, receive, measured_send)
        finally:
            end = time.perf_counter()
            if inflight is not None:
                inflight.change(-1, end)
            else:
                metrics.longrunning[key] -= 1
            series = metrics.series(key, with_sizes=info.canonical_verb in ("GET", "LIST"))
            series.codes[status] = series.codes.get(status, 0) + 1
            series.latency.observe(end - start)
            if series.sizes is not None:
                series.sizes.observe(size)
            if first_chunk_at:
                metrics.watch_list_latency(key.group, key.version, key.resource, key.scope).observe(
                    first_chunk_at - start)


def add_routes(app: FastAPI) -> None:
    app.add_api_route("/metrics", _scrape, methods=["GET"])


async def _scrape(request: Request) -> Response:
    return Response(generate_latest(served_by(request).metrics.prometheus), media_type=CONTENT_TYPE_LATEST)
