"""Kube's internal core types as Go's ``json.Marshal`` prints them: the bad value of a
``field.Invalid`` whose value is an internal struct (a Job's immutable ``spec.template``, a
``core.PodTemplateSpec``).

The internal types (``pkg/apis/core``) carry no ``json`` tags: every field prints, under its Go
name, a nil pointer, slice or map as ``null``, an absent scalar as its zero value, an absent
non-pointer struct as a struct of zero values, and an embedded struct's fields as the embedding
struct's own. Their fields are the v1 types' (``gotypes``) in the same order but for the pod's
spec and security context, whose internal layout differs (the host namespace fields live in the
security context; ``serviceAccount`` is gone): ``_INTERNAL_ORDER`` has those. The types of
apimachinery (``ObjectMeta``, ``LabelSelector``) and those with a JSON form of their own
(quantities, times, int-or-strings) are the same internally and print as they are stored.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from ...machinery import gotypes

Json = dict[str, Any]

_CORE = "k8s.io.api.core.v1."
#: Types whose v1 JSON is their Go JSON: apimachinery's (tagged, with omitempty) and the types
#: that marshal themselves.
_AS_STORED = ("k8s.io.apimachinery.",)
#: The host namespace fields (internal ``core.PodSecurityContext``'s) that are pointers.
_HOST_POINTERS = ("ShareProcessNamespace", "HostUsers")
#: Go field order of internal structs that differ from their v1 type's, by v1 message: Go names,
#: with ``+name`` for a field internal adds (the host namespace fields, taken from the pod spec).
_INTERNAL_ORDER = {
    _CORE + "PodSpec": (
        "Volumes", "InitContainers", "Containers", "EphemeralContainers", "RestartPolicy",
        "TerminationGracePeriodSeconds", "ActiveDeadlineSeconds", "DNSPolicy", "NodeSelector", "ServiceAccountName",
        "AutomountServiceAccountToken", "NodeName", "SecurityContext", "ImagePullSecrets", "Hostname", "Subdomain",
        "SetHostnameAsFQDN", "Affinity", "SchedulerName", "Tolerations", "HostAliases", "PriorityClassName",
        "Priority", "PreemptionPolicy", "DNSConfig", "ReadinessGates", "RuntimeClassName", "Overhead",
        "EnableServiceLinks", "TopologySpreadConstraints", "OS", "SchedulingGates", "ResourceClaims", "Resources",
        "HostnameOverride", "WorkloadRef"),
    _CORE + "PodSecurityContext": (
        "+HostNetwork", "+HostPID", "+HostIPC", "+ShareProcessNamespace", "+HostUsers", "SELinuxOptions",
        "WindowsOptions", "RunAsUser", "RunAsGroup", "RunAsNonRoot", "SupplementalGroups", "SupplementalGroupsPolicy",
        "FSGroup", "FSGroupChangePolicy", "Sysctls", "SeccompProfile", "AppArmorProfile", "SELinuxChangePolicy"),
}
_SCALAR_ZEROS = {FieldDescriptor.TYPE_STRING: "", FieldDescriptor.TYPE_BOOL: False}


def pod_template_json(template: Json) -> Json:
    """An internal ``core.PodTemplateSpec`` (from its v1 form, defaulted): the metadata's fields
    first (``ObjectMeta`` is embedded), then ``Spec``."""
    # The conversion from v1 always makes the security context (it holds the host fields).
    spec = {**(template.get("spec") or {})}
    spec["securityContext"] = spec.get("securityContext") or {}
    return {**(template.get("metadata") or {}), "Spec": _struct(_message(_CORE + "PodSpec"), spec, spec)}


def _message(name: str) -> Descriptor:
    return gotypes.types().pool.FindMessageTypeByName(name)


def _struct(message: Descriptor, value: Json, pod_spec: Json) -> Json:
    """A v1 struct's value as its internal type prints; ``pod_spec`` is the pod spec it is part
    of (where the security context finds the host namespace fields)."""
    types = gotypes.types()
    fields = types.go_fields[message.full_name]
    assert isinstance(fields, list), message.full_name
    go_names = types.go_names[message.full_name]
    by_go_name = {go_names[proto]: (proto, json_name, flags) for proto, json_name, flags in fields}
    order = _INTERNAL_ORDER.get(message.full_name) or tuple(go_names[proto] for proto, _json, _flags in fields)
    out: Json = {}
    for go_name in order:
        if go_name.startswith("+"):  # a host field: a bool, or a *bool (null when unset)
            host_field = go_name[1:]
            out[host_field] = pod_spec.get(host_field[0].lower() + host_field[1:],
                                           None if host_field in _HOST_POINTERS else False)
            continue
        proto, json_name, flags = by_go_name[go_name]
        field = message.fields_by_name[proto]
        if "i" in flags:  # embedded: its fields are the struct's own
            out.update(_struct(field.message_type, value, pod_spec))
            continue
        out[go_name] = _field(field, value.get(json_name), "p" in flags, pod_spec)
    return out


def _field(field: FieldDescriptor, value: Any, pointer: bool, pod_spec: Json) -> Any:
    message = field.message_type
    if message is not None and message.GetOptions().map_entry:
        if value is None:
            return None
        entry = message.fields_by_name["value"]
        return {key: _field(entry, value[key], False, pod_spec) for key in sorted(value)}
    if field.is_repeated:
        if value is None:
            return None
        return [_field_value(field, item, pod_spec) for item in value]
    if value is None:
        if pointer:
            return None
        if message is None:
            return _SCALAR_ZEROS.get(field.type, 0)
        if message.full_name.startswith(_AS_STORED):
            return _zero_as_stored(message)
        return _struct(message, {}, pod_spec)
    return _field_value(field, value, pod_spec)


def _field_value(field: FieldDescriptor, value: Any, pod_spec: Json) -> Any:
    message = field.message_type
    if message is None or message.full_name.startswith(_AS_STORED):
        return value
    if message.full_name.startswith(_CORE):
        return _struct(message, value, pod_spec)
    return value


def _zero_as_stored(message: Descriptor) -> Any:
    """An absent non-pointer field of a type that prints itself: a quantity's zero is "0", an
    int-or-string's 0, a time's null, a struct of apimachinery's {} (its fields all omitempty)."""
    name = message.name
    if name == "Quantity":
        return "0"
    if name == "IntOrString":
        return 0
    if name in ("Time", "MicroTime"):
        return None
    return {}
