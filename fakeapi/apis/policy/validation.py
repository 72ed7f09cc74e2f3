"""PodDisruptionBudget validation (``pkg/apis/policy/validation/validation.go``). It checks no
ObjectMeta of its own: the registry's common validation (path-segment names) is all."""

from __future__ import annotations

from typing import Any

from ...machinery.status import FieldError
from ...machinery.validation import (
    LabelSelectorValidationOptions,
    child,
    invalid_json,
    validate_conditions,
    validate_label_selector,
    validate_nonnegative_field,
)
from .. import selectors
from ..apps.validation import is_not_more_than_100_percent, validate_positive_int_or_percent
from ..errors import not_supported_json
from ..fields import Json, get

_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")


def _spec_go(spec: Json) -> Json:
    """An internal ``policy.PodDisruptionBudgetSpec`` as ``json.Marshal`` prints it."""
    return {"MinAvailable": spec.get("minAvailable"), "Selector": selectors.go_json(spec.get("selector")),
            "MaxUnavailable": spec.get("maxUnavailable"),
            "UnhealthyPodEvictionPolicy": spec.get("unhealthyPodEvictionPolicy")}


def _validate_spec(spec: Json, allow_invalid_label_value: bool) -> list[FieldError]:
    """``ValidatePodDisruptionBudgetSpec``."""
    errors: list[FieldError] = []
    path = "spec"
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errors.append(invalid_json(path, _spec_go(spec), "minAvailable and maxUnavailable cannot be both set"))
    for name in ("minAvailable", "maxUnavailable"):
        value: Any = spec.get(name)
        if value is not None:
            errors += validate_positive_int_or_percent(value, child(path, name))
            errors += is_not_more_than_100_percent(value, child(path, name))
    errors += validate_label_selector(spec.get("selector"), LabelSelectorValidationOptions(
        allow_invalid_label_value_in_selector=allow_invalid_label_value), child(path, "selector"))
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _EVICTION_POLICIES:
        errors.append(not_supported_json(child(path, "unhealthyPodEvictionPolicy"), policy, _EVICTION_POLICIES))
    return errors


def validate_pod_disruption_budget(obj: Json) -> list[FieldError]:
    return _validate_spec(obj.get("spec") or {}, False)


def validate_pod_disruption_budget_update(new: Json, old: Json) -> list[FieldError]:
    """Selector label values that were already invalid stay allowed (``hasInvalidLabelValueInLabelSelector``)."""
    old_selector = get(old, "spec", "selector")
    invalid_before = old_selector is not None and bool(
        validate_label_selector(old_selector, LabelSelectorValidationOptions(), ""))
    return _validate_spec(new.get("spec") or {}, invalid_before)


def validate_pod_disruption_budget_status_update(new: Json, old: Json) -> list[FieldError]:
    status = new.get("status") or {}
    errors = validate_conditions(status.get("conditions"), "status.conditions")
    for name in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        errors += validate_nonnegative_field(status.get(name) or 0, child("status", name))
    return errors
