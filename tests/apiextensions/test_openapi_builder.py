"""A CRD version's OpenAPI (``fakeapi.apiextensions.openapi_builder``): the schema steps of
apiextensions-apiserver's builder in v2 and v3, and the paths of its routes. The whole documents
are compared with the real kube-apiserver's in ``tests/kasdiff/test_crd_openapi.py``; these pin
the rules one at a time."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.apiextensions.crd import custom_resource_types
from fakeapi.apiextensions.openapi_builder import CustomResourceVersion, definition_name, definitions, paths

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def version_of(schema: dict[str, Any], *, scope: str = "Namespaced", subresources: dict[str, Any] | None = None
               ) -> CustomResourceVersion:
    crd = {"metadata": {"name": "widgets.apps.example.com"},
           "spec": {"group": "apps.example.com", "scope": scope,
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "subresources": subresources or {},
                                  "schema": {"openAPIV3Schema": schema}}]}}
    served = custom_resource_types(crd)[0]
    return CustomResourceVersion(served.resource_type(), served.list_kind, served.openapi_schema)


def kind_schema(schema: dict[str, Any], v2: bool) -> dict[str, Any]:
    return definitions(version_of(schema), v2)["com.example.apps.v1.Widget"]


def spec_of(schema: dict[str, Any], v2: bool) -> dict[str, Any]:
    return kind_schema({"type": "object", "properties": {"spec": schema}}, v2)["properties"]["spec"]


def test_definitions_are_named_with_the_group_reversed() -> None:
    assert definition_name("apps.example.com", "v1", "Widget") == "com.example.apps.v1.Widget"
    assert sorted(definitions(version_of({"type": "object"}), v2=False)) == [
        "com.example.apps.v1.Widget", "com.example.apps.v1.WidgetList"]


@pytest.mark.parametrize("v2", [False, True])
def test_the_kind_has_type_meta_object_meta_and_its_group_version_kind(v2: bool) -> None:
    schema = kind_schema({"type": "object", "properties": {"metadata": {"type": "object"},
                                                            "apiVersion": {"type": "string", "enum": ["x"]}}}, v2)
    assert set(schema["properties"]) == {"apiVersion", "kind", "metadata"}
    assert "enum" not in schema["properties"]["apiVersion"]
    metadata = schema["properties"]["metadata"]
    ref = {"$ref": f"#/definitions/{OBJECT_META}"} if v2 else {"allOf": [{"$ref": f"#/components/schemas/{OBJECT_META}"}]}
    assert {key: value for key, value in metadata.items() if key != "description"} == ref
    assert schema["x-kubernetes-group-version-kind"] == [{"group": "apps.example.com", "kind": "Widget", "version": "v1"}]


def test_what_a_structural_schema_does_not_hold_is_dropped() -> None:
    spec = spec_of({"type": "object", "example": {}, "externalDocs": {"url": "u"}, "description": "",
                    "nullable": False, "x-kubernetes-preserve-unknown-fields": False,
                    "properties": {"n": {"type": "integer", "minimum": 0, "default": 0}}}, v2=False)
    assert spec == {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "default": 0}}}


@pytest.mark.parametrize(("node", "unfolded"), [
    ({"x-kubernetes-int-or-string": True},
     {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ({"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
     {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ({"x-kubernetes-int-or-string": True, "anyOf": [{"pattern": "^a"}]},
     {"x-kubernetes-int-or-string": True, "anyOf": [{"pattern": "^a"}],
      "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}]}),
], ids=["bare", "already-unfolded", "own-any-of"])
def test_int_or_string_is_unfolded_in_v3(node: dict[str, Any], unfolded: dict[str, Any]) -> None:
    assert spec_of({"type": "object", "properties": {"port": node}}, v2=False)["properties"]["port"] == unfolded


def test_v2_drops_what_kubectl_cannot_read() -> None:
    spec = spec_of({"type": "object", "required": ["maybe", "size"], "properties": {
        "size": {"x-kubernetes-int-or-string": True},
        "maybe": {"type": "object", "nullable": True, "properties": {"x": {"type": "string"}}},
        "open": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                 "properties": {"x": {"type": "string"}}},
        "bag": {"type": "array", "x-kubernetes-preserve-unknown-fields": True, "items": {"type": "string"}},
        "replicas": {"type": "integer", "default": 1, "not": {"enum": [3]}},
    }}, v2=True)
    assert spec == {"type": "object", "required": ["size"], "properties": {
        "size": {"x-kubernetes-int-or-string": True},
        "maybe": {},
        "open": {"x-kubernetes-preserve-unknown-fields": True},
        "bag": {"x-kubernetes-preserve-unknown-fields": True},
        "replicas": {"type": "integer"},
    }}


def test_v2_publishes_a_root_preserving_unknown_fields_as_any_object() -> None:
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "description": "d",
              "properties": {"spec": {"type": "object"}}}
    assert kind_schema(schema, v2=True) == {"type": "object", "x-kubernetes-group-version-kind": [
        {"group": "apps.example.com", "kind": "Widget", "version": "v1"}]}
    assert set(kind_schema(schema, v2=False)["properties"]) == {"apiVersion", "kind", "metadata", "spec"}


def test_an_embedded_resource_gets_type_meta_and_object_meta() -> None:
    embedded = {"type": "object", "x-kubernetes-embedded-resource": True, "required": ["spec"],
                "properties": {"spec": {"type": "object"}}}
    template = spec_of({"type": "object", "properties": {"template": embedded}}, v2=False)["properties"]["template"]
    assert set(template["properties"]) == {"apiVersion", "kind", "metadata", "spec"}
    assert template["required"] == ["spec", "kind", "apiVersion"]
    assert template["properties"]["kind"]["description"].startswith("kind is a string value")
    # v2 leaves one preserving unknown fields open.
    open_template = spec_of({"type": "object", "properties": {"template": {
        **embedded, "x-kubernetes-preserve-unknown-fields": True}}}, v2=True)["properties"]["template"]
    assert "properties" not in open_template and open_template["required"] == ["spec"]


def test_a_namespaced_resource_has_its_all_namespaces_list_and_shared_parameters_on_the_path() -> None:
    published = paths(version_of({"type": "object"}, subresources={"status": {}}), v2=False)
    assert sorted(published) == [
        "/apis/apps.example.com/v1/namespaces/{namespace}/widgets",
        "/apis/apps.example.com/v1/namespaces/{namespace}/widgets/{name}",
        "/apis/apps.example.com/v1/namespaces/{namespace}/widgets/{name}/status",
        "/apis/apps.example.com/v1/widgets",
    ]
    all_namespaces = published["/apis/apps.example.com/v1/widgets"]
    assert all_namespaces["get"]["operationId"] == "listAppsExampleComV1WidgetForAllNamespaces"
    assert "parameters" not in all_namespaces["get"]  # its only operation's parameters are the path's
    item = published["/apis/apps.example.com/v1/namespaces/{namespace}/widgets/{name}"]
    assert [p["name"] for p in item["parameters"]] == ["name", "namespace", "pretty"]
    assert [p["name"] for p in item["get"]["parameters"]] == ["resourceVersion"]
    assert item["delete"]["description"] == "delete a Widget"
    assert item["delete"]["operationId"] == "deleteAppsExampleComV1NamespacedWidget"
    assert "required" not in item["delete"]["requestBody"] and item["put"]["requestBody"]["required"]
    status = published["/apis/apps.example.com/v1/namespaces/{namespace}/widgets/{name}/status"]
    assert status["patch"]["operationId"] == "patchAppsExampleComV1NamespacedWidgetStatus"
    assert status["patch"]["description"] == "partially update status of the specified Widget"


def test_a_cluster_scoped_resource_in_v2() -> None:
    published = paths(version_of({"type": "object"}, scope="Cluster", subresources={
        "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}), v2=True)
    assert sorted(published) == ["/apis/apps.example.com/v1/widgets", "/apis/apps.example.com/v1/widgets/{name}",
                                 "/apis/apps.example.com/v1/widgets/{name}/scale"]
    collection = published["/apis/apps.example.com/v1/widgets"]
    assert collection["delete"]["operationId"] == "deleteAppsExampleComV1CollectionWidget"
    assert collection["post"]["parameters"][0] == {
        "in": "body", "name": "body", "required": True, "schema": {"$ref": "#/definitions/com.example.apps.v1.Widget"}}
    scale = published["/apis/apps.example.com/v1/widgets/{name}/scale"]
    assert scale["patch"]["consumes"] == [
        "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"]
    assert scale["get"]["responses"]["200"]["schema"] == {"$ref": "#/definitions/io.k8s.api.autoscaling.v1.Scale"}
