"""flowcontrol.apiserver.k8s.io validation (kube's ``pkg/apis/flowcontrol/validation``): FlowSchemas
and PriorityLevelConfigurations, including the mandatory objects whose spec is fixed."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
)
from ...machinery.validation import (
    child,
    index,
    invalid_json,
    name_is_dns_subdomain,
    validate_namespace_name,
    validate_service_account_name,
)
from ..core.validation_common import validate_core_object_meta
from ..errors import not_supported_json
from ..fields import Json, get, values

_DISTINGUISHER_METHODS = ("ByNamespace", "ByUser")
_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch")
_SUBJECT_KINDS = ("Group", "ServiceAccount", "User")
_ENABLEMENTS = ("Exempt", "Limited")
_LIMIT_RESPONSE_TYPES = ("Queue", "Reject")
_MAX_MATCHING_PRECEDENCE = 10000
_MAX_QUEUES = 10 * 1000 * 1000
#: ``shufflesharding.MaxHashBits``.
_MAX_HASH_BITS = 60
_NAMESPACE_INTRO = "each member of this list must be '*' or a DNS-1123 label; "
#: The v1beta3 annotation that round-trips a zero nominalConcurrencyShares: never on a stored object.
_PRESERVE_ZERO_SHARES = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"

_EVERYTHING = {"resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True,
                                  "namespaces": ["*"]}],
               "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}
#: kube's ``MandatoryFlowSchemas`` and ``MandatoryPriorityLevelConfigurations`` (``apis/flowcontrol/bootstrap``).
_MANDATORY_FLOW_SCHEMAS: dict[str, Json] = {
    "exempt": {"priorityLevelConfiguration": {"name": "exempt"}, "matchingPrecedence": 1,
               "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:masters"}}], **_EVERYTHING}]},
    "catch-all": {"priorityLevelConfiguration": {"name": "catch-all"}, "matchingPrecedence": 10000,
                  "distinguisherMethod": {"type": "ByUser"},
                  "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:unauthenticated"}},
                                          {"kind": "Group", "group": {"name": "system:authenticated"}}],
                             **_EVERYTHING}]},
}
_MANDATORY_PRIORITY_LEVELS: dict[str, Json] = {
    "exempt": {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}},
    "catch-all": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"},
                                                 "lendablePercent": 0}},
}



# ----------------------------------------------------------------------------- internal forms
# The internal structs as json.Marshal prints them (no JSON tags: Go's field names), for the
# mandatory objects' comparison and the value of its error.

def _named(value: Json | None) -> Json | None:
    return None if value is None else {"Name": value.get("name") or ""}


def _internal_flow_schema_spec(spec: Json) -> Json:
    method = spec.get("distinguisherMethod")
    return {
        "PriorityLevelConfiguration": {"Name": get(spec, "priorityLevelConfiguration", "name") or ""},
        "MatchingPrecedence": spec.get("matchingPrecedence") or 0,
        "DistinguisherMethod": None if method is None else {"Type": method.get("type") or ""},
        "Rules": [{
            "Subjects": [{"Kind": subject.get("kind") or "", "User": _named(subject.get("user")),
                          "Group": _named(subject.get("group")),
                          "ServiceAccount": None if subject.get("serviceAccount") is None else {
                              "Namespace": subject["serviceAccount"].get("namespace") or "",
                              "Name": subject["serviceAccount"].get("name") or ""}}
                         for subject in rule.get("subjects") or ()] if rule.get("subjects") is not None else None,
            "ResourceRules": [{"Verbs": r.get("verbs"), "APIGroups": r.get("apiGroups"), "Resources": r.get("resources"),
                               "ClusterScope": bool(r.get("clusterScope")), "Namespaces": r.get("namespaces")}
                              for r in rule["resourceRules"]] if rule.get("resourceRules") is not None else None,
            "NonResourceRules": [{"Verbs": r.get("verbs"), "NonResourceURLs": r.get("nonResourceURLs")}
                                 for r in rule["nonResourceRules"]] if rule.get("nonResourceRules") is not None else None,
        } for rule in spec["rules"]] if spec.get("rules") is not None else None,
    }


def _internal_priority_level_spec(spec: Json) -> Json:
    limited, exempt = spec.get("limited"), spec.get("exempt")
    internal_limited = None
    if limited is not None:
        queuing = get(limited, "limitResponse", "queuing")
        internal_limited = {
            "NominalConcurrencyShares": limited.get("nominalConcurrencyShares") or 0,
            "LimitResponse": {"Type": get(limited, "limitResponse", "type") or "",
                              "Queuing": None if queuing is None else {
                                  "Queues": queuing.get("queues") or 0, "HandSize": queuing.get("handSize") or 0,
                                  "QueueLengthLimit": queuing.get("queueLengthLimit") or 0}},
            "LendablePercent": limited.get("lendablePercent"),
            "BorrowingLimitPercent": limited.get("borrowingLimitPercent"),
        }
    return {"Type": spec.get("type") or "", "Limited": internal_limited,
            "Exempt": None if exempt is None else {"NominalConcurrencyShares": exempt.get("nominalConcurrencyShares"),
                                                   "LendablePercent": exempt.get("lendablePercent")}}


def _semantic(value: Any) -> Any:
    """``apiequality.Semantic.DeepEqual``'s view: an empty list is a nil one."""
    if isinstance(value, dict):
        return {key: _semantic(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_semantic(item) for item in value] or None
    return value


# ----------------------------------------------------------------------------- flow schemas

def _validate_verbs(verbs: Sequence[str], path: str) -> list[FieldError]:
    if not verbs:
        return [required_error(child(path, "verbs"), "verbs must contain at least one value")]
    if "*" in verbs:
        if len(verbs) > 1:
            return [invalid_json(child(path, "verbs"), verbs, "if '*' is present, must not specify other verbs")]
        return []
    if not set(verbs) <= set(_VERBS):
        return [not_supported_json(child(path, "verbs"), verbs, _VERBS)]
    return []


def _validate_non_resource_url(url: str, path: str) -> list[FieldError]:
    """``ValidateNonResourceURLPath``."""
    if not url:
        return [invalid_error(path, url, "must not be empty")]
    if url == "/":
        return []
    problem = None
    if not url.startswith("/"):
        problem = "must start with slash"
    elif " " in url:
        problem = "must not contain white-space"
    elif "//" in url:
        problem = "must not contain double slash"
    elif url.count("*") > 1 or (url.count("*") == 1 and url[-2:] != "/*"):
        problem = "wildcard can only do suffix matching"
    return [invalid_error(path, url, problem)] if problem else []


def _validate_resource_rule(rule: Json, path: str) -> list[FieldError]:
    errors = _validate_verbs(values(rule, "verbs"), path)
    for name, noun in (("apiGroups", "api groups"), ("resources", "resources")):
        listed = values(rule, name)
        if not listed:
            singular = "api group" if name == "apiGroups" else "resource"
            errors.append(required_error(child(path, name), f"resource rules must supply at least one {singular}"))
        elif len(listed) > 1 and "*" in listed:
            errors.append(invalid_json(child(path, name), listed, f"if '*' is present, must not specify other {noun}"))
    namespaces = values(rule, "namespaces")
    if not namespaces and not rule.get("clusterScope"):
        errors.append(required_error(child(path, "namespaces"),
                                     "resource rules that are not cluster scoped must supply at least one namespace"))
    elif "*" in namespaces:
        if len(namespaces) > 1:
            errors.append(invalid_json(child(path, "namespaces"), namespaces,
                                       "if '*' is present, must not specify other namespaces"))
    else:
        for i, namespace in enumerate(namespaces):
            errors += [invalid_error(index(child(path, "namespaces"), i), namespace, _NAMESPACE_INTRO + message)
                       for message in validate_namespace_name(namespace, False)]
    return errors


def _validate_non_resource_rule(rule: Json, path: str) -> list[FieldError]:
    errors = _validate_verbs(values(rule, "verbs"), path)
    urls = values(rule, "nonResourceURLs")
    if not urls:
        errors.append(required_error(child(path, "nonResourceURLs"), "nonResourceURLs must contain at least one value"))
    elif "*" in urls:
        if len(urls) > 1:
            errors.append(invalid_json(child(path, "nonResourceURLs"), urls,
                                       "if '*' is present, must not specify other non-resource URLs"))
    else:
        for i, url in enumerate(urls):
            errors += _validate_non_resource_url(url, index(child(path, "nonResourceURLs"), i))
    return errors


_FORBIDDEN_SUBJECT_FIELDS = {
    "user": "user is forbidden when subject kind is not 'User'",
    "group": "group is forbidden when subject kind is not 'Group'",
    "serviceAccount": "serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
}
#: Per subject kind: its field, then the other fields in the order kube checks them.
_SUBJECT_FIELDS = {"ServiceAccount": ("serviceAccount", ("user", "group")),
                   "User": ("user", ("serviceAccount", "group")),
                   "Group": ("group", ("serviceAccount", "user"))}


def _validate_subject(subject: Json, path: str) -> list[FieldError]:
    kind = subject.get("kind") or ""
    if kind not in _SUBJECT_FIELDS:
        return [not_supported_error(child(path, "kind"), kind, _SUBJECT_KINDS)]
    own, others = _SUBJECT_FIELDS[kind]
    value, own_path = subject.get(own), child(path, own)
    errors = []
    if value is None:
        errors.append(required_error(own_path, f"{own} is required when subject kind is '{kind}'"))
    elif kind == "ServiceAccount":
        name, namespace = value.get("name") or "", value.get("namespace") or ""
        if not name:
            errors.append(required_error(child(own_path, "name")))
        elif name != "*":
            errors += [invalid_error(child(own_path, "name"), name, m) for m in validate_service_account_name(name, False)]
        if namespace:
            errors += [invalid_error(child(own_path, "namespace"), namespace, m)
                       for m in validate_namespace_name(namespace, False)]
        else:
            errors.append(required_error(child(own_path, "namespace"), "must specify namespace for service account"))
    elif not value.get("name"):
        errors.append(required_error(child(own_path, "name")))
    return errors + [forbidden_error(child(path, other), _FORBIDDEN_SUBJECT_FIELDS[other])
                     for other in others if subject.get(other) is not None]


def _validate_rule(rule: Json, path: str) -> list[FieldError]:
    errors = []
    subjects = values(rule, "subjects")
    if not subjects:
        errors.append(required_error(child(path, "subjects"), "subjects must contain at least one value"))
    for i, subject in enumerate(subjects):
        errors += _validate_subject(subject, index(child(path, "subjects"), i))
    resource_rules, non_resource_rules = values(rule, "resourceRules"), values(rule, "nonResourceRules")
    if not resource_rules and not non_resource_rules:
        errors.append(required_error(path, "at least one of resourceRules and nonResourceRules has to be non-empty"))
    for i, resource_rule in enumerate(resource_rules):
        errors += _validate_resource_rule(resource_rule, index(child(path, "resourceRules"), i))
    for i, non_resource_rule in enumerate(non_resource_rules):
        errors += _validate_non_resource_rule(non_resource_rule, index(child(path, "nonResourceRules"), i))
    return errors


def _validate_conditions(conditions: Sequence[Json]) -> list[FieldError]:
    """``ValidateFlowSchemaStatus`` / ``ValidatePriorityLevelConfigurationStatus``."""
    errors = []
    types: set[str] = set()
    for i, condition in enumerate(conditions):
        path = index("status.conditions", i)
        condition_type = condition.get("type") or ""
        if condition_type in types:
            errors.append(duplicate_error(child(path, "type"), condition_type))
        types.add(condition_type)
        if not condition_type:
            errors.append(required_error(child(path, "type")))
    return errors


def validate_flow_schema(flow_schema: Json) -> list[FieldError]:
    """``ValidateFlowSchema`` (also of updates)."""
    meta, spec = flow_schema["metadata"], flow_schema.get("spec") or {}
    name = meta.get("name") or ""
    errors = validate_core_object_meta(meta, False, name_is_dns_subdomain)
    precedence = spec.get("matchingPrecedence") or 0
    if precedence <= 0:
        errors.append(invalid_error("spec.matchingPrecedence", precedence, "must be a positive value"))
    if precedence > _MAX_MATCHING_PRECEDENCE:
        errors.append(invalid_error("spec.matchingPrecedence", precedence,
                                    f"must not be greater than {_MAX_MATCHING_PRECEDENCE}"))
    if precedence == 1 and name != "exempt":
        errors.append(invalid_error("spec.matchingPrecedence", precedence,
                                    "only the schema named 'exempt' may have matchingPrecedence 1"))
    method = spec.get("distinguisherMethod")
    if method is not None and method.get("type") not in _DISTINGUISHER_METHODS:
        errors.append(not_supported_json("spec.distinguisherMethod.type", {"Type": method.get("type") or ""},
                                         _DISTINGUISHER_METHODS))
    level = get(spec, "priorityLevelConfiguration", "name") or ""
    if level:
        errors += [invalid_error("spec.priorityLevelConfiguration.name", level, m)
                   for m in name_is_dns_subdomain(level, False)]
    else:
        errors.append(required_error("spec.priorityLevelConfiguration.name", "must reference a priority level"))
    for i, rule in enumerate(values(spec, "rules")):
        errors += _validate_rule(rule, index("spec.rules", i))
    mandatory = _MANDATORY_FLOW_SCHEMAS.get(name)
    if mandatory is not None:
        internal = _internal_flow_schema_spec(spec)
        if _semantic(internal) != _semantic(_internal_flow_schema_spec(mandatory)):
            errors.append(invalid_json("spec", internal, f"spec of '{name}' must equal the fixed value"))
    return errors + _validate_conditions(values(flow_schema.get("status"), "conditions"))


def validate_flow_schema_status_update(new: Json, old: Json) -> list[FieldError]:
    return _validate_conditions(values(new.get("status"), "conditions"))


# ----------------------------------------------------------------------------- priority levels

def _validate_queuing(queuing: Json, path: str) -> list[FieldError]:
    errors = []
    length_limit = queuing.get("queueLengthLimit") or 0
    queues, hand_size = queuing.get("queues") or 0, queuing.get("handSize") or 0
    if length_limit <= 0:
        errors.append(invalid_error(child(path, "queueLengthLimit"), length_limit, "must be positive"))
    if queues <= 0:
        errors.append(invalid_error(child(path, "queues"), queues, "must be positive"))
    elif queues > _MAX_QUEUES:
        errors.append(invalid_error(child(path, "queues"), queues, f"must not be greater than {_MAX_QUEUES}"))
    if hand_size <= 0:
        errors.append(invalid_error(child(path, "handSize"), hand_size, "must be positive"))
    elif hand_size > queues:
        errors.append(invalid_error(child(path, "handSize"), hand_size, f"should not be greater than queues ({queues})"))
    elif math.ceil(math.log2(queues) * hand_size) > _MAX_HASH_BITS:
        errors.append(invalid_error(child(path, "handSize"), hand_size,
                                    f"required entropy bits of deckSize {queues} and handSize {hand_size} "
                                    f"should not be greater than {_MAX_HASH_BITS}"))
    return errors


def _validate_limited(limited: Json, path: str) -> list[FieldError]:
    errors = []
    shares = limited.get("nominalConcurrencyShares") or 0
    if shares < 0:
        errors.append(invalid_error(child(path, "nominalConcurrencyShares"), shares, "must be a non-negative integer"))
    response = limited.get("limitResponse") or {}
    response_path = child(path, "limitResponse")
    response_type, queuing = response.get("type") or "", response.get("queuing")
    if response_type == "Reject":
        if queuing is not None:
            errors.append(forbidden_error(child(response_path, "queuing"),
                                          "must be nil if limited.limitResponse.type is not Limited"))
    elif response_type == "Queue":
        if queuing is None:
            errors.append(required_error(child(response_path, "queuing"),
                                         "must not be empty if limited.limitResponse.type is Limited"))
        else:
            errors += _validate_queuing(queuing, child(response_path, "queuing"))
    else:
        errors.append(not_supported_error(child(response_path, "type"), response_type, _LIMIT_RESPONSE_TYPES))
    lendable, borrowing = limited.get("lendablePercent"), limited.get("borrowingLimitPercent")
    if lendable is not None and not 0 <= lendable <= 100:
        errors.append(invalid_error(child(path, "lendablePercent"), lendable, "must be between 0 and 100, inclusive"))
    if borrowing is not None and borrowing < 0:
        errors.append(invalid_error(child(path, "borrowingLimitPercent"), borrowing,
                                    "if specified, must be a non-negative integer"))
    return errors


def _validate_exempt(exempt: Json, path: str) -> list[FieldError]:
    errors = []
    shares, lendable = exempt.get("nominalConcurrencyShares"), exempt.get("lendablePercent")
    if shares is not None and shares < 0:
        errors.append(invalid_error(child(path, "nominalConcurrencyShares"), shares, "must be a non-negative integer"))
    if lendable is not None and not 0 <= lendable <= 100:
        errors.append(invalid_error(child(path, "lendablePercent"), lendable, "must be between 0 and 100, inclusive"))
    return errors


def _validate_priority_level_spec(name: str, spec: Json) -> list[FieldError]:
    errors = []
    level_type = spec.get("type") or ""
    if (name == "exempt") != (level_type == "Exempt"):
        errors.append(invalid_error("spec.type", level_type, "must be 'Exempt' if and only if `name` is 'exempt'"))
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if level_type == "Exempt":
        if limited is not None:
            errors.append(forbidden_error("spec.limited", "must be nil if the type is not Limited"))
        if exempt is not None:
            errors += _validate_exempt(exempt, "spec.exempt")
    elif level_type == "Limited":
        if exempt is not None:
            errors.append(forbidden_error("spec.exempt", "must be nil if the type is Limited"))
        if limited is None:
            errors.append(required_error("spec.limited", "must not be empty when type is Limited"))
        else:
            errors += _validate_limited(limited, "spec.limited")
    else:
        errors.append(not_supported_error("spec.type", level_type, _ENABLEMENTS))
    return errors


def _validate_mandatory_priority_level(name: str, spec: Json) -> list[FieldError]:
    mandatory = _MANDATORY_PRIORITY_LEVELS.get(name)
    if mandatory is None:
        return []
    want, have = _internal_priority_level_spec(mandatory), _internal_priority_level_spec(spec)
    if name == "exempt":
        if _semantic({**have, "Exempt": want["Exempt"]}) != _semantic(want):
            return [invalid_json("spec", have, f"spec of '{name}' except the 'spec.exempt' field must equal the fixed value")]
        return []
    if _semantic(have) != _semantic(want):
        return [invalid_json("spec", have, f"spec of '{name}' must equal the fixed value")]
    return []


def validate_priority_level_configuration(level: Json) -> list[FieldError]:
    """``ValidatePriorityLevelConfiguration`` (also of updates) for a v1 request."""
    meta, spec = level["metadata"], level.get("spec") or {}
    name = meta.get("name") or ""
    errors = validate_core_object_meta(meta, False, name_is_dns_subdomain)
    if _PRESERVE_ZERO_SHARES in (meta.get("annotations") or {}):
        errors.append(forbidden_error("metadata.annotations", f"annotation '{_PRESERVE_ZERO_SHARES}' is forbidden"))
    errors += _validate_priority_level_spec(name, spec)
    errors += _validate_mandatory_priority_level(name, spec)
    return errors + _validate_conditions(values(level.get("status"), "conditions"))


def validate_priority_level_configuration_status_update(new: Json, old: Json) -> list[FieldError]:
    return _validate_conditions(values(new.get("status"), "conditions"))
