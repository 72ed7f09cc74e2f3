"""OpenAPI v3: the discovery root ``GET /openapi/v3`` and one document per served group version
(``GET /openapi/v3/api/v1``, ``GET /openapi/v3/apis/<group>/<version>``).

kubectl reads them for ``explain`` and, before it sends ``fieldValidation=Strict``, to check that
the PATCH operation of the object's kind declares the ``fieldValidation`` parameter
(``cli-runtime/pkg/resource/query_param_verifier_v3.go``); without them it falls back to OpenAPI
v2 and client-side validation.

Serving mirrors kube-openapi's ``pkg/handler3/handler.go``: the root maps each group version to
``/openapi/v3/<gv>?hash=<ETAG>``, the ETag being the upper-case hex SHA-512 of the document's JSON.
A document asked for with its current hash is immutable for a year (``Cache-Control: public,
immutable``), which is what lets kubectl's disk cache skip it; a stale hash is redirected (301) to
the current one. As in kube, the root needs every document's hash, so the first request for the
root builds every document; a request for one document builds only that one. Both are cached as
bytes until the group version is registered again or removed.

Documents have the shape of a live kube-apiserver's (client-go's ``openapi/openapitest/testdata``
were fetched from one): ``components.schemas`` holds the definitions of the kinds served and all
they reference, ``paths`` the operations of each resource, tagged with ``x-kubernetes-action`` and
``x-kubernetes-group-version-kind``. Definitions come from ``schema.definitions()``
(kubernetes-validate's JSON Schema rendering of the release's OpenAPI), converted back: nullable
type lists to one type, ``#/$defs/`` to ``#/components/schemas/`` references, and a reference
with siblings wrapped in ``allOf`` as kube-openapi's v3 builder writes it. What that rendering
dropped (``default`` values, the descriptions of ``IntOrString`` and ``Quantity``) is not restored.
"""

from __future__ import annotations

import hashlib
from collections import ChainMap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from email.utils import format_datetime
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from ..apis.catalogue import ResourceType
from ..machinery.schema import definitions
from ..registry.registry import Registry
from .request_info import request_query
from .responses import JSON, route, served_by

Json = dict[str, Any]

_JSON_SCHEMA_REF = "#/$defs/"
_COMPONENTS_REF = "#/components/schemas/"
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
#: Definitions every group version's operations refer to besides its kinds.
_META_DEFINITIONS = tuple(_META + name for name in ("APIResourceList", "DeleteOptions", "Patch", "Status", "WatchEvent"))

#: Keywords whose value is one schema, a list of schemas, or a map of schemas by name. Every other
#: keyword's value is data (``enum``, ``required``, ``x-kubernetes-*``) and is copied as is, so a
#: property named like a keyword (``JSONSchemaProps.$ref``) is never mistaken for one.
_SCHEMA_KEYWORDS = frozenset(("items", "additionalProperties", "not", "additionalItems"))
_SCHEMA_LIST_KEYWORDS = frozenset(("allOf", "anyOf", "oneOf"))
_SCHEMA_MAP_KEYWORDS = frozenset(("properties", "patternProperties", "definitions"))

#: Response media types of built-in resources; custom resources are not served as protobuf.
_BUILTIN_MEDIA_TYPES = ("application/json", "application/vnd.kubernetes.protobuf", "application/yaml")
_CUSTOM_MEDIA_TYPES = ("application/json", "application/yaml")
_WATCH_MEDIA_TYPES = ("application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch")
_PATCH_MEDIA_TYPES = ("application/apply-patch+yaml", "application/json-patch+json",
                      "application/merge-patch+json", "application/strategic-merge-patch+json")
#: pods/log and the other connect subresources answer text or streams, not objects; they have
#: operations of their own shape, left out until fakeapi serves them.
_CONNECT_SUBRESOURCES = frozenset(("log",))


def _query_parameter(name: str, type_: str, description: str) -> Json:
    return {"description": description, "in": "query", "name": name, "schema": {"type": type_, "uniqueItems": True}}


