"""``GET /fakeapi/v1/report``: the per-client report (``fakeapi.clients``) as JSON.

Query: ``since`` (a duration: ``5m``, ``30s``, ``300``; default: since the server started) and
``sort`` (``time``, ``requests``, ``bytes``, ``objects``, ``events``, ``watches``,
``conflicts``; default ``time``). A bad value is a 400 Status.
"""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from ..clients import SORT_KEYS
from ..machinery.golang import parse_duration
from ..machinery.status import bad_request
from .request_info import request_query
from .responses import json_response, route, served_by, status_response

PATH = "/fakeapi/v1/report"


def add_routes(routes: list[BaseRoute]) -> None:
    route(routes, PATH, _report, ["GET"])


async def _report(request: Request) -> Response:
    query = request_query(request)
    since_text = query.get("since")
    since = None
    if since_text:
        try:
            since = parse_duration(since_text)
        except ValueError:
            since = math.nan
        if not since > 0 or math.isinf(since):
            return status_response(bad_request(f'invalid since "{since_text}": a positive duration such as 5m'))
    sort = query.get("sort", "time")
    if sort not in SORT_KEYS:
        return status_response(bad_request(f'invalid sort "{sort}": one of {", ".join(SORT_KEYS)}'))
    return json_response(served_by(request).clients.report(since, sort))
