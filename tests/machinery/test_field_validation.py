"""Server-side field validation against what kube-apiserver reports.

Every expected message below was produced by decoding the same bytes with apimachinery v0.32.13's
strict ``CodecFactory`` (``serializer.EnableStrict``, client-go's scheme plus apiextensions v1),
which is the decoder kube-apiserver's create and update handlers use for ``Strict`` and ``Warn``;
the 422 body by ``ValidateCreateOptions`` through ``errors.NewInvalid``.
"""

from __future__ import annotations

import json

import pytest

from fakeapi.machinery.field_validation import (
    MAX_ERRORS,
    FieldValidation,
    check_custom_fields,
    check_fields,
    field_validation,
    object_meta_unknown_fields,
    strict_decoding_errors,
    warning_header,
)
from fakeapi.machinery.schema import kind_schema
from fakeapi.machinery.status import StatusError


def errors_of(body: str) -> str:
    obj = json.loads(body)
    group, _, version = obj["apiVersion"].rpartition("/")
    schema = kind_schema(group, version, obj["kind"])
    assert schema is not None
    errors = strict_decoding_errors(body.encode(), schema)
    return "strict decoding error: " + ", ".join(errors) if errors else "OK"


#: Bodies and what kube's strict decoding reports of them.
_KUBE_STRICT_CASES = [
    ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"a":"1"},"foo":1}',
     'strict decoding error: unknown field "foo"'),
    ('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"},"spec":{"foo":1,"replicas":1,"replicas":2,'
     '"template":{"spec":{"containers":[{"name":"c","image":"x","bogus":true},{"name":"d","Image":"y"}]}}}}',
     'strict decoding error: unknown field "spec.foo", duplicate field "spec.replicas", '
     'unknown field "spec.template.spec.containers[0].bogus", unknown field "spec.template.spec.containers[1].Image"'),
    # Map keys are paths too; an unknown field seen twice is reported once.
    ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1","x":"2"},"name":"b"},'
     '"data":{"a":"1"},"foo":1,"foo":2}',
     'strict decoding error: duplicate field "metadata.labels.x", duplicate field "metadata.name", unknown field "foo"'),
    # An unknown field's value is not looked into; null is a value like any other.
    ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","annotations":null,"unknownMeta":{"deep":{"deeper":1}}}}',
     'strict decoding error: unknown field "metadata.unknownMeta"'),
    # RawExtension and FieldsV1 decode themselves: nothing inside them is reported.
    ('{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"a"},"revision":1,'
     '"data":{"x":1,"x":2,"y":{"z":1}}}', "OK"),
    ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":'
     '{"f:x":{},"f:x":{}},"nope":1}]},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1","cpu":"2"}}}]}}',
     'strict decoding error: unknown field "metadata.managedFields[0].nope", '
     'duplicate field "spec.containers[0].resources.limits.cpu"'),
    ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"spec":"x","spec":"y"}',
     'strict decoding error: unknown field "spec"'),
    ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","ports":'
     '[{"containerPort":80,"containerPort":81,"x":1}]}],"nodeSelector":{"a":"b","a":"c"}}}',
     'strict decoding error: duplicate field "spec.containers[0].ports[0].containerPort", '
     'unknown field "spec.containers[0].ports[0].x", duplicate field "spec.nodeSelector.a"'),
    # Field names are matched case-sensitively.
    ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"a":"1"},"Data":{"b":"2"},'
     '"binaryData":null,"extra":[1,{"x":1}]}',
     'strict decoding error: unknown field "Data", unknown field "extra"'),
    ('{"apiVersion":"v1","kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}',
     'strict decoding error: duplicate field "apiVersion"'),
    ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","livenessProbe":'
     '{"httpGet":{"port":8080,"port":"http","path":"/"}}}]}}',
     'strict decoding error: duplicate field "spec.containers[0].livenessProbe.httpGet.port"'),
    # An empty struct (subresources.status) knows no field; JSON (default) decodes itself;
    # a map of structs (properties) is checked inside.
    ('{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a"},"spec":'
     '{"versions":[{"name":"v1","subresources":{"status":{"x":1}},"schema":{"openAPIV3Schema":{"type":"object",'
     '"x-kubernetes-preserve-unknown-fields":true,"default":{"a":1,"a":2},"properties":{"a":{"type":"string",'
     '"bogus":1}}}}}]}}',
     'strict decoding error: unknown field "spec.versions[0].subresources.status.x", '
     'unknown field "spec.versions[0].schema.openAPIV3Schema.properties.a.bogus"'),
]


