"""``fieldValidation`` on custom resources, on fakeapi and on the real kube-apiserver, as the
conformance specs of ``test/e2e/apimachinery/field_validation.go`` exercise it and further: the
same creates, updates, merge, JSON and strategic merge patches and server-side applies, under
``Strict``, ``Warn``, ``Ignore`` and no policy, of custom resources with unknown fields (at the
root, in ``spec``, in the metadata of the object and of an ``x-kubernetes-embedded-resource``)
and repeated ones; of a CRD with a schema, of one that preserves unknown fields, of one whose
``spec`` does; and the specs' Deployment with an unknown, a repeated and an unknown metadata
field. Every answer compared: code, Status (message, reason, causes), body and the ``Warning``
headers.

Kube lists the undeclared fields of an apply's typed patch in Go map order (random): the
message's lines are compared sorted."""

from __future__ import annotations

import re
from typing import Any

import pytest
from differ import NAMESPACE, Json, Pair, check, serve_crd

GROUP = "fields.kasdiff.example.com"

_PORTS = {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
          "items": {"type": "object", "required": ["containerPort", "protocol"], "properties": {
              "containerPort": {"type": "integer", "format": "int32"}, "name": {"type": "string"},
              "protocol": {"type": "string"}}}}
_CRON = {"type": "string", "pattern": "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"}
_SPEC_FIELDS = {"foo": {"type": "string"}, "cronSpec": _CRON, "ports": _PORTS}
#: Per plural: the schema of the conformance spec it follows.
SCHEMAS: dict[str, dict[str, Any]] = {
    # "should create/apply a CR with unknown fields for CRD with no validation schema"
    "loosefields": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    # "should create/apply an invalid CR with extra properties for CRD with validation schema"
    "typedfields": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        **_SPEC_FIELDS, "nested": {"type": "object", "properties": {"x": {"type": "integer"}}},
        "template": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
            "spec": {"type": "object", "properties": {"q": {"type": "string"}}}}}}}}},
    # "should detect unknown metadata fields in both the root and embedded object of a CR"
    "embeddedfields": {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {
            **_SPEC_FIELDS, "template": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
                "metadata": {"type": "object", "properties": {"name": {"type": "string"}}},
                "spec": {"type": "object"}}}}}}},
    # "should detect duplicates in a CR when preserving unknown fields"
    "preservedfields": {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": _SPEC_FIELDS}}},
}
POLICIES = ("Strict", "Warn", "Ignore", None)


def _kind(plural: str) -> str:
    return plural.capitalize()[:-1]


@pytest.fixture(scope="module")
def collections(pair: Pair) -> dict[str, str]:
    """Each plural's namespaced collection, served by both servers."""
    served = {}
    for plural, schema in SCHEMAS.items():
        kind = _kind(plural)
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": f"{plural}.{GROUP}"},
               "spec": {"group": GROUP, "scope": "Namespaced",
                        "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                        # two versions of one schema, as the conformance specs' CRDs have
                        "versions": [{"name": name, "served": True, "storage": name == "v1",
                                      "subresources": {"status": {}}, "schema": {"openAPIV3Schema": schema}}
                                     for name in ("v1beta1", "v1")]}}
        served[plural] = serve_crd(pair, crd, f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/{plural}")
    return served


_TYPED_PATCH_ERRORS = re.compile(r"(failed to create typed patch object \([^)]*\): errors:\n)((?:  .*\n?)+)")


def _sorted_typed_patch_errors(answer: Json, _is_fake: bool) -> Json:
    """The message of a typed patch that failed, its error lines sorted (kube's are in Go map
    order)."""
    if isinstance(answer, dict) and isinstance(answer.get("message"), str):
        answer["message"] = _TYPED_PATCH_ERRORS.sub(
            lambda m: m.group(1) + "\n".join(sorted(m.group(2).rstrip("\n").split("\n"))), answer["message"])
    return answer


def _query(policy: str | None, **params: str) -> str:
    pairs = {**params, **({"fieldValidation": policy} if policy else {})}
    return "?" + "&".join(f"{key}={value}" for key, value in pairs.items()) if pairs else ""


def _json_object(plural: str, name: str, members: str) -> bytes:
    """A JSON body as text, so that it may repeat a member."""
    return (f'{{"apiVersion":"{GROUP}/v1","kind":"{_kind(plural)}","metadata":{{"name":"{name}"{members}')\
        .encode()


#: (case, plural, JSON members after ``metadata.name``: the rest of the metadata, then the object's).
WRITES = [
    ("typed-unknown-and-duplicate", "typedfields",
     ',"unknownMeta":"x"},"unknownField":1,"spec":{"foo":"a","bar":1,"foo":"b","nested":{"x":1,"y":2},'
     '"template":{"apiVersion":"v1","kind":"K","metadata":{"name":"e","unknownSub":"u"},"spec":{"q":"1","r":2}}}}'),
    ("typed-valid", "typedfields", '},"spec":{"foo":"a","cronSpec":"* * * * */5",'
     '"ports":[{"name":"x","containerPort":80,"protocol":"TCP"}]}}'),
    ("embedded-unknown-metadata", "embeddedfields",
     ',"unknownMeta":"x"},"spec":{"template":{"apiversion":"foo/v1","kind":"Sub","metadata":'
     '{"unknownSubMeta":"u","name":"sub"}},"foo":"foo1"}}'),
    ("loose-unknown-and-duplicate", "loosefields", '},"spec":{"unknown":"uk1","unknown":"uk2"}}'),
    ("preserved-duplicate", "preservedfields", '},"spec":{"unknown":"uk1","foo":"foo1","foo":"foo2"}}'),
]


@pytest.mark.parametrize(("case", "plural", "members"), WRITES, ids=[case for case, _plural, _members in WRITES])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda policy: policy or "default")
def test_create_and_update(pair: Pair, collections: dict[str, str], case: str, plural: str, members: str,
                           policy: str | None) -> None:
    """A create, then (the object created without the policy) an update with the same body."""
    start = len(pair.outcomes)
    label = f"field-validation-{case}-{policy or 'default'}"
    name = f"w-{case}-{(policy or 'default').lower()}"
    collection = collections[plural]
    pair.send(label, plural, "create", "POST", collection + _query(policy), body=_json_object(plural, name, members))
    pair.send(label, plural, "create", "POST", collection + _query("Ignore"),
              body=_json_object(plural, name + "-u", members))
    pair.send(label, plural, "update", "PUT", f"{collection}/{name}-u" + _query(policy),
              body=_json_object(plural, name + "-u", members))
    check(pair, start)


