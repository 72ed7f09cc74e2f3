"""networking.k8s.io/v1 validation (``pkg/apis/networking/validation/validation.go``) and the
strategies' warnings (``pkg/registry/networking/*/strategy.go``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...machinery.golang import go_quote
from ...machinery.path import is_valid_path_segment_name
from ...machinery.status import (
    FieldError,
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
    index,
    invalid_json,
    is_dns1123_subdomain,
    is_domain_prefixed_path,
    is_valid_cidr,
    is_valid_cidr_for_legacy_field,
    is_valid_ip,
    is_valid_port_name,
    is_valid_port_num,
    is_wildcard_dns1123_subdomain,
    name_is_dns1035_label,
    name_is_dns_label,
    name_is_dns_subdomain,
    parse_cidr_sloppy,
    parse_ip_sloppy,
    validate_immutable_field,
    validate_label_selector,
)
from .. import features
from ..core.strategy import warnings_for_cidr
from ..core.validation_common import (
    is_valid_ip as is_valid_legacy_ip,
    validate_core_object_meta,
    validate_core_object_meta_update,
)
from ..errors import not_supported_json
from ..fields import Json, get, items

INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
MAX_INGRESS_CLASS_CONTROLLER_LENGTH = 250
_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
_INVALID_PATH_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_INVALID_PATH_SUFFIXES = ("/..", "/.")
_PARAMETER_SCOPES = ("Cluster", "Namespace")
_PROTOCOLS = ("TCP", "UDP", "SCTP")
_POLICY_TYPES = ("Ingress", "Egress")


def _each(path: str, value: str, messages: Sequence[str]) -> list[FieldError]:
    return [invalid_error(path, value, message) for message in messages]


def _strict_cidrs() -> bool:
    return features.enabled("StrictIPCIDRValidation")


# ----------------------------------------------------------------------------- NetworkPolicies

def _validate_port(port: Json, path: str) -> list[FieldError]:
    """``ValidateNetworkPolicyPort``."""
    errors: list[FieldError] = []
    protocol = port.get("protocol")
    if protocol is not None and protocol not in _PROTOCOLS:
        errors.append(not_supported_json(child(path, "protocol"), protocol, _PROTOCOLS))
    number, end_port = port.get("port"), port.get("endPort")
    if number is None:
        if end_port is not None:
            errors.append(invalid_error(child(path, "endPort"), end_port, "may not be specified when `port` is not specified"))
    elif isinstance(number, int):
        errors += _each(child(path, "port"), number, is_valid_port_num(number))
        if end_port is not None:
            if end_port < number:
                errors.append(invalid_error(child(path, "endPort"), number, "must be greater than or equal to `port`"))
            errors += _each(child(path, "endPort"), end_port, is_valid_port_num(end_port))
    else:
        if end_port is not None:
            errors.append(invalid_error(child(path, "endPort"), end_port, "may not be specified when `port` is non-numeric"))
        errors += _each(child(path, "port"), number, is_valid_port_name(number))
    return errors


def _validate_ip_block(block: Json, path: str, existing: Sequence[str]) -> list[FieldError]:
    """``ValidateIPBlock``: CIDRs that the stored policy already had are not checked again."""
    cidr = block.get("cidr") or ""
    if not cidr:
        return [required_error(child(path, "cidr"))]
    errors = is_valid_cidr_for_legacy_field(child(path, "cidr"), cidr, _strict_cidrs(), existing)
    parsed = parse_cidr_sloppy(cidr)
    if parsed is None:
        return errors
    network = parsed[1]
    for i, except_cidr in enumerate(block.get("except") or ()):
        except_path = index(child(path, "except"), i)
        errors += is_valid_cidr_for_legacy_field(except_path, except_cidr, _strict_cidrs(), existing)
        except_parsed = parse_cidr_sloppy(except_cidr)
        if except_parsed is None:
            continue
        except_address, except_network = except_parsed
        # Go's Contains of a mixed-family address is false; so is Python's ``in``
        contained = except_address.version == network.version and except_address in network
        if not contained or network.prefixlen >= except_network.prefixlen:
            errors.append(invalid_error(except_path, except_cidr, "must be a strict subset of `cidr`"))
    return errors


def _validate_peer(peer: Json, path: str, selector_options: LabelSelectorValidationOptions,
                   existing: Sequence[str]) -> list[FieldError]:
    """``ValidateNetworkPolicyPeer``."""
    errors: list[FieldError] = []
    count = 0
    for name in ("podSelector", "namespaceSelector"):
        if peer.get(name) is not None:
            count += 1
            errors += validate_label_selector(peer[name], selector_options, child(path, name))
    if peer.get("ipBlock") is not None:
        count += 1
        errors += _validate_ip_block(peer["ipBlock"], child(path, "ipBlock"), existing)
    if count == 0:
        errors.append(required_error(path, "must specify a peer"))
    elif count > 1 and peer.get("ipBlock") is not None:
        errors.append(forbidden_error(path, "may not specify both ipBlock and another peer"))
    return errors


def _validate_network_policy_spec(spec: Json, selector_options: LabelSelectorValidationOptions,
                                  existing: Sequence[str]) -> list[FieldError]:
    path = "spec"
    errors = validate_label_selector(spec.get("podSelector") or {}, selector_options, child(path, "podSelector"))
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(items(spec, direction)):
            rule_path = index(child(path, direction), i)
            for j, port in enumerate(items(rule, "ports")):
                errors += _validate_port(port, index(child(rule_path, "ports"), j))
            for j, peer in enumerate(items(rule, peers)):
                errors += _validate_peer(peer, index(child(rule_path, peers), j), selector_options, existing)
    policy_types = spec.get("policyTypes") or []
    if len(policy_types) > len(_POLICY_TYPES):
        return errors + [invalid_json(child(path, "policyTypes"), policy_types, "may not specify more than two policyTypes")]
    for i, kind in enumerate(policy_types):
        if kind not in _POLICY_TYPES:
            errors.append(not_supported_json(index(child(path, "policyTypes"), i), kind, _POLICY_TYPES))
    return errors


def _ip_block_cidrs(obj: Json) -> list[str]:
    """Every CIDR of the policy's ipBlocks (``ValidateNetworkPolicyUpdate``'s allowance)."""
    cidrs = []
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for rule in items(obj.get("spec"), direction):
            for peer in items(rule, peers):
                block = peer.get("ipBlock")
                if isinstance(block, dict):
                    cidrs += [block.get("cidr") or "", *(block.get("except") or ())]
    return cidrs


def validate_network_policy(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    return errors + _validate_network_policy_spec(obj.get("spec") or {}, DEFAULT_LABEL_SELECTOR_OPTIONS, ())


def validate_network_policy_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateNetworkPolicy`` then ``ValidateNetworkPolicyUpdate``: an invalid stored pod
    selector allows invalid label values; stored CIDRs stay allowed."""
    old_selector_invalid = bool(validate_label_selector(get(old, "spec", "podSelector") or {},
                                                        DEFAULT_LABEL_SELECTOR_OPTIONS, ""))
    options = LabelSelectorValidationOptions(allow_invalid_label_value_in_selector=old_selector_invalid)
    spec = new.get("spec") or {}
    errors = validate_core_object_meta(new["metadata"], True, name_is_dns_subdomain)
    errors += _validate_network_policy_spec(spec, options, ())
    errors += validate_core_object_meta_update(new["metadata"], old["metadata"])
    return errors + _validate_network_policy_spec(spec, options, _ip_block_cidrs(old))


