"""storage.k8s.io/v1 validation (``pkg/apis/storage/validation/validation.go``) and the
strategies' warnings (``pkg/registry/storage/*/strategy.go``, ``pkg/api/storage``)."""

from __future__ import annotations

from ...machinery import quantity
from ...machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid_error,
    required_error,
    too_long_error,
)
from ...machinery.validation import (
    DEFAULT_LABEL_SELECTOR_OPTIONS,
    FIELD_IMMUTABLE_ERROR_MSG,
    LabelSelectorValidationOptions,
    child,
    inclusive_range_error,
    index,
    invalid_json,
    is_qualified_name,
    label_selector_has_invalid_label_value,
    name_is_dns_subdomain,
    validate_immutable_field,
    validate_label_name,
    validate_label_selector,
    validate_nonnegative_field,
)
from .. import selectors
from ..core.validation_common import validate_core_object_meta, validate_core_object_meta_update, validate_node_name
from ..core.validation_volumes import validate_csi_driver_name
from ..core.warnings import DEPRECATED_NODE_LABELS
from ..errors import not_supported_json, validate_nonnegative_quantity
from ..fields import Json, get, items

MAX_PARAMETERS = 512
MAX_PARAMETERS_SIZE = 256 * 1024
MAX_ATTACHMENT_METADATA_SIZE = 256 * 1024
MAX_VOLUME_ERROR_MESSAGE_SIZE = 1024
MAX_CSI_NODE_ID_LENGTH = 256  # the strategy allows long node IDs
_RECLAIM_POLICIES = ("Delete", "Retain")
_BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
_FS_GROUP_POLICIES = ("File", "None", "ReadWriteOnceWithFSType")
_LIFECYCLE_MODES = ("Persistent", "Ephemeral")
SERVICE_ACCOUNT_TOKEN_IN_SECRETS_WARNING = (
    "spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to true to prevent possible "
    "logging of tokens in volume attributes")


def _byte_len(text: str) -> int:
    return len(text.encode())


def _validate_provisioner(provisioner: str, path: str) -> list[FieldError]:
    if not provisioner:
        return [required_error(path)]
    return [invalid_error(path, provisioner.lower(), m) for m in is_qualified_name(provisioner.lower())]


def _validate_parameters(parameters: Json | None, allow_empty: bool, path: str) -> list[FieldError]:
    parameters = parameters or {}
    if len(parameters) > MAX_PARAMETERS:
        return [too_long_error(path, MAX_PARAMETERS)]
    errors: list[FieldError] = []
    total = 0
    for name in sorted(parameters):
        if not name:
            errors.append(invalid_error(path, name, "field can not be empty."))
        total += _byte_len(name) + _byte_len(parameters[name] or "")
    if total > MAX_PARAMETERS_SIZE:
        errors.append(too_long_error(path, MAX_PARAMETERS_SIZE))
    if not allow_empty and not parameters:
        errors.append(required_error(path, "must contain at least one key/value pair"))
    return errors


# ----------------------------------------------------------------------------- StorageClasses

def _validate_allowed_topologies(terms: list[Json]) -> list[FieldError]:
    """``validateAllowedTopologies`` with core's ``ValidateTopologySelectorTerm``."""
    errors: list[FieldError] = []
    seen: list[dict[str, frozenset[str]]] = []
    for i, term in enumerate(terms):
        term_path = index("allowedTopologies", i)
        expressions: dict[str, frozenset[str]] = {}
        for j, requirement in enumerate(items(term, "matchLabelExpressions")):
            requirement_path = index(child(term_path, "matchLabelExpressions"), j)
            values = requirement.get("values") or []
            if not values:
                errors.append(required_error(child(requirement_path, "values")))
            for k, value in enumerate(values):
                if value in values[:k]:
                    errors.append(duplicate_error(index(child(requirement_path, "values"), k), value))
            requirement_key = requirement.get("key") or ""
            errors += validate_label_name(requirement_key, child(requirement_path, "key"))
            if requirement_key in expressions:
                errors.append(duplicate_error(child(requirement_path, "key"), requirement_key))
            expressions[requirement_key] = frozenset(values)
        if expressions in seen:
            errors.append(duplicate_error(child(term_path, "matchLabelExpressions"), ""))
        seen.append(expressions)
    return errors


def validate_storage_class(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], False, name_is_dns_subdomain)
    errors += _validate_provisioner(obj.get("provisioner") or "", "provisioner")
    errors += _validate_parameters(obj.get("parameters"), True, "parameters")
    policy = obj.get("reclaimPolicy") or ""
    if policy and policy not in _RECLAIM_POLICIES:
        errors.append(not_supported_json("reclaimPolicy", policy, _RECLAIM_POLICIES))
    mode = obj.get("volumeBindingMode")
    if mode is None:
        errors.append(required_error("volumeBindingMode"))
    elif mode not in _BINDING_MODES:
        errors.append(not_supported_json("volumeBindingMode", mode, _BINDING_MODES))
    return errors + _validate_allowed_topologies(items(obj, "allowedTopologies"))


