"""admissionregistration.k8s.io validation (kube's ``pkg/apis/admissionregistration/validation``):
webhook configurations, ValidatingAdmissionPolicies and their bindings.

A policy's CEL expressions (match conditions, variables, validations, message expressions,
audit annotation values) are compiled as kube compiles them, with ``fakeapi.cel``: syntax
errors and undeclared references by the engine; type errors and the type an expression
evaluates to by ``typecheck`` (``object``, ``oldObject`` and ``params`` dyn, ``request`` and
``namespaceObject`` of kube's declared types, each of ``variables`` the type of its
expression); where ``typecheck`` cannot type an expression exactly, what ``checks`` types of
its fields and comparisons, and the type its shape tells (``checks.result_type``). Cost
limits pass. A webhook's match conditions are compiled as a policy's without params."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...machinery.path import validate_path_segment_name
from ...machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
    too_many_error,
)
from ...machinery.validation import (
    LabelSelectorValidationOptions,
    child,
    index,
    invalid_json,
    is_dns1035_label,
    is_dns1123_subdomain,
    is_fully_qualified_name,
    name_is_dns_subdomain,
    validate_conditions,
    validate_label_selector,
    validate_object_meta,
)
from ..core.validation_common import validate_qualified_name
from ..errors import not_supported_json
from ..fields import Json, get, values
from .webhook import validate_webhook_service, validate_webhook_url

if TYPE_CHECKING:
    from .expressions import ExpressionCompiler

_FAILURE_POLICIES = ("Fail", "Ignore")
_MATCH_POLICIES = ("Equivalent", "Exact")
_SIDE_EFFECT_CLASSES = ("None", "NoneOnDryRun", "Some", "Unknown")
_NO_SIDE_EFFECT_CLASSES = ("None", "NoneOnDryRun")
_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_REINVOCATION_POLICIES = ("IfNeeded", "Never")
_VALIDATION_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")
_SCOPES = ("*", "Cluster", "Namespaced")
_VALIDATION_ACTIONS = ("Audit", "Deny", "Warn")
#: The AdmissionReview versions the previous kube release understands.
_ADMISSION_REVIEW_VERSIONS = ("v1", "v1beta1")
_MAX_AUDIT_ANNOTATIONS = 20
_MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024
_CEL_IDENTIFIER = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_CEL_RESERVED = frozenset(("true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
                           "function", "if", "import", "let", "loop", "package", "namespace", "return", "var",
                           "void", "while"))
_NEWLINES = re.compile(r"[\n\r]+")


@dataclass(frozen=True)
class _Options:
    """``validationOptions`` (the ones that change what fakeapi checks)."""

    ignore_match_conditions: bool = False
    require_no_side_effects: bool = True
    require_recognized_admission_review_version: bool = True
    require_unique_webhook_names: bool = True
    allow_invalid_label_value_in_selector: bool = False



# ----------------------------------------------------------------------------- rules

def _validate_resources(resources: Sequence[str], path: str) -> list[FieldError]:
    errors = [] if resources else [required_error(path)]
    with_wildcard_subresources: set[str] = set()  # x/*
    subresources_with_wildcard_resource: set[str] = set()  # */x
    double_wildcard = single_wildcard = resource_without_subresource = False
    for i, resource_subresource in enumerate(resources):
        if resource_subresource == "":
            errors.append(required_error(index(path, i)))
            continue
        if resource_subresource == "*/*":
            double_wildcard = True
        if resource_subresource == "*":
            single_wildcard = True
        if "/" not in resource_subresource:
            resource_without_subresource = resource_subresource != "*"
            continue
        resource, _, subresource = resource_subresource.partition("/")
        if resource in with_wildcard_subresources:
            errors.append(invalid_error(index(path, i), resource_subresource,
                                        f"if '{resource}/*' is present, must not specify {resource_subresource}"))
        if subresource in subresources_with_wildcard_resource:
            errors.append(invalid_error(index(path, i), resource_subresource,
                                        f"if '*/{subresource}' is present, must not specify {resource_subresource}"))
        if subresource == "*":
            with_wildcard_subresources.add(resource)
        if resource == "*":
            subresources_with_wildcard_resource.add(subresource)
    if len(resources) > 1 and double_wildcard:
        errors.append(invalid_json(path, resources, "if '*/*' is present, must not specify other resources"))
    if single_wildcard and resource_without_subresource:
        errors.append(invalid_json(path, resources,
                                   "if '*' is present, must not specify other resources without subresources"))
    return errors


def _validate_rule(rule: Json, path: str) -> list[FieldError]:
    """``validateRule`` (subresources allowed)."""
    errors = []
    groups, versions = values(rule, "apiGroups"), values(rule, "apiVersions")
    if not groups:
        errors.append(required_error(child(path, "apiGroups")))
    if len(groups) > 1 and "*" in groups:
        errors.append(invalid_json(child(path, "apiGroups"), groups, "if '*' is present, must not specify other API groups"))
    if not versions:
        errors.append(required_error(child(path, "apiVersions")))
    if len(versions) > 1 and "*" in versions:
        errors.append(invalid_json(child(path, "apiVersions"), versions,
                                   "if '*' is present, must not specify other API versions"))
    errors += [required_error(index(child(path, "apiVersions"), i)) for i, version in enumerate(versions) if version == ""]
    errors += _validate_resources(values(rule, "resources"), child(path, "resources"))
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        errors.append(not_supported_error(child(path, "scope"), scope, _SCOPES))
    return errors


def _validate_rule_with_operations(rule: Json, path: str) -> list[FieldError]:
    errors = []
    operations = values(rule, "operations")
    if not operations:
        errors.append(required_error(child(path, "operations")))
    if len(operations) > 1 and "*" in operations:
        errors.append(invalid_json(child(path, "operations"), operations,
                                   "if '*' is present, must not specify other operations"))
    errors += [not_supported_error(index(child(path, "operations"), i), operation, _OPERATIONS)
               for i, operation in enumerate(operations) if operation not in _OPERATIONS]
    return errors + _validate_rule(rule, path)


def _validate_named_rule_with_operations(rule: Json, path: str) -> list[FieldError]:
    errors = []
    seen: set[str] = set()
    for i, name in enumerate(values(rule, "resourceNames")):
        name_path = index(child(path, "resourceNames"), i)
        errors += [invalid_error(name_path, name, message) for message in validate_path_segment_name(name, False)]
        if name in seen:
            errors.append(duplicate_error(name_path, name))
        seen.add(name)
    return errors + _validate_rule_with_operations(rule, path)


# ----------------------------------------------------------------------------- match conditions

def _validate_match_conditions(conditions: Sequence[Json], path: str, compiler: ExpressionCompiler) -> list[FieldError]:
    """``validateMatchConditions``; each expression compiled with ``compiler`` (a policy's, or a
    webhook's: kube's environment without params nor variables)."""
    errors = []
    if len(conditions) > 64:
        errors.append(too_many_error(path, len(conditions), 64))
    names: set[str] = set()
    for i, condition in enumerate(conditions):
        condition_path = index(path, i)
        expression = (condition.get("expression") or "").strip()
        if not expression:
            errors.append(required_error(child(condition_path, "expression")))
        else:
            errors += compiler.errors(expression, child(condition_path, "expression"), ("bool",), variables=False)
        name = condition.get("name") or ""
        if not name:
            errors.append(required_error(child(condition_path, "name")))
        else:
            errors += validate_qualified_name(name, child(condition_path, "name"))
            if name in names:
                errors.append(duplicate_error(child(condition_path, "name"), name))
            names.add(name)
    return errors


# ----------------------------------------------------------------------------- webhooks

def _validate_admission_review_versions(versions: Sequence[str], require_recognized: bool,
                                        path: str) -> list[FieldError]:
    if not versions:
        return [required_error(path, "must specify one of " + ", ".join(_ADMISSION_REVIEW_VERSIONS))]
    errors = []
    seen: set[str] = set()
    for i, version in enumerate(versions):
        if version in seen:
            errors.append(invalid_error(index(path, i), version, "duplicate version"))
            continue
        seen.add(version)
        errors += [invalid_error(index(path, i), version, message) for message in is_dns1035_label(version)]
    if require_recognized and not seen & set(_ADMISSION_REVIEW_VERSIONS):
        errors.append(invalid_json(path, versions,
                                   "must include at least one of " + ", ".join(_ADMISSION_REVIEW_VERSIONS)))
    return errors


def _validate_webhook(hook: Json, options: _Options, path: str, mutating: bool) -> list[FieldError]:
    """``validateValidatingWebhook`` / ``validateMutatingWebhook``."""
    errors = is_fully_qualified_name(child(path, "name"), hook.get("name") or "")
    for i, rule in enumerate(values(hook, "rules")):
        errors += _validate_rule_with_operations(rule, index(child(path, "rules"), i))
    for name, supported in (("failurePolicy", _FAILURE_POLICIES), ("matchPolicy", _MATCH_POLICIES)):
        value = hook.get(name)
        if value is not None and value not in supported:
            errors.append(not_supported_error(child(path, name), value, supported))
    side_effects = hook.get("sideEffects")
    allowed = _NO_SIDE_EFFECT_CLASSES if options.require_no_side_effects else _SIDE_EFFECT_CLASSES
    if side_effects is None:
        errors.append(required_error(child(path, "sideEffects"), "must specify one of " + ", ".join(allowed)))
    elif side_effects not in allowed:
        errors.append(not_supported_error(child(path, "sideEffects"), side_effects, allowed))
    timeout = hook.get("timeoutSeconds")
    if timeout is not None and not 1 <= timeout <= 30:
        errors.append(invalid_error(child(path, "timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"))
    selector_options = LabelSelectorValidationOptions(
        allow_invalid_label_value_in_selector=options.allow_invalid_label_value_in_selector)
    for name in ("namespaceSelector", "objectSelector"):
        errors += validate_label_selector(hook.get(name), selector_options, child(path, name))
    reinvocation = hook.get("reinvocationPolicy")
    if mutating and reinvocation is not None and reinvocation not in _REINVOCATION_POLICIES:
        errors.append(not_supported_error(child(path, "reinvocationPolicy"), reinvocation, _REINVOCATION_POLICIES))
    config = hook.get("clientConfig") or {}
    config_path = child(path, "clientConfig")
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        errors.append(required_error(config_path, "exactly one of url or service is required"))
    elif url is not None:
        errors += validate_webhook_url(child(config_path, "url"), url, True)
    else:
        errors += validate_webhook_service(child(config_path, "service"), service.get("namespace") or "",
                                           service.get("name") or "", service.get("path"), service.get("port") or 0)
    if not options.ignore_match_conditions:
        errors += _validate_match_conditions(values(hook, "matchConditions"), child(path, "matchConditions"),
                                             _expression_compiler(has_params=False, has_variables=False))
    return errors


def _validate_webhook_configuration(configuration: Json, options: _Options, mutating: bool) -> list[FieldError]:
    errors = validate_object_meta(configuration["metadata"], False, name_is_dns_subdomain)
    names: set[str] = set()
    for i, hook in enumerate(values(configuration, "webhooks")):
        path = index("webhooks", i)
        errors += _validate_webhook(hook, options, path, mutating)
        errors += _validate_admission_review_versions(values(hook, "admissionReviewVersions"),
                                                      options.require_recognized_admission_review_version,
                                                      child(path, "admissionReviewVersions"))
        name = hook.get("name") or ""
        if options.require_unique_webhook_names and name:
            if name in names:
                errors.append(duplicate_error(child(path, "name"), name))
            names.add(name)
    return errors


def _has_invalid_label_value_in_selector(hooks: Sequence[Json]) -> bool:
    strict = LabelSelectorValidationOptions()
    return any(validate_label_selector(hook.get(name), strict, "")
               for hook in hooks for name in ("namespaceSelector", "objectSelector"))


def _update_options(new_hooks: Sequence[Json], old_hooks: Sequence[Json]) -> _Options:
    """What an update keeps allowing because the stored configuration already has it."""
    names = [hook.get("name") or "" for hook in old_hooks]
    return _Options(
        ignore_match_conditions=len(new_hooks) == len(old_hooks) and all(
            new.get("matchConditions") == old.get("matchConditions") for new, old in zip(new_hooks, old_hooks)),
        require_no_side_effects=all(hook.get("sideEffects") in _NO_SIDE_EFFECT_CLASSES for hook in old_hooks),
        require_recognized_admission_review_version=all(
            not values(hook, "admissionReviewVersions")
            or set(values(hook, "admissionReviewVersions")) & set(_ADMISSION_REVIEW_VERSIONS) for hook in old_hooks),
        require_unique_webhook_names=len(set(names)) == len(names),
        allow_invalid_label_value_in_selector=_has_invalid_label_value_in_selector(old_hooks),
    )


def validate_validating_webhook_configuration(configuration: Json) -> list[FieldError]:
    return _validate_webhook_configuration(configuration, _Options(), mutating=False)


def validate_mutating_webhook_configuration(configuration: Json) -> list[FieldError]:
    return _validate_webhook_configuration(configuration, _Options(), mutating=True)


def validate_validating_webhook_configuration_update(new: Json, old: Json) -> list[FieldError]:
    options = _update_options(values(new, "webhooks"), values(old, "webhooks"))
    return _validate_webhook_configuration(new, options, mutating=False)


def validate_mutating_webhook_configuration_update(new: Json, old: Json) -> list[FieldError]:
    options = _update_options(values(new, "webhooks"), values(old, "webhooks"))
    return _validate_webhook_configuration(new, options, mutating=True)


# ----------------------------------------------------------------------------- policies

def _expression_compiler(has_params: bool, has_variables: bool) -> ExpressionCompiler:
    """The compiler of one policy's (or webhook's) expressions; CEL loads with the first."""
    from .expressions import ExpressionCompiler

    return ExpressionCompiler(has_params, has_variables)


def _validate_param_kind(param_kind: Json, path: str) -> list[FieldError]:
    errors = []
    api_version, kind = param_kind.get("apiVersion") or "", param_kind.get("kind") or ""
    version_path = child(path, "apiVersion")
    if not api_version:
        errors.append(required_error(version_path))
    elif api_version.count("/") > 1:
        errors.append(invalid_error(version_path, api_version, f"unexpected GroupVersion string: {api_version}"))
    else:
        group, _, version = api_version.rpartition("/") if api_version != "/" else ("", "", "")
        if group:
            problems = is_dns1123_subdomain(group)
            if problems:
                errors.append(invalid_error(version_path, group, ",".join(problems)))
        if not version:
            errors.append(invalid_error(version_path, api_version, "version must be specified"))
        else:
            problems = is_dns1035_label(version)
            if problems:
                errors.append(invalid_error(version_path, version, ",".join(problems)))
    if not kind:
        errors.append(required_error(child(path, "kind")))
    else:
        problems = is_dns1035_label(kind.lower())
        if problems:
            errors.append(invalid_error(child(path, "kind"), kind,
                                        "may have mixed case, but should otherwise match: " + ",".join(problems)))
    return errors


def _validate_match_resources(match: Json | None, path: str) -> list[FieldError]:
    if match is None:
        return []
    errors = []
    policy = match.get("matchPolicy")
    if policy is None:
        errors.append(required_error(child(path, "matchPolicy")))
    elif policy not in _MATCH_POLICIES:
        errors.append(not_supported_error(child(path, "matchPolicy"), policy, _MATCH_POLICIES))
    for name in ("namespaceSelector", "objectSelector"):
        selector = match.get(name)
        if selector is None:
            errors.append(required_error(child(path, name)))
        else:
            errors += validate_label_selector(selector, LabelSelectorValidationOptions(), child(path, name))
    for name in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(values(match, name)):
            errors += _validate_named_rule_with_operations(rule, index(child(path, name), i))
    return errors


def _validate_variable(compiler: ExpressionCompiler, variable: Json, path: str) -> list[FieldError]:
    errors = []
    name = variable.get("name") or ""
    if not name.strip():
        errors.append(required_error(child(path, "name"), "name is not specified"))
    elif not _CEL_IDENTIFIER.fullmatch(name) or name in _CEL_RESERVED:
        errors.append(invalid_error(child(path, "name"), name, "must be a valid CEL identifier"))
    expression = variable.get("expression") or ""
    if not expression.strip():
        errors.append(required_error(child(path, "expression"), "expression is not specified"))
    else:
        errors += compiler.errors(expression, child(path, "expression"), ())
        typed = compiler.typed(expression, True)
        if typed is not None:
            compiler.variable_types[name] = typed.result
    if compiler.variables is not None:
        compiler.variables.append(name)  # a later expression may read it, compiled or not
    return errors


def _validate_validation(compiler: ExpressionCompiler, validation: Json, path: str) -> list[FieldError]:
    errors = []
    message, message_expression = validation.get("message") or "", validation.get("messageExpression") or ""
    expression = validation.get("expression") or ""
    if not expression.strip():
        errors.append(required_error(child(path, "expression"), "expression is not specified"))
    else:
        errors += compiler.errors(expression, child(path, "expression"), ("bool",))
    if message_expression and not message_expression.strip():
        errors.append(invalid_error(child(path, "messageExpression"), message_expression, "must be non-empty if specified"))
    elif message_expression:
        errors += compiler.errors(message_expression, child(path, "messageExpression"), ("string",), authorizer=False)
    trimmed = message.strip()
    if message and not trimmed:
        errors.append(invalid_error(child(path, "message"), message, "must be non-empty if specified"))
    elif _NEWLINES.search(trimmed):
        errors.append(invalid_error(child(path, "message"), message, "must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in _VALIDATION_REASONS:
        errors.append(not_supported_error(child(path, "reason"), reason, _VALIDATION_REASONS))
    return errors


def _validate_audit_annotation(compiler: ExpressionCompiler, policy_name: str, annotation: Json,
                               path: str) -> list[FieldError]:
    key = annotation.get("key") or ""
    if policy_name:
        errors = validate_qualified_name(f"{policy_name}/{key}", child(path, "key"))
    else:
        errors = [invalid_error(child(path, "key"), key, "requires metadata.name be non-empty")]
    value_expression = (annotation.get("valueExpression") or "").strip()
    if not value_expression:
        errors.append(required_error(child(path, "valueExpression"), "valueExpression is not specified"))
    elif len(value_expression.encode()) > _MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH:
        errors.append(required_error(child(path, "valueExpression"),
                                     f"must not exceed {_MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length"))
    else:
        errors += compiler.errors(value_expression, child(path, "valueExpression"), ("string", "null_type"),
                                  shown=annotation.get("valueExpression") or "")
    return errors


def _validate_policy_spec(name: str, spec: Json, ignore_match_conditions: bool) -> list[FieldError]:
    errors = []
    failure_policy = spec.get("failurePolicy")
    if failure_policy is None:
        errors.append(required_error("spec.failurePolicy"))
    elif failure_policy not in _FAILURE_POLICIES:
        errors.append(not_supported_error("spec.failurePolicy", failure_policy, _FAILURE_POLICIES))
    if spec.get("paramKind") is not None:
        errors += _validate_param_kind(spec["paramKind"], "spec.paramKind")
    constraints = spec.get("matchConstraints")
    if constraints is None:
        errors.append(required_error("spec.matchConstraints"))
    else:
        errors += _validate_match_resources(constraints, "spec.matchConstraints")
        if not values(constraints, "resourceRules"):
            errors.append(required_error("spec.matchConstraints.resourceRules"))
    compiler = _expression_compiler(spec.get("paramKind") is not None, bool(values(spec, "variables")))
    if not ignore_match_conditions:
        errors += _validate_match_conditions(values(spec, "matchConditions"), "spec.matchConditions", compiler)
    for i, variable in enumerate(values(spec, "variables")):
        errors += _validate_variable(compiler, variable, index("spec.variables", i))
    validations, annotations = values(spec, "validations"), spec.get("auditAnnotations")
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        return errors + [required_error("spec.validations", detail), required_error("spec.auditAnnotations", detail)]
    for i, validation in enumerate(validations):
        errors += _validate_validation(compiler, validation, index("spec.validations", i))
    if annotations is not None:
        if len(annotations) > _MAX_AUDIT_ANNOTATIONS:
            errors.append(invalid_json("spec.auditAnnotations",
                                       [{"Key": a.get("key") or "", "ValueExpression": a.get("valueExpression") or ""}
                                        for a in annotations],
                                       f"must not have more than {_MAX_AUDIT_ANNOTATIONS} auditAnnotations"))
        keys: set[str] = set()
        for i, annotation in enumerate(annotations):
            path = index("spec.auditAnnotations", i)
            errors += _validate_audit_annotation(compiler, name, annotation, path)
            key = annotation.get("key") or ""
            if key in keys:
                errors.append(duplicate_error(child(path, "key"), key))
            keys.add(key)
    return errors


def validate_validating_admission_policy(policy: Json, ignore_match_conditions: bool = False) -> list[FieldError]:
    errors = validate_object_meta(policy["metadata"], False, name_is_dns_subdomain)
    return errors + _validate_policy_spec(policy["metadata"].get("name") or "", policy.get("spec") or {},
                                          ignore_match_conditions)


def validate_validating_admission_policy_update(new: Json, old: Json) -> list[FieldError]:
    """Match conditions are not checked again if they and the param kind are unchanged."""
    unchanged = all(get(new, "spec", name) == get(old, "spec", name) for name in ("paramKind", "matchConditions"))
    return validate_validating_admission_policy(new, ignore_match_conditions=unchanged)


def validate_validating_admission_policy_status_update(new: Json, old: Json) -> list[FieldError]:
    errors = []
    for i, warning in enumerate(values(get(new, "status", "typeChecking"), "expressionWarnings")):
        path = index("status.typeChecking.expressionWarnings", i)
        if not warning.get("warning"):
            errors.append(required_error(child(path, "warning")))
        if not (warning.get("fieldRef") or "").strip():
            errors.append(required_error(child(path, "fieldRef")))
    return errors + validate_conditions(get(new, "status", "conditions"), "status.conditions")


# ----------------------------------------------------------------------------- bindings

def _validate_param_ref(param_ref: Json | None, path: str) -> list[FieldError]:
    if param_ref is None:
        return []
    errors = []
    name, selector = param_ref.get("name") or "", param_ref.get("selector")
    if name:
        errors += [invalid_error(child(path, "name"), name, m) for m in validate_path_segment_name(name, False)]
        if selector is not None:
            errors.append(forbidden_error(child(path, "name"), "name and selector are mutually exclusive"))
    if selector is not None:
        errors += validate_label_selector(selector, LabelSelectorValidationOptions(), child(path, "selector"))
        if name:
            errors.append(forbidden_error(child(path, "selector"), "name and selector are mutually exclusive"))
    if not name and selector is None:
        errors.append(required_error(path, "one of name or selector must be specified"))
    action = param_ref.get("parameterNotFoundAction")
    if not action:
        errors.append(required_error(child(path, "parameterNotFoundAction")))
    elif action not in ("Deny", "Allow"):
        errors.append(not_supported_json(child(path, "parameterNotFoundAction"), action, ("Deny", "Allow")))
    return errors


def _validate_validation_actions(actions: Sequence[str], path: str) -> list[FieldError]:
    errors = []
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action not in _VALIDATION_ACTIONS:
            errors.append(not_supported_error(index(path, i), action, _VALIDATION_ACTIONS))
        if action in seen:
            errors.append(duplicate_error(index(path, i), action))
        seen.add(action)
    if {"Deny", "Warn"} <= seen:
        errors.append(invalid_json(path, actions, "must not contain both Deny and Warn (repeating the same validation "
                                                  "failure information in the API response and headers serves no purpose)"))
    if not seen:
        errors.append(required_error(path, "at least one validation action is required"))
    return errors


def validate_validating_admission_policy_binding(binding: Json) -> list[FieldError]:
    errors = validate_object_meta(binding["metadata"], False, name_is_dns_subdomain)
    spec = binding.get("spec") or {}
    policy_name = spec.get("policyName") or ""
    if not policy_name:
        errors.append(required_error("spec.policyName"))
    else:
        errors += [invalid_error("spec.policyName", policy_name, m) for m in name_is_dns_subdomain(policy_name, False)]
    errors += _validate_param_ref(spec.get("paramRef"), "spec.paramRef")
    errors += _validate_match_resources(spec.get("matchResources"), "spec.matchResources")
    return errors + _validate_validation_actions(values(spec, "validationActions"), "spec.validationActions")
