"""batch/v1 validation: ``pkg/apis/batch/validation/validation.go`` in Go's order, with the
options ``pkg/registry/batch/job/strategy.go`` derives from the stored Job."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...machinery.status import (
    FieldError,
    duplicate_error,
    invalid_error,
    required_error,
    too_long_error,
    too_many_error,
)
from ...machinery.validation import (
    LabelSelectorValidationOptions,
    child,
    index,
    invalid_json,
    is_dns1123_label,
    is_domain_prefixed_path,
    is_qualified_name,
    key,
    label_selector_has_invalid_label_value,
    name_is_dns_subdomain,
    validate_immutable_field,
    validate_label_selector,
    validate_nonnegative_field,
)
from .. import selectors
from ..errors import not_supported_json
from ..core.internal_json import pod_template_json
from ..core.validation import validate_core_object_meta, validate_core_object_meta_update
from ..fields import Json, get, items
from ..podtemplates import PodValidationOptions, pod_template_validation_options, validate_pod_template_spec
from . import cron
from .strategy import CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL

MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000
MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_POD_FAILURE_POLICY_RULES = 20
MAX_ON_EXIT_CODES_VALUES = 255
MAX_ON_POD_CONDITIONS_PATTERNS = 20
MAX_MANAGED_BY_LENGTH = 63
MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024
MAX_SUCCESS_POLICY_RULES = 20
#: ``sets.List`` of the supported values: sorted.
_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
_EXIT_CODE_OPERATORS = ("In", "NotIn")
_CONDITION_STATUSES = ("False", "True", "Unknown")
_POD_REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
_CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
_TIME_ZONE_PART = re.compile(r"^[A-Za-z.\-_0-9+]{1,14}$")
_INDEXED = "Indexed"
_NON_INDEXED = "NonIndexed"


def _quoted_list(values: tuple[str, ...]) -> str:
    """Go's ``%q`` of a ``[]string``: ``["a" "b"]``."""
    return "[" + " ".join(f'"{v}"' for v in values) + "]"


@dataclass(frozen=True, slots=True)
class JobValidationOptions:
    """``JobValidationOptions``."""

    pod: PodValidationOptions
    allow_invalid_label_value_in_selector: bool = False
    allow_mutable_scheduling_directives: bool = False
    require_prefixed_labels: bool = True


def _job_options(new: Json, old: Json | None) -> JobValidationOptions:
    """``validationOptionsForJob``."""
    pod = pod_template_validation_options(get(new, "spec", "template"), get(old, "spec", "template") if old else None)
    if old is None:
        return JobValidationOptions(pod)
    template_labels = get(old, "spec", "template", "metadata", "labels") or {}
    return JobValidationOptions(
        pod,
        allow_invalid_label_value_in_selector=label_selector_has_invalid_label_value(get(old, "spec", "selector")),
        allow_mutable_scheduling_directives=bool(get(old, "spec", "suspend")) and get(old, "status", "startTime") is None,
        require_prefixed_labels=JOB_NAME_LABEL in template_labels and CONTROLLER_UID_LABEL in template_labels)


# ----------------------------------------------------------------------------- indexes

def _parse_index_interval(interval: str, completions: int) -> tuple[int, int]:
    limits = interval.split("-")
    if len(limits) > 2:
        raise ValueError(f"the fragment {_go_q(interval)} violates the requirement that an index interval can have at "
                         "most two parts separated by '-'")
    first = _atoi(limits[0])
    if first >= completions:
        raise ValueError(f"too large index: {_go_q(limits[0])}")
    if len(limits) == 1:
        return first, first
    last = _atoi(limits[1])
    if last >= completions:
        raise ValueError(f"too large index: {_go_q(limits[1])}")
    if first >= last:
        raise ValueError(f"non-increasing order, previous: {first}, current: {last}")
    return first, last


