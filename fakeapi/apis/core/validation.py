"""Validation of the core group's pods and pod templates: kube's ``pkg/apis/core/validation``
(``ValidatePodCreate``, ``ValidatePodUpdate``, ``ValidatePodStatusUpdate``,
``ValidatePodTemplateSpec``, ``ValidatePodSpec`` and everything under them but the volumes,
which are ``validation_volumes``'), in Go's order so errors come out in kube's order.

kube validates its internal types, converted from v1; here the v1 JSON is read directly, with
the internal type's zero values for absent fields. Where internal and v1 differ in shape (pod
``hostNetwork``/``hostPID``/``hostIPC``, which the internal type keeps in the security context)
the v1 location is read.

``validate_pod_template_spec`` (with ``PodValidationOptions`` from ``validation_common``) is
what other groups (apps, batch) call for the pod templates they embed, as kube's do;
``pod_validation_options`` is ``GetValidationOptionsFromPodTemplate``/
``GetValidationOptionsFromPodSpecAndMeta``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...machinery import quantity as quantities
from ...machinery.golang import go_quote as _quote
from ...machinery.jsonvalue import Repeated, json_key
from ...machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
    too_long_error,
)
from ...machinery.validation import (
    DEFAULT_LABEL_SELECTOR_OPTIONS,
    LabelSelectorValidationOptions,
    child,
    inclusive_range_error,
    index,
    invalid_json,
    is_config_map_key,
    is_env_var_name,
    is_http_header_name,
    is_relaxed_env_var_name,
    is_valid_group_id,
    is_valid_label_value,
    is_valid_port_name,
    is_valid_port_num,
    is_valid_user_id,
    key,
    label_selector_has_invalid_label_value,
    long_name_errors,
    max_len_error,
    name_is_dns_label,
    name_is_dns_subdomain,
    parse_ip_sloppy,
    regex_error,
    validate_annotations,
    validate_label_name,
    validate_label_selector,
    validate_labels,
    validate_nonnegative_field,
    validate_object_meta_with_opts,
)
from .. import features
from ..fields import int_field, list_field, map_field, set_or_drop, str_field
from .pod_spec_diff import internal_value
from .resources import aggregate_container_resources
from .validation_common import (
    PodValidationOptions,
    invalid_each,
    is_huge_page_resource,
    is_overcommit_allowed,
    is_valid_ip,
    validate_container_resource_name,
    validate_core_object_meta,
    validate_core_object_meta_update,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_kube_finalizer_name,
    validate_node_name,
    validate_pod_name,
    validate_port_num_or_name,
    validate_priority_class_name,
    validate_pull_policy,
    validate_qualified_name,
    validate_resource_name,
    validate_resource_quantity_value,
    validate_secret_name,
)
from .validation_volumes import (
    validate_local_descending_path,
    validate_local_non_reserved_path,
    validate_object_field_selector,
    validate_path_no_backsteps,
    validate_resource_field_selector,
    validate_volumes,
)

Json = dict[str, Any]
_EMPTY: Json = {}

IS_NOT_POSITIVE_ERROR = "must be greater than zero"
_MAX_INT32 = 2**31 - 1
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


# ----------------------------------------------------------------------------- options

def pod_validation_options(spec: Json | None, old_spec: Json | None, meta: Json | None = None,
                           old_meta: Json | None = None, *, resource_is_pod: bool = False) -> PodValidationOptions:
    """``GetValidationOptionsFromPodSpecAndMeta`` at kube 1.35's default feature gates: the
    relaxations an update gets because the old object already used them."""
    relaxed_env = features.enabled("RelaxedEnvironmentVariableValidation")
    allow_invalid_deletion_cost = not features.enabled("PodDeletionCost")
    if old_meta is not None and not allow_invalid_deletion_cost:
        allow_invalid_deletion_cost = _deletion_cost_error(map_field(old_meta, "annotations"))
    if old_spec is None:
        return PodValidationOptions(
            allow_invalid_pod_deletion_cost=allow_invalid_deletion_cost, resource_is_pod=resource_is_pod,
            allow_relaxed_environment_variable_validation=relaxed_env,
            allow_taint_toleration_comparison_operators=features.enabled("TaintTolerationComparisonOperators"))
    return PodValidationOptions(
        allow_invalid_pod_deletion_cost=allow_invalid_deletion_cost,
        allow_invalid_label_value_in_selector=_has_invalid_label_value_in_affinity_selector(old_spec),
        allow_indivisible_huge_pages_values=_uses_indivisible_huge_pages(old_spec),
        allow_invalid_topology_spread_constraint_label_selector=any(
            validate_label_selector(c.get("labelSelector"), DEFAULT_LABEL_SELECTOR_OPTIONS, "")
            for c in list_field(old_spec, "topologySpreadConstraints")),
        allow_non_local_projected_token_path=_has_non_local_projected_token_path(old_spec),
        allow_namespaced_sysctls_for_host_net_and_host_ipc=any(
            _host_sysctl_error(str_field(sysctl, "name"), old_spec, "") is not None
            for sysctl in list_field(map_field(old_spec, "securityContext"), "sysctls")),
        resource_is_pod=resource_is_pod,
        allow_relaxed_environment_variable_validation=relaxed_env,
        allow_invalid_label_value_in_required_node_affinity=has_invalid_label_value_in_required_node_affinity(
            old_spec),
        allow_user_namespaces_with_volume_devices=(
            old_spec.get("hostUsers") is False
            and any(list_field(c, "volumeDevices") for c, _path in _visit_containers(old_spec, ""))),
        allow_taint_toleration_comparison_operators=features.enabled("TaintTolerationComparisonOperators") or any(
            t.get("operator") in ("Lt", "Gt") for t in list_field(old_spec, "tolerations")),
    )


def pod_template_validation_options(template: Json | None, old_template: Json | None) -> PodValidationOptions:
    """``GetValidationOptionsFromPodTemplate``: the options for a template and its old version
    (None on create)."""
    return pod_validation_options(
        (template or _EMPTY).get("spec") if template is not None else None,
        map_field(old_template, "spec") if old_template is not None else None,
        map_field(template, "metadata") if template is not None else None,
        map_field(old_template, "metadata") if old_template is not None else None)


def _has_invalid_label_value_in_affinity_selector(spec: Json) -> bool:
    affinity = map_field(spec, "affinity")
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = map_field(affinity, kind)
        for term in list_field(terms, "requiredDuringSchedulingIgnoredDuringExecution"):
            if label_selector_has_invalid_label_value(term.get("labelSelector")):
                return True
        for weighted in list_field(terms, "preferredDuringSchedulingIgnoredDuringExecution"):
            if label_selector_has_invalid_label_value(map_field(weighted, "podAffinityTerm").get("labelSelector")):
                return True
    return False


def has_invalid_label_value_in_required_node_affinity(spec: Json) -> bool:
    required = map_field(map_field(map_field(spec, "affinity"), "nodeAffinity"),
                         "requiredDuringSchedulingIgnoredDuringExecution")
    return any(is_valid_label_value(value) for term in list_field(required, "nodeSelectorTerms")
               for expression in list_field(term, "matchExpressions") for value in list_field(expression, "values"))


def _uses_indivisible_huge_pages(spec: Json) -> bool:
    for container, _path in _visit_containers(spec, ""):
        resources = map_field(container, "resources")
        for which in ("limits", "requests"):
            for name, value in map_field(resources, which).items():
                if name.startswith("hugepages-") and not _huge_page_value_divisible(name, value):
                    return True
    return False


def _has_non_local_projected_token_path(spec: Json) -> bool:
    for volume in list_field(spec, "volumes"):
        for source in list_field(map_field(volume, "projected"), "sources"):
            token = source.get("serviceAccountToken")
            if token and validate_local_non_reserved_path(str_field(token, "path"), ""):
                return True
    return False


def _deletion_cost_error(annotations: Json) -> bool:
    """Whether ``helper.GetDeletionCostFromPodAnnotations`` fails."""
    value = annotations.get(POD_DELETION_COST_ANNOTATION)
    if value is None:
        return False
    if not isinstance(value, str) or not re.fullmatch(r"[+-]?[0-9]+", value):
        return True
    return not -(2**31) <= int(value) <= _MAX_INT32


# ----------------------------------------------------------------------------- containers of a spec

def _visit_containers(spec: Json, path: str) -> Iterator[tuple[Json, str]]:
    """``podshelper.VisitContainersWithPath``: init, regular, then ephemeral containers."""
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        for i, container in enumerate(list_field(spec, kind)):
            yield container, index(child(path, kind), i)


# ----------------------------------------------------------------------------- containers

_PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")
_DOWNWARD_ENV_FIELDS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                        "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")


def _validate_container_ports(ports: list[Json], path: str) -> list[FieldError]:
    """``validateContainerPorts``."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        port_path = index(path, i)
        name = str_field(port, "name")
        if name:
            if messages := is_valid_port_name(name):
                errors += invalid_each(child(port_path, "name"), name, messages)
            elif name in names:
                errors.append(duplicate_error(child(port_path, "name"), name))
            else:
                names.add(name)
        container_port = int_field(port, "containerPort")
        if container_port == 0:
            errors.append(required_error(child(port_path, "containerPort")))
        else:
            errors += invalid_each(child(port_path, "containerPort"), container_port, is_valid_port_num(container_port))
        host_port = int_field(port, "hostPort")
        if host_port:
            errors += invalid_each(child(port_path, "hostPort"), host_port, is_valid_port_num(host_port))
        protocol = str_field(port, "protocol")
        if not protocol:
            errors.append(required_error(child(port_path, "protocol")))
        elif protocol not in _PORT_PROTOCOLS:
            errors.append(not_supported_error(child(port_path, "protocol"), protocol, _PORT_PROTOCOLS))
    return errors


def _env_name_errors(name: str, options: PodValidationOptions) -> list[str]:
    return is_relaxed_env_var_name(name) if options.allow_relaxed_environment_variable_validation \
        else is_env_var_name(name)


def _validate_key_selector(selector: Json, path: str) -> list[FieldError]:
    """``validateConfigMapKeySelector``/``validateSecretKeySelector``."""
    name = str_field(selector, "name")
    errors = invalid_each(child(path, "name"), name, validate_secret_name(name, False))
    selector_key = str_field(selector, "key")
    if not selector_key:
        errors.append(required_error(child(path, "key")))
    else:
        errors += invalid_each(child(path, "key"), selector_key, is_config_map_key(selector_key))
    return errors


def _validate_env(env: list[Json], path: str, options: PodValidationOptions) -> list[FieldError]:
    """``ValidateEnv``."""
    errors: list[FieldError] = []
    for i, variable in enumerate(env):
        variable_path = index(path, i)
        name = str_field(variable, "name")
        if not name:
            errors.append(required_error(child(variable_path, "name")))
        else:
            errors += invalid_each(child(variable_path, "name"), name, _env_name_errors(name, options))
        value_from = variable.get("valueFrom")
        if value_from is None:
            continue
        from_path = child(variable_path, "valueFrom")
        sources = 0
        if value_from.get("fieldRef") is not None:
            sources += 1
            errors += validate_object_field_selector(value_from["fieldRef"], _DOWNWARD_ENV_FIELDS,
                                                     child(from_path, "fieldRef"))
        if value_from.get("resourceFieldRef") is not None:
            sources += 1
            errors += validate_resource_field_selector(value_from["resourceFieldRef"],
                                                       child(from_path, "resourceFieldRef"), False)
        if value_from.get("configMapKeyRef") is not None:
            sources += 1
            errors += _validate_key_selector(value_from["configMapKeyRef"], child(from_path, "configMapKeyRef"))
        if value_from.get("secretKeyRef") is not None:
            sources += 1
            errors += _validate_key_selector(value_from["secretKeyRef"], child(from_path, "secretKeyRef"))
        if value_from.get("fileKeyRef") is not None:
            sources += 1
            errors += _validate_file_key_selector(value_from["fileKeyRef"], child(from_path, "fileKeyRef"))
        if sources == 0:
            errors.append(invalid_error(from_path, "", (
                "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or "
                "`fileKeyRef`") if options.allow_env_files_validation else (
                "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`")))
        elif str_field(variable, "value"):
            errors.append(invalid_error(from_path, "", "may not be specified when `value` is not empty"))
        elif sources > 1:
            errors.append(invalid_error(from_path, "", "may not have more than one field specified at a time"))
    return errors


def _validate_file_key_selector(selector: Json, path: str) -> list[FieldError]:
    """``validateFileKeySelector``."""
    errors = []
    selector_key = str_field(selector, "key")
    if not selector_key:
        errors.append(required_error(child(path, "key")))
    else:
        errors += invalid_each(child(path, "key"), selector_key, is_relaxed_env_var_name(selector_key))
    volume_name = str_field(selector, "volumeName")
    if not volume_name:
        errors.append(required_error(child(path, "volumeName")))
    else:
        errors += validate_dns1123_label(volume_name, child(path, "volumeName"))
    file_path = str_field(selector, "path")
    if not file_path:
        errors.append(required_error(child(path, "path")))
    else:
        errors += validate_path_no_backsteps(file_path, child(path, "path"))
    return errors


