"""DefaultStorageClass (kube's ``plugin/pkg/admission/storage/storageclass/setdefault``): a new
PersistentVolumeClaim that names no class gets the default StorageClass (the newest one marked
``storageclass.kubernetes.io/is-default-class: "true"``), if there is one."""

from __future__ import annotations

from . import Admission, Json, mutating

_DEFAULT_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                        "storageclass.beta.kubernetes.io/is-default-class")
_BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def default_class(admission: Admission, group: str, kind: str, annotations: tuple[str, ...]) -> Json | None:
    """``GetDefaultClass`` (StorageClass; IngressClass's ``getDefaultClass`` alike): of the
    classes one of ``annotations`` marks ``"true"``, the newest, then the first by name."""
    defaults = [c for c in admission.list(group, kind, None)
                if any(((c.get("metadata") or {}).get("annotations") or {}).get(a) == "true" for a in annotations)]
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
    chosen = default_class(admission, "storage.k8s.io", "StorageClass", _DEFAULT_ANNOTATIONS)
    if chosen is not None:
        spec["storageClassName"] = chosen["metadata"]["name"]