#: (case, plural, content type, patch body): patches of an object first written with only a ``spec.foo``.
PATCHES = [
    ("merge-unknown-and-duplicate", "typedfields", "application/merge-patch+json",
     b'{"spec":{"bar":1,"foo":"x","foo":"z"},"metadata":{"unknownMeta":1}}'),
    ("merge-embedded", "typedfields", "application/merge-patch+json",
     b'{"spec":{"template":{"apiVersion":"v1","kind":"K","metadata":{"q":1},"spec":{"r":5}}}}'),
    ("merge-wrong-type-and-unknown", "typedfields", "application/merge-patch+json", b'{"spec":{"foo":5,"bar":1}}'),
    ("merge-valid", "typedfields", "application/merge-patch+json", b'{"spec":{"foo":"y"}}'),
    ("json-patch-unknown", "typedfields", "application/json-patch+json",
     b'[{"op":"add","path":"/spec/bar","value":1},{"op":"add","path":"/metadata/unknownMeta","value":1}]'),
    ("json-patch-unknown-operation-member", "typedfields", "application/json-patch+json",
     b'[{"op":"add","path":"/spec/bar","value":1,"extra":true}]'),
    ("strategic-merge", "typedfields", "application/strategic-merge-patch+json", b'{"spec":{"bar":1}}'),
    ("merge-embedded-metadata", "embeddedfields", "application/merge-patch+json",
     b'{"metadata":{"unknownMeta":"x"},"spec":{"template":{"apiVersion":"v1","kind":"K","metadata":{"zz":1}}}}'),
    ("merge-loose", "loosefields", "application/merge-patch+json", b'{"spec":{"a":1,"a":2},"metadata":{"unknownMeta":1}}'),
]


@pytest.mark.parametrize(("case", "plural", "content_type", "patch"), PATCHES, ids=[case[0] for case in PATCHES])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda policy: policy or "default")
def test_patch(pair: Pair, collections: dict[str, str], case: str, plural: str, content_type: str, patch: bytes,
               policy: str | None) -> None:
    start = len(pair.outcomes)
    label = f"field-validation-{case}-{policy or 'default'}"
    name = f"p-{case}-{(policy or 'default').lower()}"
    collection = collections[plural]
    pair.send(label, plural, "create", "POST", collection, body=_json_object(plural, name, '},"spec":{"foo":"a"}}'))
    pair.send(label, plural, "patch", "PATCH", f"{collection}/{name}" + _query(policy), body=patch,
              content_type=content_type)
    pair.send(label, plural, "get", "GET", f"{collection}/{name}")
    check(pair, start)


