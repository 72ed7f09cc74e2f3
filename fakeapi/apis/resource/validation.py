"""resource.k8s.io validation (kube's ``pkg/apis/resource/validation``), for the fields kube 1.35
serves by default: DeviceClasses, ResourceClaims (spec, the immutable spec, status reservations
and allocation results in outline), ResourceClaimTemplates and ResourceSlices.

Not ported: the compilation of CEL selectors (kube compiles them and checks their cost; here an
expression is only checked for presence and length), the fields of features off by default
(device taints and tolerations, partitionable devices, consumable capacity, binding conditions:
the strategies drop them first), allocation results' configs and device statuses' network data."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from ...machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
    too_long_error,
    too_many_error,
)
from ...machinery.validation import (
    child,
    index,
    invalid_json,
    is_c_identifier,
    name_is_dns_subdomain,
    validate_immutable_field,
    validate_object_meta_update,
)
from ..core.validation import validate_node_selector
from ..core.pod_spec_diff import internal_value
from ..core.validation_claims import validate_template_object_meta
from ..core.validation_common import (
    validate_core_object_meta,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_node_name,
)
from ..core.validation_volumes import validate_csi_driver_name
from ..fields import Json, get, values

_REQUESTS_MAX = 32
_CONSTRAINTS_MAX = 32
_CONFIG_MAX = 32
_FIRST_AVAILABLE_MAX = 8
_SELECTORS_MAX = 32
_CEL_MAX_LENGTH = 10 * 1024
_OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024
_POOL_NAME_MAX_LENGTH = 253
_SLICE_MAX_DEVICES = 128
_MAX_ATTRIBUTES_AND_CAPACITIES = 32
_DEVICE_MAX_DOMAIN_LENGTH = 63
_DEVICE_MAX_ID_LENGTH = 32
_ATTRIBUTE_MAX_VALUE_LENGTH = 64
_RESERVED_FOR_MAX = 256
_ALLOCATION_MODES = ("All", "ExactCount")
_REQUEST_REFERENCE = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
_SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                     r"(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
                     r"(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?")

Validator = Callable[[Any, str], list[FieldError]]



def _validate_slice(values: Sequence[Any], maximum: int, validate: Validator, path: str) -> list[FieldError]:
    """``validateSlice``: too many items short-circuits (DOS protection)."""
    if 0 <= maximum < len(values):
        return [too_many_error(path, len(values), maximum)]
    errors: list[FieldError] = []
    for i, value in enumerate(values):
        errors += validate(value, index(path, i))
    return errors


def _validate_set(values: Sequence[Any], maximum: int, validate: Validator, key: Callable[[Any], Any],
                  path: str) -> list[FieldError]:
    """``validateSet``: ``validateSlice``, then duplicates by key."""
    if 0 <= maximum < len(values):
        return [too_many_error(path, len(values), maximum)]
    errors = _validate_slice(values, -1, validate, path)
    seen: set[Any] = set()
    for i, value in enumerate(values):
        item_key = key(value)
        if item_key in seen:
            errors.append(duplicate_error(index(path, i), item_key))
        seen.add(item_key)
    return errors


def _name(item: Json) -> str:
    return item.get("name") or ""


# ----------------------------------------------------------------------------- claims

class _RequestNames:
    """``requestNames``: each request's subrequest names (None: a request without them)."""

    def __init__(self, devices: Json | None) -> None:
        self._names: dict[str, set[str] | None] = {}
        for request in values(devices, "requests"):
            sub_requests = values(request, "firstAvailable")
            self._names[_name(request)] = {_name(s) for s in sub_requests} if sub_requests else None

    def has(self, reference: str) -> bool:
        segments = reference.split("/")
        if len(segments) > 2 or segments[0] not in self._names:
            return False
        return len(segments) == 1 or segments[1] in (self._names[segments[0]] or ())


def _validate_request_reference(reference: str, path: str, names: _RequestNames) -> list[FieldError]:
    segments = reference.split("/")
    if len(segments) > 2:
        return [invalid_error(path, reference, _REQUEST_REFERENCE)]
    errors: list[FieldError] = []
    for segment in segments:
        errors += validate_dns1123_label(segment, path)
    if not names.has(reference):
        errors.append(invalid_error(path, reference, _REQUEST_REFERENCE))
    return errors


