"""Pruning, defaulting and validation of custom resources (``fakeapi.apiextensions.structural``).

Expected messages are kube's: the ones marked with a source are quoted from apiextensions-apiserver
v0.32 tests (``apiext`` = staging/src/k8s.io/apiextensions-apiserver); the others were produced by
``tests/crddiff`` (kube's own code), and ``test_crd_differential.py`` keeps checking them there.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.apiextensions.structural import StructuralSchema, go_regexp_error
from fakeapi.machinery.status import invalid


def spec_schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}}


def resource(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, **fields}


def errors_of(schema: dict[str, Any], body: dict[str, Any]) -> list[str]:
    return [f"{field}: {message}" for field, _, message in StructuralSchema(schema).admit(copy.deepcopy(body))]


MESSAGES = [
    # apiext pkg/apiserver/validation/validation_test.go ("field in body must be of type object")
    ({"type": "object", "properties": {"field": {"type": "object"}}}, {"field": "foo"},
     ['field: Invalid value: "string": field in body must be of type object: "string"']),
    ({"type": "object", "properties": {"field": {"type": "object"}}}, {"field": 1.2},
     ['field: Invalid value: "number": field in body must be of type object: "number"']),
    # the brief's example; apiext test/integration/validation_test.go for the enum and minimum
    (spec_schema(replicas={"type": "integer"}), resource(spec={"replicas": "string"}),
     ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']),
    (spec_schema(color={"type": "string", "enum": ["red", "blue"]}), resource(spec={"color": "pink"}),
     ['spec.color: Unsupported value: "pink": supported values: "red", "blue"']),
    ({"type": "object", "properties": {"beta": {"type": "number", "minimum": 10}}}, {"beta": 5},
     ["beta: Invalid value: 5: beta in body should be greater than or equal to 10"]),
    ({"type": "object", "properties": {"alpha": {"type": "string", "pattern": "^[a-zA-Z0-9_]*$"}}}, {"alpha": "foo_123!"},
     ["alpha: Invalid value: \"foo_123!\": alpha in body should match '^[a-zA-Z0-9_]*$'"]),
    # apiext test/integration/subresources_test.go ("status.num ... should be less than or equal to 10")
    ({"type": "object", "properties": {"status": {"type": "object", "properties": {"num": {"type": "integer", "maximum": 10}}}}},
     {"status": {"num": 15}}, ["status.num: Invalid value: 15: status.num in body should be less than or equal to 10"]),
    ({"type": "object", "properties": {"spec": {"type": "object", "required": ["name"]}}}, resource(spec={}),
     ["spec.name: Required value"]),
    (spec_schema(n={"type": "number", "maximum": 1000000}), resource(spec={"n": 2e7}),
     ["spec.n: Invalid value: 2e+07: spec.n in body should be less than or equal to 1e+06"]),
    (spec_schema(s={"type": "string", "maxLength": 3}), resource(spec={"s": "abcd"}),
     ["spec.s: Too long: may not be more than 3 bytes"]),
    (spec_schema(l={"type": "array", "items": {"type": "integer"}, "maxItems": 1}), resource(spec={"l": [1, 2]}),
     ["spec.l: Too many: 2: must have at most 1 items"]),
    (spec_schema(a={"type": "integer", "anyOf": [{"maximum": 3}, {"minimum": 10}]}), resource(spec={"a": 5}),
     ['<nil>: Invalid value: "": "spec.a" must validate at least one schema (anyOf)',
      "spec.a: Invalid value: 5: spec.a in body should be less than or equal to 3"]),
    (spec_schema(s={"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}),
     resource(spec={"s": ["a", "b", "a"]}), ['spec.s[2]: Duplicate value: "a"']),
    (spec_schema(m={"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}),
     resource(spec={"m": [{"name": "x"}, {"name": "x"}]}),
     ['spec.m[1]: Duplicate value: map[string]interface {}{"name":"x"}']),
    (spec_schema(port={"x-kubernetes-int-or-string": True}), resource(spec={"port": True}),
     ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"']),
    (spec_schema(t={"type": "string", "format": "date-time"}), resource(spec={"t": "yesterday"}),
     ['spec.t: Invalid value: "yesterday": spec.t in body must be of type date-time: "yesterday"']),
    (spec_schema(i={"type": "integer", "multipleOf": 3}), resource(spec={"i": 10}),
     ["spec.i: Invalid value: 10: spec.i in body should be a multiple of 3"]),
    (spec_schema(i={"type": "integer"}), resource(spec={"i": 3.0}), []),  # an integral float is an integer
    (spec_schema(a={"type": "string"}), resource(spec={"a": None}), []),  # dropped, not invalid
]


@pytest.mark.parametrize(("schema", "body", "expected"), MESSAGES)
def test_validation_messages(schema: dict[str, Any], body: dict[str, Any], expected: list[str]) -> None:
    assert errors_of(schema, body) == expected


def test_errors_become_kubes_invalid_status() -> None:
    errors = StructuralSchema(spec_schema(replicas={"type": "integer"})).admit(resource(spec={"replicas": "x"}))
    status = invalid("example.com", "Widget", "w", errors).to_dict()
    assert status["message"] == ('Widget.example.com "w" is invalid: spec.replicas: Invalid value: "string": '
                                 'spec.replicas in body must be of type integer: "string"')
    assert status["details"]["causes"] == [{"reason": "FieldValueTypeInvalid", "field": "spec.replicas",
                                            "message": 'Invalid value: "string": spec.replicas in body must be of type integer: "string"'}]


PRUNING_SCHEMA = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {
        "keep": {"type": "string"},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                 "properties": {"typed": {"type": "object", "properties": {"x": {"type": "string"}}}}},
        "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {"type": "string"}}}},
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                     "properties": {"spec": {"type": "object"}}}}},
    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}


def test_pruning_drops_undeclared_fields() -> None:
    """apiext pkg/apiserver/schema/pruning/algorithm.go: unknown fields go, except under
    x-kubernetes-preserve-unknown-fields (where declared fields are still pruned); apiVersion,
    kind and metadata stay at the root and in embedded resources, metadata cut to ObjectMeta."""
    body = resource(metadata={"name": "w", "labels": {"a": "b"}, "bogus": 1}, extra=1,
                    spec={"keep": "k", "drop": 1, "free": {"anything": {"deep": 1}, "typed": {"x": "1", "y": 2}},
                          "map": {"a": {"v": "1", "w": 2}},
                          "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "junk": 1},
                                       "spec": {"x": 1}, "other": 1}},
                    status={"phase": "Running", "conditions": []})
    StructuralSchema(PRUNING_SCHEMA).prune(body)
    assert body == resource(metadata={"name": "w", "labels": {"a": "b"}},
                            spec={"keep": "k", "free": {"anything": {"deep": 1}, "typed": {"x": "1"}},
                                  "map": {"a": {"v": "1"}},
                                  "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}},
                            status={"phase": "Running"})


def test_pruning_reports_what_it_drops_as_kube_decoding_does() -> None:
    """unstructuredSchemaCoercer.apply: the metadata's unknown fields (read before pruning), the
    pruned paths sorted (a map's key joined like a field), then embedded resources' unknown
    metadata sorted (``field.Path``: a map's key in brackets)."""
    schema = copy.deepcopy(PRUNING_SCHEMA)
    schema["properties"]["spec"]["properties"]["byName"] = {"type": "object", "additionalProperties": {
        "type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}}
    body = resource(metadata={"name": "w", "bogus": 1}, extra=1,
                    spec={"keep": "k", "drop": 1, "free": {"anything": 1, "typed": {"x": "1", "y": 2}},
                          "map": {"a": {"v": "1", "w": 2}}, "byName": {"b": {"kind": "K", "metadata": {"junk": 1}}},
                          "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "junk": 1},
                                       "spec": {"x": 1}, "other": 1}},
                    status={"phase": "Running", "conditions": [{"a": 1}]})
    assert StructuralSchema(schema).prune_resource(body) == [
        "metadata.bogus", "extra", "spec.drop", "spec.embedded.other", "spec.embedded.spec.x",
        "spec.free.typed.y", "spec.map.a.w", "status.conditions",
        "spec.byName[b].metadata.junk", "spec.embedded.metadata.junk"]
    assert body["spec"]["byName"] == {"b": {"kind": "K", "metadata": {}}}


DEFAULTS_SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
    "replicas": {"type": "integer", "default": 1},
    "template": {"type": "object", "default": {"a": "x"},
                 "properties": {"a": {"type": "string"}, "b": {"type": "string", "default": "bee"}}},
    "ports": {"type": "array", "items": {"type": "object", "properties": {
        "protocol": {"type": "string", "default": "TCP"}, "port": {"type": "integer"}}}},
    "labels": {"type": "object", "additionalProperties": {"type": "string", "default": "none"}},
    "note": {"type": "string", "nullable": True, "default": "n"},
    "plain": {"type": "string"}}}}}