def network_policy_warnings(obj: Json, old: Json | None = None) -> list[str]:
    """``networkPolicyWarnings``: ambiguous and non-canonical CIDRs."""
    warnings = []
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(items(obj.get("spec"), direction)):
            for j, peer in enumerate(items(rule, peers)):
                block = peer.get("ipBlock")
                if not isinstance(block, dict):
                    continue
                path = f"spec.{direction}[{i}].{peers}[{j}].ipBlock"
                warnings += warnings_for_cidr(f"{path}.cidr", block.get("cidr") or "")
                for k, except_cidr in enumerate(block.get("except") or ()):
                    warnings += warnings_for_cidr(f"{path}.except[{k}]", except_cidr)
    return warnings


# ----------------------------------------------------------------------------- Ingresses

@dataclass(frozen=True, slots=True)
class IngressOptions:
    """``IngressValidationOptions``."""

    allow_invalid_secret_name: bool = False
    allow_invalid_wildcard_host_rule: bool = False
    allow_relaxed_service_name: bool = False


def _validate_typed_local_object_reference(ref: Json | None, path: str) -> list[FieldError]:
    if ref is None:
        return []
    errors: list[FieldError] = []
    if ref.get("apiGroup") is not None:
        errors += _each(child(path, "apiGroup"), ref["apiGroup"], is_dns1123_subdomain(ref["apiGroup"]))
    for name in ("kind", "name"):
        value = ref.get(name) or ""
        if not value:
            errors.append(required_error(child(path, name)))
        else:
            errors += _each(child(path, name), value, is_valid_path_segment_name(value))
    return errors


