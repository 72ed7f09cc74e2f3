"""Which webhooks a request is sent to (``generic/webhook.go``'s ``ShouldCallHook`` and the
predicates under ``webhook/predicates``): the namespace selector, the object selector, then the
rules (operations, groups, versions, resources with ``*`` and subresources, scope).

A configuration object is compiled once per stored version of it (``compile_configurations``
is called with the lister's list, which stays the same object until the configurations change),
so a request pays for the matching only."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...cel.engine import CompileError, Environment, EvaluationError, Program
from ...machinery.selectors import LabelSelector, label_selector_as_selector
from ...machinery.status import forbidden, internal_error
from .request import Attributes, Json
from .review import admission_request



@functools.cache
def match_conditions_environment() -> Environment:
    """The variables of a webhook's match conditions (``authorizer`` is declared; its library is
    not served, so a condition calling it fails as an evaluation error). Made at the first
    condition: the CEL interpreter is imported then."""
    return Environment(("object", "oldObject", "request", "authorizer"))

#: The admission configuration resources no webhook sees (``IsExemptAdmissionConfigurationResource``):
#: a webhook must never be able to stop its own configuration from being fixed.
EXEMPT_RESOURCES = frozenset({
    "validatingwebhookconfigurations", "mutatingwebhookconfigurations", "validatingadmissionpolicies",
    "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
})
ADMISSION_GROUP = "admissionregistration.k8s.io"


@dataclass(frozen=True)
class Rule:
    """``RuleWithOperations``; ``resources`` split into (resource, subresource) pairs."""

    operations: frozenset[str]
    groups: frozenset[str]
    versions: frozenset[str]
    resources: tuple[tuple[str, str], ...]
    scope: str

    def matches(self, attrs: Attributes) -> bool:
        """``rules.Matcher.Matches``."""
        return (("*" in self.operations or attrs.operation in self.operations)
                and ("*" in self.groups or attrs.group in self.groups)
                and ("*" in self.versions or attrs.version in self.versions)
                and any((res == "*" or res == attrs.resource) and (sub == "*" or sub == attrs.subresource)
                        for res, sub in self.resources)
                and self._scope_matches(attrs))

    def _scope_matches(self, attrs: Attributes) -> bool:
        # a namespace object is cluster-scoped, though its attributes name it as their namespace
        namespace_object = attrs.group == "" and attrs.resource == "namespaces"
        if self.scope == "Namespaced":
            return not namespace_object and attrs.namespace != ""
        if self.scope == "Cluster":
            return namespace_object or attrs.namespace == ""
        return True


@dataclass(frozen=True)
class Webhook:
    """One webhook of a configuration, compiled; ``uid`` tells it from the others in
    reinvocation (kube's ``<configuration>/<name>/<index>``)."""

    configuration: str
    name: str
    uid: str
    rules: tuple[Rule, ...]
    namespace_selector: LabelSelector | None
    object_selector: LabelSelector | None
    #: A selector kube could not convert (an error at matching time, as kube's lazy parse).
    selector_error: str | None
    failure_policy: str
    side_effects: str | None
    timeout_seconds: int
    review_versions: tuple[str, ...]
    client_config: Json
    reinvoke_if_needed: bool
    mutating: bool
    #: (name, compiled expression or the compile error) of each match condition.
    match_conditions: tuple[tuple[str, Program | CompileError], ...] = ()

    def matches(self, attrs: Attributes, namespace_labels: Callable[[], dict[str, str]]) -> bool:
        """``ShouldCallHook``: False when the request is not for this webhook; raises kube's
        error when a selector cannot be evaluated (the namespace of the request does not exist:
        its 404) or a match condition fails under ``failurePolicy: Fail``."""
        if not any(rule.matches(attrs) for rule in self.rules):
            return False
        if self.selector_error is not None:
            raise internal_error(self.selector_error)
        if self.namespace_selector is not None and (attrs.namespace or attrs.resource == "namespaces"):
            if not self.namespace_selector.matches(namespace_labels()):
                return False
        if self.object_selector is not None and not any(
                obj is not None and self.object_selector.matches(_labels(obj)) for obj in (attrs.object, attrs.old_object)):
            return False
        return not self.match_conditions or self._conditions_hold(attrs)

    def _conditions_hold(self, attrs: Attributes) -> bool:
        """``matchconditions.Matcher.Match``: a condition false skips the webhook; errors (with
        none false) fail the request under ``Fail`` (kube's 403 naming them) and skip the webhook
        under ``Ignore``."""
        bindings = {"object": attrs.object, "oldObject": attrs.old_object,
                    "request": admission_request(attrs), "authorizer": None}
        errors = []
        for _name, program in self.match_conditions:
            if isinstance(program, CompileError):
                errors.append(f"compilation failed: {program}")
                continue
            try:
                value = program.evaluate(bindings)
            except EvaluationError as err:
                errors.append(f"expression '{program.source}' resulted in error: {err}")
                continue
            if value is False:
                return False
            if value is not True:
                errors.append(f"expression '{program.source}' resulted in error: no such overload")
        if not errors:
            return True
        if self.failure_policy == "Ignore":
            return False
        message = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        raise forbidden(attrs.group, attrs.resource, attrs.name, message)


def _labels(obj: Json) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _selector(value: Any) -> LabelSelector | None:
    """A webhook's selector; None for the empty one, which selects everything."""
    if not value:
        return None
    return label_selector_as_selector(value)


def _rule(rule: Json) -> Rule:
    return Rule(frozenset(rule.get("operations") or ()), frozenset(rule.get("apiGroups") or ()),
                frozenset(rule.get("apiVersions") or ()),
                tuple((res.partition("/")[0], res.partition("/")[2]) for res in rule.get("resources") or ()),
                rule.get("scope") or "*")


def compile_configurations(configurations: Sequence[Json], mutating: bool) -> tuple[Webhook, ...]:
    """The webhooks of the configurations, in kube's order: configurations by name, each
    configuration's webhooks in their order (``mutatingwebhookconfiguration_manager.go`` sorts
    the configurations)."""
    hooks: list[Webhook] = []
    for configuration in sorted(configurations, key=lambda c: c["metadata"]["name"]):
        config_name = configuration["metadata"]["name"]
        for index, hook in enumerate(configuration.get("webhooks") or ()):
            selector_error = None
            try:
                namespace_selector = _selector(hook.get("namespaceSelector"))
                object_selector = _selector(hook.get("objectSelector"))
            except ValueError as err:
                namespace_selector = object_selector = None
                selector_error = str(err)
            hooks.append(Webhook(
                configuration=config_name, name=hook["name"], uid=f"{config_name}/{hook['name']}/{index}",
                rules=tuple(_rule(rule) for rule in hook.get("rules") or ()),
                namespace_selector=namespace_selector, object_selector=object_selector, selector_error=selector_error,
                failure_policy=hook.get("failurePolicy") or "Fail", side_effects=hook.get("sideEffects"),
                timeout_seconds=hook.get("timeoutSeconds") or 10,
                review_versions=tuple(hook.get("admissionReviewVersions") or ()),
                client_config=hook.get("clientConfig") or {},
                reinvoke_if_needed=hook.get("reinvocationPolicy") == "IfNeeded", mutating=mutating,
                match_conditions=tuple((condition.get("name", ""), _compiled(condition.get("expression", "")))
                                       for condition in hook.get("matchConditions") or ()),
            ))
    return tuple(hooks)


def _compiled(expression: str) -> Program | CompileError:
    try:
        return match_conditions_environment().compile(expression)
    except CompileError as err:
        return err


def is_exempt(attrs: Attributes) -> bool:
    return attrs.group == ADMISSION_GROUP and attrs.resource in EXEMPT_RESOURCES

