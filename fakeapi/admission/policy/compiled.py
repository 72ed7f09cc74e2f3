"""A ValidatingAdmissionPolicy and its bindings compiled (kube's ``compilePolicy`` and
``policySource.calculatePolicyData``): the match criteria parsed, every expression compiled in
the environment kube compiles it in, the param kind resolved. Compiled once per stored version
of the policies and bindings (``compile_hooks`` is called with the listers' lists, which stay
the same objects until one of them changes)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ...apis.catalogue import ResourceType, default_catalogue
from ...cel import admission as cel_admission
from ...cel.engine import CompileError, Environment, Program, ProgramGroup, STRING_LITERAL, tokens
from ...machinery.selectors import LabelSelector
from ...machinery.status import StatusError
from ..webhook.matching import Rule, matched_version, rule_of, selectors_match, selectors_of
from ..webhook.request import Attributes, Json

#: A compiled expression, or what compiling it said.
Compiled = Program | CompileError


class MatchError(Exception):
    """A policy's or binding's criteria that cannot be evaluated (a selector kube cannot
    convert, the request's namespace missing): a configuration error of that policy."""


@dataclass(frozen=True)
class NamedRule:
    """``NamedRuleWithOperations``: a rule, and the names it is limited to (none: all)."""

    rule: Rule
    names: frozenset[str]

    def matches(self, attrs: Attributes) -> bool:
        return self.rule.matches(attrs) and (not self.names or attrs.name in self.names)


@dataclass(frozen=True)
class MatchResources:
    """``MatchResources`` as ``policy/matching.Matcher.Matches`` reads it: under ``matchPolicy:
    Equivalent`` (the default) a rule naming another version of the request's resource matches
    it too, and the policy is given the request in that version."""

    namespace_selector: LabelSelector | None
    object_selector: LabelSelector | None
    selector_error: str | None
    rules: tuple[NamedRule, ...]
    exclude_rules: tuple[NamedRule, ...]
    equivalent: bool = True

    @classmethod
    def of(cls, match: Json) -> MatchResources:
        return cls(*selectors_of(match), _named_rules(match.get("resourceRules")),
                   _named_rules(match.get("excludeResourceRules")), match.get("matchPolicy") != "Exact")

    def matched(self, attrs: Attributes, namespace_labels: Callable[[], dict[str, str]]) -> Attributes | None:
        """The attributes the policy is given (in the version the matching rule names), None
        when the request is not selected; a selector error (or the namespace's 404) raises
        ``MatchError`` only for a request the rules select, as kube reports it."""
        try:
            selected = self.selector_error is None and selectors_match(
                self.namespace_selector, self.object_selector, attrs, namespace_labels)
            failure = self.selector_error
        except StatusError as err:  # the request's namespace does not exist
            selected, failure = True, err.message
        if failure is None and not selected:
            return None
        if self._rule_matched(self.exclude_rules, attrs) is not None:
            return None
        versioned = self._rule_matched(self.rules, attrs) if self.rules else attrs.as_requested()
        if versioned is None:
            return None
        if failure is not None:
            raise MatchError(failure)
        return versioned

    def _rule_matched(self, rules: tuple[NamedRule, ...], attrs: Attributes) -> Attributes | None:
        """``matchesResourceRules``: the names limit the rules that match the request's own
        version; those tried on another version of it match whatever its name."""
        return matched_version(attrs, any(rule.matches(attrs) for rule in rules), [rule.rule for rule in rules],
                               self.equivalent)


def _named_rules(rules: Sequence[Json] | None) -> tuple[NamedRule, ...]:
    return tuple(NamedRule(rule_of(rule), frozenset(rule.get("resourceNames") or ())) for rule in rules or ())


@dataclass(frozen=True)
class Validation:
    expression: Compiled
    source: str
    message: str
    message_expression: Compiled | None
    reason: str | None


@dataclass(frozen=True)
class Variable:
    name: str
    program: Compiled


@dataclass(frozen=True)
class Binding:
    name: str
    match: MatchResources | None
    param_ref: Json | None
    actions: tuple[str, ...]


@dataclass(frozen=True)
class ParamKind:
    """A policy's ``paramKind``; ``builtin``: the built-in resource serving it, if one does."""

    group: str
    version: str
    kind: str
    builtin: ResourceType | None

    def __str__(self) -> str:
        return f"{self.group}/{self.version}, Kind={self.kind}"  # GroupVersionKind.String()


@dataclass(frozen=True)
class PolicyHook:
    """A policy with the bindings naming it (``generic.PolicyHook``)."""

    name: str
    failure_policy: str
    constraints: MatchResources | None
    param_kind: ParamKind | None
    match_conditions: tuple[tuple[str, Compiled], ...]
    variables: tuple[Variable, ...]
    validations: tuple[Validation, ...]
    #: The validations' compiled expressions: each is evaluated (where the match conditions
    #: hold), under one engine context.
    validation_programs: ProgramGroup
    #: The programs of the audit annotations' value expressions (their values are not kept;
    #: their failures refuse the request).
    audit_annotations: tuple[Compiled, ...]
    bindings: tuple[Binding, ...]


def compile_hooks(policies: Sequence[Json], bindings: Sequence[Json]) -> tuple[PolicyHook, ...]:
    """The policies that bindings name, each with its bindings. Kube walks them in a Go map's
    order (no order a client can rely on); fakeapi by policy name, bindings by name."""
    by_policy: dict[str, list[Json]] = {}
    for binding in bindings:
        by_policy.setdefault((binding.get("spec") or {}).get("policyName") or "", []).append(binding)
    hooks = []
    for policy in sorted(policies, key=lambda p: p["metadata"]["name"]):
        named = by_policy.get(policy["metadata"]["name"])
        if named:
            hooks.append(_compile_policy(policy, sorted(named, key=lambda b: b["metadata"]["name"])))
    return tuple(hooks)


def _compile_policy(policy: Json, bindings: list[Json]) -> PolicyHook:
    spec = policy.get("spec") or {}
    param_kind = _param_kind(spec.get("paramKind"))
    has_params = param_kind is not None
    full = cel_admission.environment(has_params, authorizer=True, variables=True)
    messages = cel_admission.environment(has_params, authorizer=False, variables=True)
    constraints = spec.get("matchConstraints")
    validations = tuple(Validation(
        _compiled(full, v.get("expression", "")), v.get("expression", ""), v.get("message") or "",
        _compiled(messages, v["messageExpression"]) if v.get("messageExpression") else None, v.get("reason"))
        for v in spec.get("validations") or ())
    return PolicyHook(
        name=policy["metadata"]["name"], failure_policy=spec.get("failurePolicy") or "Fail",
        constraints=MatchResources.of(constraints) if constraints is not None else None,
        param_kind=param_kind,
        match_conditions=tuple((c.get("name", ""), _compiled(full, c.get("expression", "")))
                               for c in spec.get("matchConditions") or ()),
        variables=tuple(Variable(v.get("name", ""), _compiled(full, v.get("expression", "")))
                        for v in spec.get("variables") or ()),
        validations=validations,
        validation_programs=ProgramGroup(v.expression for v in validations if isinstance(v.expression, Program)),
        audit_annotations=tuple(_compiled(full, a.get("valueExpression") or "")
                                for a in spec.get("auditAnnotations") or ()),
        bindings=tuple(Binding(
            b["metadata"]["name"],
            MatchResources.of(b["spec"]["matchResources"]) if (b.get("spec") or {}).get("matchResources") else None,
            (b.get("spec") or {}).get("paramRef"), tuple((b.get("spec") or {}).get("validationActions") or ()))
            for b in bindings),
    )


def _param_kind(param_kind: Mapping[str, Any] | None) -> ParamKind | None:
    """A ``paramKind`` parsed, with the built-in resource serving it (a custom resource's is
    found when a request needs it: its definition may come and go)."""
    if param_kind is None:
        return None
    group, _, version = str(param_kind.get("apiVersion") or "").rpartition("/")
    kind = str(param_kind.get("kind") or "")
    served = next((t for t in default_catalogue().served()
                   if (t.group, t.version, t.kind) == (group, version, kind)), None)
    return ParamKind(group, version, kind, served)


def _compiled(environment: Environment, source: str) -> Compiled:
    try:
        return environment.compile(source)
    except CompileError as err:
        return err


@lru_cache(maxsize=4096)
def variable_reads(source: str) -> tuple[str, ...]:
    """The variables an expression reads: each ``variables.<name>`` (and
    ``variables['<name>']``), in order of first use."""
    toks = list(tokens(source))
    names: list[str] = []
    for index, (_offset, text) in enumerate(toks[:-2]):
        if text != cel_admission.VARIABLES or (index and toks[index - 1][1] == "."):
            continue
        follower, (offset, name) = toks[index + 1][1], toks[index + 2]
        if follower == "." and name[:1].isidentifier():
            names.append(name)
        elif follower == "[" and name == STRING_LITERAL:
            names.append(source[offset + 1:source.index(source[offset], offset + 1)])
    return tuple(dict.fromkeys(names))
