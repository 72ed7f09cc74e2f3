"""Validation of PersistentVolumes (kube's ``pkg/apis/core/validation``,
``ValidatePersistentVolume*``), in Go's order. Their sources are checked as a pod's volume
sources are (``validation_volumes``); PersistentVolumeClaims are ``validation_claims``'."""

from __future__ import annotations

import posixpath
from typing import Any

from ...machinery import quantity as quantities
from ...machinery.status import (
    FieldError,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
)
from ...machinery.validation import (
    child,
    invalid_json,
    key,
    validate_namespace_name,
)
from .. import features
from ..fields import list_field, map_field, str_field
from .pod_spec_diff import internal_diff
from .validation import has_invalid_label_value_in_required_node_affinity, validate_node_selector
from .validation_claims import ACCESS_MODES, VOLUME_MODES
from .validation_common import (
    PodValidationOptions,
    invalid_each,
    validate_class_name,
    validate_core_object_meta,
    validate_core_object_meta_update,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_persistent_volume_name,
)
from .validation_volumes import (
    HOST_PATH_TYPES,
    required_fields,
    validate_azure_disk,
    validate_csi_driver_name,
    validate_flex_volume,
    validate_iscsi,
    validate_partition,
    validate_path_no_backsteps,
    validate_storageos,
    validate_volume_source,
)

Json = dict[str, Any]
_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
_MOUNT_OPTIONS_ANNOTATION = "volume.beta.kubernetes.io/mount-options"
_MOUNT_OPTION_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "nfs", "rbd", "quobyte", "iscsi",
                         "cinder", "cephfs", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk")


def _validate_pv_secret_reference(reference: Json, path: str) -> list[FieldError]:
    """``validatePVSecretReference``."""
    errors: list[FieldError] = []
    name, namespace = str_field(reference, "name"), str_field(reference, "namespace")
    errors += [required_error(child(path, "name"))] if not name else validate_dns1123_subdomain(name, child(path, "name"))
    errors += [required_error(child(path, "namespace"))] if not namespace else \
        validate_dns1123_label(namespace, child(path, "namespace"))
    return errors