def validate_storage_class_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateStorageClass`` then ``ValidateStorageClassUpdate``: only the volume expansion,
    mount options and topologies may change."""
    errors = validate_storage_class(new) + validate_core_object_meta_update(new["metadata"], old["metadata"])
    if (new.get("parameters") or None) != (old.get("parameters") or None):
        errors.append(forbidden_error("parameters", "updates to parameters are forbidden."))
    if new.get("provisioner") != old.get("provisioner"):
        errors.append(forbidden_error("provisioner", "updates to provisioner are forbidden."))
    if new.get("reclaimPolicy") != old.get("reclaimPolicy"):
        errors.append(forbidden_error("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    return errors + validate_immutable_field(new.get("volumeBindingMode"), old.get("volumeBindingMode"),
                                             "volumeBindingMode")


def storage_class_warnings(obj: Json, old: Json | None = None) -> list[str]:
    """``GetWarningsForStorageClass``: deprecated node labels in allowed topologies."""
    warnings = []
    for i, term in enumerate(items(obj, "allowedTopologies")):
        for j, requirement in enumerate(items(term, "matchLabelExpressions")):
            message = DEPRECATED_NODE_LABELS.get(requirement.get("key") or "")
            if message is not None:
                warnings.append(f"allowedTopologies[{i}].matchLabelExpressions[{j}].key: {message}")
    return warnings


# ----------------------------------------------------------------------------- CSIDrivers

def _validate_csi_driver_spec(spec: Json) -> list[FieldError]:
    path = "spec"
    errors: list[FieldError] = []
    for name, shown in (("attachRequired", "attachedRequired"), ("podInfoOnMount", "podInfoOnMount"),
                        ("storageCapacity", "storageCapacity")):
        if spec.get(name) is None:
            errors.append(required_error(child(path, shown)))
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in _FS_GROUP_POLICIES:
        errors.append(not_supported_json(child(path, "fsGroupPolicy"), policy, _FS_GROUP_POLICIES))
    audiences: set[str] = set()
    for i, request in enumerate(items(spec, "tokenRequests")):
        request_path = index(child(path, "tokenRequests"), i)
        audience = request.get("audience") or ""
        if audience in audiences:
            errors.append(duplicate_error(child(request_path, "audience"), audience))
            continue
        audiences.add(audience)
        seconds = request.get("expirationSeconds")
        if seconds is None:
            continue
        if seconds < 600:
            errors.append(invalid_error(child(request_path, "expirationSeconds"), seconds,
                                        "may not specify a duration less than 10 minutes"))
        if seconds > 1 << 32:
            errors.append(invalid_error(child(request_path, "expirationSeconds"), seconds,
                                        "may not specify a duration larger than 2^32 seconds"))
    for mode in spec.get("volumeLifecycleModes") or ():
        if mode not in _LIFECYCLE_MODES:
            errors.append(not_supported_json(child(path, "volumeLifecycleModes"), mode, _LIFECYCLE_MODES))
    if spec.get("seLinuxMount") is None:  # SELinuxMountReadWriteOncePod is on
        errors.append(required_error(child(path, "seLinuxMount")))
    period = spec.get("nodeAllocatableUpdatePeriodSeconds")
    if period is not None and period < 10:
        errors.append(invalid_error(child(path, "nodeAllocatableUpdatePeriodSeconds"), period,
                                    "must be greater than or equal to 10 seconds"))
    in_secrets = spec.get("serviceAccountTokenInSecrets")
    if in_secrets is not None and not spec.get("tokenRequests"):
        errors.append(invalid_json(child(path, "serviceAccountTokenInSecrets"), in_secrets,
                                   "serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
    return errors


def validate_csi_driver(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], False, name_is_dns_subdomain)
    return errors + _validate_csi_driver_spec(obj.get("spec") or {})


def validate_csi_driver_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    errors += _validate_csi_driver_spec(new.get("spec") or {})
    errors += validate_immutable_field(get(new, "spec", "attachRequired"), get(old, "spec", "attachRequired"),
                                       "spec.attachedRequired")
    return errors + validate_immutable_field(get(new, "spec", "volumeLifecycleModes"),
                                             get(old, "spec", "volumeLifecycleModes"), "spec.volumeLifecycleModes")


def csi_driver_warnings_on_create(obj: Json) -> list[str]:
    spec = obj.get("spec") or {}
    if spec.get("tokenRequests") and spec.get("serviceAccountTokenInSecrets") is None:
        return [SERVICE_ACCOUNT_TOKEN_IN_SECRETS_WARNING]
    return []


def csi_driver_warnings_on_update(new: Json, old: Json) -> list[str]:
    if get(new, "spec", "tokenRequests") == get(old, "spec", "tokenRequests"):
        return []
    return csi_driver_warnings_on_create(new)


# ----------------------------------------------------------------------------- CSINodes

def _csi_node_driver_go(driver: Json) -> Json:
    """An internal ``storage.CSINodeDriver`` (without its allocatable, which may change) as
    ``json.Marshal`` prints it."""
    return {"Name": driver.get("name") or "", "NodeID": driver.get("nodeID") or "",
            "TopologyKeys": driver.get("topologyKeys"), "Allocatable": None}


def validate_csi_node(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], False, validate_node_name)
    names: set[str] = set()
    for i, driver in enumerate(items(obj.get("spec"), "drivers")):
        path = index("spec.drivers", i)
        name, node_id = driver.get("name") or "", driver.get("nodeID") or ""
        errors += validate_csi_driver_name(name, child(path, "name"))
        if not node_id:
            errors.append(required_error(child(path, "nodeID")))
        if len(node_id) > MAX_CSI_NODE_ID_LENGTH:
            errors.append(invalid_error(child(path, "nodeID"), node_id,
                                        f"must be {MAX_CSI_NODE_ID_LENGTH} characters or less"))
        count = get(driver, "allocatable", "count")
        if count is not None:
            errors += validate_nonnegative_field(count, child(path, "allocatable", "count"))
        if name in names:
            errors.append(duplicate_error(child(path, "name"), name))
        names.add(name)
        keys: set[str] = set()
        for topology_key in driver.get("topologyKeys") or ():
            if not topology_key:
                errors.append(required_error(path, ""))
            if topology_key in keys:
                errors.append(duplicate_error(path, topology_key))
            keys.add(topology_key)
            errors += [invalid_error(path, topology_key, m) for m in is_qualified_name(topology_key)]
    return errors


def validate_csi_node_update(new: Json, old: Json) -> list[FieldError]:
    """A driver's entry cannot change but for its allocatable count (MutableCSINodeAllocatableCount)."""
    errors = validate_csi_node(new) + validate_core_object_meta_update(new["metadata"], old["metadata"])
    for old_driver in items(old.get("spec"), "drivers"):
        for new_driver in items(new.get("spec"), "drivers"):
            if old_driver.get("name") == new_driver.get("name"):
                errors += validate_immutable_field(_csi_node_driver_go(new_driver), _csi_node_driver_go(old_driver),
                                                   "spec.drivers")
    return errors


