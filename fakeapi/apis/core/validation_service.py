"""Validation of Services (kube's ``ValidateServiceCreate``, ``ValidateServiceUpdate``,
``ValidateServiceStatusUpdate``, ``ValidateServiceClusterIPsRelatedFields``), in Go's order."""

from __future__ import annotations

from typing import Any

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
    is_valid_port_num,
    key,
    name_is_dns1035_label,
    parse_ip_sloppy,
    validate_labels,
)
from ..fields import int_field, list_field, map_field, str_field
from .validation_cluster import validate_endpoint_ip
from .validation_common import (
    invalid_each,
    is_valid_ip,
    is_valid_ip_for_legacy_field_cidr,
    validate_core_object_meta,
    validate_core_object_meta_update,
    validate_dns1123_label,
    validate_port_num_or_name,
    validate_qualified_name,
)

Json = dict[str, Any]
_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_IP_FAMILIES = ("IPv4", "IPv6")
_IP_FAMILY_POLICIES = ("PreferDualStack", "RequireDualStack", "SingleStack")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
MAX_CLIENT_IP_AFFINITY_SECONDS = 86400
_TOPOLOGY_HINTS = "service.kubernetes.io/topology-aware-hints"
_TOPOLOGY_MODE = "service.kubernetes.io/topology-mode"
_SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges"
_TRAFFIC_DISTRIBUTIONS = ("PreferClose", "PreferSameZone", "PreferSameNode")


def is_headless(service: Json) -> bool:
    """``isHeadlessService``."""
    ips = list_field(map_field(service, "spec"), "clusterIPs")
    return len(ips) == 1 and ips[0] == "None"


def externally_accessible(spec: Json) -> bool:
    """``apiservice.ExternallyAccessible``."""
    kind = str_field(spec, "type")
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(list_field(spec, "externalIPs")))


def needs_health_check(spec: Json) -> bool:
    """``apiservice.NeedsHealthCheck``."""
    return str_field(spec, "type") == "LoadBalancer" and str_field(spec, "externalTrafficPolicy") == "Local"


def _ip_version(address: str) -> int | None:
    parsed = parse_ip_sloppy(address)
    return None if parsed is None else parsed.version


