"""storage.k8s.io/v1 defaulting (``pkg/apis/storage/v1/defaults.go``)."""

from __future__ import annotations

from ..fields import Json, default, struct


def set_defaults_storage_class(obj: Json) -> None:
    default(obj, "reclaimPolicy", "Delete")
    default(obj, "volumeBindingMode", "Immediate")


def set_defaults_csi_driver(obj: Json) -> None:
    spec = struct(obj, "spec")
    default(spec, "attachRequired", True)
    default(spec, "podInfoOnMount", False)
    default(spec, "storageCapacity", False)
    default(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType")
    if not spec.get("volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]
    default(spec, "requiresRepublish", False)
    default(spec, "seLinuxMount", False)  # SELinuxMountReadWriteOncePod is on in 1.35