@pytest.mark.parametrize(("body", "expected"), _KUBE_STRICT_CASES)
def test_strict_decoding_errors_match_kube(body: str, expected: str) -> None:
    assert errors_of(body) == expected


def test_at_most_100_errors_are_kept() -> None:
    fields = ",".join(f'"f{i}":1' for i in range(150))
    errors = strict_decoding_errors(
        ('{"apiVersion":"v1","kind":"ConfigMap",' + fields + "}").encode(), kind_schema("", "v1", "ConfigMap"))
    assert len(errors) == MAX_ERRORS
    assert errors[-1] == 'unknown field "f99"'


@pytest.mark.parametrize(("data", "expected"), [
    # Go reads each byte of invalid UTF-8 as U+FFFD, a truncated sequence too: two keys collide
    (b'{"\xff":"1","\xe2\x82":"2","\xfe":"3"}', ['duplicate field "data.\ufffd"']),
    (b'{"\xe2\x82":"1","\xff\xfe":"2"}', ['duplicate field "data.\ufffd\ufffd"']),
    # and a lone surrogate escape as U+FFFD, where Python's json keeps the surrogate
    (b'{"\\ud800":"1","\\udc00":"2"}', ['duplicate field "data.\ufffd"']),
    (b'[' * 3000 + b']' * 3000, []),  # nested deeper than Python's parser goes: a type error, not looked into
])
def test_strict_decoding_reads_the_body_as_go_does(data: bytes, expected: list[str]) -> None:
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":' + data + b'}'
    assert strict_decoding_errors(body, kind_schema("", "v1", "ConfigMap")) == expected


def test_custom_resource_repeated_keys_are_read_as_go_does() -> None:
    body = b'{"kind":"W","spec":{"\\ud800":1,"\\udc00":2,"deep":' + b'[' * 3000 + b'{"a":1,"a":2}' + b']' * 3000 + b'}}'
    assert check_custom_fields(FieldValidation.WARN, body, list, "W", "v1") == [
        '299 - "duplicate field \\"spec.\ufffd\\""', '299 - "duplicate field \\"spec.deep' + '[0]' * 3000 + '.a\\""']


@pytest.mark.parametrize(("value", "expected"), [
    (None, FieldValidation.WARN), ("", FieldValidation.WARN), ("Ignore", FieldValidation.IGNORE),
    ("Warn", FieldValidation.WARN), ("Strict", FieldValidation.STRICT),
])
def test_field_validation_defaults_to_warn(value: str | None, expected: FieldValidation) -> None:
    assert field_validation(value, "CreateOptions") is expected


def test_unsupported_field_validation_is_the_options_422() -> None:
    with pytest.raises(StatusError) as raised:
        field_validation("strict", "CreateOptions")
    assert raised.value.to_dict() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": '
                   'supported values: "", "Ignore", "Strict", "Warn"',
        "reason": "Invalid",
        "details": {"group": "meta.k8s.io", "kind": "CreateOptions", "causes": [{
            "reason": "FieldValueNotSupported", "field": "fieldValidation",
            "message": 'Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
        }]},
        "code": 422,
    }


UNKNOWN = b'{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"},"spec":{"foo":1,"replicas":1,"replicas":2}}'


