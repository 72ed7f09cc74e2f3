"""apps/v1 validation: ``pkg/apis/apps/validation/validation.go``, in Go's order, on the v1 JSON
objects (what kube validates is the internal object the v1 one converts to: the DaemonSet's
``templateGeneration`` annotation is its ``spec.templateGeneration`` there)."""

from __future__ import annotations

import json
import re
from typing import Any

from ...machinery.status import FieldError, forbidden_error, invalid_error, required_error
from ...machinery.validation import (
    DEFAULT_LABEL_SELECTOR_OPTIONS,
    LabelSelectorValidationOptions,
    child,
    index,
    invalid_json,
    is_dns1123_label,
    is_valid_percent,
    label_selector_has_invalid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
    validate_annotations,
    validate_immutable_field,
    validate_label_selector,
    validate_labels,
    validate_nonnegative_field,
)
from .. import selectors
from ..core.validation_common import validate_core_object_meta, validate_core_object_meta_update
from ..errors import not_supported_json
from ..fields import Json, get, items
from ..podtemplates import (
    PodValidationOptions,
    pod_template_validation_options,
    validate_claim_template_spec,
    validate_pod_specific_annotations,
    validate_pod_template_spec,
)
from .strategy import rollback_revision, template_generation

RECREATE = "Recreate"
ROLLING_UPDATE = "RollingUpdate"
ON_DELETE = "OnDelete"
_RETENTION_POLICIES = ("Retain", "Delete")
_EMPTY_SELECTOR = "empty selector is invalid for {}"
_SELECTOR_MISMATCH = "`selector` does not match template `labels`"
_GREATER_THAN_REPLICAS = "cannot be greater than status.replicas"


def _int(obj: Json | None, name: str) -> int:
    value = (obj or {}).get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# ----------------------------------------------------------------------------- int or percent

def _percent(value: Any) -> int | None:
    """``getPercentValue``: the number of a valid percentage string, None otherwise."""
    if not isinstance(value, str) or is_valid_percent(value):
        return None
    return int(value[:-1])


def _int_or_percent(value: Any) -> int:
    """``getIntOrPercentValue``: a percentage's number, an int's value; ``IntValue()`` of any
    other string (its ``Atoi``, 0 when it is not a number)."""
    percent = _percent(value)
    if percent is not None:
        return percent
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value) else 0


def validate_positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent``."""
    if isinstance(value, str):
        return [invalid_json(path, value, message) for message in is_valid_percent(value)]
    return validate_nonnegative_field(value if isinstance(value, int) else 0, path)


def is_not_more_than_100_percent(value: Any, path: str) -> list[FieldError]:
    """``IsNotMoreThan100Percent``."""
    percent = _percent(value)
    if percent is None or percent <= 100:
        return []
    return [invalid_json(path, value, "must not be greater than 100%")]


# ----------------------------------------------------------------------------- pod templates

def _validate_selector(spec: Json, path: str, kind: str, options: LabelSelectorValidationOptions) -> list[FieldError]:
    """The selector checks Deployments, ReplicaSets and StatefulSets share: required, valid
    (strictly), not empty."""
    selector = spec.get("selector")
    if selector is None:
        return [required_error(child(path, "selector"))]
    errors = validate_label_selector(selector, options, child(path, "selector"))
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errors.append(invalid_json(child(path, "selector"), selectors.go_json(selector), _EMPTY_SELECTOR.format(kind)))
    return errors


def _template_labels_match(selector: Json | None, template: Json, path: str) -> list[FieldError]:
    """The template's labels must be selected by a non-empty selector."""
    labels = get(template, "metadata", "labels")
    if not selectors.is_empty(selector) and not selectors.matches(selector, labels):
        return [invalid_json(child(path, "metadata", "labels"), dict(sorted((labels or {}).items())) if labels is not None
                             else None, _SELECTOR_MISMATCH)]
    return []


def _validate_restart_policy_always(template: Json, path: str, kind: str) -> list[FieldError]:
    """A controller's pods run forever: ``restartPolicy: Always``, no ``activeDeadlineSeconds``."""
    errors = []
    pod_spec = template.get("spec") or {}
    restart_policy = pod_spec.get("restartPolicy") or ""
    if restart_policy != "Always":
        errors.append(not_supported_json(child(path, "spec", "restartPolicy"), restart_policy, ["Always"]))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errors.append(forbidden_error(child(path, "spec", "activeDeadlineSeconds"),
                                      f"activeDeadlineSeconds in {kind} is not Supported"))
    return errors


