"""``/metrics`` and the middleware that measures resource requests: kube-apiserver's metrics
(``fakeapi.metrics``) and, when the server keeps one, the per-client report
(``fakeapi.clients``), both from the request's ``RequestInfo`` (``request_info``).

It also applies kube's deadline and in-flight limits (``limits``), which read it too.

The middleware is pure ASGI (Starlette's BaseHTTPMiddleware would buffer watch streams). A
watch counts once it ends, with its whole duration, as in kube. For the client report it puts a
``RequestCost`` in the request's context for the registry to fill (``registry.request_cost``),
and reports the request just before its last body message goes out, so that a client holding
its answer finds it in the report.
"""

from __future__ import annotations

import math
import time

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..cacher import INITIAL_EVENTS_END_ANNOTATION
from ..clients import ClientReport
from ..machinery.status import StatusError
from ..metrics.collector import ServerMetrics
from ..registry import request_cost
from ..registry.registry import Registry
from .access import acting_user
from .limits import PRIVILEGED_GROUP, Deadlines, Limits, request_timeout, send_timeout, send_too_many_requests
from .request_info import request_info_of
from .responses import route, served_by, status_response

_INITIAL_EVENTS_END = INITIAL_EVENTS_END_ANNOTATION.encode()


class MetricsMiddleware:
    """Counts and times every resource request into ``ServerMetrics`` and ``ClientReport``."""

    def __init__(self, app: ASGIApp, registry: Registry, metrics: ServerMetrics, clients: ClientReport,
                 limits: Limits | None = None) -> None:
        self.app = app
        self.registry = registry
        self.metrics = metrics
        self.clients = clients
        self.limits = limits or Limits()
        self.deadlines = Deadlines()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        info = request_info_of(scope) if scope["type"] == "http" else None
        if info is None or info.key is None:  # not a request of a served resource: not measured
            await self.app(scope, receive, send)
            return
        key = info.key
        metrics = self.metrics
        start = time.perf_counter()
        # Watches are long-running: counted in apiserver_longrunning_requests, not in flight,
        # and neither limited nor timed out.
        longrunning = key.verb == "WATCH"
        timeout = math.inf
        inflight = None
        if not longrunning:
            limits = self.limits
            try:
                timeout = request_timeout(info.query_value("timeout"), limits.request_timeout)
            except StatusError as err:
                await status_response(err)(scope, receive, send)
                return
            mutating = info.canonical_verb not in ("GET", "LIST")
            inflight = metrics.inflight["mutating" if mutating else "readOnly"]
            limit = limits.inflight_limit(mutating)
            if limit and inflight.current >= limit and not self._privileged(scope):
                # RecordDroppedRequest: counted with its code, not timed.
                series = metrics.series(key, with_sizes=not mutating)
                series.codes[429] = series.codes.get(429, 0) + 1
                await send_too_many_requests(send)
                return
        status = 500  # what kube records for a handler that fails before writing
        started = False
        first_chunk_at = 0.0
        cost = request_cost.RequestCost()
        cost_token = request_cost.current.set(cost)
        clients = self.clients
        call = clients.begin(scope, info, cost)
        reported = False

        async def measured_send(message: Message) -> None:
            nonlocal status, first_chunk_at, reported, started
            if message["type"] == "http.response.start":
                status = message["status"]
                started = True
            elif message["type"] == "http.response.body":
                body = message.get("body", b"")
                cost.response_bytes += len(body)
                if info.watch_list and not first_chunk_at and _INITIAL_EVENTS_END in body:
                    first_chunk_at = time.perf_counter()
                if not message.get("more_body", False):
                    # Before the last byte leaves: a client that has its answer finds it reported.
                    reported = True
                    clients.end(call, status, time.perf_counter() - start)
            await send(message)

        if inflight is None:
            metrics.longrunning[key] = metrics.longrunning.get(key, 0) + 1
        else:
            inflight.change(1, start)
        try:
            if timeout == math.inf:
                await self.app(scope, receive, measured_send)
            elif (remaining := start + timeout - time.perf_counter()) <= 0:
                await send_timeout(measured_send)
            else:
                waiting = self.deadlines.wait(timeout, remaining)
                try:
                    try:
                        await self.app(scope, receive, measured_send)
                    except BaseException as error:
                        self.deadlines.ended(waiting, error)
                        raise
                    self.deadlines.ended(waiting, None)
                except TimeoutError:
                    if started:
                        raise  # the answer is under way: the connection is cut, as kube's handler panics
                    await send_timeout(measured_send)
        finally:
            end = time.perf_counter()
            request_cost.current.reset(cost_token)
            if inflight is not None:
                inflight.change(-1, end)
            else:
                metrics.longrunning[key] -= 1
            series = metrics.series(key, with_sizes=info.canonical_verb in ("GET", "LIST"))
            series.codes[status] = series.codes.get(status, 0) + 1
            series.latency.observe(end - start)
            if series.sizes is not None:
                series.sizes.observe(cost.response_bytes)
            if first_chunk_at:
                metrics.watch_list_latency(key.group, key.version, key.resource, key.scope).observe(
                    first_chunk_at - start)
            if not reported:  # the response never finished (the client went away, the handler failed)
                clients.end(call, status, end - start)


    def _privileged(self, scope: Scope) -> bool:
        """Whether the request's user (after impersonation) is in ``system:masters``."""
        user = acting_user(self.registry.authenticator, scope)
        return user is not None and PRIVILEGED_GROUP in user.groups


def add_routes(routes: list[BaseRoute]) -> None:
    route(routes, "/metrics", _scrape, ["GET"])


async def _scrape(request: Request) -> Response:
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest  # loaded at the first scrape

    return Response(generate_latest(served_by(request).metrics.prometheus), media_type=CONTENT_TYPE_LATEST)