def _pv_source_errors(kind: str, source: Json, path: str, volume_name: str) -> list[FieldError]:
    """Each PersistentVolumeSource's own checks (``validate<Kind>PersistentVolumeSource``)."""
    errors: list[FieldError] = []
    if kind == "hostPath":
        host_path = str_field(source, "path")
        if not host_path:
            return [required_error(child(path, "path"))]
        errors += validate_path_no_backsteps(host_path, child(path, "path"))
        kind_value = source.get("type")
        if kind_value is not None and kind_value not in HOST_PATH_TYPES:
            errors.append(not_supported_error(child(path, "type"), kind_value, HOST_PATH_TYPES))
    elif kind == "gcePersistentDisk":
        errors += required_fields(source, path, "pdName") + validate_partition(source, path)
    elif kind == "awsElasticBlockStore":
        errors += required_fields(source, path, "volumeID") + validate_partition(source, path)
    elif kind == "glusterfs":
        errors += required_fields(source, path, "endpoints", "path")
        endpoints_namespace = source.get("endpointsNamespace")
        if endpoints_namespace is not None:
            if not endpoints_namespace:
                errors.append(invalid_error(child(path, "endpointsNamespace"), "",
                                            "if the endpointnamespace is set, it must be a valid namespace name"))
            else:
                errors += invalid_each(child(path, "endpointsNamespace"), endpoints_namespace,
                                       validate_namespace_name(endpoints_namespace, False))
    elif kind == "nfs":
        errors += required_fields(source, path, "server", "path")
        if not str_field(source, "path").startswith("/"):
            errors.append(invalid_error(child(path, "path"), str_field(source, "path"), "must be an absolute path"))
    elif kind == "rbd":
        errors += required_fields(source, path, "monitors", "image")
    elif kind == "cephfs":
        errors += required_fields(source, path, "monitors")
    elif kind == "iscsi":
        target = str_field(source, "targetPortal")
        errors += [required_error(child(path, "targetPortal"))] if not target else []
        if source.get("initiatorName") is not None and len(f"{volume_name}:{target}") > 64:
            errors.append(invalid_error(child(path, "targetportal"), target, (
                "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if "
                "iscsi.initiatorName is specified.")))
        errors += [e for e in validate_iscsi(source, path) if e[0] != child(path, "targetPortal")]
        secret_ref = source.get("secretRef")
        if secret_ref is not None and not str_field(secret_ref, "name"):
            errors.append(required_error(child(path, "secretRef", "name")))
    elif kind == "cinder":
        errors += required_fields(source, path, "volumeID")
        secret_ref = source.get("secretRef")
        if secret_ref is not None:
            errors += [required_error(child(path, "secretRef", name)) for name in ("name", "namespace")
                       if not str_field(secret_ref, name)]
    elif kind == "fc":
        errors += [e for e in validate_volume_source({"fc": source}, path.removesuffix(".fc"), None,
                                                     _no_pod_options()) if e[0].startswith(path)]
    elif kind == "flexVolume":
        errors += validate_flex_volume(source, path)
    elif kind == "azureFile":
        errors += required_fields(source, path, "secretName", "shareName")
        if source.get("secretNamespace") == "":
            errors.append(required_error(child(path, "secretNamespace")))
    elif kind == "vsphereVolume":
        errors += required_fields(source, path, "volumePath")
    elif kind == "photonPersistentDisk":
        errors += required_fields(source, path, "pdID")
    elif kind == "portworxVolume":
        errors += required_fields(source, path, "volumeID")
    elif kind == "azureDisk":
        errors += validate_azure_disk(source, path)
    elif kind == "scaleIO":
        errors += required_fields(source, path, "gateway", "system", "volumeName")
    elif kind == "local":
        local_path = str_field(source, "path")
        errors += [required_error(child(path, "path"))] if not local_path else \
            validate_path_no_backsteps(local_path, child(path, "path"))
    elif kind == "storageos":
        errors += validate_storageos(source, path, persistent=True)
    elif kind == "csi":
        errors += validate_csi_driver_name(str_field(source, "driver"), child(path, "driver"))
        if not str_field(source, "volumeHandle"):
            errors.append(required_error(child(path, "volumeHandle")))
        for ref in ("controllerPublishSecretRef", "controllerExpandSecretRef", "nodePublishSecretRef",
                    "nodeExpandSecretRef"):
            if source.get(ref) is not None:
                errors += _validate_pv_secret_reference(source[ref], child(path, ref))
    elif kind == "flocker":
        errors += [e for e in validate_volume_source({"flocker": source}, path.removesuffix(".flocker"), None,
                                                     _no_pod_options()) if e[0].startswith(path)]
    elif kind == "quobyte":
        errors += [e for e in validate_volume_source({"quobyte": source}, path.removesuffix(".quobyte"), None,
                                                     _no_pod_options()) if e[0].startswith(path)]
    return errors


def _no_pod_options() -> Any:
    return PodValidationOptions()


