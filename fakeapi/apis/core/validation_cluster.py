"""Validation of the core group's cluster and policy kinds: Namespaces, Nodes, Endpoints,
Events (core/v1), LimitRanges, ResourceQuotas (kube's ``pkg/apis/core/validation``), in Go's
order. Maps, which Go walks in random order, are walked in the JSON's order."""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any

from ...machinery import quantity as quantities
from ...machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
)
from ...machinery.validation import (
    child,
    index,
    invalid_json,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_cidr_for_legacy_field,
    is_valid_label_value,
    is_valid_port_num,
    key,
    name_is_dns_subdomain,
    parse_cidr_sloppy,
    parse_ip_sloppy,
    validate_label_name,
    validate_namespace_name,
)
from .. import features
from ..fields import int_field, list_field, map_field, str_field
from .validation import validate_taint_effect
from .validation_common import (
    invalid_each,
    is_overcommit_allowed,
    is_valid_ip,
    validate_container_resource_name,
    validate_core_object_meta,
    validate_core_object_meta_update,
    validate_dns1123_label,
    validate_finalizer_name_core,
    validate_node_name,
    validate_qualified_name,
    validate_resource_name,
    validate_resource_quantity_value,
)

Json = dict[str, Any]


# ----------------------------------------------------------------------------- namespaces

def validate_namespace(namespace: Json) -> list[FieldError]:
    """``ValidateNamespace``."""
    errors = validate_core_object_meta(map_field(namespace, "metadata"), False, validate_namespace_name)
    for finalizer in list_field(map_field(namespace, "spec"), "finalizers"):
        errors += validate_finalizer_name_core(finalizer, "spec.finalizers")
    return errors


