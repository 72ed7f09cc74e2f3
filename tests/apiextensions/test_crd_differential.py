"""fakeapi's CRD and custom resource code against apiextensions-apiserver's own, case by case.

``tests/crddiff`` is a Go program linking k8s.io/apiextensions-apiserver v0.32.13 that prunes,
defaults and validates custom resources and validates CRDs as kube-apiserver does (see its
``main.go``); the session fixture builds it. Kube walks Go maps, so errors are compared as sorted
lists, and Go pointer addresses in messages are masked.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fakeapi.apiextensions.crd_defaults import default_crd
from fakeapi.apiextensions.crd_validation import crd_errors
from fakeapi.apiextensions.structural import StructuralSchema

HARNESS = Path(__file__).resolve().parents[1] / "crddiff"
GO_PATH = "/usr/local/go/bin"
_POINTER = re.compile(r"\(0x[0-9a-f]+\)")


@pytest.fixture(scope="session")
def crddiff() -> Path:
    """The harness binary, built into ``tests/crddiff/bin`` (gitignored)."""
    env = {**os.environ, "PATH": f"{os.environ.get('PATH', '')}:{GO_PATH}"}
    go = shutil.which("go", path=env["PATH"])
    if go is None:
        pytest.fail("the CRD differential tests need Go (looked in PATH and /usr/local/go/bin)")
    binary = HARNESS / "bin" / "crddiff"
    subprocess.run([go, "build", "-o", str(binary), "./cmd/crddiff"], cwd=HARNESS, env=env, check=True, timeout=600)
    return binary


def run_kube(binary: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every case through the harness in one process, results in order."""
    stdin = "".join(json.dumps(case) + "\n" for case in cases)
    done = subprocess.run([str(binary)], input=stdin, capture_output=True, text=True, check=True, timeout=120)
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(cases), done.stderr
    return results


def normalised(errors: list[Any]) -> list[tuple[str, str, str]]:
    return sorted((field, kind, _POINTER.sub("(0xADDR)", body)) for field, kind, body in errors)


# --- custom resources: (id, openAPIV3Schema, object) ----------------------------------------------

def obj(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, **fields}