#: The PV sources in the order ``ValidatePersistentVolumeSpec`` checks them, with the name their
#: errors use (``persistentDisk``, ``cephfs``: kube's paths).
_PV_SOURCES = (("hostPath", "hostPath"), ("gcePersistentDisk", "persistentDisk"),
               ("awsElasticBlockStore", "awsElasticBlockStore"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
               ("nfs", "nfs"), ("rbd", "rbd"), ("quobyte", "quobyte"), ("cephfs", "cephfs"), ("iscsi", "iscsi"),
               ("cinder", "cinder"), ("fc", "fc"), ("flexVolume", "flexVolume"), ("azureFile", "azureFile"),
               ("vsphereVolume", "vsphereVolume"), ("photonPersistentDisk", "photonPersistentDisk"),
               ("portworxVolume", "portworxVolume"), ("azureDisk", "azureDisk"), ("scaleIO", "scaleIO"),
               ("local", "local"), ("storageos", "storageos"), ("csi", "csi"))


def _validate_persistent_volume_spec(spec: Json, name: str, allow_invalid_node_affinity: bool) -> list[FieldError]:
    """``ValidatePersistentVolumeSpec`` of a PersistentVolume (not an inline volume)."""
    errors: list[FieldError] = []
    modes = list_field(spec, "accessModes")
    if not modes:
        errors.append(required_error("spec.accessModes"))
    once_pod = other = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            errors.append(not_supported_error("spec.accessModes", mode, ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            once_pod = True
        elif mode in ACCESS_MODES:
            other = True
    if once_pod and other:
        errors.append(forbidden_error("spec.accessModes", "may not use ReadWriteOncePod with other access modes"))
    capacity = map_field(spec, "capacity")
    if not capacity:
        errors.append(required_error("spec.capacity"))
    if "storage" not in capacity or len(capacity) > 1:
        body = invalid_json("", dict(sorted(capacity.items())) or None, "")[2].replace("Invalid value",
                                                                                      "Unsupported value", 1)
        errors.append(("spec.capacity", "FieldValueNotSupported", f'{body}: supported values: "storage"'))
    for resource, value in capacity.items():
        quantity = quantities.decode(value)
        if quantity.value() < 0:
            errors.append(invalid_error(key("spec.capacity", resource), quantity.value(), "must be a valid resource quantity"))
        if quantity.sign() <= 0:
            errors.append(invalid_error(key("spec.capacity", resource), str(quantity), "must be greater than zero"))
    policy = str_field(spec, "persistentVolumeReclaimPolicy")
    if policy and policy not in _RECLAIM_POLICIES:
        errors.append(not_supported_error("spec.persistentVolumeReclaimPolicy", policy, _RECLAIM_POLICIES))
    node_affinity_set = False
    node_affinity = spec.get("nodeAffinity")
    if node_affinity is not None:
        node_affinity_set = True
        if node_affinity.get("required") is not None:
            errors += validate_node_selector(node_affinity["required"], allow_invalid_node_affinity,
                                             "spec.nodeAffinity.required")
        else:
            errors.append(required_error("spec.nodeAffinity.required", "must specify required node constraints"))
    count = 0
    for source_name, shown in _PV_SOURCES:
        source = spec.get(source_name)
        if source is None:
            continue
        if count and source_name != "flexVolume":
            errors.append(forbidden_error(child("spec", "cephFS" if source_name == "cephfs" else source_name),
                                          "may not specify more than 1 volume type"))
            continue
        count += 1
        errors += _pv_source_errors(source_name, source, child("spec", shown), name)
        if source_name == "local" and not node_affinity_set:
            errors.append(required_error("spec.nodeAffinity", "Local volume requires node affinity"))
    if count == 0:
        errors.append(required_error("spec", "must specify a volume type"))
    host_path = spec.get("hostPath")
    if host_path is not None and _clean(str_field(host_path, "path")) == "/" and policy == "Recycle":
        errors.append(forbidden_error("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
    class_name = str_field(spec, "storageClassName")
    if class_name:
        errors += invalid_each("spec.storageClassName", class_name, validate_class_name(class_name, False))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errors.append(not_supported_error("spec.volumeMode", mode, VOLUME_MODES))
    attributes_class = spec.get("volumeAttributesClassName")
    if attributes_class is not None and features.enabled("VolumeAttributesClass"):
        if not attributes_class:
            errors.append(required_error("spec.volumeAttributesClassName", "an empty string is disallowed"))
        else:
            errors += invalid_each("spec.volumeAttributesClassName", attributes_class,
                                   validate_class_name(attributes_class, False))
        if spec.get("csi") is None:
            errors.append(required_error("spec.csi", "has to be specified when using volumeAttributesClassName"))
    return errors


def _clean(path: str) -> str:
    return posixpath.normpath(path) if path else "."


def validate_persistent_volume(volume: Json, old: Json | None = None) -> list[FieldError]:
    """The PV strategy's validation: ``ValidatePersistentVolume`` and the mount options check."""
    meta, spec = map_field(volume, "metadata"), map_field(volume, "spec")
    allow_invalid = False
    if old is not None:
        required = map_field(map_field(old, "spec"), "nodeAffinity").get("required")
        allow_invalid = required is not None and has_invalid_label_value_in_required_node_affinity(
            {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}})
    errors = validate_core_object_meta(meta, False, validate_persistent_volume_name)
    errors += _validate_persistent_volume_spec(spec, str_field(meta, "name"), allow_invalid)
    if not any(spec.get(source) is not None for source in _MOUNT_OPTION_SOURCES) and \
            _MOUNT_OPTIONS_ANNOTATION in map_field(meta, "annotations"):
        errors.append(forbidden_error(f"metadata.annotations.{_MOUNT_OPTIONS_ANNOTATION}",
                                      "may not specify mount options for this volume type"))
    return errors


def validate_persistent_volume_update(new: Json, old: Json) -> list[FieldError]:
    """The PV strategy's ``ValidateUpdate`` (which validates the new volume twice, as kube
    does): the volume source never changes."""
    errors = validate_persistent_volume(new, old)
    errors += validate_persistent_volume(new, old)
    new_spec, old_spec = dict(map_field(new, "spec")), map_field(old, "spec")
    csi, old_csi = new_spec.get("csi"), old_spec.get("csi")
    if old_csi is not None and old_csi.get("controllerExpandSecretRef") is None and csi is not None and \
            csi.get("controllerExpandSecretRef") is not None:
        new_spec["csi"] = {k: v for k, v in csi.items() if k != "controllerExpandSecretRef"}
    source_names = [name for name, _shown in _PV_SOURCES]
    if [new_spec.get(n) for n in source_names] != [old_spec.get(n) for n in source_names]:
        errors.append(forbidden_error("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after "
                                                                     "creation\n" + internal_diff(
            "core.PersistentVolumeSource", old_spec, new_spec)))
    if new_spec.get("volumeMode") != old_spec.get("volumeMode"):
        errors.append(invalid_error("volumeMode", new_spec.get("volumeMode") or "", "field is immutable"))
    if old_spec.get("nodeAffinity") is not None and new_spec.get("nodeAffinity") != old_spec.get("nodeAffinity"):
        errors.append(_node_affinity_immutable(new_spec.get("nodeAffinity"), old_spec["nodeAffinity"]))
    if old_spec.get("volumeAttributesClassName") is not None and new_spec.get("volumeAttributesClassName") is None:
        errors.append(forbidden_error("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"))
    return [error for error in errors if error is not None]


_BETA_TO_GA_LABELS = {"failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
                      "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
                      "beta.kubernetes.io/os": "kubernetes.io/os", "beta.kubernetes.io/arch": "kubernetes.io/arch",
                      "beta.kubernetes.io/instance-type": "node.kubernetes.io/instance-type"}


def _node_affinity_immutable(new: Json | None, old: Json) -> FieldError | None:
    """``validatePvNodeAffinity``: only beta node labels may become their GA names."""
    from .pod_spec_diff import internal_value

    def masked(affinity: Json | None, reference: Json | None) -> Any:
        if affinity is None or reference is None:
            return affinity
        terms = list_field(map_field(affinity, "required"), "nodeSelectorTerms")
        reference_terms = list_field(map_field(reference, "required"), "nodeSelectorTerms")
        if len(terms) != len(reference_terms):
            return affinity
        out = []
        for term, reference_term in zip(terms, reference_terms, strict=True):
            expressions = []
            for i, expression in enumerate(list_field(term, "matchExpressions")):
                reference_expressions = list_field(reference_term, "matchExpressions")
                if i < len(reference_expressions) and _BETA_TO_GA_LABELS.get(expression.get("key")) == \
                        reference_expressions[i].get("key"):
                    expression = {**expression, "key": reference_expressions[i]["key"]}
                expressions.append(expression)
            out.append({**term, "matchExpressions": expressions} if expressions else term)
        return {"required": {**map_field(affinity, "required"), "nodeSelectorTerms": out}}

    if masked(old, new) == new:
        return None
    return invalid_json("nodeAffinity", internal_value("core.VolumeNodeAffinity", new),
                        "field is immutable, except for updating from beta label to GA")


def validate_persistent_volume_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidatePersistentVolumeStatusUpdate``."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    if not str_field(map_field(new, "metadata"), "resourceVersion"):
        errors.append(required_error("resourceVersion"))
    return errors


