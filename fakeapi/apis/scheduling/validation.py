"""PriorityClass validation (``pkg/apis/scheduling/validation/validation.go``)."""

from __future__ import annotations

from ...machinery.status import FieldError, forbidden_error, required_error
from ...machinery.validation import name_is_dns_subdomain, validate_immutable_field
from ..core.validation_common import validate_core_object_meta, validate_core_object_meta_update
from ..errors import not_supported_json
from ..fields import Json

#: ``scheduling.HighestUserDefinablePriority`` and ``SystemPriorityClassPrefix``.
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PREFIX = "system-"
#: kube's system PriorityClasses: (value, globalDefault).
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": (2_000_001_000, False),
                           "system-cluster-critical": (2_000_000_000, False)}
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def _system_class_problem(name: str, value: int, global_default: bool) -> str | None:
    """``IsKnownSystemPriorityClass``'s error."""
    known = SYSTEM_PRIORITY_CLASSES.get(name)
    if known is None:
        return f"{name} is not a known system priority class"
    if known[0] != value:
        return f"value of {name} PriorityClass must be {known[0]}"
    if known[1] != global_default:
        return f"globalDefault of {name} PriorityClass must be {'true' if known[1] else 'false'}"
    return None


def validate_priority_class(obj: Json) -> list[FieldError]:
    meta = obj["metadata"]
    errors = validate_core_object_meta(meta, False, name_is_dns_subdomain)
    name, value = meta.get("name") or "", obj.get("value") or 0
    if name.startswith(SYSTEM_PREFIX):
        problem = _system_class_problem(name, value, bool(obj.get("globalDefault")))
        if problem is not None:
            errors.append(forbidden_error("metadata.name", "priority class names with 'system-' prefix are reserved "
                                                           f"for system use only. error: {problem}"))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errors.append(forbidden_error("value", "maximum allowed value of a user defined priority is "
                                               f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = obj.get("preemptionPolicy")
    if policy is not None:
        if not policy:
            errors.append(required_error("preemptionPolicy"))
        elif policy not in _PREEMPTION_POLICIES:
            errors.append(not_supported_json("preemptionPolicy", policy, _PREEMPTION_POLICIES))
    return errors


def validate_priority_class_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    if (new.get("value") or 0) != (old.get("value") or 0):
        errors.append(forbidden_error("value", "may not be changed in an update."))
    return errors + validate_immutable_field(new.get("preemptionPolicy"), old.get("preemptionPolicy"),
                                             "preemptionPolicy")