def _validate_env_from(sources: list[Json], path: str, options: PodValidationOptions) -> list[FieldError]:
    """``ValidateEnvFrom``."""
    errors: list[FieldError] = []
    for i, source in enumerate(sources):
        source_path = index(path, i)
        prefix = str_field(source, "prefix")
        if prefix:
            errors += invalid_each(child(source_path, "prefix"), prefix, _env_name_errors(prefix, options))
        count = 0
        for kind in ("configMapRef", "secretRef"):
            ref = source.get(kind)
            if ref is None:
                continue
            count += 1
            name = str_field(ref, "name")
            if not name:
                errors.append(required_error(child(source_path, kind, "name")))
            else:
                errors += invalid_each(child(source_path, kind, "name"), name, name_is_dns_subdomain(name, True))
        if count == 0:
            errors.append(invalid_error(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif count > 1:
            errors.append(invalid_error(path, "", "may not have more than one field specified at a time"))
    return errors


def _validate_volume_mounts(container: Json, volumes: dict[str, Json], path: str) -> list[FieldError]:
    """``ValidateVolumeMounts``."""
    errors: list[FieldError] = []
    devices = {str_field(d, "name"): str_field(d, "devicePath") for d in list_field(container, "volumeDevices")}
    device_paths = set(devices.values())
    mount_points: set[str] = set()
    privileged = map_field(container, "securityContext").get("privileged") is True
    for i, mount in enumerate(list_field(container, "volumeMounts")):
        mount_path = index(path, i)
        name = str_field(mount, "name")
        point = str_field(mount, "mountPath")
        if not name:
            errors.append(required_error(child(mount_path, "name")))
        if name not in volumes:
            errors.append((child(mount_path, "name"), "FieldValueNotFound", f"Not found: {_quote(name)}"))
        if not point:
            errors.append(required_error(child(mount_path, "mountPath")))
        if point in mount_points:
            errors.append(invalid_error(child(mount_path, "mountPath"), point, "must be unique"))
        mount_points.add(point)
        if name in devices:
            errors.append(invalid_error(child(mount_path, "name"), name, "must not already exist in volumeDevices"))
        if point in device_paths:
            errors.append(invalid_error(child(mount_path, "mountPath"), point,
                                        "must not already exist as a path in volumeDevices"))
        sub_path = str_field(mount, "subPath")
        if sub_path:
            errors += validate_local_descending_path(sub_path, child(path, "subPath"))
        sub_path_expr = str_field(mount, "subPathExpr")
        if sub_path_expr:
            if sub_path:
                errors.append(invalid_error(child(mount_path, "subPathExpr"), sub_path_expr,
                                            "subPathExpr and subPath are mutually exclusive"))
            errors += validate_local_descending_path(sub_path_expr, child(path, "subPathExpr"))
        propagation = mount.get("mountPropagation")
        if propagation is not None:
            supported = ("Bidirectional", "HostToContainer", "None")
            if propagation not in supported:
                errors.append(not_supported_error(child(path, "mountPropagation"), propagation, supported))
            if propagation == "Bidirectional" and not privileged:
                errors.append(forbidden_error(child(path, "mountPropagation"),
                                              "Bidirectional mount propagation is available only to privileged "
                                              "containers"))
        recursive = mount.get("recursiveReadOnly")
        if recursive is not None and recursive != "Disabled":
            if recursive in ("Enabled", "IfPossible"):
                if not mount.get("readOnly"):
                    errors.append(forbidden_error(child(path, "recursiveReadOnly"),
                                                  "may only be specified when readOnly is true"))
                if propagation not in (None, "None"):
                    errors.append(forbidden_error(child(path, "recursiveReadOnly"),
                                                  "may only be specified when mountPropagation is None or not "
                                                  "specified"))
            else:
                errors.append(not_supported_error(child(path, "recursiveReadOnly"), recursive,
                                                  ("Disabled", "Enabled", "IfPossible")))
    return errors


def _validate_volume_devices(container: Json, volumes: dict[str, Json], path: str) -> list[FieldError]:
    """``ValidateVolumeDevices``."""
    errors: list[FieldError] = []
    mounts = {str_field(m, "name"): str_field(m, "mountPath") for m in list_field(container, "volumeMounts")}
    mount_paths = set(mounts.values())
    device_paths: set[str] = set()
    device_names: set[str] = set()
    for i, device in enumerate(list_field(container, "volumeDevices")):
        device_path = index(path, i)
        name = str_field(device, "name")
        target = str_field(device, "devicePath")
        volume = volumes.get(name)
        if not name:
            errors.append(required_error(child(device_path, "name")))
        if name in device_names:
            errors.append(invalid_error(child(device_path, "name"), name, "must be unique"))
        if volume is not None and volume.get("persistentVolumeClaim") is None and volume.get("ephemeral") is None:
            errors.append(invalid_error(child(device_path, "name"), name, (
                "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode")))
        if volume is None:
            errors.append((child(device_path, "name"), "FieldValueNotFound", f"Not found: {_quote(name)}"))
        if not target:
            errors.append(required_error(child(device_path, "devicePath")))
        if target in device_paths:
            errors.append(invalid_error(child(device_path, "devicePath"), target, "must be unique"))
        if target and validate_path_no_backsteps(target, ""):
            errors.append(invalid_error(child(device_path, "devicePath"), target, "can not contain backsteps ('..')"))
        else:
            device_paths.add(target)
        if name in mounts:
            errors.append(invalid_error(child(device_path, "name"), name, "must not already exist in volumeMounts"))
        if target in mount_paths:
            errors.append(invalid_error(child(device_path, "devicePath"), target,
                                        "must not already exist as a path in volumeMounts"))
        if name:
            device_names.add(name)
    return errors


def _validate_handler(handler: Json, grace_period: int | None, path: str, options: PodValidationOptions, *,
                      probe: bool) -> list[FieldError]:
    """``validateHandler`` of a probe (exec, httpGet, tcpSocket, grpc) or a lifecycle hook
    (exec, httpGet, tcpSocket, sleep)."""
    errors: list[FieldError] = []
    count = 0
    for kind in ("exec", "httpGet", "tcpSocket", "grpc" if probe else "sleep"):
        action = handler.get(kind)
        if action is None:
            continue
        if count:
            errors.append(forbidden_error(child(path, kind), "may not specify more than 1 handler type"))
            continue
        count += 1
        action_path = child(path, kind)
        if kind == "exec":
            if not list_field(action, "command"):
                errors.append(required_error(child(action_path, "command")))
        elif kind == "httpGet":
            if not str_field(action, "path"):
                errors.append(required_error(child(action_path, "path")))
            errors += validate_port_num_or_name(action.get("port"), child(action_path, "port"))
            scheme = str_field(action, "scheme")
            if scheme not in ("HTTP", "HTTPS"):
                errors.append(not_supported_error(child(action_path, "scheme"), scheme, ("HTTP", "HTTPS")))
            for header in list_field(action, "httpHeaders"):
                errors += invalid_each(child(action_path, "httpHeaders"), str_field(header, "name"),
                                       is_http_header_name(str_field(header, "name")))
        elif kind == "tcpSocket":
            errors += validate_port_num_or_name(action.get("port"), child(action_path, "port"))
        elif kind == "grpc":
            port = int_field(action, "port")
            errors += invalid_each(child(action_path, "port"), port, is_valid_port_num(port))
        else:
            seconds = int_field(action, "seconds")
            if grace_period is not None:
                if options.allow_pod_lifecycle_sleep_action_zero_value:
                    if seconds < 0 or seconds > grace_period:
                        errors.append(invalid_error(action_path, seconds, (
                            f"must be non-negative and less than terminationGracePeriodSeconds ({grace_period})")))
                elif seconds <= 0 or seconds > grace_period:
                    errors.append(invalid_error(action_path, seconds, (
                        f"must be greater than 0 and less than terminationGracePeriodSeconds ({grace_period}). "
                        "Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.")))
    if count == 0:
        errors.append(required_error(path, "must specify a handler type"))
    return errors


def _validate_probe(probe: Json | None, grace_period: int | None, path: str, options: PodValidationOptions,
                    kind: str) -> list[FieldError]:
    """``validateLivenessProbe``/``validateReadinessProbe``/``validateStartupProbe``."""
    if probe is None:
        return []
    errors = _validate_handler(probe, grace_period, path, options, probe=True)
    for name in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        errors += validate_nonnegative_field(int_field(probe, name), child(path, name))
    termination = probe.get("terminationGracePeriodSeconds")
    if termination is not None and termination <= 0:
        errors.append(invalid_error(child(path, "terminationGracePeriodSeconds"), termination,
                                    "must be greater than 0"))
    if kind == "readiness":
        if termination is not None:
            errors.append(invalid_error(child(path, "terminationGracePeriodSeconds"), termination,
                                        "must not be set for readinessProbes"))
    elif int_field(probe, "successThreshold") != 1:
        errors.append(invalid_error(child(path, "successThreshold"), int_field(probe, "successThreshold"), "must be 1"))
    return errors


def _validate_probes(container: Json, grace_period: int | None, path: str,
                     options: PodValidationOptions) -> list[FieldError]:
    return (_validate_probe(container.get("livenessProbe"), grace_period, child(path, "livenessProbe"), options,
                            "liveness")
            + _validate_probe(container.get("readinessProbe"), grace_period, child(path, "readinessProbe"), options,
                              "readiness")
            + _validate_probe(container.get("startupProbe"), grace_period, child(path, "startupProbe"), options,
                              "startup"))


_LINUX_SIGNALS = tuple(sorted(
    ["SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", "SIGHUP", "SIGILL", "SIGINT", "SIGIO",
     "SIGIOT", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR", "SIGQUIT", "SIGSEGV", "SIGSTKFLT", "SIGSTOP",
     "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM",
     "SIGWINCH", "SIGXCPU", "SIGXFSZ", "SIGRTMIN", "SIGRTMAX"]
    + [f"SIGRTMIN+{i}" for i in range(1, 16)] + [f"SIGRTMAX-{i}" for i in range(1, 15)]))


def _validate_lifecycle(lifecycle: Json, grace_period: int | None, path: str, options: PodValidationOptions,
                        pod_os: Json | None) -> list[FieldError]:
    """``validateLifecycle``."""
    errors: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        if lifecycle.get(hook) is not None:
            errors += _validate_handler(lifecycle[hook], grace_period, child(path, hook), options, probe=False)
    signal = lifecycle.get("stopSignal")
    if signal is not None:
        signal_path = child(path, "stopSignal")
        if pod_os is None:
            errors.append(forbidden_error(signal_path, "may not be set for containers with empty `spec.os.name`"))
        elif pod_os.get("name") == "windows" and signal not in ("SIGKILL", "SIGTERM"):
            errors.append(not_supported_error(signal_path, signal, ("SIGKILL", "SIGTERM")))
        elif pod_os.get("name") == "linux" and signal not in _LINUX_SIGNALS:
            errors.append(not_supported_error(signal_path, signal, _LINUX_SIGNALS))
    return errors


def _validate_resize_policy(policies: list[Json], path: str, restart_policy: str) -> list[FieldError]:
    """``validateResizePolicy``."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, policy in enumerate(policies):
        resource = str_field(policy, "resourceName")
        if resource in seen:
            errors.append(duplicate_error(index(path, i), resource))
        seen.add(resource)
        if resource not in ("cpu", "memory"):
            errors.append(required_error(path) if not resource else not_supported_error(path, resource,
                                                                                        ("cpu", "memory")))
        restart = str_field(policy, "restartPolicy")
        if restart not in ("NotRequired", "RestartContainer"):
            errors.append(required_error(path) if not restart else not_supported_error(
                path, restart, ("NotRequired", "RestartContainer")))
        if restart_policy == "Never" and restart != "NotRequired":
            errors.append(invalid_error(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    return errors


def _validate_container_restart_policy(container: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``validateContainerRestartPolicy``."""
    errors: list[FieldError] = []
    policy = container.get("restartPolicy")
    rules = list_field(container, "restartPolicyRules")
    policy_path = child(path, "restartPolicy")
    if policy is None:
        if not rules:
            return errors
        errors.append(required_error(policy_path, "must specify restartPolicy when restart rules are used"))
    elif policy not in ("Always", "Never", "OnFailure"):
        errors.append(not_supported_error(policy_path, policy, ("Always", "Never", "OnFailure")))
    if len(rules) > 20:
        errors.append(too_long_error(child(path, "restartPolicyRules"), 20))
    for i, rule in enumerate(rules):
        rule_path = index(child(path, "restartPolicyRules"), i)
        allowed = ("Restart", "RestartAllContainers") if options.allow_restart_all_containers else ("Restart",)
        if str_field(rule, "action") not in allowed:
            errors.append(not_supported_error(child(rule_path, "action"), str_field(rule, "action"), ("Restart",)))
        exit_codes = rule.get("exitCodes")
        if exit_codes is None:
            errors.append(required_error(child(rule_path, "exitCodes"), "must be specified"))
            continue
        if str_field(exit_codes, "operator") not in ("In", "NotIn"):
            errors.append(not_supported_error(child(rule_path, "exitCodes", "operator"),
                                              str_field(exit_codes, "operator"), ("In", "NotIn")))
        if len(list_field(exit_codes, "values")) > 255:
            errors.append(too_long_error(child(rule_path, "exitCodes", "values"), 255))
    return errors


def _validate_container_common(container: Json, volumes: dict[str, Json], claim_names: set[str], path: str,
                               options: PodValidationOptions, restart_policy: str,
                               host_users: bool) -> list[FieldError]:
    """``validateContainerCommon``."""
    errors: list[FieldError] = []
    name = str_field(container, "name")
    if not name:
        errors.append(required_error(child(path, "name")))
    else:
        errors += validate_dns1123_label(name, child(path, "name"))
    if not str_field(container, "image"):
        errors.append(required_error(child(path, "image")))
    policy = str_field(container, "terminationMessagePolicy")
    if not policy:
        errors.append(required_error(child(path, "terminationMessagePolicy")))
    elif policy not in ("File", "FallbackToLogsOnError"):
        errors.append(not_supported_error(child(path, "terminationMessagePolicy"), policy,
                                          ("File", "FallbackToLogsOnError")))
    errors += _validate_container_ports(list_field(container, "ports"), child(path, "ports"))
    errors += _validate_env(list_field(container, "env"), child(path, "env"), options)
    errors += _validate_env_from(list_field(container, "envFrom"), child(path, "envFrom"), options)
    errors += _validate_volume_mounts(container, volumes, child(path, "volumeMounts"))
    errors += _validate_volume_devices(container, volumes, child(path, "volumeDevices"))
    errors += validate_pull_policy(str_field(container, "imagePullPolicy"), child(path, "imagePullPolicy"))
    errors += validate_resource_requirements(map_field(container, "resources"), validate_container_resource_name,
                                             claim_names, child(path, "resources"), options)
    errors += _validate_resize_policy(list_field(container, "resizePolicy"), child(path, "resizePolicy"),
                                      restart_policy)
    errors += validate_security_context(container.get("securityContext"), child(path, "securityContext"), host_users)
    return errors


def _host_port_conflicts(containers: list[Json], path: str) -> list[FieldError]:
    """``checkHostPortConflicts``."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for ci, container in enumerate(containers):
        for pi, port in enumerate(list_field(container, "ports")):
            host_port = int_field(port, "hostPort")
            if not host_port:
                continue
            text = f"{str_field(port, 'protocol')}/{str_field(port, 'hostIP')}/{host_port}"
            if text in seen:
                errors.append(duplicate_error(child(index(child(index(path, ci), "ports"), pi), "hostPort"), text))
            seen.add(text)
    return errors


def _validate_containers(spec: Json, volumes: dict[str, Json], claim_names: set[str], grace_period: int | None,
                         path: str, options: PodValidationOptions, host_users: bool) -> list[FieldError]:
    """``validateContainers``."""
    containers = list_field(spec, "containers")
    if not containers:
        return [required_error(path)]
    errors: list[FieldError] = []
    names: set[str] = set()
    restart_policy = str_field(spec, "restartPolicy")
    pod_os = spec.get("os")
    for i, container in enumerate(containers):
        container_path = index(path, i)
        errors += _validate_container_common(container, volumes, claim_names, container_path, options,
                                             restart_policy, host_users)
        name = str_field(container, "name")
        if name in names:
            errors.append(duplicate_error(child(container_path, "name"), name))
        names.add(name)
        if container.get("lifecycle") is not None:
            errors += _validate_lifecycle(container["lifecycle"], grace_period, child(container_path, "lifecycle"),
                                          options, pod_os)
        errors += _validate_probes(container, grace_period, container_path, options)
        if options.allow_container_restart_policy_rules:
            errors += _validate_container_restart_policy(container, container_path, options)
        elif container.get("restartPolicy") is not None:
            errors.append(forbidden_error(child(container_path, "restartPolicy"),
                                          "may not be set for non-init containers"))
    return errors + _host_port_conflicts(containers, path)


_INIT_ONLY_WITH_ALWAYS = "may not be set for init containers without restartPolicy=Always"


def _validate_init_containers(spec: Json, volumes: dict[str, Json], claim_names: set[str],
                              grace_period: int | None, path: str, options: PodValidationOptions,
                              host_users: bool) -> list[FieldError]:
    """``validateInitContainers``."""
    errors: list[FieldError] = []
    names = {str_field(c, "name") for c in list_field(spec, "containers")}
    restart_policy = str_field(spec, "restartPolicy")
    for i, container in enumerate(list_field(spec, "initContainers")):
        container_path = index(path, i)
        errors += _validate_container_common(container, volumes, claim_names, container_path, options,
                                             restart_policy, host_users)
        policy = container.get("restartPolicy")
        rules = list_field(container, "restartPolicyRules")
        if policy is None:
            if rules:
                errors.append(required_error(child(container_path, "restartPolicy"),
                                             "must specify restartPolicy when restart rules are used"))
        elif options.allow_container_restart_policy_rules:
            if policy == "Always":
                if options.allow_restart_all_containers:
                    errors += _validate_container_restart_policy(container, container_path, options)
                elif rules:
                    errors.append(forbidden_error(child(container_path, "restartPolicyRules"),
                                                  "restartPolicyRules are not allowed for init containers with "
                                                  "restart policy Always"))
            else:
                errors += _validate_container_restart_policy(container, container_path, options)
        elif policy != "Always":
            errors.append(not_supported_error(child(container_path, "restartPolicy"), policy, ("Always",)))
        name = str_field(container, "name")
        if name in names:
            errors.append(duplicate_error(child(container_path, "name"), name))
        elif name:
            names.add(name)
        errors += _host_port_conflicts([container], path)
        if policy == "Always":
            if container.get("lifecycle") is not None:
                errors += _validate_lifecycle(container["lifecycle"], grace_period,
                                              child(container_path, "lifecycle"), options, spec.get("os"))
            errors += _validate_probes(container, grace_period, container_path, options)
        else:
            for field_name in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if container.get(field_name) is not None:
                    errors.append(forbidden_error(child(container_path, field_name), _INIT_ONLY_WITH_ALWAYS))
        if not options.allow_sidecar_resize_policy and list_field(container, "resizePolicy"):
            errors.append(invalid_json(child(container_path, "resizePolicy"),
                                       internal_value("core.ContainerResizePolicy", container["resizePolicy"]),
                                       "must not be set for init containers"))
    return errors


_EPHEMERAL_FORBIDDEN = ("ports", "resources", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
                        "resizePolicy", "restartPolicy", "restartPolicyRules")


def _validate_ephemeral_containers(spec: Json, volumes: dict[str, Json], claim_names: set[str], path: str,
                                   options: PodValidationOptions, host_users: bool) -> list[FieldError]:
    """``validateEphemeralContainers``."""
    ephemeral = list_field(spec, "ephemeralContainers")
    if not ephemeral:
        return []
    errors: list[FieldError] = []
    others = {str_field(c, "name") for c in list_field(spec, "containers") + list_field(spec, "initContainers")}
    names = set(others)
    for i, container in enumerate(ephemeral):
        container_path = index(path, i)
        errors += _validate_container_common(container, volumes, claim_names, container_path, options,
                                             str_field(spec, "restartPolicy"), host_users)
        errors += _validate_container_only_for_pod(container, container_path)
        name = str_field(container, "name")
        if name in names:
            errors.append(duplicate_error(child(container_path, "name"), name))
        names.add(name)
        target = str_field(container, "targetContainerName")
        if target and target not in others:
            errors.append((child(container_path, "targetContainerName"), "FieldValueNotFound",
                           f"Not found: {_quote(target)}"))
        for field_name in _EPHEMERAL_FORBIDDEN:
            if container.get(field_name):
                errors.append(forbidden_error(child(container_path, field_name),
                                              "cannot be set for an Ephemeral Container"))
        for j, mount in enumerate(list_field(container, "volumeMounts")):
            for field_name in ("subPath", "subPathExpr"):
                if str_field(mount, field_name):
                    errors.append(forbidden_error(child(index(child(container_path, "volumeMounts"), j), field_name),
                                                  "cannot be set for an Ephemeral Container"))
    return errors


def _validate_container_only_for_pod(container: Json, path: str) -> list[FieldError]:
    """``validateContainerOnlyForPod``."""
    image = str_field(container, "image")
    if image != image.strip():
        return [invalid_error(child(path, "image"), image, "must not have leading or trailing whitespace")]
    return []


# ----------------------------------------------------------------------------- resources

_POD_LEVEL_RESOURCES = ("cpu", "hugepages-", "memory")


def _validate_pod_resource_name(name: str, path: str) -> list[FieldError]:
    """``validatePodResourceName``."""
    errors = validate_resource_name(name, path)
    if errors:
        return errors
    if name not in ("cpu", "memory") and not is_huge_page_resource(name):
        return [not_supported_error(path, name, _POD_LEVEL_RESOURCES)]
    return []


def _huge_page_value_divisible(name: str, value: Any) -> bool:
    """``helper.IsHugePageResourceValueDivisible``."""
    try:
        page = quantities.parse(name.removeprefix("hugepages-"))
        amount = quantities.decode(value)
    except quantities.QuantityError:
        return False
    if page.sign() <= 0 or page.milli_value() % 1000:
        return False
    return amount.value() % page.value() == 0


def validate_resource_requirements(requirements: Json, name_fn: Any, claim_names: set[str], path: str,
                                   options: PodValidationOptions) -> list[FieldError]:
    """``validateResourceRequirements`` (resources in the JSON's order: Go's map order is random)."""
    errors: list[FieldError] = []
    limits_path, requests_path = child(path, "limits"), child(path, "requests")
    limits = map_field(requirements, "limits")
    requests = map_field(requirements, "requests")
    parsed_limits = {name: quantities.decode(value) for name, value in limits.items()}
    compute = huge_pages = False
    for name in limits:
        value = parsed_limits[name]
        name_path = key(limits_path, name)
        errors += name_fn(name, name_path)
        errors += validate_resource_quantity_value(name, value, name_path)
        if is_huge_page_resource(name):
            huge_pages = True
            if not options.allow_indivisible_huge_pages_values and not _huge_page_value_divisible(name, str(value)):
                errors.append(invalid_error(name_path, str(value), f"{value} is not positive integer multiple of {name}"))
        if name in ("cpu", "memory"):
            compute = True
    for name in requests:
        value = quantities.decode(requests[name])
        name_path = key(requests_path, name)
        errors += name_fn(name, name_path)
        errors += validate_resource_quantity_value(name, value, name_path)
        limit = parsed_limits.get(name)
        if limit is not None:
            if value.cmp(limit) != 0 and not is_overcommit_allowed(name):
                errors.append(invalid_error(requests_path, str(value), f"must be equal to {name} limit of {limit}"))
            elif value.cmp(limit) > 0:
                errors.append(invalid_error(requests_path, str(value),
                                            f"must be less than or equal to {name} limit of {limit}"))
        elif not is_overcommit_allowed(name):
            errors.append(required_error(limits_path, "Limit must be set for non overcommitable resources"))
        if is_huge_page_resource(name):
            huge_pages = True
            if not options.allow_indivisible_huge_pages_values and not _huge_page_value_divisible(name, str(value)):
                errors.append(invalid_error(name_path, str(value), f"{value} is not positive integer multiple of {name}"))
        if name in ("cpu", "memory"):
            compute = True
    if not compute and huge_pages:
        errors.append(forbidden_error(path, "HugePages require cpu or memory"))
    return errors + _validate_resource_claim_names(list_field(requirements, "claims"), claim_names,
                                                   child(path, "claims"))


def _validate_resource_claim_names(claims: list[Json], claim_names: set[str], path: str) -> list[FieldError]:
    """``validateResourceClaimNames``."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims):
        name = str_field(claim, "name")
        claim_path = index(path, i)
        if not name:
            errors.append(required_error(claim_path))
            continue
        if name in names:
            errors.append(duplicate_error(claim_path, name))
        else:
            claim_key = name
            request = str_field(claim, "request")
            if request:
                errors += validate_dns1123_label(request, child(claim_path, "request"))
                claim_key += "/" + request
            if claim_key in names:
                errors.append(duplicate_error(claim_path, claim_key))
            elif not request:
                for known in names:
                    if "/" in known and known.split("/", 1)[0] == name:
                        errors.append(duplicate_error(claim_path, name))
            names.add(claim_key)
        if name not in claim_names:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += " which is empty" if not claim_names else ": " + ", ".join(sorted(claim_names))
            errors.append((claim_path, "FieldValueNotFound", f"Not found: {_quote(name)}: {detail}"))
    return errors


# ----------------------------------------------------------------------------- security

_PROC_MOUNT_TYPES = ("Default", "Unmasked")


def _validate_seccomp_profile(profile: Json | None, path: str) -> list[FieldError]:
    """``validateSeccompProfileField``."""
    if profile is None:
        return []
    errors = []
    kind = str_field(profile, "type")
    if kind not in ("Localhost", "RuntimeDefault", "Unconfined"):
        errors.append(required_error(child(path, "type"), "type is required when seccompProfile is set") if not kind
                      else not_supported_error(child(path, "type"), kind, ("Localhost", "RuntimeDefault",
                                                                           "Unconfined")))
    localhost = profile.get("localhostProfile")
    if kind == "Localhost":
        if localhost is None:
            errors.append(required_error(child(path, "localhostProfile"),
                                         "must be set when seccomp type is Localhost"))
        else:
            errors += validate_local_descending_path(localhost, child(path, "localhostProfile"))
    elif localhost is not None:
        errors.append(invalid_json(child(path, "localhostProfile"), internal_value("core.SeccompProfile", profile),
                                   "can only be set when seccomp type is Localhost"))
    return errors


def validate_apparmor_profile(profile: Json | None, path: str) -> list[FieldError]:
    """``ValidateAppArmorProfileField``."""
    if profile is None:
        return []
    errors = []
    kind = str_field(profile, "type")
    localhost = profile.get("localhostProfile")
    if kind == "Localhost":
        if localhost is None:
            errors.append(required_error(child(path, "localhostProfile"), "must be set when AppArmor type is Localhost"))
        else:
            if localhost.strip() != localhost:
                errors.append(invalid_error(child(path, "localhostProfile"), localhost,
                                            "must not be padded with whitespace"))
            elif not localhost:
                errors.append(required_error(child(path, "localhostProfile"),
                                             "must be set when AppArmor type is Localhost"))
            if len(localhost.encode()) > 4095:
                errors.append(too_long_error(child(path, "localhostProfile"), 4095))
    elif kind in ("RuntimeDefault", "Unconfined"):
        if localhost is not None:
            errors.append(invalid_error(child(path, "localhostProfile"), localhost,
                                        "can only be set when AppArmor type is Localhost"))
    elif not kind:
        errors.append(required_error(child(path, "type"), "type is required when appArmorProfile is set"))
    else:
        errors.append(not_supported_error(child(path, "type"), kind, ("Localhost", "RuntimeDefault", "Unconfined")))
    return errors


def validate_security_context(context: Json | None, path: str, host_users: bool) -> list[FieldError]:
    """``ValidateSecurityContext`` of a container (privileged containers are allowed: the
    oracle runs with ``--allow-privileged``)."""
    if context is None:
        return []
    errors: list[FieldError] = []
    if context.get("runAsUser") is not None:
        errors += invalid_each(child(path, "runAsUser"), context["runAsUser"], is_valid_user_id(context["runAsUser"]))
    if context.get("runAsGroup") is not None:
        errors += invalid_each(child(path, "runAsGroup"), context["runAsGroup"],
                               is_valid_group_id(context["runAsGroup"]))
    proc_mount = context.get("procMount")
    if proc_mount is not None:
        if proc_mount not in _PROC_MOUNT_TYPES:
            errors.append(not_supported_error(child(path, "procMount"), proc_mount, _PROC_MOUNT_TYPES))
        if host_users and proc_mount == "Unmasked":
            errors.append(invalid_error(child(path, "procMount"), proc_mount,
                                        "`hostUsers` must be false to use `Unmasked`"))
    errors += _validate_seccomp_profile(context.get("seccompProfile"), child(path, "seccompProfile"))
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            errors.append(invalid_json(path, internal_value("core.SecurityContext", context),
                                       "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
        for capability in list_field(map_field(context, "capabilities"), "add"):
            if capability == "CAP_SYS_ADMIN":
                errors.append(invalid_json(path, internal_value("core.SecurityContext", context),
                                           "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` "
                                           "CAP_SYS_ADMIN"))
    errors += validate_apparmor_profile(context.get("appArmorProfile"), child(path, "appArmorProfile"))
    return errors


_SYSCTL = re.compile(r"([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?")
_SYSCTL_PATTERN_TEXT = "^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"
_NET_SYSCTL_PREFIXES = ("net.",)
_IPC_SYSCTLS = ("kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced", "kernel.msgmax",
                "kernel.msgmnb", "kernel.msgmni", "kernel.sem")


def _host_sysctl_error(name: str, spec: Json, path: str) -> FieldError | None:
    """``ValidateHostSysctl`` (``utilsysctl.GetNamespace``: ``net.*`` is the network
    namespace's, ``kernel.shm*``/``kernel.msg*``/``kernel.sem`` and ``fs.mqueue.*`` IPC's)."""
    normalized = name.replace("/", ".")
    is_net = normalized.startswith(_NET_SYSCTL_PREFIXES)
    is_ipc = normalized in _IPC_SYSCTLS or normalized.startswith(("fs.mqueue.", "kernel.msg", "kernel.shm"))
    if spec.get("hostNetwork") and is_net:
        return invalid_error(path, name, "may not be specified when 'hostNetwork' is true")
    if spec.get("hostIPC") and is_ipc:
        return invalid_error(path, name, "may not be specified when 'hostIPC' is true")
    return None


def _validate_pod_security_context(spec: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``validatePodSpecSecurityContext``."""
    context = spec.get("securityContext")
    if context is None:
        return []
    errors: list[FieldError] = []
    if context.get("fsGroup") is not None:
        errors += invalid_each(child(path, "fsGroup"), context["fsGroup"], is_valid_group_id(context["fsGroup"]))
    if context.get("runAsUser") is not None:
        errors += invalid_each(child(path, "runAsUser"), context["runAsUser"], is_valid_user_id(context["runAsUser"]))
    if context.get("runAsGroup") is not None:
        errors += invalid_each(child(path, "runAsGroup"), context["runAsGroup"],
                               is_valid_group_id(context["runAsGroup"]))
    for i, gid in enumerate(list_field(context, "supplementalGroups")):
        errors += invalid_each(index(child(path, "supplementalGroups"), i), gid, is_valid_group_id(gid))
    if spec.get("shareProcessNamespace") and spec.get("hostPID"):
        errors.append(invalid_error(child(path, "shareProcessNamespace"), True,
                                    "ShareProcessNamespace and HostPID cannot both be enabled"))
    names: set[str] = set()
    for i, sysctl in enumerate(list_field(context, "sysctls")):
        name_path = child(index(child(path, "sysctls"), i), "name")
        name = str_field(sysctl, "name")
        if not name:
            errors.append(required_error(name_path))
        elif len(name) > 253 or not _SYSCTL.fullmatch(name):
            errors.append(invalid_error(name_path, name,
                                        f"must have at most 253 characters and match regex {_SYSCTL_PATTERN_TEXT}"))
        elif name in names:
            errors.append(duplicate_error(name_path, name))
        if not options.allow_namespaced_sysctls_for_host_net_and_host_ipc:
            error = _host_sysctl_error(name, spec, name_path)
            if error is not None:
                errors.append(error)
        names.add(name)
    policy = context.get("fsGroupChangePolicy")
    if policy is not None and policy not in ("Always", "OnRootMismatch"):
        errors.append(not_supported_error(child(path, "fsGroupChangePolicy"), policy, ("Always", "OnRootMismatch")))
    errors += _validate_seccomp_profile(context.get("seccompProfile"), child(path, "seccompProfile"))
    errors += validate_apparmor_profile(context.get("appArmorProfile"), child(path, "appArmorProfile"))
    supplemental_policy = context.get("supplementalGroupsPolicy")
    if supplemental_policy is not None and supplemental_policy not in ("Merge", "Strict"):
        errors.append(not_supported_error(child(path, "supplementalGroupsPolicy"), supplemental_policy,
                                          ("Merge", "Strict")))
    selinux_policy = context.get("seLinuxChangePolicy")
    if selinux_policy is not None:
        supported = ("Recursive",) if options.allow_only_recursive_selinux_change_policy else ("MountOption",
                                                                                                 "Recursive")
        if selinux_policy not in supported:
            errors.append(not_supported_error(child(path, "seLinuxChangePolicy"), selinux_policy, supported))
    return errors


# ----------------------------------------------------------------------------- scheduling

def validate_tolerations(tolerations: list[Json], path: str, options: PodValidationOptions) -> list[FieldError]:
    """``ValidateTolerations``."""
    errors: list[FieldError] = []
    for i, toleration in enumerate(tolerations):
        toleration_path = index(path, i)
        toleration_key = str_field(toleration, "key")
        operator = str_field(toleration, "operator")
        effect = str_field(toleration, "effect")
        value = str_field(toleration, "value")
        if toleration_key:
            errors += validate_label_name(toleration_key, child(toleration_path, "key"))
        if not toleration_key and operator != "Exists":
            errors.append(invalid_error(child(toleration_path, "operator"), operator, (
                'operator must be Exists when `key` is empty, which means "match all values and all keys"')))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(invalid_error(child(toleration_path, "effect"), effect,
                                        "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            if messages := is_valid_label_value(value):
                errors.append(invalid_error(child(toleration_path, "operator"), value, ";".join(messages)))
        elif operator == "Exists":
            if value:
                errors.append(invalid_error(child(toleration_path, "operator"), value,
                                            "value must be empty when `operator` is 'Exists'"))
        elif operator in ("Lt", "Gt") and not options.allow_taint_toleration_comparison_operators:
            errors.append(not_supported_error(child(toleration_path, "operator"), operator,
                                              ("Equal", "Exists", "Lt", "Gt")))
        else:
            errors.append(not_supported_error(child(toleration_path, "operator"), operator, ("Equal", "Exists")))
        if effect:
            errors += validate_taint_effect(effect, True, child(toleration_path, "effect"))
    return errors


_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def validate_taint_effect(effect: str, allow_empty: bool, path: str) -> list[FieldError]:
    """``validateTaintEffect``."""
    if not allow_empty and not effect:
        return [required_error(path)]
    if effect not in _TAINT_EFFECTS:
        return [not_supported_error(path, effect, _TAINT_EFFECTS)]
    return []


def validate_node_selector_requirement(requirement: Json, allow_invalid_values: bool, path: str) -> list[FieldError]:
    """``ValidateNodeSelectorRequirement``."""
    errors: list[FieldError] = []
    operator = str_field(requirement, "operator")
    values = list_field(requirement, "values")
    if operator in ("In", "NotIn"):
        if not values:
            errors.append(required_error(child(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errors.append(forbidden_error(child(path, "values"),
                                          "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errors.append(required_error(child(path, "values"),
                                         "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errors.append(invalid_error(child(path, "operator"), operator, "not a valid selector operator"))
    errors += validate_label_name(str_field(requirement, "key"), child(path, "key"))
    if not allow_invalid_values:
        for i, value in enumerate(values):
            errors += invalid_each(index(child(path, "values"), i), value, is_valid_label_value(value))
    return errors


def validate_node_selector_term(term: Json, allow_invalid_values: bool, path: str) -> list[FieldError]:
    """``ValidateNodeSelectorTerm``."""
    errors: list[FieldError] = []
    for j, requirement in enumerate(list_field(term, "matchExpressions")):
        errors += validate_node_selector_requirement(requirement, allow_invalid_values,
                                                     index(child(path, "matchExpressions"), j))
    for j, requirement in enumerate(list_field(term, "matchFields")):
        field_path = index(child(path, "matchFields"), j)
        operator = str_field(requirement, "operator")
        values = list_field(requirement, "values")
        if operator in ("In", "NotIn"):
            if len(values) != 1:
                errors.append(required_error(child(field_path, "values"), (
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")))
        else:
            errors.append(invalid_error(child(field_path, "operator"), operator, "not a valid selector operator"))
        if str_field(requirement, "key") != "metadata.name":
            errors.append(invalid_error(child(field_path, "key"), str_field(requirement, "key"),
                                        "not a valid field selector key"))
        else:
            for i, value in enumerate(values):
                errors += invalid_each(index(child(field_path, "values"), i), value, validate_node_name(value, False))
    return errors


def validate_node_selector(selector: Json, allow_invalid_values: bool, path: str) -> list[FieldError]:
    """``ValidateNodeSelector``."""
    terms = list_field(selector, "nodeSelectorTerms")
    terms_path = child(path, "nodeSelectorTerms")
    if not terms:
        return [required_error(terms_path, "must have at least one node selector term")]
    errors: list[FieldError] = []
    for i, term in enumerate(terms):
        errors += validate_node_selector_term(term, allow_invalid_values, index(terms_path, i))
    return errors


def _validate_label_keys(path: str, keys: list[str], selector: Json | None) -> list[FieldError]:
    if not keys:
        return []
    if selector is None:
        return [forbidden_error(path, "must not be specified when labelSelector is not set")]
    errors: list[FieldError] = []
    for i, label_key in enumerate(keys):
        errors += validate_label_name(label_key, index(path, i))
    return errors


def validate_match_label_keys_and_mismatch_label_keys(path: str, match: list[str], mismatch: list[str],
                                                      selector: Json | None) -> list[FieldError]:
    """``ValidateMatchLabelKeysAndMismatchLabelKeys``."""
    errors = _validate_label_keys(child(path, "matchLabelKeys"), match, selector)
    errors += _validate_label_keys(child(path, "mismatchLabelKeys"), mismatch, selector)
    if selector is not None:
        positions = {label_key: i for i, label_key in enumerate(match)}
        selector_keys = set(map_field(selector, "matchLabels"))
        for expression in list_field(selector, "matchExpressions"):
            expression_key = str_field(expression, "key")
            if expression_key in positions and expression_key in selector_keys:
                errors.append(invalid_error(index(path, positions[expression_key]), expression_key,
                                            "exists in both matchLabelKeys and labelSelector"))
            selector_keys.add(expression_key)
    mismatched = set(mismatch)
    for i, label_key in enumerate(match):
        if label_key in mismatched:
            errors.append(invalid_error(index(child(path, "matchLabelKeys"), i), label_key,
                                        "exists in both matchLabelKeys and mismatchLabelKeys"))
    return errors


def _validate_pod_affinity_term(term: Json, allow_invalid: bool, path: str) -> list[FieldError]:
    """``validatePodAffinityTerm``."""
    options = LabelSelectorValidationOptions(allow_invalid_label_value_in_selector=allow_invalid)
    errors = validate_label_selector(term.get("labelSelector"), options, child(path, "labelSelector"))
    errors += validate_label_selector(term.get("namespaceSelector"), options, child(path, "namespaceSelector"))
    for name in list_field(term, "namespaces"):
        errors += invalid_each(child(path, "namespace"), name, name_is_dns_label(name, False))
    errors += validate_match_label_keys_and_mismatch_label_keys(path, list_field(term, "matchLabelKeys"),
                                                                list_field(term, "mismatchLabelKeys"),
                                                                term.get("labelSelector"))
    topology_key = str_field(term, "topologyKey")
    if not topology_key:
        errors.append(required_error(child(path, "topologyKey"), "can not be empty"))
    return errors + validate_label_name(topology_key, child(path, "topologyKey"))


def _validate_pod_affinity_kind(affinity: Json, allow_invalid: bool, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    required_path = child(path, "requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(list_field(affinity, "requiredDuringSchedulingIgnoredDuringExecution")):
        errors += _validate_pod_affinity_term(term, allow_invalid, index(required_path, i))
    preferred_path = child(path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, weighted in enumerate(list_field(affinity, "preferredDuringSchedulingIgnoredDuringExecution")):
        weight = int_field(weighted, "weight")
        if weight <= 0 or weight > 100:
            errors.append(invalid_error(child(index(preferred_path, i), "weight"), weight, "must be in the range 1-100"))
        errors += _validate_pod_affinity_term(map_field(weighted, "podAffinityTerm"), allow_invalid,
                                              child(index(preferred_path, i), "podAffinityTerm"))
    return errors


def _validate_affinity(affinity: Json | None, options: PodValidationOptions, path: str) -> list[FieldError]:
    """``validateAffinity``."""
    if affinity is None:
        return []
    errors: list[FieldError] = []
    node_affinity = affinity.get("nodeAffinity")
    if node_affinity is not None:
        node_path = child(path, "nodeAffinity")
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            errors += validate_node_selector(required, options.allow_invalid_label_value_in_required_node_affinity,
                                             child(node_path, "requiredDuringSchedulingIgnoredDuringExecution"))
        preferred_path = child(node_path, "preferredDuringSchedulingIgnoredDuringExecution")
        for i, term in enumerate(list_field(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution")):
            weight = int_field(term, "weight")
            if weight <= 0 or weight > 100:
                errors.append(invalid_error(child(index(preferred_path, i), "weight"), weight,
                                            "must be in the range 1-100"))
            errors += validate_node_selector_term(map_field(term, "preference"), True,
                                                  child(index(preferred_path, i), "preference"))
    for kind in ("podAffinity", "podAntiAffinity"):
        if affinity.get(kind) is not None:
            errors += _validate_pod_affinity_kind(affinity[kind], options.allow_invalid_label_value_in_selector,
                                                  child(path, kind))
    return errors


def _validate_topology_spread_constraints(constraints: list[Json], path: str,
                                          options: PodValidationOptions) -> list[FieldError]:
    """``validateTopologySpreadConstraints``."""
    errors: list[FieldError] = []
    for i, constraint in enumerate(constraints):
        constraint_path = index(path, i)
        max_skew = int_field(constraint, "maxSkew")
        if max_skew <= 0:
            errors.append(invalid_error(child(constraint_path, "maxSkew"), max_skew, IS_NOT_POSITIVE_ERROR))
        topology_key = str_field(constraint, "topologyKey")
        if not topology_key:
            errors.append(required_error(child(constraint_path, "topologyKey"), "can not be empty"))
        action = str_field(constraint, "whenUnsatisfiable")
        if action not in ("DoNotSchedule", "ScheduleAnyway"):
            errors.append(not_supported_error(child(constraint_path, "whenUnsatisfiable"), action,
                                              ("DoNotSchedule", "ScheduleAnyway")))
        for rest in constraints[i + 1:]:
            if str_field(rest, "topologyKey") == topology_key and str_field(rest, "whenUnsatisfiable") == action:
                errors.append(duplicate_error(child(constraint_path, "{topologyKey, whenUnsatisfiable}"),
                                              f"{{{topology_key}, {action}}}"))
                break
        min_domains = constraint.get("minDomains")
        if min_domains is not None:
            if min_domains <= 0:
                errors.append(invalid_error(child(constraint_path, "minDomains"), min_domains, IS_NOT_POSITIVE_ERROR))
            if action != "DoNotSchedule":
                errors.append(invalid_error(child(constraint_path, "minDomains"), min_domains, (
                    f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}")))
        for policy_name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(policy_name)
            if policy is not None and policy not in ("Honor", "Ignore"):
                errors.append(not_supported_error(child(constraint_path, policy_name), policy, ("Honor", "Ignore")))
        selector = constraint.get("labelSelector")
        match_keys = list_field(constraint, "matchLabelKeys")
        if options.old_pod_violates_match_label_keys_validation:
            errors += _validate_match_label_keys_in_topology_spread(child(constraint_path, "matchLabelKeys"),
                                                                    match_keys, selector)
        else:
            errors += validate_match_label_keys_and_mismatch_label_keys(constraint_path, match_keys, [], selector)
        if not options.allow_invalid_topology_spread_constraint_label_selector:
            errors += validate_label_selector(selector, DEFAULT_LABEL_SELECTOR_OPTIONS,
                                              child(constraint_path, "labelSelector"))
    return errors


def _validate_match_label_keys_in_topology_spread(path: str, keys: list[str], selector: Json | None) -> list[FieldError]:
    """``ValidateMatchLabelKeysInTopologySpread``."""
    if not keys:
        return []
    errors: list[FieldError] = []
    selector_keys: set[str] = set()
    if selector is not None:
        selector_keys = set(map_field(selector, "matchLabels")) | {
            str_field(e, "key") for e in list_field(selector, "matchExpressions")}
    else:
        errors.append(forbidden_error(path, "must not be specified when labelSelector is not set"))
    for i, label_key in enumerate(keys):
        errors += validate_label_name(label_key, index(path, i))
        if label_key in selector_keys:
            errors.append(invalid_error(index(path, i), label_key, "exists in both matchLabelKeys and labelSelector"))
    return errors


_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")


def _validate_dns_config(spec: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``validatePodDNSConfig``."""
    config = spec.get("dnsConfig")
    if str_field(spec, "dnsPolicy") == "None":
        if config is None:
            return [required_error(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not list_field(config, "nameservers"):
            return [required_error(child(path, "nameservers"),
                                   "must provide at least one DNS nameserver when `dnsPolicy` is None")]
    if config is None:
        return []
    errors: list[FieldError] = []
    nameservers = list_field(config, "nameservers")
    if len(nameservers) > 3:
        errors.append(invalid_json(child(path, "nameservers"), nameservers, "must not have more than 3 nameservers"))
    for i, nameserver in enumerate(nameservers):
        errors += is_valid_ip(index(child(path, "nameservers"), i), nameserver)
    searches = list_field(config, "searches")
    if len(searches) > 32:
        errors.append(invalid_json(child(path, "searches"), searches, "must not have more than 32 search paths"))
    if len(" ".join(searches)) > 2048:
        errors.append(invalid_json(child(path, "searches"), searches, (
            "must not have more than 2048 characters (including spaces) in the search list")))
    for i, search in enumerate(searches):
        search_path = index(child(path, "searches"), i)
        if options.allow_relaxed_dns_search_validation:
            if search != ".":
                search = search.removesuffix(".")
                errors += invalid_each(search_path, search, _is_dns1123_subdomain_with_underscore(search))
        else:
            errors += validate_dns1123_subdomain(search.removesuffix("."), search_path)
    for i, option in enumerate(list_field(config, "options")):
        if not str_field(option, "name"):
            errors.append(required_error(index(child(path, "options"), i), "must not be empty"))
    return errors


_DNS1123_LABEL_UNDERSCORE = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_UNDERSCORE = _DNS1123_LABEL_UNDERSCORE + "(\\." + _DNS1123_LABEL_UNDERSCORE + ")*"
_DNS1123_SUBDOMAIN_UNDERSCORE_RE = re.compile(_DNS1123_SUBDOMAIN_UNDERSCORE)


def _is_dns1123_subdomain_with_underscore(value: str) -> list[str]:
    """``IsDNS1123SubdomainWithUnderscore``."""
    errors = [max_len_error(253)] if len(value.encode()) > 253 else []
    if not _DNS1123_SUBDOMAIN_UNDERSCORE_RE.fullmatch(value):
        errors.append(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', "
            "and must start and end with an alphanumeric character", _DNS1123_SUBDOMAIN_UNDERSCORE, "example.com"))
    return errors


# ----------------------------------------------------------------------------- pod spec

#: ``validate_pod_spec``'s answers, by what they depend on (``_pod_spec_key``): the pods of one
#: template (a ReplicaSet's, a StatefulSet's, a load test's) carry the same spec, and validating
#: one is a fifth of a pod create's CPU. For specs whose JSON is at most ``_POD_SPEC_MAX_BYTES``.
_POD_SPEC_ERRORS: Repeated[tuple[Any, ...], tuple[FieldError, ...]] = Repeated(256)
_POD_SPEC_MAX_BYTES = 64 * 1024


def validate_pod_spec(spec: Json, pod_meta: Json | None, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodSpec``, answered once per ``_pod_spec_key``."""
    key = _pod_spec_key(spec, pod_meta, path, options)
    if key is None:
        return _validate_pod_spec(spec, pod_meta, path, options)
    return list(_POD_SPEC_ERRORS.answer(key, lambda: tuple(_validate_pod_spec(spec, pod_meta, path, options))))


def _pod_spec_key(spec: Json, pod_meta: Json | None, path: str, options: PodValidationOptions) -> tuple[Any, ...] | None:
    """Everything ``_validate_pod_spec`` reads, None for a spec not worth keeping: the spec's
    JSON, the path and options, and of the pod's metadata what it reads there, the pod's name
    when an ephemeral volume's claim is named after it and whether the pod is a mirror pod when
    it has resource claims (validation reads and changes nothing else)."""
    encoded = json_key(_images_as_one(spec), _POD_SPEC_MAX_BYTES) if isinstance(spec, dict) else None
    if encoded is None:
        return None
    ephemeral = any(isinstance(volume, dict) and volume.get("ephemeral") is not None
                    for volume in list_field(spec, "volumes"))
    name = str_field(pod_meta, "name") if ephemeral else None
    mirror = pod_meta is not None and MIRROR_POD_ANNOTATION in map_field(pod_meta, "annotations") \
        if list_field(spec, "resourceClaims") else None
    return encoded, path, options, pod_meta is None, name, mirror


#: The container lists of a pod spec, and what ``_images_as_one`` keys an accepted image as.
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
_ANY_IMAGE = "image"


def _images_as_one(spec: Json) -> Json:
    """``spec`` for ``_pod_spec_key``, its containers' images one and the same where validation
    accepts them: it reads a container's image only to require it and (an ephemeral
    container's) to refuse surrounding whitespace, so specs that differ in accepted images (an
    image rolled out, a patch's new tag) have the same errors. A shallow copy where one changes."""
    keyed = spec
    for field_name in _CONTAINER_LISTS:
        containers = spec.get(field_name)
        if not isinstance(containers, list):
            continue
        same = [{**container, "image": _ANY_IMAGE} if _accepted_image(container) else container
                for container in containers]
        if keyed is spec:
            keyed = dict(spec)
        keyed[field_name] = same
    return keyed


def _accepted_image(container: Any) -> bool:
    image = container.get("image") if isinstance(container, dict) else None
    return isinstance(image, str) and image != "" and image == image.strip()


def _validate_pod_spec(spec: Json, pod_meta: Json | None, path: str, options: PodValidationOptions) -> list[FieldError]:
    errors: list[FieldError] = []
    grace_period = spec.get("terminationGracePeriodSeconds")
    if grace_period is None:
        errors.append(required_error(child(path, "terminationGracePeriodSeconds")))
    host_users = spec.get("hostUsers") is not False
    volumes, volume_errors = validate_volumes(list_field(spec, "volumes"), pod_meta, child(path, "volumes"), options)
    errors += volume_errors
    claims = list_field(spec, "resourceClaims")
    claim_names = {str_field(c, "name") for c in claims if str_field(c, "name")}
    errors += _validate_pod_resource_claims(pod_meta, claims, child(path, "resourceClaims"))
    errors += _validate_containers(spec, volumes, claim_names, grace_period, child(path, "containers"), options,
                                   host_users)
    errors += _validate_init_containers(spec, volumes, claim_names, grace_period, child(path, "initContainers"),
                                        options, host_users)
    errors += _validate_ephemeral_containers(spec, volumes, claim_names, child(path, "ephemeralContainers"),
                                             options, host_users)
    if options.pod_level_resources_enabled:
        errors += _validate_pod_resources(spec, claim_names, path, options)
    if spec.get("hostNetwork"):
        containers_path = child(path, "containers")
        for i, container in enumerate(list_field(spec, "containers")):
            for j, port in enumerate(list_field(container, "ports")):
                host_port, container_port = int_field(port, "hostPort"), int_field(port, "containerPort")
                if (options.resource_is_pod or host_port != 0) and host_port != container_port:
                    errors.append(invalid_error(child(index(child(index(containers_path, i), "ports"), j), "hostPort"),
                                                host_port, "must match `containerPort` when `hostNetwork` is true"))
    restart_policy = str_field(spec, "restartPolicy")
    if restart_policy not in _RESTART_POLICIES:
        errors.append(required_error(child(path, "restartPolicy")) if not restart_policy else not_supported_error(
            child(path, "restartPolicy"), restart_policy, _RESTART_POLICIES))
    dns_policy = str_field(spec, "dnsPolicy")
    if dns_policy not in _DNS_POLICIES:
        errors.append(required_error(child(path, "dnsPolicy")) if not dns_policy else not_supported_error(
            child(path, "dnsPolicy"), dns_policy, _DNS_POLICIES))
    errors += validate_labels(spec.get("nodeSelector"), child(path, "nodeSelector"))
    errors += _validate_pod_security_context(spec, child(path, "securityContext"), options)
    for i, secret in enumerate(list_field(spec, "imagePullSecrets")):
        if set(secret) - {"name"}:
            errors.append(invalid_json(index(child(path, "imagePullSecrets"), i),
                                       internal_value("core.LocalObjectReference", secret), "only name may be set"))
    errors += _validate_affinity(spec.get("affinity"), options, child(path, "affinity"))
    errors += _validate_dns_config(spec, child(path, "dnsConfig"), options)
    for i, gate in enumerate(list_field(spec, "readinessGates")):
        errors += validate_qualified_name(str_field(gate, "conditionType"),
                                          child(index(child(path, "readinessGates"), i), "conditionType"))
    seen_gates: set[str] = set()
    for i, gate in enumerate(list_field(spec, "schedulingGates")):
        gate_name = str_field(gate, "name")
        errors += validate_qualified_name(gate_name, index(child(path, "schedulingGates"), i))
        if gate_name in seen_gates:
            errors.append(duplicate_error(index(child(path, "schedulingGates"), i), gate_name))
        seen_gates.add(gate_name)
    errors += _validate_topology_spread_constraints(list_field(spec, "topologySpreadConstraints"),
                                                    child(path, "topologySpreadConstraints"), options)
    errors += _validate_host_users(spec, path, options)
    errors += _validate_pod_host_name(spec, path)
    account = str_field(spec, "serviceAccountName")
    if account:
        errors += invalid_each(child(path, "serviceAccountName"), account, name_is_dns_subdomain(account, False))
    node_name = str_field(spec, "nodeName")
    if node_name:
        errors += invalid_each(child(path, "nodeName"), node_name, validate_node_name(node_name, False))
    deadline = spec.get("activeDeadlineSeconds")
    if deadline is not None and (deadline < 1 or deadline > _MAX_INT32):
        errors.append(invalid_error(child(path, "activeDeadlineSeconds"), deadline,
                                    inclusive_range_error(1, _MAX_INT32)))
    if str_field(spec, "hostname"):
        errors += validate_dns1123_label(spec["hostname"], child(path, "hostname"))
    if str_field(spec, "subdomain"):
        errors += validate_dns1123_label(spec["subdomain"], child(path, "subdomain"))
    if list_field(spec, "tolerations"):
        errors += validate_tolerations(spec["tolerations"], child(path, "tolerations"), options)
    for i, alias in enumerate(list_field(spec, "hostAliases")):
        alias_path = index(child(path, "hostAliases"), i)
        errors += is_valid_ip(child(alias_path, "ip"), str_field(alias, "ip"))
        for j, hostname in enumerate(list_field(alias, "hostnames")):
            errors += validate_dns1123_subdomain(hostname, index(child(alias_path, "hostnames"), j))
    priority_class = str_field(spec, "priorityClassName")
    if priority_class:
        errors += invalid_each(child(path, "priorityClassName"), priority_class,
                               validate_priority_class_name(priority_class, False))
    runtime_class = spec.get("runtimeClassName")
    if runtime_class is not None:
        errors += invalid_each(child(path, "runtimeClassName"), runtime_class,
                               name_is_dns_subdomain(runtime_class, False))
    preemption = spec.get("preemptionPolicy")
    if preemption is not None and preemption not in ("PreemptLowerPriority", "Never"):
        errors.append(required_error(child(path, "preemptionPolicy")) if not preemption else not_supported_error(
            child(path, "preemptionPolicy"), preemption, ("PreemptLowerPriority", "Never")))
    if spec.get("overhead") is not None:
        errors += validate_resource_requirements({"limits": spec["overhead"]}, validate_container_resource_name,
                                                 set(), child(path, "overhead"), options)
    pod_os = spec.get("os")
    if pod_os is not None:
        os_name = str_field(pod_os, "name")
        if not os_name:
            errors.append(required_error(child(path, "os", "name")))
        elif os_name not in ("linux", "windows"):
            errors.append(not_supported_error(child(path, "os"), os_name, ("linux", "windows")))
        elif os_name == "linux":
            errors += _validate_linux(spec, path)
        else:
            errors += _validate_windows(spec, path)
    return errors + _validate_file_key_ref_volumes(spec, path)


def _validate_pod_resource_claims(pod_meta: Json | None, claims: list[Json], path: str) -> list[FieldError]:
    """``validatePodResourceClaims``."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims):
        if pod_meta is not None and MIRROR_POD_ANNOTATION in map_field(pod_meta, "annotations"):
            errors.append(forbidden_error("", "static pods do not support resource claims"))
            continue
        claim_path = index(path, i)
        name = str_field(claim, "name")
        if not name:
            errors.append(required_error(child(claim_path, "name")))
        elif name in names:
            errors.append(duplicate_error(child(claim_path, "name"), name))
        else:
            errors += validate_dns1123_label(name, child(claim_path, "name"))
            names.add(name)
        claim_name, template_name = claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName")
        shown = internal_value("core.PodResourceClaim", claim)
        if claim_name is not None and template_name is not None:
            errors.append(invalid_json(claim_path, shown, (
                "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified")))
        if claim_name is None and template_name is None:
            errors.append(invalid_json(claim_path, shown,
                                       "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        if claim_name is not None:
            errors += invalid_each(child(claim_path, "resourceClaimName"), claim_name,
                                   name_is_dns_subdomain(claim_name, False))
        if template_name is not None:
            errors += invalid_each(child(claim_path, "resourceClaimTemplateName"), template_name,
                                   name_is_dns_subdomain(template_name, False))
    return errors


def _validate_pod_resources(spec: Json, claim_names: set[str], path: str,
                            options: PodValidationOptions) -> list[FieldError]:
    """``validatePodResources``: pod-level resources."""
    resources = spec.get("resources")
    if resources is None:
        return []
    resources_path = child(path, "resources")
    if str_field(spec.get("os"), "name") == "windows":
        return [forbidden_error(resources_path, "may not be set for a windows pod")]
    errors: list[FieldError] = []
    if resources.get("claims") is not None:
        errors.append(forbidden_error(child(resources_path, "claims"), "claims may not be set for Resources at "
                                                                       "pod-level"))
    errors += validate_resource_requirements(resources, _validate_pod_resource_name, claim_names, resources_path,
                                             options)
    return errors + _validate_pod_resource_consistency(spec, resources_path)


def _validate_pod_resource_consistency(spec: Json, path: str) -> list[FieldError]:
    """``validatePodResourceConsistency``."""
    errors: list[FieldError] = []
    resources = map_field(spec, "resources")
    pod_requests = map_field(resources, "requests")
    pod_limits = map_field(resources, "limits")
    for name, aggregate in aggregate_container_resources(spec, "requests").items():
        if name in pod_requests and aggregate.cmp(quantities.decode(pod_requests[name])) > 0:
            errors.append(invalid_error(key(child(path, "requests"), name), str(quantities.decode(pod_requests[name])),
                                        f"must be greater than or equal to aggregate container requests of {aggregate}"))
    for name, aggregate in aggregate_container_resources(spec, "limits").items():
        if is_huge_page_resource(name) and name in pod_limits and \
                aggregate.cmp(quantities.decode(pod_limits[name])) > 0:
            errors.append(invalid_error(key(child(path, "limits"), name), str(quantities.decode(pod_limits[name])),
                                        f"must be greater than or equal to aggregate container limits of {aggregate}"))
    for i, container in enumerate(list_field(spec, "containers")):
        for name, limit in map_field(map_field(container, "resources"), "limits").items():
            if name in pod_limits and quantities.decode(limit).cmp(quantities.decode(pod_limits[name])) > 0:
                errors.append(invalid_error(child(key(index(child(path, "containers"), i), name), "limits"),
                                            str(quantities.decode(limit)),
                                            f"must be less than or equal to pod limits of "
                                            f"{quantities.decode(pod_limits[name])}"))
    return errors


def _validate_host_users(spec: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``validateHostUsers``."""
    if spec.get("hostUsers") is not False:
        return []
    errors: list[FieldError] = []
    if not options.allow_user_namespaces_host_network_support and spec.get("hostNetwork"):
        errors.append(forbidden_error(child(path, "hostNetwork"), "when `hostUsers` is false"))
    if spec.get("hostPID"):
        errors.append(forbidden_error(child(path, "HostPID"), "when `hostUsers` is false"))
    if spec.get("hostIPC"):
        errors.append(forbidden_error(child(path, "HostIPC"), "when `hostUsers` is false"))
    if not options.allow_user_namespaces_with_volume_devices:
        for container, container_path in _visit_containers(spec, path):
            if list_field(container, "volumeDevices"):
                errors.append(forbidden_error(child(container_path, "volumeDevices"), "when `hostUsers` is false"))
    return errors


def _validate_pod_host_name(spec: Json, path: str) -> list[FieldError]:
    """``validatePodHostName``."""
    override = spec.get("hostnameOverride")
    if override is None:
        return []
    errors: list[FieldError] = []
    if spec.get("setHostnameAsFQDN"):
        errors.append(forbidden_error(child(path, "hostnameOverride"),
                                      "may not be specified when setHostnameAsFQDN is true"))
    if spec.get("hostNetwork"):
        errors.append(forbidden_error(child(path, "hostnameOverride"), "may not be specified when hostNetwork is true"))
    if len(override.encode()) > 64:
        errors.append(too_long_error(child(path, "hostnameOverride"), 64))
    return errors + validate_dns1123_subdomain(override, child(path, "hostnameOverride"))


def _validate_linux(spec: Json, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if map_field(spec, "securityContext").get("windowsOptions") is not None:
        errors.append(forbidden_error(child(path, "securityContext", "windowsOptions"),
                                      "windows options cannot be set for a linux pod"))
    for container, container_path in _visit_containers(spec, path):
        if map_field(container, "securityContext").get("windowsOptions") is not None:
            errors.append(forbidden_error(child(container_path, "securityContext", "windowsOptions"),
                                          "windows options cannot be set for a linux pod"))
    return errors


_WINDOWS_FORBIDDEN_POD = (("securityContext", "appArmorProfile"), ("securityContext", "seLinuxOptions"),
                          ("hostUsers",), ("hostPID",), ("hostIPC",), ("securityContext", "seccompProfile"),
                          ("securityContext", "fsGroup"), ("securityContext", "fsGroupChangePolicy"),
                          ("securityContext", "sysctls"), ("shareProcessNamespace",),
                          ("securityContext", "runAsUser"), ("securityContext", "runAsGroup"),
                          ("securityContext", "supplementalGroups"), ("securityContext", "supplementalGroupsPolicy"),
                          ("securityContext", "seLinuxChangePolicy"))
_WINDOWS_FORBIDDEN_CONTAINER = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                                "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount",
                                "runAsUser", "runAsGroup")


def _validate_windows(spec: Json, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    context = map_field(spec, "securityContext")
    for field_path in _WINDOWS_FORBIDDEN_POD:
        name = field_path[-1]
        if name in ("hostUsers",):
            value = spec.get("hostUsers")
        elif name in ("hostPID", "hostIPC"):
            value = spec.get(name) or None
        elif name == "shareProcessNamespace":
            value = spec.get(name)
        elif name == "sysctls":
            value = context.get(name) or None
        else:
            value = context.get(name)
        if value is not None:
            errors.append(forbidden_error(child(path, *field_path), "cannot be set for a windows pod"))
    for container, container_path in _visit_containers(spec, path):
        container_context = container.get("securityContext")
        if container_context is None:
            continue
        for name in _WINDOWS_FORBIDDEN_CONTAINER:
            if container_context.get(name) is not None:
                errors.append(forbidden_error(child(container_path, "securityContext", name),
                                              "cannot be set for a windows pod"))
    return errors


def _validate_file_key_ref_volumes(spec: Json, path: str) -> list[FieldError]:
    """``validateFileKeyRefVolumes``."""
    sources = {str_field(v, "name"): v for v in list_field(spec, "volumes")}
    errors: list[FieldError] = []
    for container, container_path in _visit_containers(spec, path):
        for j, variable in enumerate(list_field(container, "env")):
            file_key_ref = map_field(variable, "valueFrom").get("fileKeyRef")
            if file_key_ref is None:
                continue
            volume_name = str_field(file_key_ref, "volumeName")
            name_path = child(index(child(container_path, "env"), j), "valueFrom", "fileKeyRef", "volumeName")
            volume = sources.get(volume_name)
            if volume is None:
                errors.append((name_path, "FieldValueNotFound", f"Not found: {_quote(volume_name)}"))
            elif volume.get("emptyDir") is None:
                errors.append(invalid_error(name_path, volume_name, "referenced volume must be of type emptyDir"))
    return errors


# ----------------------------------------------------------------------------- annotations

def validate_pod_specific_annotations(annotations: Json, spec: Json, path: str,
                                      options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodSpecificAnnotations``."""
    errors: list[FieldError] = []
    if MIRROR_POD_ANNOTATION in annotations and not str_field(spec, "nodeName"):
        errors.append(invalid_error(key(path, MIRROR_POD_ANNOTATION), annotations[MIRROR_POD_ANNOTATION],
                                    "must set spec.nodeName if mirror pod annotation is set"))
    if not options.allow_invalid_pod_deletion_cost and _deletion_cost_error(annotations):
        errors.append(invalid_error(key(path, POD_DELETION_COST_ANNOTATION),
                                    annotations.get(POD_DELETION_COST_ANNOTATION, ""), "must be a 32bit integer"))
    if SECCOMP_POD_ANNOTATION in annotations:
        errors += _validate_seccomp_annotation(annotations[SECCOMP_POD_ANNOTATION],
                                               child(path, SECCOMP_POD_ANNOTATION))
    for name in annotations:
        if name.startswith(SECCOMP_CONTAINER_ANNOTATION_PREFIX):
            errors += _validate_seccomp_annotation(annotations[name], child(path, name))
    for name in annotations:
        if not name.startswith(APPARMOR_CONTAINER_ANNOTATION_PREFIX):
            continue
        container_name = name.removeprefix(APPARMOR_CONTAINER_ANNOTATION_PREFIX)
        if not any(str_field(c, "name") == container_name for c, _p in _visit_containers(spec, "")):
            errors.append(invalid_error(key(path, name), container_name, "container not found"))
        profile = annotations[name]
        if profile not in ("", "runtime/default", "unconfined") and not profile.startswith("localhost/"):
            errors.append(invalid_error(key(path, name), profile, f"invalid AppArmor profile name: {_quote(profile)}"))
    return errors


def _validate_seccomp_annotation(profile: str, path: str) -> list[FieldError]:
    """``ValidateSeccompProfile`` (annotation form)."""
    if profile in ("runtime/default", "docker/default", "unconfined"):
        return []
    if profile.startswith("localhost/"):
        return validate_local_descending_path(profile.removeprefix("localhost/"), path)
    return [invalid_error(path, profile, "must be a valid seccomp profile")]


def _validate_seccomp_annotations_and_fields(meta: Json, spec: Json, path: str) -> list[FieldError]:
    """``validateSeccompAnnotationsAndFields``."""
    annotations = map_field(meta, "annotations")
    errors: list[FieldError] = []
    profile = map_field(spec, "securityContext").get("seccompProfile")
    if profile is not None and SECCOMP_POD_ANNOTATION in annotations:
        errors += _seccomp_mismatch(annotations[SECCOMP_POD_ANNOTATION], profile,
                                    child(path, "securityContext", "seccompProfile"))
    for container, container_path in _visit_containers(spec, path):
        container_profile = map_field(container, "securityContext").get("seccompProfile")
        annotation = annotations.get(SECCOMP_CONTAINER_ANNOTATION_PREFIX + str_field(container, "name"))
        if container_profile is not None and annotation is not None:
            errors += _seccomp_mismatch(annotation, container_profile,
                                        child(container_path, "securityContext", "seccompProfile"))
    return errors


def _seccomp_mismatch(annotation: str, profile: Json, path: str) -> list[FieldError]:
    kind = str_field(profile, "type")
    if kind == "Unconfined" and annotation != "unconfined":
        return [forbidden_error(child(path, "type"), "seccomp type in annotation and field must match")]
    if kind == "RuntimeDefault" and annotation not in ("runtime/default", "docker/default"):
        return [forbidden_error(child(path, "type"), "seccomp type in annotation and field must match")]
    if kind == "Localhost":
        if not annotation.startswith("localhost/"):
            return [forbidden_error(child(path, "type"), "seccomp type in annotation and field must match")]
        if annotation.removeprefix("localhost/") != profile.get("localhostProfile"):
            return [forbidden_error(child(path, "localhostProfile"), "seccomp profile in annotation and field must "
                                                                     "match")]
    return []


def _validate_apparmor_annotations_and_fields_on_create(meta: Json, spec: Json, path: str) -> list[FieldError]:
    """``validateAppArmorAnnotationsAndFieldsMatchOnCreate``."""
    if str_field(spec.get("os"), "name") == "windows":
        return []
    annotations = map_field(meta, "annotations")
    pod_profile = map_field(spec, "securityContext").get("appArmorProfile")
    errors: list[FieldError] = []
    for container, container_path in _visit_containers(spec, path):
        profile = map_field(container, "securityContext").get("appArmorProfile") or pod_profile
        if profile is None:
            continue
        annotation = annotations.get(APPARMOR_CONTAINER_ANNOTATION_PREFIX + str_field(container, "name"))
        if annotation is None:
            continue
        apparmor_path = child(container_path, "securityContext", "appArmorProfile")
        kind = str_field(profile, "type")
        if (kind == "Unconfined" and annotation != "unconfined") or (
                kind == "RuntimeDefault" and annotation != "runtime/default") or (
                kind == "Localhost" and not annotation.startswith("localhost/")):
            errors.append(forbidden_error(child(apparmor_path, "type"), "apparmor type in annotation and field must "
                                                                        "match"))
        elif kind == "Localhost" and annotation.removeprefix("localhost/") != profile.get("localhostProfile"):
            errors.append(forbidden_error(child(apparmor_path, "localhostProfile"),
                                          "apparmor profile in annotation and field must match"))
    return errors


# ----------------------------------------------------------------------------- templates

def validate_pod_template_spec(template: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodTemplateSpec``: a pod template embedded in another object (``path`` is where
    it sits: ``spec.template``)."""
    meta = map_field(template, "metadata")
    spec = map_field(template, "spec")
    annotations = map_field(meta, "annotations")
    errors = validate_labels(meta.get("labels"), child(path, "labels"))
    errors += validate_annotations(annotations, child(path, "annotations"))
    errors += validate_pod_specific_annotations(annotations, spec, child(path, "annotations"), options)
    errors += validate_pod_spec(spec, None, child(path, "spec"), options)
    errors += _validate_seccomp_annotations_and_fields(meta, spec, child(path, "spec"))
    errors += _validate_apparmor_annotations_and_fields_on_create(meta, spec, child(path, "spec"))
    if list_field(spec, "ephemeralContainers"):
        errors.append(forbidden_error(child(path, "spec", "ephemeralContainers"),
                                      "ephemeral containers not allowed in pod template"))
    return errors


# ----------------------------------------------------------------------------- pods

def _validate_pod_metadata_and_spec(pod: Json, options: PodValidationOptions) -> list[FieldError]:
    """``validatePodMetadataAndSpec``."""
    meta = map_field(pod, "metadata")
    spec = map_field(pod, "spec")
    errors = validate_core_object_meta(meta, True, validate_pod_name)
    errors += validate_pod_specific_annotations(map_field(meta, "annotations"), spec, "metadata.annotations", options)
    errors += validate_pod_spec(spec, meta, "spec", options)
    if not str_field(spec, "serviceAccountName"):
        for vi, volume in enumerate(list_field(spec, "volumes")):
            for si, source in enumerate(list_field(map_field(volume, "projected"), "sources")):
                if source.get("serviceAccountToken") is not None:
                    errors.append(forbidden_error(
                        f"spec.volumes[{vi}].projected.sources[{si}].serviceAccountToken",
                        "must not be specified when serviceAccountName is not set"))
    for kind in ("containers", "initContainers"):
        for i, container in enumerate(list_field(spec, kind)):
            errors += _validate_container_only_for_pod(container, f"spec.{kind}[{i}]")
    return errors


def validate_pod_create(pod: Json, options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodCreate``."""
    errors = _validate_pod_metadata_and_spec(pod, options)
    spec = map_field(pod, "spec")
    meta = map_field(pod, "metadata")
    if list_field(spec, "ephemeralContainers"):
        errors.append(forbidden_error("spec.ephemeralContainers", "cannot be set on create"))
    if str_field(spec, "nodeName") and list_field(spec, "schedulingGates"):
        errors.append(forbidden_error("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    errors += _validate_seccomp_annotations_and_fields(meta, spec, "spec")
    return errors + _validate_apparmor_annotations_and_fields_on_create(meta, spec, "spec")


def validate_pod_specific_annotation_updates(new: Json, old: Json, path: str,
                                             options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodSpecificAnnotationUpdates``."""
    new_annotations = map_field(map_field(new, "metadata"), "annotations")
    old_annotations = map_field(map_field(old, "metadata"), "annotations")
    errors: list[FieldError] = []
    for name in old_annotations:
        if new_annotations.get(name) == old_annotations[name] and name in new_annotations:
            continue
        if name.startswith(APPARMOR_CONTAINER_ANNOTATION_PREFIX):
            errors.append(forbidden_error(key(path, name), "may not remove or update AppArmor annotations"))
        if name == MIRROR_POD_ANNOTATION:
            errors.append(forbidden_error(key(path, name), "may not remove or update mirror pod annotation"))
    for name in new_annotations:
        if name in old_annotations:
            continue
        if name.startswith(APPARMOR_CONTAINER_ANNOTATION_PREFIX):
            errors.append(forbidden_error(key(path, name), "may not add AppArmor annotations"))
        if name == MIRROR_POD_ANNOTATION:
            errors.append(forbidden_error(key(path, name), "may not add mirror pod annotation"))
    return errors + validate_pod_specific_annotations(new_annotations, map_field(new, "spec"), path, options)


def _container_updates(new: list[Json], old: list[Json], path: str) -> tuple[list[FieldError], bool]:
    """``ValidateContainerUpdates``."""
    if len(new) != len(old):
        return [forbidden_error(path, "pod updates may not add or remove containers")], True
    errors: list[FieldError] = []
    for i, container in enumerate(new):
        image = str_field(container, "image")
        if not image:
            errors.append(required_error(child(index(path, i), "image")))
        if image.strip() != image:
            errors.append(invalid_error(child(index(path, i), "image"), image,
                                        "must not have leading or trailing whitespace"))
    return errors, False


UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`", "`spec.initContainers[*].image`", "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)


def validate_pod_update(new: Json, old: Json, options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodUpdate``: beyond metadata, only images, a lower activeDeadlineSeconds, added
    tolerations and removed scheduling gates (and a gated pod's node selector and affinity
    additions) may change."""
    from .pod_spec_diff import pod_spec_diff

    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    errors += _validate_pod_metadata_and_spec(new, options)
    errors += validate_pod_specific_annotation_updates(new, old, "metadata.annotations", options)
    new_spec, old_spec = map_field(new, "spec"), map_field(old, "spec")
    for kind in ("containers", "initContainers"):
        container_errors, stop = _container_updates(list_field(new_spec, kind), list_field(old_spec, kind),
                                                    f"spec.{kind}")
        errors += container_errors
        if stop:
            return errors
    new_deadline, old_deadline = new_spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    if new_deadline is not None:
        if new_deadline < 0 or new_deadline > _MAX_INT32:
            errors.append(invalid_error("spec.activeDeadlineSeconds", new_deadline,
                                        inclusive_range_error(0, _MAX_INT32)))
            return errors
        if old_deadline is not None and old_deadline < new_deadline:
            errors.append(invalid_error("spec.activeDeadlineSeconds", new_deadline,
                                        "must be less than or equal to previous value"))
            return errors
    elif old_deadline is not None:
        errors.append(invalid_json("spec.activeDeadlineSeconds", None,
                                   "must not update from a positive integer to nil value"))
    errors += _validate_only_added_tolerations(list_field(new_spec, "tolerations"), list_field(old_spec, "tolerations"),
                                               "spec.tolerations", options)
    errors += _validate_only_deleted_scheduling_gates(list_field(new_spec, "schedulingGates"),
                                                      list_field(old_spec, "schedulingGates"), "spec.schedulingGates")
    if new_spec == old_spec:
        return errors
    munged = dict(new_spec)
    for kind in ("containers", "initContainers"):
        if kind in munged:
            munged[kind] = [{**c, "image": old_c.get("image")} if "image" in old_c or "image" in c else c
                            for c, old_c in zip(munged[kind], list_field(old_spec, kind), strict=True)]
            for c, old_c in zip(munged[kind], list_field(old_spec, kind), strict=True):
                if "image" not in old_c:
                    c.pop("image", None)
    set_or_drop(munged, "activeDeadlineSeconds", old_deadline)
    set_or_drop(munged, "schedulingGates", old_spec.get("schedulingGates"))
    set_or_drop(munged, "tolerations", old_spec.get("tolerations"))
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if old_grace is not None and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if list_field(old_spec, "schedulingGates"):
        if (munged.get("nodeSelector") or {}) != (old_spec.get("nodeSelector") or {}):
            errors += _validate_node_selector_mutation("spec.nodeSelector", map_field(munged, "nodeSelector"),
                                                       map_field(old_spec, "nodeSelector"))
            set_or_drop(munged, "nodeSelector", old_spec.get("nodeSelector"))
        old_node_affinity = map_field(old_spec, "affinity").get("nodeAffinity")
        new_node_affinity = map_field(munged, "affinity").get("nodeAffinity")
        if old_node_affinity != new_node_affinity:
            errors += _validate_node_affinity_mutation("spec.affinity.nodeAffinity", new_node_affinity,
                                                       old_node_affinity)
            affinity = munged.get("affinity")
            if affinity is None and old_node_affinity is None:
                pass
            elif affinity is None:
                munged["affinity"] = {"nodeAffinity": old_node_affinity}
            elif old_spec.get("affinity") is None and affinity.get("podAntiAffinity") is None and \
                    affinity.get("podAffinity") is None:
                munged.pop("affinity")
            else:
                munged["affinity"] = {**affinity}
                set_or_drop(munged["affinity"], "nodeAffinity", old_node_affinity)
    if munged != old_spec:
        message = "pod updates may not change fields other than " + ",".join(UPDATABLE_POD_SPEC_FIELDS)
        errors.append(forbidden_error("spec", message + "\n" + pod_spec_diff(old_spec, munged)))
    return errors


def _validate_only_added_tolerations(new: list[Json], old: list[Json], path: str,
                                     options: PodValidationOptions) -> list[FieldError]:
    """``validateOnlyAddedTolerations``: existing tolerations stay (their tolerationSeconds may
    change)."""
    for existing in old:
        if not any({**existing, "tolerationSeconds": t.get("tolerationSeconds")} == _with_seconds(t) for t in new):
            return [forbidden_error(path, "existing toleration can not be modified except its tolerationSeconds")]
    return validate_tolerations(new, path, options)


def _with_seconds(toleration: Json) -> Json:
    return {**toleration, "tolerationSeconds": toleration.get("tolerationSeconds")}


def _validate_only_deleted_scheduling_gates(new: list[Json], old: list[Json], path: str) -> list[FieldError]:
    """``validateOnlyDeletedSchedulingGates``."""
    if not new:
        return []
    added = {str_field(g, "name"): i for i, g in enumerate(new)}
    for gate in old:
        added.pop(str_field(gate, "name"), None)
    return [forbidden_error(child(index(path, i), "name"),
                            f"only deletion is allowed, but found new scheduling gate '{name}'")
            for name, i in added.items()]


def _validate_node_selector_mutation(path: str, new: Json, old: Json) -> list[FieldError]:
    """``validateNodeSelectorMutation``: a gated pod's node selector may only gain entries."""
    if any(name not in new or new[name] != value for name, value in old.items()):
        return [invalid_json(path, dict(sorted(new.items())) or None,
                             "only additions to spec.nodeSelector are allowed (no mutations or deletions)")]
    return []


def _validate_node_affinity_mutation(path: str, new: Json | None, old: Json | None) -> list[FieldError]:
    """``validateNodeAffinityMutation``: a gated pod's required node affinity terms may only
    gain requirements."""
    old_terms = list_field(map_field(old, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
    if old is None or old.get("requiredDuringSchedulingIgnoredDuringExecution") is None:
        return []
    new_terms = list_field(map_field(new, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
    terms_path = child(path, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    if old_terms and len(old_terms) != len(new_terms):
        return [invalid_json(terms_path, internal_value("core.NodeSelectorTerm", new_terms) or None,
                             "no additions/deletions to non-empty NodeSelectorTerms list are allowed")]
    errors: list[FieldError] = []
    for i, (old_term, new_term) in enumerate(zip(old_terms, new_terms, strict=True)):
        if not _only_additions(new_term, old_term):
            errors.append(invalid_json(index(terms_path, i), internal_value("core.NodeSelectorTerm", new_term),
                                       "only additions are allowed (no mutations or deletions)"))
    return errors


def _only_additions(new: Json, old: Json) -> bool:
    """``validateNodeSelectorTermHasOnlyAdditions``: an empty term stays empty; otherwise the
    old requirements are the new list's prefix."""
    if not list_field(old, "matchExpressions") and not list_field(old, "matchFields"):
        if list_field(new, "matchExpressions") or list_field(new, "matchFields"):
            return False
    for kind in ("matchExpressions", "matchFields"):
        old_list = list_field(old, kind)
        if old_list and list_field(new, kind)[:len(old_list)] != old_list:
            return False
    return True


# ----------------------------------------------------------------------------- pod status

def validate_pod_status_update(new: Json, old: Json, options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodStatusUpdate``."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    errors += validate_pod_specific_annotation_updates(new, old, "metadata.annotations", options)
    status, old_status = map_field(new, "status"), map_field(old, "status")
    spec, old_spec = map_field(new, "spec"), map_field(old, "spec")
    for i, condition in enumerate(list_field(status, "conditions")):
        condition_path = index("status.conditions", i)
        generation = int_field(condition, "observedGeneration")
        if generation < 0:
            errors.append(invalid_error(child(condition_path, "observedGeneration"), generation,
                                        "must be a non-negative integer"))
        kind = str_field(condition, "type")
        if kind not in ("PodScheduled", "Ready", "Initialized"):
            errors += validate_qualified_name(kind, child(condition_path, "Type"))
    if str_field(spec, "nodeName") != str_field(old_spec, "nodeName"):
        errors.append(forbidden_error("status.nodeName", "may not be changed directly"))
    nominated, old_nominated = str_field(status, "nominatedNodeName"), str_field(old_status, "nominatedNodeName")
    if nominated != old_nominated and nominated:
        errors += invalid_each("status.nominatedNodeName", nominated, validate_node_name(nominated, False))
    if str_field(old_spec, "nodeName") and nominated and nominated != old_nominated:
        errors.append(forbidden_error("status.nominatedNodeName", "may not be set on pods that are already bound "
                                                                  "to a node"))
    if int_field(status, "observedGeneration") < 0:
        errors.append(invalid_error("status.observedGeneration", status["observedGeneration"],
                                    "must be a non-negative integer"))
    if str_field(status, "qosClass") != str_field(old_status, "qosClass"):
        errors.append(invalid_error("status.qosClass", str_field(status, "qosClass"), "field is immutable"))
    errors += _container_state_transitions(status, old_status, old_spec, "containerStatuses", options)
    errors += _container_state_transitions(status, old_status, old_spec, "initContainerStatuses", options)
    errors += _container_state_transitions(status, old_status, old_spec, "ephemeralContainerStatuses", options)
    errors += _validate_pod_ips(status, old_status, "podIPs", "ip")
    errors += _validate_host_ips(status, old_status)
    return errors


def _container_state_transitions(status: Json, old_status: Json, old_spec: Json, kind: str,
                                 options: PodValidationOptions) -> list[FieldError]:
    """``ValidateContainerStateTransition`` and its init/ephemeral variants: a terminated
    container may not run again unless the restart policies allow it."""
    path = f"status.{kind}"
    new_statuses = list_field(status, kind)
    errors: list[FieldError] = []
    restart_policy = str_field(old_spec, "restartPolicy")
    spec_kind = {"containerStatuses": "containers", "initContainerStatuses": "initContainers"}.get(kind)
    for i, old_container in enumerate(list_field(old_status, kind)):
        terminated = map_field(old_container, "state").get("terminated")
        if terminated is None:
            continue
        name = str_field(old_container, "name")
        restarted = any(str_field(n, "name") == name and map_field(n, "state").get("terminated") is None
                        for n in new_statuses)
        if not restarted:
            continue
        if spec_kind is None:
            allowed = False
        elif options.allow_container_restart_policy_rules:
            container = next((c for c in list_field(old_spec, spec_kind) if str_field(c, "name") == name), None)
            allowed = container is not None and _container_should_restart(container, old_spec,
                                                                          int_field(terminated, "exitCode"))
        else:
            allowed = restart_policy == "Always" or (
                restart_policy == "OnFailure" and int_field(terminated, "exitCode") != 0)
            if spec_kind == "initContainers":
                container = next((c for c in list_field(old_spec, spec_kind) if str_field(c, "name") == name), None)
                allowed = allowed or (container is not None and container.get("restartPolicy") == "Always")
        if not allowed:
            errors.append(forbidden_error(child(index(path, i), "state"),
                                          "may not be transitioned to non-terminated state"))
    return errors


def _container_should_restart(container: Json, spec: Json, exit_code: int) -> bool:
    """``podutil.ContainerShouldRestart``."""
    for rule in list_field(container, "restartPolicyRules"):
        codes = map_field(rule, "exitCodes")
        values = list_field(codes, "values")
        matched = (exit_code in values) if str_field(codes, "operator") == "In" else (exit_code not in values)
        if matched:
            return str_field(rule, "action") == "Restart"
    policy = container.get("restartPolicy") or str_field(spec, "restartPolicy")
    return policy == "Always" or (policy == "OnFailure" and exit_code != 0)


def _validate_pod_ips(status: Json, old_status: Json, kind: str, name: str) -> list[FieldError]:
    """``validatePodIPs``."""
    path = f"status.{kind}"
    existing = [str_field(ip, name) for ip in list_field(old_status, kind)]
    ips = list_field(status, kind)
    errors: list[FieldError] = []
    for i, ip in enumerate(ips):
        errors += is_valid_ip(index(path, i), str_field(ip, name), existing)
    if len(ips) > 1 and not _dual_stack([str_field(ip, name) for ip in ips]):
        errors.append(invalid_json(path, ips, "may specify no more than one IP for each IP family"))
    return errors


def _validate_host_ips(status: Json, old_status: Json) -> list[FieldError]:
    """``validateHostIPs``."""
    ips = list_field(status, "hostIPs")
    if not ips:
        return []
    errors: list[FieldError] = []
    if str_field(status, "hostIP") != str_field(ips[0], "ip"):
        errors.append(invalid_error("status.hostIPs[0].ip", str_field(ips[0], "ip"), "must be equal to `hostIP`"))
    existing = [str_field(ip, "ip") for ip in list_field(old_status, "hostIPs")]
    for i, ip in enumerate(ips):
        errors += is_valid_ip(index("status.hostIPs", i), str_field(ip, "ip"), existing)
    if len(ips) > 1 and not _dual_stack([str_field(ip, "ip") for ip in ips]):
        errors.append(invalid_json("status.hostIPs", ips, "may specify no more than one IP for each IP family"))
    return errors


def _dual_stack(addresses: list[str]) -> bool:
    """``netutils.IsDualStackIPStrings`` for two addresses (more are never dual stack here)."""
    if len(addresses) != 2:
        return False
    versions = {getattr(parse_ip_sloppy(a), "version", None) for a in addresses}
    return versions == {4, 6}


# ----------------------------------------------------------------------------- pod templates, RCs

def validate_pod_template(template: Json, options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodTemplate`` (the PodTemplate kind)."""
    errors = validate_core_object_meta(map_field(template, "metadata"), True, validate_pod_name)
    return errors + validate_pod_template_spec(map_field(template, "template"), "template", options)


def validate_pod_template_update(new: Json, old: Json, options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodTemplateUpdate``."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    return errors + validate_pod_template_spec(map_field(new, "template"), "template", options)


def _validate_pod_template_spec_for_rc(template: Json | None, selector: Json, path: str,
                                       options: PodValidationOptions) -> list[FieldError]:
    """``ValidatePodTemplateSpecForRC``."""
    if template is None:
        return [required_error(path)]
    errors: list[FieldError] = []
    labels = map_field(map_field(template, "metadata"), "labels")
    if selector and any(labels.get(name) != value for name, value in selector.items()):
        errors.append(invalid_json(child(path, "metadata", "labels"), dict(sorted(labels.items())) or None,
                                   "`selector` does not match template `labels`"))
    errors += validate_pod_template_spec(template, path, options)
    spec = map_field(template, "spec")
    if str_field(spec, "restartPolicy") != "Always":
        errors.append(not_supported_error(child(path, "spec", "restartPolicy"), str_field(spec, "restartPolicy"),
                                          ("Always",)))
    if spec.get("activeDeadlineSeconds") is not None:
        errors.append(forbidden_error(child(path, "spec", "activeDeadlineSeconds"),
                                      "activeDeadlineSeconds in ReplicationController is not Supported"))
    return errors


def _validate_replication_controller_spec(spec: Json, options: PodValidationOptions) -> list[FieldError]:
    """``ValidateReplicationControllerSpec``."""
    errors = validate_nonnegative_field(int_field(spec, "minReadySeconds"), "spec.minReadySeconds")
    selector = map_field(spec, "selector")
    if not selector:
        errors.append(required_error("spec.selector"))
    replicas = spec.get("replicas")
    if replicas is None:
        errors.append(required_error("spec.replicas"))
    else:
        errors += validate_nonnegative_field(replicas, "spec.replicas")
    return errors + _validate_pod_template_spec_for_rc(spec.get("template"), selector, "spec.template", options)


def validate_replication_controller(controller: Json, options: PodValidationOptions) -> list[FieldError]:
    """``ValidateReplicationController`` (its name by the declarative ``LongName`` rule)."""
    errors = validate_object_meta_with_opts(map_field(controller, "metadata"), True, long_name_errors)
    for i, finalizer in enumerate(list_field(map_field(controller, "metadata"), "finalizers")):
        errors += validate_kube_finalizer_name(finalizer, index("metadata.finalizers", i))
    return errors + _validate_replication_controller_spec(map_field(controller, "spec"), options)


def validate_replication_controller_update(new: Json, old: Json, options: PodValidationOptions) -> list[FieldError]:
    """``ValidateReplicationControllerUpdate``."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    return errors + _validate_replication_controller_spec(map_field(new, "spec"), options)


def validate_replication_controller_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateReplicationControllerStatusUpdate``."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    status = map_field(new, "status")
    for name in ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"):
        errors += validate_nonnegative_field(int_field(status, name), f"status.{name}")
    replicas = int_field(status, "replicas")
    for name in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
        if int_field(status, name) > replicas:
            errors.append(invalid_error(f"status.{name}", int_field(status, name),
                                        "cannot be greater than status.replicas"))
    if int_field(status, "availableReplicas") > int_field(status, "readyReplicas"):
        errors.append(invalid_error("status.availableReplicas", int_field(status, "availableReplicas"),
                                    "cannot be greater than readyReplicas"))
    return errors