@pytest.mark.parametrize(("spec", "expected"), [
    # absent spec: the spec default, then defaults inside it (top-down, algorithm.go)
    (None, {"replicas": 1, "template": {"a": "x", "b": "bee"}, "note": "n"}),
    # a non-nullable null takes the default; a nullable null stays; other nulls are dropped (prunenulls.go)
    ({"replicas": None, "note": None, "plain": None, "ports": [{"port": 80}, {"port": 81, "protocol": "UDP"}],
      "labels": {"a": None, "b": "c"}},
     {"replicas": 1, "template": {"a": "x", "b": "bee"}, "note": None,
      "ports": [{"port": 80, "protocol": "TCP"}, {"port": 81, "protocol": "UDP"}], "labels": {"a": "none", "b": "c"}}),
])
def test_defaulting(spec: dict[str, Any] | None, expected: dict[str, Any]) -> None:
    body = resource() if spec is None else resource(spec=spec)
    assert StructuralSchema(DEFAULTS_SCHEMA).admit(body) == []
    assert body["spec"] == expected


def test_defaults_are_copies() -> None:
    schema = StructuralSchema(DEFAULTS_SCHEMA)
    first, second = resource(), resource()
    schema.admit(first)
    first["spec"]["template"]["a"] = "changed"
    schema.admit(second)
    assert second["spec"]["template"]["a"] == "x"