def _validate_selectors(selectors: Sequence[Json], path: str) -> list[FieldError]:
    def validate(selector: Json, selector_path: str) -> list[FieldError]:
        cel = selector.get("cel")
        if cel is None:
            return [required_error(child(selector_path, "cel"))]
        if len((cel.get("expression") or "").encode()) > _CEL_MAX_LENGTH:
            return [too_long_error(child(selector_path, "cel", "expression"), _CEL_MAX_LENGTH)]
        return []
    return _validate_slice(selectors, _SELECTORS_MAX, validate, path)


def _validate_allocation_mode(request: Json, path: str) -> list[FieldError]:
    mode, count = request.get("allocationMode") or "", request.get("count") or 0
    if mode == "All":
        if count != 0:
            return [invalid_error(child(path, "count"), count, "must not be specified when allocationMode is 'All'")]
    elif mode == "ExactCount":
        if count <= 0:
            return [invalid_error(child(path, "count"), count, "must be greater than zero")]
    else:
        return [not_supported_error(child(path, "allocationMode"), mode, _ALLOCATION_MODES)]
    return []


def _validate_device_class_reference(name: str, path: str) -> list[FieldError]:
    return [required_error(path)] if not name else validate_dns1123_subdomain(name, path)


def _validate_exact_request(request: Json, path: str) -> list[FieldError]:
    errors = _validate_device_class_reference(request.get("deviceClassName") or "", child(path, "deviceClassName"))
    errors += _validate_selectors(values(request, "selectors"), child(path, "selectors"))
    return errors + _validate_allocation_mode(request, path)


def _validate_sub_request(request: Json, path: str) -> list[FieldError]:
    return validate_dns1123_label(_name(request), child(path, "name")) + _validate_exact_request(request, path)


