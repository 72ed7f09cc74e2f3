"""admissionregistration.k8s.io/v1 defaulting (``pkg/apis/admissionregistration/v1/defaults.go``
and the walk of ``zz_generated.defaults.go`` over webhooks, rules and match resources)."""

from __future__ import annotations

from ..fields import Json, default, get, items, struct


def _set_defaults_rules(rules: list[Json]) -> None:
    for rule in rules:
        default(rule, "scope", "*")


def _set_defaults_webhook(webhook: Json) -> None:
    default(webhook, "failurePolicy", "Fail")
    default(webhook, "matchPolicy", "Equivalent")
    default(webhook, "namespaceSelector", {})
    default(webhook, "objectSelector", {})
    default(webhook, "timeoutSeconds", 10)
    service = get(webhook, "clientConfig", "service")
    if isinstance(service, dict):
        default(service, "port", 443)
    _set_defaults_rules(items(webhook, "rules"))


def set_defaults_validating_webhook_configuration(obj: Json) -> None:
    for webhook in items(obj, "webhooks"):
        _set_defaults_webhook(webhook)


def set_defaults_mutating_webhook_configuration(obj: Json) -> None:
    for webhook in items(obj, "webhooks"):
        _set_defaults_webhook(webhook)
        default(webhook, "reinvocationPolicy", "Never")


def _set_defaults_match_resources(match: Json | None) -> None:
    if not isinstance(match, dict):
        return
    default(match, "matchPolicy", "Equivalent")
    default(match, "namespaceSelector", {})
    default(match, "objectSelector", {})
    _set_defaults_rules(items(match, "resourceRules"))
    _set_defaults_rules(items(match, "excludeResourceRules"))


def set_defaults_validating_admission_policy(obj: Json) -> None:
    spec = struct(obj, "spec")
    default(spec, "failurePolicy", "Fail")
    _set_defaults_match_resources(spec.get("matchConstraints"))


def set_defaults_validating_admission_policy_binding(obj: Json) -> None:
    _set_defaults_match_resources(get(obj, "spec", "matchResources"))
