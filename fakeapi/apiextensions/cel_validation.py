"""CRD ``x-kubernetes-validations``: the rules a structural schema declares, compiled when the
CRD is written and evaluated on every create and update of its custom resources (apiextensions-
apiserver ``pkg/apiserver/schema/cel/validation.go`` and ``compilation.go``).

``rule_errors`` is what kube's CRD validation says of rules that do not compile (a 422 on the CRD,
``...x-kubernetes-validations[0].rule: Invalid value: {"Rule":...}: compilation failed: ERROR:
<input>:1:9: ...``); kube compiles rules only once the rest of the schema is valid.

``RuleValidator`` walks an object with its schema, as kube's ``Validator``: at each node with
rules, ``self`` is the node's value (typed by ``fakeapi.cel.values``), each rule that is false
is a field error at the node (or at its ``fieldPath``) whose message is the rule's ``message``,
its evaluated ``messageExpression``, or ``failed rule: <rule>``; its ``reason`` picks the error
type (Invalid by default, Forbidden, Required, Duplicate). A rule that reads ``oldSelf`` is a
transition rule: it runs only on updates where the node has an old value (with
``optionalOldSelf: true`` also without one, ``oldSelf`` then an empty optional). On update, the
errors of a rule without ``oldSelf`` on a value the update left unchanged become warnings
(``CRDValidationRatcheting``).

Each compiled rule's and messageExpression's cost is estimated as kube estimates it
(``fakeapi.cel.cost``): a rule's, times how many times it may run per request (the
``maxItems``/``maxProperties`` of the lists and maps above it, else as many of its node's values
as a request could hold), past 10 million is refused at its ``rule`` (a messageExpression's, not
multiplied, at its ``messageExpression``); when all of a schema's together pass 100 million, the
costliest four (of those at least 1% of that) and the schema are refused too.

When an object is validated, its rules' and messageExpressions' runtime costs (cel-go's actual
costs, ``fakeapi.cel.runtime_cost``) are taken from one budget of 10 million, in the order kube
evaluates them; past it, or past the per-call limit of 1 million in one evaluation, kube's error
is added and no further rule runs. A rule's costs are bounded at the sizes its node's schema
declares for what it reads (``_declared_largest``), so that an object of a schema with
``maxLength``/``maxItems`` is not measured.

Where kube differs from this (see ``fakeapi.cel.engine``, ``fakeapi.cel.checks`` and
``fakeapi.cel.cost``): rules are type-checked by ``fakeapi.cel.typecheck`` over ``self`` and
``oldSelf`` of the node's declared type (an optional ``oldSelf`` is not typed), and where it
cannot type a rule exactly, only as far as ``checks`` tells from the schema; an expression the estimator does not cover costs nothing here; on an update that
leaves a version's schema unchanged kube does not refuse its rules' own costs (only the
total), which matters only for a CRD kube stored before its limits; rules in syntax the engine cannot parse
(optional entries of list and map literals) are accepted and not evaluated. Kube visits an
object's fields in Go map order (random); here they are visited in the object's order. (Rules
under ``allOf`` kube refuses as not structural, as ``crd_schema_validation`` does.)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..cel.checks import check
from ..cel.cost import max_cost
from ..cel.typecheck import checked
from ..cel.types import CelType, DeclType, decl_type, max_cardinality, type_of_decl
from ..cel.projection import WHOLE, Need, union
from ..cel.engine import Activation, CompileError, Environment, EvaluationError, Program, UnsupportedSyntax, optional, tokens
from ..cel.runtime_cost import LIMIT_EXCEEDED, OUT_OF_BUDGET, CostBudget, CostLimitExceeded, OutOfBudget
from ..cel.values import escape, to_cel
from ..machinery import status
from ..machinery.golang import go_json, go_quote
from ..machinery.status import FieldError
from .go_values import invalid_go_value

SELF, OLD_SELF = "self", "oldSelf"
_ENVIRONMENT = Environment((SELF, OLD_SELF))
#: Kube's messageExpression results longer than this are refused (``MaxEvaluatedMessageExpressionSizeBytes``).
_MAX_MESSAGE_BYTES = 5 * 1024
_BLOCKING = frozenset(("FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany",
                       "FieldValueTypeInvalid"))
_NOT_CHECKED = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"


def _go_rule(rule: Mapping[str, Any]) -> str:
    """``%v`` of an internal ``ValidationRule`` as ``field.Invalid`` prints it (JSON of the Go
    struct: no tags, so Go's field names, in declaration order)."""
    fields = (("Rule", rule.get("rule", "")), ("Message", rule.get("message", "")),
              ("MessageExpression", rule.get("messageExpression", "")), ("Reason", rule.get("reason")),
              ("FieldPath", rule.get("fieldPath", "")), ("OptionalOldSelf", rule.get("optionalOldSelf")))
    return "{" + ",".join(f'"{name}":{go_json(value)}' for name, value in fields) + "}"


_SUPPORTED_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")
_MAX_MESSAGE_LENGTH = 2048


def rule_errors(schema: Mapping[str, Any], path: str, schema_errors: list[FieldError], total_cost: bool = True,
                expression_cost: bool = True) -> list[FieldError]:
    """What kube's CRD validation says of a schema's ``x-kubernetes-validations`` (at ``path``),
    given the schema's other errors: each rule's own fields, then (for a node without errors
    at or under it) the compilation of its rules and messageExpressions and their estimated
    costs past an expression's budget (unless not ``expression_cost``: kube lets an update
    keep a version's schema unchanged whatever its expressions cost); the fields' errors of
    every node come before the compilation errors (``OpenAPISchemaErrorList``). With
    ``total_cost`` (kube has a CEL context: the schema is structural and its defaults valid),
    the errors of a total estimate past the CRD's budget follow."""
    walk = _RuleWalk(schema_errors, expression_cost)
    walk.node(schema, path, True, None, 1)
    return walk.field_errors + walk.compile_errors + (walk.total.errors(path) if total_cost else [])


#: ``StaticEstimatedCostLimit`` and ``StaticEstimatedCRDCostLimit``: the budgets of one
#: expression and of all a schema's expressions.
_EXPRESSION_COST_LIMIT = 10_000_000
_CRD_COST_LIMIT = 100_000_000
_UINT64_MAX = 2**64 - 1


def _cost_message(name: str, cost: int, limit: int) -> str:
    """``getCostErrorMessage``."""
    factor = cost / limit
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{factor:f}x"
    else:
        shown = f"{factor:.1f}x"
    return (f"{name} exceeds budget by factor of {shown} (try simplifying the rule, or adding maxItems, "
            "maxProperties, and maxLength where arrays, maps, and strings are declared)")


class _TotalCost:
    """kube's ``TotalCost``: the sum of a schema's expressions' costs and the (at most 4)
    costliest of those that are at least 1% of the CRD's budget."""

    def __init__(self) -> None:
        self.total = 0
        self.most_expensive: list[tuple[int, str]] = []

    def observe(self, path: str, cost: int) -> None:
        self.total = min(self.total + cost, _UINT64_MAX)
        if cost < _CRD_COST_LIMIT // 100:
            return
        self.most_expensive.append((cost, path))
        self.most_expensive.sort(key=lambda entry: -entry[0])
        del self.most_expensive[4:]

    def errors(self, schema_path: str) -> list[FieldError]:
        if self.total <= _CRD_COST_LIMIT:
            return []
        return ([status.forbidden_error(path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema")
                 for _cost, path in self.most_expensive]
                + [status.forbidden_error(schema_path, _cost_message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", self.total, _CRD_COST_LIMIT))])


def _max_elements(node: Mapping[str, Any]) -> int | None:
    """``extractMaxElements``: how many values of a child each value of ``node`` holds (None:
    unbounded)."""
    kind = node.get("type")
    if kind == "object" and node.get("additionalProperties") is not None:
        bound = node.get("maxProperties")
    elif kind == "array":
        bound = node.get("maxItems")
    else:
        return 1
    return None if bound is None else max(bound, 0)


class _RuleWalk:
    """``validateSchema``'s part for rules over a schema: the errors found and the costs summed."""

    def __init__(self, schema_errors: list[FieldError], expression_cost: bool) -> None:
        self.schema_errors = schema_errors
        self.expression_cost = expression_cost
        self.field_errors: list[FieldError] = []
        self.compile_errors: list[FieldError] = []
        self.total = _TotalCost()

    def node(self, node: Mapping[str, Any], path: str, resource_root: bool, uncorrelatable: str | None,
             cardinality: int | None) -> None:
        """A node's rules, children first as kube walks them; ``cardinality``: how many values of
        ``node`` a request may hold as its ancestors bound it (None: unbounded, kube's
        ``CELSchemaContext.MaxCardinality``)."""
        before = len(self.field_errors)
        per_value = _max_elements(node)
        child_cardinality = None if cardinality is None or per_value is None else min(cardinality * per_value, _UINT64_MAX)
        additional = node.get("additionalProperties")
        if isinstance(additional, Mapping):
            self.node(additional, f"{path}.additionalProperties", bool(additional.get("x-kubernetes-embedded-resource")),
                      uncorrelatable, child_cardinality)
        for name, child in (node.get("properties") or {}).items():
            if isinstance(child, Mapping):
                self.node(child, f"{path}.properties[{name}]", bool(child.get("x-kubernetes-embedded-resource")),
                          uncorrelatable, child_cardinality)
        items = node.get("items")
        if isinstance(items, Mapping):
            within = uncorrelatable or (path if node.get("x-kubernetes-list-type") != "map" else None)
            self.node(items, f"{path}.items", bool(items.get("x-kubernetes-embedded-resource")), within, child_cardinality)
        rules = node.get("x-kubernetes-validations") or ()
        for index, rule in enumerate(rules):
            self.field_errors += _rule_field_errors(rule, node, f"{path}.x-kubernetes-validations[{index}]")
        below = (path, f"{path}.", f"{path}[")
        if len(self.field_errors) > before or any(field == path or field.startswith(below[1:]) for field, _t, _b in self.schema_errors):
            return  # kube compiles no rule of a node that has errors at or under it
        schemas = {SELF: (node, resource_root), OLD_SELF: (node, resource_root)}
        decl = decl_type(node, resource_root) if rules else None
        for index, rule in enumerate(rules):
            rule_path = f"{path}.x-kubernetes-validations[{index}]"
            errors, compiled = _rule_compile_errors(rule, schemas, _declared(decl, rule), rule_path, uncorrelatable)
            if decl is not None and compiled:
                errors = self.cost_errors(rule, decl, cardinality, rule_path, errors) + errors
            self.compile_errors += errors

    def cost_errors(self, rule: Mapping[str, Any], decl: DeclType, cardinality: int | None, path: str,
                    compile_errors: list[FieldError]) -> list[FieldError]:
        """The estimated costs of a rule that compiled and of its messageExpression (unless
        ``compile_errors`` hold that one's) past an expression's budget, each summed into the
        total: a rule runs ``cardinality`` times per request, or, where its ancestors do not
        bound that, as many times as a request could hold its node's values
        (``getExpressionCost``). An expression the estimator does not cover costs nothing here
        (see ``fakeapi.cel.cost``)."""
        times = cardinality if cardinality is not None else max_cardinality(decl)
        optional_old_self = bool(rule.get("optionalOldSelf"))
        errors: list[FieldError] = []
        for key, name in (("rule", "estimated rule cost"), ("messageExpression", "estimated messageExpression cost")):
            source = rule.get(key) or ""
            if not source.strip() or key == "messageExpression" and any(
                    field == f"{path}.messageExpression" for field, _t, _b in compile_errors):
                continue
            cost = max_cost(source, decl, optional_old_self)
            if cost is None:
                continue
            if key == "rule":
                cost = min(cost * times, _UINT64_MAX)
            if self.expression_cost and cost > _EXPRESSION_COST_LIMIT:
                errors.append(status.forbidden_error(f"{path}.{key}", _cost_message(name, cost, _EXPRESSION_COST_LIMIT)))
            self.total.observe(f"{path}.{key}", cost)
        return errors


def _rule_field_errors(rule: Mapping[str, Any], node: Mapping[str, Any], path: str) -> list[FieldError]:
    """The checks of a rule's fields that need no compilation."""
    errors: list[FieldError] = []
    text, message = rule.get("rule") or "", rule.get("message") or ""
    if not text.strip():
        errors.append(status.required_error(f"{path}.rule", "rule is not specified"))
    elif message and not message.strip():
        errors.append(status.invalid_error(f"{path}.message", message, "must be non-empty if specified"))
    elif len(message) > _MAX_MESSAGE_LENGTH:
        errors.append(status.invalid_error(f"{path}.message", message[:10] + "...", "must have a maximum length of 2048 characters"))
    elif _has_newlines(message.strip()):
        errors.append(status.invalid_error(f"{path}.message", message, "must not contain line breaks"))
    elif _has_newlines(text.strip()) and not message.strip():
        errors.append(status.required_error(f"{path}.message", "message must be specified if rule contains line breaks"))
    message_expression = rule.get("messageExpression") or ""
    if message_expression and not message_expression.strip():
        errors.append(status.required_error(f"{path}.messageExpression", "messageExpression must be non-empty if specified"))
    reason = rule.get("reason")
    if reason is not None and reason not in _SUPPORTED_REASONS:
        errors.append(status.not_supported_error(f"{path}.reason", reason, _SUPPORTED_REASONS))
    field_path = rule.get("fieldPath") or ""
    if field_path and not field_path.strip():
        errors.append(status.invalid_error(f"{path}.fieldPath", field_path, "must be non-empty if specified"))
    if _has_newlines(field_path):
        errors.append(status.invalid_error(f"{path}.fieldPath", field_path, "must not contain line breaks"))
    if field_path and normalized_field_path(field_path, node) is None:
        errors.append(status.invalid_error(f"{path}.fieldPath", field_path, "must be a valid path"))
    return errors


def _has_newlines(text: str) -> bool:
    return "\n" in text or "\r" in text


def _declared(decl: DeclType | None, rule: Mapping[str, Any]) -> Mapping[str, CelType] | None:
    """The types of a rule's variables, as kube declares them from the node's schema: ``self``
    and ``oldSelf`` (unless ``optionalOldSelf`` makes it an optional, left untyped here)."""
    if decl is None:
        return None
    self_type = type_of_decl(decl)
    return {SELF: self_type} if rule.get("optionalOldSelf") else {SELF: self_type, OLD_SELF: self_type}


def _compilation(source: str, schemas: Mapping[str, tuple[Mapping[str, Any], bool]],
                 declared: Mapping[str, CelType] | None) -> tuple[str | None, str | None]:
    """``checks.check``'s issues and kind of ``source``, or, where ``typecheck`` types it
    exactly, cel-go's type errors and the expression's type (a dyn is no bool nor string, as
    kube compares the output type exactly)."""
    issues, kind = check(_ENVIRONMENT, source, schemas)
    typed = checked(source, declared, {}) if declared is not None else None
    if typed is None:
        return issues, kind
    if typed.issues:
        return typed.issues, None
    # what checks' token-based comparisons claim beyond the checker is theirs alone (a bytes
    # literal taken for a string)
    return None, typed.result.kind if typed.result.kind in ("bool", "string") else "other"


def _rule_compile_errors(rule: Mapping[str, Any], schemas: Mapping[str, tuple[Mapping[str, Any], bool]],
                         declared: Mapping[str, CelType] | None, path: str,
                         uncorrelatable: str | None) -> tuple[list[FieldError], bool]:
    """``cel.Compile``'s verdict on a rule and its messageExpression, as the CRD's errors, and
    whether the rule compiled: a rule that does not compile or is no bool hides its
    messageExpression (kube compiles that only after the rule), and reads no ``oldSelf`` (so
    ``optionalOldSelf`` may not be set)."""
    source = rule.get("rule") or ""
    issues, kind = _compilation(source, schemas, declared)
    compiled = issues is None and kind not in ("string", "other")
    if issues is not None:
        errors = [invalid_go_value(f"{path}.rule", _go_rule(rule), f"compilation failed: {issues}")]
    elif not compiled:
        errors = [invalid_go_value(f"{path}.rule", _go_rule(rule), "cel expression must evaluate to a bool")]
    else:
        errors = _message_expression_errors(rule, schemas, declared, path)
    if compiled and _uses_old_self(source):
        if uncorrelatable is not None:
            errors.append(status.invalid_error(f"{path}.rule", source, f"oldSelf cannot be used on the uncorrelatable portion of the schema within {uncorrelatable}"))
    elif rule.get("optionalOldSelf") is not None:
        errors.append(status.invalid_error(f"{path}.optionalOldSelf", rule["optionalOldSelf"], "may not be set if oldSelf is not used in rule"))
    return errors, compiled


def _message_expression_errors(rule: Mapping[str, Any], schemas: Mapping[str, tuple[Mapping[str, Any], bool]],
                               declared: Mapping[str, CelType] | None, path: str) -> list[FieldError]:
    message_expression = rule.get("messageExpression") or ""
    if not message_expression.strip():
        return []
    issues, kind = _compilation(message_expression, schemas, declared)
    if issues is not None:
        return [invalid_go_value(f"{path}.messageExpression", _go_rule(rule), f"messageExpression compilation failed: {issues}")]
    if kind in ("bool", "other"):
        return [invalid_go_value(f"{path}.messageExpression", _go_rule(rule), "messageExpression must evaluate to a string")]
    return []


def _uses_old_self(source: str) -> bool:
    """Whether a rule refers to ``oldSelf`` (in syntax the engine cannot parse: a use of the
    name not selected by a ``.``)."""
    try:
        return _ENVIRONMENT.compile(source).references(OLD_SELF)
    except UnsupportedSyntax:
        toks = [text for _offset, text in tokens(source)]
        return any(text == OLD_SELF and (index == 0 or toks[index - 1] != ".") for index, text in enumerate(toks))
    except CompileError:
        return False


_QUOTED_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}
_FIELD_PATH_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|[.\[\]]|[^.\[\]']+|'.*")


def normalized_field_path(field_path: str, schema: Mapping[str, Any]) -> str | None:
    """``ValidFieldPath``: a rule's ``fieldPath`` (``.a.b``, ``.m['k']``) as the field path kube
    reports errors at, relative to the node (``a.b``, ``m[k]``), or None when it names no field
    of ``schema``."""
    parts: list[str] = []
    node: Mapping[str, Any] | None = schema
    toks = _FIELD_PATH_TOKEN.findall(field_path)
    index = 0
    while index < len(toks):
        token = toks[index]
        if token == "[":
            if index + 2 >= len(toks) or toks[index + 2] != "]":
                return None
            quoted = toks[index + 1]
            if len(quoted) < 2 or quoted[0] != "'" or quoted[-1] != "'":
                return None
            name = _unescape_quoted(quoted[1:-1])
            index += 3
        elif token == "." and index + 1 < len(toks) and toks[index + 1] not in (".", "[", "]"):
            name = toks[index + 1]
            index += 2
        else:
            return None
        if name is None or node is None:
            return None
        properties = node.get("properties")
        additional = node.get("additionalProperties")
        if properties:
            if name not in properties:
                return None
            node = properties[name]
            parts.append(f".{name}" if parts else name)
        elif isinstance(additional, Mapping):
            node = additional
            parts.append(f"[{name}]")
        else:
            return None
    return "".join(parts)


def _unescape_quoted(text: str) -> str | None:
    out, index = [], 0
    while index < len(text):
        if text[index] == "\\":
            if index + 1 >= len(text) or text[index + 1] not in _QUOTED_ESCAPES:
                return None
            out.append(_QUOTED_ESCAPES[text[index + 1]])
            index += 2
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


class _BudgetSpent(Exception):
    """The object's cost budget ran out, or a rule passed its per-call limit: kube validates no
    further rule (its error is already added)."""


class _MessageBudgetSpent(Exception):
    """A messageExpression whose cost ran the budget out or passed the per-call limit: the
    detail of kube's error at the failed rule's field."""


class _Rule:
    """One compiled ``x-kubernetes-validations`` entry (``program`` None: not evaluated here)."""

    __slots__ = ("spec", "program", "message_program", "uses_old_self", "optional_old_self", "field_path", "largest")

    def __init__(self, spec: Mapping[str, Any], schema: Mapping[str, Any], resource_root: bool) -> None:
        self.spec = spec
        self.program = _compiled(spec.get("rule") or "")
        self.message_program = _compiled(spec.get("messageExpression") or "")
        self.uses_old_self = self.program is not None and self.program.references(OLD_SELF)
        self.optional_old_self = bool(spec.get("optionalOldSelf"))
        self.field_path = normalized_field_path(spec.get("fieldPath") or "", schema) or ""
        #: The largest size of what the rule and its messageExpression may read, None if
        #: unbounded (at a resource root, the metadata is not the schema's).
        self.largest = None if resource_root else _declared_largest(schema, functools.reduce(union, (
            need for program in (self.program, self.message_program) if program is not None
            for need in program.reads()[0].values()), Need()))

    def message(self, bindings: Activation, variables: dict[str, Any], budget: CostBudget) -> str:
        """The error's detail: the messageExpression's value when it yields a usable one, else
        the message, else ``failed rule: <rule>`` (``ruleMessageOrDefault``). Its cost is taken
        from ``budget`` (``_MessageBudgetSpent`` when that fails: kube's detail)."""
        if self.message_program is not None:
            try:
                budget.spend(self.message_program.source, variables, self.message_program.reads()[0], self.largest)
            except OutOfBudget:
                raise _MessageBudgetSpent(f"messageExpression {OUT_OF_BUDGET}") from None
            except CostLimitExceeded:
                raise _MessageBudgetSpent("no further validation rules will be run due to call cost exceeds limit "
                                          f"for messageExpression: {go_quote(self.message_program.source)}") from None
            try:
                value = self.message_program.evaluate(bindings)
            except EvaluationError:
                value = None
            if isinstance(value, str):
                trimmed = value.strip()
                if trimmed and "\n" not in trimmed and len(trimmed.encode()) <= _MAX_MESSAGE_BYTES:
                    return trimmed
        return self.spec.get("message", "").strip() or f"failed rule: {self.error_string()}"

    def error_string(self) -> str:
        """``ruleErrorString``: the message if any, else the rule."""
        return self.spec.get("message", "").strip() or (self.spec.get("rule") or "").strip()


def _compiled(source: str) -> Program | None:
    if not source.strip():
        return None
    try:
        return _ENVIRONMENT.compile(source)
    except (UnsupportedSyntax, CompileError):
        # A CRD whose rules do not compile is refused; rules kube accepts in syntax the engine
        # cannot parse are the ones left here.
        return None


class _Node:
    """A schema node and its compiled rules, with the children that have rules under them."""

    __slots__ = ("schema", "rules", "properties", "items", "additional", "resource_root")

    def __init__(self, schema: Mapping[str, Any], resource_root: bool) -> None:
        self.schema = schema
        self.resource_root = resource_root
        self.rules = [_Rule(rule, schema, resource_root) for rule in schema.get("x-kubernetes-validations") or ()]
        self.properties = {name: node for name, child in (schema.get("properties") or {}).items()
                           if isinstance(child, Mapping) and (node := _node(child)) is not None}
        self.items = _node(schema["items"]) if isinstance(schema.get("items"), Mapping) else None
        additional = schema.get("additionalProperties")
        self.additional = _node(additional) if isinstance(additional, Mapping) else None

    def validate(self, value: Any, old: Any, has_old: bool, ratchet: bool, path: str, errors: list[FieldError],
                 ratcheted: list[FieldError], budget: CostBudget) -> None:
        """Append the errors of ``value`` (``old``: its correlated old value, if ``has_old``);
        ``ratchet``: an unchanged value, whose errors of rules without ``oldSelf`` go to
        ``ratcheted`` instead. The rules' costs are taken from ``budget`` (``_BudgetSpent``:
        kube stops validating)."""
        if value is None:
            return
        if self.rules:
            self._evaluate(value, old, has_old, ratchet, path, errors, ratcheted, budget)
        if isinstance(value, dict):
            self._validate_map(value, old if isinstance(old, dict) else None, has_old, ratchet, path, errors, ratcheted,
                               budget)
        elif isinstance(value, list) and self.items is not None:
            keys = self.schema.get("x-kubernetes-list-map-keys") if self.schema.get("x-kubernetes-list-type") == "map" else None
            old_items = {_map_key(item, keys): item for item in old} if keys and isinstance(old, list) else {}
            for index, item in enumerate(value):
                key = _map_key(item, keys) if keys else None
                correlated = key is not None and key in old_items
                old_item = old_items.get(key) if correlated else None
                self.items.validate(item, old_item, correlated, item == old_item if correlated else ratchet,
                                    f"{path}[{index}]", errors, ratcheted, budget)

    def _validate_map(self, value: dict[str, Any], old: dict[str, Any] | None, has_old: bool, ratchet: bool,
                      path: str, errors: list[FieldError], ratcheted: list[FieldError], budget: CostBudget) -> None:
        correlatable = has_old and old is not None and self.schema.get("x-kubernetes-map-type") != "atomic"
        for key, item in value.items():
            child = self.additional if self.additional is not None else self.properties.get(key)
            if child is None:
                continue
            correlated = correlatable and key in old  # type: ignore[operator]
            old_item = old.get(key) if correlated else None  # type: ignore[union-attr]
            child_path = f"{path}[{key}]" if self.additional is not None else (f"{path}.{key}" if path else key)
            child.validate(item, old_item, correlated, item == old_item if correlated else ratchet, child_path, errors,
                           ratcheted, budget)

    def _evaluate(self, value: Any, old: Any, has_old: bool, ratchet: bool, path: str, errors: list[FieldError],
                  ratcheted: list[FieldError], budget: CostBudget) -> None:
        # kube's errors of the budget name the schema's type, not the value
        schema_type = self.schema.get("type", "")
        if budget.exhausted():
            errors.append(status.invalid_error(path or "<nil>", schema_type, OUT_OF_BUDGET))
            raise _BudgetSpent()
        cel_value = to_cel(value, self.schema, self.resource_root)
        old_value = to_cel(old, self.schema, self.resource_root) if has_old else None
        # The node's rules (and message expressions) read the same values: each is converted
        # for the engine once. Rules with optionalOldSelf see oldSelf as an optional.
        # (each with the values it binds, what runtime costs are counted on)
        plain: tuple[Activation, dict[str, Any]] | None = None
        with_optional: tuple[Activation, dict[str, Any]] | None = None
        for rule in self.rules:
            if rule.program is None:
                continue
            if rule.uses_old_self and not has_old and not rule.optional_old_self:
                continue
            if rule.optional_old_self:
                if with_optional is None:
                    values = {SELF: cel_value, OLD_SELF: optional(old_value, has_old)}
                    with_optional = Activation(values), values
                rule_bindings, variables = with_optional
            else:
                if plain is None:
                    values = {SELF: cel_value, OLD_SELF: old_value}
                    plain = Activation(values), values
                rule_bindings, variables = plain
            try:
                budget.spend(rule.program.source, variables, rule.program.reads()[0], rule.largest)
            except OutOfBudget:
                errors.append(status.invalid_error(path or "<nil>", schema_type, OUT_OF_BUDGET))
                raise _BudgetSpent() from None
            except CostLimitExceeded:
                errors.append(status.invalid_error(path or "<nil>", schema_type, (
                    f"'{LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for "
                    f"rule: {rule.error_string()}")))
                raise _BudgetSpent() from None
            try:
                result = rule.program.evaluate(rule_bindings)
            except EvaluationError as error:
                text = str(error)
                if text.startswith("no such overload"):
                    detail = f"'{text}': call arguments did not match a supported operator, function or macro signature for rule: {rule.error_string()}"
                else:
                    detail = f"{text} evaluating rule: {rule.error_string()}"
                errors.append(status.invalid_error(path or "<nil>", schema_type, detail))
                continue
            if result is True:
                continue
            field = path
            if rule.field_path:  # field.Path.Child of the normalized path
                field = f"{path}.{rule.field_path}" if path else rule.field_path
            found = ratcheted if ratchet and not rule.uses_old_self else errors
            try:
                message = rule.message(rule_bindings, variables, budget)
            except _MessageBudgetSpent as spent:
                found.append(status.invalid_error(field or "<nil>", schema_type, str(spent)))
                raise _BudgetSpent() from None
            found.append(_error_for_reason(field or "<nil>", value, message, rule.spec.get("reason")))


def _declared_largest(schema: Mapping[str, Any], need: Need) -> int | None:
    """The largest size (a string's length, a list's items, an object's properties or a
    property's name) in what ``need`` reads of a value of ``schema``, from the bounds the schema
    declares (values past them fail the schema, and kube runs no rule then); None where one is
    not bounded (a string without ``maxLength``, a map's keys, unknown fields, an int-or-string)."""
    if schema.get("x-kubernetes-preserve-unknown-fields") or schema.get("x-kubernetes-int-or-string"):
        return None
    kind = schema.get("type")
    if kind == "string":
        return schema.get("maxLength")
    if kind == "array":
        items = schema.get("items")
        if schema.get("maxItems") is None or not isinstance(items, Mapping):
            return None
        # (a list read but not iterated is kept whole: an index reads any of its items)
        inner = _declared_largest(items, need.items if need.items is not None and not need.whole else WHOLE)
        return None if inner is None else max(inner, schema["maxItems"])
    if kind == "object":
        properties = schema.get("properties") or {}
        if schema.get("additionalProperties") not in (None, False):
            return None
        read = properties.items() if need.whole or need.items is not None else (
            (name, properties[name]) for name in need.fields if name in properties)
        sizes = [_declared_largest(child, WHOLE if need.whole or need.items is not None else need.fields[name])
                 if isinstance(child, Mapping) else None for name, child in read]
        if None in sizes:
            return None
        # (a key is a property's name as CEL sees it: escaped)
        return max([1, len(properties)] + [len(escape(name) or "") for name in properties] + sizes)  # type: ignore[operator]
    return 1  # a number, a bool


def _map_key(item: Any, keys: list[str] | None) -> Any:
    if not isinstance(item, dict) or not keys:
        return None
    return tuple(repr(item.get(key)) for key in keys)


def _invalid(path: str, value: Any, detail: str) -> FieldError:
    """``field.Invalid`` of a node's value: kube prints a scalar and omits an object or a list
    (``Invalid value: <detail>``)."""
    if isinstance(value, (dict, list)):
        return path, "FieldValueInvalid", f"Invalid value: {detail}"
    return status.invalid_error(path, value, detail)


def _error_for_reason(path: str, value: Any, detail: str, reason: str | None) -> FieldError:
    """``fieldErrorForReason``."""
    if reason == "FieldValueForbidden":
        return status.forbidden_error(path, detail)
    if reason == "FieldValueRequired":
        return status.required_error(path, detail)
    if reason == "FieldValueDuplicate":
        return (path, "FieldValueDuplicate", "Duplicate value") if isinstance(value, (dict, list)) else status.duplicate_error(path, value)
    return _invalid(path, value, detail)


def _node(schema: Mapping[str, Any], resource_root: bool = False) -> _Node | None:
    """The node of ``schema`` if it or anything under it has rules (kube builds no validator
    for rule-free subtrees)."""
    node = _Node(schema, resource_root or bool(schema.get("x-kubernetes-embedded-resource")))
    if node.rules or node.properties or node.items is not None or node.additional is not None:
        return node
    return None


class RuleValidator:
    """A CRD version's rules, compiled once (by the CRD write that defines the version)."""

    __slots__ = ("_root",)

    def __init__(self, openapi_v3_schema: Mapping[str, Any], resource_root: bool = True) -> None:
        self._root = _node(openapi_v3_schema, resource_root=resource_root)

    def validate(self, obj: dict[str, Any], old: dict[str, Any] | None, errors: list[FieldError],
                 warn: Callable[[str], None] = lambda text: None) -> list[FieldError]:
        """The rules' errors on a create (``old`` None) or update, after ``errors`` (the schema's
        and the metadata's): when one of those means the object lacks the shape the rules were
        written for, kube evaluates no rule and says so (``hasBlockingErr``). The errors an
        update ratchets are given to ``warn`` as kube words them in its warnings
        (``field: body``)."""
        if self._root is None:
            return []
        if any(error[1] in _BLOCKING for error in errors):
            return [("<nil>", "FieldValueInvalid", f"Invalid value: null: {_NOT_CHECKED}")]
        found: list[FieldError] = []
        ratcheted: list[FieldError] = []
        try:
            self._root.validate(obj, old, old is not None, old is not None and obj == old, "", found, ratcheted, CostBudget())
        except _BudgetSpent:
            pass
        for field, _type, body in ratcheted:
            warn(f"{field}: {body}")
        return found

    def validate_value(self, value: Any, path: str) -> list[FieldError]:
        """The rules' errors on a value of the schema that is its own old value (a ``default``:
        ``ValidateDefaults`` evaluates transition rules against the default itself)."""
        found: list[FieldError] = []
        if self._root is not None:
            try:
                self._root.validate(value, value, True, False, path, found, [], CostBudget())
            except _BudgetSpent:
                pass
        return found
