"""Response helpers: JSON bytes out, Kubernetes ``Status`` for every error."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from ..machinery.status import StatusError
from .negotiation import JSON, PROTOBUF
from .protobuf_views import status_body

#: The scope key of the connection's transport (``app._App``), None when the server has none.
TRANSPORT = "fakeapi.transport"


def json_bytes(body: bytes, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type=JSON)


def json_response(obj: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(obj), status_code=status, media_type=JSON)


def status_response(err: StatusError, media_type: str = JSON) -> Response:
    """The error's Status, in JSON or (``media_type`` protobuf, as negotiated) protobuf."""
    headers = {}
    retry = err.retry_after_seconds
    if retry:
        headers["Retry-After"] = str(retry)
    if media_type == PROTOBUF:
        return Response(status_body(err.to_dict()), status_code=err.code, media_type=PROTOBUF, headers=headers)
    return Response(orjson.dumps(err.to_dict()), status_code=err.code, media_type=JSON, headers=headers)


def served_by(request: Request) -> Any:
    """The ``Server`` of the app answering ``request`` (``app.state.server``). Endpoints are
    module-level functions that look it up here rather than closures over it: FastAPI memoises
    facts about each endpoint function, and a closure would keep a stopped server alive."""
    return request.app.state.server
