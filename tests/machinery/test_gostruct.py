"""``fakeapi.machinery.gostruct``: a strategic merge patch's result converted by the unstructured
converter, and the serializer's reading of numbers Go and orjson see differently. The expected
messages are kube-apiserver v1.35.4's answers to the same patches and bodies."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from fakeapi.machinery import gostruct, serializer
from fakeapi.machinery.gojson import GoJSONError, as_unstructured, decode, loads
from fakeapi.machinery.status import StatusError


def deployment(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec}


@pytest.mark.parametrize(("spec", "error"), [
    ({"replicas": "3"}, "unrecognized type: int32"),
    ({"replicas": True}, "unrecognized type: int32"),
    ({"replicas": 2.5}, "cannot convert float64 to int32"),
    ({"paused": 1}, "unrecognized type: bool"),
    ({"template": "x"}, "cannot restore struct from: string"),
    ({"template": {"spec": {"containers": {"name": "c"}}}}, "cannot restore slice from map"),
    ({"selector": {"matchLabels": ["a"]}}, "cannot restore map from slice"),
    ({"template": {"spec": {"containers": [{"name": "c", "image": 5}]}}}, "cannot convert int64 to string"),
    ({"strategy": {"rollingUpdate": {"maxSurge": True}}}, "json: cannot unmarshal bool into Go value of type int32"),
])
def test_converter_errors_are_kubes(spec: dict[str, Any], error: str) -> None:
    with pytest.raises(gostruct.GoDecodeError) as raised:
        gostruct.from_unstructured(deployment(spec), "apps/v1", "Deployment")
    assert str(raised.value) == error


def test_converter_takes_integral_floats_and_wraps_integers() -> None:
    decoded = gostruct.from_unstructured(
        deployment({"replicas": 4294967297, "strategy": {"rollingUpdate": {"maxSurge": 2.0}}}), "apps/v1", "Deployment")
    assert decoded["spec"]["replicas"] == 1
    assert decoded["spec"]["strategy"]["rollingUpdate"]["maxSurge"] == 2
    # JSON decoding refuses both
    with pytest.raises(gostruct.GoDecodeError):
        gostruct.decode(deployment({"replicas": 2.0}), "apps/v1", "Deployment")


def test_a_built_in_body_quotes_integer_literals_beyond_int64() -> None:
    raw = b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "generation": 99999999999999999999}}'
    obj = loads(raw)
    assert obj["metadata"]["generation"] == 1e20  # orjson's float
    with pytest.raises(StatusError) as raised:
        serializer.check_number_literals(raw, obj)
    assert raised.value.to_dict()["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number '
        '99999999999999999999 into Go struct field ObjectMeta.metadata.generation of type int64')


def test_unstructured_numbers_are_int64_or_float64() -> None:
    value = as_unstructured({"a": [1, 2**64, {"b": -(2**63) - 1}], "c": -(2**63)})
    assert value == {"a": [1, float(2**64), {"b": float(-(2**63) - 1)}], "c": -(2**63)}
    assert isinstance(value["a"][1], float)
    with pytest.raises(GoJSONError) as raised:
        as_unstructured(decode(b'{"a": [1, 1e999, -1e999]}'))
    assert str(raised.value) == "json: cannot unmarshal number 1e999 into Go value of type float64"


def test_an_objects_parts_are_decoded_once_per_value_and_errors_each_time() -> None:
    """A part decoded before (``gostruct._DECODED``) comes back as a new copy of what it gave;
    a part with an error is decoded again, its error named again; read as JSON and converted
    from a map, one value is two parts. Parts go three structs down: a Deployment's spec, its
    template, the template's pod spec."""
    spec = {"replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}
    gostruct._DECODED.clear()
    gostruct.decode(deployment(spec), "apps/v1", "Deployment")  # seen once: not kept
    first = gostruct.decode(deployment(spec), "apps/v1", "Deployment")  # seen again: kept
    first["spec"]["template"]["spec"]["containers"][0]["image"] = "changed by the first reader"
    again = gostruct.decode(deployment(spec), "apps/v1", "Deployment")
    assert again["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx"
    assert again["spec"]["replicas"] == 2 and len(gostruct._DECODED) == 3
    for _ in range(2):
        gostruct.from_unstructured(deployment(spec), "apps/v1", "Deployment")
    assert len(gostruct._DECODED) == 6
    wrong = {"template": {"spec": {"containers": [{"name": "c", "image": 5}]}}}
    for _ in range(2):
        with pytest.raises(gostruct.GoDecodeError, match="Container.spec.template.spec.containers.image of type string"):
            gostruct.decode(deployment(wrong), "apps/v1", "Deployment")
    assert len(gostruct._DECODED) == 6
    rolled = {**spec, "template": {"spec": {"containers": [{"name": "c", "image": "nginx:2"}], "hostname": "h"}}}
    for _ in range(2):  # a new spec and template whose pod spec is new too: kept three levels down
        gostruct.decode(deployment(rolled), "apps/v1", "Deployment")
    assert len(gostruct._DECODED) == 9


def _decoded_go_way(data: bytes) -> Any:
    """``decode`` without its orjson fast path (any other scalar reader takes Go's reading)."""
    from fakeapi.machinery.gojson import plain_scalar
    return decode(data, lambda token: plain_scalar(token))


def _typed(value: Any) -> Any:
    """A value with each scalar's type beside it: ``1`` and ``1.0`` compare equal in Python."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, repr(value))


@pytest.mark.parametrize("data", [
    b'{"a":1,"a":2}', b'-0', b'-0.0', b'1E2', b'1.5e-400', b'1e999', b'[1e308,-1e-308, 0.1, 2.5E+3]',
    b'9223372036854775807', b'9223372036854775808', b'-9223372036854775809', b'{"n":18446744073709551616}',
    b'{"s":"\\ud800"}', b'{"s":"\\ud83d\\ude00 \\u00e9 \\n"}', b'"\xed\xa0\x80"', b'"\xff"', b'\xef\xbb\xbf{}',
    b' {"a" : [ true , false , null ] } ', b'{"a":1} x', b'[1,2,]', b'{"a":"b"', b'', b'null', b'"\x7f"',
    b'[' * 1100 + b']' * 1100, b'{"a":{"b":{"c":[{"d":1.25e-3}]}},"e":"x","a":null}',
])
def test_decode_reads_as_go_with_or_without_orjson(data: bytes) -> None:
    """``decode``'s orjson fast path gives what Go's reading gives (types too), or defers to
    it: the same value, or the same error."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # _typed of the 1,100 levels orjson refuses and Go reads
    def outcome(read):
        try:
            return _typed(read(data))
        except GoJSONError as err:
            return ("error", str(err))
    try:
        assert outcome(decode) == outcome(_decoded_go_way)
    finally:
        sys.setrecursionlimit(limit)


def test_objects_decode_the_same_through_kept_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods that share some parts and differ in others (a container's image, an env value, a
    volume) decode, through parts kept at every level, as they decode with none kept."""
    container = {"name": "web", "image": "nginx", "env": [{"name": "A", "value": "1"}],
                 "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "1"}}}
    sidecar = {"name": "log", "image": "busybox", "args": ["-f"]}

    def pod(image: str, value: str, volume: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": value}},
                "spec": {"containers": [{**container, "image": image, "env": [{"name": "A", "value": value}]},
                                        sidecar],
                         "volumes": [{"name": volume, "emptyDir": {}}], "nodeSelector": {"n": "1"}}}
    pods = [pod(image, value, volume) for image in ("nginx", "nginx:2") for value in ("1", "2")
            for volume in ("v", "w")] * 3
    for reader in (gostruct.decode, gostruct.from_unstructured):
        gostruct._DECODED.clear()
        kept = [reader(p, "v1", "Pod") for p in pods]
        monkeypatch.setattr(gostruct, "PART_LEVELS", 0)
        assert kept == [reader(p, "v1", "Pod") for p in pods]
        monkeypatch.undo()
