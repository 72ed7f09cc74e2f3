"""One ``RequestInfo`` per request: made once where the request enters, its path split and its
query parsed once, and read by every filter and handler after it (``fakeapi.http.request_info``).
In-process: each request goes straight into the ASGI app (httpx's ASGI transport)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from starlette.datastructures import QueryParams

from fakeapi.auth.authentication import ADMIN_TOKEN
from fakeapi.auth.authorization import RBAC, AccessControl
from fakeapi.http import access, request_info, resources
from fakeapi.server import ServerConfig, create_app

PODS = "/api/v1/namespaces/default/pods"
POD = orjson.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                    "spec": {"containers": [{"name": "c", "image": "x"}]}})


#: Requests and their answers: a create, a get, a list with a field selector naming an object, a
#: watch that ends at once, a path no handler serves, a non-resource path.
REQUESTS = [
    ("POST", PODS, b"fieldValidation=Strict", POD, 201),
    ("GET", PODS + "/p", b"", b"", 200),
    ("GET", PODS, b"fieldSelector=metadata.name%3Dp&limit=5", b"", 200),
    ("GET", PODS, b"watch=1&timeoutSeconds=-1", b"", 200),
    ("GET", "/api/v1/namespaces/default/nothings", b"", b"", 404),
    ("GET", "/healthz", b"", b"", 200),
]


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[Any]]]:
    """Who made or read which ``RequestInfo``: the parse itself (``request_info``, ``parse_path``,
    the query's ``QueryParams``), authorization, the metrics and client report, the request faults and the handlers."""
    calls: dict[str, list[Any]] = {
        name: [] for name in ("made", "paths", "queries", "access", "report", "faults", "handler")}

    def spy(module: Any, name: str, kind: str, record: Any) -> None:
        original = getattr(module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            calls[kind].append(record(args, result))
            return result
        monkeypatch.setattr(module, name, wrapper)

    spy(request_info, "request_info", "made", lambda args, result: result)
    spy(request_info, "parse_path", "paths", lambda args, result: result)
    spy(access, "request_attributes", "access", lambda args, result: args[1])
    spy(resources, "request_info_of", "handler", lambda args, result: result)
    spy(resources, "apply_request_faults", "faults", lambda args, result: args[1])
    spy(QueryParams, "__init__", "queries", lambda args, result: args[0])
    yield calls


def test_each_request_is_parsed_once_and_every_reader_reads_that(seen: dict[str, list[Any]]) -> None:
    config = ServerConfig(controllers=frozenset(), access=AccessControl(authorization_modes=(RBAC,)),
                          faults=({"type": "latency", "resource": "secrets", "seconds": 0.001},))
    app = create_app(config)
    report = app.state.server.clients
    begin = report.begin

    def begin_spy(scope: Any, info: Any, cost: Any) -> Any:
        seen["report"].append(info)
        return begin(scope, info, cost)
    report.begin = begin_spy  # type: ignore[method-assign]

    async def run() -> None:
        headers = {"authorization": f"Bearer {ADMIN_TOKEN}", "content-type": "application/json"}
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://fakeapi", headers=headers) as client:
            for method, path, query, body, status in REQUESTS:
                for calls in seen.values():
                    calls.clear()
                answer = await client.request(method, path, params=query.decode(), content=body)
                assert answer.status_code == status, (method, path, answer.text)
                made = seen["made"]
                assert len(made) == 1, (method, path)  # the path split once
                # The query parsed once (none without one: those share an empty QueryParams).
                assert seen["queries"] == ([made[0].query] if query else [])
                info = made[0]
                served = info.served is not None
                assert len(seen["paths"]) == (1 if info.resource_request else 0)
                # Every reader reads the one RequestInfo: authorization always, the metrics and the
                # client report, the request faults and the handlers for what is served.
                assert seen["access"] == [info]
                assert seen["report"] == ([info] if served else [])
                assert seen["faults"] == ([info] if served else [])
                assert all(read is info for read in seen["handler"])
                assert bool(seen["handler"]) == info.resource_request

    asyncio.run(run())


def test_the_readers_agree_on_what_the_request_is() -> None:
    """A list whose field selector names one object: authorized as kube's RequestInfo says (a
    list of that object), measured with the resource scope, counted by the client report as a
    list, with the query its handler reads."""
    registry = create_app(ServerConfig(controllers=frozenset())).state.server.registry
    scope = {"type": "http", "method": "GET", "path": PODS, "headers": [],
             "query_string": b"fieldSelector=metadata.name%3Dp&limit=&limit=5&dryRun=All"}
    info = request_info.request_info(registry, scope)
    assert (info.resource_request, info.verb, info.api_group, info.api_version, info.namespace, info.resource,
            info.name) == (True, "list", "", "v1", "default", "pods", "p")
    assert info.served is not None and info.served.resource == "pods" and info.served.name is None
    assert info.key is not None and (info.key.verb, info.key.scope, info.key.dry_run) == ("GET", "resource", "All")
    assert info.group_resource == "pods"
    assert info.query_value("limit") == ""  # the first, as Go's url.Values.Get
    assert info.query.getlist("limit") == ["", "5"]


@pytest.mark.parametrize(("path", "resource_request", "served"), [
    ("/api/v1/namespaces/default/pods/", True, True),  # a trailing slash routes as without
    ("/api/v1/namespaces/default//pods", True, False),  # an empty segment matches no route
    ("/api/v1/watch/namespaces/default/pods", True, False),  # kube's deprecated watch path
    ("/apis/apps/v1/namespaces/default/deployments/d/scale", True, True),
    ("/apis/apps/v1", False, False),
    ("//api/v1/pods", True, False),  # kube trims the path; no route takes it
])
def test_what_is_served_and_what_is_a_resource_request(path: str, resource_request: bool, served: bool) -> None:
    registry = create_app(ServerConfig(controllers=frozenset())).state.server.registry
    info = request_info.request_info(registry, {"method": "GET", "path": path, "query_string": b"", "headers": []})
    assert (info.resource_request, info.served is not None) == (resource_request, served)
    assert (info.key is not None) == served
