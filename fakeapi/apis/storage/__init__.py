"""The storage.k8s.io group (kube's ``pkg/apis/storage``): StorageClasses, CSIDrivers, CSINodes,
VolumeAttachments, CSIStorageCapacities, VolumeAttributesClasses."""

from __future__ import annotations

from ..decoding import decoder
from ..rules import register
from ..strategies import generation_on_change, no_status
from . import defaults, validation

GROUP = "storage.k8s.io"
register(GROUP, "v1", "StorageClass", default=decoder("StorageClass", defaults.set_defaults_storage_class),
         validate=validation.validate_storage_class, validate_update=validation.validate_storage_class_update,
         warnings_on_create=validation.storage_class_warnings, warnings_on_update=validation.storage_class_warnings)
# A CSIDriver starts without a generation; its first spec change makes it 1.
register(GROUP, "v1", "CSIDriver", default=decoder("CSIDriver", defaults.set_defaults_csi_driver),
         prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_csi_driver, validate_update=validation.validate_csi_driver_update,
         warnings_on_create=validation.csi_driver_warnings_on_create,
         warnings_on_update=validation.csi_driver_warnings_on_update)
register(GROUP, "v1", "CSINode", prepare_for_create=no_status,
         validate=validation.validate_csi_node, validate_update=validation.validate_csi_node_update)
register(GROUP, "v1", "VolumeAttachment", validate=validation.validate_volume_attachment,
         validate_update=validation.validate_volume_attachment_update,
         validate_status_update=validation.validate_volume_attachment_status_update,
         status_reset_fields=(("metadata",), ("spec",)))
register(GROUP, "v1", "CSIStorageCapacity",
         default=decoder("CSIStorageCapacity", validation.canonical_capacities),
         validate=validation.validate_csi_storage_capacity,
         validate_update=validation.validate_csi_storage_capacity_update,
         warnings_on_create=validation.csi_storage_capacity_warnings,
         warnings_on_update=validation.csi_storage_capacity_warnings)
register(GROUP, "v1", "VolumeAttributesClass", validate=validation.validate_volume_attributes_class,
         validate_update=validation.validate_volume_attributes_class_update)
