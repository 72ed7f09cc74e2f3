"""StorageObjectInUseProtection (kube's ``plugin/pkg/admission/storage/
storageobjectinuseprotection``): new PersistentVolumes, PersistentVolumeClaims and
VolumeAttributesClasses carry the finalizer their protection controller removes once nothing
uses them."""

from __future__ import annotations

from . import Admission, Json, mutating


def _protect(obj: Json, finalizer: str) -> None:
    meta = obj.setdefault("metadata", {})
    finalizers = meta.get("finalizers") or []
    if finalizer not in finalizers:
        meta["finalizers"] = [*finalizers, finalizer]


@mutating("", "PersistentVolume")
def protect_volume(admission: Admission, volume: Json, old: Json | None, subresource: str | None) -> None:
    if old is None and subresource is None:
        _protect(volume, "kubernetes.io/pv-protection")


@mutating("", "PersistentVolumeClaim")
def protect_claim(admission: Admission, claim: Json, old: Json | None, subresource: str | None) -> None:
    if old is None and subresource is None:
        _protect(claim, "kubernetes.io/pvc-protection")


@mutating("storage.k8s.io", "VolumeAttributesClass")
def protect_attributes_class(admission: Admission, attributes_class: Json, old: Json | None,
                             subresource: str | None) -> None:
    if old is None and subresource is None:
        _protect(attributes_class, "kubernetes.io/vac-protection")
