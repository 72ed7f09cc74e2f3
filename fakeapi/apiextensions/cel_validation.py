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

Where kube differs from this (see ``fakeapi.cel.engine`` and ``fakeapi.cel.checks``): rules are
type-checked only as far as the schema tells without a type checker, and not cost-estimated
when the CRD is written (kube refuses unbounded lists, maps and strings whose rules may cost
too much); rules are not cost-limited at runtime; rules in syntax the engine cannot parse
(optional entries of list and map literals) are accepted and not evaluated. Kube visits an
object's fields in Go map order (random); here they are visited in the object's order. (Rules
under ``allOf`` kube refuses as not structural, as ``crd_schema_validation`` does.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..cel.checks import check
from ..cel.engine import Activation, CompileError, Environment, EvaluationError, Program, UnsupportedSyntax, optional
from ..cel.values import to_cel
from ..machinery import status
from ..machinery.golang import go_json
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


def rule_errors(schema: Mapping[str, Any], path: str, schema_errors: list[FieldError]) -> list[FieldError]:
    """What kube's CRD validation says of a schema's ``x-kubernetes-validations`` (at ``path``),
    given the schema's other errors: each rule's own fields, then (for a node without errors
    at or under it) the compilation of its rules and messageExpressions; the fields' errors of
    every node come before the compilation errors (``OpenAPISchemaErrorList``)."""
    field_errors: list[FieldError] = []
    compile_errors: list[FieldError] = []
    _node_rule_errors(schema, path, True, None, schema_errors, field_errors, compile_errors)
    return field_errors + compile_errors


def _node_rule_errors(node: Mapping[str, Any], path: str, resource_root: bool, uncorrelatable: str | None,
                      schema_errors: list[FieldError], field_errors: list[FieldError], compile_errors: list[FieldError]) -> None:
    """``validateSchema``'s part for rules, children first as kube walks them."""
    before = len(field_errors)
    additional = node.get("additionalProperties")
    if isinstance(additional, Mapping):
        _node_rule_errors(additional, f"{path}.additionalProperties", bool(additional.get("x-kubernetes-embedded-resource")),
                          uncorrelatable, schema_errors, field_errors, compile_errors)
    for name, child in (node.get("properties") or {}).items():
        if isinstance(child, Mapping):
            _node_rule_errors(child, f"{path}.properties[{name}]", bool(child.get("x-kubernetes-embedded-resource")),
                              uncorrelatable, schema_errors, field_errors, compile_errors)
    items = node.get("items")
    if isinstance(items, Mapping):
        within = uncorrelatable or (path if node.get("x-kubernetes-list-type") != "map" else None)
        _node_rule_errors(items, f"{path}.items", bool(items.get("x-kubernetes-embedded-resource")), within,
                          schema_errors, field_errors, compile_errors)
    rules = node.get("x-kubernetes-validations") or ()
    for index, rule in enumerate(rules):
        field_errors += _rule_field_errors(rule, node, f"{path}.x-kubernetes-validations[{index}]")
    below = (path, f"{path}.", f"{path}[")
    if len(field_errors) > before or any(field == path or field.startswith(below[1:]) for field, _t, _b in schema_errors):
        return  # kube compiles no rule of a node that has errors at or under it
    schemas = {SELF: (node, resource_root), OLD_SELF: (node, resource_root)}
    for index, rule in enumerate(rules):
        compile_errors += _rule_compile_errors(rule, schemas, f"{path}.x-kubernetes-validations[{index}]", uncorrelatable)


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


def _rule_compile_errors(rule: Mapping[str, Any], schemas: Mapping[str, tuple[Mapping[str, Any], bool]], path: str,
                         uncorrelatable: str | None) -> list[FieldError]:
    """``cel.Compile``'s verdict on a rule and its messageExpression, as the CRD's errors."""
    source = rule.get("rule") or ""
    issues, kind = check(_ENVIRONMENT, source, schemas)
    if issues is not None:
        return [invalid_go_value(f"{path}.rule", _go_rule(rule), f"compilation failed: {issues}")]
    errors = []
    if kind in ("string", "other"):
        errors.append(invalid_go_value(f"{path}.rule", _go_rule(rule), "cel expression must evaluate to a bool"))
    message_expression = rule.get("messageExpression") or ""
    if message_expression.strip():
        message_issues, message_kind = check(_ENVIRONMENT, message_expression, schemas)
        if message_issues is not None:
            errors.append(invalid_go_value(f"{path}.messageExpression", _go_rule(rule), f"messageExpression compilation failed: {message_issues}"))
        elif message_kind in ("bool", "other"):
            errors.append(invalid_go_value(f"{path}.messageExpression", _go_rule(rule), "messageExpression must evaluate to a string"))
    if uncorrelatable is not None and not errors and _uses_old_self(source):
        errors.append(status.invalid_error(f"{path}.rule", source, f"oldSelf cannot be used on the uncorrelatable portion of the schema within {uncorrelatable}"))
    return errors


def _uses_old_self(source: str) -> bool:
    try:
        return _ENVIRONMENT.compile(source).references(OLD_SELF)
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


class _Rule:
    """One compiled ``x-kubernetes-validations`` entry (``program`` None: not evaluated here)."""

    __slots__ = ("spec", "program", "message_program", "uses_old_self", "optional_old_self", "field_path")

    def __init__(self, spec: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
        self.spec = spec
        self.program = _compiled(spec.get("rule") or "")
        self.message_program = _compiled(spec.get("messageExpression") or "")
        self.uses_old_self = self.program is not None and self.program.references(OLD_SELF)
        self.optional_old_self = bool(spec.get("optionalOldSelf"))
        self.field_path = normalized_field_path(spec.get("fieldPath") or "", schema) or ""

    def message(self, bindings: Activation) -> str:
        """The error's detail: the messageExpression's value when it yields a usable one, else
        the message, else ``failed rule: <rule>`` (``ruleMessageOrDefault``)."""
        if self.message_program is not None:
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
        self.rules = [_Rule(rule, schema) for rule in schema.get("x-kubernetes-validations") or ()]
        self.properties = {name: node for name, child in (schema.get("properties") or {}).items()
                           if isinstance(child, Mapping) and (node := _node(child)) is not None}
        self.items = _node(schema["items"]) if isinstance(schema.get("items"), Mapping) else None
        additional = schema.get("additionalProperties")
        self.additional = _node(additional) if isinstance(additional, Mapping) else None

    def validate(self, value: Any, old: Any, has_old: bool, ratchet: bool, path: str, errors: list[FieldError],
                 ratcheted: list[FieldError]) -> None:
        """Append the errors of ``value`` (``old``: its correlated old value, if ``has_old``);
        ``ratchet``: an unchanged value, whose errors of rules without ``oldSelf`` go to
        ``ratcheted`` instead."""
        if value is None:
            return
        if self.rules:
            self._evaluate(value, old, has_old, ratchet, path, errors, ratcheted)
        if isinstance(value, dict):
            self._validate_map(value, old if isinstance(old, dict) else None, has_old, ratchet, path, errors, ratcheted)
        elif isinstance(value, list) and self.items is not None:
            keys = self.schema.get("x-kubernetes-list-map-keys") if self.schema.get("x-kubernetes-list-type") == "map" else None
            old_items = {_map_key(item, keys): item for item in old} if keys and isinstance(old, list) else {}
            for index, item in enumerate(value):
                key = _map_key(item, keys) if keys else None
                correlated = key is not None and key in old_items
                old_item = old_items.get(key) if correlated else None
                self.items.validate(item, old_item, correlated, item == old_item if correlated else ratchet,
                                    f"{path}[{index}]", errors, ratcheted)

    def _validate_map(self, value: dict[str, Any], old: dict[str, Any] | None, has_old: bool, ratchet: bool,
                      path: str, errors: list[FieldError], ratcheted: list[FieldError]) -> None:
        correlatable = has_old and old is not None and self.schema.get("x-kubernetes-map-type") != "atomic"
        for key, item in value.items():
            child = self.additional if self.additional is not None else self.properties.get(key)
            if child is None:
                continue
            correlated = correlatable and key in old  # type: ignore[operator]
            old_item = old.get(key) if correlated else None  # type: ignore[union-attr]
            child_path = f"{path}[{key}]" if self.additional is not None else (f"{path}.{key}" if path else key)
            child.validate(item, old_item, correlated, item == old_item if correlated else ratchet, child_path, errors,
                           ratcheted)

    def _evaluate(self, value: Any, old: Any, has_old: bool, ratchet: bool, path: str, errors: list[FieldError],
                  ratcheted: list[FieldError]) -> None:
        cel_value = to_cel(value, self.schema, self.resource_root)
        old_value = to_cel(old, self.schema, self.resource_root) if has_old else None
        # The node's rules (and message expressions) read the same values: each is converted
        # for the engine once. Rules with optionalOldSelf see oldSelf as an optional.
        plain: Activation | None = None
        with_optional: Activation | None = None
        for rule in self.rules:
            if rule.program is None:
                continue
            if rule.uses_old_self and not has_old and not rule.optional_old_self:
                continue
            if rule.optional_old_self:
                if with_optional is None:
                    with_optional = Activation({SELF: cel_value, OLD_SELF: optional(old_value, has_old)})
                rule_bindings = with_optional
            else:
                if plain is None:
                    plain = Activation({SELF: cel_value, OLD_SELF: old_value})
                rule_bindings = plain
            try:
                result = rule.program.evaluate(rule_bindings)
            except EvaluationError as error:
                text = str(error)
                if text.startswith("no such overload"):
                    detail = f"'{text}': call arguments did not match a supported operator, function or macro signature for rule: {rule.error_string()}"
                else:
                    detail = f"{text} evaluating rule: {rule.error_string()}"
                # kube names the schema's type here, not the value
                errors.append(status.invalid_error(path or "<nil>", self.schema.get("type", ""), detail))
                continue
            if result is True:
                continue
            field = path
            if rule.field_path:  # field.Path.Child of the normalized path
                field = f"{path}.{rule.field_path}" if path else rule.field_path
            error = _error_for_reason(field or "<nil>", value, rule.message(rule_bindings), rule.spec.get("reason"))
            (ratcheted if ratchet and not rule.uses_old_self else errors).append(error)


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
        self._root.validate(obj, old, old is not None, old is not None and obj == old, "", found, ratcheted)
        for field, _type, body in ratcheted:
            warn(f"{field}: {body}")
        return found

    def validate_value(self, value: Any, path: str) -> list[FieldError]:
        """The rules' errors on a value of the schema that is its own old value (a ``default``:
        ``ValidateDefaults`` evaluates transition rules against the default itself)."""
        found: list[FieldError] = []
        if self._root is not None:
            self._root.validate(value, value, True, False, path, found, [])
        return found
