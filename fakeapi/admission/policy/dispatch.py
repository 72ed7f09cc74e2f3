"""The ValidatingAdmissionPolicy dispatcher (``policy/validating/dispatcher.go`` and
``validator.go``): each policy whose match constraints select the request, each of its
bindings whose match resources do, each of the binding's params; the policy's match conditions,
then its validations and audit annotations evaluated, each failure acted on as the binding's
``validationActions`` say (Deny: the request is refused, kube's first refusal is the answer;
Warn: a warning; Audit: an audit annotation, which fakeapi does not keep).

The ``authorizer`` variable checks for the request's user through the server's authorizer
(``cel.admission.Principal``), its ``requestResource`` the request's resource in the version the
policy matched.

Each (policy, binding, param)'s validations spend one runtime cost budget, each expression under
the per-call limit (``cel.runtime_cost``): past the limit, the expression fails with cel-go's
``operation cancelled: actual cost limit exceeded``; past the budget, the whole evaluation is
one failure (``validation failed due to running out of cost budget...``), both acted on as the
failure policy says.

Where this differs from kube: messageExpressions cost nothing (kube evaluates every
validation's, under what the validations left of the budget; here only a failed one's is
evaluated); params of a custom resource are read in its storage version; the policies are
walked by name where kube walks a Go map."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...cel import admission as cel_admission
from ...cel import authorizer_types
from ...cel.access import Authorize, always_allow
from ...cel.values import cel_type_name
from ...cel.engine import Activation, CompileError, EvaluationError, Program
from ...cel.runtime_cost import LIMIT_EXCEEDED, OUT_OF_BUDGET, CostBudget, CostLimitExceeded, OutOfBudget
from ...machinery import warning
from ...machinery.selectors import label_selector_as_selector
from ...machinery.status import Cause, StatusError, forbidden, not_found
from ...apis.webhook_client import Lister, Lookup
from ..webhook.matching import (
    ADMISSION_GROUP, aggregate, evaluate_conditions, is_exempt, namespace_of, request_principal)
from ..webhook.request import Attributes, Json
from ..webhook.review import admission_request
from .compiled import Compiled, MatchError, PolicyHook, Validation, Binding, compile_hooks, variable_reads

_CRD_GROUP = "apiextensions.k8s.io"
#: ``reasonToCode``: the codes of the reasons a validation may give (any other is 422).
_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}
#: ``celconfig.MaxEvaluatedMessageExpressionSizeBytes``.
_MAX_MESSAGE_BYTES = 5 * 1024
#: The metadata of the namespace that ``namespaceObject`` shows (``CreateNamespaceObject``).
_NAMESPACE_METADATA = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation",
                       "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                       "annotations", "finalizers")


class _ConfigurationError(Exception):
    """A binding's params that cannot be collected (``CollectParams``'s errors)."""


@dataclass(frozen=True)
class _Denial:
    policy: str
    binding: str | None
    message: str
    reason: str = ""


class _Evaluation:
    """One (policy, binding, param)'s evaluation: the bindings of its expressions, and the
    policy's variables, each evaluated at most once and only when an expression reads it (kube's
    lazy ``variables`` map)."""

    def __init__(self, hook: PolicyHook, bindings: dict[str, Any], principal: cel_admission.Principal) -> None:
        self.hook = hook
        #: The ``authorizer`` of the bindings (kept alive while the expressions evaluate: the
        #: values name it).
        self.principal = principal
        # every expression of the evaluation reads the same request: its values are converted
        # for the engine once (the match conditions see no variables)
        self.values = {**bindings, cel_admission.VARIABLES: {}}
        self.bindings = Activation(self.values, hook.validation_programs)
        #: The bindings without ``authorizer`` (kube's audit annotations have none), made for
        #: the first audit annotation that reads it.
        self._unauthorized: Activation | None = None
        self._variables = {variable.name: variable.program for variable in hook.variables}
        self._values: dict[str, Any] = {}
        #: What the validations and the variables spend (its ``OutOfBudget`` escapes ``run``:
        #: the evaluation fails as a whole).
        self.budget = CostBudget()

    def run(self, program: Compiled, authorized: bool = True, budget: CostBudget | None = None) -> Any:
        """The value of ``program`` (without the ``authorizer`` unless ``authorized``), its cost
        taken from ``budget`` (none: not limited); raises ``EvaluationError`` with kube's text."""
        if isinstance(program, CompileError):
            raise EvaluationError(f"compilation error: compilation failed: {program}")
        try:
            if authorized or not program.references(cel_admission.AUTHORIZER):
                return self._evaluate(program, budget=budget)
            return self._evaluate_unauthorized(program, budget)
        except EvaluationError as err:
            raise EvaluationError(f"expression '{program.source}' resulted in error: {err}") from None

    def _evaluate_unauthorized(self, program: Program, budget: CostBudget | None) -> Any:
        """``program`` with ``authorizer`` unbound: reaching it fails with cel-go's unresolved
        attribute, the qualified name its first use selects (``authorizer.requestResource``)."""
        if self._unauthorized is None:
            self._unauthorized = Activation({name: value for name, value in self.values.items()
                                             if name != cel_admission.AUTHORIZER})
        try:
            return self._evaluate(program, self._unauthorized, budget)
        except EvaluationError as err:
            if str(err) != f"no such attribute(s): {cel_admission.AUTHORIZER}":
                raise
            raise EvaluationError(f"no such attribute(s): {authorizer_types.first_reference(program.source)}") from None

    def _evaluate(self, program: Program, bindings: Activation | None = None, budget: CostBudget | None = None) -> Any:
        """``program`` evaluated with the variables it reads (and ``bindings``, default the
        evaluation's). A variable that failed is left out of ``variables``: an evaluation that
        needed it fails on its missing key, and then fails with the variable's error, as kube's
        lazy map fails; one that did not need it (a short-circuited ``||``) succeeds, as in kube."""
        values, failed = {}, {}
        for name in variable_reads(program.source):
            if name in self._variables:
                value = self._variable(name)
                if isinstance(value, EvaluationError):
                    failed[name] = value
                else:
                    values[name] = value
        if budget is not None:
            try:
                reading = {**self.values, cel_admission.VARIABLES: values} if values else self.values
                budget.spend(program.source, reading, program.reads()[0])
            except CostLimitExceeded:
                raise EvaluationError(LIMIT_EXCEEDED) from None
        self.principal.begin_expression()
        try:
            return program.evaluate(bindings or self.bindings, {cel_admission.VARIABLES: values})
        except EvaluationError as err:
            missing = str(err).removeprefix("no such key: ")
            raise failed.get(missing, err) from None

    def _variable(self, name: str) -> Any:
        """The variable's value, or the ``EvaluationError`` reading it fails with."""
        if name not in self._values:
            program = self._variables[name]
            self._values[name] = None  # a variable reading itself reads null (kube refuses it at write time)
            if isinstance(program, CompileError):
                self._values[name] = EvaluationError(
                    f'composited variable "{name}" fails to compile: compilation failed: {program}')
            else:
                try:
                    self._values[name] = self._evaluate(program, budget=self.budget)
                except EvaluationError as err:
                    self._values[name] = EvaluationError(f'composited variable "{name}" fails to evaluate: {err}')
        return self._values[name]


