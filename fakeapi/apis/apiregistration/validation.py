"""APIService validation (kube-aggregator's ``pkg/apis/apiregistration/validation``)."""

from __future__ import annotations

import base64

from ...machinery.path import is_valid_path_segment_name
from ...machinery.status import FieldError, invalid_error, not_supported_error, required_error
from ...machinery.validation import (
    is_dns1035_label,
    is_dns1123_subdomain,
    is_valid_port_num,
    validate_object_meta,
    validate_object_meta_update,
)
from ..fields import Json, items

#: ``ValidateAPIService``'s bounds, inclusive at the top (whatever the messages say).
MAX_GROUP_PRIORITY_MINIMUM = 20000
MAX_VERSION_PRIORITY = 1000
_CONDITION_STATUSES = ("True", "False", "Unknown")


def _ca_bundle_length(spec: Json) -> int:
    """The caBundle's length in bytes (JSON carries it base64-encoded; decoding refused a bad one)."""
    return len(base64.b64decode(spec.get("caBundle") or ""))


def validate_api_service(obj: Json) -> list[FieldError]:
    spec = obj.get("spec") or {}
    group, version = spec.get("group") or "", spec.get("version") or ""
    required_name = f"{version}.{group}"

    def name_rule(name: str, prefix: bool) -> list[str]:
        # The name *must* be version.group (a generateName prefix is held to the same rule).
        minimal = is_valid_path_segment_name(name)
        if minimal:
            return minimal
        return [] if name == required_name else [f'must be `spec.version+"."+spec.group`: "{required_name}"']

    errors = validate_object_meta(obj["metadata"], False, name_rule)
    if not group and version != "v1":
        errors.append(required_error("spec.group", "only v1 may have an empty group and it better be legacy kube"))
    if group:
        errors += [invalid_error("spec.group", group, message) for message in is_dns1123_subdomain(group)]
    errors += [invalid_error("spec.version", version, message) for message in is_dns1035_label(version)]
    group_priority = spec.get("groupPriorityMinimum") or 0
    if not 0 < group_priority <= MAX_GROUP_PRIORITY_MINIMUM:
        errors.append(invalid_error("spec.groupPriorityMinimum", group_priority, "must be positive and less than 20000"))
    version_priority = spec.get("versionPriority") or 0
    if not 0 < version_priority <= MAX_VERSION_PRIORITY:
        errors.append(invalid_error("spec.versionPriority", version_priority, "must be positive and less than 1000"))
    ca_bundle = _ca_bundle_length(spec)
    insecure = bool(spec.get("insecureSkipTLSVerify"))
    service = spec.get("service")
    if service is None:
        if ca_bundle:
            errors.append(invalid_error("spec.caBundle", f"{ca_bundle} bytes", "local APIServices may not have a caBundle"))
        if insecure:
            errors.append(invalid_error("spec.insecureSkipTLSVerify", True,
                                        "local APIServices may not have insecureSkipTLSVerify"))
        return errors
    if not service.get("namespace"):
        errors.append(required_error("spec.service.namespace"))
    if not service.get("name"):
        errors.append(required_error("spec.service.name"))
    port = service.get("port") or 0
    port_errors = is_valid_port_num(port)
    if port_errors:
        errors.append(invalid_error("spec.service.port", port, "port is not valid: " + ", ".join(port_errors)))
    if insecure and ca_bundle:
        errors.append(invalid_error("spec.insecureSkipTLSVerify", True, "may not be true if caBundle is present"))
    return errors


def validate_api_service_update(new: Json, old: Json) -> list[FieldError]:
    return validate_object_meta_update(new["metadata"], old["metadata"]) + validate_api_service(new)


def validate_api_service_status_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_object_meta_update(new["metadata"], old["metadata"])
    for i, condition in enumerate(items(new.get("status"), "conditions")):
        status = condition.get("status") or ""
        if status not in _CONDITION_STATUSES:
            errors.append(not_supported_error(f"status.conditions[{i}].status", status, _CONDITION_STATUSES))
    return errors
