"""PersistentVolumeClaimResize (kube's ``plugin/pkg/admission/storage/persistentvolume/resize``): a
claim's requested storage may grow only when the claim is bound and its StorageClass (the same
before and after) allows volume expansion. kube-apiserver v1.35.4 no longer looks at the
PersistentVolume (older versions refused volume sources that could not grow): a claim bound to
a missing or a hostPath volume grows, as the differential cases show."""

from __future__ import annotations

from ..machinery.quantity import Quantity, decode
from . import Admission, Json, refusal, validating

_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _requested_storage(claim: Json) -> Quantity:
    return decode((((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage") or "0")


def _storage_class(claim: Json) -> str:
    """``GetPersistentVolumeClaimClass``: the annotation first, then ``spec.storageClassName``."""
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    if _CLASS_ANNOTATION in annotations:
        return str(annotations[_CLASS_ANNOTATION])
    return str((claim.get("spec") or {}).get("storageClassName") or "")


@validating("", "PersistentVolumeClaim")
def persistent_volume_claim_resize(admission: Admission, claim: Json, old: Json | None,
                                   subresource: str | None) -> None:
    if old is None or subresource is not None:
        return
    if _requested_storage(claim).cmp(_requested_storage(old)) <= 0:
        return

    def refuse(message: str) -> None:
        raise refusal("", "persistentvolumeclaims", claim, message)

    if (old.get("status") or {}).get("phase") != "Bound":
        refuse("Only bound persistent volume claims can be expanded")
    storage_class = _storage_class(claim)
    found = admission.lookup("storage.k8s.io", "StorageClass", None, storage_class) if storage_class else None
    if storage_class != _storage_class(old) or found is None or not found.get("allowVolumeExpansion"):
        refuse("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must "
               "support resize")
