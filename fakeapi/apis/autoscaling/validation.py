"""HorizontalPodAutoscaler validation (``pkg/apis/autoscaling/validation/validation.go``) with
the options ``pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`` derives. It runs on
the autoscaling/v2 object, the storage version: an autoscaling/v1 request is converted first,
so its errors name the v2 fields, as kube's (which validates the internal type) do."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...machinery import quantity
from ...machinery.path import is_valid_path_segment_name
from ...machinery.status import FieldError, forbidden_error, invalid_error, required_error
from ...machinery.validation import (
    child,
    index,
    is_dns1123_label,
    name_is_dns_subdomain,
    validate_nonnegative_field,
)
from ..core.validation_common import (
    validate_container_resource_name,
    validate_core_object_meta,
    validate_core_object_meta_update,
)
from ..errors import not_supported_json, validate_nonnegative_quantity
from ..fields import Json, get, items

MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_WINDOW_SECONDS = 3600
_METRIC_SOURCES = ("ContainerResource", "External", "Object", "Pods", "Resource")
#: The metric source types and the field each one fills.
_SOURCE_FIELDS = {"Object": "object", "Pods": "pods", "Resource": "resource", "External": "external",
                  "ContainerResource": "containerResource"}
_SELECT_POLICIES = ("Disabled", "Max", "Min")
_POLICY_TYPES = ("Percent", "Pods")


@dataclass(frozen=True, slots=True)
class ReferenceOptions:
    """``CrossVersionObjectReferenceValidationOptions``."""

    allow_empty_api_group: bool = False
    allow_invalid_api_version: bool = False


@dataclass(frozen=True, slots=True)
class SpecOptions:
    """``HorizontalPodAutoscalerSpecValidationOptions``."""

    min_replicas_lower_bound: int = 1
    scale_target_ref: ReferenceOptions = ReferenceOptions()
    object_metrics: ReferenceOptions = ReferenceOptions(allow_empty_api_group=True)


def api_version_error(ref: Json, options: ReferenceOptions) -> str | None:
    """``ValidateAPIVersion``: ``schema.ParseGroupVersion``'s error, or an empty group's."""
    if options.allow_invalid_api_version:
        return None
    api_version = ref.get("apiVersion") or ""
    if api_version in ("", "/"):
        group = ""
    elif api_version.count("/") == 0:
        group = ""
    elif api_version.count("/") == 1:
        group = api_version.partition("/")[0]
    else:
        return f"unexpected GroupVersion string: {api_version}"
    if not options.allow_empty_api_group and not group:
        return "apiVersion must specify API group"
    return None


def validate_cross_version_object_reference(ref: Json, path: str, options: ReferenceOptions) -> list[FieldError]:
    errors: list[FieldError] = []
    for name in ("kind", "name"):
        value = ref.get(name) or ""
        if not value:
            errors.append(required_error(child(path, name)))
        else:
            errors += [invalid_error(child(path, name), value, m) for m in is_valid_path_segment_name(value)]
    problem = api_version_error(ref, options)
    if problem is not None:
        errors.append(invalid_error(child(path, "apiVersion"), ref.get("apiVersion") or "", problem))
    return errors


def _options(new: Json, old: Json | None) -> SpecOptions:
    """``validationOptionsForHorizontalPodAutoscaler``."""
    options = SpecOptions()
    if old is not None and get(old, "spec", "minReplicas") == 0:
        options = replace(options, min_replicas_lower_bound=0)  # HPAScaleToZero is off in 1.35
    new_ref, old_ref = get(new, "spec", "scaleTargetRef") or {}, get(old, "spec", "scaleTargetRef") or {}
    if old is not None and new_ref.get("apiVersion") == old_ref.get("apiVersion") \
            and new_ref.get("kind") == old_ref.get("kind"):
        options = replace(options, scale_target_ref=ReferenceOptions(allow_invalid_api_version=True))
    elif new_ref.get("kind") == "ReplicationController":
        options = replace(options, scale_target_ref=ReferenceOptions(allow_empty_api_group=True))
    if old is not None:
        for metric in items(old.get("spec"), "metrics"):
            if metric.get("type") == "Object" and metric.get("object") is not None and api_version_error(
                    get(metric, "object", "describedObject") or {}, options.object_metrics) is not None:
                options = replace(options, object_metrics=replace(options.object_metrics, allow_invalid_api_version=True))
                break
    return options


# ----------------------------------------------------------------------------- metrics

def _positive(target: Json, name: str, path: str) -> list[FieldError]:
    value = target.get(name)
    if value is not None and quantity.decode(value).sign() != 1:
        return [invalid_error(child(path, name), str(quantity.decode(value)), "must be positive")]
    return []


def _validate_metric_target(target: Json, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = target.get("type") or ""
    if not kind:
        errors.append(required_error(child(path, "type"), "must specify a metric target type"))
    if kind not in ("Utilization", "Value", "AverageValue"):
        errors.append(invalid_error(child(path, "type"), kind, "must be either Utilization, Value, or AverageValue"))
    errors += _positive(target, "value", path)
    errors += _positive(target, "averageValue", path)
    utilization = target.get("averageUtilization")
    if utilization is not None and utilization < 1:
        errors.append(invalid_error(child(path, "averageUtilization"), utilization, "must be greater than 0"))
    return errors


def _validate_metric_identifier(identifier: Json, path: str) -> list[FieldError]:
    name = identifier.get("name") or ""
    if not name:
        return [required_error(child(path, "name"), "must specify a metric name")]
    return [invalid_error(child(path, "name"), name, m) for m in is_valid_path_segment_name(name)]


def _validate_source(kind: str, source: Json, path: str, options: ReferenceOptions) -> list[FieldError]:
    """``validate{Object,External,Pods,Resource,ContainerResource}Source``."""
    target = source.get("target") or {}
    target_path = child(path, "target")
    errors: list[FieldError] = []
    if kind == "object":
        errors += validate_cross_version_object_reference(source.get("describedObject") or {},
                                                          child(path, "describedObject"), options)
    if kind in ("object", "external", "pods"):
        errors += _validate_metric_identifier(source.get("metric") or {}, child(path, "metric"))
    if kind == "resource":
        if not source.get("name"):
            errors.append(required_error(child(path, "name"), "must specify a resource name"))
    if kind == "containerResource":
        name, container = source.get("name") or "", source.get("container") or ""
        if not name:
            errors.append(required_error(child(path, "name"), "must specify a resource name"))
        else:
            errors += validate_container_resource_name(name, child(path, "name"))
        if not container:
            errors.append(required_error(child(path, "container"), "must specify a container"))
        else:
            errors += [invalid_error(child(path, "container"), container, m) for m in is_dns1123_label(container)]
    errors += _validate_metric_target(target, target_path)
    has_value, has_average = target.get("value") is not None, target.get("averageValue") is not None
    if kind == "object" and not has_value and not has_average:
        errors.append(required_error(child(target_path, "averageValue"), "must set either a target value or averageValue"))
    if kind == "external":
        if not has_value and not has_average:
            errors.append(required_error(child(target_path, "averageValue"),
                                         "must set either a target value for metric or a per-pod target"))
        if has_value and has_average:
            errors.append(forbidden_error(child(target_path, "value"),
                                          "may not set both a target value for metric and a per-pod target"))
    if kind == "pods" and not has_average:
        errors.append(required_error(child(target_path, "averageValue"), "must specify a positive target averageValue"))
    if kind in ("resource", "containerResource"):
        has_utilization = target.get("averageUtilization") is not None
        if not has_utilization and not has_average:
            errors.append(required_error(child(target_path, "averageUtilization"),
                                         "must set either a target raw value or a target utilization"))
        if has_utilization and has_average:
            errors.append(forbidden_error(child(target_path, "averageValue"),
                                          "may not set both a target raw value and a target utilization"))
    return errors


def _validate_metric_spec(metric: Json, path: str, options: ReferenceOptions) -> list[FieldError]:
    """``validateMetricSpec``: a known type, and only its own source, validated."""
    errors: list[FieldError] = []
    kind = metric.get("type") or ""
    if not kind:
        errors.append(required_error(child(path, "type"), "must specify a metric source type"))
    if kind not in _METRIC_SOURCES:
        errors.append(not_supported_json(child(path, "type"), kind, _METRIC_SOURCES))
    present = []
    for source in ("object", "external", "pods", "resource", "containerResource"):
        if metric.get(source) is not None:
            present.append(source)
            if len(present) == 1:
                errors += _validate_source(source, metric[source], child(path, source), options)
    expected = _SOURCE_FIELDS.get(kind)
    if expected is None:
        errors.append(not_supported_json(child(path, "type"), kind, _METRIC_SOURCES))
    elif metric.get(expected) is None:
        errors.append(required_error(child(path, expected), "must populate information for the given metric source"))
    if len(present) != 1:
        # Go ranges over a set here: several extra sources come in no fixed order.
        for source in sorted(set(present) - {expected}):
            errors.append(forbidden_error(child(path, source), "must populate the given metric source only"))
    return errors


def _validate_metrics(spec: Json, path: str, options: ReferenceOptions) -> list[FieldError]:
    errors: list[FieldError] = []
    kinds = set()
    for i, metric in enumerate(items(spec, "metrics")):
        errors += _validate_metric_spec(metric, index(path, i), options)
        kinds.add(metric.get("type"))
    if spec.get("minReplicas") == 0 and not kinds & {"Object", "External"}:
        errors.append(forbidden_error(path, "must specify at least one Object or External metric to support scaling to "
                                            "zero replicas"))
    return errors


# ----------------------------------------------------------------------------- behavior

def _validate_scaling_rules(rules: Json | None, path: str) -> list[FieldError]:
    if rules is None:
        return []
    errors: list[FieldError] = []
    window = rules.get("stabilizationWindowSeconds")
    if window is not None and window < 0:
        errors.append(invalid_error(child(path, "stabilizationWindowSeconds"), window, "must be greater than or equal to zero"))
    if window is not None and window > MAX_STABILIZATION_WINDOW_SECONDS:
        errors.append(invalid_error(child(path, "stabilizationWindowSeconds"), window,
                                    f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"))
    select_policy = rules.get("selectPolicy")
    if select_policy is not None and select_policy not in _SELECT_POLICIES:
        errors.append(not_supported_json(child(path, "selectPolicy"), select_policy, _SELECT_POLICIES))
    policies = items(rules, "policies")
    policies_path = child(path, "policies")
    if not policies:
        errors.append(required_error(policies_path, "must specify at least one Policy"))
    for i, policy in enumerate(policies):
        policy_path = index(policies_path, i)
        kind = policy.get("type") or ""
        if kind not in _POLICY_TYPES:
            errors.append(not_supported_json(child(policy_path, "type"), kind, _POLICY_TYPES))
        value, period = policy.get("value") or 0, policy.get("periodSeconds") or 0
        if value <= 0:
            errors.append(invalid_error(child(policy_path, "value"), value, "must be greater than zero"))
        if period <= 0:
            errors.append(invalid_error(child(policy_path, "periodSeconds"), period, "must be greater than zero"))
        if period > MAX_PERIOD_SECONDS:
            errors.append(invalid_error(child(policy_path, "periodSeconds"), period,
                                        f"must be less than or equal to {MAX_PERIOD_SECONDS}"))
    if rules.get("tolerance") is not None:
        errors += validate_nonnegative_quantity(rules["tolerance"], child(path, "tolerance"))
    return errors


def _validate_spec(spec: Json, path: str, options: SpecOptions) -> list[FieldError]:
    """``validateHorizontalPodAutoscalerSpec``."""
    errors: list[FieldError] = []
    min_replicas, max_replicas = spec.get("minReplicas"), spec.get("maxReplicas") or 0
    if min_replicas is not None and min_replicas < options.min_replicas_lower_bound:
        errors.append(invalid_error(child(path, "minReplicas"), min_replicas,
                                    f"must be greater than or equal to {options.min_replicas_lower_bound}"))
    if max_replicas < 1:
        errors.append(invalid_error(child(path, "maxReplicas"), max_replicas, "must be greater than 0"))
    if min_replicas is not None and max_replicas < min_replicas:
        errors.append(invalid_error(child(path, "maxReplicas"), max_replicas, "must be greater than or equal to `minReplicas`"))
    errors += validate_cross_version_object_reference(spec.get("scaleTargetRef") or {}, child(path, "scaleTargetRef"),
                                                      options.scale_target_ref)
    errors += _validate_metrics(spec, child(path, "metrics"), options.object_metrics)
    behavior = spec.get("behavior")
    if behavior is not None:
        errors += _validate_scaling_rules(behavior.get("scaleUp"), child(path, "behavior", "scaleUp"))
        errors += _validate_scaling_rules(behavior.get("scaleDown"), child(path, "behavior", "scaleDown"))
    return errors


def validate_hpa(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    return errors + _validate_spec(obj.get("spec") or {}, "spec", _options(obj, None))


def validate_hpa_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    return errors + _validate_spec(new.get("spec") or {}, "spec", _options(new, old))


def validate_hpa_status_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    status = new.get("status") or {}
    for name in ("currentReplicas", "desiredReplicas"):
        errors += validate_nonnegative_field(status.get(name) or 0, child("status", name))
    return errors