def _validate_backend(backend: Json, path: str, options: IngressOptions) -> list[FieldError]:
    """``validateIngressBackend``."""
    resource, service = backend.get("resource"), backend.get("service")
    if resource is not None and service is not None:
        return [invalid_error(path, "", "cannot set both resource and service backends")]
    if resource is not None:
        return _validate_typed_local_object_reference(resource, child(path, "resource"))
    if service is None:
        return [invalid_error(path, "", "resource or service backend is required")]
    errors: list[FieldError] = []
    name = service.get("name") or ""
    if not name:
        errors.append(required_error(child(path, "service", "name")))
    else:
        name_rule: Callable[[str, bool], list[str]] = name_is_dns_label if options.allow_relaxed_service_name \
            else name_is_dns1035_label
        errors += _each(child(path, "service", "name"), name, name_rule(name, False))
    port = service.get("port") or {}
    port_name, port_number = port.get("name") or "", port.get("number") or 0
    if port_name and port_number:
        errors.append(invalid_error(path, "", "cannot set both port name & port number"))
    elif port_name:
        errors += _each(child(path, "service", "port", "name"), port_name, is_valid_port_name(port_name))
    elif port_number:
        errors += _each(child(path, "service", "port", "number"), port_number, is_valid_port_num(port_number))
    else:
        errors.append(required_error(path, "port name or number is required"))
    return errors


def _validate_http_path(http_path: Json, path: str, options: IngressOptions) -> list[FieldError]:
    """``validateHTTPIngressPath``."""
    kind = http_path.get("pathType")
    if kind is None:
        return [required_error(child(path, "pathType"), "pathType must be specified")]
    errors: list[FieldError] = []
    value = http_path.get("path") or ""
    value_path = child(path, "path")
    if kind in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errors.append(invalid_error(value_path, value, "must be an absolute path"))
        if value:
            errors += [invalid_error(value_path, value, f"must not contain '{sequence}'")
                       for sequence in _INVALID_PATH_SEQUENCES if sequence in value]
            errors += [invalid_error(value_path, value, f"cannot end with '{suffix}'")
                       for suffix in _INVALID_PATH_SUFFIXES if value.endswith(suffix)]
    elif kind == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errors.append(invalid_error(value_path, value, "must be an absolute path"))
    else:
        errors.append(not_supported_json(child(path, "pathType"), kind, _PATH_TYPES))
    return errors + _validate_backend(http_path.get("backend") or {}, child(path, "backend"), options)


