"""The protobuf encoder against Go: every object kind fakeapi serves, the meta types (Status,
PartialObjectMetadata, discovery documents) and realistic seeded objects, encoded by
``fakeapi.http.protobuf_encoding`` and by apimachinery's protobuf serializer from the same JSON
(``tests/protodiff``), must be the same bytes. Objects are random: every field of the Go struct
is in turn absent, null or set (zero values too), lists and maps come in random order with null
members, and types with their own JSON form (times, quantities, IntOrString, RawExtension, the
JSONSchemaProps unions) get values of that form."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from google.protobuf.descriptor import FieldDescriptor

from fakeapi.seed import objects as seed_objects
from fakeapi.apis.catalogue import default_catalogue
from fakeapi.http import protobuf_encoding
from fakeapi.http.protobuf import decode_body
from fakeapi.machinery.gotypes import types as go_types

_META = "k8s.io.apimachinery.pkg.apis.meta.v1."
_APIEXTENSIONS = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1."
QUANTITIES = ("0", "1", "100m", "0.5", "1.5Gi", "128Mi", "1e3", "2k", "1024Ki", "+3", "-1", "0100m", "12.3456789m",
              "1.5", "999999999999999999999", "7Ei", "0.5Ki", "1n", "0.0000000001", "300E", "5e-3", " 2 ")
STRINGS = ("", "a", "name-1", "ünïcødé ✓", "x" * 140, "with\nnewline", "0")
MAX_DEPTH = 5


class SampleMaker:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        types = go_types()
        self.pool = types.pool
        self.go_fields = types.go_fields

    def obj(self, api_version: str, kind: str) -> dict[str, Any]:
        message = protobuf_encoding.message_name(api_version, kind)
        assert message is not None, (api_version, kind)
        return {"apiVersion": api_version, "kind": kind, **self.message(message, 0)}

    def message(self, name: str, depth: int) -> Any:
        rng = self.rng
        special = self._special(name)
        if special is not None:
            return special
        go_fields = self.go_fields[name]
        descriptor = self.pool.FindMessageTypeByName(name)
        if go_fields == "items":
            return [rng.choice(STRINGS) for _ in range(rng.randrange(3))]
        out: dict[str, Any] = {}
        by_name = {field.name: field for field in descriptor.fields}
        for proto_name, json_name, flags in go_fields:
            field = by_name[proto_name]
            if "i" in flags:
                out.update(self.message(field.message_type.full_name, depth + 1))
                continue
            roll = rng.random()
            if roll < 0.3 or (field.type == FieldDescriptor.TYPE_MESSAGE and depth >= MAX_DEPTH):
                continue
            if roll < 0.4:
                out[json_name] = None
                continue
            out[json_name] = self._field(field, depth)
        keys = list(out)
        rng.shuffle(keys)  # the encoder must not depend on key order
        return {key: out[key] for key in keys}

    def _field(self, field: FieldDescriptor, depth: int) -> Any:
        rng = self.rng
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            return {rng.choice(STRINGS) + str(i): (None if rng.random() < 0.1 else self._value(value_field, depth))
                    for i in range(rng.randrange(4))}
        if field.is_repeated:
            return [None if rng.random() < 0.05 else self._value(field, depth) for _ in range(rng.randrange(4))]
        return self._value(field, depth)

    def _value(self, field: FieldDescriptor, depth: int) -> Any:
        rng = self.rng
        kind = field.type
        if kind == FieldDescriptor.TYPE_MESSAGE:
            return self.message(field.message_type.full_name, depth + 1)
        if kind == FieldDescriptor.TYPE_STRING:
            return rng.choice(STRINGS)
        if kind == FieldDescriptor.TYPE_BOOL:
            return rng.random() < 0.5
        if kind == FieldDescriptor.TYPE_INT32:
            return rng.choice((0, 1, 127, 128, 300, -1, -(2**31), 2**31 - 1, rng.randrange(-(2**31), 2**31)))
        if kind == FieldDescriptor.TYPE_INT64:
            return rng.choice((0, 1, 16384, -1, -(2**63), 2**63 - 1, rng.randrange(-(2**40), 2**40)))
        if kind == FieldDescriptor.TYPE_DOUBLE:
            return rng.choice((0.0, 1.5, -2.25, 1e300, 3))
        if kind == FieldDescriptor.TYPE_BYTES:
            return base64.b64encode(rng.randbytes(rng.randrange(6))).decode()
        raise AssertionError(kind)

    def _special(self, name: str) -> Any:
        rng = self.rng
        if name == _META + "Time":
            return rng.choice((f"20{rng.randrange(10, 40)}-0{rng.randrange(1, 10)}-1{rng.randrange(10)}T0{rng.randrange(10)}:4{rng.randrange(10)}:0{rng.randrange(10)}Z",
                               "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2024-02-29T12:00:00+02:00",
                               "2024-02-29T12:00:00.5Z"))
        if name == _META + "MicroTime":
            return rng.choice(("2024-02-29T12:00:00.123456Z", "2001-01-01T00:00:00.000001Z", "1999-12-31T23:59:59.000000+01:00"))
        if name == _META + "Duration":
            return rng.choice(("0s", "1h2m3s", "1.5s", "-3ms", "250us", "1h0m0.000000001s"))
        if name == _META + "FieldsV1":
            return {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "k:{\"name\":\"c\"}": {}}
        if name in ("k8s.io.apimachinery.pkg.runtime.RawExtension", _APIEXTENSIONS + "JSON"):
            return rng.choice(({"kind": "Foo", "b": [1, 2.5, "x"]}, [1, {"z": None}], "text", 3, True, {}))
        if name == "k8s.io.apimachinery.pkg.api.resource.Quantity":
            return rng.choice(QUANTITIES)
        if name == "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
            return rng.choice((0, 8080, -1, "http", "", "25%"))
        if name == _APIEXTENSIONS + "JSONSchemaPropsOrBool":
            return rng.choice((True, False, {"type": "string"}))
        if name == _APIEXTENSIONS + "JSONSchemaPropsOrArray":
            return rng.choice(({"type": "string"}, [{"type": "integer"}, {"minimum": 1.5}]))
        if name == _APIEXTENSIONS + "JSONSchemaPropsOrStringArray":
            return rng.choice(({"type": "object"}, ["a", "b"]))
        return None


class GoEncoder:
    """The running ``protodiff`` program: one JSON request per line in, one answer per line out."""

    def __init__(self, binary: Path) -> None:
        self.process = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(orjson.dumps(request) + b"\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def encode(self, obj: dict[str, Any]) -> bytes:
        answer = self.ask({"op": "encode", "object": obj})
        assert "error" not in answer, (answer["error"], obj)
        return base64.b64decode(answer["protobuf"])

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait(10)


@pytest.fixture(scope="module")
def go_encoder(go_build: Callable[[Path, str], Path]) -> Iterator[GoEncoder]:
    encoder = GoEncoder(go_build(Path(__file__).parents[1] / "protodiff", "./cmd/protodiff"))
    yield encoder
    encoder.close()


def ours(obj: dict[str, Any]) -> bytes:
    api_version, kind = obj["apiVersion"], obj["kind"]
    message = protobuf_encoding.message_name(api_version, kind)
    return protobuf_encoding.envelope(api_version, kind, protobuf_encoding.encoder(message)(obj))


def assert_same(go: GoEncoder, obj: dict[str, Any]) -> None:
    expected, got = go.encode(obj), ours(obj)
    if got != expected:
        at = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        raise AssertionError(f"{obj['kind']}: bytes differ at {at}: ours {got[at - 8:at + 16]!r}, "
                             f"Go {expected[at - 8:at + 16]!r}\nobject: {json.dumps(obj)[:3000]}")


SERVED_KINDS = sorted({(resource_type.group_version, resource_type.kind)
                       for resource_type in default_catalogue().served()})
META_KINDS = [("v1", "Status"), ("v1", "APIResourceList"), ("v1", "APIGroupList"), ("v1", "APIVersions"),
              ("meta.k8s.io/v1", "PartialObjectMetadata"), ("meta.k8s.io/v1", "PartialObjectMetadataList"),
              ("apidiscovery.k8s.io/v2", "APIGroupDiscoveryList"), ("autoscaling/v1", "Scale")]
SAMPLES = 12


@pytest.mark.parametrize(("api_version", "kind"), SERVED_KINDS, ids=[f"{v}/{k}" for v, k in SERVED_KINDS])
def test_served_kinds_and_their_lists_encode_as_kube_does(go_encoder, api_version, kind):
    maker = SampleMaker(zlib.crc32(f"{api_version}/{kind}".encode()))
    kinds = [kind] + ([kind + "List"] if protobuf_encoding.message_name(api_version, kind + "List") else [])
    for _ in range(SAMPLES):
        for sample_kind in kinds:  # (create-only kinds, SelfSubjectReview and the like, have no list)
            assert_same(go_encoder, maker.obj(api_version, sample_kind))


@pytest.mark.parametrize(("api_version", "kind"), META_KINDS, ids=[k for _v, k in META_KINDS])
def test_meta_kinds_encode_as_kube_does(go_encoder, api_version, kind):
    maker = SampleMaker(7)
    for _ in range(SAMPLES):
        message = protobuf_encoding.message_name(api_version, kind)
        assert_same(go_encoder, {"apiVersion": api_version, "kind": kind, **maker.message(message, 0)})


def test_seeded_workloads_encode_as_kube_does(go_encoder):
    rng = random.Random(3)
    template = seed_objects.pod_template(rng, "web-abc", {"app": "web"})
    deploy, deploy_status = seed_objects.deployment(rng, "web", "default", 3, template)
    replica_set, _ = seed_objects.replica_set(deploy, "abc")
    sts, _ = seed_objects.stateful_set(rng, "db", "default", 3, template, "db-1")
    for node_index in (None, 2):
        pod, status = seed_objects.pod(rng, "web-abc-x", "default", template, {"app": "web"},
                                       seed_objects.owner_reference("apps/v1", "ReplicaSet", "web-abc"), node_index, 1)
        assert_same(go_encoder, {**pod, "status": status})
    node, node_status = seed_objects.node(rng, 4)
    for obj in ({**deploy, "status": deploy_status}, replica_set, sts, {**node, "status": node_status},
                seed_objects.controller_revision(sts, "abc", 2), seed_objects.node_lease(rng, "node-4"),
                seed_objects.config_map(rng, "cm", "default", 300), seed_objects.secret(rng, "s", "default", 300)):
        assert_same(go_encoder, obj)


def test_parts_encoded_before_are_kubes_bytes_and_follow_the_value(go_encoder):
    """An object's spec written before is answered from what was written then
    (``protobuf_encoding._shared``): the pods of one template, encoded in turn, are Go's bytes
    each, and a spec or a container changed after it was written is written anew."""
    rng = random.Random(7)
    template = seed_objects.pod_template(rng, "web-abc", {"app": "web"})
    base, _ = seed_objects.pod(rng, "web-abc-0", "default", template, {"app": "web"}, None, None, 1)
    pods = [{**base, "metadata": {**base["metadata"], "name": f"web-abc-{n}"}} for n in range(3)]
    for pod in pods:
        assert_same(go_encoder, pod)
    changed = {**pods[0], "spec": {**pods[0]["spec"], "terminationGracePeriodSeconds": 7}}
    assert_same(go_encoder, changed)
    assert decode_body(ours(changed))["spec"]["terminationGracePeriodSeconds"] == 7
    # Containers are parts too: a new image is written anew, its neighbours from before.
    containers = pods[0]["spec"]["containers"]
    for image in ("web:2", "web:3", "web:2"):
        rolled = {**pods[0], "spec": {**pods[0]["spec"], "containers": [{**containers[0], "image": image},
                                                                          *containers[1:]]}}
        assert_same(go_encoder, rolled)
        assert decode_body(ours(rolled))["spec"]["containers"][0]["image"] == image


def test_decoding_what_was_encoded_gives_the_object_back(go_encoder):
    """The request-body decoder reads what the encoder writes (times, quantities in canonical
    form, every field Go prints)."""
    rng = random.Random(5)
    template = seed_objects.pod_template(rng, "web-abc", {"app": "web"})
    pod, status = seed_objects.pod(rng, "web-abc-x", "default", template, {"app": "web"}, None, 2, 1)
    pod = {**pod, "status": status}
    decoded = decode_body(ours(pod))
    assert decoded["spec"]["containers"][0]["resources"] == template["spec"]["containers"][0]["resources"]
    assert decoded["status"]["conditions"] == [{**condition, "lastProbeTime": None}  # Go prints the zero time
                                               for condition in pod["status"]["conditions"]]
    assert decoded["metadata"]["labels"] == pod["metadata"]["labels"]


def test_a_value_its_go_type_cannot_hold_is_an_encoding_error():
    encode = protobuf_encoding.encoder("k8s.io.api.core.v1.ConfigMap")
    for bad in ({"data": {"a": 1}}, {"metadata": {"name": 3}}, {"metadata": []}, {"immutable": "yes"},
                {"metadata": {"creationTimestamp": "yesterday"}}):
        with pytest.raises(protobuf_encoding.EncodingError):
            encode(bad)


def quantity_texts(rng: random.Random) -> Iterator[str]:
    """Quantities from the grammar ``[+-]?[0-9.]+([eEinumkKMGTP]*[-+]?[0-9]*)``, valid or not."""
    suffixes = ("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E-2",
                "e+5", "e", "Kii", "e-12", "e40", "mi", "ee1")
    for _ in range(3000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 24)))
        if rng.random() < 0.5:
            cut = rng.randrange(len(digits) + 1)
            digits = digits[:cut] + "." + digits[cut:]
        yield rng.choice(("", "", "+", "-")) + digits + rng.choice(suffixes)


def test_quantities_print_as_go_prints_them(go_encoder):
    from fakeapi.machinery.quantity import QuantityError, parse

    for text in (*QUANTITIES, *quantity_texts(random.Random(11))):
        answer = go_encoder.ask({"op": "quantity", "text": text})
        try:
            ours_ = {"quantity": str(parse(text))}
        except QuantityError:
            ours_ = {"error": "x"}
        assert ours_.keys() == answer.keys() and ours_.get("quantity") == answer.get("quantity"), (text, answer)