def test_strict_is_the_create_and_update_handlers_400() -> None:
    with pytest.raises(StatusError) as raised:
        check_fields(FieldValidation.STRICT, json.loads(UNKNOWN), kind_schema("apps", "v1", "Deployment"), "Deployment",
                     "v1", repeating=UNKNOWN)
    assert raised.value.code == 400
    assert raised.value.to_dict()["reason"] == "BadRequest"
    assert raised.value.to_dict()["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
        'unknown field "spec.foo", duplicate field "spec.replicas"')


def test_warn_is_one_warning_header_per_error() -> None:
    headers = check_fields(FieldValidation.WARN, json.loads(UNKNOWN), kind_schema("apps", "v1", "Deployment"),
                           "Deployment", "v1", repeating=UNKNOWN)
    assert headers == ['299 - "unknown field \\"spec.foo\\""', '299 - "duplicate field \\"spec.replicas\\""']


def test_ignore_and_schemaless_kinds_report_nothing() -> None:
    schema = kind_schema("apps", "v1", "Deployment")
    assert check_fields(FieldValidation.IGNORE, {}, schema, "Deployment", "v1", repeating=b"not even json") == []
    assert check_fields(FieldValidation.STRICT, json.loads(UNKNOWN), None, "Deployment", "v1", repeating=UNKNOWN) == []
    assert check_fields(FieldValidation.STRICT, {"metadata": {"name": "a"}}, schema, "Deployment", "v1") == []


def test_warning_header_escapes_quotes_and_backslashes() -> None:
    assert warning_header('unknown field "a\\b"') == '299 - "unknown field \\"a\\\\b\\""'


def test_custom_resource_errors_are_repeated_keys_then_unknown_fields() -> None:
    """schemaCoercingDecoder: the map's strict errors (repeated keys at any depth, each once, in
    document order), then the pruning's unknown field paths as they are given."""
    body = b'{"kind":"W","spec":{"a":1,"a":2,"items":[{"k":1},{"k":1,"k":2,"k":3}]},"kind":"W"}'
    with pytest.raises(StatusError) as raised:
        check_custom_fields(FieldValidation.STRICT, body, lambda: ["spec.b", "spec.items[0].x"], "W", "v1")
    assert raised.value.to_dict()["message"] == (
        'W in version "v1" cannot be handled as a W: strict decoding error: duplicate field "spec.a", '
        'duplicate field "spec.items[1].k", duplicate field "kind", unknown field "spec.b", '
        'unknown field "spec.items[0].x"')
    assert check_custom_fields(FieldValidation.WARN, None, lambda: ["spec.b"], "W", "v1") == [
        '299 - "unknown field \\"spec.b\\""']
    assert check_custom_fields(FieldValidation.IGNORE, body, lambda: ["spec.b"], "W", "v1") == []


def test_object_meta_unknown_fields_read_go_marshalling() -> None:
    """GetObjectMetaWithOptions: the metadata's keys sorted (Go marshals a map so), nested
    structs looked into, maps and self-decoding fields not."""
    metadata = {"zeta": 1, "name": "a", "labels": {"any": "x"}, "alpha": {"b": 1},
                "ownerReferences": [{"name": "o", "bogus": 1}], "managedFields": [{"fieldsV1": {"f:x": {}}}]}
    assert object_meta_unknown_fields(metadata, "spec.template.metadata") == [
        "spec.template.metadata.alpha", "spec.template.metadata.ownerReferences[0].bogus",
        "spec.template.metadata.zeta"]