@dataclass(frozen=True)
class _Decision:
    deny: bool
    message: str
    reason: str = ""


class PolicyDispatcher:
    """The stored ValidatingAdmissionPolicies and their bindings, enforced on the writes they
    match."""

    def __init__(self, lookup: Lookup, lister: Lister,
                 authorize: Authorize = always_allow) -> None:
        self._lookup = lookup
        self._list = lister
        self._authorize = authorize
        #: (the policies' list, the bindings' list) compiled, and the hooks compiled from them
        self._compiled: tuple[list[Json], list[Json], tuple[PolicyHook, ...]] | None = None

    def _hooks(self) -> tuple[PolicyHook, ...]:
        policies = self._list(ADMISSION_GROUP, "ValidatingAdmissionPolicy", None)
        bindings = self._list(ADMISSION_GROUP, "ValidatingAdmissionPolicyBinding", None)
        if not policies or not bindings:  # no policy is bound (the lister's empty lists are new ones)
            return ()
        compiled = self._compiled
        if compiled is not None and compiled[0] is policies and compiled[1] is bindings:
            return compiled[2]
        hooks = compile_hooks(policies, bindings)
        self._compiled = (policies, bindings, hooks)
        return hooks

    def configured(self) -> bool:
        """Whether any policy is bound (a write must then be admitted with its attributes)."""
        return bool(self._hooks())

    def validate(self, attrs: Attributes) -> None:
        """Enforce the policies matching ``attrs``; raises the first refusal."""
        hooks = self._hooks()
        if not hooks or is_exempt(attrs):
            return
        labels: list[dict[str, str]] = []

        def namespace_labels() -> dict[str, str]:
            if not labels:
                labels.append((namespace_of(self._lookup, attrs).get("metadata") or {}).get("labels") or {})
            return labels[0]

        denials: list[_Denial] = []
        for hook in hooks:
            denials += self._dispatch(hook, attrs, namespace_labels)
        if denials:
            raise _refusal(attrs, denials[0])

    def _dispatch(self, hook: PolicyHook, attrs: Attributes,
                  namespace_labels: Callable[[], dict[str, str]]) -> list[_Denial]:
        def configuration_error(binding: Binding | None, error: str) -> list[_Denial]:
            if hook.failure_policy == "Ignore":
                return []
            what = "policy" if binding is None else "binding"
            return [_Denial(hook.name, binding and binding.name, f"failed to configure {what}: {error}")]

        if hook.constraints is None:
            return configuration_error(None, "policy contained no match constraints, a required field")
        try:
            versioned = hook.constraints.matched(attrs, namespace_labels)
        except MatchError as err:
            return configuration_error(None, str(err))
        if versioned is None:
            return []
        namespaced = self._param_scope(hook)
        if namespaced is None:
            return configuration_error(None, f"failed to find resource referenced by paramKind: '{hook.param_kind}'")
        denials = []
        for binding in hook.bindings:
            try:
                if binding.match is not None and binding.match.matched(attrs, namespace_labels) is None:
                    continue
                params = self._params(hook, binding, attrs, namespaced)
            except (MatchError, _ConfigurationError) as err:
                denials += configuration_error(binding, str(err))
                continue
            namespace = self._namespace_object(attrs)
            for param in params:
                decisions, annotation_errors = _validate(hook, versioned, param, namespace, self._authorize)
                for decision in decisions:
                    if decision.deny:
                        denials += self._act(hook, binding, decision)
                denials += [_Denial(hook.name, binding.name, error) for error in annotation_errors]
        return denials

    def _act(self, hook: PolicyHook, binding: Binding, decision: _Decision) -> list[_Denial]:
        denials = []
        for action in binding.actions:
            if action == "Deny":
                denials.append(_Denial(hook.name, binding.name, decision.message, decision.reason))
            elif action == "Warn":
                warning.add(f"Validation failed for ValidatingAdmissionPolicy '{hook.name}' with binding "
                            f"'{binding.name}': {decision.message}")
        return denials

    def _param_scope(self, hook: PolicyHook) -> bool | None:
        """Whether the policy's params are namespaced (False without a ``paramKind``); None when
        nothing serves its ``paramKind`` (kube's RESTMapper finds no mapping): a built-in
        resource, else an established CustomResourceDefinition serving that version."""
        kind = hook.param_kind
        if kind is None:
            return False
        if kind.builtin is not None:
            return kind.builtin.namespaced
        for definition in self._list(_CRD_GROUP, "CustomResourceDefinition", None):
            spec = definition.get("spec") or {}
            if spec.get("group") == kind.group and (spec.get("names") or {}).get("kind") == kind.kind \
                    and any(v.get("name") == kind.version and v.get("served") for v in spec.get("versions") or ()) \
                    and _established(definition):
                return spec.get("scope") == "Namespaced"
        return None

    def _params(self, hook: PolicyHook, binding: Binding, attrs: Attributes, namespaced: bool) -> list[Json | None]:
        """``CollectParams``: the param objects the binding names (one null param without a
        ``paramKind`` or ``paramRef``)."""
        kind, ref = hook.param_kind, binding.param_ref
        if kind is None or ref is None:
            return [None]
        namespace: str | None = None
        if namespaced:
            namespace = ref.get("namespace") or attrs.namespace
            if not namespace:
                raise _ConfigurationError("cannot use namespaced paramRef in policy binding that matches "
                                          "cluster-scoped resources")
        elif ref.get("namespace"):
            raise _ConfigurationError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
        if ref.get("name"):
            found = self._lookup(kind.group, kind.kind, namespace, ref["name"])
            params: list[Json | None] = [] if found is None else [found]
        elif ref.get("selector") is not None:
            try:
                selector = label_selector_as_selector(ref["selector"])
            except ValueError as err:
                raise _ConfigurationError(str(err)) from None
            params = [obj for obj in self._list(kind.group, kind.kind, namespace)
                      if selector.matches((obj.get("metadata") or {}).get("labels") or {})]
        else:
            raise _ConfigurationError("one of name or selector must be provided")
        if not params and ref.get("parameterNotFoundAction") == "Deny":
            raise _ConfigurationError("no params found for policy binding with `Deny` parameterNotFoundAction")
        return params

    def _namespace_object(self, attrs: Attributes) -> Json | None:
        """``namespaceObject``: the request's namespace as ``CreateNamespaceObject`` trims it;
        null for a cluster-scoped request and a Namespace's own; a missing one fails the
        request with its 404."""
        if not attrs.namespace or (attrs.group, attrs.kind) == ("", "Namespace"):
            return None
        namespace = self._lookup("", "Namespace", None, attrs.namespace)
        if namespace is None:
            raise not_found("", "namespaces", attrs.namespace)
        meta = namespace.get("metadata") or {}
        return {"metadata": {key: meta[key] for key in _NAMESPACE_METADATA if key in meta},
                "spec": namespace.get("spec") or {}, "status": namespace.get("status") or {}}


