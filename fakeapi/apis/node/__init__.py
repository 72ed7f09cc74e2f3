"""The node.k8s.io group (kube's ``pkg/apis/node``): RuntimeClasses (``validation/validation.go``,
``pkg/registry/node/runtimeclass/strategy.go``, warnings of ``pkg/api/node``)."""

from __future__ import annotations

from ...machinery.status import FieldError, invalid_error
from ...machinery.validation import (
    name_is_dns_label,
    name_is_dns_subdomain,
    validate_immutable_field,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from ..core.defaults import set_defaults_resource_list
from ..core.validation import (
    validate_resource_requirements,
    validate_tolerations,
)
from ..core.validation_common import PodValidationOptions, validate_container_resource_name
from ..core.warnings import DEPRECATED_NODE_LABELS
from ..decoding import decoder
from ..errors import duplicate_json
from ..fields import Json, get, items
from ..rules import register


def _decode(obj: Json) -> None:
    """The overhead is a ResourceList: quantities in canonical form, rounded up to milli-units."""
    set_defaults_resource_list(get(obj, "overhead", "podFixed"))


def _validate(obj: Json) -> list[FieldError]:
    errors = validate_object_meta(obj["metadata"], False, name_is_dns_subdomain)
    handler = obj.get("handler") or ""
    errors += [invalid_error("handler", handler, message) for message in name_is_dns_label(handler, False)]
    overhead = obj.get("overhead")
    if overhead is not None:
        errors += validate_resource_requirements({"limits": overhead.get("podFixed") or {}},
                                                 validate_container_resource_name, set(), "overhead",
                                                 PodValidationOptions())
    scheduling = obj.get("scheduling")
    if scheduling is not None:
        if scheduling.get("nodeSelector") is not None:
            errors += validate_labels(scheduling["nodeSelector"], "scheduling.nodeSelector")
        tolerations = items(scheduling, "tolerations")
        errors += validate_tolerations(tolerations, "scheduling.tolerations", PodValidationOptions())
        seen = []
        for i, toleration in enumerate(tolerations):
            identity = tuple(toleration.get(name) or "" for name in ("key", "operator", "value", "effect"))
            if identity in seen:
                errors.append(duplicate_json(f"scheduling.tolerations[{i}]", {
                    "Key": identity[0], "Operator": identity[1], "Value": identity[2], "Effect": identity[3],
                    "TolerationSeconds": toleration.get("tolerationSeconds")}))
            else:
                seen.append(identity)
    return errors


def validate_runtime_class_update(new: Json, old: Json) -> list[FieldError]:
    errors = _validate(new) + validate_object_meta_update(new["metadata"], old["metadata"])
    return errors + validate_immutable_field(new.get("handler") or "", old.get("handler") or "", "handler")


def warnings(obj: Json, old: Json | None = None) -> list[str]:
    """``GetWarningsForRuntimeClass``: deprecated node labels in the node selector."""
    selector = get(obj, "scheduling", "nodeSelector") or {}
    return [f"scheduling.nodeSelector: {DEPRECATED_NODE_LABELS[label]}" for label in sorted(selector)
            if label in DEPRECATED_NODE_LABELS]


register("node.k8s.io", "v1", "RuntimeClass", default=decoder("RuntimeClass", _decode), validate=_validate,
         validate_update=validate_runtime_class_update, warnings_on_create=warnings)