def test_an_objects_clean_parts_are_known_and_errors_found_each_time() -> None:
    """A part found without strict errors is not walked again (``field_validation._CLEAN_PARTS``);
    a part with an unknown field is, and its error is named each time, in the object's order."""
    from fakeapi.machinery import field_validation
    from fakeapi.machinery.schema import kind_schema

    schema = kind_schema("apps", "v1", "Deployment")
    clean = {"spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}}
    field_validation._CLEAN_PARTS.clear()
    for _ in range(2):  # kept the second time: spec, its template, the template's spec, its containers
        assert field_validation.object_strict_errors(clean, schema) == []
    assert len(field_validation._CLEAN_PARTS) == 4
    wrong = {"spec": {"replicas": 1, "bogus": 2}, "status": {"other": 1}, "extra": True}
    for _ in range(2):
        assert field_validation.object_strict_errors(wrong, schema) == [
            'unknown field "spec.bogus"', 'unknown field "status.other"', 'unknown field "extra"']
    assert len(field_validation._CLEAN_PARTS) == 4
    # a part below a changed one: the clean parts beside it are skipped, its error named in full
    deep = {"spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "bogus": 1}]}},
                     "selector": {"matchLabels": {"a": "b"}}}}
    for _ in range(2):
        assert field_validation.object_strict_errors(deep, schema) == [
            'unknown field "spec.template.spec.containers[0].bogus"']


@pytest.mark.parametrize("patch", [
    b'{"metadata":{"labels":{"a":"1"}},"spec":{"containers":[{"name":"web","image":"x"}]}}',
    b'{"a":{"b":1,"b":2}}', b'{"a":[{"b":1,"c":{"d":1,"d":2}}],"a":3}', b'{"\\u0061":1,"a":2}',
    b'{"s":"\\ud800","s":1}', b'{"a":1}   ', b'{"a":1} x', b'[{"a":1,"a":2}]', b'null', b'"x"', b'{"a":',
    b'{"k":"x", ":k":1, ":k":2}', b'{"v":"a\\":","w":{"\\"":1,"\\"":2}}', b'{"n":123456789012345678901,"n":1}',
    b'{' + b'"a":{' * 500 + b'}' * 501, b'{"\xff":1,"\xfe":2}',
])
@pytest.mark.parametrize("patch_type", ["application/merge-patch+json", "application/strategic-merge-patch+json"])
def test_strict_patch_errors_with_or_without_the_quick_look(patch: bytes, patch_type: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A merge or strategic merge patch the quick look (orjson, then the C json module's
    members) vouches for has no strict errors: the same answer as reading it in Go's way."""
    from fakeapi.machinery import patch as patching

    def outcome() -> object:
        try:
            return patching.strict_patch_errors(patch_type, patch)
        except StatusError as err:
            return err.code, err.reason, err.message
    quick = outcome()
    monkeypatch.setattr(patching, "_object_without_repeats", lambda patch: False)
    assert quick == outcome()


def _repeats_a_key(body: bytes) -> bool:
    """Whether any object of a JSON body repeats a key, as Go reads it (the slow, sure way)."""
    from fakeapi.machinery.gojson import repeated_keys
    return bool(repeated_keys(body))


_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {
    "name": "web-0", "labels": {"app": "web", "tier": "front"},
    "annotations": {"kubectl.kubernetes.io/last-applied-configuration":
                    '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","name":"again"},"spec":{}}\n',
                    "quoted": 'a "quoted": value', "é": "\u00e9 \\ x"}},
    "spec": {"containers": [{"name": "c", "image": "x", "env": [{"name": "A", "value": "1"}],
                             "ports": [{"containerPort": 80}]}],
             "nodeSelector": {"a": "b"}, "bogus": {"x": [1, {"y": 2}]}}}
#: The bodies the one-pass decoding is checked on: every body kube's answers are known for,
#: and a pod written compactly, with Python's separators, indented, with keys spaced from their
#: colons, with escapes; repeating keys at several depths or none (a string holding repeated
#: keys repeats none).
_ONE_PASS_BODIES = [
    *(body.encode() for body, _expected in _KUBE_STRICT_CASES),
    json.dumps(_POD, separators=(",", ":")).encode(),
    json.dumps(_POD).encode(),
    json.dumps(_POD, indent=2).encode(),
    json.dumps(_POD, indent="\t", separators=(" ,", " : ")).encode(),
    json.dumps(_POD | {"metadata": {"name": "web-0", "annotations": {"quote\\": "1", "key\":": "ends in \\\\"}}}).encode(),
    b'{"apiVersion":"v1","kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}',
    b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"x":"1","x":"1"}}}',
    b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","env":'
    b'[{"name":"A","name":"B","valueFrom":{"fieldRef":{"fieldPath":"x","fieldPath":"y"}}}]}]}}',
    b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"bogus":1,"bogus":{"deep":1,"deep":2}}}',
    b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","annotations":{"k\\\\":"1","k\\\\":"2"}}}',
    b'{"apiVersion" : "v1", "kind" : "Pod", "metadata" : {"name" : "a", "name" : "b"}}',
    b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","annotations":{"\\u0061":"1","a":"2"}}}',
]