def validate_pod_template_spec_for_replica_set(template: Json, selector: Json | None, path: str,
                                               options: PodValidationOptions, kind: str = "ReplicaSet") -> list[FieldError]:
    """``ValidatePodTemplateSpecForReplicaSet`` (``kind`` names the owner in the messages)."""
    errors = _template_labels_match(selector, template, path)
    errors += validate_pod_template_spec(template, path, options)
    return errors + _validate_restart_policy_always(template, path, kind)


# ----------------------------------------------------------------------------- Deployments

def _deployment_strategy_go(strategy: Json) -> Json:
    """An internal ``apps.DeploymentStrategy`` as ``json.Marshal`` prints it."""
    rolling_update = strategy.get("rollingUpdate")
    return {"Type": strategy.get("type") or "", "RollingUpdate": None if rolling_update is None else {
        "MaxUnavailable": rolling_update.get("maxUnavailable", 0), "MaxSurge": rolling_update.get("maxSurge", 0)}}


def validate_rolling_update_deployment(rolling_update: Json, path: str) -> list[FieldError]:
    """``ValidateRollingUpdateDeployment``."""
    max_unavailable = rolling_update.get("maxUnavailable", 0)
    max_surge = rolling_update.get("maxSurge", 0)
    errors = validate_positive_int_or_percent(max_unavailable, child(path, "maxUnavailable"))
    errors += validate_positive_int_or_percent(max_surge, child(path, "maxSurge"))
    if _int_or_percent(max_unavailable) == 0 and _int_or_percent(max_surge) == 0:
        errors.append(invalid_json(child(path, "maxUnavailable"), max_unavailable, "may not be 0 when `maxSurge` is 0"))
    return errors + is_not_more_than_100_percent(max_unavailable, child(path, "maxUnavailable"))