def spec_schema(properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": properties, **extra}}}


RESOURCE_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("type-errors", spec_schema({
        "i": {"type": "integer"}, "n": {"type": "number"}, "s": {"type": "string"}, "b": {"type": "boolean"},
        "a": {"type": "array", "items": {"type": "string"}}, "o": {"type": "object"}}),
     obj(spec={"i": "x", "n": True, "s": 3, "b": "yes", "a": {"k": 1}, "o": [1]})),
    ("integer-as-float", spec_schema({"i": {"type": "integer"}, "j": {"type": "integer"}}),
     obj(spec={"i": 3.0, "j": 3.5})),
    ("number-accepts-integer", spec_schema({"n": {"type": "number", "minimum": 1.5}}), obj(spec={"n": 1})),
    ("enum", spec_schema({"color": {"type": "string", "enum": ["red", "blue"]},
                          "size": {"type": "integer", "enum": [1, 2, 3]},
                          "any": {"x-kubernetes-preserve-unknown-fields": True, "enum": [{"a": 1}, 1.5, True, None]}}),
     obj(spec={"color": "pink", "size": 4, "any": "x"})),
    ("enum-float-vs-int", spec_schema({"size": {"type": "number", "enum": [1, 2.5]}}), obj(spec={"size": 1.7})),
    ("required", {"type": "object", "required": ["spec"], "properties": {"spec": {
        "type": "object", "required": ["name", "port"], "properties": {
            "name": {"type": "string"}, "port": {"type": "integer"}}}}},
     obj(spec={"port": 80})),
    ("required-at-root", {"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object"}}}, obj()),
    ("bounds", spec_schema({
        "a": {"type": "integer", "minimum": 1, "maximum": 10},
        "b": {"type": "integer", "minimum": 1, "exclusiveMinimum": True},
        "c": {"type": "number", "maximum": 2.5, "exclusiveMaximum": True},
        "d": {"type": "number", "maximum": 1000000},
        "e": {"type": "integer", "maximum": 2.5}}),
     obj(spec={"a": 11, "b": 1, "c": 2.5, "d": 2e7, "e": 3})),
    ("multiple-of", spec_schema({"a": {"type": "integer", "multipleOf": 3},
                                 "b": {"type": "number", "multipleOf": 0.5},
                                 "c": {"type": "number", "multipleOf": 0.1}}),
     obj(spec={"a": 10, "b": 1.25, "c": 0.3})),
    ("strings", spec_schema({"short": {"type": "string", "maxLength": 3},
                             "long": {"type": "string", "minLength": 3},
                             "pat": {"type": "string", "pattern": "^[a-z]+$"},
                             "unicode": {"type": "string", "maxLength": 2}}),
     obj(spec={"short": "abcd", "long": "ab", "pat": "ABC", "unicode": "éé"})),
    ("string-checks-stop-at-first", spec_schema({"s": {"type": "string", "maxLength": 1, "pattern": "^x$"}}),
     obj(spec={"s": "abc"})),
    ("arrays", spec_schema({"few": {"type": "array", "items": {"type": "integer"}, "minItems": 2},
                            "many": {"type": "array", "items": {"type": "integer"}, "maxItems": 1},
                            "uniq": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
                            "typed": {"type": "array", "items": {"type": "integer", "minimum": 0}}}),
     obj(spec={"few": [1], "many": [1, 2, 3], "uniq": [1, 2, 1], "typed": [1, -1, "x"]})),
    ("properties-count", spec_schema({"m": {"type": "object", "minProperties": 2, "additionalProperties": {"type": "string"}},
                                      "n": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "integer"}}}),
     obj(spec={"m": {"a": "x"}, "n": {"a": 1, "b": "two"}})),
    ("nullable", spec_schema({"a": {"type": "string", "nullable": True}, "b": {"type": "string"},
                              "l": {"type": "array", "items": {"type": "string"}},
                              "d": {"type": "string", "default": "dflt"}}),
     obj(spec={"a": None, "b": None, "l": ["x", None], "d": None})),
    ("int-or-string", spec_schema({"port": {"x-kubernetes-int-or-string": True},
                                   "p2": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                                   "p3": {"x-kubernetes-int-or-string": True}}),
     obj(spec={"port": "http", "p2": 1.5, "p3": True})),
    ("formats", spec_schema({f: {"type": "string", "format": f} for f in (
        "date-time", "date", "uuid", "ipv4", "ipv6", "cidr", "mac", "hostname", "byte", "duration", "email",
        "uri", "hexcolor", "int32", "unknown")}),
     obj(spec={"date-time": "2024-13-01T00:00:00Z", "date": "2024-02-30", "uuid": "nope", "ipv4": "1.2.3",
               "ipv6": "1.2.3.4", "cidr": "10.0.0.0/33", "mac": "zz", "hostname": "-bad", "byte": "a",
               "duration": "forever", "email": "x", "uri": "no spaces allowed", "hexcolor": "#12",
               "int32": "x", "unknown": "x"})),
    ("formats-valid", spec_schema({f: {"type": "string", "format": f} for f in (
        "date-time", "date", "uuid", "ipv4", "ipv6", "cidr", "mac", "hostname", "byte", "duration", "email", "uri")}),
     obj(spec={"date-time": "2024-01-02T03:04:05.123+01:00", "date": "2024-02-29", "uuid": "123e4567-e89b-12d3-a456-426614174000",
               "ipv4": "10.0.0.1", "ipv6": "fe80::1", "cidr": "10.0.0.0/8", "mac": "00:1a:2b:3c:4d:5e",
               "hostname": "example.com", "byte": "aGVsbG8=", "duration": "1h30m", "email": "a@b.c",
               "uri": "https://example.com/x"})),
    ("format-on-non-string", spec_schema({"t": {"type": "string", "format": "date-time"}}), obj(spec={"t": 5})),
    ("any-of", spec_schema({"a": {"type": "integer", "anyOf": [{"maximum": 3}, {"minimum": 10}]},
                            "b": {"type": "integer", "anyOf": [{"maximum": 3}, {"minimum": 10}]}}),
     obj(spec={"a": 5, "b": 11})),
    ("one-of", spec_schema({"a": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}},
                                  "oneOf": [{"required": ["x"]}, {"required": ["y"]}]}}),
     obj(spec={"a": {"x": "1", "y": "2"}})),
    ("one-of-none", spec_schema({"a": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}},
                                       "oneOf": [{"required": ["x"]}, {"required": ["y"]}]}}),
     obj(spec={"a": {}})),
    ("all-of-and-not", spec_schema({"a": {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 2}],
                                          "not": {"enum": [7]}},
                                    "b": {"type": "integer", "allOf": [{"minimum": 5}, {"minimum": 6}]}}),
     obj(spec={"a": 7, "b": 1})),
    ("pruning", {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "keep": {"type": "string"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                     "properties": {"typed": {"type": "object", "properties": {"x": {"type": "string"}}}}},
            "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {"type": "string"}}}},
            "open": {"type": "object", "additionalProperties": True},
            "list": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "string"}}}},
            "embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                         "properties": {"spec": {"type": "object", "properties": {"x": {"type": "string"}}}}},
        }},
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}},
     obj(metadata={"name": "w", "labels": {"a": "b"}, "bogus": 1}, extra=1,
         spec={"keep": "k", "drop": 1, "free": {"anything": {"deep": 1}, "typed": {"x": "1", "y": 2}},
               "map": {"a": {"v": "1", "w": 2}}, "open": {"k": {"nested": 1}, "s": "v"},
               "list": [{"n": "1", "m": 2}, "scalar"],
               "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "junk": 1},
                            "spec": {"x": "1", "y": 2}, "other": 1}},
         status={"phase": "Running", "conditions": []})),
    ("preserve-unknown-root", {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                               "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}}}}},
     obj(anything={"x": 1}, spec={"a": "1", "b": 2})),
    ("defaults", {"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
        "replicas": {"type": "integer", "default": 1},
        "image": {"type": "string", "default": "nginx"},
        "tpl": {"type": "object", "default": {"a": "x"}, "properties": {"a": {"type": "string"}, "b": {"type": "string", "default": "bee"}}},
        "ports": {"type": "array", "items": {"type": "object", "properties": {
            "protocol": {"type": "string", "default": "TCP"}, "port": {"type": "integer"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string", "default": "none"}},
        "nullableWithDefault": {"type": "string", "nullable": True, "default": "d"},
    }}}},
     obj(spec={"replicas": None, "ports": [{"port": 80}, {"port": 81, "protocol": "UDP"}], "labels": {"a": None, "b": "c"},
               "nullableWithDefault": None})),
    ("defaults-absent-spec", {"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
        "replicas": {"type": "integer", "default": 1}}}}}, obj()),
    ("list-type-set", spec_schema({"s": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                                   "n": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}}}),
     obj(spec={"s": ["a", "b", "a", "a", "b"], "n": [1, 2, 1]})),
    ("list-type-map", spec_schema({"m": {"type": "array", "x-kubernetes-list-type": "map",
                                         "x-kubernetes-list-map-keys": ["name"],
                                         "items": {"type": "object", "required": ["name"], "properties": {
                                             "name": {"type": "string"}, "v": {"type": "integer"}}}},
                                   "mm": {"type": "array", "x-kubernetes-list-type": "map",
                                          "x-kubernetes-list-map-keys": ["a", "b"],
                                          "items": {"type": "object", "required": ["a", "b"], "properties": {
                                              "a": {"type": "string"}, "b": {"type": "integer"}}}}}),
     obj(spec={"m": [{"name": "x", "v": 1}, {"name": "y"}, {"name": "x", "v": 2}],
               "mm": [{"a": "x", "b": 1}, {"a": "x", "b": 2}, {"a": "x", "b": 1}]})),
    ("nested-arrays-paths", spec_schema({"grid": {"type": "array", "items": {"type": "array", "items": {
        "type": "object", "required": ["v"], "properties": {"v": {"type": "integer", "maximum": 1}}}}}}),
     obj(spec={"grid": [[{"v": 1}], [{"v": 2}, {}]]})),
    ("map-values", spec_schema({"env": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 2}}}),
     obj(spec={"env": {"A": "long", "B.c": 1}})),
    ("repeated-messages", spec_schema({"a": {"type": "array", "items": {"type": "string", "enum": ["x"]}}}),
     obj(spec={"a": ["y", "y", "z"]})),
    ("embedded-resources", spec_schema({
        "template": {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
        "list": {"type": "array", "items": {"type": "object", "x-kubernetes-embedded-resource": True,
                                            "x-kubernetes-preserve-unknown-fields": True}}}),
     # with apiVersion and kind: v0.32's detail of a missing one ("must not be empty") is none in
     # kube 1.35 (tests/kasdiff/test_custom_resource_field_validation.py has that against kube)
     obj(spec={"template": {"apiVersion": "v1", "kind": "Template", "metadata": {"name": "x"}},
               "list": [{"apiVersion": "", "kind": ""}, {"apiVersion": "a/b/c", "kind": "Not_Valid"},
                        {"apiVersion": "v1", "kind": "Pod"}]})),
    ("null-at-root-field", {"type": "object", "properties": {"spec": {"type": "object", "nullable": True}}}, obj(spec=None)),
]