def validate_namespace_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateNamespaceUpdate``."""
    return validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))


def validate_namespace_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateNamespaceStatusUpdate``: the phase follows the deletion timestamp."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    phase = str_field(map_field(new, "status"), "phase")
    if not map_field(new, "metadata").get("deletionTimestamp"):
        if phase != "Active":
            errors.append(invalid_error("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty"))
    elif phase != "Terminating":
        errors.append(invalid_error("status.Phase", phase,
                                    "may only be 'Terminating' if `deletionTimestamp` is not empty"))
    return errors


def validate_namespace_finalize_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateNamespaceFinalizeUpdate`` (``/finalize``)."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    for i, finalizer in enumerate(list_field(map_field(new, "spec"), "finalizers")):
        errors += validate_finalizer_name_core(finalizer, index("spec.finalizers", i))
    return errors


# ----------------------------------------------------------------------------- nodes

def _validate_node_taints(taints: list[Json], path: str) -> list[FieldError]:
    """``validateNodeTaints``."""
    errors: list[FieldError] = []
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(taints):
        taint_path = index(path, i)
        taint_key, effect = str_field(taint, "key"), str_field(taint, "effect")
        errors += validate_label_name(taint_key, child(taint_path, "key"))
        if messages := is_valid_label_value(str_field(taint, "value")):
            errors.append(invalid_error(child(taint_path, "value"), str_field(taint, "value"), ";".join(messages)))
        errors += validate_taint_effect(effect, False, child(taint_path, "effect"))
        if taint_key in seen.get(effect, ()):
            # The Duplicate's value is the internal core.Taint, printed as JSON (no json tags).
            shown = {"Key": taint_key, "Value": str_field(taint, "value"), "Effect": effect,
                     "TimeAdded": taint.get("timeAdded") or None}

            body = invalid_json(taint_path, shown, "")[2].replace("Invalid value", "Duplicate value", 1)
            errors.append((taint_path, "FieldValueDuplicate", f"{body}: taints must be unique by key and effect pair"))
            continue
        seen.setdefault(effect, set()).add(taint_key)
    return errors


def _validate_node_specific_annotations(annotations: Json, path: str) -> list[FieldError]:
    """``ValidateNodeSpecificAnnotations``: taints in the legacy annotation."""
    raw = annotations.get("scheduler.alpha.kubernetes.io/taints")
    if not raw:
        return []
    try:
        taints = json.loads(raw)
    except ValueError as err:
        return [invalid_error(path, "scheduler.alpha.kubernetes.io/taints", str(err))]
    if isinstance(taints, list) and taints:
        return _validate_node_taints(taints, child(path, "scheduler.alpha.kubernetes.io/taints"))
    return []


def _validate_node_resources(node: Json) -> list[FieldError]:
    """``ValidateNodeResources``."""
    errors: list[FieldError] = []
    status = map_field(node, "status")
    for which in ("capacity", "allocatable"):
        for name, value in map_field(status, which).items():
            errors += validate_resource_quantity_value(name, quantities.decode(value), f"status.{which}.{name}")
    return errors


_DECLARED_FEATURE = re.compile(r"[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*")


def _validate_declared_features(declared: list[str], path: str) -> list[FieldError]:
    """``validateNodeDeclaredFeatures``."""
    errors: list[FieldError] = []
    for i, feature in enumerate(declared):
        if len(feature) > 253:
            errors.append(invalid_error(index(path, i), feature,
                                        f'invalid feature name "{feature}": must be no more than 253 characters'))
        elif not _DECLARED_FEATURE.fullmatch(feature):
            errors.append(invalid_error(index(path, i), feature, (
                f'invalid feature name "{feature}": must start with an UpperCamelCase segment, with subsequent '
                "segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only "
                "alphanumeric characters and slashes")))
        if i + 1 < len(declared):
            following = declared[i + 1]
            if feature == following:
                errors.append(duplicate_error(index(path, i + 1), following))
            elif feature > following:
                errors.append(invalid_error(index(path, i + 1), following, "list must be sorted alphabetically"))
    return errors


def validate_node(node: Json) -> list[FieldError]:
    """``ValidateNode``."""
    meta, spec = map_field(node, "metadata"), map_field(node, "spec")
    errors = validate_core_object_meta(meta, False, validate_node_name)
    errors += _validate_node_specific_annotations(map_field(meta, "annotations"), "metadata.annotations")
    if list_field(spec, "taints"):
        errors += _validate_node_taints(spec["taints"], "metadata.taints")
    errors += _validate_node_resources(node)
    errors += _validate_declared_features(list_field(map_field(node, "status"), "declaredFeatures"),
                                          "status.declaredFeatures")
    cidrs = list_field(spec, "podCIDRs")
    for i, cidr in enumerate(cidrs):
        errors += is_valid_cidr_for_legacy_field(index("spec.podCIDRs", i), cidr,
                                                 features.enabled("StrictIPCIDRValidation"))
    if len(cidrs) > 1 and not _dual_stack_cidrs(cidrs):
        errors.append(invalid_json("spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family"))
    return errors


def _dual_stack_cidrs(cidrs: list[str]) -> bool:
    if len(cidrs) != 2:
        return False
    versions = set()
    for cidr in cidrs:
        parsed = parse_cidr_sloppy(cidr)
        if parsed is None:
            return False
        versions.add(parsed[1].version)
    return versions == {4, 6}


_NODE_POD_CIDR_MESSAGE = 'node updates may not change podCIDR except from "" to valid'


def validate_node_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateNodeUpdate``."""
    meta = map_field(new, "metadata")
    spec, old_spec = map_field(new, "spec"), map_field(old, "spec")
    errors = validate_core_object_meta_update(meta, map_field(old, "metadata"))
    errors += _validate_node_specific_annotations(map_field(meta, "annotations"), "metadata.annotations")
    errors += _validate_node_resources(new)
    errors += _validate_declared_features(list_field(map_field(new, "status"), "declaredFeatures"),
                                          "status.declaredFeatures")
    seen: list[Json] = []
    for i, address in enumerate(list_field(map_field(new, "status"), "addresses")):
        # internal core.NodeAddress
        shown = {"Type": str_field(address, "type"), "Address": str_field(address, "address")}
        if shown in seen:
            body = invalid_json("", shown, "")[2].replace("Invalid value", "Duplicate value", 1)
            errors.append((index("status.addresses", i), "FieldValueDuplicate", body))
        seen.append(shown)
    old_cidrs, cidrs = list_field(old_spec, "podCIDRs"), list_field(spec, "podCIDRs")
    if old_cidrs:
        if len(old_cidrs) != len(cidrs):
            errors.append(forbidden_error("spec.podCIDRs", _NODE_POD_CIDR_MESSAGE))
        else:
            errors += [forbidden_error("spec.podCIDRs", _NODE_POD_CIDR_MESSAGE)
                       for before, after in zip(old_cidrs, cidrs, strict=True) if before != after]
    if str_field(old_spec, "providerID") and str_field(old_spec, "providerID") != str_field(spec, "providerID"):
        errors.append(forbidden_error("spec.providerID", 'node updates may not change providerID except from "" to valid'))
    if list_field(spec, "taints"):
        errors += _validate_node_taints(spec["taints"], "metadata.taints")
    if str_field(spec, "externalID") != str_field(old_spec, "externalID"):
        errors.append(forbidden_error("spec.externalID", "may not be updated"))
    return errors


