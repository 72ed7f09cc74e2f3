"""Which webhooks a request is sent to (``generic/webhook.go``'s ``ShouldCallHook`` and the
predicates under ``webhook/predicates``): the namespace selector, the object selector, then the
rules (operations, groups, versions, resources with ``*`` and subresources, scope). A rule that
names another version of the request's resource matches under ``matchPolicy: Equivalent`` (the
default), and the webhook is then given the request in that version (``matched_version``).

A configuration object is compiled once per stored version of it (``compile_configurations``
is called with the lister's list, which stays the same object until the configurations change),
so a request pays for the matching only."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...cel import admission as cel_admission
from ...cel.access import Authorize, always_allow
from ...cel.engine import Activation, CompileError, Environment, EvaluationError, Program
from ...cel.runtime_cost import (
    LIMIT_EXCEEDED, MATCH_CONDITIONS_BUDGET, OUT_OF_BUDGET, CostBudget, CostLimitExceeded, OutOfBudget)
from ...machinery.selectors import LabelSelector, label_selector_as_selector
from ...machinery.status import forbidden, internal_error, not_found
from ...apis.webhook_client import Lookup
from .request import Attributes, Json
from .review import admission_request



@functools.cache
def match_conditions_environment() -> Environment:
    """The variables of a webhook's match conditions and their library (kube's and the
    authorizer library). Made at the first condition: the CEL interpreter is imported then."""
    return Environment(("object", "oldObject", "request", cel_admission.AUTHORIZER), cel_admission.ADMISSION_LIBRARY)


def request_principal(attrs: Attributes, authorize: Authorize) -> cel_admission.Principal:
    """Whom the ``authorizer`` variable checks for: the request's user, its ``requestResource``
    the request's resource in the version ``attrs`` are in (kube's versioned attributes)."""
    return cel_admission.Principal(authorize, attrs.request.user,
                                   (attrs.group, attrs.resource, attrs.subresource, attrs.namespace, attrs.name))


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
    #: ``matchPolicy: Equivalent``: a rule naming another version of the resource matches.
    equivalent: bool = True

    def invocation(self, attrs: Attributes, namespace_labels: Callable[[], dict[str, str]],
                   authorize: Authorize = always_allow) -> Attributes | None:
        """``ShouldCallHook``: the attributes this webhook is given (in the version its rule
        names), None when the request is not for it; raises kube's error when a selector cannot
        be evaluated (the namespace of the request does not exist: its 404) or a match
        condition fails under ``failurePolicy: Fail``."""
        versioned = matched_version(attrs, any(rule.matches(attrs) for rule in self.rules), self.rules,
                                    self.equivalent)
        if versioned is None:
            return None
        if self.selector_error is not None:
            raise internal_error(self.selector_error)
        if not selectors_match(self.namespace_selector, self.object_selector, attrs, namespace_labels):
            return None
        return versioned if not self.match_conditions or self._conditions_hold(versioned, authorize) else None

    def _conditions_hold(self, attrs: Attributes, authorize: Authorize) -> bool:
        """A condition false skips the webhook; errors (with none false) fail the request under
        ``Fail`` (kube's 403 naming them) and skip the webhook under ``Ignore``."""
        principal = request_principal(attrs, authorize)
        values = {"object": attrs.object, "oldObject": attrs.old_object, "request": admission_request(attrs),
                  cel_admission.AUTHORIZER: principal.value}
        holds, errors = evaluate_conditions(self.match_conditions, Activation(values), principal, values)
        if not holds or not errors:
            return holds
        if self.failure_policy == "Ignore":
            return False
        raise forbidden(attrs.group, attrs.resource, attrs.name, aggregate(errors))


def matched_version(attrs: Attributes, exact: bool, rules: Sequence[Rule], equivalent: bool) -> Attributes | None:
    """The attributes in the version a rule names: the request's own when a rule matches it
    (``exact``), else under ``matchPolicy: Equivalent`` the first other version of the
    resource's storage one of ``rules`` matches, rules in their order (kube honours earlier
    rules first); None when no rule matches."""
    if exact:
        return attrs.as_requested()
    if equivalent:
        for rule in rules:
            for served in attrs.versions:
                if served.gvr != (attrs.group, attrs.version, attrs.resource) and rule.matches(dataclasses.replace(
                        attrs, group=served.group, version=served.version, resource=served.resource)):
                    return attrs.in_version(served)
    return None


def evaluate_conditions(conditions: Sequence[tuple[str, Program | CompileError]],
                        bindings: Mapping[str, Any] | Activation, principal: cel_admission.Principal,
                        values: Mapping[str, Any]) -> tuple[bool, list[str]]:
    """``matchconditions.Matcher.Match`` of compiled conditions: (False, []) when one is false,
    else (True, the errors of those that failed to compile or evaluate); ``bindings``'
    authorizer is ``principal``'s, ``values`` the variables bound (what costs are counted on).

    The conditions spend a budget of their own (``RuntimeCELCostBudgetMatchConditions``), each
    under the per-call limit; kube evaluates them all before it looks at their results, so a
    false one does not spare the later ones' costs (they are counted, not evaluated), and a
    budget run out is the one error, whatever the conditions said."""
    errors = []
    budget = CostBudget(MATCH_CONDITIONS_BUDGET)
    holds = True
    for _name, program in conditions:
        if isinstance(program, CompileError):
            errors.append(f"compilation failed: {program}")
            continue
        try:
            budget.spend(program.source, values, program.reads()[0])
        except CostLimitExceeded:
            errors.append(f"expression '{program.source}' resulted in error: {LIMIT_EXCEEDED}")
            continue
        except OutOfBudget:
            return True, [OUT_OF_BUDGET]
        if not holds:
            continue
        principal.begin_expression()
        try:
            value = program.evaluate(bindings)
        except EvaluationError as err:
            errors.append(f"expression '{program.source}' resulted in error: {err}")
            continue
        if value is False:
            holds = False
        elif value is not True:
            errors.append(f"expression '{program.source}' resulted in error: no such overload")
    return (True, errors) if holds else (False, [])


def aggregate(errors: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errors).Error()``: one error's text, else them all bracketed."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def selectors_match(namespace_selector: LabelSelector | None, object_selector: LabelSelector | None,
                    attrs: Attributes, namespace_labels: Callable[[], dict[str, str]]) -> bool:
    """The namespace selector (``MatchNamespaceSelector``: a cluster-scoped object other than a
    namespace is always selected; ``namespace_labels`` may raise the namespace's 404), then the
    object selector (``MatchObjectSelector``: the new or the old object); None selects all."""
    if namespace_selector is not None and (attrs.namespace or attrs.resource == "namespaces"):
        if not namespace_selector.matches(namespace_labels()):
            return False
    return object_selector is None or any(
        obj is not None and object_selector.matches(_labels(obj)) for obj in (attrs.object, attrs.old_object))