def test_status_writes_validate_status_only_with_paths_under_status() -> None:
    """``ValidateStatusUpdate``: the status schema on its own, field paths prefixed with status."""
    schema = StructuralSchema({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "integer", "minimum": 0}}}}})
    body = resource(spec={"replicas": "not checked"}, status={"ready": -1})
    assert schema.validate_status(body) == [
        ("status.ready", "FieldValueInvalid", "Invalid value: -1: ready in body should be greater than or equal to 0")]


@pytest.mark.parametrize(("value", "valid"), [
    ("2024-01-02T03:04:05Z", True), ("2024-01-02t03:04:05.5+01:00", True), ("2024-02-30T00:00:00Z", False),
    ("2024-01-02 03:04:05Z", False), ("2024-01-02T24:00:00Z", False),
])
def test_date_time_format(value: str, valid: bool) -> None:
    """kube-openapi strfmt ``IsDateTime``."""
    errors = errors_of(spec_schema(t={"type": "string", "format": "date-time"}), resource(spec={"t": value}))
    assert (errors == []) is valid


@pytest.mark.parametrize(("pattern", "error"), [
    ("^[a-z]+$", None),
    ("[a", "error parsing regexp: missing closing ]: `[a`"),
    ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
    ("(?=x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
    (r"\p{L}", None),  # RE2 syntax Python lacks: accepted, not checked
])
def test_go_regexp_errors(pattern: str, error: str | None) -> None:
    """Go's ``regexp/syntax`` error wording, as CRD validation reports it."""
    assert go_regexp_error(pattern) == error
