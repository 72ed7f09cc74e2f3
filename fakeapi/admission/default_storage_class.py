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


def name_default_class(admission: Admission, obj: Json, field: str, class_annotation: str, group: str, kind: str,
                       default_annotations: tuple[str, ...]) -> None:
    """A new object that names no class, by ``spec.<field>`` or by ``class_annotation``, gets
    the default class's name in ``spec.<field>``, if there is a default class."""
    spec = obj.setdefault("spec", {})
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if spec.get(field) is not None or class_annotation in annotations:
        return
    chosen = default_class(admission, group, kind, default_annotations)
    if chosen is not None:
        spec[field] = chosen["metadata"]["name"]


@mutating("", "PersistentVolumeClaim")
def default_storage_class(admission: Admission, claim: Json, old: Json | None, subresource: str | None) -> None:
    if old is None and subresource is None:
        name_default_class(admission, claim, "storageClassName", _BETA_CLASS_ANNOTATION, "storage.k8s.io",
                           "StorageClass", _DEFAULT_ANNOTATIONS)
