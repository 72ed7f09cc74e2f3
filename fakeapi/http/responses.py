"""Response helpers: JSON bytes out (or YAML, protobuf), Kubernetes ``Status`` for every error."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from ..machinery.status import StatusError, method_not_allowed_path
from .negotiation import JSON, PROTOBUF, YAML
from .protobuf_views import status_body

#: The scope key of the connection's transport (``app._App``), None when the server has none.
TRANSPORT = "fakeapi.transport"
#: The scope key saying the response may be written to ``TRANSPORT`` directly as HTTP/1.1 chunks
#: between ASGI messages (uvicorn's httptools protocol, HTTP/1.1: it frames a response without
#: a length in chunks, each written as it comes).
CHUNKED_TRANSPORT = "fakeapi.chunked_transport"
#: The scope key of the request's audit ID (``app._App``): the client's ``Audit-ID`` header, else
#: a new UUID, as kube's ``WithAuditInit`` takes it; answered in the response's ``Audit-Id`` and
#: passed on to an aggregated server.
AUDIT_ID = "fakeapi.audit_id"
#: kube's ``WithCacheControl``: on every answer whose handler sets no Cache-Control of its own.
NO_CACHE = (b"cache-control", b"no-cache, private")


def body_response(body: bytes, media_type: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON body in the negotiated media type (JSON or YAML; protobuf bodies are encoded by
    their views)."""
    if media_type == YAML:
        from ..machinery.goyaml import yaml_from_json

        return Response(yaml_from_json(body), status_code=status, media_type=YAML, headers=headers)
    return Response(body, status_code=status, media_type=media_type, headers=headers)


def json_bytes(body: bytes, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type=JSON)


def json_response(obj: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(obj), status_code=status, media_type=JSON)


def status_response(err: StatusError, media_type: str = JSON) -> Response:
    """The error's Status in the negotiated media type (JSON, YAML or protobuf)."""
    headers = {}
    retry = err.retry_after_seconds
    if retry:
        headers["Retry-After"] = str(retry)
    if media_type == PROTOBUF:
        return Response(status_body(err.to_dict()), status_code=err.code, media_type=PROTOBUF, headers=headers)
    return body_response(orjson.dumps(err.to_dict()), media_type, err.code, headers)


class StreamResponse(StreamingResponse):
    """A streamed response (a watch's) that ends when its body does or its client goes, as
    Starlette's does, waiting for both with asyncio: Starlette's anyio task group loaded anyio's
    asyncio backend on a server's first watch (0.1-0.3 s, in a test suite's first watching spec)
    and cost every watch a cancel scope. An error of either side is raised once both ended."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        streaming = asyncio.ensure_future(self.stream_response(send))
        listening = asyncio.ensure_future(self.listen_for_disconnect(receive))
        try:
            await asyncio.wait((streaming, listening), return_when=asyncio.FIRST_COMPLETED)
        finally:
            streaming.cancel()
            listening.cancel()
            # The body's own cleanup (a watch unregisters its watcher) runs before this returns.
            await asyncio.gather(streaming, listening, return_exceptions=True)
        for task in (streaming, listening):
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]


def served_by(request: Request) -> Any:
    """The ``Server`` of the app answering ``request`` (``app.state.server``). Endpoints are
    module-level functions that look it up here rather than closures over it: one set of routes
    serves every app of the process, and a closure would keep a stopped server alive."""
    return request.app.state.server


#: An endpoint: the request (its path parameters in ``request.path_params``) to the response.
Endpoint = Callable[[Request], Awaitable[Response]]


def route(routes: list[BaseRoute], path: str, endpoint: Endpoint, methods: Sequence[str]) -> None:
    """Add a route taking exactly ``methods``: Starlette gives a GET route HEAD too, which
    kube's go-restful routes answer with 405."""
    added = _Route(path, endpoint, methods=methods)
    added.methods = set(methods)
    routes.append(added)


class _Route(Route):
    """A route that answers a method it does not take itself, with go-restful's 405 as kube's
    Status, where Starlette's raises an ``HTTPException`` for its ``ExceptionMiddleware`` to
    answer; and calls its endpoint without ``request_response``'s wrapper of every message the
    response sends, there to hand what the endpoint raises to that middleware's handlers. The
    app runs without that middleware (``app._App``): nothing it routes raises to it."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] in self.methods:
            response = await self.endpoint(Request(scope, receive, send))
        else:
            response = status_response(method_not_allowed_path())
        await response(scope, receive, send)