#: Query parameters as kube-apiserver documents them (generated from ``metav1.ListOptions``,
#: ``CreateOptions``, ``PatchOptions``, ``DeleteOptions``).
_PARAMETERS: Mapping[str, Json] = {p["name"]: p for p in (
    _query_parameter("allowWatchBookmarks", "boolean", 'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server\'s discretion. Clients should not assume bookmarks are returned at any specific interval, nor may they assume the server will send any BOOKMARK event during a session. If this is not a watch, this field is ignored.'),
    _query_parameter("continue", "string", 'The continue option should be set when retrieving more results from the server. Since this value is server defined, clients may only use the continue value from a previous query result with identical query parameters (except for the value of continue) and the server may reject a continue value it does not recognize. If the specified continue value is no longer valid whether due to expiration (generally five to fifteen minutes) or a configuration change on the server, the server will respond with a 410 ResourceExpired error together with a continue token. If the client needs a consistent list, it must restart their list without the continue field. Otherwise, the client may send another list request with the token received with the 410 error, the server will respond with a list starting from the next key, but from the latest snapshot, which is inconsistent from the previous list results - objects that are created, modified, or deleted after the first list request will be included in the response, as long as their keys are after the "next key".\n\nThis field is not supported when watch is true. Clients may start a watch from the last resourceVersion value returned by the server and not miss any modifications.'),
    _query_parameter("dryRun", "string", "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed"),
    _query_parameter("fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint."),
    _query_parameter("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields. Defaults to everything."),
    _query_parameter("fieldValidation", "string", "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. This is the default behavior prior to v1.23. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered."),
    _query_parameter("force", "boolean", 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.'),
    _query_parameter("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately."),
    _query_parameter("labelSelector", "string", "A selector to restrict the list of returned objects by their labels. Defaults to everything."),
    _query_parameter("limit", "integer", "limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results. Setting a limit may return fewer than the requested amount of items (up to zero items) in the event all requested objects are filtered out and clients should only use the presence of the continue field to determine whether more results are available. Servers may choose not to support the limit argument and will return all of the available results. If limit is specified and the continue field is empty, clients may assume that no more results are available. This field is not supported if watch is true.\n\nThe server guarantees that the objects returned when using continue will be identical to issuing a single list call without a limit - that is, no objects created, modified, or deleted after the first request is issued will be included in any subsequent continued requests. This is sometimes referred to as a consistent snapshot, and ensures that a client that is using limit to receive smaller chunks of a very large result can ensure they see all possible objects. If objects are updated during a chunked list the version of the object that was present at the time the first list result was calculated is returned."),
    _query_parameter("orphanDependents", "boolean", 'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the "orphan" finalizer will be added to/removed from the object\'s finalizers list. Either this field or PropagationPolicy may be set, but not both.'),
    _query_parameter("pretty", "string", "If 'true', then the output is pretty printed."),
    _query_parameter("propagationPolicy", "string", "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a cascading policy that deletes all dependents in the foreground."),
    _query_parameter("resourceVersion", "string", "resourceVersion sets a constraint on what resource versions a request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset"),
    _query_parameter("resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is applied to list calls. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset"),
    _query_parameter("timeoutSeconds", "integer", "Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity."),
    _query_parameter("watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion."),
)}
#: PATCH's fieldManager says more than the other verbs' (``PatchOptions.FieldManager``).
_PATCH_FIELD_MANAGER = {**_PARAMETERS["fieldManager"], "description": _PARAMETERS["fieldManager"]["description"] + " This field is required for apply requests (application/apply-patch) but optional for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch)."}
_NAMESPACE_PARAMETER = {"description": "object name and auth scope, such as for teams and projects", "in": "path",
                        "name": "namespace", "required": True, "schema": {"type": "string", "uniqueItems": True}}

_LIST_PARAMETERS = ("allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion",
                    "resourceVersionMatch", "timeoutSeconds", "watch")
_DELETE_PARAMETERS = ("dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy")
_WRITE_PARAMETERS = ("dryRun", "fieldManager", "fieldValidation")
_DELETE_COLLECTION_PARAMETERS = tuple(sorted({*_DELETE_PARAMETERS, *_LIST_PARAMETERS} - {"allowWatchBookmarks", "watch"}))


# --------------------------------------------------------------------------- schemas


def openapi_v3_schema(node: Mapping[str, Any]) -> Json:
    """One schema in ``schema.py``'s JSON Schema form, in OpenAPI v3 form (see the module doc)."""
    out: Json = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            if types:
                out["type"] = types[0]
        elif key == "$ref":
            out["$ref"] = _COMPONENTS_REF + value.removeprefix(_JSON_SCHEMA_REF)
        elif key in _SCHEMA_KEYWORDS and isinstance(value, Mapping):
            out[key] = openapi_v3_schema(value)
        elif key in _SCHEMA_LIST_KEYWORDS:
            out[key] = [openapi_v3_schema(item) for item in value]
        elif key in _SCHEMA_MAP_KEYWORDS:
            out[key] = {name: openapi_v3_schema(item) for name, item in value.items()}
        else:
            out[key] = value
    if "$ref" in out and len(out) > 1:
        # kube-openapi's v3 builder: a $ref's siblings would be ignored, so it wraps the $ref in allOf.
        out["allOf"] = [{"$ref": out.pop("$ref")}]
    return out


def _component(node: Mapping[str, Any]) -> Json:
    """A definition as a component. kubernetes-validate pins a kind's ``apiVersion`` and ``kind``
    with an ``enum``, which kube's OpenAPI does not have (and ``kubectl explain`` would print)."""
    schema = openapi_v3_schema(node)
    if "x-kubernetes-group-version-kind" in schema:
        for name in ("apiVersion", "kind"):
            schema.get("properties", {}).get(name, {}).pop("enum", None)
    return schema


def _references(node: Any) -> Iterator[str]:
    """The definition names a tree refers to, in either form (string ``$ref`` values only: a
    property may be named ``$ref``)."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value.removeprefix(_JSON_SCHEMA_REF).removeprefix(_COMPONENTS_REF)
            else:
                yield from _references(value)
    elif isinstance(node, list):
        for item in node:
            yield from _references(item)


def _closure(roots: Sequence[str], defs: Mapping[str, Any]) -> list[str]:
    """``roots`` and every definition they reference, transitively, sorted by name."""
    seen: set[str] = set()
    pending = [name for name in roots if name in defs]
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            pending.extend(ref for ref in _references(defs[name]) if ref not in seen)
    return sorted(seen)


def _index_by_kind(defs: Mapping[str, Any]) -> dict[tuple[str, str, str], str]:
    return {
        (gvk["group"], gvk["version"], gvk["kind"]): name
        for name, node in defs.items()
        for gvk in node.get("x-kubernetes-group-version-kind", ())
    }


# --------------------------------------------------------------------------- paths


def _operation_id_part(text: str, capitalize_first: bool) -> str:
    """kube-openapi's ``util.ToValidOperationID``: drop what is not a letter, ``_`` or a non-leading
    digit, and upper-case the letter after each dropped character."""
    out = []
    capitalize = capitalize_first
    for i, char in enumerate(text):
        if char.isalpha() or char == "_" or (i and char.isdigit()):
            out.append(char.upper() if capitalize else char)
            capitalize = False
        else:
            capitalize = True
    return "".join(out)


def _gvk(group: str, version: str, kind: str) -> Json:
    return {"group": group, "kind": kind, "version": version}


def _content(media_types: Sequence[str], definition: str) -> Json:
    return {media: {"schema": {"$ref": _COMPONENTS_REF + definition}} for media in media_types}


@dataclass(frozen=True, slots=True)
class _Target:
    """What an operation reads or writes: a resource, or a subresource of it."""

    kind: str                 # the kind named in descriptions: the resource's, also for its subresources
    gvk: Json                 # x-kubernetes-group-version-kind: the subresource's own kind for scale
    definition: str           # the component of the objects read and written


class _PathBuilder:
    """The ``paths`` of one group version, following kube-apiserver's ``endpoints/installer.go``
    route table and ``endpoints/openapi`` operation ids and tags."""

    def __init__(self, group: str, version: str, media_types: Sequence[str], by_kind: Mapping[tuple[str, str, str], str]):
        self.prefix = f"/apis/{group}/{version}" if group else f"/api/{version}"
        group_id = _operation_id_part(group.removesuffix(".k8s.io"), True) if group else "Core"
        self.id_prefix = group_id + _operation_id_part(version, True)
        self.tags = [(_operation_id_part(group.removesuffix(".k8s.io"), False) if group else "core") + "_" + version]
        self.media_types = media_types
        self.by_kind = by_kind
        self.paths: dict[str, Json] = {}

    def api_resources(self) -> None:
        self.paths[self.prefix + "/"] = {"get": {
            "description": "get available resources", "operationId": f"get{self.id_prefix}APIResources",
            "responses": self._responses({"200": "OK"}, _META + "APIResourceList"), "tags": self.tags,
        }}

    def resource(self, resource_type: ResourceType, definition: str) -> None:
        """The paths of one resource: its collection, its objects, their subresources, and the
        deprecated watch paths, with the operations its verbs allow."""
        target = _Target(resource_type.kind, _gvk(resource_type.group, resource_type.version, resource_type.kind),
                         definition)
        verbs = frozenset(resource_type.verbs)
        scope = "Namespaced" if resource_type.namespaced else ""
        namespace_path = "/namespaces/{namespace}" if resource_type.namespaced else ""
        scope_parameters = [_NAMESPACE_PARAMETER] if resource_type.namespaced else []
        collection = f"{self.prefix}{namespace_path}/{resource_type.plural}"
        item = collection + "/{name}"
        name_parameter = _name_parameter(resource_type.kind)
        pretty = _PARAMETERS["pretty"]

        if "list" in verbs:
            list_definition = self.by_kind[(resource_type.group, resource_type.version, resource_type.kind + "List")]
            if resource_type.namespaced:
                self._path(f"{self.prefix}/{resource_type.plural}", [*_parameters(_LIST_PARAMETERS), pretty],
                           get=self._operation("list", f"list{{}}{resource_type.kind}ForAllNamespaces", target,
                                               f"list or watch objects of kind {resource_type.kind}", _READ,
                                               list_definition, streams=True))
        self._path(collection, [*scope_parameters, pretty], **{
            "delete": "deletecollection" in verbs and self._operation(
                "deletecollection", f"delete{{}}Collection{scope}{resource_type.kind}", target,
                f"delete collection of {resource_type.kind}", _READ, _META + "Status",
                parameters=_DELETE_COLLECTION_PARAMETERS, request=_DELETE_OPTIONS),
            "get": "list" in verbs and self._operation(
                "list", f"list{{}}{scope}{resource_type.kind}", target,
                f"list or watch objects of kind {resource_type.kind}", _READ,
                list_definition, parameters=_LIST_PARAMETERS, streams=True),
            "post": "create" in verbs and self._operation(
                "post", f"create{{}}{scope}{resource_type.kind}", target, f"create a {resource_type.kind}", _CREATED,
                definition, parameters=_WRITE_PARAMETERS, request=("*/*",)),
        })
        deleted = definition if resource_type.returns_deleted_object else _META + "Status"
        self._path(item, [name_parameter, *scope_parameters, pretty], **{
            "delete": "delete" in verbs and self._operation(
                "delete", f"delete{{}}{scope}{resource_type.kind}", target, f"delete a {resource_type.kind}", _DELETED,
                deleted, parameters=_DELETE_PARAMETERS, request=_DELETE_OPTIONS),
            **self._object_operations(verbs, target, f"{scope}{resource_type.kind}",
                                      f"the specified {resource_type.kind}"),
        })
        for name, sub in resource_type.subresources.items():
            sub_definition = self.by_kind.get((sub.group, sub.version, sub.kind))
            if name in _CONNECT_SUBRESOURCES or sub_definition is None:
                continue
            sub_target = _Target(resource_type.kind, _gvk(sub.group, sub.version, sub.kind), sub_definition)
            id_suffix = f"{scope}{resource_type.kind}{name[0].upper()}{name[1:]}"
            operations = self._object_operations(frozenset(sub.verbs), sub_target, id_suffix,
                                                 f"{name} of the specified {resource_type.kind}")
            if "create" in sub.verbs:
                operations["post"] = self._operation(
                    "post", f"create{{}}{id_suffix}", sub_target, f"create {name} of a {resource_type.kind}", _CREATED,
                    sub_definition, parameters=_WRITE_PARAMETERS, request=("*/*",))
            self._path(f"{item}/{name}", [_name_parameter(sub.kind), *scope_parameters, pretty], **operations)
        if "watch" in verbs:
            watch_list = (f"watch individual changes to a list of {resource_type.kind}. deprecated: use the 'watch' "
                          "parameter with a list operation instead.")
            if resource_type.namespaced:
                self._watch(f"{self.prefix}/watch/{resource_type.plural}", [], "watchlist",
                            f"watch{{}}{resource_type.kind}ListForAllNamespaces", target, watch_list)
            self._watch(f"{self.prefix}/watch{namespace_path}/{resource_type.plural}", scope_parameters, "watchlist",
                        f"watch{{}}{scope}{resource_type.kind}List", target, watch_list)
            self._watch(f"{self.prefix}/watch{namespace_path}/{resource_type.plural}/{{name}}",
                        [name_parameter, *scope_parameters], "watch", f"watch{{}}{scope}{resource_type.kind}", target,
                        f"watch changes to an object of kind {resource_type.kind}. deprecated: use the 'watch' "
                        "parameter with a list operation instead, filtered to a single item with the 'fieldSelector' "
                        "parameter.")

    def _object_operations(self, verbs: frozenset[str], target: _Target, id_suffix: str, what: str) -> dict[str, Json]:
        """GET, PATCH and PUT of one object, or of one object's subresource."""
        operations = {}
        if "get" in verbs:
            operations["get"] = self._operation("get", f"read{{}}{id_suffix}", target, f"read {what}", _READ,
                                                target.definition)
        if "patch" in verbs:
            operations["patch"] = self._operation(
                "patch", f"patch{{}}{id_suffix}", target, f"partially update {what}", _WRITTEN, target.definition,
                parameters=(*_WRITE_PARAMETERS, "force"), request=_PATCH_MEDIA_TYPES)
        if "update" in verbs:
            operations["put"] = self._operation(
                "put", f"replace{{}}{id_suffix}", target, f"replace {what}", _WRITTEN, target.definition,
                parameters=_WRITE_PARAMETERS, request=("*/*",))
        return operations

    def _watch(self, path: str, path_parameters: list[Json], action: str, operation_id: str, target: _Target,
               description: str) -> None:
        self._path(path, [*path_parameters, *_parameters(_LIST_PARAMETERS), _PARAMETERS["pretty"]],
                   get=self._operation(action, operation_id, target, description, _READ, _META + "WatchEvent",
                                       streams=True))

    def _path(self, path: str, parameters: list[Json], **operations: Json | bool) -> None:
        """A path item: its operations (``False`` where the verb is not served) and the parameters
        they share, sorted by name as kube lists them."""
        item: Json = {method: operation for method, operation in operations.items() if operation}
        if item:
            item["parameters"] = sorted(parameters, key=lambda p: p["name"])
            self.paths[path] = item

    def _operation(self, action: str, operation_id: str, target: _Target, description: str,
                   responses: Mapping[str, str], definition: str, parameters: Sequence[str] = (),
                   request: Sequence[str] = (), streams: bool = False) -> Json:
        """One operation; ``operation_id``'s ``{}`` is where the group version goes
        (``list{}NamespacedDeployment`` is ``listAppsV1NamespacedDeployment``)."""
        operation: Json = {"description": description, "operationId": operation_id.format(self.id_prefix)}
        if parameters:
            operation["parameters"] = [
                _PATCH_FIELD_MANAGER if action == "patch" and name == "fieldManager" else _PARAMETERS[name]
                for name in sorted(parameters)
            ]
        if request:
            body = {"patch": _META + "Patch", "delete": _META + "DeleteOptions",
                    "deletecollection": _META + "DeleteOptions"}.get(action, definition)
            operation["requestBody"] = {"content": _content(request, body)}
        operation["responses"] = self._responses(responses, definition, streams)
        operation["tags"] = self.tags
        operation["x-kubernetes-action"] = action
        operation["x-kubernetes-group-version-kind"] = target.gvk
        return operation

    def _responses(self, codes: Mapping[str, str], definition: str, streams: bool = False) -> Json:
        media_types = list(self.media_types)
        if streams:
            media_types += [media + ";stream=watch" for media in self.media_types if media != "application/yaml"]
        responses: Json = {code: {"content": _content(sorted(media_types), definition), "description": text}
                           for code, text in codes.items()}
        responses["401"] = {"description": "Unauthorized"}
        return responses


_READ = {"200": "OK"}
_WRITTEN = {"200": "OK", "201": "Created"}
_CREATED = {"200": "OK", "201": "Created", "202": "Accepted"}
_DELETED = {"200": "OK", "202": "Accepted"}
_DELETE_OPTIONS = ("*/*",)


def _parameters(names: Sequence[str]) -> list[Json]:
    return [_PARAMETERS[name] for name in names]


def _name_parameter(kind: str) -> Json:
    return {"description": f"name of the {kind}", "in": "path", "name": "name", "required": True,
            "schema": {"type": "string", "uniqueItems": True}}


# --------------------------------------------------------------------------- documents


def group_version_path(group: str, version: str) -> str:
    """The key of a group version in the discovery root: ``api/v1``, ``apis/apps/v1``."""
    return f"apis/{group}/{version}" if group else f"api/{version}"


@dataclass(frozen=True, slots=True)
class GroupVersionSource:
    """What one group version's document is built from. ``definitions`` are in ``schema.py``'s
    form and hold, by OpenAPI name, every kind served (and its ``List``) and what they refer to."""

    group: str
    version: str
    resources: tuple[ResourceType, ...]
    definitions: Mapping[str, Any]
    media_types: tuple[str, ...]


def build_document(source: GroupVersionSource) -> Json:
    """The OpenAPI v3 document of one group version."""
    by_kind = _index_by_kind(source.definitions)
    paths = _PathBuilder(source.group, source.version, source.media_types, by_kind)
    paths.api_resources()
    for resource_type in source.resources:
        paths.resource(resource_type, by_kind[(resource_type.group, resource_type.version, resource_type.kind)])
    used = sorted(set(_references(paths.paths)))
    schemas = {name: _component(source.definitions[name]) for name in _closure(used, source.definitions)}
    return {
        "components": {"schemas": schemas},
        "info": {"title": "Kubernetes", "version": "unversioned"},
        "openapi": "3.0.0",
        "paths": paths.paths,
    }


@dataclass(frozen=True, slots=True)
class Document:
    """A served document: its bytes, and their ETag (kube-openapi's ``computeETag``)."""

    body: bytes
    etag: str
    last_modified: datetime

    @classmethod
    def of(cls, content: Json) -> Document:
        body = orjson.dumps(content)
        return cls(body, hashlib.sha512(body).hexdigest().upper(), datetime.now(timezone.utc))


class OpenAPIV3:
    """The documents of one server: built-in group versions from the registry, plus those
    registered later (custom resources). Documents are built on first use and kept as bytes."""

    def __init__(self, registry: Registry) -> None:
        builtin = definitions()
        by_group_version: dict[tuple[str, str], list[ResourceType]] = {}
        for served in registry.resources.values():
            by_group_version.setdefault((served.resource_type.group, served.resource_type.version), []).append(
                served.resource_type)
        self._sources = {
            group_version_path(group, version): GroupVersionSource(
                group, version, tuple(sorted(resource_types, key=lambda resource_type: resource_type.plural)), builtin,
                _BUILTIN_MEDIA_TYPES)
            for (group, version), resource_types in by_group_version.items()
        }
        self._documents: dict[str, Document] = {}
        self._root: Document | None = None
        self._custom_group_versions: set[tuple[str, str]] = set()

    def register_group_version(self, group: str, version: str, resources: Sequence[ResourceType],
                               schemas: Mapping[str, Any]) -> None:
        """Serve a document for ``resources`` (custom resources), replacing any of that group
        version. ``schemas`` are definitions in ``schema.py``'s form by OpenAPI name: each kind's,
        its ``List``'s (with ``x-kubernetes-group-version-kind``) and any they refer to; they may
        refer to built-in definitions (``ObjectMeta``, ``ListMeta``)."""
        path = group_version_path(group, version)
        self._sources[path] = GroupVersionSource(
            group, version, tuple(resources), ChainMap(dict(schemas), definitions()), _CUSTOM_MEDIA_TYPES)
        self._forget(path)

    def sync_custom_resources(self, registry: Registry) -> None:
        """Serve one document per group version of the custom resources the registry serves
        now, and drop those no longer served."""
        served: dict[tuple[str, str], list[ResourceType]] = {}
        schemas: dict[tuple[str, str], dict[str, Any]] = {}
        for (group, version, _plural), served_store in registry.resources.items():
            if served_store.resource_type.custom:
                resource_type = replace(served_store.resource_type, version=version)
                served.setdefault((group, version), []).append(resource_type)
                schemas.setdefault((group, version), {}).update(
                    _custom_definitions(resource_type, served_store.custom_schema))
        for group, version in self._custom_group_versions - served.keys():
            self.remove_group_version(group, version)
        for (group, version), resource_types in served.items():
            self.register_group_version(group, version, resource_types, schemas[(group, version)])
        self._custom_group_versions = set(served)

    def remove_group_version(self, group: str, version: str) -> None:
        path = group_version_path(group, version)
        self._sources.pop(path, None)
        self._forget(path)

    def _forget(self, path: str) -> None:
        self._documents.pop(path, None)
        self._root = None  # the root lists every document's hash

    def document(self, path: str) -> Document | None:
        """The document of ``api/v1`` or ``apis/<group>/<version>``; ``None`` when not served."""
        document = self._documents.get(path)
        if document is None:
            source = self._sources.get(path)
            if source is None:
                return None
            document = self._documents[path] = Document.of(build_document(source))
        return document

    def root(self) -> Document:
        """``OpenAPIV3Discovery``: each group version's URL, with its document's hash."""
        if self._root is None:
            paths = {}
            for path in sorted(self._sources):
                document = self.document(path)
                assert document is not None
                paths[path] = {"serverRelativeURL": server_relative_url(path, document.etag)}
            self._root = Document.of({"paths": paths})
        return self._root


_OBJECT_META = {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
_LIST_META = {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}


def _custom_definitions(resource_type: ResourceType, schema: Any) -> dict[str, Any]:
    """A custom resource's definition and its list's, named as apiextensions-apiserver names
    them (``com.example.v1.Widget``: the group reversed), with metadata as ObjectMeta."""
    prefix = ".".join(reversed(resource_type.group.split("."))) + f".{resource_type.version}."
    node = dict(schema.node) if schema is not None else {"type": "object"}
    properties = dict(node.get("properties") or {})
    properties.update({"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": _OBJECT_META})
    node["properties"] = properties
    node["x-kubernetes-group-version-kind"] = [
        {"group": resource_type.group, "version": resource_type.version, "kind": resource_type.kind}]
    list_kind = f"{resource_type.kind}List"
    return {
        prefix + resource_type.kind: node,
        prefix + list_kind: {
            "type": "object", "required": ["items"],
            "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": _LIST_META,
                           "items": {"type": "array", "items": {"$ref": f"#/$defs/{prefix}{resource_type.kind}"}}},
            "x-kubernetes-group-version-kind": [
                {"group": resource_type.group, "version": resource_type.version, "kind": list_kind}],
        },
    }


def server_relative_url(path: str, etag: str) -> str:
    """kube-openapi's ``constructServerRelativeURL``."""
    return f"/openapi/v3/{path}?hash={etag}"


# --------------------------------------------------------------------------- HTTP


def _accepts_json(accept: str) -> bool:
    """Whether an Accept header admits ``application/json``. kube also serves the protobuf
    rendering (``application/com.github.proto-openapi.spec.v3.v1.0+protobuf``); fakeapi does not,
    so a client that accepts only that gets the 406 kube sends for what it cannot serve."""
    for clause in accept.split(","):
        media = clause.split(";")[0].strip().lower()
        type_, _, subtype = media.partition("/")
        if type_ in ("application", "*") and subtype in ("json", "*"):
            return True
    return False


def _not_modified(request: Request, etag: str) -> bool:
    """Go's ``http.ServeContent`` If-None-Match check (weak comparison, ``*``, lists)."""
    header = request.headers.get("if-none-match")
    if not header:
        return False
    return any(tag.strip().removeprefix("W/") in ("*", etag) for tag in header.split(","))


def _serve(request: Request, document: Document, headers: dict[str, str]) -> Response:
    """``http.ServeContent``: the document, or 304 when the client has it."""
    etag = f'"{document.etag}"'
    headers = {**headers, "ETag": etag, "Last-Modified": format_datetime(document.last_modified, usegmt=True)}
    if _not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    return Response(document.body, media_type=JSON, headers=headers)


def _one_year_from_now() -> str:
    """``time.Now().AddDate(1, 0, 0).Format(time.RFC1123)``."""
    now = datetime.now(timezone.utc)
    try:
        later = now.replace(year=now.year + 1)
    except ValueError:  # 29 February: Go's AddDate normalises to 1 March
        later = now.replace(year=now.year + 1, month=3, day=1)
    return later.strftime("%a, %d %b %Y %H:%M:%S UTC")


def add_routes(routes: list[BaseRoute]) -> None:
    """``GET /openapi/v3`` and ``GET /openapi/v3/<group version>``, as kube-openapi's
    ``HandleDiscovery`` and ``HandleGroupVersion`` answer them (the server's ``openapi``)."""
    route(routes, "/openapi/v3", _discovery, ["GET"])
    route(routes, "/openapi/v3/{path:path}", _group_version, ["GET"])


async def _discovery(request: Request) -> Response:
    return _serve(request, served_by(request).openapi.root(), {})


async def _group_version(request: Request) -> Response:
    path = request.path_params["path"]
    headers = {"Vary": "Accept"}
    if not _accepts_json(request.headers.get("accept") or "*/*"):
        return Response(status_code=406, headers=headers)
    document = served_by(request).openapi.document(path)
    if document is None:
        return Response(headers=headers)  # kube drops getSingleGroupBytes' error: 200, no body
    wanted = request_query(request).get("hash")
    if wanted and wanted != document.etag:
        location = server_relative_url(path, document.etag)
        return Response(status_code=301, media_type=JSON,
                        headers={**headers, "ETag": f'"{document.etag}"', "Location": location})
    if wanted:
        headers["Cache-Control"] = "public, immutable"
        headers["Expires"] = _one_year_from_now()
    return _serve(request, document, headers)

