"""What the core group's validation files share (kube's ``pkg/apis/core/validation`` is one
package, split here by kind): the core kinds' name rules; DNS-label, DNS-subdomain and qualified
name checks as field errors; core's ObjectMeta checks (apimachinery's plus the legacy finalizer
names); the legacy-field IP checks; ``PodValidationOptions``, which pods, pod templates and the
volumes in them are validated with; the image pull policy and port checks of containers, image
volumes and services; resource names and quantities. Other groups' validation uses them as
kube's uses core's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...machinery import quantity as quantities
from ...machinery.status import FieldError, invalid_error, not_supported_error, required_error
from ...machinery.validation import (
    STANDARD_FINALIZERS,
    child,
    index,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_cidr_for_legacy_field,
    is_valid_ip_for_legacy_field,
    is_valid_port_name,
    is_valid_port_num,
    name_is_dns_subdomain,
    validate_finalizer_name,
    validate_object_meta,
    validate_object_meta_update,
)
from .. import features
from ..fields import Json, list_field

IS_NOT_INTEGER_ERROR = "must be an integer"

# Name rules of the core kinds (``ValidatePodName``, ...).
validate_pod_name = name_is_dns_subdomain
validate_node_name = name_is_dns_subdomain
validate_secret_name = name_is_dns_subdomain
validate_config_map_name = name_is_dns_subdomain
validate_class_name = name_is_dns_subdomain
validate_priority_class_name = name_is_dns_subdomain
validate_persistent_volume_name = name_is_dns_subdomain


def invalid_each(path: str, value: Any, messages: Sequence[str]) -> list[FieldError]:
    return [invalid_error(path, value, message) for message in messages]


def validate_dns1123_label(value: str, path: str) -> list[FieldError]:
    """``ValidateDNS1123Label``."""
    return invalid_each(path, value, is_dns1123_label(value))


def validate_dns1123_subdomain(value: str, path: str) -> list[FieldError]:
    """``ValidateDNS1123Subdomain``."""
    return invalid_each(path, value, is_dns1123_subdomain(value))


def validate_qualified_name(value: str, path: str) -> list[FieldError]:
    """``ValidateQualifiedName``."""
    return invalid_each(path, value, is_qualified_name(value))


def validate_kube_finalizer_name(name: str, path: str) -> list[FieldError]:
    """``validateKubeFinalizerName``: a name without ``/`` must be a standard one."""
    if "/" not in name and name not in STANDARD_FINALIZERS:
        return [invalid_error(path, name, "name is neither a standard finalizer name nor is it fully qualified")]
    return []


def validate_finalizer_name_core(name: str, path: str) -> list[FieldError]:
    """Core's ``validateFinalizerName``: a qualified name, and a standard one without ``/``."""
    return validate_finalizer_name(name, path) + validate_kube_finalizer_name(name, path)


def validate_core_object_meta(meta: Json, namespaced: bool, name_fn: Any, path: str = "metadata") -> list[FieldError]:
    """Core's ``ValidateObjectMeta``: apimachinery's, plus the legacy finalizer names."""
    errors = validate_object_meta(meta, namespaced, name_fn, path)
    for i, finalizer in enumerate(list_field(meta, "finalizers")):
        errors += validate_kube_finalizer_name(finalizer, index(child(path, "finalizers"), i))
    return errors


def validate_core_object_meta_update(new: Json, old: Json, path: str = "metadata") -> list[FieldError]:
    """Core's ``ValidateObjectMetaUpdate``."""
    errors = validate_object_meta_update(new, old, path)
    for i, finalizer in enumerate(list_field(new, "finalizers")):
        errors += validate_kube_finalizer_name(finalizer, index(child(path, "finalizers"), i))
    return errors


def is_valid_ip(path: str, value: str, valid_old: Sequence[str] = ()) -> list[FieldError]:
    """Core's ``IsValidIPForLegacyField`` (strict only with StrictIPCIDRValidation)."""
    return is_valid_ip_for_legacy_field(path, value, features.enabled("StrictIPCIDRValidation"), valid_old)


def is_valid_ip_for_legacy_field_cidr(path: str, value: str, valid_old: Sequence[str] = ()) -> list[FieldError]:
    """Core's ``IsValidCIDRForLegacyField``."""
    return is_valid_cidr_for_legacy_field(path, value, features.enabled("StrictIPCIDRValidation"), valid_old)


