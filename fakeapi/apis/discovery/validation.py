"""EndpointSlice validation (``pkg/apis/discovery/validation/validation.go``) and the strategy's
warnings (``pkg/registry/discovery/endpointslice/strategy.go``)."""

from __future__ import annotations

from ...machinery.status import FieldError, duplicate_error, invalid_error, required_error, too_many_error
from ...machinery.validation import (
    child,
    index,
    is_dns1123_label,
    is_fully_qualified_domain_name,
    is_qualified_name,
    is_valid_ip,
    is_valid_label_value,
    key,
    name_is_dns_subdomain,
    parse_ip_sloppy,
    validate_immutable_field,
    validate_labels,
    warnings_for_ip,
)
from ..core.validation_cluster import validate_endpoint_ip
from ..core.validation_common import is_valid_ip as is_valid_legacy_ip, validate_core_object_meta, validate_node_name
from ..errors import not_supported_json
from ..fields import Json, items

_ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
MAX_TOPOLOGY_LABELS = 16
MAX_ADDRESSES = 100
MAX_PORTS = 20000
MAX_ENDPOINTS = 1000
MAX_ZONE_HINTS = 8
MAX_NODE_HINTS = 8
#: ``corev1.LabelTopologyZone``: kept out of deprecatedTopology by conversion.
ZONE_LABEL = "topology.kubernetes.io/zone"
#: ``discoveryv1.LabelManagedBy`` values of kube's own controllers, whose IPs are not checked.
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
_KUBE_CONTROLLERS = ("endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io")


def _dns_label(value: str, path: str) -> list[FieldError]:
    return [invalid_error(path, value, m) for m in is_dns1123_label(value)]


