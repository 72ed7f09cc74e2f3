"""The OpenAPI a custom resource version is published with, as apiextensions-apiserver builds it
(``controller/openapi/builder/builder.go``) for the v2 document (``/openapi/v2``) and for its
group version's v3 document (``/openapi/v3/apis/<group>/<version>``).

A version publishes two definitions, named as kube-openapi's ``ToRESTFriendlyName`` names
``<group>/<version>/<kind>`` (the group reversed: ``com.example.widgets.v1.Widget``): the kind,
its schema with kube's native ``apiVersion``, ``kind`` and ``metadata`` (an ObjectMeta
reference) and ``x-kubernetes-group-version-kind``; and its list kind. Its paths are the routes
the builder declares (list, create, deletecollection, read, replace, delete, patch, and those of
the status and scale subresources), with the parameters of each verb's options.

The schema goes through kube's steps:

1. ``NewStructural`` then ``ToKubeOpenAPI``: only what a structural schema holds is kept
   (``example``, ``externalDocs``, ``id``, ``$schema``, ``definitions``, ``dependencies``,
   ``patternProperties`` and ``additionalItems`` are dropped, as are false booleans and empty
   strings and lists, which Go omits);
2. ``Unfold``: an ``x-kubernetes-int-or-string`` node without its own ``anyOf`` of integer and
   string gets one;
3. for v2 only, ``ToStructuralOpenAPIV2``: what kubectl's v2 validation cannot read goes
   (``allOf``, ``anyOf``, ``oneOf``, ``not``, ``default``; ``properties`` and ``items`` under
   ``x-kubernetes-preserve-unknown-fields`` or ``nullable``, and the type of a nullable node, of
   an object preserving unknown fields and of an array left without items); and a root
   preserving unknown fields is published as ``{"type": "object"}`` alone, so that kubectl lets
   any field through;
4. ``apiVersion``, ``kind`` and ``metadata`` at the root and in every
   ``x-kubernetes-embedded-resource`` (which also requires ``apiVersion`` and ``kind``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..apis.catalogue import ResourceType
from ..machinery.openapi_operations import (
    CREATE_PARAMETERS, DELETE_PARAMETERS, GET_PARAMETERS, LIST_PARAMETERS, NAMESPACE_DESCRIPTION,
    PATCH_FIELD_MANAGER_DESCRIPTION, PATCH_PARAMETERS, QUERY_PARAMETERS, article_for_noun,
    group_version_operation_prefix, operation_id_part, v2_parameter, v3_parameter,
)

Json = dict[str, Any]

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
OBJECT_META = _META + "ObjectMeta"
LIST_META = _META + "ListMeta"
STATUS = _META + "Status"
DELETE_OPTIONS = _META + "DeleteOptions"
PATCH = _META + "Patch"
SCALE = "io.k8s.api.autoscaling.v1.Scale"

#: ``metav1.TypeMeta``'s fields as kube-openapi generates them.
_API_VERSION = {"description": "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
                "type": "string"}
_KIND = {"description": "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
         "type": "string"}
#: An embedded resource's, which the builder words on its own.
_EMBEDDED_API_VERSION = {**_API_VERSION, "description": "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"}
_EMBEDDED_KIND = {**_KIND, "description": "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"}
#: ``metav1beta1.PartialObjectMetadata`` and ``PartialObjectMetadataList``'s ``metadata`` docs.
_OBJECT_METADATA_DESCRIPTION = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
_LIST_METADATA_DESCRIPTION = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"

# --------------------------------------------------------------------------- schemas

#: What ``structuralschema.Structural`` holds of a node; everything else is dropped.
_SCALAR_KEYWORDS = frozenset((
    "type", "format", "title", "description", "default", "nullable", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf",
    "enum", "maxProperties", "minProperties", "required", "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type", "x-kubernetes-map-type", "x-kubernetes-validations",
))
_JUNCTORS = ("allOf", "anyOf", "oneOf")
_INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]


def _omitted(value: Any) -> bool:
    """Go's ``omitempty`` on the structural types' fields: false, empty strings and lists, but
    not zero numbers (those fields are pointers) nor a ``default`` of any value but null."""
    return value is False or value is None or value == "" or value == [] or value == {}


def _structural(node: Mapping[str, Any]) -> Json:
    """``NewStructural`` and ``ToKubeOpenAPI`` of one node (and a nested value validation)."""
    out: Json = {}
    for key, value in node.items():
        if key in _SCALAR_KEYWORDS:
            if not _omitted(value) or (key == "default" and value is not None):
                out[key] = value
        elif key == "properties" and value:
            out[key] = {name: _structural(sub) for name, sub in value.items()}
        elif key in ("items", "not") and isinstance(value, Mapping):
            out[key] = _structural(value)
        elif key == "additionalProperties":
            out[key] = _structural(value) if isinstance(value, Mapping) else value
        elif key in _JUNCTORS and value:
            out[key] = [_structural(sub) for sub in value]
    return out


def _is_int_or_string_any_of(any_of: Sequence[Mapping[str, Any]]) -> bool:
    return len(any_of) == 2 and [dict(sub) for sub in any_of] == _INT_OR_STRING


def _unfold(node: Json) -> None:
    """``Structural.Unfold``: an int-or-string node says so with ``anyOf`` (integer, string) unless
    it does already, directly or as the first ``allOf``'s."""
    for sub in _children(node):
        _unfold(sub)
    if not node.get("x-kubernetes-int-or-string"):
        return
    if _is_int_or_string_any_of(node.get("anyOf") or ()):
        return
    all_of = node.get("allOf") or ()
    if all_of and _is_int_or_string_any_of(all_of[0].get("anyOf") or ()):
        return
    if "anyOf" not in node:
        node["anyOf"] = [dict(sub) for sub in _INT_OR_STRING]
    else:
        node["allOf"] = [{"anyOf": [dict(sub) for sub in _INT_OR_STRING]}, *all_of]