def _go_q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _atoi(text: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(f"cannot convert string to integer for index: {_go_q(text)}")
    return int(text)


def _validate_indexes_format(indexes: str, completions: int) -> int:
    """``validateIndexesFormat``: how many indexes; raises ValueError with the Go error."""
    if not indexes:
        return 0
    last = None
    total = 0
    for interval in indexes.split(","):
        first, end = _parse_index_interval(interval, completions)
        if last is not None and last >= first:
            raise ValueError(f"non-increasing order, previous: {last}, current: {first}")
        total += end - first + 1
        last = end
    return total


def _failed_overlaps_completed(completed: str, failed: str, completions: int) -> str | None:
    """``validateFailedIndexesNotOverlapCompleted``: the overlap error, None without one."""
    if not completed or not failed:
        return None

    def parse(interval: str) -> tuple[int, int] | None:
        try:
            return _parse_index_interval(interval, completions)
        except ValueError:
            return None

    completed_intervals, failed_intervals = completed.split(","), failed.split(",")
    c_pos = f_pos = 0
    c, f = parse(completed_intervals[0]), parse(failed_intervals[0])
    while c_pos < len(completed_intervals) and f_pos < len(failed_intervals):
        if c is None:
            c_pos += 1
            if c_pos < len(completed_intervals):
                c = parse(completed_intervals[c_pos])
        elif f is None:
            f_pos += 1
            if f_pos < len(failed_intervals):
                f = parse(failed_intervals[f_pos])
        else:
            if c[0] <= f[1] and f[0] <= c[1]:
                return f"failedIndexes and completedIndexes overlap at index: {max(c[0], f[0])}"
            if c[0] <= f[0]:
                c_pos += 1
                if c_pos < len(completed_intervals):
                    c = parse(completed_intervals[c_pos])
            else:
                f_pos += 1
                if f_pos < len(failed_intervals):
                    f = parse(failed_intervals[f_pos])
    return None


# ----------------------------------------------------------------------------- JobSpec

def _optional_nonnegative(spec: Json, path: str, *names: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for name in names:
        if spec.get(name) is not None:
            errors += validate_nonnegative_field(spec[name], child(path, name))
    return errors


def _validate_pod_failure_policy(spec: Json, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    rules = items(spec.get("podFailurePolicy"), "rules")
    rules_path = child(path, "rules")
    if len(rules) > MAX_POD_FAILURE_POLICY_RULES:
        errors.append(too_many_error(rules_path, len(rules), MAX_POD_FAILURE_POLICY_RULES))
    pod_spec = get(spec, "template", "spec") or {}
    containers = {c.get("name") for c in items(pod_spec, "containers") + items(pod_spec, "initContainers")}
    for i, rule in enumerate(rules):
        errors += _validate_pod_failure_policy_rule(spec, rule, index(rules_path, i), containers)
    return errors


def _validate_pod_failure_policy_rule(spec: Json, rule: Json, path: str, containers: set[Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    action_path = child(path, "action")
    action = rule.get("action") or ""
    if not action:
        errors.append(required_error(action_path, f"valid values: {_quoted_list(_ACTIONS)}"))
    elif action == "FailIndex":
        if spec.get("backoffLimitPerIndex") is None:
            errors.append(invalid_json(action_path, action, "requires the backoffLimitPerIndex to be set"))
    elif action not in _ACTIONS:
        errors.append(not_supported_json(action_path, action, _ACTIONS))
    on_exit_codes = rule.get("onExitCodes")
    on_pod_conditions = items(rule, "onPodConditions")
    if on_exit_codes is not None:
        errors += _validate_on_exit_codes(on_exit_codes, child(path, "onExitCodes"), containers)
    if on_pod_conditions:
        errors += _validate_on_pod_conditions(on_pod_conditions, child(path, "onPodConditions"))
    if on_exit_codes is not None and on_pod_conditions:
        errors.append((path, "FieldValueInvalid",
                       "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported"))
    if on_exit_codes is None and not on_pod_conditions:
        errors.append((path, "FieldValueInvalid",
                       "Invalid value: specifying one of OnExitCodes and OnPodConditions is required"))
    return errors


def _validate_on_pod_conditions(patterns: list[Json], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if len(patterns) > MAX_ON_POD_CONDITIONS_PATTERNS:
        errors.append(too_many_error(path, len(patterns), MAX_ON_POD_CONDITIONS_PATTERNS))
    for j, pattern in enumerate(patterns):
        pattern_path = index(path, j)
        kind = pattern.get("type") or ""
        errors += [invalid_error(child(pattern_path, "type"), kind, m) for m in is_qualified_name(kind)]
        status = pattern.get("status") or ""
        if not status:
            errors.append(required_error(child(pattern_path, "status"), f"valid values: {_quoted_list(_CONDITION_STATUSES)}"))
        elif status not in _CONDITION_STATUSES:
            errors.append(not_supported_json(child(pattern_path, "status"), status, _CONDITION_STATUSES))
    return errors


def _validate_on_exit_codes(requirement: Json, path: str, containers: set[Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = requirement.get("operator") or ""
    if not operator:
        errors.append(required_error(child(path, "operator"), f"valid values: {_quoted_list(_EXIT_CODE_OPERATORS)}"))
    elif operator not in _EXIT_CODE_OPERATORS:
        errors.append(not_supported_json(child(path, "operator"), operator, _EXIT_CODE_OPERATORS))
    container_name = requirement.get("containerName")
    if container_name is not None and container_name not in containers:
        errors.append(invalid_error(child(path, "containerName"), container_name,
                                    "must be one of the container or initContainer names in the pod template"))
    values = requirement.get("values") or []
    values_path = child(path, "values")
    if not values:
        errors.append(invalid_json(values_path, requirement.get("values"), "at least one value is required"))
    elif len(values) > MAX_ON_EXIT_CODES_VALUES:
        errors.append(too_many_error(values_path, len(values), MAX_ON_EXIT_CODES_VALUES))
    ordered = True
    seen: set[int] = set()
    for j, value in enumerate(values):
        if operator == "In" and value == 0:
            errors.append(invalid_error(index(values_path, j), value, "must not be 0 for the In operator"))
        if value in seen:
            errors.append(duplicate_error(index(values_path, j), value))
        else:
            seen.add(value)
        if j > 0 and values[j - 1] > value:
            ordered = False
    if not ordered:
        errors.append(invalid_json(values_path, values, "must be ordered"))
    return errors


def _validate_success_policy(spec: Json, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    rules = items(spec.get("successPolicy"), "rules")
    rules_path = child(path, "rules")
    if not rules:
        errors.append(required_error(rules_path, "at least one rules must be specified when the successPolicy is specified"))
    if len(rules) > MAX_SUCCESS_POLICY_RULES:
        errors.append(too_many_error(rules_path, len(rules), MAX_SUCCESS_POLICY_RULES))
    completions = spec.get("completions") or 0
    for i, rule in enumerate(rules):
        rule_path = index(rules_path, i)
        indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
        if count is None and indexes is None:
            errors.append(required_error(rule_path, "at least one of succeededCount or succeededIndexes must be specified"))
        total = 0
        if indexes is not None:
            indexes_path = child(rule_path, "succeededIndexes")
            if len(indexes) > MAX_SUCCEEDED_INDEXES_LENGTH:
                errors.append(too_long_error(indexes_path, MAX_SUCCEEDED_INDEXES_LENGTH))
            try:
                total = _validate_indexes_format(indexes, completions)
            except ValueError as err:
                errors.append(invalid_error(indexes_path, indexes, f"error parsing succeededIndexes: {err}"))
        if count is not None:
            count_path = child(rule_path, "succeededCount")
            errors += validate_nonnegative_field(count, count_path)
            if count > completions:
                errors.append(invalid_error(count_path, count, (
                    f"must be less than or equal to {completions} (the number of specified completions)")))
            if indexes is not None and count > total:
                errors.append(invalid_error(count_path, count, (
                    f"must be less than or equal to {total} (the number of indexes in the specified succeededIndexes "
                    "field)")))
    return errors


def _validate_job_spec_common(spec: Json, path: str, pod_options: PodValidationOptions) -> list[FieldError]:
    """``validateJobSpec`` (shared by Jobs and CronJobs' job templates)."""
    errors = _optional_nonnegative(spec, path, "parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                                   "ttlSecondsAfterFinished", "backoffLimitPerIndex")
    parallelism, completions = spec.get("parallelism"), spec.get("completions")
    max_failed, per_index = spec.get("maxFailedIndexes"), spec.get("backoffLimitPerIndex")
    if max_failed is not None:
        errors += validate_nonnegative_field(max_failed, child(path, "maxFailedIndexes"))
        if per_index is None:
            errors.append(required_error(child(path, "backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
    managed_by = spec.get("managedBy")
    if managed_by is not None:
        errors += is_domain_prefixed_path(child(path, "managedBy"), managed_by)
        if len(managed_by) > MAX_MANAGED_BY_LENGTH:
            errors.append(too_long_error(child(path, "managedBy"), MAX_MANAGED_BY_LENGTH))
    mode = spec.get("completionMode")
    if mode is not None:
        if mode not in (_NON_INDEXED, _INDEXED):
            errors.append(not_supported_json(child(path, "completionMode"), mode, (_NON_INDEXED, _INDEXED)))
        if mode == _INDEXED:
            if completions is None:
                errors.append(required_error(child(path, "completions"), "when completion mode is Indexed"))
            if parallelism is not None and parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB:
                errors.append(invalid_error(child(path, "parallelism"), parallelism, (
                    f"must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed")))
            if completions is not None and max_failed is not None and max_failed > completions:
                errors.append(invalid_error(child(path, "maxFailedIndexes"), max_failed,
                                            "must be less than or equal to completions"))
            if max_failed is not None and max_failed > MAX_FAILED_INDEXES_FOR_INDEXED_JOB:
                errors.append(invalid_error(child(path, "maxFailedIndexes"), max_failed,
                                            f"must be less than or equal to {MAX_FAILED_INDEXES_FOR_INDEXED_JOB}"))
            if completions is not None and completions > COMPLETIONS_SOFT_LIMIT and per_index is not None:
                high = (f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index")
                if max_failed is None:
                    errors.append(required_error(child(path, "maxFailedIndexes"),
                                                 f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}"))
                if parallelism is not None and parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS:
                    errors.append(invalid_error(child(path, "parallelism"), parallelism, (
                        f"must be less than or equal to {PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} {high}")))
                if max_failed is not None and max_failed > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS:
                    errors.append(invalid_error(child(path, "maxFailedIndexes"), max_failed, (
                        f"must be less than or equal to {MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} {high}")))
    if mode is None or mode == _NON_INDEXED:
        if per_index is not None:
            errors.append(invalid_error(child(path, "backoffLimitPerIndex"), per_index, "requires indexed completion mode"))
        if max_failed is not None:
            errors.append(invalid_error(child(path, "maxFailedIndexes"), max_failed, "requires indexed completion mode"))
    if spec.get("podFailurePolicy") is not None:
        errors += _validate_pod_failure_policy(spec, child(path, "podFailurePolicy"))
    success_policy = spec.get("successPolicy")
    if success_policy is not None:
        if (mode or _NON_INDEXED) != _INDEXED:
            errors.append(invalid_json(child(path, "successPolicy"), _success_policy_go(success_policy),
                                       "requires indexed completion mode"))
        else:
            errors += _validate_success_policy(spec, child(path, "successPolicy"))
    replacement = spec.get("podReplacementPolicy")
    if replacement is not None:
        if spec.get("podFailurePolicy") is not None:
            if replacement != "Failed":
                errors.append(not_supported_json(child(path, "podReplacementPolicy"), replacement, ("Failed",)))
        elif replacement not in _POD_REPLACEMENT_POLICIES:
            errors.append(not_supported_json(child(path, "podReplacementPolicy"), replacement, _POD_REPLACEMENT_POLICIES))
    template = spec.get("template") or {}
    errors += validate_pod_template_spec(template, child(path, "template"), pod_options)
    restart_policy = get(template, "spec", "restartPolicy") or ""
    restart_path = child(path, "template", "spec", "restartPolicy")
    if restart_policy in ("Always", ""):
        errors.append(required_error(restart_path, 'valid values: "OnFailure", "Never"'))
    elif restart_policy not in ("OnFailure", "Never"):
        errors.append(not_supported_json(restart_path, restart_policy, ("OnFailure", "Never")))
    elif spec.get("podFailurePolicy") is not None and restart_policy != "Never":
        errors.append(invalid_json(restart_path, restart_policy, 'only "Never" is supported when podFailurePolicy is specified'))
    return errors


def _pod_failure_policy_go(policy: Json | None) -> Json | None:
    """An internal ``batch.PodFailurePolicy`` as ``json.Marshal`` prints it."""
    if policy is None:
        return None

    def exit_codes(requirement: Json | None) -> Json | None:
        return None if requirement is None else {
            "ContainerName": requirement.get("containerName"), "Operator": requirement.get("operator") or "",
            "Values": requirement.get("values")}

    rules = policy.get("rules")
    return {"Rules": None if rules is None else [{
        "Action": rule.get("action") or "", "OnExitCodes": exit_codes(rule.get("onExitCodes")),
        "OnPodConditions": None if rule.get("onPodConditions") is None else [
            {"Type": p.get("type") or "", "Status": p.get("status") or ""} for p in items(rule, "onPodConditions")],
    } for rule in items(policy, "rules")]}


def _success_policy_go(policy: Json | None) -> Json | None:
    """An internal ``batch.SuccessPolicy`` as ``json.Marshal`` prints it."""
    if policy is None:
        return None
    return {"Rules": [{"SucceededIndexes": rule.get("succeededIndexes"), "SucceededCount": rule.get("succeededCount")}
                      for rule in items(policy, "rules")] if policy.get("rules") is not None else None}


def validate_job_spec(spec: Json, path: str, options: JobValidationOptions) -> list[FieldError]:
    """``ValidateJobSpec``."""
    errors = _validate_job_spec_common(spec, path, options.pod)
    selector = spec.get("selector")
    if selector is None:
        errors.append(required_error(child(path, "selector")))
    else:
        errors += validate_label_selector(selector, LabelSelectorValidationOptions(
            allow_invalid_label_value_in_selector=options.allow_invalid_label_value_in_selector), child(path, "selector"))
    if selectors.converts(selector):
        labels = get(spec, "template", "metadata", "labels")
        if not selectors.matches(selector, labels):
            errors.append(invalid_json(child(path, "template", "metadata", "labels"),
                                       None if labels is None else dict(sorted(labels.items())),
                                       "`selector` does not match template `labels`"))
    return errors


def _validate_has_label(labels: Json, name: str, expected: str) -> list[FieldError]:
    """``ValidateHasLabel`` on the pod template's metadata."""
    path = key("spec.template.metadata.labels", name)
    if name not in labels:
        return [required_error(path, f"must be '{expected}'")]
    if labels[name] != expected:
        return [invalid_json(path, dict(sorted(labels.items())), f"must be '{expected}'")]
    return []


def _validate_generated_selector(obj: Json, validate_batch_labels: bool) -> list[FieldError]:
    """``validateGeneratedSelector``."""
    spec = obj.get("spec") or {}
    if spec.get("manualSelector") or spec.get("selector") is None:
        return []
    meta = obj["metadata"]
    uid, name = meta.get("uid") or "", meta.get("name") or ""
    errors = [] if uid else [required_error("metadata.uid")]
    labels = get(spec, "template", "metadata", "labels") or {}
    errors += _validate_has_label(labels, LEGACY_CONTROLLER_UID_LABEL, uid)
    errors += _validate_has_label(labels, LEGACY_JOB_NAME_LABEL, name)
    expected = {}
    if validate_batch_labels:
        errors += _validate_has_label(labels, CONTROLLER_UID_LABEL, uid)
        errors += _validate_has_label(labels, JOB_NAME_LABEL, name)
        expected = {CONTROLLER_UID_LABEL: uid, JOB_NAME_LABEL: name}
    expected.update({LEGACY_CONTROLLER_UID_LABEL: uid, LEGACY_JOB_NAME_LABEL: name})
    selector = spec["selector"]
    if selectors.converts(selector) and not selectors.matches(selector, expected):
        errors.append(invalid_json("spec.selector", selectors.go_json(selector), "`selector` not auto-generated"))
    return errors


def _validate_job(obj: Json, options: JobValidationOptions) -> list[FieldError]:
    """``ValidateJob``."""
    meta = obj["metadata"]
    errors = validate_core_object_meta(meta, True, name_is_dns_subdomain)
    errors += _validate_generated_selector(obj, options.require_prefixed_labels)
    spec = obj.get("spec") or {}
    errors += validate_job_spec(spec, "spec", options)
    completions = spec.get("completions")
    if spec.get("completionMode") == _INDEXED and completions is not None and completions > 0:
        hostname = f"{meta.get('name') or ''}-{completions - 1}"
        if is_dns1123_label(hostname):
            errors.append(invalid_error("metadata.name", meta.get("name") or "",
                                        f"will not able to create pod with invalid DNS label: {hostname}"))
    return errors


def validate_job(obj: Json) -> list[FieldError]:
    meta = obj["metadata"]
    if meta.get("labels") and meta["labels"] == get(obj, "spec", "template", "metadata", "labels"):
        # The labels the strategy copied from the template: kube copies them when it reads the
        # stored Job, after validating it without them.
        obj = {**obj, "metadata": {k: v for k, v in meta.items() if k != "labels"}}
    return _validate_job(obj, _job_options(obj, None))


def _scheduling_directives_as_old(template: Json, old_template: Json) -> Json:
    """``validatePodTemplateUpdate`` of a suspended Job that never started: the old template with
    the new one's node affinity, node selector, tolerations, labels, annotations and
    scheduling gates, so that only other changes count."""
    old = {**old_template, "metadata": dict(old_template.get("metadata") or {}),
           "spec": dict(old_template.get("spec") or {})}
    new_spec, old_spec = template.get("spec") or {}, old["spec"]
    new_affinity, old_affinity = new_spec.get("affinity"), old_spec.get("affinity")
    if new_affinity is None and old_affinity is not None:
        rest = {k: v for k, v in old_affinity.items() if k != "nodeAffinity" and v is not None}
        old_spec["affinity"] = rest or None
    elif new_affinity is not None and old_affinity is None:
        old_spec["affinity"] = {"nodeAffinity": new_affinity.get("nodeAffinity")}
    elif new_affinity is not None and old_affinity is not None:
        old_spec["affinity"] = {**old_affinity, "nodeAffinity": new_affinity.get("nodeAffinity")}
    for name in ("nodeSelector", "tolerations", "schedulingGates"):
        old_spec[name] = new_spec.get(name)
    for name in ("annotations", "labels"):
        old["metadata"][name] = (template.get("metadata") or {}).get(name)
    return old


def _normalised(value: Any) -> Any:
    """A JSON value as Go's semantic equality sees it: nulls and absent fields alike."""
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    return value


def validate_job_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateJob`` then ``ValidateJobUpdate``."""
    options = _job_options(new, old)
    errors = _validate_job(new, options)
    errors += validate_core_object_meta_update(new["metadata"], old["metadata"])
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    errors += validate_job_spec(spec, "spec", options)
    if spec.get("completionMode") != _INDEXED:
        errors += validate_immutable_field(spec.get("completions"), old_spec.get("completions"), "spec.completions")
    elif spec.get("completions") != old_spec.get("completions") and spec.get("completions") is not None \
            and spec["completions"] != spec.get("parallelism"):
        errors.append(invalid_error("spec.completions", spec["completions"],
                                    "can only be modified in tandem with spec.parallelism"))
    errors += validate_immutable_field(selectors.go_json(spec.get("selector")),
                                       selectors.go_json(old_spec.get("selector")), "spec.selector")
    template, old_template = spec.get("template") or {}, old_spec.get("template") or {}
    if options.allow_mutable_scheduling_directives:
        old_template = _scheduling_directives_as_old(template, old_template)
    if _normalised(template) != _normalised(old_template):
        # kube prints the whole internal PodTemplateSpec, Go field names and zero values included
        errors.append(invalid_json("spec.template", pod_template_json(template), "field is immutable"))
    errors += validate_immutable_field(spec.get("completionMode"), old_spec.get("completionMode"), "spec.completionMode")
    errors += validate_immutable_field(_pod_failure_policy_go(spec.get("podFailurePolicy")),
                                       _pod_failure_policy_go(old_spec.get("podFailurePolicy")), "spec.podFailurePolicy")
    for name in ("backoffLimitPerIndex", "managedBy"):
        errors += validate_immutable_field(spec.get(name), old_spec.get(name), child("spec", name))
    errors += validate_immutable_field(_success_policy_go(spec.get("successPolicy")),
                                       _success_policy_go(old_spec.get("successPolicy")), "spec.successPolicy")
    return errors


# ----------------------------------------------------------------------------- Job status

def _condition_true(obj: Json, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in items(obj.get("status"), "conditions"))


def _condition_false(obj: Json, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "False" for c in items(obj.get("status"), "conditions"))


def _finished(obj: Json) -> bool:
    return _condition_true(obj, "Complete") or _condition_true(obj, "Failed")


def _conditions_error(message: str) -> FieldError:
    """``field.Invalid(status.conditions, field.OmitValueType{}, message)``: no value printed."""
    return "status.conditions", "FieldValueInvalid", f"Invalid value: {message}"


def validate_job_status_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateJobUpdateStatus`` with the options of ``getStatusValidationOptions`` (JobManagedBy on)."""
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    spec, status, old_status = new.get("spec") or {}, new.get("status") or {}, old.get("status") or {}
    indexed = (spec.get("completionMode") or _NON_INDEXED) == _INDEXED
    finished_changed = _finished(old) != _finished(new)
    complete_changed = _condition_true(old, "Complete") != _condition_true(new, "Complete")
    failed_changed = _condition_true(old, "Failed") != _condition_true(new, "Failed")
    target_changed = _condition_true(old, "FailureTarget") != _condition_true(new, "FailureTarget")
    criteria_changed = _condition_true(old, "SuccessCriteriaMet") != _condition_true(new, "SuccessCriteriaMet")
    completed_changed = (old_status.get("completedIndexes") or "") != (status.get("completedIndexes") or "")
    failed_indexes_changed = old_status.get("failedIndexes") != status.get("failedIndexes")
    active_changed = (old_status.get("active") or 0) != (status.get("active") or 0)
    start_changed = old_status.get("startTime") != status.get("startTime")
    completion_changed = old_status.get("completionTime") != status.get("completionTime")
    uncounted_changed = _normalised(old_status.get("uncountedTerminatedPods")) != _normalised(
        status.get("uncountedTerminatedPods"))
    ready_changed = old_status.get("ready") != status.get("ready")
    terminating_changed = old_status.get("terminating") != status.get("terminating")
    suspended_zero = spec.get("suspend") is True and spec.get("completions") == 0
    resuming = _condition_true(old, "Suspended") and _condition_false(new, "Suspended")

    path = "status"
    active = status.get("active") or 0
    errors += validate_nonnegative_field(active, "status.active")
    errors += validate_nonnegative_field(status.get("succeeded") or 0, "status.succeeded")
    errors += validate_nonnegative_field(status.get("failed") or 0, "status.failed")
    errors += _optional_nonnegative(status, path, "ready", "terminating")
    uncounted = status.get("uncountedTerminatedPods")
    if uncounted is not None:
        seen: set[str] = set()
        for which in ("succeeded", "failed"):
            for i, uid in enumerate(uncounted.get(which) or ()):
                uid_path = index(child(path, "uncountedTerminatedPods", which), i)
                if not uid:
                    errors.append(invalid_error(uid_path, uid, "must not be empty"))
                elif uid in seen:
                    errors.append(duplicate_error(uid_path, uid))
                else:
                    seen.add(uid)
    complete, failed = _condition_true(new, "Complete"), _condition_true(new, "Failed")
    target, criteria = _condition_true(new, "FailureTarget"), _condition_true(new, "SuccessCriteriaMet")
    if (complete_changed or failed_changed) and complete and failed:
        errors.append(_conditions_error("cannot set Complete=True and Failed=true conditions"))
    if (complete_changed or target_changed) and complete and target:
        errors.append(_conditions_error("cannot set Complete=True and FailureTarget=true conditions"))
    completion_time, start_time = status.get("completionTime"), status.get("startTime")
    if (complete_changed or completion_changed) and completion_time is not None and not complete:
        errors.append(invalid_error("status.completionTime", completion_time,
                                    "cannot set completionTime when there is no Complete=True condition"))
    if (complete_changed or completion_changed) and completion_time is None and complete:
        errors.append(required_error("status.completionTime", "completionTime is required for Complete jobs"))
    if (start_changed or completion_changed) and start_time and completion_time and completion_time < start_time:
        errors.append(invalid_error("status.completionTime", completion_time, "must be equal to or after `startTime`"))
    if (failed_changed or failed_indexes_changed) and failed and not target:
        errors.append(_conditions_error("cannot set Failed=True condition without the FailureTarget=true condition"))
    if (complete_changed or criteria_changed) and complete and not criteria:
        errors.append(_conditions_error(
            "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
    finished = _finished(new)
    if (finished_changed or active_changed) and active > 0 and finished:
        errors.append(invalid_error("status.active", active, "active>0 is invalid for finished job"))
    if (finished_changed or start_changed) and not suspended_zero and start_time is None and finished:
        errors.append(required_error("status.startTime", "startTime is required for finished job"))
    if (finished_changed or uncounted_changed) and finished and uncounted is not None and (
            uncounted.get("failed") or uncounted.get("succeeded")):
        errors.append(invalid_json("status.uncountedTerminatedPods", {
            "Succeeded": uncounted.get("succeeded"), "Failed": uncounted.get("failed")}, "must be empty for finished job"))
    completions = spec.get("completions")
    completed_indexes = status.get("completedIndexes") or ""
    failed_indexes = status.get("failedIndexes")
    if completed_changed and completions is not None:
        try:
            _validate_indexes_format(completed_indexes, completions)
        except ValueError as err:
            errors.append(invalid_error("status.completedIndexes", completed_indexes,
                                        f"error parsing completedIndexes: {err}"))
    if failed_indexes_changed and completions is not None and spec.get("backoffLimitPerIndex") is not None \
            and failed_indexes is not None:
        try:
            _validate_indexes_format(failed_indexes, completions)
        except ValueError as err:
            errors.append(invalid_json("status.failedIndexes", failed_indexes, f"error parsing failedIndexes: {err}"))
    if completed_changed and completed_indexes and not indexed:
        errors.append(invalid_error("status.completedIndexes", completed_indexes,
                                    "cannot set non-empty completedIndexes when non-indexed completion mode"))
    if failed_indexes_changed and spec.get("backoffLimitPerIndex") is None and failed_indexes is not None:
        errors.append(invalid_error("status.failedIndexes", failed_indexes,
                                    "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
    if (failed_indexes_changed or completed_changed) and completions is not None and failed_indexes is not None:
        overlap = _failed_overlaps_completed(completed_indexes, failed_indexes, completions)
        if overlap:
            errors.append(invalid_error("status.failedIndexes", failed_indexes, overlap))
    terminating = status.get("terminating")
    if (finished_changed or terminating_changed) and terminating is not None and terminating > 0 and finished:
        errors.append(invalid_json("status.terminating", terminating, "terminating>0 is invalid for finished job"))
    ready = status.get("ready")
    if (ready_changed or active_changed) and ready is not None and ready > active:
        errors.append(invalid_error("status.ready", ready, "cannot set more ready pods than active"))
    if criteria and failed:
        errors.append(_conditions_error("cannot set SuccessCriteriaMet=True and Failed=true conditions"))
    if criteria and target:
        errors.append(_conditions_error("cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
    if spec.get("successPolicy") is not None and not criteria and complete:
        errors.append(_conditions_error("cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
    # ValidateJobStatusUpdate's own checks.
    for kind in ("Failed", "Complete", "FailureTarget"):
        if _condition_true(old, kind) and not _condition_true(new, kind):
            errors.append(_conditions_error(f"cannot disable the terminal {kind}=True condition"))
    if (status.get("failed") or 0) < (old_status.get("failed") or 0):
        errors.append(invalid_error("status.failed", status.get("failed") or 0, "cannot decrease the failed counter"))
    reject_decreasing_succeeded = not indexed or spec.get("completions") != spec.get("parallelism")
    if reject_decreasing_succeeded and (status.get("succeeded") or 0) < (old_status.get("succeeded") or 0):
        errors.append(invalid_error("status.succeeded", status.get("succeeded") or 0,
                                    "cannot decrease the succeeded counter"))
    if completion_time is not None and old_status.get("completionTime") is not None \
            and completion_time != old_status["completionTime"]:
        errors.append(invalid_error("status.completionTime", completion_time, "field is immutable"))
    if start_changed and not resuming and old_status.get("startTime") is not None and not spec.get("suspend"):
        errors.append(required_error("status.startTime", "startTime cannot be removed for unsuspended job"))
    if _condition_true(old, "SuccessCriteriaMet") and not criteria:
        errors.append(_conditions_error("cannot disable the SuccessCriteriaMet=True condition"))
    if _condition_true(old, "Complete") and not _condition_true(old, "SuccessCriteriaMet") and criteria:
        errors.append(_conditions_error("cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
    return errors


# ----------------------------------------------------------------------------- CronJobs

def _validate_time_zone(time_zone: str | None, path: str) -> list[FieldError]:
    if time_zone is None:
        return []
    if not time_zone:
        return [invalid_error(path, time_zone, "timeZone must be nil or non-empty string")]
    for part in time_zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.match(part):
            return [invalid_error(path, time_zone, f"unknown time zone {time_zone}")]
    errors = []
    if time_zone.lower() == "local":
        errors.append(invalid_error(path, time_zone,
                                    "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
    problem = cron.load_location(time_zone)
    if problem is not None:
        errors.append(invalid_error(path, time_zone, problem))
    return errors


def _validate_cron_job_spec(spec: Json, old_spec: Json | None, path: str, pod_options: PodValidationOptions) -> list[FieldError]:
    """``validateCronJobSpec``."""
    errors: list[FieldError] = []
    schedule = spec.get("schedule") or ""
    time_zone = spec.get("timeZone")
    schedule_path = child(path, "schedule")
    if not schedule:
        errors.append(required_error(schedule_path))
    else:
        allow_tz = old_spec is not None and "TZ" in (old_spec.get("schedule") or "")
        try:
            cron.check_schedule(schedule)
        except cron.ScheduleError as err:
            errors.append(invalid_error(schedule_path, schedule, str(err)))
        if allow_tz and "TZ" in schedule and time_zone is not None:
            errors.append(invalid_error(schedule_path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
        elif not allow_tz and "TZ" in schedule:
            errors.append(invalid_error(schedule_path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    errors += _optional_nonnegative(spec, path, "startingDeadlineSeconds")
    if old_spec is None or old_spec.get("timeZone") != time_zone:
        errors += _validate_time_zone(time_zone, child(path, "timeZone"))
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        errors.append(required_error(child(path, "concurrencyPolicy")))
    elif policy not in _CONCURRENCY_POLICIES:
        errors.append(not_supported_json(child(path, "concurrencyPolicy"), policy, _CONCURRENCY_POLICIES))
    job_spec = get(spec, "jobTemplate", "spec") or {}
    job_path = child(path, "jobTemplate", "spec")
    errors += _validate_job_spec_common(job_spec, job_path, pod_options)
    if job_spec.get("selector") is not None:
        errors.append(invalid_json(child(job_path, "selector"), selectors.go_json(job_spec["selector"]),
                                   "`selector` will be auto-generated"))
    if job_spec.get("manualSelector"):
        errors.append(not_supported_json(child(job_path, "manualSelector"), True, ("nil", "false")))
    return errors + _optional_nonnegative(spec, path, "successfulJobsHistoryLimit", "failedJobsHistoryLimit")


def validate_cron_job(obj: Json) -> list[FieldError]:
    """``ValidateCronJobCreate``: the name leaves room for the 11 characters of a Job's suffix."""
    options = pod_template_validation_options(get(obj, "spec", "jobTemplate", "spec", "template"), None)
    meta = obj["metadata"]
    errors = validate_core_object_meta(meta, True, name_is_dns_subdomain)
    errors += _validate_cron_job_spec(obj.get("spec") or {}, None, "spec", options)
    name = meta.get("name") or ""
    if len(name) > 52:
        errors.append(invalid_error("metadata.name", name, "must be no more than 52 characters"))
    return errors


def validate_cron_job_update(new: Json, old: Json) -> list[FieldError]:
    options = pod_template_validation_options(get(new, "spec", "jobTemplate", "spec", "template"),
                                     get(old, "spec", "jobTemplate", "spec", "template"))
    errors = validate_core_object_meta_update(new["metadata"], old["metadata"])
    return errors + _validate_cron_job_spec(new.get("spec") or {}, old.get("spec") or {}, "spec", options)


def validate_cron_job_status_update(new: Json, old: Json) -> list[FieldError]:
    """The CronJob status strategy validates nothing (not even metadata)."""
    return []