@pytest.mark.parametrize("body", _ONE_PASS_BODIES)
def test_one_pass_strict_decoding_finds_what_reading_the_body_again_finds(body: bytes) -> None:
    """A JSON body decoded once: its strict errors found in the decoded value, or in its members
    read again only where it may repeat a key, are those of reading its members again always;
    and it may repeat one wherever it does."""
    from fakeapi.machinery.gojson import loads, may_repeat_keys

    value = loads(body)
    group, _, version = value["apiVersion"].rpartition("/")
    schema = kind_schema(group, version, value["kind"])
    assert schema is not None
    repeats = may_repeat_keys(body, value)
    assert repeats or not _repeats_a_key(body)
    for policy in (FieldValidation.WARN, FieldValidation.IGNORE):
        one_pass = check_fields(policy, value, schema, value["kind"], "v1", repeating=body if repeats else None)
        expected = [] if policy is FieldValidation.IGNORE else \
            [warning_header(error) for error in strict_decoding_errors(body, schema)]
        assert one_pass == expected


@pytest.mark.parametrize("body", [json.dumps(_POD, separators=(",", ":")).encode(), json.dumps(_POD).encode(),
                                  json.dumps(_POD, indent=2).encode(), b'{"a":"\\"\\":\\"\\":"}'])
def test_a_body_repeating_no_key_is_parsed_once(body: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick look vouches for a body repeating no key, however it is spaced or escaped: its
    members are not read again."""
    from fakeapi.machinery import field_validation
    from fakeapi.machinery.gojson import loads, may_repeat_keys

    assert not may_repeat_keys(body, loads(body))
    monkeypatch.setattr(field_validation, "loads_pairs", None)  # read again, it would fail
    value = loads(body)
    if "kind" in value:
        assert check_fields(FieldValidation.WARN, value, kind_schema("", "v1", "Pod"), "Pod", "v1") == [
            '299 - "unknown field \\"spec.bogus\\""']


@pytest.mark.parametrize("body", [
    b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {x: '1', x: '2'}\nspec:\n  bogus: 1\n"
    b"  containers:\n  - name: c\n    image: x\n    extra: true\n",
    b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: '1'}\nfoo: 1\nfoo: 2\n",
    b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"Data":{"b":"2"}}',
    b"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: x}]}\n",
])
def test_a_yaml_body_is_checked_as_decoded(body: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """A YAML body's strict errors are its decoder's (repeated keys), then those of the decoded
    value, walked as it is: what encoding it as JSON and reading that again found."""
    import orjson

    from fakeapi.machinery import field_validation
    from fakeapi.machinery.goyaml import yaml_to_json

    value, decoder_errors = yaml_to_json(body)
    schema = kind_schema("", "v1", value["kind"])
    assert schema is not None
    expected = [warning_header(error)
                for error in (*decoder_errors, *strict_decoding_errors(orjson.dumps(value), schema))]
    monkeypatch.setattr(field_validation, "loads_pairs", None)  # the value is not encoded and read again
    assert check_fields(FieldValidation.WARN, value, schema, value["kind"], "v1", decoder_errors) == expected
    with pytest.raises(StatusError) if expected else _no_error():
        check_fields(FieldValidation.STRICT, value, schema, value["kind"], "v1", decoder_errors)


def _no_error():  # type: ignore[no-untyped-def]
    import contextlib
    return contextlib.nullcontext()