def _validate_rule_value(rule: Json, path: str, options: IngressOptions) -> list[FieldError]:
    """``validateIngressRuleValue``."""
    http = rule.get("http")
    if http is None:
        return []
    http_path = child(path, "http")
    errors: list[FieldError] = []
    if not http.get("paths"):
        errors.append(required_error(child(http_path, "paths")))
    for i, each in enumerate(items(http, "paths")):
        errors += _validate_http_path(each, index(child(http_path, "paths"), i), options)
    return errors


def _validate_ingress_spec(spec: Json, options: IngressOptions) -> list[FieldError]:
    """``ValidateIngressSpec``."""
    path = "spec"
    errors: list[FieldError] = []
    rules = spec.get("rules") or []
    if not rules and spec.get("defaultBackend") is None:
        errors.append(invalid_json(path, spec.get("rules"), "either `defaultBackend` or `rules` must be specified"))
    if spec.get("defaultBackend") is not None:
        errors += _validate_backend(spec["defaultBackend"], child(path, "defaultBackend"), options)
    for i, rule in enumerate(items(spec, "rules")):
        rule_path = index(child(path, "rules"), i)
        host = rule.get("host") or ""
        wildcard = False
        if host:
            if parse_ip_sloppy(host) is not None:
                errors.append(invalid_error(child(rule_path, "host"), host, "must be a DNS name, not an IP address"))
            if "*" in host:
                errors += _each(child(rule_path, "host"), host, is_wildcard_dns1123_subdomain(host))
                wildcard = True
            else:
                errors += _each(child(rule_path, "host"), host, is_dns1123_subdomain(host))
        if not wildcard or not options.allow_invalid_wildcard_host_rule:
            errors += _validate_rule_value(rule, rule_path, options)
    for i, tls in enumerate(items(spec, "tls")):
        tls_path = index(child(path, "tls"), i)
        for j, host in enumerate(tls.get("hosts") or ()):
            check = is_wildcard_dns1123_subdomain if "*" in host else is_dns1123_subdomain
            errors += _each(index(child(tls_path, "hosts"), j), host, check(host))
        secret = tls.get("secretName") or ""
        if not options.allow_invalid_secret_name and secret:
            errors += _each(child(tls_path, "secretName"), secret, name_is_dns_subdomain(secret, False))
    class_name = spec.get("ingressClassName")
    if class_name is not None:
        errors += _each(child(path, "ingressClassName"), class_name, name_is_dns_subdomain(class_name, False))
    return errors


def _relaxed_service_name(name: str) -> bool:
    """A name valid as a DNS label but not as a DNS-1035 label (starting with a digit)."""
    return not name_is_dns_label(name, False) and bool(name_is_dns1035_label(name, False))


def _ingress_options(old: Json | None) -> IngressOptions:
    """``allowInvalidSecretName``, ``allowInvalidWildcardHostRule``,
    ``allowRelaxedServiceNameValidation`` (RelaxedServiceNameValidation is off in 1.35)."""
    if old is None:
        return IngressOptions()
    spec = old.get("spec") or {}
    invalid_secret = any(tls.get("secretName") and name_is_dns_subdomain(tls["secretName"], False)
                         for tls in items(spec, "tls"))
    invalid_wildcard = any("*" in (rule.get("host") or "") and _validate_rule_value(rule, "", IngressOptions())
                           for rule in items(spec, "rules"))
    names = [get(spec, "defaultBackend", "service", "name") or ""]
    names += [get(each, "backend", "service", "name") or "" for rule in items(spec, "rules")
              for each in items(rule.get("http"), "paths")]
    return IngressOptions(invalid_secret, invalid_wildcard, any(_relaxed_service_name(n) for n in names if n))


def _validate_ingress(obj: Json, options: IngressOptions) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    return errors + _validate_ingress_spec(obj.get("spec") or {}, options)