def _children(node: Mapping[str, Any]) -> Iterator[Json]:
    """A node's structural children: its properties, items and additionalProperties schema."""
    yield from (node.get("properties") or {}).values()
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield node[key]


def _to_v2(node: Json) -> None:
    """``ToStructuralOpenAPIV2`` of a node and its children, and v2's dropping of defaults."""
    for key in (*_JUNCTORS, "not", "default"):
        node.pop(key, None)
    if node.pop("nullable", False):
        node.pop("type", None)
        node.pop("items", None)
        node.pop("properties", None)
    preserves = node.get("x-kubernetes-preserve-unknown-fields")
    if preserves:
        node.pop("items", None)
        node.pop("properties", None)
    # kubectl can read neither an array without items nor an object preserving unknown fields.
    if (node.get("type") == "array" and "items" not in node) or (preserves and node.get("type") == "object"):
        del node["type"]
    properties = node.get("properties") or {}
    required = [name for name in node.get("required") or () if not properties.get(name, {}).get("nullable")]
    extra = node.get("additionalProperties")
    if isinstance(extra, Mapping) and extra.get("nullable"):
        required = []
    if required:
        node["required"] = required
    else:
        node.pop("required", None)
    for sub in _children(node):
        _to_v2(sub)


@dataclass(frozen=True, slots=True)
class _Refs:
    """References in one OpenAPI version: ``#/definitions/`` in v2, ``#/components/schemas/`` in
    v3, where a reference with siblings is wrapped in ``allOf`` (builder3 does, as a ``$ref``'s
    siblings would be ignored)."""

    v2: bool

    def to(self, name: str, description: str | None = None) -> Json:
        ref = ("#/definitions/" if self.v2 else "#/components/schemas/") + name
        if description is None:
            return {"$ref": ref}
        if self.v2:
            return {"$ref": ref, "description": description}
        return {"allOf": [{"$ref": ref}], "description": description}


def _add_embedded_properties(node: Json, refs: _Refs) -> None:
    """``addEmbeddedProperties``: an embedded resource's ``apiVersion``, ``kind`` and ``metadata``."""
    for sub in _children(node):
        _add_embedded_properties(sub, refs)
    if refs.v2 and node.get("x-kubernetes-preserve-unknown-fields"):
        return  # v2 keeps such a node open: declared properties would make kubectl refuse others
    if node.get("x-kubernetes-embedded-resource"):
        properties = node.setdefault("properties", {})
        properties["apiVersion"] = dict(_EMBEDDED_API_VERSION)
        properties["kind"] = dict(_EMBEDDED_KIND)
        properties["metadata"] = refs.to(OBJECT_META, _OBJECT_METADATA_DESCRIPTION)
        required = list(node.get("required") or ())
        node["required"] = required + [name for name in ("kind", "apiVersion") if name not in required]


def definition_name(group: str, version: str, kind: str) -> str:
    """kube-openapi's ``ToRESTFriendlyName`` of ``<group>/<version>/<kind>``."""
    return ".".join(reversed(group.split("."))) + f".{version}.{kind}"


@dataclass(frozen=True, slots=True)
class CustomResourceVersion:
    """What the builder reads of one served version of a CRD: its resource, list kind and
    schema (``openAPIV3Schema``)."""

    resource_type: ResourceType
    list_kind: str
    schema: Mapping[str, Any]

    @property
    def definition(self) -> str:
        return definition_name(self.resource_type.group, self.resource_type.version, self.resource_type.kind)

    @property
    def list_definition(self) -> str:
        return definition_name(self.resource_type.group, self.resource_type.version, self.list_kind)

    def _gvk(self, kind: str) -> list[Json]:
        return [{"group": self.resource_type.group, "kind": kind, "version": self.resource_type.version}]


