"""The resource endpoints: ``/api/v1/...`` and ``/apis/<group>/<version>/...``.

Paths are parsed by hand into (resource, namespace, name): the route table of a kube-apiserver
has thousands of entries, and a lookup in the registry's dict is both simpler and faster.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ..registry.delete_options import DeleteOptions
from ..registry.list_options import ListOptions
from ..registry.registry import Registry
from ..registry.rest import ResourceStore
from ..registry.status import StatusError, bad_request, method_not_supported, not_found_path, request_entity_too_large, unsupported_media_type
from ..registry.views import MetadataView
from . import protobuf
from .negotiation import response_view
from .responses import JSON, json_bytes, status_response

#: kube-apiserver's limit on a JSON request body (``maxRequestBodyBytes``).
MAX_BODY_BYTES = 3 * 1024 * 1024
#: The verb kube names in a MethodNotAllowed message, by HTTP method.
_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete", "GET": "get"}


class ResourceRequest:
    __slots__ = ("rs", "namespace", "name", "subresource")

    def __init__(self, rs: ResourceStore, namespace: str | None, name: str | None, subresource: str | None):
        self.rs = rs
        self.namespace = namespace
        self.name = name
        self.subresource = subresource


def parse_path(registry: Registry, group: str, version: str, rest: str) -> ResourceRequest:
    """``[namespaces/<ns>/]<plural>[/<name>[/<subresource>]]``."""
    parts = [p for p in rest.split("/") if p]
    namespace = None
    # namespaces/<ns>/status and /finalize are the namespace's own subresources, not a resource.
    namespace_subresource = group == "" and len(parts) >= 3 and parts[2] in ("status", "finalize")
    if len(parts) >= 3 and parts[0] == "namespaces" and not namespace_subresource:
        namespace, parts = parts[1], parts[2:]
    if not parts or len(parts) > 3:
        raise not_found_path()
    rs = registry.resources.get((group, version, parts[0]))
    if rs is None:
        raise not_found_path()
    if namespace is not None and not rs.rt.namespaced:
        raise not_found_path()
    name = parts[1] if len(parts) > 1 else None
    sub = parts[2] if len(parts) > 2 else None
    return ResourceRequest(rs, namespace, name, sub)


async def read_json_body(request: Request) -> Any:
    """The request body as JSON would give it; a protobuf body decoded to the same JSON. The 415
    lists the media types kube's serializers decode (``codec_factory.go``; the custom resource
    handler lists the same three)."""
    ctype = request.headers.get("content-type", JSON).split(";")[0].strip()
    if ctype not in (JSON, "application/yaml", protobuf.MEDIA_TYPE, "*/*", ""):
        raise unsupported_media_type(accepted=(JSON, "application/yaml", protobuf.MEDIA_TYPE))
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise request_entity_too_large("the request body is too large")
    if ctype == protobuf.MEDIA_TYPE:
        return protobuf.decode_body(bytes(body))
    if ctype == "application/yaml":
        import yaml

        try:
            return yaml.safe_load(bytes(body))
        except yaml.YAMLError as err:
            raise bad_request(f"error decoding YAML: {err}") from None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as err:
        raise bad_request(f"error decoding JSON: {err}") from None


def dry_run(request: Request) -> bool:
    values = request.query_params.getlist("dryRun")
    for v in values:
        if v != "All":
            raise bad_request(f'invalid dry run option: "{v}"')
    return bool(values)


async def handle(registry: Registry, request: Request, group: str, version: str, rest: str) -> Response:
    try:
        req = parse_path(registry, group, version, rest)
        if req.subresource is not None:
            return await _subresource(registry, request, req)
        method = request.method
        rs, ns, name = req.rs, req.namespace, req.name
        if method == "GET":
            accept = request.headers.get("accept")
            if name is not None:
                return json_bytes(rs.get(ns, name, response_view(accept, "object")))
            opts = ListOptions.from_query(request.query_params)
            if opts.watch:
                return await watch(rs, ns, opts, response_view(accept, "object"))
            return json_bytes(await rs.list(ns, opts, response_view(accept, "list")))
        if method == "POST" and name is None:
            return json_bytes(rs.create(ns, await read_json_body(request), dry_run(request)), 201)
        if method == "PUT" and name is not None:
            return json_bytes(rs.update(ns, name, await read_json_body(request), dry_run=dry_run(request)))
        if method == "DELETE":
            options = await _delete_options(request)
            if name is None:
                opts = ListOptions.from_query(request.query_params)
                return json_bytes(rs.delete_collection(ns, opts, options, gc_finalizers=registry.garbage_collection))
            body, _gone = rs.delete(ns, name, options, gc_finalizers=registry.garbage_collection)
            return json_bytes(body)
        raise method_not_supported(rs.rt.group, rs.rt.plural, _VERBS.get(method, method.lower()))
    except StatusError as err:
        return status_response(err)


async def _subresource(registry: Registry, request: Request, req: ResourceRequest) -> Response:
    """``/status`` and ``/scale`` where the resource has them, and namespaces' ``/finalize``."""
    rs, ns, name, sub = req.rs, req.namespace, req.name, req.subresource
    assert name is not None and sub is not None
    method = request.method
    if sub == "finalize" and rs is registry.namespaces:
        if method != "PUT":
            raise method_not_supported("", "namespaces/finalize", _VERBS.get(method, method.lower()))
        return json_bytes(registry.namespaces.finalize(name, await read_json_body(request), dry_run(request)))
    if sub not in rs.rt.subresources or sub not in ("status", "scale"):
        raise not_found_path()
    if method == "GET":
        return json_bytes(rs.get_scale(ns, name) if sub == "scale" else rs.get(ns, name))
    if method == "PUT":
        body = await read_json_body(request)
        if sub == "scale":
            return json_bytes(rs.update_scale(ns, name, lambda _current: body, dry_run(request)))
        return json_bytes(rs.update(ns, name, body, subresource=sub, dry_run=dry_run(request)))
    raise method_not_supported(rs.rt.group, f"{rs.rt.plural}/{sub}", _VERBS.get(method, method.lower()))


async def _delete_options(request: Request) -> DeleteOptions:
    body = await read_json_body(request) if int(request.headers.get("content-length") or 0) else None
    return DeleteOptions.parse(body, request.query_params)


async def watch(rs: ResourceStore, namespace: str | None, opts: ListOptions, view: MetadataView | None) -> Response:
    start = await rs.watch(namespace, opts, view)
    if start.watcher is None:
        # kube sends a too-old resourceVersion as the stream's only event, after a 200.
        err = start.error
        assert err is not None
        line = b'{"type":"ERROR","object":' + orjson.dumps(err.to_dict()) + b"}\n"
        return StreamingResponse(_once(line), media_type=JSON)
    watcher = start.watcher
    cacher = rs.cacher

    async def body():  # type: ignore[no-untyped-def]
        try:
            async for chunk in watcher.lines():
                yield chunk
        finally:
            cacher.unregister(watcher)

    return StreamingResponse(body(), media_type=JSON)


async def _once(line: bytes):  # type: ignore[no-untyped-def]
    yield line

