"""Validation of the access reviews (kube's ``pkg/apis/authorization/validation``), on the JSON of
the v1 objects. Bad values print as 1.35's ``field.Error`` prints them: JSON of the internal Go
struct (whose fields have no json tags, so ``{"Path":"/x","Verb":"get"}``), ``null`` for nil."""

from __future__ import annotations

from typing import Any

from ...machinery.metadata import go_object_meta
from ...machinery.status import FieldError, forbidden_error, invalid_error, required_error
from ...machinery.validation import LabelSelectorValidationOptions, invalid_json, validate_label_selector_requirement

Json = dict[str, Any]

_UNKNOWN_OPERATORS_ALLOWED = LabelSelectorValidationOptions(allow_unknown_operator_in_requirement=True)


def _non_resource_attributes(value: Json | None) -> Json | None:
    """The internal ``NonResourceAttributes`` a v1 one converts to."""
    if value is None:
        return None
    return {"Path": value.get("path", ""), "Verb": value.get("verb", "")}


def _spec_errors(spec: Json, *, subject: bool) -> list[FieldError]:
    """``ValidateSubjectAccessReviewSpec`` (``subject``) or ``ValidateSelfSubjectAccessReviewSpec``."""
    errors: list[FieldError] = []
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if resource is not None and non_resource is not None:
        errors.append(invalid_json("spec.nonResourceAttributes", _non_resource_attributes(non_resource),
                                      "cannot be specified in combination with resourceAttributes"))
    if resource is None and non_resource is None:
        errors.append(invalid_json("spec.resourceAttributes", None,
                                      "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
    if subject and not spec.get("user") and not spec.get("groups"):
        errors.append(invalid_error("spec.user", spec.get("user", ""), "at least one of user or group must be specified"))
    if resource is not None:
        errors += _selector_errors(resource.get("fieldSelector"), "spec.resourceAttributes.fieldSelector", labels=False)
        errors += _selector_errors(resource.get("labelSelector"), "spec.resourceAttributes.labelSelector", labels=True)
    return errors


def _selector_errors(selector: Json | None, path: str, *, labels: bool) -> list[FieldError]:
    """``validateFieldSelectorAttributes`` / ``validateLabelSelectorAttributes`` (unknown
    operators allowed: they only make the selector ignored)."""
    if selector is None:
        return []
    errors: list[FieldError] = []
    raw, requirements = selector.get("rawSelector", ""), selector.get("requirements") or []
    if raw and requirements:
        errors.append(invalid_error(f"{path}.rawSelector", raw, "may not specified at the same time as requirements"))
    if not raw and not requirements:
        errors.append(required_error(f"{path}.requirements", f"when {path} is specified, requirements or rawSelector is required"))
    for i, requirement in enumerate(requirements):
        at = f"{path}.requirements[{i}]"
        if labels:
            errors += validate_label_selector_requirement(requirement, _UNKNOWN_OPERATORS_ALLOWED, at)
        else:
            errors += _field_requirement_errors(requirement, at)
    return errors


def _field_requirement_errors(requirement: Json, path: str) -> list[FieldError]:
    """``ValidateFieldSelectorRequirement`` with unknown operators allowed."""
    operator, values = requirement.get("operator", ""), requirement.get("values") or []
    errors = [] if requirement.get("key") else [required_error(f"{path}.key", "must be specified")]
    if operator in ("In", "NotIn") and not values:
        errors.append(required_error(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist") and values:
        errors.append(forbidden_error(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    return errors


def _metadata_errors(meta: Json, *, keep_namespace: bool) -> list[FieldError]:
    """The review's metadata must be empty (but for managedFields, and a local review's namespace)."""
    ignored = {"managedFields", "namespace"} if keep_namespace else {"managedFields"}
    if all(value in (None, "", 0, [], {}) for key, value in meta.items() if key not in ignored):
        return []
    detail = "must be empty except for namespace" if keep_namespace else "must be empty"
    return [invalid_json("metadata", go_object_meta(meta), detail)]


def validate_subject_access_review(review: Json) -> list[FieldError]:
    return _spec_errors(review.get("spec") or {}, subject=True) + _metadata_errors(review["metadata"], keep_namespace=False)


def validate_self_subject_access_review(review: Json) -> list[FieldError]:
    return _spec_errors(review.get("spec") or {}, subject=False) + _metadata_errors(review["metadata"], keep_namespace=False)


def validate_local_subject_access_review(review: Json) -> list[FieldError]:
    spec = review.get("spec") or {}
    errors = _spec_errors(spec, subject=True) + _metadata_errors(review["metadata"], keep_namespace=True)
    resource = spec.get("resourceAttributes")
    namespace = review["metadata"].get("namespace", "")
    if resource is not None and resource.get("namespace", "") != namespace:
        errors.append(invalid_error("spec.resourceAttributes.namespace", resource.get("namespace", ""), "must match metadata.namespace"))
    if spec.get("nonResourceAttributes") is not None:
        errors.append(invalid_json("spec.nonResourceAttributes", _non_resource_attributes(spec["nonResourceAttributes"]),
                                      "disallowed on this kind of request"))
    return errors