def namespace_of(lookup: Lookup, attrs: Attributes) -> Json:
    """``GetNamespaceLabels``'s namespace: a namespace written is its own; else the stored
    namespace of the request (its 404 when there is none)."""
    if attrs.resource == "namespaces" and not attrs.subresource and attrs.operation in ("CREATE", "UPDATE"):
        return attrs.object or {}
    namespace = lookup("", "Namespace", None, attrs.namespace)
    if namespace is None:
        raise not_found("", "namespaces", attrs.namespace)
    return namespace


def _labels(obj: Json) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def selectors_of(fields: Json) -> tuple[LabelSelector | None, LabelSelector | None, str | None]:
    """The ``namespaceSelector`` and ``objectSelector`` of a webhook (or of a policy's match
    resources), and the error of one kube cannot convert (then neither is kept: kube's matching
    fails with it)."""
    try:
        return _selector(fields.get("namespaceSelector")), _selector(fields.get("objectSelector")), None
    except ValueError as err:
        return None, None, str(err)


def _selector(value: Any) -> LabelSelector | None:
    """A selector; None for the empty one, which selects everything."""
    if not value:
        return None
    return label_selector_as_selector(value)


def rule_of(rule: Json) -> Rule:
    """A ``RuleWithOperations`` (or the rule of a ``NamedRuleWithOperations``)."""
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
            namespace_selector, object_selector, selector_error = selectors_of(hook)
            hooks.append(Webhook(
                configuration=config_name, name=hook["name"], uid=f"{config_name}/{hook['name']}/{index}",
                rules=tuple(rule_of(rule) for rule in hook.get("rules") or ()),
                namespace_selector=namespace_selector, object_selector=object_selector, selector_error=selector_error,
                failure_policy=hook.get("failurePolicy") or "Fail", side_effects=hook.get("sideEffects"),
                timeout_seconds=hook.get("timeoutSeconds") or 10,
                review_versions=tuple(hook.get("admissionReviewVersions") or ()),
                client_config=hook.get("clientConfig") or {},
                reinvoke_if_needed=hook.get("reinvocationPolicy") == "IfNeeded", mutating=mutating,
                equivalent=hook.get("matchPolicy") != "Exact",
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

