"""StorageObjectInUseProtection as kube's ``plugin/pkg/admission/storage/
storageobjectinuseprotection``: a created PersistentVolume, PersistentVolumeClaim or
VolumeAttributesClass gets its protection finalizer after those it has, once; updates and
subresources are left alone."""

from __future__ import annotations

import pytest
from admission_objects import NOTHING_STORED, new

from fakeapi.admission.storage_object_in_use_protection import (
    protect_attributes_class,
    protect_claim,
    protect_volume,
)

KINDS = {
    "pv": (protect_volume, "v1", "PersistentVolume", None, "kubernetes.io/pv-protection"),
    "pvc": (protect_claim, "v1", "PersistentVolumeClaim", "ns", "kubernetes.io/pvc-protection"),
    "vac": (protect_attributes_class, "storage.k8s.io/v1", "VolumeAttributesClass", None,
            "kubernetes.io/vac-protection"),
}


def finalizers(kind: str, *given: str, old: bool = False, subresource: str | None = None) -> list[str] | None:
    plugin, api_version, kind_name, namespace, _ = KINDS[kind]
    obj = new(api_version, kind_name, "x", namespace, metadata={"finalizers": list(given)} if given else {})
    plugin(NOTHING_STORED, obj, dict(obj) if old else None, subresource)
    return obj["metadata"].get("finalizers")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_created_object_is_protected_after_its_own_finalizers(kind: str) -> None:
    protection = KINDS[kind][-1]
    assert finalizers(kind) == [protection]
    assert finalizers(kind, "example.com/keep") == ["example.com/keep", protection]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_finalizer_is_not_added_twice(kind: str) -> None:
    protection = KINDS[kind][-1]
    assert finalizers(kind, protection, "example.com/keep") == [protection, "example.com/keep"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_updates_and_subresources_are_left_alone(kind: str) -> None:
    assert finalizers(kind, old=True) is None
    assert finalizers(kind, subresource="status") is None