def _established(definition: Json) -> bool:
    return any(c.get("type") == "Established" and c.get("status") == "True"
               for c in (definition.get("status") or {}).get("conditions") or ())


def policy_request(attrs: Attributes) -> Json:
    """The ``request`` variable (``CreateAdmissionRequest``): the AdmissionRequest without its
    uid and objects, which are variables of their own."""
    request = admission_request(attrs)
    for key in ("uid", "object", "oldObject"):
        request.pop(key, None)
    return request


def _validate(hook: PolicyHook, attrs: Attributes, param: Json | None, namespace: Json | None,
              authorize: Authorize) -> tuple[list[_Decision], list[str]]:
    """``validator.Validate``: the decisions of one (policy, binding, param), and the errors of
    its audit annotations (which refuse the request whatever the binding's actions)."""
    principal = request_principal(attrs, authorize)
    bindings = {cel_admission.OBJECT: attrs.object, cel_admission.OLD_OBJECT: attrs.old_object,
                cel_admission.REQUEST: policy_request(attrs), cel_admission.NAMESPACE_OBJECT: namespace,
                cel_admission.AUTHORIZER: principal.value}
    if hook.param_kind is not None:
        bindings[cel_admission.PARAMS] = param
    evaluation = _Evaluation(hook, bindings, principal)
    fail = hook.failure_policy != "Ignore"
    if hook.match_conditions:
        holds, errors = evaluate_conditions(hook.match_conditions, evaluation.bindings, principal, evaluation.values)
        if not holds or (errors and not fail):
            return [], []
        if errors:
            return [_Decision(True, aggregate(errors))], []
    decisions = []
    for validation in hook.validations:
        try:
            value = evaluation.run(validation.expression, budget=evaluation.budget)
        except EvaluationError as err:
            decisions.append(_Decision(fail, str(err)))
            continue
        except OutOfBudget:
            return [_Decision(fail, OUT_OF_BUDGET)], []
        if value is not True:
            decisions.append(_Decision(True, _message(evaluation, validation), validation.reason or "Invalid"))
    return decisions, _annotation_errors(evaluation, fail)