# ----------------------------------------------------------------------------- VolumeAttachments

def _volume_attachment_spec_go(spec: Json) -> Json:
    """An internal ``storage.VolumeAttachmentSpec`` as ``json.Marshal`` prints it (an inline
    volume spec is printed as the client sent it)."""
    source = spec.get("source") or {}
    return {"Attacher": spec.get("attacher") or "",
            "Source": {"PersistentVolumeName": source.get("persistentVolumeName"),
                       "InlineVolumeSpec": source.get("inlineVolumeSpec")},
            "NodeName": spec.get("nodeName") or ""}


def _validate_volume_attachment(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], False, name_is_dns_subdomain)
    spec = obj.get("spec") or {}
    if not spec.get("attacher"):
        errors.append(required_error("spec.attacher"))
    source = spec.get("source") or {}
    inline, pv_name = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
    if inline is None and pv_name is None:
        errors.append(required_error("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
    elif inline is not None and pv_name is not None:
        errors.append(forbidden_error("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
    elif pv_name is not None and not pv_name:
        errors.append(required_error("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
    node_name = spec.get("nodeName") or ""
    errors += [invalid_error("spec.nodeName", node_name, m) for m in validate_node_name(node_name, False)]
    status = obj.get("status") or {}
    metadata = status.get("attachmentMetadata") or {}
    if sum(_byte_len(k) + _byte_len(v or "") for k, v in metadata.items()) > MAX_ATTACHMENT_METADATA_SIZE:
        errors.append(too_long_error("status.attachmentMetadata", MAX_ATTACHMENT_METADATA_SIZE))
    for name in ("attachError", "detachError"):
        error = status.get(name)
        if error is None:
            continue
        if len(error.get("message") or "") > MAX_VOLUME_ERROR_MESSAGE_SIZE:
            # upstream reports the metadata size as the limit
            errors.append(too_long_error(f"status.{name}.message", MAX_ATTACHMENT_METADATA_SIZE))
        code = error.get("errorCode")
        if code is not None and code < 0:
            errors.append(invalid_error(f"status.{name}.errorCode", code, inclusive_range_error(0, 2**31 - 1)))
    return errors


def validate_volume_attachment(obj: Json) -> list[FieldError]:
    """``ValidateVolumeAttachment`` and ``ValidateVolumeAttachmentV1``."""
    errors = _validate_volume_attachment(obj)
    errors += validate_csi_driver_name(get(obj, "spec", "attacher") or "", "spec.attacher")
    pv_name = get(obj, "spec", "source", "persistentVolumeName")
    if pv_name is not None:
        errors += [invalid_error("spec.source.persistentVolumeName", pv_name, m)
                   for m in name_is_dns_subdomain(pv_name, False)]
    return errors


def validate_volume_attachment_update(new: Json, old: Json) -> list[FieldError]:
    errors = _validate_volume_attachment(new)
    new_spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    if _volume_attachment_spec_go(new_spec) != _volume_attachment_spec_go(old_spec):
        errors.append(invalid_json("spec", _volume_attachment_spec_go(new_spec), FIELD_IMMUTABLE_ERROR_MSG))
    return errors


def validate_volume_attachment_status_update(new: Json, old: Json) -> list[FieldError]:
    """The status strategy's ``ValidateUpdate`` is the main one's."""
    return validate_volume_attachment_update(new, old)


# ----------------------------------------------------------------------------- CSIStorageCapacities

def _validate_csi_storage_capacity(obj: Json, options: LabelSelectorValidationOptions) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    errors += validate_label_selector(obj.get("nodeTopology"), options, "nodeTopology")
    class_name = obj.get("storageClassName") or ""
    errors += [invalid_error("storageClassName", class_name, m) for m in name_is_dns_subdomain(class_name, False)]
    if obj.get("capacity") is not None:
        errors += validate_nonnegative_quantity(obj["capacity"], "capacity")
    return errors


def validate_csi_storage_capacity(obj: Json) -> list[FieldError]:
    return _validate_csi_storage_capacity(obj, DEFAULT_LABEL_SELECTOR_OPTIONS)


def validate_csi_storage_capacity_update(new: Json, old: Json) -> list[FieldError]:
    options = LabelSelectorValidationOptions(
        allow_invalid_label_value_in_selector=label_selector_has_invalid_label_value(old.get("nodeTopology")))
    errors = _validate_csi_storage_capacity(new, options)
    errors += validate_core_object_meta_update(new["metadata"], old["metadata"])
    if new.get("nodeTopology") != old.get("nodeTopology"):
        errors.append(invalid_json("nodeTopology", selectors.go_json(new.get("nodeTopology")), FIELD_IMMUTABLE_ERROR_MSG))
    if new.get("storageClassName") != old.get("storageClassName"):
        errors.append(invalid_error("storageClassName", new.get("storageClassName") or "", FIELD_IMMUTABLE_ERROR_MSG))
    return errors


def csi_storage_capacity_warnings(obj: Json, old: Json | None = None) -> list[str]:
    """``GetWarningsForNodeSelector`` of the node topology."""
    topology = obj.get("nodeTopology")
    if not isinstance(topology, dict):
        return []
    warnings = []
    for i, expression in enumerate(items(topology, "matchExpressions")):
        label = expression.get("key") or ""
        if label in DEPRECATED_NODE_LABELS:
            warnings.append(f"nodeTopology.matchExpressions[{i}].key: {label} is {DEPRECATED_NODE_LABELS[label]}")
    for label in sorted(topology.get("matchLabels") or {}):
        if label in DEPRECATED_NODE_LABELS:
            warnings.append(f"nodeTopology.matchLabels.{label}: {DEPRECATED_NODE_LABELS[label]}")
    return warnings


def canonical_capacities(obj: Json) -> None:
    """Decoding a CSIStorageCapacity: its quantities in canonical form."""
    for name in ("capacity", "maximumVolumeSize"):
        if obj.get(name) is not None:
            obj[name] = quantity.canonical(obj[name])


# ----------------------------------------------------------------------------- VolumeAttributesClasses

def validate_volume_attributes_class(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], False, name_is_dns_subdomain)
    errors += _validate_provisioner(obj.get("driverName") or "", "driverName")
    return errors + _validate_parameters(obj.get("parameters"), False, "parameters")


def validate_volume_attributes_class_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    if new.get("driverName") != old.get("driverName"):
        errors.append(forbidden_error("driverName", "updates to driverName are forbidden."))
    if (new.get("parameters") or None) != (old.get("parameters") or None):
        errors.append(forbidden_error("parameters", "updates to parameters are forbidden."))
    return errors + validate_volume_attributes_class(new)