def _validate_request(request: Json, path: str) -> list[FieldError]:
    errors = validate_dns1123_label(_name(request), child(path, "name"))
    first_available, exactly = values(request, "firstAvailable"), request.get("exactly")
    if not first_available and exactly is None:
        errors.append(required_error(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif first_available and exactly is not None:
        errors.append(invalid_json(path, None, "exactly one of `exactly` or `firstAvailable` is required, "
                                               "but multiple fields are set"))
    elif first_available:
        errors += _validate_set(first_available, _FIRST_AVAILABLE_MAX, _validate_sub_request, _name,
                                child(path, "firstAvailable"))
    else:
        errors += _validate_exact_request(exactly, child(path, "exactly"))
    return errors


def _validate_qualified_name(name: str, path: str) -> list[FieldError]:
    """``validateQualifiedName`` of an attribute or capacity name (``domain/id`` or ``id``)."""
    parts = name.split("/")
    if len(parts) == 1:
        return _validate_c_identifier(parts[0], path)
    if len(parts) != 2:
        return []  # kube does not check names with more than one slash either
    domain, identifier = parts
    errors = [invalid_error(path, "", "the domain must not be empty")] if not domain \
        else validate_csi_driver_name(domain, path)
    errors += [invalid_error(path, "", "the name must not be empty")] if not identifier \
        else _validate_c_identifier(identifier, path)
    return errors


def _validate_c_identifier(identifier: str, path: str) -> list[FieldError]:
    errors = [too_long_error(path, _DEVICE_MAX_ID_LENGTH)] if len(identifier.encode()) > _DEVICE_MAX_ID_LENGTH else []
    return errors + [invalid_error(path, identifier, message) for message in is_c_identifier(identifier)]


def _validate_fully_qualified_name(name: str, path: str) -> list[FieldError]:
    errors = _validate_qualified_name(name, path)
    if "/" not in name:
        errors.append(invalid_error(path, name, "a fully qualified name must be a domain and a name separated by a slash"))
    return errors


def _validate_constraint(names: _RequestNames) -> Validator:
    def validate(constraint: Json, path: str) -> list[FieldError]:
        errors = _validate_set(values(constraint, "requests"), _REQUESTS_MAX,
                               lambda name, p: _validate_request_reference(name, p, names), str,
                               child(path, "requests"))
        if constraint.get("matchAttribute") is not None:
            errors += _validate_fully_qualified_name(constraint["matchAttribute"], child(path, "matchAttribute"))
        else:
            errors.append(required_error(child(path, "matchAttribute")))
        return errors
    return validate


def _validate_raw_parameters(parameters: Any, path: str) -> list[FieldError]:
    """``validateRawExtension`` of a decoded JSON value (absent: no bytes)."""
    if parameters is None:
        return [required_error(path)]
    if len(orjson.dumps(parameters)) > _OPAQUE_PARAMETERS_MAX_LENGTH:
        return [too_long_error(path, _OPAQUE_PARAMETERS_MAX_LENGTH)]
    if not isinstance(parameters, dict):
        return [invalid_error(path, "<value omitted>", "must be a valid JSON object")]
    return []


def _validate_device_configuration(config: Json, path: str) -> list[FieldError]:
    opaque = config.get("opaque")
    if opaque is None:
        return [required_error(child(path, "opaque"))]
    errors = validate_csi_driver_name(opaque.get("driver") or "", child(path, "opaque", "driver"))
    return errors + _validate_raw_parameters(opaque.get("parameters"), child(path, "opaque", "parameters"))


def _validate_claim_configuration(names: _RequestNames) -> Validator:
    def validate(config: Json, path: str) -> list[FieldError]:
        errors = _validate_set(values(config, "requests"), _REQUESTS_MAX,
                               lambda name, p: _validate_request_reference(name, p, names), str,
                               child(path, "requests"))
        return errors + _validate_device_configuration(config, path)
    return validate


def _validate_claim_spec(spec: Json | None, path: str) -> list[FieldError]:
    devices = get(spec, "devices") or {}
    devices_path = child(path, "devices")
    names = _RequestNames(devices)
    errors = _validate_set(values(devices, "requests"), _REQUESTS_MAX, _validate_request, _name,
                           child(devices_path, "requests"))
    errors += _validate_slice(values(devices, "constraints"), _CONSTRAINTS_MAX, _validate_constraint(names),
                              child(devices_path, "constraints"))
    return errors + _validate_slice(values(devices, "config"), _CONFIG_MAX, _validate_claim_configuration(names),
                                    child(devices_path, "config"))


def validate_resource_claim(claim: Json) -> list[FieldError]:
    errors = validate_core_object_meta(claim["metadata"], True, name_is_dns_subdomain)
    return errors + _validate_claim_spec(claim.get("spec"), "spec")


#: The internal claim spec types' fields (Go name, v1 name, element type: None for a value
#: printed as is, its zero value when absent), for ``json.Marshal`` of a changed spec.
_INTERNAL_FIELDS: dict[str, tuple[tuple[str, str, str | None, Any], ...]] = {
    "ResourceClaimSpec": (("Devices", "devices", "DeviceClaim", {}),),
    "DeviceClaim": (("Requests", "requests", "DeviceRequest", None), ("Constraints", "constraints", "DeviceConstraint", None),
                    ("Config", "config", "DeviceClaimConfiguration", None)),
    "DeviceRequest": (("Name", "name", None, ""), ("Exactly", "exactly", "ExactDeviceRequest", None),
                      ("FirstAvailable", "firstAvailable", "DeviceSubRequest", None)),
    "ExactDeviceRequest": (("DeviceClassName", "deviceClassName", None, ""),
                           ("Selectors", "selectors", "DeviceSelector", None),
                           ("AllocationMode", "allocationMode", None, ""), ("Count", "count", None, 0),
                           ("AdminAccess", "adminAccess", None, None),
                           ("Tolerations", "tolerations", "DeviceToleration", None),
                           ("Capacity", "capacity", "CapacityRequirements", None)),
    "DeviceSubRequest": (("Name", "name", None, ""), ("DeviceClassName", "deviceClassName", None, ""),
                         ("Selectors", "selectors", "DeviceSelector", None),
                         ("AllocationMode", "allocationMode", None, ""), ("Count", "count", None, 0),
                         ("Tolerations", "tolerations", "DeviceToleration", None),
                         ("Capacity", "capacity", "CapacityRequirements", None)),
    "CapacityRequirements": (("Requests", "requests", None, None),),
    "DeviceSelector": (("CEL", "cel", "CELDeviceSelector", None),),
    "CELDeviceSelector": (("Expression", "expression", None, ""),),
    "DeviceConstraint": (("Requests", "requests", None, None), ("MatchAttribute", "matchAttribute", None, None),
                         ("DistinctAttribute", "distinctAttribute", None, None)),
    # DeviceConfiguration is embedded: its field is promoted.
    "DeviceClaimConfiguration": (("Requests", "requests", None, None),
                                 ("Opaque", "opaque", "OpaqueDeviceConfiguration", None)),
    "OpaqueDeviceConfiguration": (("Driver", "driver", None, ""), ("Parameters", "parameters", None, None)),
    "DeviceToleration": (("Key", "key", None, ""), ("Operator", "operator", None, ""), ("Value", "value", None, ""),
                         ("Effect", "effect", None, ""), ("TolerationSeconds", "tolerationSeconds", None, None)),
}


def _internal(type_name: str, value: Any) -> Any:
    """A v1 value as the internal type ``type_name`` marshals (Go's field names, zero values)."""
    if value is None:
        return None
    if isinstance(value, list):
        return [_internal(type_name, item) for item in value]
    out = {}
    for go_name, v1_name, element, zero in _INTERNAL_FIELDS[type_name]:
        item = value.get(v1_name)
        if item is None:
            out[go_name] = _internal(element, zero) if element and zero is not None else zero
        else:
            out[go_name] = _internal(element, item) if element else item
    return out


def validate_resource_claim_update(new: Json, old: Json) -> list[FieldError]:
    """The spec is immutable: only that is checked."""
    errors = validate_core_object_meta(new["metadata"], True, name_is_dns_subdomain)
    errors += validate_object_meta_update(new["metadata"], old["metadata"])
    return errors + _validate_immutable_spec(new.get("spec") or {}, old.get("spec") or {}, "spec")


def _validate_immutable_spec(new: Json, old: Json, path: str) -> list[FieldError]:
    if new == old:
        return []
    return [invalid_json(path, _internal("ResourceClaimSpec", new), "field is immutable")]


def _validate_consumer(consumer: Json, path: str) -> list[FieldError]:
    return [required_error(child(path, name)) for name in ("resource", "name", "uid") if not consumer.get(name)]


def _validate_allocation_result(result: Json, path: str, names: _RequestNames) -> list[FieldError]:
    errors = _validate_request_reference(result.get("request") or "", child(path, "request"), names)
    errors += validate_csi_driver_name(result.get("driver") or "", child(path, "driver"))
    errors += _validate_pool_name(result.get("pool") or "", child(path, "pool"))
    return errors + validate_dns1123_label(result.get("device") or "", child(path, "device"))


def validate_resource_claim_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateResourceClaimStatusUpdate``: reservations, and a new allocation's results (an
    existing allocation may not change)."""
    errors = validate_object_meta_update(new["metadata"], old["metadata"])
    status, old_status = new.get("status") or {}, old.get("status") or {}
    reserved = values(status, "reservedFor")
    errors += _validate_set(reserved, _RESERVED_FOR_MAX, _validate_consumer, lambda c: c.get("uid") or "",
                            "status.reservedFor")
    allocation, old_allocation = status.get("allocation"), old_status.get("allocation")
    if reserved:
        if allocation is None:
            errors.append(forbidden_error("status.reservedFor", "may not be specified when `allocated` is not set"))
        elif new["metadata"].get("deletionTimestamp") and any(c not in values(old_status, "reservedFor") for c in reserved):
            errors.append(forbidden_error("status.reservedFor", "new entries may not be added while "
                                                                "`deallocationRequested` or `deletionTimestamp` are set"))
    if old_allocation is not None and allocation is not None:
        errors += validate_immutable_field(allocation, old_allocation, "status.allocation")
    elif allocation is not None:
        names = _RequestNames(get(new, "spec", "devices"))
        errors += _validate_slice(values(get(allocation, "devices"), "results"), _REQUESTS_MAX,
                                  lambda result, p: _validate_allocation_result(result, p, names),
                                  "status.allocation.devices.results")
        if allocation.get("nodeSelector") is not None:
            errors += validate_node_selector(allocation["nodeSelector"], False, "status.allocation.nodeSelector")
    return errors


def validate_resource_claim_template(template: Json) -> list[FieldError]:
    errors = validate_core_object_meta(template["metadata"], True, name_is_dns_subdomain)
    spec = template.get("spec") or {}
    errors += validate_template_object_meta(spec.get("metadata") or {}, "spec.metadata")
    return errors + _validate_claim_spec(spec.get("spec"), "spec.spec")


def validate_resource_claim_template_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_object_meta_update(new["metadata"], old["metadata"])
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    if spec == old_spec:
        return errors
    # ResourceClaimTemplateSpec embeds metav1.ObjectMeta (its fields promoted, with their JSON
    # tags), then the claim spec as the internal struct.
    printed = {**(spec.get("metadata") or {}), "Spec": _internal("ResourceClaimSpec", spec.get("spec") or {})}
    return errors + [invalid_json("spec", printed, "field is immutable")]


# ----------------------------------------------------------------------------- device classes

def _validate_device_class_spec(spec: Json) -> list[FieldError]:
    errors = _validate_selectors(values(spec, "selectors"), "spec.selectors")
    return errors + _validate_slice(values(spec, "config"), _CONFIG_MAX, _validate_device_configuration, "spec.config")


def validate_device_class(device_class: Json) -> list[FieldError]:
    errors = validate_core_object_meta(device_class["metadata"], False, name_is_dns_subdomain)
    return errors + _validate_device_class_spec(device_class.get("spec") or {})


def validate_device_class_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta(new["metadata"], False, name_is_dns_subdomain)
    errors += validate_object_meta_update(new["metadata"], old["metadata"])
    return errors + _validate_device_class_spec(new.get("spec") or {})


# ----------------------------------------------------------------------------- slices

def _validate_pool_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [required_error(path)]
    errors = [too_long_error(path, _POOL_NAME_MAX_LENGTH)] if len(name.encode()) > _POOL_NAME_MAX_LENGTH else []
    for part in name.split("/"):
        errors += validate_dns1123_subdomain(part, path)
    return errors


def _validate_attribute(attribute: Json, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    present = [name for name in ("bool", "int", "string", "version") if attribute.get(name) is not None]
    if "string" in present and len(attribute["string"].encode()) > _ATTRIBUTE_MAX_VALUE_LENGTH:
        errors.append(too_long_error(child(path, "string"), _ATTRIBUTE_MAX_VALUE_LENGTH))
    if "version" in present:
        version = attribute["version"]
        if not _SEMVER.fullmatch(version):
            errors.append(invalid_error(child(path, "version"), version, "must be a string compatible with semver.org spec 2.0.0"))
        if len(version.encode()) > _ATTRIBUTE_MAX_VALUE_LENGTH:
            errors.append(too_long_error(child(path, "version"), _ATTRIBUTE_MAX_VALUE_LENGTH))
    if not present:
        errors.append(invalid_error(path, "", "exactly one value must be specified"))
    elif len(present) > 1:
        errors.append(invalid_json(path, {"IntValue": attribute.get("int"), "BoolValue": attribute.get("bool"),
                                          "StringValue": attribute.get("string"),
                                          "VersionValue": attribute.get("version")},
                                   "exactly one value must be specified"))
    return errors


def _key_path(path: str, key: str) -> str:
    """``fldPath.Key`` of a key truncated as ``truncateIfTooLong`` does (attribute and capacity
    names: the longest valid one)."""
    limit = _DEVICE_MAX_DOMAIN_LENGTH + 1 + _DEVICE_MAX_ID_LENGTH
    if len(key) > limit:
        remaining = limit - 3
        key = key[:(remaining + 1) // 2] + "..." + key[len(key) - remaining // 2:]
    return f"{path}[{key}]"


def _validate_device(device: Json, path: str) -> list[FieldError]:
    errors = validate_dns1123_label(_name(device), child(path, "name"))
    attributes, capacity = device.get("attributes") or {}, device.get("capacity") or {}
    total = len(attributes) + len(capacity)
    if total > _MAX_ATTRIBUTES_AND_CAPACITIES:
        errors.append(invalid_error(path, total, "the total number of attributes and capacities must not exceed "
                                                 f"{_MAX_ATTRIBUTES_AND_CAPACITIES}"))
    for key, attribute in attributes.items():  # kube walks a Go map: errors of several keys come in any order
        key_path = _key_path(child(path, "attributes"), key)
        errors += _validate_qualified_name(key, key_path) + _validate_attribute(attribute, key_path)
    for key in capacity:
        errors += _validate_qualified_name(key, _key_path(child(path, "capacity"), key))
    return errors


def _validate_slice_spec(spec: Json, old_spec: Json | None) -> list[FieldError]:
    errors = validate_csi_driver_name(spec.get("driver") or "", "spec.driver")
    pool = spec.get("pool") or {}
    errors += _validate_pool_name(pool.get("name") or "", "spec.pool.name")
    if (pool.get("resourceSliceCount") or 0) <= 0:
        errors.append(invalid_error("spec.pool.resourceSliceCount", pool.get("resourceSliceCount") or 0,
                                    "must be greater than zero"))
    if (pool.get("generation") or 0) < 0:
        errors.append(invalid_error("spec.pool.generation", pool["generation"], "must be greater than or equal to zero"))
    if old_spec is not None:
        errors += validate_immutable_field(pool.get("name") or "", get(old_spec, "pool", "name") or "", "spec.pool.name")
        errors += validate_immutable_field(spec.get("driver") or "", old_spec.get("driver") or "", "spec.driver")
        errors += validate_immutable_field(spec.get("nodeName"), old_spec.get("nodeName"), "spec.nodeName")
    chosen = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        if node_name:
            chosen.append("`nodeName`")
            errors += [invalid_error("spec.nodeName", node_name, m) for m in validate_node_name(node_name, False)]
        else:
            errors.append(invalid_error("spec.nodeName", node_name, "must be either unset or set to a non-empty string"))
    selector = spec.get("nodeSelector")
    if selector is not None:
        chosen.append("`nodeSelector`")
        errors += validate_node_selector(selector, False, "spec.nodeSelector")
        terms = values(selector, "nodeSelectorTerms")
        if len(terms) != 1:
                errors.append(invalid_json("spec.nodeSelector.nodeSelectorTerms",
                                       internal_value("core.NodeSelectorTerm", terms) or None,
                                       "must have exactly one node selector term"))
    for name in ("allNodes", "perDeviceNodeSelection"):
        value = spec.get(name)
        if value is not None:
            if value:
                chosen.append(f"`{name}`")
            else:
                errors.append(invalid_error(f"spec.{name}", value, "must be either unset or set to true"))
    required = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
    if not chosen:
        errors.append(required_error("spec", required))
    elif len(chosen) > 1:
        errors.append(invalid_error("spec", "{" + ", ".join(chosen) + "}", required + ", but multiple fields are set"))
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        errors.append(invalid_error("spec", "", "only one of `sharedCounters` or `devices` is allowed"))
    return errors + _validate_set(values(spec, "devices"), _SLICE_MAX_DEVICES, _validate_device, _name, "spec.devices")


def validate_resource_slice(resource_slice: Json) -> list[FieldError]:
    errors = validate_core_object_meta(resource_slice["metadata"], False, name_is_dns_subdomain)
    return errors + _validate_slice_spec(resource_slice.get("spec") or {}, None)


def validate_resource_slice_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_object_meta_update(new["metadata"], old["metadata"])
    return errors + _validate_slice_spec(new.get("spec") or {}, old.get("spec") or {})