def validate_ingress(obj: Json) -> list[FieldError]:
    """``ValidateIngressCreate``: the class annotation and field must agree."""
    errors = _validate_ingress(obj, IngressOptions())
    annotation = (obj["metadata"].get("annotations") or {}).get(INGRESS_CLASS_ANNOTATION)
    class_name = get(obj, "spec", "ingressClassName")
    if annotation is not None and class_name is not None and annotation != class_name:
        errors.append(invalid_error(f"annotations.{INGRESS_CLASS_ANNOTATION}", annotation,
                                    "must match `ingressClassName` when both are specified"))
    return errors


def validate_ingress_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    return errors + _validate_ingress(new, _ingress_options(old))


def validate_ingress_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateIngressStatusUpdate``: the load balancer's IPs (stored ones are allowed) and
    hostnames."""
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    existing = [each["ip"] for each in items(get(old, "status", "loadBalancer"), "ingress") if each.get("ip")]
    for i, each in enumerate(items(get(new, "status", "loadBalancer"), "ingress")):
        path = f"status.loadBalancer.ingress[{i}]"
        if each.get("ip"):
            errors += is_valid_legacy_ip(child(path, "ip"), each["ip"], existing)
        hostname = each.get("hostname") or ""
        if hostname:
            errors += _each(child(path, "hostname"), hostname, is_dns1123_subdomain(hostname))
            if parse_ip_sloppy(hostname) is not None:
                errors.append(invalid_error(child(path, "hostname"), hostname, "must be a DNS name, not an IP address"))
    return errors


def ingress_warnings_on_create(obj: Json) -> list[str]:
    annotations = obj["metadata"].get("annotations") or {}
    if INGRESS_CLASS_ANNOTATION in annotations and get(obj, "spec", "ingressClassName") is None:
        return [f'annotation "{INGRESS_CLASS_ANNOTATION}" is deprecated, please use \'spec.ingressClassName\' instead']
    return []


# ----------------------------------------------------------------------------- IngressClasses

def _validate_ingress_class(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], False, name_is_dns_subdomain)
    spec = obj.get("spec") or {}
    controller = spec.get("controller") or ""
    if len(controller) > MAX_INGRESS_CLASS_CONTROLLER_LENGTH:
        errors.append(too_long_error("spec.controller", MAX_INGRESS_CLASS_CONTROLLER_LENGTH))
    errors += is_domain_prefixed_path("spec.controller", controller)
    parameters = spec.get("parameters")
    if parameters is None:
        return errors
    path = "spec.parameters"
    errors += _validate_typed_local_object_reference(
        {k: parameters.get(k) for k in ("apiGroup", "kind", "name")}, path)
    scope = parameters.get("scope")
    if scope is None:
        return errors + [required_error(child(path, "scope"))]
    if scope not in _PARAMETER_SCOPES:
        return errors + [not_supported_json(child(path, "scope"), scope, _PARAMETER_SCOPES)]
    namespace = parameters.get("namespace")
    if scope == "Namespace":
        if namespace is None:
            errors.append(required_error(child(path, "namespace"), "`parameters.scope` is set to 'Namespace'"))
        else:
            errors += _each(child(path, "namespace"), namespace, name_is_dns_label(namespace, False))
    elif namespace is not None:
        errors.append(forbidden_error(child(path, "namespace"), "`parameters.scope` is set to 'Cluster'"))
    return errors


def validate_ingress_class(obj: Json) -> list[FieldError]:
    return _validate_ingress_class(obj)


def validate_ingress_class_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    errors += validate_immutable_field(get(new, "spec", "controller") or "", get(old, "spec", "controller") or "",
                                       "spec.controller")
    return errors + _validate_ingress_class(new)


# ----------------------------------------------------------------------------- IPAddresses

def _ip_address_name(name: str, _prefix: bool) -> list[str]:
    """``ValidateIPAddressName``: the name is an IP address in canonical form (the details of
    ``IsValidIP``'s errors)."""
    shown = f"Invalid value: {go_quote(name)}: "
    return [body[len(shown):] for _field, _type, body in is_valid_ip("", name)]


def _validate_ip_address(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], False, _ip_address_name)
    ref = get(obj, "spec", "parentRef")
    if ref is None:
        return errors + [required_error("spec.parentRef")]
    path = "spec.parentRef"
    group = ref.get("group") or ""
    if group:
        errors += _each(child(path, "group"), group, is_dns1123_subdomain(group))
    for name in ("resource", "name"):
        value = ref.get(name) or ""
        if not value:
            errors.append(required_error(child(path, name)))
        else:
            errors += _each(child(path, name), value, is_valid_path_segment_name(value))
    namespace = ref.get("namespace") or ""
    if namespace:
        errors += _each(child(path, "namespace"), namespace, is_valid_path_segment_name(namespace))
    return errors