def validate_cluster_ips_related_fields(service: Json, old: Json | None) -> list[FieldError]:
    """``ValidateServiceClusterIPsRelatedFields``."""
    spec = map_field(service, "spec")
    if str_field(spec, "type") == "ExternalName":
        return []
    errors: list[FieldError] = []
    cluster_ip, cluster_ips = str_field(spec, "clusterIP"), list_field(spec, "clusterIPs")
    if cluster_ip:
        if not cluster_ips:
            errors.append(required_error("spec.clusterIPs"))
        elif cluster_ips[0] != cluster_ip:
            errors.append(invalid_json("spec.clusterIPs", cluster_ips, "first value must match `clusterIP`"))
    elif cluster_ips:
        errors.append(invalid_json("spec.clusterIPs", cluster_ips, "must be empty when `clusterIP` is not specified"))
    seen: set[str] = set()
    for i, family in enumerate(list_field(spec, "ipFamilies")):
        if family not in _IP_FAMILIES:
            errors.append(not_supported_error(index("spec.ipFamilies", i), family, _IP_FAMILIES))
        if family in seen:
            errors.append(duplicate_error(index("spec.ipFamilies", i), family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in _IP_FAMILY_POLICIES:
        errors.append(not_supported_error("spec.ipFamilyPolicy", policy, _IP_FAMILY_POLICIES))
    existing = list_field(map_field(old, "spec"), "clusterIPs") if old is not None else []
    invalid_ips = False
    for i, address in enumerate(cluster_ips):
        if i == 0 and address == "None":
            if len(cluster_ips) > 1:
                invalid_ips = True
                errors.append(invalid_json("spec.clusterIPs", cluster_ips, "'None' must be the first and only value"))
            continue
        address_errors = is_valid_ip(index("spec.clusterIPs", i), address, existing)
        invalid_ips = invalid_ips or bool(address_errors)
        errors += address_errors
    if len(cluster_ips) > 2:
        errors.append(invalid_json("spec.clusterIPs", cluster_ips, "may only hold up to 2 values"))
    if invalid_ips:
        return errors
    if len(cluster_ips) > 1 and {_ip_version(a) for a in cluster_ips[:2]} != {4, 6}:
        errors.append(invalid_json("spec.clusterIPs", cluster_ips, "may specify no more than one IP for each IP family"))
    families = list_field(spec, "ipFamilies")
    if not is_headless(service) and cluster_ips and families:
        for i, address in enumerate(cluster_ips[:len(families)]):
            version = _ip_version(address)
            if families[i] == "IPv4" and version == 6:
                errors.append(invalid_error(index("spec.clusterIPs", i), address,
                                            f"expected an IPv4 value as indicated by `ipFamilies[{i}]`"))
            if families[i] == "IPv6" and version != 6:
                errors.append(invalid_error(index("spec.clusterIPs", i), address,
                                            f"expected an IPv6 value as indicated by `ipFamilies[{i}]`"))
    return errors


def _validate_service_port(port: Json, require_name: bool, names: set[str], path: str) -> list[FieldError]:
    """``validateServicePort``."""
    errors: list[FieldError] = []
    name = str_field(port, "name")
    if require_name and not name:
        errors.append(required_error(child(path, "name")))
    elif name:
        errors += validate_dns1123_label(name, child(path, "name"))
        if name in names:
            errors.append(duplicate_error(child(path, "name"), name))
        else:
            names.add(name)
    number = int_field(port, "port")
    errors += invalid_each(child(path, "port"), number, is_valid_port_num(number))
    protocol = str_field(port, "protocol")
    if not protocol:
        errors.append(required_error(child(path, "protocol")))
    elif protocol not in _PROTOCOLS:
        errors.append(not_supported_error(child(path, "protocol"), protocol, _PROTOCOLS))
    errors += validate_port_num_or_name(port.get("targetPort", 0), child(path, "targetPort"))
    if port.get("appProtocol") is not None:
        errors += validate_qualified_name(port["appProtocol"], child(path, "appProtocol"))
    return errors


def _validate_service(service: Json, old: Json | None) -> list[FieldError]:
    """``validateService``."""
    meta, spec = map_field(service, "metadata"), map_field(service, "spec")
    annotations = map_field(meta, "annotations")
    errors: list[FieldError] = []
    if _TOPOLOGY_MODE in annotations and _TOPOLOGY_HINTS in annotations and \
            annotations[_TOPOLOGY_MODE] != annotations[_TOPOLOGY_HINTS]:
        errors.append(invalid_error(key("metadata.annotations", _TOPOLOGY_MODE), annotations[_TOPOLOGY_MODE],
                                    f"must match annotations[{_TOPOLOGY_HINTS}] when both are specified"))
    kind = str_field(spec, "type")
    ports = list_field(spec, "ports")
    headless = is_headless(service)
    if not ports and not headless and kind != "ExternalName":
        errors.append(required_error("spec.ports"))
    if kind == "LoadBalancer" and headless:
        errors.append(invalid_error("spec.clusterIPs[0]", "None", "may not be set to 'None' for LoadBalancer services"))
    elif kind == "NodePort" and headless:
        errors.append(invalid_error("spec.clusterIPs[0]", "None", "may not be set to 'None' for NodePort services"))
    elif kind == "ExternalName":
        if list_field(spec, "clusterIPs"):
            errors.append(forbidden_error("spec.clusterIPs", "may not be set for ExternalName services"))
        if list_field(spec, "ipFamilies"):
            errors.append(forbidden_error("spec.ipFamilies", "may not be set for ExternalName services"))
        if spec.get("ipFamilyPolicy") is not None:
            errors.append(forbidden_error("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
        cname = str_field(spec, "externalName").removesuffix(".")
        if cname:
            errors += invalid_each("spec.externalName", cname, is_dns1123_subdomain(cname))
        else:
            errors.append(required_error("spec.externalName"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        errors += _validate_service_port(port, len(ports) > 1, names, index("spec.ports", i))
    if spec.get("selector") is not None:
        errors += validate_labels(spec["selector"], "spec.selector")
    affinity = str_field(spec, "sessionAffinity")
    if not affinity:
        errors.append(required_error("spec.sessionAffinity"))
    elif affinity not in ("ClientIP", "None"):
        errors.append(not_supported_error("spec.sessionAffinity", affinity, ("ClientIP", "None")))
    config = spec.get("sessionAffinityConfig")
    if affinity == "ClientIP":
        reason = "when session affinity type is ClientIP"
        if config is None:
            errors.append(required_error("spec.sessionAffinityConfig", reason))
        elif config.get("clientIP") is None:
            errors.append(required_error("spec.sessionAffinityConfig.clientIP", reason))
        elif config["clientIP"].get("timeoutSeconds") is None:
            errors.append(required_error("spec.sessionAffinityConfig.clientIP.timeoutSeconds", reason))
        else:
            timeout = config["clientIP"]["timeoutSeconds"]
            if timeout <= 0 or timeout > MAX_CLIENT_IP_AFFINITY_SECONDS:
                errors.append(invalid_error("spec.sessionAffinityConfig.clientIP.timeoutSeconds", timeout,
                                            f"must be greater than 0 and less than {MAX_CLIENT_IP_AFFINITY_SECONDS}"))
    elif affinity == "None" and config is not None:
        errors.append(forbidden_error("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
    errors += validate_cluster_ips_related_fields(service, old)
    existing = list_field(map_field(old, "spec"), "externalIPs") if old is not None else []
    for i, address in enumerate(list_field(spec, "externalIPs")):
        address_errors = is_valid_ip(index("spec.externalIPs", i), address, existing)
        errors += address_errors or validate_endpoint_ip(address, index("spec.externalIPs", i))
    if not kind:
        errors.append(required_error("spec.type"))
    elif kind not in _SERVICE_TYPES:
        errors.append(not_supported_error("spec.type", kind, _SERVICE_TYPES))
    if kind == "ClusterIP":
        for i, port in enumerate(ports):
            if int_field(port, "nodePort"):
                errors.append(forbidden_error(child(index("spec.ports", i), "nodePort"),
                                              "may not be used when `type` is 'ClusterIP'"))
    node_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        node_port = int_field(port, "nodePort")
        if not node_port:
            continue
        node_key = (str_field(port, "protocol"), node_port)
        if node_key in node_ports:
            errors.append(duplicate_error(child(index("spec.ports", i), "nodePort"), node_port))
        node_ports.add(node_key)
    seen_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        port_key = (str_field(port, "protocol"), int_field(port, "port"))
        if port_key in seen_ports:
            # the internal core.ServicePort (no JSON tags) of the duplicate (protocol, port) key
            shown = {"Name": "", "Protocol": port_key[0], "AppProtocol": None, "Port": port_key[1], "TargetPort": 0,
                     "NodePort": 0}
            body = invalid_json("", shown, "")[2].replace("Invalid value", "Duplicate value", 1)
            errors.append((index("spec.ports", i), "FieldValueDuplicate", body))
        seen_ports.add(port_key)
    ranges = list_field(spec, "loadBalancerSourceRanges")
    if ranges:
        if kind != "LoadBalancer":
            errors.append(forbidden_error("spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"))
        old_ranges = [r.strip() for r in list_field(map_field(old, "spec"), "loadBalancerSourceRanges")] if old else []
        for i, value in enumerate(ranges):
            errors += is_valid_ip_for_legacy_field_cidr(index("spec.LoadBalancerSourceRanges", i), value.strip(),
                                                        old_ranges)
    elif _SOURCE_RANGES_ANNOTATION in annotations:
        path = key("metadata.annotations", _SOURCE_RANGES_ANNOTATION)
        value = annotations[_SOURCE_RANGES_ANNOTATION]
        if kind != "LoadBalancer":
            errors.append(forbidden_error(path, "may only be used when `type` is 'LoadBalancer'"))
        if old is None or map_field(map_field(old, "metadata"), "annotations").get(_SOURCE_RANGES_ANNOTATION) != value:
            value = value.strip()
            if value:
                for cidr in value.split(","):
                    errors += is_valid_ip_for_legacy_field_cidr(path, cidr.strip(), [])
    if spec.get("allocateLoadBalancerNodePorts") is not None and kind != "LoadBalancer":
        errors.append(forbidden_error("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"))
    if kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        errors.append(required_error("allocateLoadBalancerNodePorts"))
    errors += _validate_load_balancer_class(None, service)
    errors += _validate_external_traffic_policy(spec)
    policy = spec.get("internalTrafficPolicy")
    if policy is None and kind in ("NodePort", "LoadBalancer", "ClusterIP"):
        errors.append(required_error("spec.internalTrafficPolicy"))
    if policy is not None and policy not in ("Cluster", "Local"):
        errors.append(not_supported_error("spec.internalTrafficPolicy", policy, ("Cluster", "Local")))
    distribution = spec.get("trafficDistribution")
    if distribution is not None and distribution not in _TRAFFIC_DISTRIBUTIONS:
        errors.append(not_supported_error("spec.trafficDistribution", distribution, _TRAFFIC_DISTRIBUTIONS))
    return errors


def _validate_external_traffic_policy(spec: Json) -> list[FieldError]:
    """``validateServiceExternalTrafficPolicy``."""
    errors: list[FieldError] = []
    policy = str_field(spec, "externalTrafficPolicy")
    if not externally_accessible(spec):
        if policy:
            errors.append(invalid_error("spec.externalTrafficPolicy", policy,
                                        "may only be set for externally-accessible services"))
    elif not policy:
        errors.append(required_error("spec.externalTrafficPolicy"))
    elif policy not in ("Cluster", "Local"):
        errors.append(not_supported_error("spec.externalTrafficPolicy", policy, ("Cluster", "Local")))
    health_port = int_field(spec, "healthCheckNodePort")
    if not needs_health_check(spec):
        if health_port:
            errors.append(invalid_error("spec.healthCheckNodePort", health_port,
                                        "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` "
                                        "is 'Local'"))
    elif not health_port:
        errors.append(required_error("spec.healthCheckNodePort"))
    else:
        errors += invalid_each("spec.healthCheckNodePort", health_port, is_valid_port_num(health_port))
    return errors


def _validate_load_balancer_class(old: Json | None, service: Json) -> list[FieldError]:
    """``validateLoadBalancerClassField``."""
    spec = map_field(service, "spec")
    errors: list[FieldError] = []
    load_balancer = str_field(spec, "type") == "LoadBalancer"
    value = spec.get("loadBalancerClass")
    if old is not None and load_balancer and str_field(map_field(old, "spec"), "type") == "LoadBalancer" and \
            map_field(old, "spec").get("loadBalancerClass") != value:
        errors.append(invalid_error("spec.loadBalancerClass", value, "may not change once set") if value is not None
                      else invalid_json("spec.loadBalancerClass", None, "may not change once set"))
    if load_balancer:
        if value is not None:
            errors += validate_qualified_name(value, "spec.loadBalancerClass")
    elif value is not None:
        errors.append(forbidden_error("spec.loadBalancerClass", "may only be used when `type` is 'LoadBalancer'"))
    return errors


def validate_service_create(service: Json) -> list[FieldError]:
    """``ValidateServiceCreate``: a DNS-1035 label name."""
    errors = validate_core_object_meta(map_field(service, "metadata"), True, name_is_dns1035_label)
    return errors + _validate_service(service, None)


def _upgrade_downgrade_cluster_ips(old: Json, service: Json) -> list[FieldError]:
    """``validateUpgradeDowngradeClusterIPs``."""
    spec, old_spec = map_field(service, "spec"), map_field(old, "spec")
    if "ExternalName" in (str_field(spec, "type"), str_field(old_spec, "type")) or (
            is_headless(old) and is_headless(service)):
        return []
    errors: list[FieldError] = []
    ips, old_ips = list_field(spec, "clusterIPs"), list_field(old_spec, "clusterIPs")
    if len(old_ips) == len(ips):
        for i, address in enumerate(old_ips):
            if address != ips[i]:
                errors.append(invalid_json(index("spec.clusterIPs", i), ips, "may not change once set"))
    elif len(old_ips) > len(ips):
        if not ips:
            errors.append(invalid_json("spec.clusterIPs[0]", ips or None, "primary clusterIP can not be unset"))
        if old_ips and ips and ips[0] != old_ips[0]:
            errors.append(invalid_json("spec.clusterIPs[0]", ips, "may not change once set"))
        if len(ips) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            errors.append(_policy_error(spec, "must be set to 'SingleStack' when releasing the secondary clusterIP"))
    elif old_ips and ips[0] != old_ips[0]:
        errors.append(invalid_json("spec.clusterIPs[0]", ips, "may not change once set"))
    return errors


def _policy_error(spec: Json, detail: str) -> FieldError:
    policy = spec.get("ipFamilyPolicy")
    return invalid_error("spec.ipFamilyPolicy", policy, detail) if policy is not None else \
        invalid_json("spec.ipFamilyPolicy", None, detail)


def _upgrade_downgrade_ip_families(old: Json, service: Json) -> list[FieldError]:
    """``validateUpgradeDowngradeIPFamilies``."""
    spec, old_spec = map_field(service, "spec"), map_field(old, "spec")
    if "ExternalName" in (str_field(spec, "type"), str_field(old_spec, "type")):
        return []
    if is_headless(old) != is_headless(service) or is_headless(service):
        return []
    errors: list[FieldError] = []
    families, old_families = list_field(spec, "ipFamilies"), list_field(old_spec, "ipFamilies")
    ips = list_field(spec, "clusterIPs")
    if len(old_families) == len(families):
        for i, family in enumerate(old_families):
            if family != families[i]:
                errors.append(invalid_json("spec.ipFamilies[0]", families, "may not change once set"))
    elif len(old_families) > len(families):
        if not ips:
            errors.append(invalid_json("spec.ipFamilies[0]", families or None, "primary ipFamily can not be unset"))
        if families and families[0] != old_families[0]:
            errors.append(invalid_json("spec.ipFamilies[0]", ips or None, "may not change once set"))
        if len(families) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            errors.append(_policy_error(spec, "must be set to 'SingleStack' when releasing the secondary ipFamily"))
    elif old_families and families and families[0] != old_families[0]:
        errors.append(invalid_json("spec.ipFamilies[0]", ips or None, "may not change once set"))
    return errors


def validate_service_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateServiceUpdate``."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    errors += _upgrade_downgrade_cluster_ips(old, new)
    errors += _upgrade_downgrade_ip_families(old, new)
    errors += _validate_load_balancer_class(old, new)
    spec, old_spec = map_field(new, "spec"), map_field(old, "spec")
    if needs_health_check(old_spec) and needs_health_check(spec) and \
            int_field(spec, "healthCheckNodePort") != int_field(old_spec, "healthCheckNodePort"):
        errors.append(forbidden_error("spec.healthCheckNodePort", "field is immutable"))
    return errors + _validate_service(new, old)


def validate_service_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateServiceStatusUpdate``: the load balancer status."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    ingresses = list_field(map_field(map_field(new, "status"), "loadBalancer"), "ingress")
    path = "status.loadBalancer.ingress"
    if str_field(map_field(new, "spec"), "type") != "LoadBalancer" and ingresses:
        return errors + [forbidden_error(path, "may only be used when `spec.type` is 'LoadBalancer'")]
    existing = [str_field(i, "ip") for i in list_field(map_field(map_field(old, "status"), "loadBalancer"), "ingress")
                if str_field(i, "ip")]
    for i, ingress in enumerate(ingresses):
        ingress_path = index(path, i)
        address = str_field(ingress, "ip")
        if address:
            errors += is_valid_ip(child(ingress_path, "ip"), address, existing)
        mode = ingress.get("ipMode")
        if mode is None:
            if address:
                errors.append(required_error(child(ingress_path, "ipMode"), "must be specified when `ip` is set"))
        elif not address:
            errors.append(forbidden_error(child(ingress_path, "ipMode"), "may not be specified when `ip` is not set"))
        elif mode not in ("Proxy", "VIP"):
            errors.append(not_supported_error(child(ingress_path, "ipMode"), mode, ("Proxy", "VIP")))
        hostname = str_field(ingress, "hostname")
        if hostname:
            errors += invalid_each(child(ingress_path, "hostname"), hostname, is_dns1123_subdomain(hostname))
            if parse_ip_sloppy(hostname) is not None:
                errors.append(invalid_error(child(ingress_path, "hostname"), hostname,
                                            "must be a DNS name, not an IP address"))
    return errors
