"""Kubernetes protobuf request bodies: kubectl's generator commands (which send protobuf) against a
real fakeapi, and the converter from messages to the JSON kube's Go encoder writes."""

from __future__ import annotations

import base64
import gc
import json
import random
import subprocess
import weakref
from typing import Any

import orjson
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from fakeapi.http.protobuf import (
    MAGIC,
    MEDIA_TYPE,
    UNKNOWN,
    decode_body,
    go_duration,
    message_class,
)
from fakeapi.http.protobuf_unmarshal import unmarshal_error
from fakeapi.http.protobuf_views import object_view
from fakeapi.machinery import gostruct
from fakeapi.machinery.gotypes import message_name
from fakeapi.machinery.schema import release_kinds
from fakeapi.machinery.status import StatusError
from fakeapi.registry.bootstrap import recorded_objects

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def kubectl(env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(["kubectl", *args], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"kubectl {' '.join(args)} failed: {proc.stderr}"
    return proc.stdout


def without_null_timestamps(value: Any) -> Any:
    """kubectl 1.32 prints a zero ``creationTimestamp`` as null; kube 1.35's Go types omit it (omitzero)."""
    if isinstance(value, dict):
        return {k: without_null_timestamps(v) for k, v in value.items() if not (k == "creationTimestamp" and v is None)}
    if isinstance(value, list):
        return [without_null_timestamps(v) for v in value]
    return value


def is_subset(sent: Any, stored: Any) -> bool:
    """What kubectl sent is in what was stored (the server adds defaults and allocated values)."""
    if isinstance(sent, dict):
        return isinstance(stored, dict) and all(is_subset(v, stored.get(k)) for k, v in sent.items())
    if sent is None:
        return True
    if isinstance(sent, list):
        return isinstance(stored, list) and len(sent) == len(stored) and all(map(is_subset, sent, stored))
    return sent == stored


# (kubectl create arguments, resource to get, command after "--", top-level fields compared)
GENERATORS = [
    (["configmap", "pb-cm", "--from-literal=a=b", "--from-literal=empty="], "configmap", [], ["data"]),
    (["secret", "generic", "pb-secret", "--from-literal=password=s3cr3t"], "secret", [], ["data", "type"]),
    (["namespace", "pb-ns"], "namespace", [], []),
    (["deployment", "pb-web", "--image=nginx", "--replicas=0", "--port=80"], "deployment", [], ["spec"]),
    (["job", "pb-job", "--image=busybox"], "job", ["echo", "hi"], ["spec"]),
    (["service", "clusterip", "pb-svc", "--tcp=80:8080"], "service", [], ["spec"]),
    (["serviceaccount", "pb-sa"], "serviceaccount", [], []),
    (["role", "pb-role", "--verb=get,list", "--resource=pods,deployments.apps", "--resource-name=x"], "role", [],
     ["rules"]),
    (["rolebinding", "pb-rb", "--role=pb-role", "--user=alice", "--serviceaccount=default:pb-sa"], "rolebinding", [],
     ["roleRef", "subjects"]),
    (["priorityclass", "pb-pc", "--value=1000", "--description=d", "--preemption-policy=Never"], "priorityclass", [],
     ["value", "description", "preemptionPolicy", "globalDefault"]),
    (["poddisruptionbudget", "pb-pdb", "--selector=app=web", "--min-available=50%"], "poddisruptionbudget", [],
     ["spec"]),
    (["quota", "pb-quota", "--hard=cpu=1,memory=1G,pods=2"], "resourcequota", [], ["spec"]),
]


@pytest.mark.parametrize(("args", "resource", "command", "fields"), GENERATORS, ids=lambda v: v[0] if isinstance(v, list) and v else None)
def test_kubectl_create_sends_protobuf_and_stores_its_json(kubectl_env, args, resource, command, fields):
    name = args[2] if args[0] in ("secret", "service") else args[1]
    tail = ["--", *command] if command else []
    sent_as_json = json.loads(kubectl(kubectl_env, "create", *args, "--dry-run=client", "-o", "json", *tail))
    log = subprocess.run(["kubectl", "create", *args, "-v=8", *tail], env=kubectl_env, capture_output=True, text=True,
                         timeout=60)
    assert log.returncode == 0, log.stderr
    assert f"Content-Type: {MEDIA_TYPE}" in log.stderr  # kubectl really sent protobuf
    stored = json.loads(kubectl(kubectl_env, "get", resource, name, "-o", "json"))
    assert stored["metadata"]["name"] == name
    assert is_subset(sent_as_json["metadata"].get("labels"), stored["metadata"].get("labels"))
    for field in fields:
        assert is_subset(without_null_timestamps(sent_as_json.get(field)), without_null_timestamps(stored.get(field))), field


def test_secret_data_round_trips_as_base64(kubectl_env, tmp_path):
    key = tmp_path / "key"
    key.write_bytes(bytes(range(256)))
    kubectl(kubectl_env, "create", "secret", "generic", "pb-bytes", f"--from-file=k={key}")
    stored = json.loads(kubectl(kubectl_env, "get", "secret", "pb-bytes", "-o", "json"))
    assert base64.b64decode(stored["data"]["k"]) == bytes(range(256))


def unknown(api_version: str, kind: str, raw: bytes) -> bytes:
    """An encoded object as client-go's protobuf serializer writes it."""
    envelope = message_class(UNKNOWN)(raw=raw)
    envelope.typeMeta.apiVersion = api_version
    envelope.typeMeta.kind = kind
    return MAGIC + envelope.SerializeToString()


def configmap_names(server) -> set[str]:
    return {item["metadata"]["name"] for item in server.http.get(CONFIGMAPS).json()["items"]}


@pytest.mark.parametrize("body", [
    b"",
    b"not protobuf",
    MAGIC,
    MAGIC + b"\x0a\xff\x01",  # a typeMeta longer than the body
    unknown("v1", "ConfigMap", b"\x0a\xff\x01"),  # a ConfigMap whose metadata is cut short
])
def test_malformed_protobuf_is_400_and_creates_nothing(server, body):
    before = configmap_names(server)
    response = server.http.post(CONFIGMAPS, content=body, headers={"Content-Type": MEDIA_TYPE})
    assert response.status_code == 400, response.text
    assert response.json()["reason"] == "BadRequest"
    assert configmap_names(server) == before


_CONFIG_MAP = "k8s.io.api.core.v1.ConfigMap"


#: Bytes and what kube-apiserver v1.35.4 said of them (gogo-protobuf's generated Unmarshal).
@pytest.mark.parametrize(("message", "data", "error"), [
    (UNKNOWN, "0a0c0a027631", "unexpected EOF"),  # a typeMeta longer than the body
    (UNKNOWN, "0a0b0a0276311205476164676574", "proto: Unknown: wiretype end group for non-group"),
    (UNKNOWN, "0a020801", "proto: wrong wireType = 0 for field APIVersion"),  # the Go field's name
    (UNKNOWN, "3f", "proto: illegal wireType 7"),  # an unknown field's
    (UNKNOWN, "3b3c", None),  # an unknown group, skipped
    (UNKNOWN, "ff" * 40, "proto: integer overflow"),
    (_CONFIG_MAP, "0801", "proto: wrong wireType = 0 for field ObjectMeta"),  # an embedded struct's type
    (_CONFIG_MAP, "00", "proto: ConfigMap: illegal tag 0 (wire type 0)"),
    (_CONFIG_MAP, "0a" + "ff" * 9 + "01", "proto: negative length found during unmarshaling"),
    (_CONFIG_MAP, "0a030a0561", "unexpected EOF"),  # a string past the end of the metadata
    (_CONFIG_MAP, "12020a056b6b6b6b6b", "unexpected EOF"),  # a map key read past its entry, then on
    (_CONFIG_MAP, "2a", "unexpected EOF"),  # a packed number
])
def test_undecodable_bytes_get_gogo_protobufs_error(message, data, error):
    assert unmarshal_error(message, bytes.fromhex(data)) == error


def test_a_field_of_another_wire_type_is_refused_as_kube_refuses_it():
    """Python's parser keeps it as an unknown field; gogo refuses it."""
    with pytest.raises(StatusError) as err:
        decode_body(unknown("v1", "ConfigMap", bytes.fromhex("2205616263")))
    assert err.value.code == 400
    assert err.value.message == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                                 "proto: wrong wireType = 2 for field Immutable")


def test_kind_without_a_message_is_400_as_kube_answers(server):
    """A kind the scheme does not know (a custom resource's kind in the Unknown) is the decode
    error ``no kind "Widget" is registered`` (400): kube decodes protobuf for any resource,
    custom resources included, and fails on the kind."""
    message = message_class("k8s.io.api.core.v1.ConfigMap")()
    message.metadata.name = "widget"
    response = server.http.post(CONFIGMAPS, content=unknown("example.com/v1", "Widget", message.SerializeToString()),
                                headers={"Content-Type": MEDIA_TYPE})
    assert response.status_code == 400
    assert 'no kind "Widget" is registered for version "example.com/v1"' in response.json()["message"]
    assert "widget" not in configmap_names(server)


def test_unknown_media_type_is_415_listing_what_kube_decodes(server):
    response = server.http.post(CONFIGMAPS, content=b"{}", headers={"Content-Type": "application/cbor"})
    assert response.status_code == 415
    assert response.json()["message"] == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf")


def test_protobuf_first_accept_is_answered_in_protobuf(server):
    message = message_class("k8s.io.api.core.v1.ConfigMap")()
    message.metadata.name = "pb-accept"
    response = server.http.post(CONFIGMAPS, content=unknown("v1", "ConfigMap", message.SerializeToString()),
                                headers={"Content-Type": MEDIA_TYPE, "Accept": f"{MEDIA_TYPE}, application/json"})
    assert response.status_code == 201
    assert response.headers["content-type"] == MEDIA_TYPE
    assert decode_body(response.content)["metadata"]["name"] == "pb-accept"


# ------------------------------------------------------------------ the converter, message by message


def decode(api_version: str, kind: str, message: Any) -> dict[str, Any]:
    return decode_body(unknown(api_version, kind, message.SerializeToString()))


def test_pointer_zero_prints_nil_pointer_without_omitempty_is_null_and_struct_fields_always_print():
    deployment = message_class("k8s.io.api.apps.v1.Deployment")()
    deployment.metadata.name = "web"
    deployment.metadata.namespace = ""  # gogo writes every non-pointer field, zero or not
    deployment.spec.replicas = 0  # *int32 set to 0
    deployment.spec.paused = False  # bool, omitempty
    deployment.spec.template.spec.containers.add(name="c", image="nginx")
    assert decode("apps/v1", "Deployment", deployment) == {
        "kind": "Deployment", "apiVersion": "apps/v1",
        "metadata": {"name": "web"},  # creationTimestamp is omitzero
        "spec": {"replicas": 0, "selector": None,  # `json:"selector"`: a nil pointer
                 "template": {"metadata": {}, "spec": {"containers": [
                     {"name": "c", "image": "nginx", "resources": {}}]}}, "strategy": {}},
        "status": {},
    }


def test_an_objects_parts_are_converted_once_per_value_and_handed_out_as_copies():
    """Pods of one template carry the same spec: it is converted once (``_Converter._shared``)
    and every body gets its own copy, equal to a fresh conversion; a spec that differs in one
    byte is converted anew."""
    def pod(name: str, image: str) -> Any:
        message = message_class("k8s.io.api.core.v1.Pod")()
        message.metadata.name = name
        container = message.spec.containers.add(name="app", image=image, command=["/bin/server", "--port=8080"])
        container.env.add(name="MODE", value="x" * 300)  # the spec passes _SHARED_MIN_BYTES
        return message

    decode("v1", "Pod", pod("a", "nginx:1"))  # seen once: not kept
    first = decode("v1", "Pod", pod("a", "nginx:1"))  # seen again: kept
    first["spec"]["containers"][0]["image"] = "changed by the first body's reader"
    second = decode("v1", "Pod", pod("b", "nginx:1"))
    assert second["metadata"] == {"name": "b"}
    assert second["spec"]["containers"][0] == {
        "name": "app", "image": "nginx:1", "command": ["/bin/server", "--port=8080"],
        "env": [{"name": "MODE", "value": "x" * 300}], "resources": {}}
    assert decode("v1", "Pod", pod("c", "nginx:2"))["spec"]["containers"][0]["image"] == "nginx:2"


def test_the_classes_of_nested_messages_outlive_the_bodies_converted():
    """protobuf makes a nested message's class when its field is read and lets it die with its
    last instance: the converter keeps the classes of what its structs' fields hold, or every
    body whose parts are new would make them again."""
    message = message_class("k8s.io.api.core.v1.Pod")()
    message.spec.containers.add(name="app", image="nginx", env=[{"name": "MODE", "value": "fresh"}])
    decode("v1", "Pod", message)
    kept = [weakref.ref(type(message.spec)), weakref.ref(type(message.spec.containers[0])),
            weakref.ref(type(message.spec.containers[0].env[0]))]
    del message
    gc.collect()
    assert all(ref() is not None for ref in kept)


def test_fields_without_omitempty_print_their_zero_value():
    role = message_class("k8s.io.api.rbac.v1.Role")()
    role.metadata.name = "r"
    assert decode("rbac.authorization.k8s.io/v1", "Role", role)["rules"] is None  # `json:"rules"`: a nil slice
    csr = message_class("k8s.io.api.certificates.v1.CertificateSigningRequest")()
    assert decode("certificates.k8s.io/v1", "CertificateSigningRequest", csr)["spec"] == {
        "request": None, "signerName": ""}  # a nil []byte and an empty string, both without omitempty


def test_bytes_are_base64():
    secret = message_class("k8s.io.api.core.v1.Secret")()
    secret.data["k"] = b"\x00\xffbinary"
    secret.data["empty"] = b""
    secret.stringData["s"] = "plain"
    assert decode("v1", "Secret", secret) == {
        "kind": "Secret", "apiVersion": "v1", "metadata": {},
        "data": {"k": base64.b64encode(b"\x00\xffbinary").decode(), "empty": ""}, "stringData": {"s": "plain"},
    }


def test_quantity_int_or_string_and_inline_volume_source():
    pod = message_class("k8s.io.api.core.v1.Pod")()
    container = pod.spec.containers.add(name="c")
    container.resources.limits["cpu"].string = "500m"
    container.resources.requests["memory"].string = "1Gi"
    probe = container.readinessProbe.handler.httpGet
    probe.port.type = 1
    probe.port.strVal = "http"
    liveness = container.livenessProbe.handler.tcpSocket
    liveness.port.type = 0
    liveness.port.intVal = 8080
    volume = pod.spec.volumes.add(name="v")
    volume.volumeSource.emptyDir.sizeLimit.string = "1Gi"
    spec = decode("v1", "Pod", pod)["spec"]
    assert spec["containers"][0]["resources"] == {"limits": {"cpu": "500m"}, "requests": {"memory": "1Gi"}}
    assert spec["containers"][0]["readinessProbe"]["httpGet"]["port"] == "http"
    assert spec["containers"][0]["livenessProbe"]["tcpSocket"]["port"] == 8080
    assert spec["volumes"] == [{"name": "v", "emptyDir": {"sizeLimit": "1Gi"}}]  # VolumeSource is inline
    assert "httpGet" in spec["containers"][0]["readinessProbe"]  # so is the probe's ProbeHandler


def test_time_micro_time_and_zero_time():
    event = message_class("k8s.io.api.events.v1.Event")()
    event.metadata.name = "e"
    event.metadata.creationTimestamp.seconds = 1_700_000_000
    event.metadata.creationTimestamp.nanos = 999  # metav1.Time keeps whole seconds
    event.eventTime.seconds = 1_700_000_000
    event.eventTime.nanos = 123_456_789  # MicroTime truncates to microseconds
    event.deprecatedLastTimestamp.SetInParent()  # an empty Time is the zero time: null
    obj = decode("events.k8s.io/v1", "Event", event)
    assert obj["metadata"]["creationTimestamp"] == "2023-11-14T22:13:20Z"
    assert obj["eventTime"] == "2023-11-14T22:13:20.123456Z"
    assert obj["deprecatedLastTimestamp"] is None
    assert obj["deprecatedFirstTimestamp"] is None  # non-pointer Time: printed even when absent


def test_times_of_the_first_years_print_four_digit_years():
    """Go's zero time plus seconds (the Lease conformance spec's times) is year 1: printed
    ``0001``, as Go prints it, and so decoded again."""
    lease = message_class("k8s.io.api.coordination.v1.Lease")()
    lease.metadata.name = "lease"
    lease.metadata.creationTimestamp.seconds = -62135596800 + 3  # 0001-01-01T00:00:03Z
    lease.spec.acquireTime.seconds = -62135596800 + 2
    lease.spec.acquireTime.nanos = 5_000
    obj = decode("coordination.k8s.io/v1", "Lease", lease)
    assert obj["metadata"]["creationTimestamp"] == "0001-01-01T00:00:03Z"
    assert obj["spec"]["acquireTime"] == "0001-01-01T00:00:02.000005Z"


def test_raw_extension_and_fields_v1_are_embedded_json():
    revision = message_class("k8s.io.api.apps.v1.ControllerRevision")()
    revision.data.raw = b'{"spec":{"replicas":2}}'
    entry = revision.metadata.managedFields.add(manager="kubectl", operation="Update", fieldsType="FieldsV1")
    entry.fieldsV1.Raw = b'{"f:data":{}}'
    obj = decode("apps/v1", "ControllerRevision", revision)
    assert obj["data"] == {"spec": {"replicas": 2}}
    assert obj["metadata"]["managedFields"] == [
        {"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {}}}]
    assert obj["revision"] == 0  # int64 without omitempty


def test_raw_extension_that_is_not_json_is_400():
    revision = message_class("k8s.io.api.apps.v1.ControllerRevision")()
    revision.data.raw = b"\x00not json"
    with pytest.raises(StatusError) as err:
        decode("apps/v1", "ControllerRevision", revision)
    assert err.value.code == 400


def test_slice_types_and_durations():
    review = message_class("k8s.io.api.authorization.v1.SubjectAccessReview")()
    review.spec.extra["groups"].items.extend(["a", "b"])  # ExtraValue is a Go []string
    assert decode("authorization.k8s.io/v1", "SubjectAccessReview", review)["spec"]["extra"] == {"groups": ["a", "b"]}
    assert [go_duration(n) for n in (0, 1500, 1_500_000, 1_500_000_000, 61_000_000_000, 3_600_000_000_000, -2)] == [
        "0s", "1.5µs", "1.5ms", "1.5s", "1m1s", "1h0m0s", "-2ns"]


def test_json_schema_props_or_bool_and_array():
    crd = message_class("k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition")()
    version = crd.spec.versions.add(name="v1", served=True, storage=True)
    schema = version.schema.openAPIV3Schema
    schema.type = "object"
    schema.additionalProperties.allows = True
    schema.properties["list"].items.schema.type = "string"
    schema.properties["list"].default.raw = b'["x"]'
    obj = decode("apiextensions.k8s.io/v1", "CustomResourceDefinition", crd)
    props = obj["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert props["additionalProperties"] is True
    assert props["properties"]["list"]["items"] == {"type": "string"}
    assert props["properties"]["list"]["default"] == ["x"]


# ------------------------------------------------------------------ the object is as Go decoding leaves it


_META = "k8s.io.apimachinery.pkg.apis.meta.v1."
_STRINGS = ("", "a", "zz", "B", "é", "Ä", "x/y", "10", "\u4e2d")
_RAW_JSON = (b'{"b":1,"a":[1,{"z":null,"c":"x"}]}', b"[3,2]", b'"s"', b"1.5", b"null", b"{}")
#: A value of each type with its own JSON form, one the converter prints (not one it refuses).
_OWN_JSON: dict[str, Any] = {
    _META + "Time": lambda m, rng: setattr(m, "seconds", rng.randrange(4_000_000_000)),
    _META + "MicroTime": lambda m, rng: m.MergeFrom(
        type(m)(seconds=rng.randrange(4_000_000_000), nanos=rng.randrange(10**9))),
    _META + "FieldsV1": lambda m, rng: setattr(m, "Raw", b'{"f:b":{},"f:a":{".":{}}}'),
    "k8s.io.apimachinery.pkg.runtime.RawExtension": lambda m, rng: setattr(m, "raw", rng.choice(_RAW_JSON)),
    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON":
        lambda m, rng: setattr(m, "raw", rng.choice(_RAW_JSON)),
    "k8s.io.apimachinery.pkg.api.resource.Quantity":
        lambda m, rng: setattr(m, "string", rng.choice(("0", "1", "1000m", "0.5", "1Gi", "2e3"))),
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": lambda m, rng: m.MergeFrom(
        type(m)(type=0, intVal=rng.randrange(-5, 70000)) if rng.random() < 0.5
        else type(m)(type=1, strVal=rng.choice(_STRINGS))),
}
_SCALARS = {
    FieldDescriptor.TYPE_STRING: _STRINGS, FieldDescriptor.TYPE_BOOL: (False, True),
    FieldDescriptor.TYPE_INT32: (0, 1, -3, 2**31 - 1), FieldDescriptor.TYPE_INT64: (0, 1, -3, 2**40),
    FieldDescriptor.TYPE_DOUBLE: (0.0, 1.5, -2.25, 3.0), FieldDescriptor.TYPE_BYTES: (b"", b"\x00\xff", b"abc"),
}


def _filled(message: Message, rng: random.Random, depth: int = 0) -> Message:
    """``message`` with fields set at random, fewer the deeper: maps of several keys in no order,
    empty messages, zero scalars, zero and nil values of the types with their own JSON form."""
    own_json = _OWN_JSON.get(message.DESCRIPTOR.full_name)
    if own_json is not None:
        if rng.random() < 0.8:  # else left empty: the zero value (a zero Time, a nil RawExtension)
            own_json(message, rng)
        return message
    for field in message.DESCRIPTOR.fields:
        if rng.random() > (0.7, 0.7, 0.7, 0.35, 0.35, 0.35, 0)[min(depth, 6)]:
            continue
        held = field.message_type
        if field.is_repeated and held is not None and held.GetOptions().map_entry:
            entries, value = getattr(message, field.name), held.fields_by_name["value"]
            for key in rng.sample(_STRINGS, rng.randrange(4)):
                if value.message_type is not None:
                    _filled(entries[key], rng, depth + 1)
                else:
                    entries[key] = rng.choice(_SCALARS[value.type])
        elif field.is_repeated:
            items = getattr(message, field.name)
            for _ in range(rng.randrange(4)):
                if held is not None:
                    _filled(items.add(), rng, depth + 1)
                else:
                    items.append(rng.choice(_SCALARS[field.type]))
        elif held is not None:
            getattr(message, field.name).SetInParent()
            _filled(getattr(message, field.name), rng, depth + 1)
        else:
            setattr(message, field.name, rng.choice(_SCALARS[field.type]))
    return message


def _assert_go_decoding_keeps(body: bytes) -> None:
    """The object of a protobuf body is what ``gostruct`` makes of it, byte for byte: so the
    stores do not decode it again (``StoreWrites._decode_body``'s ``go_decoded``)."""
    obj = decode_body(body)
    assert orjson.dumps(gostruct.decode(obj, obj["apiVersion"], obj["kind"])) == orjson.dumps(obj)


def _kinds() -> list[tuple[str, str]]:
    """The release's (apiVersion, kind) pairs that have a message."""
    pairs = ((f"{group}/{version}" if group else version, kind) for group, version, kind in release_kinds())
    return sorted(pair for pair in pairs if message_name(*pair) is not None)


@pytest.mark.parametrize(("api_version", "kind"), _kinds(), ids=lambda value: value)
def test_random_messages_of_every_kind_decode_as_go_decoding_leaves_them(api_version, kind):
    rng = random.Random(f"{api_version} {kind}")
    for _ in range(8):
        message = _filled(message_class(message_name(api_version, kind))(), rng)
        _assert_go_decoding_keeps(unknown(api_version, kind, message.SerializeToString()))


def test_the_bootstrap_objects_decode_as_go_decoding_leaves_them():
    for obj in recorded_objects():
        view = object_view(obj["apiVersion"], obj["kind"])
        assert view is not None, obj["kind"]
        _assert_go_decoding_keeps(view.body(view.encode_object(obj)))


def test_maps_are_sorted_and_omitempty_pointers_printing_null_dropped():
    """Go's ``encoding/json`` sorts a map's keys, whatever the wire's order; an omitempty
    pointer to a zero Time prints null, which Go decodes as nil and so drops."""
    pod = message_class("k8s.io.api.core.v1.Pod")()
    for key in ("b", "a", "c"):
        pod.metadata.labels[key] = key
    pod.status.startTime.SetInParent()
    obj = decode("v1", "Pod", pod)
    assert list(obj["metadata"]["labels"]) == ["a", "b", "c"]
    assert obj["status"] == {}
