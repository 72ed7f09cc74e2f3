"""The resource endpoints: ``/api/v1/...`` and ``/apis/<group>/<version>/...``.

Paths are parsed by hand into (resource, namespace, name) (``request_info.parse_path``): the
route table of a kube-apiserver has thousands of entries, and a lookup in the registry's dict is
both simpler and faster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import orjson
from starlette.requests import Request
from starlette.responses import Response

from ..admission.webhook import request as webhook_request
from ..apiextensions.structural import StructuralSchema
from ..cacher import json_event
from ..faults.engine import Faults
from ..machinery import patch as patching
from ..machinery import serializer, warning
from ..machinery.delete_options import DeleteOptions, from_body
from ..machinery.field_validation import FieldValidation, OptionsKind, check_custom_fields, check_fields
from ..machinery.gojson import may_repeat_keys
from ..machinery.list_options import ListOptions, parse_bool, parse_resource_version
from ..machinery.write_options import validate_write_options
from ..machinery.schema import Schema, kind_schema
from ..machinery.status import (
    Details,
    StatusError,
    method_not_allowed_path,
    not_acceptable,
    not_found,
    not_found_path,
    request_entity_too_large,
    unclassified_error,
    unsupported_media_type,
)
from ..registry import request_cost
from ..registry.registry import Registry
from ..registry.deletes import is_status
from ..registry.rest import ResourceStore
from ..registry.views import PARTIAL_OBJECT_METADATA, ResponseView, TableView
from ..registry.create_only import CreateOnly
from ..runtime import run_awaiting
from . import protobuf, protobuf_views
from .access import request_user
from .faults import apply_request_faults, slow_list
from .negotiation import (
    COLLECTION_GET_MEDIA_TYPES,
    JSON,
    METADATA_KINDS,
    PROTOBUF,
    ROUTE_MEDIA_TYPES,
    SERVER_MEDIA_TYPES,
    YAML,
    check_route_accepts,
    check_streamable,
    error_media_type,
    negotiate,
)
from .protobuf_views import PARTIAL_OBJECT_METADATA as PROTOBUF_METADATA
from .protobuf_views import ProtobufView, status_body, status_event
from .request_info import ResourceRequest, request_info_of, request_query
from .responses import CHUNKED_TRANSPORT, TRANSPORT, StreamResponse, body_response, status_response

#: kube-apiserver's limit on a JSON request body (``maxRequestBodyBytes``).
MAX_BODY_BYTES = 3 * 1024 * 1024
#: The verb kube names in a MethodNotAllowed message, by HTTP method.
#: go-restful's 415 for a PATCH whose Content-Type its route does not consume (the built-in
#: resources' routes; the custom resource handler answers its own way).
_ROUTE_UNSUPPORTED = StatusError(415, "UnsupportedMediaType", "415: Unsupported Media Type", Details())


#: The media types of object bodies (``codec_factory.go``; the custom resource handler lists the
#: same three), in the order kube's 415 lists them.
OBJECT_MEDIA_TYPES = (JSON, "application/yaml", protobuf.MEDIA_TYPE)


async def read_body(request: Request, accepted: Sequence[str]) -> tuple[str, bytes]:
    """The body's media type (one of ``accepted``; none given means JSON) and its bytes, at
    most ``MAX_BODY_BYTES``."""
    content_type = request.headers.get("content-type") or JSON  # NegotiateInputSerializer's default
    media_type = content_type.split(";")[0].strip().lower()
    if media_type not in accepted:  # what mime.ParseMediaType refuses (";;;") is unsupported too
        raise unsupported_media_type(accepted=accepted)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise request_entity_too_large(f"limit is {MAX_BODY_BYTES}")
    return media_type, bytes(body)


def decode_object(media_type: str, raw: bytes, kind: str | None = None) -> Any:
    """A JSON, YAML or protobuf body as the JSON value kube would decode it to; a body it cannot
    read is a 400 as the handler of a ``kind`` words it (None: the bare error, as the delete
    handler sends it)."""
    if media_type == protobuf.MEDIA_TYPE:
        return protobuf.decode_body(raw)
    return serializer.decode_value(raw, media_type, kind)[0]


async def read_json_body(request: Request) -> Any:
    """An object body (JSON, YAML or protobuf), decoded."""
    return decode_object(*await read_body(request, OBJECT_MEDIA_TYPES))


class BodyTarget(Protocol):
    """What an endpoint decodes its bodies as: ``kind`` of ``group`` in ``versions`` (the first is
    the endpoint's), a custom resource's or a built-in kind's."""

    @property
    def group(self) -> str: ...
    @property
    def versions(self) -> tuple[str, ...]: ...
    @property
    def kind(self) -> str: ...
    @property
    def schema(self) -> Schema | None: ...
    @property
    def custom(self) -> bool: ...
    @property
    def structural(self) -> StructuralSchema | None: ...


@dataclass(frozen=True, slots=True)
class _ResourceTarget:
    group: str
    versions: tuple[str, ...]
    kind: str
    schema: Schema | None
    custom: bool
    structural: StructuralSchema | None


#: A ``/scale`` body: the autoscaling/v1 Scale its handler decodes, whatever the object's kind.
_SCALE_TARGET = _ResourceTarget("autoscaling", ("v1",), "Scale", kind_schema("autoscaling", "v1", "Scale"), False, None)


def _target(served: ResourceStore) -> _ResourceTarget:
    return _ResourceTarget(served.resource_type.group, (served.api_version.rpartition("/")[2],),
                           served.resource_type.kind, served.schema, served.resource_type.custom, served.structural)


async def read_object(request: Request, target: BodyTarget,
                      options: OptionsKind) -> tuple[Any, list[str], bool, bool]:
    """A create or update body of ``target``, decoded as kube's handlers decode it, the
    ``Warning`` headers its unknown or duplicate fields earn under the request's
    ``fieldValidation`` (``Strict`` makes them a 400), whether the write is a dry run, and
    whether the object is already as its Go type prints it (a protobuf body: the stores' decoding
    need not walk it again, their ``go_decoded``). The options are checked once the body is read,
    before it is decoded, as kube does. The body is decoded once; its strict errors are found in
    the decoded object, or in a JSON body's members where it may repeat a key
    (``field_validation``)."""
    media_type, raw = await read_body(request, OBJECT_MEDIA_TYPES)
    policy, dry = validate_write_options(options, request_query(request))
    kind = target.kind
    if media_type == protobuf.MEDIA_TYPE:
        value: Any = protobuf.decode_body(raw, (target.group, target.versions[0], kind))
        duplicates: list[str] = []
    else:
        value, duplicates = serializer.decode_value(raw, media_type, kind)
    # Told from the value as decoded, before its kind and version are filled in.
    repeating = raw if media_type == JSON and policy is not FieldValidation.IGNORE \
        and may_repeat_keys(raw, value) else None
    obj = serializer.decode_object(value, raw, group=target.group, versions=target.versions, kind=kind,
                                   custom=target.custom)
    version = str(obj.get("apiVersion", "")).rpartition("/")[2]
    warnings: list[str] = []
    if target.structural is not None:
        warnings = check_custom_fields(policy, repeating, lambda: _pruned_fields(obj, target), obj["kind"], version,
                                       duplicates)
    # A protobuf body has no unknown or repeated fields to report: kube's codec factory gives
    # protobuf no strict decoder (its StrictSerializer is the plain one), whatever the policy.
    elif media_type != protobuf.MEDIA_TYPE:
        if media_type == JSON:
            serializer.check_number_literals(raw, obj)
        warnings = check_fields(policy, obj, target.schema, kind, version, duplicates, repeating)
    serializer.check_group_version(obj, target.group, target.versions)
    return obj, warnings, dry, media_type == protobuf.MEDIA_TYPE


def _pruned_fields(obj: dict[str, Any], target: BodyTarget) -> list[str]:
    """The unknown field paths of a custom resource's body, which its decoding prunes (in place)
    when it is of the endpoint's kind and version: kube prunes another version by that version's
    schema and another kind not at all, and the handler refuses either."""
    structural = target.structural
    endpoint_version = f"{target.group}/{target.versions[0]}"
    if structural is None or obj["kind"] != target.kind or obj.get("apiVersion") != endpoint_version:
        return []
    return structural.prune_resource(obj)


def with_warnings(response: Response, warnings: Sequence[str]) -> Response:
    # In UTF-8, as kube writes them: a warning may quote what a body held (an unknown field
    # named with U+FFFD), which Starlette's header API, encoding to latin-1, cannot carry.
    response.raw_headers.extend((b"warning", text.encode()) for text in warnings)
    return response


def dry_run(request: Request) -> bool:
    """Whether an update (a subresource's PUT) is a dry run; its options checked as kube does."""
    return validate_write_options("UpdateOptions", request_query(request))[1]


class Output:
    """How a response is written: the view its objects are encoded in (None: the stored JSON)
    and its media type; or the error kube answers once it has the result (a conversion that
    does not fit it), raised by ``respond`` and ``object``."""

    __slots__ = ("view", "media_type", "error")

    def __init__(self, view: ResponseView | None, media_type: str, error: StatusError | None = None) -> None:
        self.view = view
        self.media_type = media_type
        self.error = error

    def respond(self, body: bytes, status: int = 200) -> Response:
        """A body already in this output's form (what the registry's reads return; YAML is
        written from the JSON)."""
        if self.error is not None:
            raise self.error
        return body_response(body, self.media_type, status)

    def object(self, raw: bytes, status: int = 200, *, written_to: ResourceStore | None = None) -> Response:
        """An object a write returned as stored JSON (or the Status a DELETE answers with). A
        protobuf encoding of what ``written_to`` (the storage version's store; not given for a
        dry run) just stored is handed to its cacher, for the LISTs and watches to come; an
        answer that is not what it stored (``stored_object``) is not."""
        if self.error is not None:
            raise self.error
        view = self.view
        if is_status(raw):
            if self.media_type == PROTOBUF:
                return Response(status_body(orjson.loads(raw)), status_code=status, media_type=PROTOBUF)
            return body_response(raw, self.media_type, status)
        if view is None:
            return self.respond(raw, status)
        stored = written_to.stored_object(raw) if written_to is not None and written_to.storage is written_to else None
        if not isinstance(view, ProtobufView) or stored is None:
            return self.respond(view.body(view.encode(raw)), status)
        encoded = view.encode_object(stored)
        meta = stored["metadata"]
        written_to.cacher.prepare(written_to.key(meta.get("namespace") or None, meta["name"]),
                                  int(meta["resourceVersion"]), view.name, encoded)
        return self.respond(view.body(encoded), status)


def output(request: Request, served: ResourceStore, target: str, *, tables: bool = True) -> Output:
    """The negotiated output of a request for one object or a watch (``target`` "object") or a
    list ("list"); ``tables``: whether the endpoint's storage converts to a Table."""
    negotiated = negotiate(request.headers.get("accept"), custom=served.resource_type.custom, tables=tables)
    convert = negotiated.convert
    if convert is not None and convert.kind in METADATA_KINDS and (convert.kind == METADATA_KINDS[1]) != (target == "list"):
        return Output(None, negotiated.media_type, _metadata_conversion_failed(served, convert.kind, target))
    if negotiated.media_type == PROTOBUF:
        view = PROTOBUF_METADATA[convert.version] if convert is not None else \
            protobuf_views.object_view(served.api_version, served.kind)
        if view is None:  # a kind kube has no message for: a custom resource (JSON)
            raise not_acceptable(accepted=SERVER_MEDIA_TYPES)
        return Output(view, PROTOBUF)
    media_type = negotiated.media_type  # JSON or YAML from here on
    if convert is None:
        return Output(None, media_type)
    if convert.kind == "Table":
        from ..printers.tables import validate_include_object  # the printers: loaded with the first Table

        include_object = request_query(request).get("includeObject")
        error = validate_include_object(include_object)
        if error is not None:
            raise error
        return Output(TableView(served.resource_type, api_version=convert.api_version, include_object=include_object,
                                printer_columns=served.printer_columns), media_type)
    return Output(PARTIAL_OBJECT_METADATA[convert.version], media_type)


def _metadata_conversion_failed(served: ResourceStore, kind: str, target: str) -> StatusError:
    """kube's ``asPartialObjectMetadata(List)`` of the wrong shape, naming the Go type of the
    handler's result: the group's internal type (``*core.ConfigMapList``), or unstructured."""
    if served.resource_type.custom:
        go_type = "*unstructured.UnstructuredList" if target == "list" else "*unstructured.Unstructured"
    else:
        package = _INTERNAL_PACKAGES.get(served.resource_type.group, served.resource_type.group.split(".")[0])
        go_type = f"*{package}.{served.resource_type.kind}" + ("List" if target == "list" else "")
    if kind == METADATA_KINDS[0]:
        message = f"you requested PartialObjectMetadata, but the requested object is a list ({go_type})"
    else:
        message = f"you requested PartialObjectMetadataList, but the requested object is not a list ({go_type})"
    return StatusError(406, "NotAcceptable", message)


T = TypeVar("T")

#: The internal API packages whose name is not the group's first label.
_INTERNAL_PACKAGES = {"": "core", "events.k8s.io": "core"}


async def handle(registry: Registry, request: Request, faults: Faults) -> Response:
    """One request to a resource endpoint (its ``RequestInfo`` says which), with the ``Warning``
    headers the write earned."""
    with warning.recording() as warnings:
        response = await _handle(registry, request, faults)
    return with_warnings(response, warnings)


#: The served APIs kube 1.35 marks deprecated (``APILifecycleDeprecated`` at or before 1.35):
#: every request to them earns this warning first (the installer's ``AddWarningsHandler``).
DEPRECATED_APIS = {
    ("", "v1", "endpoints"): "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
}


async def _handle(registry: Registry, request: Request, faults: Faults) -> Response:
    info = request_info_of(request.scope)
    try:
        req = info.served
        if req is None:
            raise not_found_path()
        collection_get = request.method == "GET" and req.name is None and req.creater is None
        check_route_accepts(request.headers.get("accept"), COLLECTION_GET_MEDIA_TYPES if collection_get else ROUTE_MEDIA_TYPES)
        if DEPRECATED_APIS and (deprecation := DEPRECATED_APIS.get((req.group, info.api_version, req.resource))):
            warning.add(deprecation)
        # The fault hook: with no request fault active, one truthiness test is all it costs.
        per_item = await apply_request_faults(faults, info, req) if faults.request_faults else 0.0
        if req.creater is not None:
            return await _create_only(registry, request, req.creater, (req.group, req.resource), req.namespace, None, "")
        if req.subresource is not None:
            return await _subresource(registry, request, req)
        method = request.method
        served, ns, name = req.served, req.namespace, req.name
        assert served is not None
        if method == "GET":
            if name is not None:
                out = output(request, served, "object")
                problem = parse_resource_version(info.query.get("resourceVersion") or "0")[1]
                if problem:  # the storage's Get passes the versioner's error on unclassified
                    raise unclassified_error(problem)
                return out.respond(await _read(served, served.get, ns, name, out.view))
            opts = ListOptions.from_query(info.query)
            opts.validate()  # kube's ListResource validates the options before it negotiates
            if opts.watch:
                return await watch(served, ns, opts, output(request, served, "object"), request.scope.get(TRANSPORT),
                                   direct=request.scope.get(CHUNKED_TRANSPORT, False))
            out = output(request, served, "list")
            listed = await served.list(ns, opts, out.view)
            if per_item:
                await slow_list(listed, per_item)
            return out.respond(listed)
        if method == "POST" and name is None:
            out = output(request, served, "object")
            body, warnings, dry, go_decoded = await read_object(request, _target(served), "CreateOptions")
            for value in warnings:
                warning.add_header(value)
            created = await _admitted(registry, request, served, _write_options("CreateOptions", request, dry), dry,
                                      served.create, ns, body, dry, manager=field_manager(request),
                                      go_decoded=go_decoded)
            return out.object(created, 201, written_to=None if dry else served)
        if method == "PUT" and name is not None:
            out = output(request, served, "object")
            body, warnings, dry, go_decoded = await read_object(request, _target(served), "UpdateOptions")
            for value in warnings:
                warning.add_header(value)
            updated = await _admitted(registry, request, served, _write_options("UpdateOptions", request, dry), dry,
                                      served.update, ns, name, body, dry_run=dry, manager=field_manager(request),
                                      go_decoded=go_decoded)
            return out.object(updated, written_to=None if dry else served)
        if method == "PATCH" and name is not None:
            return await _patch(registry, request, served, ns, name, None)
        if method == "DELETE":
            options = await _delete_options(request)
            if name is None:
                out = output(request, served, "list")
                opts = ListOptions.from_query(info.query)
                return out.respond(await _admitted(registry, request, served, options.to_json(), options.dry_run,
                                                   served.delete_collection, ns, opts, options,
                                                   gc_finalizers=registry.garbage_collection, view=out.view))
            out = output(request, served, "object")
            body, _gone = await _admitted(registry, request, served, options.to_json(), options.dry_run, served.delete,
                                          ns, name, options, gc_finalizers=registry.garbage_collection)
            return out.object(body)
        raise method_not_allowed_path()  # no route for this method
    except StatusError as err:
        return status_response(err, error_media_type(request.headers.get("accept")))


async def _subresource(registry: Registry, request: Request, req: ResourceRequest) -> Response:
    """``/status``, ``/scale`` and the pods' spec subresources where the resource has them, the
    create-only subresources (``pods/binding``, ...), and namespaces' ``/finalize``."""
    served, ns, name, sub = req.served, req.namespace, req.name, req.subresource
    assert served is not None and name is not None and sub is not None
    method = request.method
    creater = registry.subresource_creaters.get(
        (served.resource_type.group, served.resource_type.version, served.resource_type.plural, sub))
    if creater is not None:
        return await _create_only(registry, request, creater, (req.group, req.resource), ns, name, sub)
    if sub == "finalize" and served is registry.namespaces:
        if method != "PUT":
            raise method_not_allowed_path()
        out = output(request, served, "object")
        return out.object(registry.namespaces.finalize(name, await read_json_body(request), dry_run(request)))
    if (sub not in served.resource_type.subresources
            or sub not in ("status", "scale") and sub not in served.storage.subresource_strategies):
        if served.resource_type.custom:  # the custom resource handler looks the object up first
            raise not_found(served.resource_type.group, served.resource_type.plural, name)
        raise not_found_path()
    if sub == "scale":
        return await _scale(registry, request, served, ns, name)
    # The storages of the subresources with a strategy of their own (pods' ephemeralcontainers
    # and resize, CSRs' approval) have no TableConvertor; status storages do.
    out = output(request, served, "object", tables=sub not in served.storage.subresource_strategies)
    if method == "GET":
        return out.respond(await _read(served, served.get, ns, name, out.view))
    if method == "PUT":
        # decoded as the object's own PUT decodes it (kube's one UpdateResource handler):
        # fieldValidation's unknown and repeated fields included
        body, warnings, dry, go_decoded = await read_object(request, _target(served), "UpdateOptions")
        for value in warnings:
            warning.add_header(value)
        updated = await _admitted(registry, request, served, _write_options("UpdateOptions", request, dry), dry,
                                  served.update, ns, name, body, subresource=sub, dry_run=dry,
                                  manager=field_manager(request), go_decoded=go_decoded)
        return out.object(updated, written_to=None if dry else served)
    if method == "PATCH":
        return await _patch(registry, request, served, ns, name, sub)
    raise method_not_allowed_path()  # no route: kube serves these subresources GET, PUT and PATCH only


async def _scale(registry: Registry, request: Request, served: ResourceStore, ns: str | None, name: str) -> Response:
    """``/scale``: an ``autoscaling/v1`` Scale, in protobuf when asked for (custom resources'
    scale too: kube serves it with the built-in Scale's codecs)."""
    method = request.method
    media_type = negotiate(request.headers.get("accept")).media_type
    out = Output(protobuf_views.object_view("autoscaling/v1", "Scale") if media_type == PROTOBUF else None, media_type)
    if method == "GET":
        return out.object(await _read(served, served.get_scale, ns, name))
    if method == "PUT":
        body, warnings, dry, _go_decoded = await read_object(request, _SCALE_TARGET, "UpdateOptions")
        for value in warnings:
            warning.add_header(value)
        return out.object(await _admitted(registry, request, served, _write_options("UpdateOptions", request, dry), dry,
                                          served.update_scale_by, ns, name, lambda _current: body,
                                          manager=field_manager(request), dry_run=dry))
    if method == "PATCH":
        return await _patch(registry, request, served, ns, name, "scale", out)
    raise method_not_allowed_path()


async def _create_only(registry: Registry, request: Request, creater: CreateOnly, resource: tuple[str, str],
                       namespace: str | None, name: str | None, subresource: str) -> Response:
    """A create-only resource or subresource: POST only (no other route exists for it)."""
    if request.method != "POST":
        raise method_not_allowed_path()
    media_type = negotiate(request.headers.get("accept"), tables=False).media_type
    body_type = creater.body_type
    body, warnings, dry, _go_decoded = await read_object(request, body_type, "CreateOptions")
    user = request_user(request)
    answer = await _admitted(
        registry, request, None, _write_options("CreateOptions", request, dry), dry, creater.handle,
        body, resource=resource, namespace=namespace, name=name, subresource=subresource, dry_run=dry,
        manager=field_manager(request), admission=registry.admission, namespace_phase=registry.namespace_phase,
        user=lambda: user, version=request_info_of(request.scope).api_version)
    # A Status answer is sent with its own code (an eviction's failure is a 500).
    is_status_answer = answer.get("kind") == "Status"
    code = answer["code"] if is_status_answer else 201
    if media_type == PROTOBUF:
        if is_status_answer:
            return with_warnings(Response(status_body(answer), status_code=code, media_type=PROTOBUF), warnings)
        view = protobuf_views.object_view(answer["apiVersion"], answer["kind"])
        if view is not None:
            body = view.body(view.encode_object(answer))
            return with_warnings(Response(body, status_code=code, media_type=PROTOBUF), warnings)
    return with_warnings(body_response(orjson.dumps(answer), media_type if media_type == YAML else JSON, code),
                         warnings)


async def _patch(registry: Registry, request: Request, served: ResourceStore, ns: str | None, name: str,
                 sub: str | None, out: Output | None = None) -> Response:
    out = out or output(request, served, "object")
    try:
        media_type, raw = await read_body(request, patching.accepted_patch_types(served.schema))
    except StatusError as err:
        if err.code == 415 and not served.resource_type.custom:
            raise _ROUTE_UNSUPPORTED from None
        raise
    query = request_query(request)
    is_apply = media_type == patching.APPLY_PATCH
    validation, dry = validate_write_options("PatchOptions", query, patch_type=media_type)
    written_to = None if dry or sub == "scale" else served
    options = _write_options("UpdateOptions", request, dry)
    if is_apply:
        body, created = await _admitted(registry, request, served, options, dry, served.apply, ns, name, raw,
                                        manager=query["fieldManager"], force=parse_bool(query.get("force", "false")),
                                        subresource=sub, dry_run=dry, validation=validation)
        return out.object(body, 201 if created else 200, written_to=written_to)
    return out.object(await _admitted(registry, request, served, options, dry, served.patch, ns, name, media_type, raw,
                                      subresource=sub, dry_run=dry, manager=field_manager(request),
                                      validation=validation), written_to=written_to)


def _write_options(kind: str, request: Request, dry: bool) -> dict[str, Any]:
    return webhook_request.write_options(kind, request_query(request), ["All"] if dry else ())


async def _admitted(registry: Registry, request: Request, served: ResourceStore | None, options: dict[str, Any],
                    dry: bool, write: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``write(*args, **kwargs)`` to ``served``, admitted by the webhooks and policies it
    matches: with any configured (or a plugin enabled that may wait: ``Admission.may_wait``, or
    a version of ``served`` converted by a webhook, or a store whose calls wait: ``calls_wait``),
    the write runs where it can wait without blocking the event loop, and knows the request's
    user and ``options`` (kube's admission attributes); else it runs as it is."""
    if (not registry.admission.configured() and not registry.admission.may_wait and not registry.store.calls_wait
            and (served is None or not served.waits)):
        return write(*args, **kwargs)
    info = request_info_of(request.scope)
    token = webhook_request.current.set(webhook_request.WebhookRequest(
        request_user(request).to_json(), options, dry, (info.api_group, info.api_version, info.resource)))
    try:
        return await run_awaiting(write, *args, **kwargs)
    finally:
        webhook_request.current.reset(token)


def field_manager(request: Request) -> str:
    """The request's field manager: ``fieldManager``, else the User-Agent's product name
    (``prefixFromUserAgent``: ``kubectl`` of ``kubectl/v1.32.4 (linux/amd64) ...``)."""
    return request_query(request).get("fieldManager") or request.headers.get("user-agent", "").split("/")[0][:128]


async def _delete_options(request: Request) -> DeleteOptions:
    """The options of a DELETE: its body's if it has one, else its query's."""
    body = None
    if int(request.headers.get("content-length") or 0):
        media_type, raw = await read_body(request, OBJECT_MEDIA_TYPES)
        body = from_body(decode_object(media_type, raw), raw) if raw else None
    return DeleteOptions.parse(body, request_query(request))


async def _read(served: ResourceStore, read: Callable[..., T], *args: Any) -> T:
    """``read(*args)`` of ``served``; where it can wait on the event loop if its version is
    converted by a webhook or its store's calls wait (``ResourceStore.waits``)."""
    if served.waits:
        return await run_awaiting(read, *args)
    return read(*args)


async def watch(served: ResourceStore, namespace: str | None, opts: ListOptions, out: Output,
                transport: asyncio.Transport | None = None, *, direct: bool = False) -> Response:
    """A watch response; with ``direct`` (``CHUNKED_TRANSPORT``) its live events are written to
    ``transport`` as chunks (``CacheWatcher.write_directly``)."""
    if out.error is not None:
        raise out.error
    media_type = out.media_type if out.media_type == JSON else out.media_type + ";stream=watch"
    if opts.timeout_seconds is not None and opts.timeout_seconds < 0:
        # Its context has expired before it starts: kube's watch ends at once (with or without
        # an error event, as a race decides; an empty stream here).
        check_streamable(out.media_type)
        return StreamResponse(_once(b""), media_type=media_type)
    start = await served.watch(namespace, opts, out.view)
    try:
        # kube's watch handler picks the stream serializer after the storage's Watch started
        # (whose errors come first), and stops the watch when there is none.
        check_streamable(out.media_type)
    except StatusError:
        if start.watcher is not None:
            served.cacher.unregister(start.watcher)
        raise
    if start.watcher is None:
        # kube sends a too-old resourceVersion as the stream's only event, after a 200.
        err = start.error
        assert err is not None
        if out.media_type == PROTOBUF:
            event = status_event(err.to_dict())
        else:
            event = json_event("ERROR", orjson.dumps(err.to_dict()))
        return StreamResponse(_once(event), media_type=media_type)
    watcher = start.watcher
    if transport is not None:  # a watcher that falls behind is cut off, its connection with it
        watcher.on_terminated = transport.abort
        if direct:
            watcher.write_directly(_chunk_writer(transport), lambda: transport.get_write_buffer_size() > DIRECT_BACKLOG)
    cacher = served.cacher

    async def body():  # type: ignore[no-untyped-def]
        try:
            async for chunk in watcher.lines():
                yield chunk
        finally:
            cacher.unregister(watcher)
            cost = request_cost.current.get()
            if cost is not None:
                cost.response_bytes += watcher.bytes_written_directly

    return StreamResponse(body(), media_type=media_type)


#: A watch writes its live events to its connection directly while less than this is waiting
#: in the transport's buffer; past it, through its queue and the ASGI send, which waits for the
#: socket to drain.
DIRECT_BACKLOG = 256 * 1024


def _chunk_writer(transport: asyncio.Transport) -> Callable[[bytes], None]:
    """Writes one HTTP/1.1 chunk; nothing once the connection is closing (the watch then ends
    through its ASGI side)."""
    write, closing = transport.write, transport.is_closing

    def write_chunk(data: bytes) -> None:
        if not closing():
            write(b"%x\r\n%b\r\n" % (len(data), data))

    return write_chunk


async def _once(line: bytes):  # type: ignore[no-untyped-def]
    yield line
