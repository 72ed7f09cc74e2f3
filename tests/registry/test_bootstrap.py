"""kube-apiserver's bootstrap objects in fakeapi's store (their content against the real
kube-apiserver's: ``tests/kasdiff/test_bootstrap_vs_kube.py``)."""

from __future__ import annotations

import orjson

from fakeapi.registry.bootstrap import create_bootstrap_objects, recorded_objects
from fakeapi.registry.bootstrap import DEFAULT_NAMESPACES
from fakeapi.registry.registry import Registry
from fakeapi.store import RangeRequest, Store


def _registry() -> Registry:
    registry = Registry(Store(), advertise_port=6443)
    for name in DEFAULT_NAMESPACES:
        registry.namespaces.create(None, {"metadata": {"name": name}})
    return registry


def _bootstrap(registry: Registry) -> None:
    create_bootstrap_objects(registry.store, registry.advertise_port, registry.resource_for_kind)


def test_every_recorded_object_is_stored_with_its_own_uid_and_the_start_time() -> None:
    registry = _registry()
    _bootstrap(registry)
    for obj in recorded_objects():
        group, _, _ = obj["apiVersion"].rpartition("/")
        served = registry.resource_for_kind(group, obj["kind"])
        assert served is not None
        meta = obj["metadata"]
        stored = orjson.loads(served.get(meta.get("namespace"), meta["name"]))
        assert stored["metadata"]["uid"] and stored["metadata"]["creationTimestamp"]
        assert all(entry["time"] == stored["metadata"]["creationTimestamp"]
                   for entry in stored["metadata"].get("managedFields") or ())
    uids = [orjson.loads(kv.value)["metadata"]["uid"]
            for kv in registry.store.range(RangeRequest(b"/registry/", b"/registry0")).kvs]
    assert len(uids) == len(set(uids))


def test_the_kubernetes_service_targets_the_servers_port() -> None:
    registry = _registry()
    _bootstrap(registry)
    services = registry.resource_for_kind("", "Service")
    assert services is not None
    service = orjson.loads(services.get("default", "kubernetes"))
    assert service["spec"]["ports"] == [{"name": "https", "protocol": "TCP", "port": 443, "targetPort": 6443}]
    assert service["spec"]["clusterIP"] == "10.0.0.1"


def test_existing_objects_are_kept_and_nothing_is_written_again() -> None:
    """A store that already has them (restored from a snapshot) is left as it is."""
    registry = _registry()
    _bootstrap(registry)
    revision = registry.store.revision
    _bootstrap(registry)
    assert registry.store.revision == revision