def _annotation_errors(evaluation: _Evaluation, fail: bool) -> list[str]:
    """The audit annotations that failed: an evaluation error (but under ``Ignore``), or a
    value neither a string nor null."""
    errors = []
    budget = CostBudget()  # kube's audit annotations have a budget of their own
    for program in evaluation.hook.audit_annotations:
        try:
            value = evaluation.run(program, authorized=False, budget=budget)
        except EvaluationError as err:
            if fail:
                errors.append(str(err))
            continue
        except OutOfBudget:
            return [OUT_OF_BUDGET] if fail else []
        if value is not None and not isinstance(value, str):
            errors.append(f"valueExpression '{getattr(program, 'source', '')}' resulted in unsupported return type: "
                          f"{cel_type_name(value)}. Return type must be either string or null.")
    return errors


def _message(evaluation: _Evaluation, validation: Validation) -> str:
    """A failed validation's message: its message expression's value (a string of one line,
    5 KiB at most), else its message, else the expression it failed."""
    message = ""
    if validation.message_expression is not None:
        try:
            value = evaluation.run(validation.message_expression)
        except EvaluationError:
            value = None  # kube logs it and falls back
        if isinstance(value, str):
            message = value.strip()
            if len(message.encode()) > _MAX_MESSAGE_BYTES or "\n" in message:
                message = ""
    if not message and validation.message:
        message = validation.message.strip()
    return message or f"failed expression: {validation.source.strip()}"


def _refusal(attrs: Attributes, denial: _Denial) -> StatusError:
    """The request refused (``admission.NewForbidden`` with the decision's reason and code,
    the message repeated as the one cause)."""
    if denial.binding is None:
        message = f"ValidatingAdmissionPolicy '{denial.policy}' denied request: {denial.message}"
    else:
        message = (f"ValidatingAdmissionPolicy '{denial.policy}' with binding '{denial.binding}' denied request: "
                   f"{denial.message}")
    reason = denial.reason or "Invalid"
    error = forbidden(attrs.group, attrs.resource, _name(attrs), message, (Cause(message=message),))
    error.code, error.reason = _CODES.get(reason, 422), reason
    return error


def _name(attrs: Attributes) -> str:
    """``extractResourceName``: the request's name, else the object's (or its generateName,
    before a name is generated), else "Unknown"."""
    meta: Mapping[str, Any] = (attrs.object or {}).get("metadata") or {}
    return attrs.name or meta.get("name") or meta.get("generateName") or "Unknown"