# ----------------------------------------------------------------------------- options

@dataclass(frozen=True, slots=True)
class PodValidationOptions:
    """``PodValidationOptions``: what a pod (or template) validation allows, decided from the
    feature gates and, on update, from what the old object already had."""

    allow_invalid_pod_deletion_cost: bool = False
    allow_invalid_label_value_in_selector: bool = False
    allow_indivisible_huge_pages_values: bool = False
    allow_invalid_topology_spread_constraint_label_selector: bool = False
    allow_non_local_projected_token_path: bool = False
    allow_namespaced_sysctls_for_host_net_and_host_ipc: bool = False
    resource_is_pod: bool = False
    allow_relaxed_environment_variable_validation: bool = True
    allow_relaxed_dns_search_validation: bool = True
    allow_pod_lifecycle_sleep_action_zero_value: bool = True
    allow_only_recursive_selinux_change_policy: bool = False
    pod_level_resources_enabled: bool = True
    allow_sidecar_resize_policy: bool = True
    allow_invalid_label_value_in_required_node_affinity: bool = False
    allow_match_label_keys_in_pod_topology_spread: bool = True
    allow_match_label_keys_in_pod_topology_spread_selector_merge: bool = True
    old_pod_violates_match_label_keys_validation: bool = False
    allow_env_files_validation: bool = True
    allow_container_restart_policy_rules: bool = True
    allow_user_namespaces_with_volume_devices: bool = False
    allow_taint_toleration_comparison_operators: bool = False
    allow_user_namespaces_host_network_support: bool = False
    allow_restart_all_containers: bool = False


# ----------------------------------------------------------------------------- containers

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")


def validate_pull_policy(policy: str, path: str) -> list[FieldError]:
    """``validatePullPolicy``."""
    if policy in _PULL_POLICIES:
        return []
    if not policy:
        return [required_error(path)]
    return [not_supported_error(path, policy, _PULL_POLICIES)]


def validate_port_num_or_name(port: Any, path: str) -> list[FieldError]:
    """``ValidatePortNumOrName`` of an IntOrString."""
    if isinstance(port, str):
        return invalid_each(path, port, is_valid_port_name(port))
    number = port if isinstance(port, int) else 0
    return invalid_each(path, number, is_valid_port_num(number))


# ----------------------------------------------------------------------------- resources

_STANDARD_RESOURCES = frozenset((
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"))
_INTEGER_RESOURCES = frozenset(("pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
                                "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"))


def is_huge_page_resource(name: str) -> bool:
    return name.startswith("hugepages-")


def is_native_resource(name: str) -> bool:
    """``helper.IsNativeResource``."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    """``helper.IsExtendedResourceName``."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def is_overcommit_allowed(name: str) -> bool:
    """``helper.IsOvercommitAllowed``."""
    return is_native_resource(name) and not is_huge_page_resource(name)


def is_standard_resource(name: str) -> bool:
    return name in _STANDARD_RESOURCES or name.startswith(("hugepages-", "requests.hugepages-"))


def validate_resource_name(name: str, path: str) -> list[FieldError]:
    """``validateResourceName``."""
    errors = invalid_each(path, name, is_qualified_name(name))
    if errors:
        return errors
    if "/" not in name and not is_standard_resource(name):
        return [invalid_error(path, name, "must be a standard resource type or fully qualified")]
    return []


def validate_container_resource_name(name: str, path: str) -> list[FieldError]:
    """``validateContainerResourceName``."""
    errors = validate_resource_name(name, path)
    if "/" not in name:
        if name not in ("cpu", "memory", "ephemeral-storage") and not is_huge_page_resource(name):
            errors.append(invalid_error(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource(name):
        errors.append(invalid_error(path, name, "doesn't follow extended resource name standard"))
    return errors


def validate_resource_quantity_value(name: str, value: quantities.Quantity, path: str) -> list[FieldError]:
    """``ValidateResourceQuantityValue``: not negative; whole for integer resources."""
    errors = []
    if value.sign() < 0:
        errors.append(invalid_error(path, str(value), "must be greater than or equal to 0"))
    if (name in _INTEGER_RESOURCES or is_extended_resource(name)) and value.milli_value() % 1000:
        errors.append(invalid_error(path, str(value), IS_NOT_INTEGER_ERROR))
    return errors