def definitions(crd: CustomResourceVersion, v2: bool) -> dict[str, Json]:
    """The kind's and the list kind's definitions, by name (``buildKubeNative``, ``buildListSchema``)."""
    refs = _Refs(v2)
    schema = _structural(crd.schema)
    _unfold(schema)
    if v2 and schema.get("x-kubernetes-preserve-unknown-fields"):
        schema = {"type": "object"}
    else:
        if v2:
            _to_v2(schema)
        properties = schema.setdefault("properties", {})
        properties["metadata"] = refs.to(OBJECT_META, _OBJECT_METADATA_DESCRIPTION)
        properties["apiVersion"] = dict(_API_VERSION)
        properties["kind"] = dict(_KIND)
        _add_embedded_properties(schema, refs)
    schema["x-kubernetes-group-version-kind"] = crd._gvk(crd.resource_type.kind)
    kind, plural = crd.resource_type.kind, crd.resource_type.plural
    list_schema = {
        "description": f"{crd.list_kind} is a list of {kind}",
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": dict(_API_VERSION),
            "items": {"description": f"List of {plural}. More info: "
                                     "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
                      "type": "array", "items": refs.to(crd.definition)},
            "kind": dict(_KIND),
            "metadata": refs.to(LIST_META, _LIST_METADATA_DESCRIPTION),
        },
        "x-kubernetes-group-version-kind": crd._gvk(crd.list_kind),
    }
    return {crd.definition: schema, crd.list_definition: list_schema}


# --------------------------------------------------------------------------- paths

_JSON_AND_YAML = ("application/json", "application/yaml")
_PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml")


@dataclass(frozen=True, slots=True)
class _Route:
    """One route of the builder's web service (``buildRoute``)."""

    path: str
    method: str
    action: str                 # x-kubernetes-action
    verb: str                   # the operation's verb: list, create, read, replace, delete, patch, ...
    subresource: str
    returns: str                # the definition of what it answers
    reads: str | None = None    # the definition of its body
    for_all_namespaces: bool = False