def _parent_ref_go(ref: Json | None) -> Json | None:
    """An internal ``networking.ParentReference`` as ``json.Marshal`` prints it."""
    if ref is None:
        return None
    return {"Group": ref.get("group") or "", "Resource": ref.get("resource") or "",
            "Namespace": ref.get("namespace") or "", "Name": ref.get("name") or ""}


def validate_ip_address(obj: Json) -> list[FieldError]:
    return _validate_ip_address(obj)


def validate_ip_address_update(new: Json, old: Json) -> list[FieldError]:
    errors = _validate_ip_address(new)
    errors += validate_core_object_meta_update(new["metadata"], old["metadata"])
    return errors + validate_immutable_field(_parent_ref_go(get(new, "spec", "parentRef")),
                                             _parent_ref_go(get(old, "spec", "parentRef")), "spec.parentRef")


# ----------------------------------------------------------------------------- ServiceCIDRs

def _family(cidr: str) -> int | None:
    parsed = parse_cidr_sloppy(cidr)
    return None if parsed is None else parsed[1].version


def _validate_service_cidr_spec(spec: Json) -> list[FieldError]:
    path = "spec.cidrs"
    cidrs = spec.get("cidrs") or []
    if not cidrs:
        return [required_error(path, "at least one CIDR required")]
    if len(cidrs) > 2:
        return [invalid_json(path, {"CIDRs": cidrs}, "may only hold up to 2 values")]
    errors: list[FieldError] = []
    for i, cidr in enumerate(cidrs):
        errors += is_valid_cidr(index(path, i), cidr)
    if len(cidrs) == 2 and _family(cidrs[0]) == _family(cidrs[1]) and _family(cidrs[0]) is not None:
        errors.append(invalid_json(path, cidrs, (
            "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64")))
    return errors


def validate_service_cidr(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], False, name_is_dns_subdomain)
    return errors + _validate_service_cidr_spec(obj.get("spec") or {})


def validate_service_cidr_update(new: Json, old: Json) -> list[FieldError]:
    """The CIDRs cannot change, but a single-stack range can become dual-stack."""
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    new_cidrs, old_cidrs = get(new, "spec", "cidrs") or [], get(old, "spec", "cidrs") or []
    if len(old_cidrs) == len(new_cidrs):
        for i, cidr in enumerate(old_cidrs):
            if cidr != new_cidrs[i]:
                errors.append(invalid_error(f"spec.cidrs[{i}]", new_cidrs[i], FIELD_IMMUTABLE_ERROR_MSG))
    elif len(old_cidrs) == 1 and len(new_cidrs) == 2:
        if new_cidrs[0] != old_cidrs[0]:
            errors.append(invalid_error("spec.cidrs[0]", new_cidrs[0], FIELD_IMMUTABLE_ERROR_MSG))
        errors += _validate_service_cidr_spec(new.get("spec") or {})
    else:
        errors.append(invalid_json("spec.cidrs", new_cidrs or None, FIELD_IMMUTABLE_ERROR_MSG))
    return errors


def validate_service_cidr_status_update(new: Json, old: Json) -> list[FieldError]:
    return validate_core_object_meta_update(new["metadata"], old["metadata"])
