"""The storage.k8s.io group (kube's ``pkg/apis/storage``): StorageClasses, CSIDrivers, CSINodes,
VolumeAttachments, CSIStorageCapacities, VolumeAttributesClasses."""

from __future__ import annotations

from ..rules import register
from ..strategies import generation_on_change, no_status
from . import defaults

GROUP = "storage.k8s.io"
register(GROUP, "v1", "StorageClass", default=defaults.set_defaults_storage_class)
# A CSIDriver starts without a generation; its first spec change makes it 1.
register(GROUP, "v1", "CSIDriver", default=defaults.set_defaults_csi_driver,
         prepare_for_update=generation_on_change("spec"))
register(GROUP, "v1", "CSINode", prepare_for_create=no_status)
