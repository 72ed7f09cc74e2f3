"""OpenAPI: the v2 document ``GET /openapi/v2``, the v3 discovery root ``GET /openapi/v3`` and
one v3 document per served group version (``GET /openapi/v3/api/v1``,
``GET /openapi/v3/apis/<group>/<version>``).

kubectl reads the v3 documents for ``explain`` and, before it sends ``fieldValidation=Strict``, to
check that the PATCH operation of the object's kind declares the ``fieldValidation`` parameter
(``cli-runtime/pkg/resource/query_param_verifier_v3.go``); without them it falls back to OpenAPI
v2 and client-side validation. The v2 document is what older clients, and the conformance tests
of CRD publishing, read.

Serving mirrors kube-openapi's ``pkg/handler3/handler.go``: the root maps each group version to
``/openapi/v3/<gv>?hash=<ETAG>``, the ETag being the upper-case hex SHA-512 of the document's JSON.
A document asked for with its current hash is immutable for a year (``Cache-Control: public,
immutable``), which is what lets kubectl's disk cache skip it; a stale hash is redirected (301) to
the current one. As in kube, the root needs every document's hash, so the first request for the
root builds every document; a request for one document builds only that one. Every document,
the v2 one too, is cached as bytes until what it shows changes (a CRD's versions, names, scope,
subresources or schemas), so a request costs no rebuild.

Built-in documents have the shape of a live kube-apiserver's (client-go's
``openapi/openapitest/testdata`` were fetched from one): ``components.schemas`` holds the
definitions of the kinds served and all they reference, ``paths`` the operations of each
resource, tagged with ``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``.
Definitions come from ``schema.definitions()`` (kubernetes-validate's JSON Schema rendering of
the release's OpenAPI), converted back: nullable type lists to one type, ``#/$defs/`` to
``#/components/schemas/`` references (``#/definitions/`` in v2), and in v3 a reference with
siblings wrapped in ``allOf`` as kube-openapi's v3 builder writes it. What that rendering dropped
(``default`` values, the descriptions of ``IntOrString`` and ``Quantity``) is not restored. The
v2 paths of built-in resources are their v3 operations rewritten in v2's form.

Custom resources' definitions and paths are apiextensions-apiserver's
(``apiextensions.openapi_builder``), in both versions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from email.utils import format_datetime
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from ..apiextensions import openapi_builder
from ..apiextensions.openapi_builder import CustomResourceVersion
from ..apis.catalogue import ResourceType
from ..machinery.openapi_operations import (CREATE_PARAMETERS, DELETE_PARAMETERS, LIST_PARAMETERS, NAMESPACE_DESCRIPTION,
                                            PATCH_FIELD_MANAGER_DESCRIPTION, PATCH_PARAMETERS, QUERY_PARAMETERS,
                                            article_for_noun, group_version_operation_prefix, v2_parameter,
                                            v3_parameter)
from ..machinery.schema import definitions
from ..registry.registry import Registry
from .request_info import request_query
from .responses import JSON, route, served_by

Json = dict[str, Any]

_JSON_SCHEMA_REF = "#/$defs/"
_COMPONENTS_REF = "#/components/schemas/"
_DEFINITIONS_REF = "#/definitions/"
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."

#: Keywords whose value is one schema, a list of schemas, or a map of schemas by name. Every other
#: keyword's value is data (``enum``, ``required``, ``x-kubernetes-*``) and is copied as is, so a
#: property named like a keyword (``JSONSchemaProps.$ref``) is never mistaken for one.
_SCHEMA_KEYWORDS = frozenset(("items", "additionalProperties", "not", "additionalItems"))
_SCHEMA_LIST_KEYWORDS = frozenset(("allOf", "anyOf", "oneOf"))
_SCHEMA_MAP_KEYWORDS = frozenset(("properties", "patternProperties", "definitions"))

#: Response media types of built-in resources; custom resources are not served as protobuf.
_BUILTIN_MEDIA_TYPES = ("application/json", "application/vnd.kubernetes.protobuf", "application/yaml")
_PATCH_MEDIA_TYPES = ("application/apply-patch+yaml", "application/json-patch+json",
                      "application/merge-patch+json", "application/strategic-merge-patch+json")
#: pods/log and the other connect subresources answer text or streams, not objects; they have
#: operations of their own shape, left out until fakeapi serves them.
_CONNECT_SUBRESOURCES = frozenset(("log",))


#: Query parameters as kube-apiserver documents them, in v3 form.
_PARAMETERS: Mapping[str, Json] = {name: v3_parameter(name, "query", type_, description)
                                   for name, (type_, description) in QUERY_PARAMETERS.items()}
_PATCH_FIELD_MANAGER = {**_PARAMETERS["fieldManager"], "description": PATCH_FIELD_MANAGER_DESCRIPTION}
_NAMESPACE_PARAMETER = v3_parameter("namespace", "path", "string", NAMESPACE_DESCRIPTION, required=True)

_DELETE_COLLECTION_PARAMETERS = tuple(sorted({*DELETE_PARAMETERS, *LIST_PARAMETERS} - {"allowWatchBookmarks", "watch"}))


# --------------------------------------------------------------------------- schemas


def openapi_schema(node: Mapping[str, Any], v2: bool = False) -> Json:
    """One schema in ``schema.py``'s JSON Schema form, in OpenAPI v3 form (see the module doc),
    or in v2 form: ``#/definitions/`` references, which keep their siblings."""
    out: Json = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            if types:
                out["type"] = types[0]
        elif key == "$ref":
            out["$ref"] = (_DEFINITIONS_REF if v2 else _COMPONENTS_REF) + value.removeprefix(_JSON_SCHEMA_REF)
        elif key in _SCHEMA_KEYWORDS and isinstance(value, Mapping):
            out[key] = openapi_schema(value, v2)
        elif key in _SCHEMA_LIST_KEYWORDS:
            out[key] = [openapi_schema(item, v2) for item in value]
        elif key in _SCHEMA_MAP_KEYWORDS:
            out[key] = {name: openapi_schema(item, v2) for name, item in value.items()}
        else:
            out[key] = value
    if not v2 and "$ref" in out and len(out) > 1:
        # kube-openapi's v3 builder: a $ref's siblings would be ignored, so it wraps the $ref in allOf.
        out["allOf"] = [{"$ref": out.pop("$ref")}]
    return out


