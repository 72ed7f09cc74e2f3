"""``versioner``: what a reader sees of a stored object's resourceVersion is its mod_revision,
whatever revision the writer expected, and whether or not the writer put one in (kube-apiserver
stores none)."""

from __future__ import annotations

import orjson

from fakeapi.registry.versioner import with_resource_version

STORED = (b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n","uid":"u",'
          b'"resourceVersion":"7","creationTimestamp":"2026-01-01T00:00:00Z",'
          b'"labels":{"resourceVersion":"7"}},"data":{"k":"\\"resourceVersion\\":\\"7\\""}}')


def test_the_right_revision_keeps_the_bytes() -> None:
    assert with_resource_version(STORED, 7) is STORED


def test_another_revision_replaces_metadatas_only() -> None:
    fixed = orjson.loads(with_resource_version(STORED, 12))
    assert fixed["metadata"]["resourceVersion"] == "12"
    assert fixed["metadata"]["labels"] == {"resourceVersion": "7"}
    assert fixed["data"] == {"k": '"resourceVersion":"7"'}


def test_a_value_without_one_gets_it_in_gos_field_order() -> None:
    by_kube = b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z"}}'
    fixed = with_resource_version(by_kube, 30)
    assert fixed == (b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","uid":"u",'
                     b'"resourceVersion":"30","creationTimestamp":"2026-01-01T00:00:00Z"}}')


def test_protobuf_is_left_alone() -> None:
    value = b"k8s\x00\n\x0f\n\x02v1\x12\tConfigMap"
    assert with_resource_version(value, 3) is value


def test_a_writes_answer_is_restamped_only_when_its_revision_moved() -> None:
    assert with_resource_version(STORED, 7) is STORED
    assert orjson.loads(with_resource_version(STORED, 9))["metadata"]["resourceVersion"] == "9"