class _Paths:
    """The paths of one custom resource version in one OpenAPI version."""

    def __init__(self, crd: CustomResourceVersion, v2: bool) -> None:
        self.crd = crd
        self.v2 = v2
        self.refs = _Refs(v2)
        self.id_prefix, tag = group_version_operation_prefix(crd.resource_type.group, crd.resource_type.version)
        self.tags = [tag]

    def routes(self) -> list[_Route]:
        resource = self.crd.resource_type
        root = f"/apis/{resource.group}/{resource.version}/{resource.plural}"
        routes = []
        if resource.namespaced:
            routes.append(_Route(root, "get", "list", "list", "", self.crd.list_definition, for_all_namespaces=True))
            root = f"/apis/{resource.group}/{resource.version}/namespaces/{{namespace}}/{resource.plural}"
        item = root + "/{name}"
        definition = self.crd.definition
        routes += [
            _Route(root, "get", "list", "list", "", self.crd.list_definition),
            _Route(root, "post", "post", "create", "", definition, definition),
            _Route(root, "delete", "deletecollection", "deletecollection", "", STATUS),
            _Route(item, "get", "get", "read", "", definition),
            _Route(item, "put", "put", "replace", "", definition, definition),
            _Route(item, "delete", "delete", "delete", "", STATUS, DELETE_OPTIONS),
            _Route(item, "patch", "patch", "patch", "", definition, PATCH),
        ]
        for name in ("status", "scale"):
            if name in resource.subresources:
                target = SCALE if name == "scale" else definition
                routes += [
                    _Route(f"{item}/{name}", "get", "get", "read", name, target),
                    _Route(f"{item}/{name}", "put", "put", "replace", name, target, target),
                    _Route(f"{item}/{name}", "patch", "patch", "patch", name, target, PATCH),
                ]
        return routes

    def build(self) -> dict[str, Json]:
        """Every path, its operations, and as kube-openapi does, the parameters all of a path's
        operations share moved to the path."""
        by_path: dict[str, dict[str, tuple[Json, list[Json]]]] = {}
        for route in self.routes():
            by_path.setdefault(route.path, {})[route.method] = self._operation(route)
        paths: dict[str, Json] = {}
        for path, operations in by_path.items():
            parameter_lists = [parameters for _operation, parameters in operations.values()]
            shared = [p for p in parameter_lists[0] if all(p in others for others in parameter_lists[1:])]
            item: Json = {}
            for method, (operation, parameters) in operations.items():
                own = _sorted_parameters([p for p in parameters if p not in shared])
                if own:
                    operation["parameters"] = own
                item[method] = operation
            item["parameters"] = _sorted_parameters(shared)
            paths[path] = item
        return paths

    def _operation(self, route: _Route) -> tuple[Json, list[Json]]:
        """An operation, and every parameter it takes (its own and its path's)."""
        kind = self.crd.resource_type.kind
        scope = "" if route.for_all_namespaces or not self.crd.resource_type.namespaced else "Namespaced"
        name = (f"list{kind}ForAllNamespaces" if route.for_all_namespaces
                else route.verb + scope + kind + route.subresource.title())
        # GetOperationIDAndTags: the group version goes between the verb and the rest.
        verb = "delete" if route.verb == "deletecollection" else route.verb
        operation: Json = {
            "description": self._description(route),
            "operationId": verb + self.id_prefix + operation_id_part(name[len(verb):], True),
            "tags": self.tags,
        }
        parameters = self._parameters(route)
        if self.v2:
            operation["consumes"] = list(_PATCH_TYPES if route.method == "patch" else _JSON_AND_YAML)
            operation["produces"] = list(_JSON_AND_YAML)
            operation["schemes"] = ["https"]
            if route.reads is not None:
                body: Json = {"in": "body", "name": "body", "schema": self.refs.to(route.reads)}
                if route.action != "delete":
                    body["required"] = True
                parameters.append(body)
        elif route.reads is not None:
            media_types = _PATCH_TYPES if route.method == "patch" else _JSON_AND_YAML
            operation["requestBody"] = {"content": {media: {"schema": self.refs.to(route.reads)}
                                                    for media in media_types}}
            if route.action != "delete":
                operation["requestBody"]["required"] = True
        operation["responses"] = self._responses(route)
        operation["x-kubernetes-action"] = route.action
        operation["x-kubernetes-group-version-kind"] = self.crd._gvk(kind)[0]
        return operation, parameters

    def _description(self, route: _Route) -> str:
        """``descriptionFor``."""
        kind = self.crd.resource_type.kind
        sub = f" {route.subresource} of" if route.subresource else ""
        if route.verb == "patch":
            return f"partially update{sub} the specified {kind}"
        if route.verb == "deletecollection":
            return f"delete collection of{sub + ' a' if sub else ''} {kind}"
        article = {"list": " objects of kind ", "read": " the specified ", "replace": " the specified ",
                   "create": article_for_noun(kind), "delete": article_for_noun(kind)}[route.verb]
        return f"{route.verb}{sub}{article}{kind}"

    def _parameters(self, route: _Route) -> list[Json]:
        names = {"get": GET_PARAMETERS, "list": LIST_PARAMETERS, "deletecollection": LIST_PARAMETERS,
                 "post": CREATE_PARAMETERS, "put": CREATE_PARAMETERS, "patch": PATCH_PARAMETERS,
                 "delete": DELETE_PARAMETERS}[route.action]
        parameter = v2_parameter if self.v2 else v3_parameter
        parameters = []
        for name in (*names, "pretty"):
            type_, description = QUERY_PARAMETERS[name]
            if route.action == "patch" and name == "fieldManager":
                description = PATCH_FIELD_MANAGER_DESCRIPTION
            parameters.append(parameter(name, "query", type_, description))
        if "{namespace}" in route.path:
            parameters.append(parameter("namespace", "path", "string", NAMESPACE_DESCRIPTION, required=True))
        if "{name}" in route.path:
            parameters.append(parameter("name", "path", "string", f"name of the {self.crd.resource_type.kind}",
                                        required=True))
        return parameters

    def _responses(self, route: _Route) -> Json:
        codes = {"post": {"200": "OK", "201": "Created", "202": "Accepted"}, "put": {"200": "OK", "201": "Created"},
                 "delete": {"200": "OK", "202": "Accepted"}}.get(route.action, {"200": "OK"})
        responses: Json = {}
        for code, text in codes.items():
            if self.v2:
                responses[code] = {"description": text, "schema": self.refs.to(route.returns)}
            else:
                responses[code] = {"content": {media: {"schema": self.refs.to(route.returns)}
                                               for media in _JSON_AND_YAML}, "description": text}
        responses["401"] = {"description": "Unauthorized"}
        return responses


def _sorted_parameters(parameters: list[Json]) -> list[Json]:
    """kube-openapi's order: by name, then by where the parameter goes."""
    return sorted(parameters, key=lambda p: (p["name"], p["in"]))


def paths(crd: CustomResourceVersion, v2: bool) -> dict[str, Json]:
    """The paths of one custom resource version (``generateBuilder``'s routes)."""
    return _Paths(crd, v2).build()