def _component(node: Mapping[str, Any], v2: bool = False) -> Json:
    """A definition as a component (or a v2 definition). kubernetes-validate pins a kind's
    ``apiVersion`` and ``kind`` with an ``enum``, which kube's OpenAPI does not have (and
    ``kubectl explain`` would print)."""
    schema = openapi_schema(node, v2)
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
                yield value.removeprefix(_JSON_SCHEMA_REF).removeprefix(_COMPONENTS_REF).removeprefix(_DEFINITIONS_REF)
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
        self.id_prefix, tag = group_version_operation_prefix(group, version)
        self.tags = [tag]
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
                self._path(f"{self.prefix}/{resource_type.plural}", [*_parameters(LIST_PARAMETERS), pretty],
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
                list_definition, parameters=LIST_PARAMETERS, streams=True),
            "post": "create" in verbs and self._operation(
                "post", f"create{{}}{scope}{resource_type.kind}", target, f"create{article_for_noun(resource_type.kind)}{resource_type.kind}", _CREATED,
                definition, parameters=CREATE_PARAMETERS, request=("*/*",)),
        })
        deleted = definition if resource_type.returns_deleted_object else _META + "Status"
        self._path(item, [name_parameter, *scope_parameters, pretty], **{
            "delete": "delete" in verbs and self._operation(
                "delete", f"delete{{}}{scope}{resource_type.kind}", target, f"delete{article_for_noun(resource_type.kind)}{resource_type.kind}", _DELETED,
                deleted, parameters=DELETE_PARAMETERS, request=_DELETE_OPTIONS),
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
                    "post", f"create{{}}{id_suffix}", sub_target, f"create {name} of{article_for_noun(resource_type.kind)}{resource_type.kind}", _CREATED,
                    sub_definition, parameters=CREATE_PARAMETERS, request=("*/*",))
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
                parameters=PATCH_PARAMETERS, request=_PATCH_MEDIA_TYPES)
        if "update" in verbs:
            operations["put"] = self._operation(
                "put", f"replace{{}}{id_suffix}", target, f"replace {what}", _WRITTEN, target.definition,
                parameters=CREATE_PARAMETERS, request=("*/*",))
        return operations

    def _watch(self, path: str, path_parameters: list[Json], action: str, operation_id: str, target: _Target,
               description: str) -> None:
        self._path(path, [*path_parameters, *_parameters(LIST_PARAMETERS), _PARAMETERS["pretty"]],
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
            if action not in ("delete", "deletecollection"):  # DeleteOptions are optional
                operation["requestBody"]["required"] = True
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
    return v3_parameter("name", "path", "string", f"name of the {kind}", required=True)


# --------------------------------------------------------------------------- documents


def group_version_path(group: str, version: str) -> str:
    """The key of a group version in the discovery root: ``api/v1``, ``apis/apps/v1``."""
    return f"apis/{group}/{version}" if group else f"api/{version}"


@dataclass(frozen=True, slots=True)
class GroupVersionSource:
    """What one built-in group version's document is built from. ``definitions`` are in
    ``schema.py``'s form and hold, by OpenAPI name, every kind served (and its ``List``) and what
    they refer to."""

    group: str
    version: str
    resources: tuple[ResourceType, ...]
    definitions: Mapping[str, Any]


def _builtin_parts(source: GroupVersionSource) -> tuple[dict[str, Json], list[str]]:
    """The v3 paths of a built-in group version, and the definitions they use (with all those
    refer to)."""
    by_kind = _index_by_kind(source.definitions)
    paths = _PathBuilder(source.group, source.version, _BUILTIN_MEDIA_TYPES, by_kind)
    paths.api_resources()
    for resource_type in source.resources:
        paths.resource(resource_type, by_kind[(resource_type.group, resource_type.version, resource_type.kind)])
    return paths.paths, _closure(sorted(set(_references(paths.paths))), source.definitions)


def build_document(source: GroupVersionSource) -> Json:
    """The OpenAPI v3 document of one built-in group version."""
    paths, used = _builtin_parts(source)
    return {
        "components": {"schemas": {name: _component(source.definitions[name]) for name in used}},
        "info": {"title": "Kubernetes", "version": "unversioned"},
        "openapi": "3.0.0",
        "paths": paths,
    }


def build_custom_document(crds: Sequence[CustomResourceVersion]) -> Json:
    """The OpenAPI v3 document of one group version of custom resources: each version's spec as
    apiextensions-apiserver builds it (``BuildOpenAPIV3``), merged, with the built-in definitions
    they refer to (ObjectMeta, Status, Scale...)."""
    schemas: Json = {}
    paths: Json = {}
    for crd in crds:
        schemas.update(openapi_builder.definitions(crd, v2=False))
        paths.update(openapi_builder.paths(crd, v2=False))
    builtin = definitions()
    used = _closure(sorted(set(_references([schemas, paths])) - schemas.keys()), builtin)
    schemas.update({name: _component(builtin[name]) for name in used})
    return {
        "components": {"schemas": dict(sorted(schemas.items()))},
        "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
        "openapi": "3.0.0",
        "paths": paths,
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


def custom_resource_versions(registry: Registry) -> list[CustomResourceVersion]:
    """The custom resource versions the registry serves, each with its own schema (a served
    version's, not the storage version's)."""
    served = []
    for (_group, version, _plural), served_store in sorted(registry.resources.items()):
        if served_store.resource_type.custom:
            schema = served_store.custom_schema
            served.append(CustomResourceVersion(replace(served_store.resource_type, version=version),
                                                served_store.list_kind,
                                                schema.node if schema is not None else {"type": "object"}))
    return served


class OpenAPI:
    """The OpenAPI documents of one server: the v3 document of each built-in group version (from
    the registry) and of each group version of custom resources, and the v2 document of them
    all. Each is built on first use and kept as bytes until what it shows changes: a CRD's
    change rebuilds its group versions' v3 documents and the v2 document, not the others."""

    def __init__(self, registry: Registry) -> None:
        builtin = definitions()
        by_group_version: dict[tuple[str, str], list[ResourceType]] = {}
        for served in registry.resources.values():
            if not served.resource_type.custom:
                by_group_version.setdefault((served.resource_type.group, served.resource_type.version), []).append(
                    served.resource_type)
        self._builtin_sources = {
            group_version_path(group, version): GroupVersionSource(
                group, version, tuple(sorted(resource_types, key=lambda resource_type: resource_type.plural)), builtin)
            for (group, version), resource_types in by_group_version.items()
        }
        #: The custom resource versions served now, which the v2 document shows.
        self._served: tuple[CustomResourceVersion, ...] = ()
        #: By CRD name, the v3 spec of each group version (its path) of the CRD served since the
        #: CRD was established (see ``sync_custom_resources``).
        self._v3_specs: dict[str, dict[str, CustomResourceVersion]] = {}
        #: By group version path, the custom resource versions its v3 document shows.
        self._custom: dict[str, tuple[CustomResourceVersion, ...]] = {}
        self._documents: dict[str, Document] = {}
        self._root: Document | None = None
        self._v2: Document | None = None
        self._builtin_v2: tuple[Json, Json] | None = None

    def sync_custom_resources(self, registry: Registry) -> None:
        """Show the custom resource versions the registry serves now. The v2 document shows
        exactly those. In v3, as kube's openapiv3 controller does, a version's spec stays once
        built, also after the version is renamed or no longer served, until its CRD is gone (or
        no longer established): the controller only ever builds the served versions' specs and
        drops a CRD's all at once (fakeapi knows a CRD by the versions it serves: one serving
        none is dropped too). The documents of group versions that did not change are kept."""
        served = tuple(custom_resource_versions(registry))
        if served != self._served:
            self._served = served
            self._v2 = None
        by_crd: dict[str, dict[str, CustomResourceVersion]] = {}
        for crd in served:
            resource = crd.resource_type
            by_crd.setdefault(f"{resource.plural}.{resource.group}", {})[
                group_version_path(resource.group, resource.version)] = crd
        self._v3_specs = {name: {**self._v3_specs.get(name, {}), **versions} for name, versions in by_crd.items()}
        custom: dict[str, list[CustomResourceVersion]] = {}
        for name in sorted(self._v3_specs):
            for path, crd in self._v3_specs[name].items():
                custom.setdefault(path, []).append(crd)
        changed = {path for path in custom.keys() | self._custom.keys()
                   if tuple(custom.get(path, ())) != self._custom.get(path)}
        self._custom = {path: tuple(crds) for path, crds in custom.items()}
        for path in changed:
            self._documents.pop(path, None)
        if changed:
            self._root = None  # the root lists every document's hash

    def document(self, path: str) -> Document | None:
        """The v3 document of ``api/v1`` or ``apis/<group>/<version>``; ``None`` when not served."""
        document = self._documents.get(path)
        if document is None:
            crds = self._custom.get(path)
            if crds is not None:
                content = build_custom_document(crds)
            elif path in self._builtin_sources:
                content = build_document(self._builtin_sources[path])
            else:
                return None
            document = self._documents[path] = Document.of(content)
        return document

    def root(self) -> Document:
        """``OpenAPIV3Discovery``: each group version's URL, with its document's hash."""
        if self._root is None:
            paths = {}
            for path in sorted(self._builtin_sources.keys() | self._custom.keys()):
                document = self.document(path)
                assert document is not None
                paths[path] = {"serverRelativeURL": server_relative_url(path, document.etag)}
            self._root = Document.of({"paths": paths})
        return self._root

    def v2(self) -> Document:
        """The OpenAPI v2 document: the built-in definitions and paths, and each custom resource
        version's as apiextensions-apiserver builds them for v2 (``BuildOpenAPIV2``)."""
        if self._v2 is None:
            if self._builtin_v2 is None:
                self._builtin_v2 = self._build_builtin_v2()
            builtin_paths, builtin_definitions = self._builtin_v2
            paths, defs = dict(builtin_paths), dict(builtin_definitions)
            for crd in self._served:
                defs.update(openapi_builder.definitions(crd, v2=True))
                paths.update(openapi_builder.paths(crd, v2=True))
            self._v2 = Document.of({
                "swagger": "2.0",
                "info": {"title": "Kubernetes", "version": _KUBE_MINOR_VERSION},
                "paths": dict(sorted(paths.items())),
                "definitions": dict(sorted(defs.items())),
                "securityDefinitions": {"BearerToken": {
                    "description": "Bearer Token authentication", "in": "header", "name": "authorization",
                    "type": "apiKey"}},
                "security": [{"BearerToken": []}],
            })
        return self._v2

    def _build_builtin_v2(self) -> tuple[Json, Json]:
        """The built-in paths and definitions in v2 form, built once."""
        paths: Json = {}
        used: set[str] = set()
        builtin = definitions()
        for source in self._builtin_sources.values():
            source_paths, source_used = _builtin_parts(source)
            paths.update({path: _v2_path_item(item) for path, item in source_paths.items()})
            used.update(source_used)
        return paths, {name: _component(builtin[name], v2=True) for name in sorted(used)}


#: The version kube-apiserver v1.35 writes in its v2 document's info.
_KUBE_MINOR_VERSION = "1.35"


def _v2_path_item(item: Mapping[str, Any]) -> Json:
    """A v3 path item of a built-in resource in v2 form, as kube-openapi's v2 builder writes the
    same routes: parameters typed in place, the body a ``body`` parameter, the media types of
    requests and responses as ``consumes`` and ``produces``."""
    out: Json = {}
    for method, operation in item.items():
        if method == "parameters":
            out[method] = [_v2_parameter(parameter) for parameter in operation]
            continue
        converted: Json = {key: value for key, value in operation.items()
                           if key not in ("parameters", "requestBody", "responses")}
        parameters = [_v2_parameter(parameter) for parameter in operation.get("parameters") or ()]
        body = operation.get("requestBody")
        converted["consumes"] = _v2_media_types(body["content"]) if body is not None else ["*/*"]
        if body is not None:
            parameter: Json = {"in": "body", "name": "body",
                               "schema": _v2_ref(next(iter(body["content"].values()))["schema"])}
            if body.get("required"):
                parameter["required"] = True
            parameters.insert(0, parameter)
        if parameters:
            converted["parameters"] = parameters
        produces: list[str] = []
        responses: Json = {}
        for code, response in operation["responses"].items():
            content = response.get("content") or {}
            produces += [media for media in content if media not in produces]
            responses[code] = {"description": response["description"]}
            if content:
                responses[code]["schema"] = _v2_ref(next(iter(content.values()))["schema"])
        converted["produces"] = _v2_media_types(produces)
        converted["responses"] = responses
        converted["schemes"] = ["https"]
        out[method] = converted
    return out


#: The order in which kube-apiserver's routes declare the media types they consume and produce.
_V2_MEDIA_ORDER = ("*/*", "application/json", "application/yaml", "application/vnd.kubernetes.protobuf",
                   "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch",
                   "application/json-patch+json", "application/merge-patch+json",
                   "application/strategic-merge-patch+json", "application/apply-patch+yaml")


def _v2_media_types(media_types: Iterable[str]) -> list[str]:
    return sorted(media_types, key=_V2_MEDIA_ORDER.index)


def _v2_parameter(parameter: Mapping[str, Any]) -> Json:
    schema = parameter["schema"]
    return v2_parameter(parameter["name"], parameter["in"], schema["type"], parameter["description"],
                        required=bool(parameter.get("required")))


def _v2_ref(schema: Mapping[str, Any]) -> Json:
    return {"$ref": _DEFINITIONS_REF + schema["$ref"].removeprefix(_COMPONENTS_REF)}


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
    """``GET /openapi/v2``, ``GET /openapi/v3`` and ``GET /openapi/v3/<group version>``, as
    kube-openapi's v2 handler, ``HandleDiscovery`` and ``HandleGroupVersion`` answer them (the
    server's ``openapi``)."""
    route(routes, "/openapi/v2", _v2, ["GET"])
    route(routes, "/openapi/v3", _discovery, ["GET"])
    route(routes, "/openapi/v3/{path:path}", _group_version, ["GET"])


async def _v2(request: Request) -> Response:
    """kube-openapi's v2 ``handler``: the JSON document, revalidated with its ETag."""
    headers = {"Vary": "Accept"}
    if not _accepts_json(request.headers.get("accept") or "*/*"):
        return Response(status_code=406, headers=headers)
    return _serve(request, served_by(request).openapi.v2(), headers)


async def _discovery(request: Request) -> Response:
    return _serve(request, served_by(request).openapi.root(), {})


async def _group_version(request: Request) -> Response:
    path = request.path_params["path"]
    document = served_by(request).openapi.document(path)
    if document is None:
        # kube's mux has no handler for a group version it does not serve (or no longer does).
        return Response(status_code=404)
    headers = {"Vary": "Accept"}
    if not _accepts_json(request.headers.get("accept") or "*/*"):
        return Response(status_code=406, headers=headers)
    wanted = request_query(request).get("hash")
    if wanted and wanted != document.etag:
        location = server_relative_url(path, document.etag)
        return Response(status_code=301, media_type=JSON,
                        headers={**headers, "ETag": f'"{document.etag}"', "Location": location})
    if wanted:
        headers["Cache-Control"] = "public, immutable"
        headers["Expires"] = _one_year_from_now()
    return _serve(request, document, headers)

