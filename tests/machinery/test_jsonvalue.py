"""``fakeapi.machinery.jsonvalue``: JSON kept long costs its own size."""

from __future__ import annotations

import tracemalloc

import orjson

import pytest

from fakeapi.machinery.jsonvalue import Repeated, kept_json, stored_metadata


def _allocated(make):  # type: ignore[no-untyped-def]
    """What ``make()``'s answer holds of the memory tracemalloc traces, and the answer."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = make()
        return tracemalloc.get_traced_memory()[0] - before, value
    finally:
        tracemalloc.stop()


def test_kept_json_is_the_json_in_memory_of_its_own_size() -> None:
    """A stored revision is ``kept_json``'s: the JSON orjson writes, without the buffer orjson
    grew for it (which ``orjson.dumps``' answer keeps: many times the JSON's size here)."""
    pod = {"metadata": {"name": "p", "managedFields": [{"fieldsV1": {f"f:field{i}": {} for i in range(400)}}]}}
    size, kept = _allocated(lambda: kept_json(pod))
    assert kept == orjson.dumps(pod) and len(kept) > 6000
    assert size < len(kept) + 256
    grown, dumped = _allocated(lambda: orjson.dumps(pod))
    assert grown > 2 * len(dumped)  # what kept_json spares (if orjson ever stops, drop kept_json)


METADATA = {"name": "r", "labels": {"a": "}", "b": "\"{"}, "annotations": {"x": "é"},
            "managedFields": [{"manager": "m", "fieldsV1": {"f:rules": {}}}]}


@pytest.mark.parametrize("obj", [
    {"kind": "ClusterRole", "apiVersion": "rbac.authorization.k8s.io/v1", "metadata": METADATA,
     "rules": [{"verbs": ["get"]}]},  # gostruct's order
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": METADATA, "spec": {"metadata": {"name": "no"}}},
])
def test_stored_metadata_is_the_metadata_alone(obj: dict) -> None:  # type: ignore[type-arg]
    assert stored_metadata(orjson.dumps(obj)) == METADATA


@pytest.mark.parametrize("raw", [
    b'{"metadata":{"name":"r"},"kind":"ClusterRole","apiVersion":"v1"}',  # another order: decode it all
    b'{"kind":"ClusterRole","apiVersion":"v1","spec":{},"metadata":{"name":"r"}}',
    b'{"kind":"Clu\"sterRole","apiVersion":"v1","metadata":{"name":"r"}}',
    b'{"kind":"ClusterRole","apiVersion":"v1","metadata":null}',
])
def test_stored_metadata_leaves_other_json_to_a_whole_decode(raw: bytes) -> None:
    assert stored_metadata(raw) is None


def test_repeated_makes_an_answer_to_keep_only_for_a_key_seen_before() -> None:
    """``put_made``: a key's first sight keeps nothing and makes nothing (the answer of a value
    seen once, a varied object's part, is not encoded for nothing); its second keeps ``make()``'s."""
    made: list[str] = []

    def make(answer: str):  # type: ignore[no-untyped-def]
        return lambda: made.append(answer) or answer

    kept: Repeated[str, str] = Repeated(4)
    kept.put_made("part", make("first"))
    assert made == [] and kept.get("part") is None
    kept.put_made("part", make("second"))
    assert made == ["second"] and kept.get("part") == "second"