def _validate_addresses(endpoint: Json, address_type: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    addresses = endpoint.get("addresses") or []
    if not addresses:
        errors.append(required_error(path, "must contain at least 1 address"))
    elif len(addresses) > MAX_ADDRESSES:
        errors.append(too_many_error(path, len(addresses), MAX_ADDRESSES))
    for i, address in enumerate(addresses):
        address_path = index(path, i)
        if address_type in ("IPv4", "IPv6"):
            problems = is_valid_legacy_ip(address_path, address) if address_type == "IPv4" \
                else is_valid_ip(address_path, address)
            if problems:
                errors += problems
                continue
            parsed = parse_ip_sloppy(address)
            if parsed is not None and (parsed.version == 4) != (address_type == "IPv4"):
                errors.append(invalid_error(path, address, f"must be an {address_type} address"))
            errors += validate_endpoint_ip(address, address_path)
        elif address_type == "FQDN":
            errors += is_fully_qualified_domain_name(address_path, address)
    return errors


def _validate_hints(hints: Json, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for which, limit, check in (("forZones", MAX_ZONE_HINTS, is_valid_label_value),
                                ("forNodes", MAX_NODE_HINTS, lambda name: validate_node_name(name, False))):
        hints_path = child(path, which)
        entries = items(hints, which)
        if len(entries) > limit:
            return errors + [too_many_error(hints_path, len(entries), limit)]
        seen: list[str] = []
        for i, entry in enumerate(entries):
            name_path = child(index(hints_path, i), "name")
            name = entry.get("name") or ""
            if name in seen:
                errors.append(duplicate_error(name_path, name))
            else:
                seen.append(name)
            errors += [invalid_error(name_path, name, m) for m in check(name)]
    return errors


def _validate_endpoints(obj: Json) -> list[FieldError]:
    endpoints = items(obj, "endpoints")
    if len(endpoints) > MAX_ENDPOINTS:
        return [too_many_error("endpoints", len(endpoints), MAX_ENDPOINTS)]
    errors: list[FieldError] = []
    address_type = obj.get("addressType") or ""
    for i, endpoint in enumerate(endpoints):
        path = index("endpoints", i)
        errors += _validate_addresses(endpoint, address_type, child(path, "addresses"))
        node_name = endpoint.get("nodeName")
        if node_name is not None:
            errors += [invalid_error(child(path, "nodeName"), node_name, m) for m in validate_node_name(node_name, False)]
        topology = endpoint.get("deprecatedTopology") or {}
        topology_path = child(path, "deprecatedTopology")
        if len(topology) > MAX_TOPOLOGY_LABELS:
            errors.append(too_many_error(topology_path, len(topology), MAX_TOPOLOGY_LABELS))
        errors += validate_labels(topology, topology_path)
        if ZONE_LABEL in topology:
            errors.append((key(topology_path, ZONE_LABEL), "InternalError",
                           "Internal error: reserved key was not removed in conversion"))
        if endpoint.get("hostname") is not None:
            errors += _dns_label(endpoint["hostname"], child(path, "hostname"))
        if endpoint.get("hints") is not None:
            errors += _validate_hints(endpoint["hints"], child(path, "hints"))
    return errors


def _validate_ports(obj: Json) -> list[FieldError]:
    ports = items(obj, "ports")
    if len(ports) > MAX_PORTS:
        return [too_many_error("ports", len(ports), MAX_PORTS)]
    errors: list[FieldError] = []
    names: list[str] = []
    for i, port in enumerate(ports):
        path = index("ports", i)
        name = port.get("name") or ""
        if name:
            errors += _dns_label(name, child(path, "name"))
        if name in names:
            errors.append(duplicate_error(child(path, "name"), name))
        else:
            names.append(name)
        protocol = port.get("protocol")
        if protocol is None:
            errors.append(required_error(child(path, "protocol")))
        elif protocol not in _PROTOCOLS:
            errors.append(not_supported_json(child(path, "protocol"), protocol, _PROTOCOLS))
        app_protocol = port.get("appProtocol")
        if app_protocol is not None:
            errors += [invalid_error(child(path, "appProtocol"), app_protocol, m) for m in is_qualified_name(app_protocol)]
    return errors


def _validate(obj: Json, old: Json | None) -> list[FieldError]:
    """``ValidateEndpointSlice``: endpoints the stored slice already had are not refused."""
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    address_type = obj.get("addressType") or ""
    if not address_type:
        errors.append(required_error("addressType"))
    elif address_type not in _ADDRESS_TYPES:
        errors.append(not_supported_json("addressType", address_type, _ADDRESS_TYPES))
    errors += _validate_ports(obj)
    endpoint_errors = _validate_endpoints(obj)
    if endpoint_errors and old is not None and (old.get("endpoints") or []) == (obj.get("endpoints") or []):
        endpoint_errors = []
    return errors + endpoint_errors


def validate_endpoint_slice(obj: Json) -> list[FieldError]:
    return _validate(obj, None)


def validate_endpoint_slice_update(new: Json, old: Json) -> list[FieldError]:
    return _validate(new, old) + validate_immutable_field(new.get("addressType") or "", old.get("addressType") or "",
                                                          "addressType")


def _ip_warnings(obj: Json) -> list[str]:
    """``warnOnBadIPs``: not for the slices of kube's own controllers."""
    if (obj["metadata"].get("labels") or {}).get(MANAGED_BY_LABEL) in _KUBE_CONTROLLERS:
        return []
    warnings = []
    for i, endpoint in enumerate(items(obj, "endpoints")):
        for j, address in enumerate(endpoint.get("addresses") or ()):
            warnings += warnings_for_ip(f"endpoints[{i}].addresses[{j}]", address)
    return warnings


def warnings_on_create(obj: Json) -> list[str]:
    warnings = ["spec.addressType: FQDN endpoints are deprecated"] if obj.get("addressType") == "FQDN" else []
    return warnings + _ip_warnings(obj)


def warnings_on_update(new: Json, old: Json) -> list[str]:
    return _ip_warnings(new)
