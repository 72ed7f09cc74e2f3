"""DefaultStorageClass (kube's ``plugin/pkg/admission/storage/storageclass/setdefault``): a new
PersistentVolumeClaim that names no class gets the default StorageClass (the newest one marked
``storageclass.kubernetes.io/is-default-class: "true"``), if there is one."""

from __future__ import annotations

from . import Admission, Json, mutating

_DEFAULT_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                        "storageclass.beta.kubernetes.io/is-default-class")
_BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def default_class(admission: Admission) -> Json | None:
    """``GetDefaultClass``: newest first, then by name."""
    defaults = [c for c in admission.list("storage.k8s.io", "StorageClass", None)
                if any((c.get("metadata") or {}).get("annotations", {}).get(a) == "true" for a in _DEFAULT_ANNOTATIONS)]
    if not defaults:
        return None
    defaults.sort(key=lambda c: c["metadata"].get("name") or "")
    defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
    return defaults[0]


@mutating("", "PersistentVolumeClaim")
def default_storage_class(admission: Admission, claim: Json, old: Json | None, subresource: str | None) -> None:
    if old is not None or subresource is not None:
        return
    spec = claim.setdefault("spec", {})
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    if spec.get("storageClassName") is not None or _BETA_CLASS_ANNOTATION in annotations:
        return
    chosen = default_class(admission)
    if chosen is not None:
        spec["storageClassName"] = chosen["metadata"]["name"]