# ----------------------------------------------------------------------------- endpoints

def validate_endpoint_ip(address: str, path: str) -> list[FieldError]:
    """``ValidateEndpointIP``."""
    ip = parse_ip_sloppy(address)
    if ip is None:
        return [invalid_error(path, address, "must be a valid IP address")]
    errors = []
    if ip.is_unspecified:
        errors.append(invalid_error(path, address, f"may not be unspecified ({address})"))
    if ip.is_loopback:
        errors.append(invalid_error(path, address, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if ip in ipaddress.ip_network("169.254.0.0/16") or ip in ipaddress.ip_network("fe80::/10"):
        errors.append(invalid_error(path, address, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if ip in ipaddress.ip_network("224.0.0.0/24") or (ip.version == 6 and (int(ip) >> 112) & 0xff0f == 0xff02):
        errors.append(invalid_error(path, address, (
            "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")))
    return errors


def _validate_endpoint_address(address: Json, path: str) -> list[FieldError]:
    errors = is_valid_ip(child(path, "ip"), str_field(address, "ip"))
    if str_field(address, "hostname"):
        errors += validate_dns1123_label(address["hostname"], child(path, "hostname"))
    node_name = address.get("nodeName")
    if node_name is not None:
        errors += invalid_each(child(path, "nodeName"), node_name, validate_node_name(node_name, False))
    return errors + validate_endpoint_ip(str_field(address, "ip"), child(path, "ip"))


def _validate_endpoint_subsets(subsets: list[Json]) -> list[FieldError]:
    """``validateEndpointSubsets``."""
    errors: list[FieldError] = []
    for i, subset in enumerate(subsets):
        subset_path = index("subsets", i)
        if not list_field(subset, "addresses") and not list_field(subset, "notReadyAddresses"):
            errors.append(required_error(subset_path, "must specify `addresses` or `notReadyAddresses`"))
        for kind in ("addresses", "notReadyAddresses"):
            for j, address in enumerate(list_field(subset, kind)):
                errors += _validate_endpoint_address(address, index(child(subset_path, kind), j))
        ports = list_field(subset, "ports")
        for j, port in enumerate(ports):
            port_path = index(child(subset_path, "ports"), j)
            name = str_field(port, "name")
            if len(ports) > 1 and not name:
                errors.append(required_error(child(port_path, "name")))
            elif name:
                errors += validate_dns1123_label(name, child(port_path, "name"))
            number = int_field(port, "port")
            errors += invalid_each(child(port_path, "port"), number, is_valid_port_num(number))
            protocol = str_field(port, "protocol")
            if not protocol:
                errors.append(required_error(child(port_path, "protocol")))
            elif protocol not in ("SCTP", "TCP", "UDP"):
                errors.append(not_supported_error(child(port_path, "protocol"), protocol, ("SCTP", "TCP", "UDP")))
            if port.get("appProtocol") is not None:
                errors += validate_qualified_name(port["appProtocol"], child(port_path, "appProtocol"))
    return errors


def validate_endpoints(endpoints: Json, old: Json | None = None) -> list[FieldError]:
    """``ValidateEndpoints``: subsets a write leaves unchanged are not validated again."""
    errors = validate_core_object_meta(map_field(endpoints, "metadata"), True, name_is_dns_subdomain)
    subset_errors = _validate_endpoint_subsets(list_field(endpoints, "subsets"))
    if subset_errors and old is not None and list_field(old, "subsets") == list_field(endpoints, "subsets"):
        subset_errors = []
    return errors + subset_errors


def validate_endpoints_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateEndpointsUpdate``."""
    return validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata")) + \
        validate_endpoints(new, old)


# ----------------------------------------------------------------------------- events

def validate_event(event: Json) -> list[FieldError]:
    """``legacyValidateEvent`` for a core/v1 request (``ValidateEventCreate`` stops there)."""
    errors: list[FieldError] = []
    namespace = str_field(map_field(event, "metadata"), "namespace")
    involved_namespace = str_field(map_field(event, "involvedObject"), "namespace")
    if not event.get("eventTime"):
        if not involved_namespace:
            if namespace not in ("", "default"):
                errors.append(invalid_error("involvedObject.namespace", involved_namespace, "does not match event.namespace"))
        elif namespace != involved_namespace:
            errors.append(invalid_error("involvedObject.namespace", involved_namespace, "does not match event.namespace"))
    else:
        if not involved_namespace and namespace not in ("default", "kube-system"):
            errors.append(invalid_error("involvedObject.namespace", involved_namespace, "does not match event.namespace"))
        controller = str_field(event, "reportingComponent")
        if not controller:
            errors.append(required_error("reportingComponent"))
        errors += validate_qualified_name(controller, "reportingComponent")
        for name, limit in (("reportingInstance", 128), ("action", 128), ("reason", 128)):
            value = str_field(event, name)
            if not value:
                errors.append(required_error(name))
            if len(value.encode()) > limit:
                errors.append(invalid_error(name, "", f"can have at most {limit} characters"))
        if len(str_field(event, "message").encode()) > 1024:
            errors.append(invalid_error("message", "", "can have at most 1024 characters"))
    return errors + invalid_each("namespace", namespace, is_dns1123_subdomain(namespace))


def validate_event_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateEventUpdate`` for a core/v1 request: the legacy checks only."""
    return validate_event(new)


# ----------------------------------------------------------------------------- limit ranges

def _validate_limit_range_resource_name(limit_type: str, name: str, path: str) -> list[FieldError]:
    if limit_type in ("Pod", "Container"):
        return validate_container_resource_name(name, path)
    return validate_resource_name(name, path)


def validate_limit_range(limit_range: Json) -> list[FieldError]:
    """``ValidateLimitRange``."""
    errors = validate_core_object_meta(map_field(limit_range, "metadata"), True, name_is_dns_subdomain)
    types: set[str] = set()
    for i, item in enumerate(list_field(map_field(limit_range, "spec"), "limits")):
        item_path = index("spec.limits", i)
        limit_type = str_field(item, "type")
        type_errors = invalid_each(child(item_path, "type"), limit_type, _qualified_name_errors(limit_type))
        if not type_errors and "/" not in limit_type and limit_type not in ("Pod", "Container",
                                                                           "PersistentVolumeClaim"):
            type_errors = [invalid_error(child(item_path, "type"), limit_type,
                                         "must be a standard limit type or fully qualified")]
        errors += type_errors
        if limit_type in types:
            errors.append(duplicate_error(child(item_path, "type"), limit_type))
        types.add(limit_type)
        values: dict[str, dict[str, quantities.Quantity]] = {}
        keys: set[str] = set()
        for which in ("max", "min"):
            values[which] = {}
            for name, value in map_field(item, which).items():
                errors += _validate_limit_range_resource_name(limit_type, name, key(child(item_path, which), name))
                keys.add(name)
                values[which][name] = quantities.decode(value)
        for which in ("default", "defaultRequest"):
            values[which] = {}
            if limit_type == "Pod":
                if map_field(item, which):
                    errors.append(forbidden_error(child(item_path, which), "may not be specified when `type` is 'Pod'"))
                continue
            for name, value in map_field(item, which).items():
                errors += _validate_limit_range_resource_name(limit_type, name, key(child(item_path, which), name))
                keys.add(name)
                values[which][name] = quantities.decode(value)
        if limit_type == "PersistentVolumeClaim" and "storage" not in map_field(item, "min") and \
                "storage" not in map_field(item, "max"):
            errors.append(required_error(child(item_path, "limits"),
                                         "either minimum or maximum storage value is required, but neither was "
                                         "provided"))
        values["maxLimitRequestRatio"] = {}
        for name, value in map_field(item, "maxLimitRequestRatio").items():
            errors += _validate_limit_range_resource_name(limit_type, name,
                                                          key(child(item_path, "maxLimitRequestRatio"), name))
            keys.add(name)
            values["maxLimitRequestRatio"][name] = quantities.decode(value)
        for name in sorted(keys):
            errors += _limit_range_consistency(item_path, name, values)
    return errors


def _qualified_name_errors(value: str) -> list[str]:
    return is_qualified_name(value)


def _limit_range_consistency(path: str, name: str, values: dict[str, dict[str, quantities.Quantity]]) -> list[FieldError]:
    errors: list[FieldError] = []
    low, high = values["min"].get(name), values["max"].get(name)
    default, request = values["default"].get(name), values["defaultRequest"].get(name)
    ratio = values["maxLimitRequestRatio"].get(name)
    if low is not None and high is not None and low.cmp(high) > 0:
        errors.append(invalid_error(key(child(path, "min"), name), str(low), f"min value {low} is greater than max value {high}"))
    if request is not None and low is not None and low.cmp(request) > 0:
        errors.append(invalid_error(key(child(path, "defaultRequest"), name), str(request),
                                    f"min value {low} is greater than default request value {request}"))
    if request is not None and high is not None and request.cmp(high) > 0:
        errors.append(invalid_error(key(child(path, "defaultRequest"), name), str(request),
                                    f"default request value {request} is greater than max value {high}"))
    if request is not None and default is not None and request.cmp(default) > 0:
        errors.append(invalid_error(key(child(path, "defaultRequest"), name), str(request),
                                    f"default request value {request} is greater than default limit value {default}"))
    if default is not None and low is not None and low.cmp(default) > 0:
        errors.append(invalid_error(key(child(path, "default"), name), str(low),
                                    f"min value {low} is greater than default value {default}"))
    if default is not None and high is not None and default.cmp(high) > 0:
        errors.append(invalid_error(key(child(path, "default"), name), str(high),
                                    f"default value {default} is greater than max value {high}"))
    if ratio is not None and ratio.cmp_int(1) < 0:
        errors.append(invalid_error(key(child(path, "maxLimitRequestRatio"), name), str(ratio),
                                    f"ratio {ratio} is less than 1"))
    if ratio is not None and low is not None and high is not None:
        ratio_value = float(ratio.value())
        low_value, high_value = low.value(), high.value()
        limit_value = 2**63 // 1000
        if ratio.value() < limit_value and low_value < limit_value and high_value < limit_value:
            ratio_value = ratio.milli_value() / 1000
            low_value, high_value = low.milli_value(), high.milli_value()
        ratio_limit = high_value / low_value if low_value else float("inf")
        if ratio_value > ratio_limit:
            errors.append(invalid_error(key(child(path, "maxLimitRequestRatio"), name), str(ratio),
                                        f"ratio {ratio} is greater than max/min = {ratio_limit:f}"))
    if not is_overcommit_allowed(name) and default is not None and request is not None and default.cmp(request) != 0:
        errors.append(invalid_error(key(child(path, "defaultRequest"), name), str(request),
                                    f"default value {default} must equal to defaultRequest value {request} in {name}"))
    return errors


# ----------------------------------------------------------------------------- resource quotas

_QUOTA_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
                 "VolumeAttributesClass", "CrossNamespacePodAffinity")
_POD_COMPUTE = frozenset(("cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"))
_QUOTA_STANDARD = frozenset((
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas",
    "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports",
    "services.loadbalancers"))


def _is_standard_quota_resource(name: str) -> bool:
    return name in _QUOTA_STANDARD or name.startswith(("hugepages-", "requests.hugepages-"))


def _scope_valid_for(scope: str, name: str) -> bool:
    """``IsResourceQuotaScopeValidForResource``."""
    if scope in ("Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity"):
        return name == "pods" or name in _POD_COMPUTE
    if scope == "BestEffort":
        return name == "pods"
    if scope == "VolumeAttributesClass":
        return name in ("persistentvolumeclaims", "requests.storage")
    return True


def validate_resource_quota_resource_name(name: str, path: str) -> list[FieldError]:
    """``ValidateResourceQuotaResourceName``."""
    errors = validate_resource_name(name, path)
    if "/" not in name and not _is_standard_quota_resource(name):
        errors.append(invalid_error(path, name, "must be a standard resource for quota"))
    return errors


def _validate_quota_list(values: Json, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for name, value in values.items():
        errors += validate_resource_quota_resource_name(name, key(path, name))
        errors += validate_resource_quantity_value(name, quantities.decode(value), key(path, name))
    return errors


def _validate_resource_quota_spec(spec: Json) -> list[FieldError]:
    """``ValidateResourceQuotaSpec``."""
    hard = map_field(spec, "hard")
    errors = _validate_quota_list(hard, "spec.hard")
    scopes = list_field(spec, "scopes")
    if scopes:
        for scope in scopes:
            if scope not in _QUOTA_SCOPES:
                errors.append(invalid_json("spec.scopes", scopes, "unsupported scope"))
            for name in hard:
                if _is_standard_quota_resource(name) and not _scope_valid_for(scope, name):
                    errors.append(invalid_json("spec.scopes", scopes, "unsupported scope applied to resource"))
        if {"BestEffort", "NotBestEffort"} <= set(scopes) or {"Terminating", "NotTerminating"} <= set(scopes):
            errors.append(invalid_json("spec.scopes", scopes, "conflicting scopes"))
    selector = spec.get("scopeSelector")
    if selector is not None:
        path = "spec.scopeSelector.matchExpressions"
        names: set[str] = set()
        for requirement in list_field(selector, "matchExpressions"):
            scope, operator = str_field(requirement, "scopeName"), str_field(requirement, "operator")
            if scope not in _QUOTA_SCOPES:
                errors.append(invalid_error(child(path, "scopeName"), scope, "unsupported scope"))
            for name in hard:
                if _is_standard_quota_resource(name) and not _scope_valid_for(scope, name):
                    errors.append(invalid_json(path, selector, "unsupported scope applied to resource"))
            if scope in ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating",
                         "CrossNamespacePodAffinity") and operator != "Exists":
                errors.append(invalid_error(child(path, "operator"), operator, (
                    "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                    "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort "
                    "or ResourceQuotaScopeCrossNamespacePodAffinity")))
            values = list_field(requirement, "values")
            if operator in ("In", "NotIn"):
                if not values:
                    errors.append(required_error(child(path, "values"), (
                        "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector")))
            elif operator in ("Exists", "DoesNotExist"):
                if values:
                    errors.append(invalid_json(child(path, "values"), values, (
                        "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector")))
            else:
                errors.append(invalid_error(child(path, "operator"), operator, "not a valid selector operator"))
            names.add(scope)
        if {"BestEffort", "NotBestEffort"} <= names or {"Terminating", "NotTerminating"} <= names:
            errors.append(invalid_json(path, scopes or None, "conflicting scopes"))
    return errors


def validate_resource_quota(quota: Json) -> list[FieldError]:
    """``ValidateResourceQuota``."""
    errors = validate_core_object_meta(map_field(quota, "metadata"), True, name_is_dns_subdomain)
    errors += _validate_resource_quota_spec(map_field(quota, "spec"))
    status = map_field(quota, "status")
    return errors + _validate_quota_list(map_field(status, "hard"), "status.hard") + \
        _validate_quota_list(map_field(status, "used"), "status.used")


def validate_resource_quota_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateResourceQuotaUpdate``: the scopes never change."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    errors += _validate_resource_quota_spec(map_field(new, "spec"))
    scopes, old_scopes = list_field(map_field(new, "spec"), "scopes"), list_field(map_field(old, "spec"), "scopes")
    if set(scopes) != set(old_scopes):
        errors.append(invalid_json("spec.scopes", scopes or None, "field is immutable"))
    return errors


def validate_resource_quota_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateResourceQuotaStatusUpdate``."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    if not str_field(map_field(new, "metadata"), "resourceVersion"):
        errors.append(required_error("resourceVersion"))
    status = map_field(new, "status")
    return errors + _validate_quota_list(map_field(status, "hard"), "status.hard") + \
        _validate_quota_list(map_field(status, "used"), "status.used")