def _yaml_object(plural: str, name: str, rest: str) -> bytes:
    return f"apiVersion: {GROUP}/v1\nkind: {_kind(plural)}\nmetadata:\n  name: {name}\n{rest}".encode()


#: (case, plural, YAML after ``metadata.name``): the conformance specs' applied configurations, and more.
APPLIES = [
    ("no-schema-unknown", "loosefields",
     "spec:\n  unknown: uk1\n  cronSpec: \"* * * * */5\"\n  ports:\n  - name: x\n    containerPort: 80\n    protocol: TCP\n"),
    ("schema-unknown-root-field", "typedfields",
     "unknownField: unknown\nspec:\n  foo: foo1\n  cronSpec: \"* * * * */5\"\n  ports:\n  - name: x\n"
     "    containerPort: 80\n    protocol: TCP\n"),
    ("embedded-unknown-metadata", "embeddedfields",
     "  unknownMeta: unknown\nspec:\n  template:\n    apiversion: foo/v1\n    kind: Sub\n    metadata:\n"
     "        unknownSubMeta: unknown\n        name: subobject\n        namespace: kasdiff\n  foo: foo1\n"),
    ("embedded-unknown-template-metadata", "embeddedfields",
     "spec:\n  template:\n    apiVersion: v1\n    kind: Sub\n    metadata:\n      unknownSubMeta: unknown\n"),
    ("typed-unknown-in-embedded", "typedfields",
     "spec:\n  template:\n    apiVersion: v1\n    kind: K\n    metadata:\n      name: e\n    spec:\n      q: x\n      r: y\n"),
    ("preserved-duplicate", "preservedfields",
     "spec:\n  unknown: uk1\n  foo: foo1\n  foo: foo2\n  cronSpec: \"* * * * */5\"\n"),
    ("duplicate-and-unknown", "typedfields", "spec:\n  foo: foo1\n  foo: foo2\n  bar: 1\n"),
    ("valid", "typedfields", "spec:\n  foo: foo1\n  nested:\n    x: 1\n"),
    # managedFields of an embedded resource's metadata, typed as ObjectMeta
    ("valid-embedded", "typedfields", "spec:\n  template:\n    apiVersion: v1\n    kind: K\n    metadata:\n"
     "      name: e\n      labels:\n        a: b\n      finalizers: [x/y]\n    spec:\n      q: x\n"),
]


@pytest.mark.parametrize(("case", "plural", "rest"), APPLIES, ids=[case for case, _plural, _rest in APPLIES])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda policy: policy or "default")
def test_apply(pair: Pair, collections: dict[str, str], case: str, plural: str, rest: str, policy: str | None) -> None:
    """An apply that creates, then one that updates (the object created without the policy)."""
    start = len(pair.outcomes)
    label = f"field-validation-apply-{case}-{policy or 'default'}"
    name = f"a-{case}-{(policy or 'default').lower()}"
    collection = collections[plural]
    for target, before in ((name, None), (name + "-u", "spec:\n  foo: first\n")):
        if before is not None:
            pair.send(label, plural, "apply", "PATCH", f"{collection}/{target}" + _query(None, fieldManager="m"),
                      body=_yaml_object(plural, target, before), content_type="application/apply-patch+yaml")
        pair.send(label, plural, "apply", "PATCH", f"{collection}/{target}" + _query(policy, fieldManager="m"),
                  body=_yaml_object(plural, target, rest), content_type="application/apply-patch+yaml",
                  rewrite=_sorted_typed_patch_errors)
        pair.send(label, plural, "get", "GET", f"{collection}/{target}")
    check(pair, start)


#: The conformance specs' typed objects ("should detect unknown and duplicate fields of a typed
#: object", "... unknown metadata fields of a typed object"): members after ``metadata.labels``.
_DEPLOYMENT = ('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"%s","labels":{"app":"nginx"}%s},'
               '"spec":{"unknownField":"foo","replicas":2,"replicas":3,"selector":{"matchLabels":{"app":"nginx"}},'
               '"template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx",'
               '"image":"nginx:latest"}]}}}}')


@pytest.mark.parametrize("metadata", ["", ',"unknownMeta":"foo"'], ids=["spec", "metadata"])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda policy: policy or "default")
def test_typed_object(pair: Pair, metadata: str, policy: str | None) -> None:
    start = len(pair.outcomes)
    name = f"dep-{'meta' if metadata else 'spec'}-{(policy or 'default').lower()}"
    pair.send(f"field-validation-typed-{name}", "deployments", "create", "POST",
              f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments" + _query(policy, fieldManager="field_validation_mgr"),
              body=(_DEPLOYMENT % (name, metadata)).encode())
    check(pair, start)
