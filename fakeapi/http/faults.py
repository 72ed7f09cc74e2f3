"""Faults over HTTP: the control API under ``/fakeapi/v1/faults`` and the request hook.

Control API (bodies are the flat specs of ``fakeapi.faults.engine.parse_spec``, keys in camelCase):

- ``GET    /fakeapi/v1/faults``               the faults with their counters, knobs, totals
- ``POST   /fakeapi/v1/faults``               ``{"type": "error"|"latency"|"stall"|"set"|
  "close-watches"|"restart", ...}``: a fault (201, the fault as listed) or an action (200)
- ``DELETE /fakeapi/v1/faults``               clear every fault; ``/faults/<id>`` one
- ``POST   /fakeapi/v1/faults/<type>``         the same as POST with that type, for the actions
  (``restart``, ``close-watches``) and the others alike

A bad body is a 400 Status, an unknown id a 404 Status; never a 500.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from ..faults.engine import Faults
from ..machinery.status import StatusError, bad_request, not_found
from .request_info import RequestInfo, ResourceRequest
from .responses import json_response, route, served_by, status_response

PREFIX = "/fakeapi/v1/faults"
async def apply_request_faults(faults: Faults, info: RequestInfo, served: ResourceRequest) -> float:
    """The request hook, called only while ``faults.request_faults`` is non-empty and before
    the handler does anything, for the request ``info`` of the resource ``served``, by kube's
    verb: sleeps the injected latency, then raises the injected error (so a failed request
    changes nothing). Returns the per-item cost a LIST must pay (``slow_list``)."""
    effect = faults.effect(info.verb, served.group, served.resource, served.namespace)
    if effect.delay:
        await asyncio.sleep(effect.delay)
    if effect.error is not None:
        raise effect.error
    return effect.per_item


async def slow_list(body: bytes, per_item: float) -> None:
    """Sleep ``per_item`` seconds per item of a LIST body (rows, for a Table)."""
    listed = orjson.loads(body)
    items = listed.get("items") or listed.get("rows") or ()
    await asyncio.sleep(per_item * len(items))


def add_routes(routes: list[BaseRoute]) -> None:
    """The control API of the server's ``faults``."""
    route(routes, PREFIX, _list_faults, ["GET"])
    route(routes, PREFIX, _add_fault, ["POST"])
    route(routes, PREFIX, _clear_faults, ["DELETE"])
    route(routes, PREFIX + "/{fault_id}", _clear_fault, ["DELETE"])
    route(routes, PREFIX + "/{kind}", _add_fault_of, ["POST"])


async def _list_faults(request: Request) -> Response:
    return json_response(served_by(request).faults.snapshot())


async def _add_fault(request: Request) -> Response:
    return await _apply(served_by(request).faults, request, None)


async def _clear_faults(request: Request) -> Response:
    return json_response({"cleared": served_by(request).faults.clear()})


async def _clear_fault(request: Request) -> Response:
    fault_id = request.path_params["fault_id"]
    try:
        return json_response({"cleared": served_by(request).faults.clear(fault_id)})
    except KeyError:
        return status_response(not_found("", "faults", fault_id))


async def _add_fault_of(request: Request) -> Response:
    return await _apply(served_by(request).faults, request, request.path_params["kind"])


async def _apply(faults: Faults, request: Request, kind: str | None) -> Response:
    try:
        spec = await control_body(request)
        if kind is not None:
            if spec.get("type", kind) != kind:
                raise bad_request(f"the body's type {spec['type']!r} is not the path's {kind!r}")
            spec["type"] = kind
        try:
            result = faults.apply(spec)
        except (ValueError, TypeError) as err:
            raise bad_request(str(err)) from None
        if isinstance(result, int):
            return json_response({"closed": result})
        if isinstance(result, dict):  # an etcd action's outcome
            return json_response(result)
        return json_response(result.to_dict(), 201)
    except StatusError as err:
        return status_response(err)


async def control_body(request: Request) -> dict[str, Any]:
    """The JSON object body of a control request; an empty body is ``{}``."""
    raw = await request.body()
    try:
        body = orjson.loads(raw) if raw else {}
    except orjson.JSONDecodeError as err:
        raise bad_request(f"error decoding JSON: {err}") from None
    if not isinstance(body, dict):
        raise bad_request("the request body must be a JSON object")
    return body
