"""Validation of PersistentVolumeClaims and of the claim templates of ephemeral volumes and
StatefulSets (kube's ``pkg/apis/core/validation``, ``ValidatePersistentVolumeClaim*``,
``ValidatePersistentVolumeClaimTemplate``), in Go's order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...machinery import quantity as quantities
from ...machinery.status import FieldError, forbidden_error, invalid_error, not_supported_error, required_error
from ...machinery.validation import (
    LabelSelectorValidationOptions,
    child,
    is_dns1123_subdomain,
    is_qualified_name,
    key,
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_namespace_name,
)
from .. import features
from ..fields import list_field, map_field, set_or_drop, str_field
from .pod_spec_diff import internal_diff
from .validation_common import (
    invalid_each,
    is_native_resource,
    validate_class_name,
    validate_core_object_meta,
    validate_core_object_meta_update,
    validate_persistent_volume_name,
    validate_resource_quantity_value,
)

Json = dict[str, Any]
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
VOLUME_MODES = ("Block", "Filesystem")
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


@dataclass(frozen=True, slots=True)
class ClaimSpecValidationOptions:
    """``PersistentVolumeClaimSpecValidationOptions``."""

    enable_recover_from_expansion_failure: bool = True
    allow_invalid_label_value_in_selector: bool = False
    allow_invalid_api_group_in_data_source_or_ref: bool = False
    enable_volume_attributes_class: bool = True


def claim_validation_options(old: Json | None) -> ClaimSpecValidationOptions:
    """``ValidationOptionsForPersistentVolumeClaim`` (None: create)."""
    if old is None:
        return ClaimSpecValidationOptions(
            enable_recover_from_expansion_failure=features.enabled("RecoverVolumeExpansionFailure"),
            enable_volume_attributes_class=features.enabled("VolumeAttributesClass"))
    spec = map_field(old, "spec")
    status = map_field(old, "status")
    return ClaimSpecValidationOptions(
        enable_recover_from_expansion_failure=features.enabled("RecoverVolumeExpansionFailure") or bool(
            status.get("allocatedResources") or status.get("allocatedResourceStatuses")),
        allow_invalid_label_value_in_selector=bool(validate_label_selector(
            spec.get("selector"), LabelSelectorValidationOptions(), "")),
        allow_invalid_api_group_in_data_source_or_ref=(
            map_field(spec, "dataSource").get("apiGroup") is not None
            or map_field(spec, "dataSourceRef").get("apiGroup") is not None),
        enable_volume_attributes_class=features.enabled("VolumeAttributesClass")
        or spec.get("volumeAttributesClassName") is not None,
    )


def _validate_data_source(source: Json, path: str, allow_invalid_group: bool, with_namespace: bool) -> list[FieldError]:
    """``validateDataSource``/``validateDataSourceRef``."""
    errors: list[FieldError] = []
    if not str_field(source, "name"):
        errors.append(required_error(child(path, "name")))
    kind = str_field(source, "kind")
    if not kind:
        errors.append(required_error(child(path, "kind")))
    group = str_field(source, "apiGroup")
    if not group and kind != "PersistentVolumeClaim":
        errors.append(invalid_error(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
    if group and not allow_invalid_group:
        errors += invalid_each(child(path, "apiGroup"), group, is_dns1123_subdomain(group))
    namespace = str_field(source, "namespace") if with_namespace else ""
    if namespace:
        errors += invalid_each(child(path, "namespace"), namespace, validate_namespace_name(namespace, False))
    return errors


def validate_persistent_volume_claim_spec(spec: Json, path: str,
                                          options: ClaimSpecValidationOptions) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimSpec``."""
    errors: list[FieldError] = []
    modes = list_field(spec, "accessModes")
    if not modes:
        errors.append(required_error(child(path, "accessModes"), "at least 1 access mode is required"))
    if spec.get("selector") is not None:
        errors += validate_label_selector(spec["selector"], LabelSelectorValidationOptions(
            allow_invalid_label_value_in_selector=options.allow_invalid_label_value_in_selector), child(path, "selector"))
    once_pod = other = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            errors.append(not_supported_error(child(path, "accessModes"), mode, ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            once_pod = True
        elif mode in ACCESS_MODES:
            other = True
    if once_pod and other:
        errors.append(forbidden_error(child(path, "accessModes"), "may not use ReadWriteOncePod with other access modes"))
    storage_path = key(child(path, "resources"), "storage")
    storage = map_field(map_field(spec, "resources"), "requests").get("storage")
    if storage is None:
        errors.append(required_error(storage_path))
    else:
        value = quantities.decode(storage)
        if value.sign() <= 0:
            errors.append(invalid_error(storage_path, str(value), "must be greater than zero"))
        else:
            errors += validate_resource_quantity_value("storage", value, storage_path)
    class_name = str_field(spec, "storageClassName")
    if class_name:
        errors += invalid_each(child(path, "storageClassName"), class_name, validate_class_name(class_name, False))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errors.append(not_supported_error(child(path, "volumeMode"), mode, VOLUME_MODES))
    data_source, data_source_ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if data_source is not None:
        errors += _validate_data_source(data_source, child(path, "dataSource"),
                                        options.allow_invalid_api_group_in_data_source_or_ref, False)
    if data_source_ref is not None:
        errors += _validate_data_source(data_source_ref, child(path, "dataSourceRef"),
                                        options.allow_invalid_api_group_in_data_source_or_ref, True)
    if data_source_ref is not None and str_field(data_source_ref, "namespace"):
        if data_source is not None:
            errors.append(invalid_error(path, child(path, "dataSource"),
                                        "may not be specified when dataSourceRef.namespace is specified"))
    elif data_source is not None and data_source_ref is not None:
        if (data_source.get("apiGroup"), str_field(data_source, "kind"), str_field(data_source, "name")) != (
                data_source_ref.get("apiGroup"), str_field(data_source_ref, "kind"),
                str_field(data_source_ref, "name")):
            errors.append(invalid_error(path, child(path, "dataSource"), "must match dataSourceRef"))
    attributes_class = str_field(spec, "volumeAttributesClassName")
    if attributes_class and options.enable_volume_attributes_class:
        errors += invalid_each(child(path, "volumeAttributesClassName"), attributes_class,
                               validate_class_name(attributes_class, False))
    return errors


def validate_template_object_meta(meta: Json, path: str) -> list[FieldError]:
    """``ValidateTemplateObjectMeta``: only labels and annotations may be set."""
    errors = validate_annotations(meta.get("annotations"), child(path, "annotations"))
    errors += validate_labels(meta.get("labels"), child(path, "labels"))
    for name, value in meta.items():
        if name not in ("labels", "annotations") and value not in (None, "", 0, [], {}):
            go_name = {"uid": "uID"}.get(name, name)
            errors.append(forbidden_error(child(path, go_name), "cannot be set"))
    return errors


def validate_persistent_volume_claim_template(template: Json, path: str) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimTemplate`` (of a new template)."""
    errors = validate_template_object_meta(map_field(template, "metadata"), child(path, "metadata"))
    return errors + validate_persistent_volume_claim_spec(map_field(template, "spec"), child(path, "spec"),
                                                          claim_validation_options(None))


def validate_persistent_volume_claim(claim: Json, options: ClaimSpecValidationOptions) -> list[FieldError]:
    """``ValidatePersistentVolumeClaim``."""
    errors = validate_core_object_meta(map_field(claim, "metadata"), True, validate_persistent_volume_name)
    return errors + validate_persistent_volume_claim_spec(map_field(claim, "spec"), "spec", options)


def validate_persistent_volume_claim_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimUpdate``: the spec is immutable but for a bound claim's
    storage request and volume attributes class, a volume name set once, and the storage class
    upgrade from the beta annotation."""
    options = claim_validation_options(old)
    new_meta, old_meta = map_field(new, "metadata"), map_field(old, "metadata")
    errors = validate_core_object_meta_update(new_meta, old_meta)
    errors += validate_persistent_volume_claim(new, options)
    new_spec, old_spec = dict(map_field(new, "spec")), dict(map_field(old, "spec"))
    new_annotations, old_annotations = map_field(new_meta, "annotations"), map_field(old_meta, "annotations")
    if not str_field(old_spec, "volumeName"):
        set_or_drop(old_spec, "volumeName", new_spec.get("volumeName"))
    old_class, new_class = old_spec.get("storageClassName"), new_spec.get("storageClassName")
    if BETA_STORAGE_CLASS_ANNOTATION in old_annotations and old_class is None and new_class is not None and \
            new_class == old_annotations[BETA_STORAGE_CLASS_ANNOTATION] and (
            BETA_STORAGE_CLASS_ANNOTATION not in new_annotations
            or new_annotations[BETA_STORAGE_CLASS_ANNOTATION] == old_annotations[BETA_STORAGE_CLASS_ANNOTATION]):
        new_spec.pop("storageClassName", None)
    else:
        new_annotation = new_annotations.get(BETA_STORAGE_CLASS_ANNOTATION, "")
        if new_annotation != old_annotations.get(BETA_STORAGE_CLASS_ANNOTATION, ""):
            errors.append(invalid_error(f"metadata.annotations.{BETA_STORAGE_CLASS_ANNOTATION}", new_annotation,
                                        "field is immutable"))
        if new_class is not None and old_class is None and (
                BETA_STORAGE_CLASS_ANNOTATION not in old_annotations
                or new_class == old_annotations[BETA_STORAGE_CLASS_ANNOTATION]):
            set_or_drop(new_spec, "storageClassName", old_class)
    bound = str_field(map_field(new, "status"), "phase") == "Bound"
    requests = map_field(map_field(new_spec, "resources"), "requests")
    if bound and "requests" in map_field(new_spec, "resources"):
        new_spec["resources"] = {**new_spec["resources"], "requests": {
            **requests, "storage": map_field(map_field(old_spec, "resources"), "requests").get("storage")}}
    if bound:
        set_or_drop(new_spec, "volumeAttributesClassName", old_spec.get("volumeAttributesClassName"))
    if new_spec != old_spec:
        errors.append(forbidden_error("spec", "spec is immutable after creation except resources.requests and "
                                              "volumeAttributesClassName for bound claims\n"
                                      + internal_diff("core.PersistentVolumeClaimSpec", old_spec, new_spec)))
    old_size = _storage_request(old)
    new_size = _storage_request(new)
    if new_size.cmp(old_size) < 0:
        if not options.enable_recover_from_expansion_failure:
            errors.append(forbidden_error("spec.resources.requests.storage", "field can not be less than previous value"))
        else:
            capacity = map_field(map_field(old, "status"), "capacity").get("storage")
            status_size = quantities.decode(capacity) if capacity is not None else quantities.parse("0")
            if new_size.cmp(status_size) <= 0:
                errors.append(forbidden_error("spec.resources.requests.storage",
                                              "field can not be less than status.capacity"))
    if map_field(new, "spec").get("volumeMode") != map_field(old, "spec").get("volumeMode"):
        errors.append(invalid_error("volumeMode", map_field(new, "spec").get("volumeMode") or "", "field is immutable"))
    new_attributes = map_field(new, "spec").get("volumeAttributesClassName")
    if new_attributes != map_field(old, "spec").get("volumeAttributesClassName") \
            and options.enable_volume_attributes_class \
            and map_field(old, "status").get("currentVolumeAttributesClassName") is not None:
        if new_attributes is None:
            errors.append(forbidden_error("spec.volumeAttributesClassName",
                                          "update to nil is forbidden when status.currentVolumeAttributesClassName is "
                                          "not nil"))
        elif not new_attributes:
            errors.append(forbidden_error("spec.volumeAttributesClassName",
                                          "update to empty string is forbidden when "
                                          "status.currentVolumeAttributesClassName is not nil"))
    return errors


def _storage_request(claim: Json) -> quantities.Quantity:
    value = map_field(map_field(map_field(claim, "spec"), "resources"), "requests").get("storage")
    return quantities.decode(value) if value is not None else quantities.parse("0")


def validate_new_persistent_volume_claim(claim: Json) -> list[FieldError]:
    """The PVC strategy's ``Validate``."""
    return validate_persistent_volume_claim(claim, claim_validation_options(None))


_RESIZE_STATUSES = ("ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress",
                    "NodeResizeInfeasible", "NodeResizePending")


def _claim_resource_key_errors(name: str, path: str) -> list[FieldError]:
    """``validatePersistentVolumeClaimResourceKey``."""
    errors = invalid_each(path, name, is_qualified_name(name))
    if errors:
        return errors
    if is_native_resource(name) and name != "storage":
        return [not_supported_error(path, name, ("storage",))]
    return []


def validate_persistent_volume_claim_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimStatusUpdate``."""
    options = claim_validation_options(old)
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    if not str_field(map_field(new, "metadata"), "resourceVersion"):
        errors.append(required_error("resourceVersion"))
    if not list_field(map_field(new, "spec"), "accessModes"):
        errors.append(required_error("Spec.accessModes"))
    status = map_field(new, "status")
    for name, value in map_field(status, "capacity").items():
        if quantities.decode(value).value() < 0:
            errors.append(invalid_error(key("status.capacity", name), quantities.decode(value).value(),
                                        "must be a valid resource quantity"))
    if options.enable_recover_from_expansion_failure:
        for name, value in map_field(status, "allocatedResourceStatuses").items():
            errors += _claim_resource_key_errors(name, "status.allocatedResourceStatuses")
            if value not in _RESIZE_STATUSES:
                errors.append(not_supported_error("status.allocatedResourceStatuses", name, _RESIZE_STATUSES))
        for name, value in map_field(status, "allocatedResources").items():
            name_errors = _claim_resource_key_errors(name, "status.allocatedResources")
            if name_errors:
                errors += name_errors
                continue
            quantity = quantities.decode(value)
            if quantity.value() < 0:
                errors.append(invalid_error(key("status.allocatedResources", name), quantity.value(),
                                            "must be a valid resource quantity"))
            else:
                errors += validate_resource_quantity_value("storage", quantity, key("status.allocatedResources", name))
    return errors