# --- CRDs: (id, crd, old) --------------------------------------------------------------------------

def crd(*, schema: Any = None, versions: list[dict[str, Any]] | None = None, name: str = "widgets.example.com",
        annotations: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    body_spec: dict[str, Any] = {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": versions if versions is not None else [{
            "name": "v1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": schema if schema is not None else {"type": "object"}}}],
    }
    body_spec.update(spec)
    metadata: dict[str, Any] = {"name": name}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": metadata, "spec": body_spec}


def version(name: str, *, served: bool = True, storage: bool = False, schema: Any = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "served": served, "storage": storage,
            "schema": {"openAPIV3Schema": schema if schema is not None else {"type": "object"}}, **extra}


def update(new: dict[str, Any], old: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """An update's new and old objects, with the resourceVersion an update must carry."""
    for body in (new, old):
        body["metadata"]["resourceVersion"] = "1"
    return new, old


#: A rule that costs 1.6 times an expression's budget (a 200-character regex over an unbounded
#: string), and a schema of 12 rules each within it that cost more than a CRD's together.
_COSTLY = spec_schema({"s": {"type": "string", "x-kubernetes-validations": [{"rule": f"self.matches('{'[a-z]' * 40}')"}]}})
_COSTLY_TOGETHER = spec_schema({f"l{index}": {
    "type": "array", "maxItems": 5000, "items": {"type": "string", "maxLength": 1000 + 10 * index},
    "x-kubernetes-validations": [{"rule": f"self.all(x, x.contains('{'a' * 40}'))"}]} for index in range(12)})
_CHEAP = {"n": {"type": "integer"}}


ESTABLISHED = {"conditions": [{"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                               "message": "the initial names have been accepted"}],
               "storedVersions": ["v1"], "acceptedNames": {"plural": "widgets", "kind": "Widget"}}

CRD_CASES: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
    ("valid", crd(schema=spec_schema({"replicas": {"type": "integer", "default": 1}})), None),
    ("wrong-name", crd(name="widget.example.com"), None),
    ("bad-name", crd(name="Widgets.example.com"), None),
    ("group-without-dot", crd(name="widgets.example", group="example"), None),
    ("group-invalid", crd(name="widgets.Example.com", group="Example.com"), None),
    ("no-group", crd(name="widgets.", group=""), None),
    ("bad-scope", crd(scope="Global"), None),
    ("no-scope", crd(scope=""), None),
    ("names", crd(name="Widgets.example.com", names={"plural": "Widgets", "singular": "a_b", "kind": "Wid get",
                                                     "listKind": "Wid get", "shortNames": ["W"], "categories": ["All"]}), None),
    ("names-defaulted", crd(names={"plural": "widgets", "kind": "Widget"}), None),
    ("names-missing", crd(name=".example.com", names={}), None),
    ("no-versions", crd(versions=[]), None),
    ("no-storage", crd(versions=[version("v1")]), None),
    ("two-storage", crd(versions=[version("v1", storage=True), version("v2", storage=True)]), None),
    ("duplicate-versions", crd(versions=[version("v1", storage=True), version("v1")]), None),
    ("bad-version-names", crd(versions=[version("V1", storage=True), version("1beta")]), None),
    ("missing-schema", crd(versions=[{"name": "v1", "served": True, "storage": True}]), None),
    ("missing-one-schema", crd(versions=[version("v1", storage=True), {"name": "v2", "served": True, "storage": False}]), None),
    ("schema-type-missing", crd(schema={"type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}}), None),
    ("schema-root-not-object", crd(schema={"type": "string"}), None),
    ("schema-root-empty", crd(schema={}), None),
    ("schema-items-missing", crd(schema=spec_schema({"l": {"type": "array"}})), None),
    ("schema-item-type-missing", crd(schema=spec_schema({"l": {"type": "array", "items": {}}})), None),
    ("schema-bad-type", crd(schema=spec_schema({"a": {"type": "str"}, "b": {"type": "null"}})), None),
    ("schema-forbidden-keywords", crd(schema=spec_schema({"a": {"type": "string", "$ref": "#/x"},
                                                          "b": {"type": "object", "patternProperties": {"x": {"type": "string"}}},
                                                          "c": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}})), None),
    ("schema-additional-and-properties", crd(schema=spec_schema({"m": {"type": "object", "properties": {"a": {"type": "string"}},
                                                                        "additionalProperties": {"type": "string"}}})), None),
    ("schema-additional-at-root", crd(schema={"type": "object", "additionalProperties": {"type": "string"}}), None),
    ("schema-nested-value-validation", crd(schema=spec_schema(
        {"a": {"type": "string", "anyOf": [{"type": "string", "description": "d"}, {"nullable": True, "default": "x"}]},
         "b": {"type": "object", "properties": {"x": {"type": "string"}},
               "allOf": [{"properties": {"x": {"maxLength": 3}, "y": {"minLength": 1}}}]}})), None),
    ("schema-int-or-string-patterns", crd(schema=spec_schema(
        {"p": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
         "q": {"x-kubernetes-int-or-string": True, "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "^x"}]},
         "r": {"x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True}})), None),
    ("schema-metadata", crd(schema={"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}, "labels": {"type": "object"}}},
        "kind": {"type": "integer"}}}), None),
    ("schema-metadata-name-only", crd(schema={"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}}}}), None),
    ("schema-metadata-default", crd(schema={"type": "object", "properties": {
        "metadata": {"type": "object", "default": {"name": "x"}}}}), None),
    ("schema-embedded", crd(schema=spec_schema({"e": {"x-kubernetes-embedded-resource": True},
                                                "f": {"type": "object", "x-kubernetes-embedded-resource": True}})), None),
    ("schema-defaults", crd(schema=spec_schema({"a": {"type": "integer", "default": "x"},
                                                "b": {"type": "object", "properties": {"x": {"type": "string"}}, "default": {"x": "1", "y": 2}},
                                                "c": {"type": "string", "enum": ["a"], "default": "b"}})), None),
    ("schema-default-preserve-unknown", crd(schema=spec_schema({"a": {"type": "integer", "default": 1}}), preserveUnknownFields=True), None),
    ("schema-list-types", crd(schema=spec_schema({
        "a": {"type": "string", "x-kubernetes-list-type": "set"},
        "b": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"},
        "c": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}, "x-kubernetes-list-type": "map"},
        "d": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "object"}, "n": {"type": "string", "nullable": True}}},
              "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k", "n", "z", "k"]},
        "e": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-map-keys": ["x"]},
        "f": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}, "x-kubernetes-list-type": "set"},
        "g": {"type": "string", "x-kubernetes-map-type": "weird"},
        "h": {"type": "array", "items": {"type": "string", "nullable": True}, "x-kubernetes-list-type": "set"}})), None),
    ("schema-preserve-false", crd(schema=spec_schema({"a": {"type": "object", "x-kubernetes-preserve-unknown-fields": False}})), None),
    ("schema-bad-pattern", crd(schema=spec_schema({"a": {"type": "string", "pattern": "[a"}})), None),
    ("status-root", crd(versions=[version("v1", storage=True, subresources={"status": {}},
                                          schema={"type": "object", "nullable": True, "enum": [{}]})]), None),
    ("status-root-description-ok", crd(versions=[version("v1", storage=True, subresources={"status": {}},
                                                         schema={"type": "object", "description": "d", "required": ["spec"],
                                                                 "properties": {"spec": {"type": "object"}}})]), None),
    ("scale", crd(versions=[version("v1", storage=True, subresources={"scale": {
        "specReplicasPath": "spec.replicas", "statusReplicasPath": ".spec.replicas", "labelSelectorPath": ".meta.sel"}})]), None),
    ("scale-missing", crd(versions=[version("v1", storage=True, subresources={"scale": {}})]), None),
    ("per-version-subresources", crd(versions=[version("v1", storage=True, subresources={"scale": {"specReplicasPath": ".x"}}),
                                               version("v2")]), None),
    ("printer-columns", crd(versions=[version("v1", storage=True, additionalPrinterColumns=[
        {"name": "", "type": "", "jsonPath": ""}, {"name": "Age", "type": "time", "format": "weird", "jsonPath": "metadata.x"},
        {"name": "Ok", "type": "date", "jsonPath": ".metadata.creationTimestamp"}])]), None),
    ("deprecation", crd(versions=[version("v1", storage=True, deprecationWarning="x"),
                                  version("v2", deprecated=True, deprecationWarning="")]), None),
    ("conversion-webhook", crd(conversion={"strategy": "Webhook"}), None),
    ("conversion-webhook-config", crd(conversion={"strategy": "Webhook", "webhook": {
        "clientConfig": {"service": {"name": "", "namespace": "ns"}}, "conversionReviewVersions": ["v2", "v2", "X"]}}), None),
    ("conversion-none-with-webhook", crd(conversion={"strategy": "None", "webhook": {
        "clientConfig": {"url": "https://x"}, "conversionReviewVersions": ["v1"]}}), None),
    ("conversion-bad", crd(conversion={"strategy": "Magic"}), None),
    ("protected-group", crd(name="widgets.x.k8s.io", group="x.k8s.io"), None),
    ("protected-group-bad-annotation", crd(name="widgets.x.k8s.io", group="x.k8s.io",
                                           annotations={"api-approved.kubernetes.io": "yes"}), None),
    ("protected-group-approved", crd(name="widgets.x.k8s.io", group="x.k8s.io",
                                     annotations={"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"}), None),
    ("protected-group-unapproved", crd(name="widgets.x.k8s.io", group="x.k8s.io",
                                       annotations={"api-approved.kubernetes.io": "unapproved, testing"}), None),
    ("preserve-unknown-fields", crd(preserveUnknownFields=True), None),
    ("update-immutable", *update(crd(name="widgets.example.com", group="example.org", scope="Cluster",
                                     names={"plural": "gadgets", "kind": "Gadget"}), {**crd(), "status": ESTABLISHED})),
    ("update-not-established", *update(crd(scope="Cluster", names={"plural": "widgets", "kind": "Gadget"}), crd())),
    ("update-drops-stored-version", *update({**crd(versions=[version("v2", storage=True)]),
                                             "status": {"storedVersions": ["v1", "v2"]}}, crd())),
    ("rule-cost-over-budget", crd(schema=_COSTLY), None),
    ("update-keeps-schema-whose-rule-costs-over-budget", *update(crd(schema=_COSTLY, annotations={"a": "b"}), crd(schema=_COSTLY))),
    ("update-changes-schema-whose-rule-costs-over-budget", *update(
        crd(schema={**_COSTLY, "properties": {**_COSTLY["properties"], "other": {"type": "integer"}}}), crd(schema=_COSTLY))),
    ("update-keeps-schema-whose-rules-cost-over-crd-budget", *update(crd(schema=_COSTLY_TOGETHER, annotations={"a": "b"}),
                                                                   crd(schema=_COSTLY_TOGETHER))),
    ("update-keeps-one-version-whose-rule-costs-over-budget", *update(
        crd(versions=[version("v1", storage=True, schema=_COSTLY), version("v2", schema=spec_schema(_CHEAP))]),
        crd(versions=[version("v1", storage=True, schema=_COSTLY), version("v2")]))),
    ("update-schemaless-allowed", *update(
        crd(versions=[version("v1", storage=True), {"name": "v2", "served": False, "storage": False}]),
        crd(versions=[version("v1", storage=True), {"name": "v2", "served": False, "storage": False}]))),
]


@pytest.fixture(scope="module")
def kube_results(crddiff: Path) -> dict[str, dict[str, Any]]:
    cases = [{"op": "resource", "schema": schema, "object": body} for _, schema, body in RESOURCE_CASES]
    cases += [{"op": "crd", "crd": body, "old": old} for _, body, old in CRD_CASES]
    ids = [f"resource/{case_id}" for case_id, _, _ in RESOURCE_CASES] + [f"crd/{case_id}" for case_id, _, _ in CRD_CASES]
    return dict(zip(ids, run_kube(crddiff, cases)))


@pytest.mark.parametrize(("case_id", "schema", "body"), RESOURCE_CASES, ids=[c[0] for c in RESOURCE_CASES])
def test_custom_resource_write_matches_kube(kube_results: dict[str, Any], case_id: str, schema: dict[str, Any],
                                            body: dict[str, Any]) -> None:
    kube = kube_results[f"resource/{case_id}"]
    assert "error" not in kube, kube
    written = copy.deepcopy(body)
    errors = StructuralSchema(schema).admit(written)
    assert written == kube["object"]
    assert normalised(errors) == normalised(kube["errors"])


@pytest.mark.parametrize(("case_id", "body", "old"), CRD_CASES, ids=[c[0] for c in CRD_CASES])
def test_crd_validation_matches_kube(kube_results: dict[str, Any], case_id: str, body: dict[str, Any],
                                     old: dict[str, Any] | None) -> None:
    kube = kube_results[f"crd/{case_id}"]
    assert "error" not in kube, kube
    new = copy.deepcopy(body)
    default_crd(new)
    previous = None
    if old is not None:
        previous = copy.deepcopy(old)
        default_crd(previous)
    assert normalised(crd_errors(new, previous)) == normalised(kube["errors"])