def validate_deployment_strategy(strategy: Json, path: str) -> list[FieldError]:
    """``ValidateDeploymentStrategy``."""
    kind = strategy.get("type") or ""
    rolling_update = strategy.get("rollingUpdate")
    if kind == RECREATE:
        if rolling_update is not None:
            return [forbidden_error(child(path, "rollingUpdate"),
                                    "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind == ROLLING_UPDATE:
        if rolling_update is None:
            return [required_error(child(path, "rollingUpdate"), "this should be defaulted and never be nil")]
        return validate_rolling_update_deployment(rolling_update, child(path, "rollingUpdate"))
    return [not_supported_json(path, _deployment_strategy_go(strategy), [RECREATE, ROLLING_UPDATE])]


def _validate_selector_and_template(spec: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """The selector, and the pod template it must select: a Deployment's and a ReplicaSet's."""
    errors = _validate_selector(spec, path, "deployment", DEFAULT_LABEL_SELECTOR_OPTIONS)
    selector = spec.get("selector")
    if not selectors.converts(selector):
        return errors + [invalid_json(child(path, "selector"), selectors.go_json(selector), "invalid label selector")]
    return errors + validate_pod_template_spec_for_replica_set(spec.get("template") or {}, selector,
                                                               child(path, "template"), options)


def validate_deployment_spec(obj: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``ValidateDeploymentSpec``."""
    spec = obj.get("spec") or {}
    errors = validate_nonnegative_field(_int(spec, "replicas"), child(path, "replicas"))
    errors += _validate_selector_and_template(spec, path, options)
    errors += validate_deployment_strategy(spec.get("strategy") or {}, child(path, "strategy"))
    min_ready_seconds = _int(spec, "minReadySeconds")
    errors += validate_nonnegative_field(min_ready_seconds, child(path, "minReadySeconds"))
    if spec.get("revisionHistoryLimit") is not None:
        errors += validate_nonnegative_field(_int(spec, "revisionHistoryLimit"), child(path, "revisionHistoryLimit"))
    revision = rollback_revision(obj)
    if revision is not None:
        errors += validate_nonnegative_field(revision, child(path, "rollback", "version"))
    if spec.get("progressDeadlineSeconds") is not None:
        deadline = _int(spec, "progressDeadlineSeconds")
        errors += validate_nonnegative_field(deadline, child(path, "progressDeadlineSeconds"))
        if deadline <= min_ready_seconds:
            errors.append(invalid_json(child(path, "progressDeadlineSeconds"), deadline,
                                       "must be greater than minReadySeconds"))
    return errors


def validate_deployment(obj: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(obj, "spec", "template"), None)
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    return errors + validate_deployment_spec(obj, "spec", options)


def validate_deployment_update(new: Json, old: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(new, "spec", "template"), get(old, "spec", "template"))
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    errors += validate_deployment_spec(new, "spec", options)
    return errors + _immutable_selector(new, old)


def _immutable_selector(new: Json, old: Json) -> list[FieldError]:
    return validate_immutable_field(selectors.go_json(get(new, "spec", "selector")),
                                    selectors.go_json(get(old, "spec", "selector")), "spec.selector")


def _validate_status_counts(status: Json, path: str, names: tuple[str, ...]) -> list[FieldError]:
    errors: list[FieldError] = []
    for name in names:
        errors += validate_nonnegative_field(_int(status, name), child(path, name))
    return errors


def _validate_optional_counts(status: Json, path: str, names: tuple[str, ...]) -> list[FieldError]:
    errors: list[FieldError] = []
    for name in names:
        if status.get(name) is not None:
            errors += validate_nonnegative_field(_int(status, name), child(path, name))
    return errors


def _not_greater(status: Json, path: str, name: str, limit: str, message: str) -> list[FieldError]:
    if _int(status, name) > _int(status, limit):
        return [invalid_error(child(path, name), _int(status, name), message)]
    return []


def _collision_count_decremented(new: Json, old: Json) -> list[FieldError]:
    """``IsDecremented`` of ``status.collisionCount``."""
    new_count, old_count = get(new, "status", "collisionCount"), get(old, "status", "collisionCount")
    if old_count is not None and (new_count is None or new_count < old_count):
        return [invalid_error("status.collisionCount", new_count or 0, "cannot be decremented")]
    return []


def validate_deployment_status_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    status, path = new.get("status") or {}, "status"
    errors += _validate_status_counts(status, path, (
        "observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
        "unavailableReplicas"))
    errors += _validate_optional_counts(status, path, ("terminatingReplicas", "collisionCount"))
    for name in ("updatedReplicas", "readyReplicas", "availableReplicas"):
        errors += _not_greater(status, path, name, "replicas", _GREATER_THAN_REPLICAS)
    errors += _not_greater(status, path, "availableReplicas", "readyReplicas", "cannot be greater than readyReplicas")
    return errors + _collision_count_decremented(new, old)


# ----------------------------------------------------------------------------- ReplicaSets

def validate_replica_set_spec(spec: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``ValidateReplicaSetSpec``."""
    errors = validate_nonnegative_field(_int(spec, "replicas"), child(path, "replicas"))
    errors += validate_nonnegative_field(_int(spec, "minReadySeconds"), child(path, "minReadySeconds"))
    errors += _validate_selector_and_template(spec, path, options)
    return errors


def validate_replica_set(obj: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(obj, "spec", "template"), None)
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    return errors + validate_replica_set_spec(obj.get("spec") or {}, "spec", options)


def validate_replica_set_update(new: Json, old: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(new, "spec", "template"), get(old, "spec", "template"))
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    errors += validate_replica_set_spec(new.get("spec") or {}, "spec", options)
    return errors + _immutable_selector(new, old)


def validate_replica_set_status_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    status, path = new.get("status") or {}, "status"
    errors += _validate_status_counts(status, path, (
        "replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"))
    errors += _validate_optional_counts(status, path, ("terminatingReplicas",))
    for name in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
        errors += _not_greater(status, path, name, "replicas", _GREATER_THAN_REPLICAS)
    return errors + _not_greater(status, path, "availableReplicas", "readyReplicas",
                                 "cannot be greater than readyReplicas")


# ----------------------------------------------------------------------------- StatefulSets

def _rolling_update_stateful_set_go(rolling_update: Json) -> Json:
    """An internal ``apps.RollingUpdateStatefulSetStrategy`` as ``json.Marshal`` prints it."""
    return {"Partition": _int(rolling_update, "partition"), "MaxUnavailable": rolling_update.get("maxUnavailable")}


def _stateful_set_strategy_go(strategy: Json) -> Json:
    rolling_update = strategy.get("rollingUpdate")
    return {"Type": strategy.get("type") or "",
            "RollingUpdate": None if rolling_update is None else _rolling_update_stateful_set_go(rolling_update)}


def _validate_rolling_update_stateful_set(rolling_update: Json, path: str) -> list[FieldError]:
    """``validateRollingUpdateStatefulSet``."""
    errors = validate_nonnegative_field(_int(rolling_update, "partition"), child(path, "partition"))
    max_unavailable = rolling_update.get("maxUnavailable")
    if max_unavailable is not None:
        max_path = child(path, "maxUnavailable")
        errors += validate_positive_int_or_percent(max_unavailable, max_path)
        if _int_or_percent(max_unavailable) == 0:
            errors.append(invalid_json(max_path, max_unavailable, "cannot be 0"))
        errors += is_not_more_than_100_percent(max_unavailable, max_path)
    return errors


def _template_to_validate(spec: Json) -> Json:
    """The template as the StatefulSet's pods will have it: hostname and subdomain are the
    controller's, and each volume claim template is a volume (it wins over a volume of the
    same name)."""
    template = spec.get("template") or {}
    pod_spec = template.get("spec") or {}
    claims = items(spec, "volumeClaimTemplates")
    if not pod_spec.get("subdomain") and not pod_spec.get("hostname") and not claims:
        return template
    pod_spec = {key: value for key, value in pod_spec.items() if key not in ("subdomain", "hostname")}
    if claims:
        names = {get(claim, "metadata", "name") or "" for claim in claims}
        # Go iterates a map here: the claims' volumes come in no fixed order; sorted, they are
        # one of kube's orders.
        volumes = [{"name": name, "persistentVolumeClaim": {"claimName": name}} for name in sorted(names)]
        pod_spec["volumes"] = volumes + [v for v in items(pod_spec, "volumes") if v.get("name") not in names]
    return {**template, "spec": pod_spec}


def validate_stateful_set_spec(spec: Json, path: str | None, options: PodValidationOptions, *, allow_invalid_service_name: bool,
                               skip_pod_template: bool = False, skip_claim_templates: bool = False) -> list[FieldError]:
    """``ValidateStatefulSetSpec`` (``path`` None: the Go code's nil path, whose children print
    without a leading dot)."""
    def at(*names: str) -> str:
        return child(path or "", *names)

    errors: list[FieldError] = []
    policy = spec.get("podManagementPolicy") or ""
    if not policy:
        errors.append(required_error(at("podManagementPolicy")))
    elif policy not in ("OrderedReady", "Parallel"):
        errors.append(invalid_json(at("podManagementPolicy"), policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type") or ""
    rolling_update = strategy.get("rollingUpdate")
    if not kind:
        errors.append(required_error(at("updateStrategy")))
    elif kind == ON_DELETE:
        if rolling_update is not None:
            errors.append(invalid_json(at("updateStrategy", "rollingUpdate"),
                                       _rolling_update_stateful_set_go(rolling_update),
                                       "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind == ROLLING_UPDATE:
        if rolling_update is not None:
            errors += _validate_rolling_update_stateful_set(rolling_update, at("updateStrategy", "rollingUpdate"))
    else:
        errors.append(invalid_json(at("updateStrategy"), _stateful_set_strategy_go(strategy),
                                   "must be 'RollingUpdate' or 'OnDelete'"))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if retention is not None:
        for name in ("whenDeleted", "whenScaled"):
            value = retention.get(name) or ""
            if value not in _RETENTION_POLICIES:
                errors.append(not_supported_json(at("persistentVolumeClaimRetentionPolicy", name), value,
                                                 _RETENTION_POLICIES))
    if not skip_claim_templates:
        for i, claim in enumerate(items(spec, "volumeClaimTemplates")):
            errors += validate_claim_template_spec(claim.get("spec") or {},
                                                   child(index(at("volumeClaimTemplates"), i), "spec"))
    errors += validate_nonnegative_field(_int(spec, "replicas"), at("replicas"))
    errors += validate_nonnegative_field(_int(spec, "minReadySeconds"), at("minReadySeconds"))
    ordinals = spec.get("ordinals")
    if ordinals is not None:
        errors += validate_nonnegative_field(_int(ordinals, "start"), at("ordinals.start"))
    service_name = spec.get("serviceName") or ""
    if not allow_invalid_service_name and service_name:
        errors += [invalid_error(at("serviceName"), service_name, m) for m in is_dns1123_label(service_name)]
    selector = spec.get("selector")
    if selector is None:
        errors.append(required_error(at("selector")))
    else:
        errors += validate_label_selector(selector, DEFAULT_LABEL_SELECTOR_OPTIONS, at("selector"))
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            errors.append(invalid_json(at("selector"), selectors.go_json(selector),
                                       _EMPTY_SELECTOR.format("statefulset")))
    if not selectors.converts(selector):
        errors.append(invalid_json(at("selector"), selectors.go_json(selector), ""))
    else:
        template = _template_to_validate(spec)
        template_path = at("template")
        errors += _template_labels_match(selector, template, template_path)
        if not skip_pod_template:
            errors += validate_pod_template_spec(template, template_path, options)
        meta = template.get("metadata") or {}
        errors += validate_labels(meta.get("labels"), child(template_path, "labels"))
        errors += validate_annotations(meta.get("annotations"), child(template_path, "annotations"))
        errors += validate_pod_specific_annotations(meta.get("annotations") or {}, template.get("spec") or {},
                                                    child(template_path, "annotations"), options)
    return errors + _validate_restart_policy_always(spec.get("template") or {}, at("template"), "StatefulSet")


def validate_stateful_set(obj: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(obj, "spec", "template"), None)
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_label)
    return errors + validate_stateful_set_spec(obj.get("spec") or {}, "spec", options,
                                               allow_invalid_service_name=False)


#: What an update may change in a StatefulSet's spec (``ValidateStatefulSetUpdate``).
_STATEFUL_SET_MUTABLE = ("replicas", "template", "updateStrategy", "minReadySeconds", "ordinals",
                         "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy")


def validate_stateful_set_update(new: Json, old: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(new, "spec", "template"), get(old, "spec", "template"))
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    new_spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    old_invalid = bool(validate_stateful_set_spec(old_spec, None, options, allow_invalid_service_name=True,
                                                  skip_claim_templates=True))
    errors += validate_stateful_set_spec(new_spec, "spec", options, allow_invalid_service_name=True,
                                         skip_claim_templates=True, skip_pod_template=old_invalid)
    rest_new = {k: v for k, v in new_spec.items() if k not in _STATEFUL_SET_MUTABLE and v is not None}
    rest_old = {k: v for k, v in old_spec.items() if k not in _STATEFUL_SET_MUTABLE and v is not None}
    if rest_new != rest_old:
        errors.append(forbidden_error("spec", (
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
            "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
            "'minReadySeconds' are forbidden")))
    return errors


def validate_stateful_set_status_update(new: Json, old: Json) -> list[FieldError]:
    status, path = new.get("status") or {}, "status"
    errors = _validate_status_counts(status, path, (
        "replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"))
    errors += _validate_optional_counts(status, path, ("observedGeneration", "collisionCount"))
    for name in ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"):
        errors += _not_greater(status, path, name, "replicas", _GREATER_THAN_REPLICAS)
    errors += _not_greater(status, path, "availableReplicas", "readyReplicas",
                           "cannot be greater than status.readyReplicas")
    errors += validate_core_object_meta_update(new["metadata"], old["metadata"])
    return errors + _collision_count_decremented(new, old)


# ----------------------------------------------------------------------------- ControllerRevisions

def _validate_controller_revision(obj: Json) -> list[FieldError]:
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    return errors + validate_nonnegative_field(_int(obj, "revision"), "revision")


def validate_controller_revision(obj: Json) -> list[FieldError]:
    """``ValidateControllerRevisionCreate``: ``data`` must be a JSON object."""
    errors = _validate_controller_revision(obj)
    data = obj.get("data")
    if data is None:
        errors.append(required_error("data", "data is mandatory"))
    elif not isinstance(data, dict):
        errors.append(required_error("data", "data must be a valid JSON object"))
    return errors


def validate_controller_revision_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    errors += _validate_controller_revision(new)
    if json.dumps(new.get("data")) != json.dumps(old.get("data")):
        # kube compares the raw bytes of data: a change of key order is a change.
        errors.append(invalid_json("data", new.get("data"), "field is immutable"))
    return errors


# ----------------------------------------------------------------------------- DaemonSets

def _validate_rolling_update_daemon_set(rolling_update: Json, path: str) -> list[FieldError]:
    """``ValidateRollingUpdateDaemonSet``."""
    max_unavailable = rolling_update.get("maxUnavailable", 0)
    max_surge = rolling_update.get("maxSurge", 0)
    errors = validate_positive_int_or_percent(max_unavailable, child(path, "maxUnavailable"))
    errors += validate_positive_int_or_percent(max_surge, child(path, "maxSurge"))
    errors += is_not_more_than_100_percent(max_unavailable, child(path, "maxUnavailable"))
    errors += is_not_more_than_100_percent(max_surge, child(path, "maxSurge"))
    has_unavailable = _int_or_percent(max_unavailable) != 0
    has_surge = _int_or_percent(max_surge) != 0
    if has_unavailable and has_surge:
        errors.append(invalid_json(child(path, "maxSurge"), max_surge, "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        errors.append(required_error(child(path, "maxUnavailable"), "cannot be 0 when maxSurge is 0"))
    return errors


def _daemon_set_strategy_go(strategy: Json) -> Json:
    rolling_update = strategy.get("rollingUpdate")
    return {"Type": strategy.get("type") or "", "RollingUpdate": None if rolling_update is None else {
        "MaxUnavailable": rolling_update.get("maxUnavailable", 0), "MaxSurge": rolling_update.get("maxSurge", 0)}}


def validate_daemon_set_update_strategy(strategy: Json, path: str) -> list[FieldError]:
    """``ValidateDaemonSetUpdateStrategy``."""
    kind = strategy.get("type") or ""
    if kind == ON_DELETE:
        return []
    if kind == ROLLING_UPDATE:
        rolling_update = strategy.get("rollingUpdate")
        if rolling_update is None:
            return [required_error(child(path, "rollingUpdate"))]
        return _validate_rolling_update_daemon_set(rolling_update, child(path, "rollingUpdate"))
    return [not_supported_json(path, _daemon_set_strategy_go(strategy), [ROLLING_UPDATE, ON_DELETE])]


def validate_daemon_set_spec(obj: Json, path: str, options: PodValidationOptions,
                             selector_options: LabelSelectorValidationOptions) -> list[FieldError]:
    """``ValidateDaemonSetSpec``."""
    spec = obj.get("spec") or {}
    selector = spec.get("selector")
    template = spec.get("template") or {}
    errors = validate_label_selector(selector, selector_options, child(path, "selector"))
    if selectors.converts(selector) and not selectors.matches(selector, get(template, "metadata", "labels")):
        labels = get(template, "metadata", "labels")
        errors.append(invalid_json(child(path, "template", "metadata", "labels"),
                                   None if labels is None else dict(sorted(labels.items())), _SELECTOR_MISMATCH))
    if selector is not None and not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errors.append(invalid_json(child(path, "selector"), selectors.go_json(selector),
                                   _EMPTY_SELECTOR.format("daemonset")))
    errors += validate_pod_template_spec(template, child(path, "template"), options)
    errors += _validate_restart_policy_always(template, child(path, "template"), "DaemonSet")
    errors += validate_nonnegative_field(_int(spec, "minReadySeconds"), child(path, "minReadySeconds"))
    errors += validate_nonnegative_field(template_generation(obj), child(path, "templateGeneration"))
    errors += validate_daemon_set_update_strategy(spec.get("updateStrategy") or {}, child(path, "updateStrategy"))
    if spec.get("revisionHistoryLimit") is not None:
        errors += validate_nonnegative_field(_int(spec, "revisionHistoryLimit"), child(path, "revisionHistoryLimit"))
    return errors


def validate_daemon_set(obj: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(obj, "spec", "template"), None)
    errors = validate_core_object_meta(obj["metadata"], True, name_is_dns_subdomain)
    return errors + validate_daemon_set_spec(obj, "spec", options, DEFAULT_LABEL_SELECTOR_OPTIONS)


def validate_daemon_set_update(new: Json, old: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(new, "spec", "template"), get(old, "spec", "template"))
    selector_options = LabelSelectorValidationOptions(
        allow_invalid_label_value_in_selector=label_selector_has_invalid_label_value(get(old, "spec", "selector")))
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    # ValidateDaemonSetSpecUpdate: the strategy keeps templateGeneration consistent with the
    # template, so only the selector can be refused here.
    errors += _immutable_selector(new, old)
    return errors + validate_daemon_set_spec(new, "spec", options, selector_options)


def validate_daemon_set_status_update(new: Json, old: Json) -> list[FieldError]:
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    status, path = new.get("status") or {}, "status"
    errors += _validate_status_counts(status, path, (
        "currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
        "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable"))
    errors += _validate_optional_counts(status, path, ("collisionCount",))
    return errors + _collision_count_decremented(new, old)

