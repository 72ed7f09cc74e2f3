"""Label and field selectors, parsed once per request into matchers, with kube-apiserver's errors.

Label selectors are apimachinery's ``labels.Parse``, ported token for token (its lexer, its
parser and ``NewRequirement``'s validation), so that every selector kube accepts is accepted here
with the same meaning and every one it refuses is refused with the same message: ``unable to parse
requirement: ...`` for a bad requirement, the bare parser message for bad structure. Keys and values are
checked by ``fakeapi.machinery.validation`` (``content.IsLabelKey``/``IsLabelValue``).

Field selectors are ``fields.ParseSelector`` (terms split on unescaped ``,``; ``\\,``, ``\\=`` and
``\\\\`` escape values), then, per kind, the field label conversion kube registers: it decides
which labels a selector may use for that kind and may rename them (pods' ``spec.host``,
events.k8s.io's ``regarding.*``); any other label is a 400 with that kind's message.
``selectable_fields`` is each registry's ``GetAttrs``: the fields an object offers, as strings.
A field an accepted label names but an object does not offer compares as ``""``, as in kube.

All parse errors are ``StatusError`` 400 BadRequest with kube's message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Protocol

from .golang import go_parse_int64, go_quote
from .status import FieldError, bad_request, field_errors_message, invalid_error
from .validation import is_qualified_name, is_valid_label_value

# ----------------------------------------------------------------------------- label selectors

_EOS, _IDENTIFIER = "end of string", "identifier"  # token kinds; operators are their own kind
_OPERATOR_TOKENS = frozenset(("(", ")", ",", "!", "=", "==", "!=", ">", "<"))
_KEYWORDS = frozenset(("in", "notin"))
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
#: ``selection.Operator`` of each binary operator token, in the order kube's errors list them.
_BINARY_OPERATORS = {"in": "in", "notin": "notin", "=": "=", "==": "==", "!=": "!=", ">": "gt", "<": "lt"}
_EXISTS, _DOES_NOT_EXIST = "exists", "!"


@dataclass(frozen=True, slots=True)
class LabelRequirement:
    """``labels.Requirement``: ``operator`` is a ``selection.Operator`` (``=``, ``==``, ``!=``,
    ``in``, ``notin``, ``exists``, ``!``, ``gt``, ``lt``)."""

    key: str
    operator: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        value = labels.get(self.key)
        op = self.operator
        if op in ("=", "==", "in"):
            return value is not None and value in self.values
        if op in ("!=", "notin"):
            return value is None or value not in self.values
        if op == _EXISTS:
            return value is not None
        if op == _DOES_NOT_EXIST:
            return value is None
        actual = go_parse_int64(value) if value is not None else None
        if actual is None:
            return False
        (bound,) = self.values  # validated as one int64 when parsed
        return actual > int(bound) if op == "gt" else actual < int(bound)


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A parsed label selector: the AND of its requirements; empty selects everything."""

    requirements: tuple[LabelRequirement, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)


class _LabelSyntaxError(Exception):
    pass


def _lex(text: str) -> list[tuple[str, str]]:
    """``labels.Lexer``: ``(kind, literal)`` tokens up to the first end of string. Like Go's
    byte reader, a NUL character reads as end of input where a token may start."""
    tokens: list[tuple[str, str]] = []
    pos = 0

    def read() -> str:
        nonlocal pos
        if pos < len(text):
            pos += 1
            return text[pos - 1]
        return "\0"

    while True:
        char = read()
        while char in _WHITESPACE:
            char = read()
        if char == "\0":
            tokens.append((_EOS, ""))
            return tokens
        pos -= 1
        if char in _SPECIAL:  # the longest operator: every special character alone is one
            operator = ""
            while (char := read()) != "\0":
                if char not in _SPECIAL or (operator and operator + char not in _OPERATOR_TOKENS):
                    pos -= 1
                    break
                operator += char
            tokens.append((operator, operator))
        else:
            word = ""
            while (char := read()) != "\0":
                if char in _SPECIAL or char in _WHITESPACE:
                    pos -= 1
                    break
                word += char
            tokens.append((word if word in _KEYWORDS else _IDENTIFIER, word))


class _LabelParser:
    """``labels.Parser``. Where values are expected, ``in`` and ``notin`` are identifiers."""

    def __init__(self, text: str) -> None:
        self.tokens = _lex(text)
        self.position = 0

    def lookahead(self, values: bool = True) -> tuple[str, str]:
        kind, literal = self.tokens[self.position]
        return (_IDENTIFIER if values and kind in _KEYWORDS else kind), literal

    def consume(self, values: bool = True) -> tuple[str, str]:
        token = self.lookahead(values)
        self.position += 1
        return token

    def parse(self) -> LabelSelector:
        requirements: list[LabelRequirement] = []
        while True:
            kind, literal = self.lookahead()
            if kind == _EOS:
                return LabelSelector(tuple(requirements))
            if kind not in (_IDENTIFIER, "!"):
                raise _LabelSyntaxError(f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self.requirement())
            except _LabelSyntaxError as err:
                raise _LabelSyntaxError(f"unable to parse requirement: {err}") from None
            kind, literal = self.consume()
            if kind == _EOS:
                return LabelSelector(tuple(requirements))
            if kind != ",":
                raise _LabelSyntaxError(f"found '{literal}', expected: ',' or 'end of string'")
            kind, literal = self.lookahead()
            if kind not in (_IDENTIFIER, "!"):
                raise _LabelSyntaxError(f"found '{literal}', expected: identifier after ','")

    def requirement(self) -> LabelRequirement:
        operator = ""
        kind, key = self.consume()
        if kind == "!":
            operator = _DOES_NOT_EXIST
            kind, key = self.consume()
        if kind != _IDENTIFIER:
            raise _LabelSyntaxError(f"found '{key}', expected: identifier")
        if errors := is_qualified_name(key):
            raise _LabelSyntaxError(field_errors_message([invalid_error("<nil>", key, "; ".join(errors))]))
        if operator == _DOES_NOT_EXIST or self.lookahead()[0] in (_EOS, ","):
            return LabelRequirement(key, operator or _EXISTS)
        kind, literal = self.consume(values=False)
        if kind not in _BINARY_OPERATORS:
            raise _LabelSyntaxError(f"found '{literal}', expected: {', '.join(_BINARY_OPERATORS.values())}")
        operator = _BINARY_OPERATORS[kind]
        values = self.value_set() if operator in ("in", "notin") else self.exact_value()
        return _new_requirement(key, operator, values)

    def value_set(self) -> set[str]:
        kind, literal = self.consume()
        if kind != "(":
            raise _LabelSyntaxError(f"found '{literal}' expected: '('")
        kind, literal = self.lookahead()
        if kind == ")":  # "()" is the set of the empty value
            self.consume()
            return {""}
        if kind not in (_IDENTIFIER, ","):
            raise _LabelSyntaxError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self.identifiers()
        self.consume()  # the ")" identifiers() stopped at
        return values

    def identifiers(self) -> set[str]:
        """Comma-separated, possibly empty, values up to ``)``: ``(,a)`` holds ``""`` and ``a``."""
        values: set[str] = set()
        while True:
            kind, literal = self.consume()
            if kind == _IDENTIFIER:
                values.add(literal)
                kind, literal = self.lookahead()
                if kind == ")":
                    return values
                if kind != ",":
                    raise _LabelSyntaxError(f"found '{literal}', expected: ',' or ')'")
            elif kind == ",":
                following = self.lookahead()[0]
                if not values or following in (")", ","):
                    values.add("")
                if following == ")":
                    return values
            else:
                raise _LabelSyntaxError(f"found '{literal}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        if self.lookahead()[0] in (_EOS, ","):
            return {""}
        kind, literal = self.consume()
        if kind != _IDENTIFIER:
            raise _LabelSyntaxError(f"found '{literal}', expected: identifier")
        return {literal}


def _new_requirement(key: str, operator: str, values: set[str]) -> LabelRequirement:
    """``labels.NewRequirement``'s value checks (the parser has checked the key and guarantees
    the number of values), errors in the order of the sorted values."""
    errors: list[FieldError] = []
    ordered = sorted(values)
    if operator in ("gt", "lt"):
        errors += [invalid_error(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")
                   for i, v in enumerate(ordered) if go_parse_int64(v) is None]
    for i, value in enumerate(ordered):
        if value_errors := is_valid_label_value(value):
            errors.append(invalid_error(f"values[{i}][{key}]", value, "; ".join(value_errors)))
    if errors:
        raise _LabelSyntaxError(field_errors_message(errors))
    return LabelRequirement(key, operator, frozenset(values))


def parse_label_selector(text: str) -> LabelSelector:
    """``labels.Parse``; a selector kube refuses is a 400 with kube's message."""
    try:
        return _LabelParser(text).parse()
    except _LabelSyntaxError as err:
        raise bad_request(str(err)) from None


#: ``metav1.LabelSelectorOperator`` to ``selection.Operator``.
_SELECTOR_OPERATORS = {"In": "in", "NotIn": "notin", "Exists": _EXISTS, "DoesNotExist": _DOES_NOT_EXIST}


def label_selector_as_selector(selector: Mapping[str, Any]) -> LabelSelector:
    """``metav1.LabelSelectorAsSelector`` of a non-nil ``metav1.LabelSelector`` object (an empty
    one selects everything; kube's nil selects nothing, which callers decide before): raises
    ``ValueError`` for a selector kube refuses to convert (bad operator, key or value)."""
    requirements = []
    try:
        for key, value in sorted((selector.get("matchLabels") or {}).items()):
            requirements.append(_checked_requirement(key, "=", {value}))
        for expression in selector.get("matchExpressions") or ():
            operator = _SELECTOR_OPERATORS.get(expression.get("operator"))
            if operator is None:
                raise ValueError(f"{go_quote(str(expression.get('operator')))} is not a valid label selector operator")
            requirements.append(_checked_requirement(expression.get("key", ""), operator, set(expression.get("values") or ())))
    except _LabelSyntaxError as err:
        raise ValueError(str(err)) from None
    return LabelSelector(tuple(requirements))


def _checked_requirement(key: str, operator: str, values: set[str]) -> LabelRequirement:
    """``labels.NewRequirement`` with its key check (the parser checks keys as it reads them)."""
    if key_errors := is_qualified_name(key):
        raise _LabelSyntaxError(field_errors_message([invalid_error("key", key, "; ".join(key_errors))]))
    if operator in ("in", "notin") and not values:
        raise _LabelSyntaxError("for 'in', 'notin' operators, values set can't be empty")
    if operator in (_EXISTS, _DOES_NOT_EXIST) and values:
        raise _LabelSyntaxError("values set must be empty for exists and does not exist")
    return _new_requirement(key, operator, values)


# ----------------------------------------------------------------------------- field selectors


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """One term: ``field=value`` (or ``==``) when ``equal``, ``field!=value`` otherwise."""

    field: str
    value: str
    equal: bool

    def matches(self, fields: Mapping[str, str]) -> bool:
        return (fields.get(self.field, "") == self.value) == self.equal


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """A parsed field selector: the AND of its terms, in the sorted order kube checks them."""

    requirements: tuple[FieldRequirement, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, fields: Mapping[str, str]) -> bool:
        return all(r.matches(fields) for r in self.requirements)

    @classmethod
    def parse(cls, text: str) -> FieldSelector:
        """``fields.ParseSelector``: no whitespace is trimmed; each term splits at its first
        operator (``!=``, then ``==``, then ``=``, tried at each position in turn)."""
        requirements: list[FieldRequirement] = []
        for term in sorted(_split_terms(text)):
            if not term:
                continue
            for i in range(len(term)):
                operator = next((op for op in ("!=", "==", "=") if term.startswith(op, i)), None)
                if operator:
                    field, value = term[:i], _unescape(term[i + len(operator):])
                    if field or value:  # Go's Transform turns an empty term into "everything"
                        requirements.append(FieldRequirement(field, value, operator != "!="))
                    break
            else:
                raise bad_request(f"invalid selector: '{text}'; can't understand '{term}'")
        return cls(tuple(requirements))


def _split_terms(text: str) -> list[str]:
    """``splitTerms``: split at commas not escaped by a backslash, escapes kept."""
    if not text:
        return []
    terms, start, escaped = [], 0, False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _unescape(value: str) -> str:
    """``UnescapeValue``: ``\\\\``, ``\\,`` and ``\\=`` are the only escapes; a bare ``,`` or ``=``
    is refused (Go's error shows the character as its code point)."""
    out, escaped = [], False
    for char in value:
        if escaped:
            if char not in "\\,=":
                raise bad_request(f"invalid field selector: invalid escape sequence: \\{char}")
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ",=":
            raise bad_request(f"invalid field selector: unescaped character in value: {ord(char)}")
        else:
            out.append(char)
    if escaped:
        raise bad_request("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


class SelectableKind(Protocol):
    """What field selection needs to know of a resource (a catalogue ``ResourceType`` is one)."""

    @property
    def group(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def namespaced(self) -> bool: ...


Json = Mapping[str, Any]
FieldGetter = Callable[[Json], str]


def _get(obj: Json, keys: tuple[str, ...]) -> Any:
    """The value at a path of keys; a numeric step indexes a list."""
    value: Any = obj
    for key in keys:
        if value.__class__ is dict or isinstance(value, Mapping):  # a stored object's are dicts
            value = value.get(key)
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return None
    return value


def _text(path: str, zero: str = "") -> FieldGetter:
    """The field at ``path`` (dotted) as Go prints it (``true``/``false``, decimal integers),
    ``zero`` when unset: what Go's zero value of the field's type prints as."""
    keys = tuple(path.split("."))

    def get(obj: Json) -> str:
        value = _get(obj, keys)
        if value is None:
            return zero
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)
    return get


def _first_of(*getters: FieldGetter) -> FieldGetter:
    """The first non-empty of several fields: how v1 fields fold into one internal field (a pod's
    ``status.podIP`` wins over ``status.podIPs``; an event's ``source`` falls back to its
    reporting controller)."""
    return lambda obj: next((v for v in (get(obj) for get in getters) if v), "")


@dataclass(frozen=True, slots=True)
class _KindFields:
    """One kind's field selector support: ``labels`` maps each label its field label conversion
    func accepts to the field it selects, ``unsupported`` is that func's error for any other
    label, and ``values`` is what its ``GetAttrs`` adds to ``metadata.name`` (and, for namespaced
    kinds, ``metadata.namespace``)."""

    labels: Mapping[str, str]
    unsupported: Callable[[str], str]
    values: Mapping[str, FieldGetter]


def _accepting(*labels: str) -> dict[str, str]:
    return {label: label for label in labels}


def _field_label_not_supported(label: str) -> str:
    """The message of core/v1's (and most groups') conversion funcs."""
    return f"field label not supported: {label}"


#: ``runtime.DefaultMetaV1FieldSelectorConversion``: kinds that register no conversion func.
_DEFAULT_FIELDS = _KindFields(
    labels=_accepting("metadata.name", "metadata.namespace"),
    unsupported=lambda label: f'{go_quote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"',
    values={},
)

#: The object reference fields of an event (core ``involvedObject``, events.k8s.io ``regarding``).
_REFERENCE_FIELDS = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
_EVENT_VALUES: dict[str, FieldGetter] = {
    **{f"involvedObject.{f}": _text(f"involvedObject.{f}") for f in _REFERENCE_FIELDS},
    "reason": _text("reason"),
    "reportingComponent": _text("reportingComponent"),
    "source": _first_of(_text("source.component"), _text("reportingComponent")),
    "type": _text("type"),
}

#: Kinds with their own conversion func (``pkg/apis/<group>/<version>/conversion.go``) and their
#: ``GetAttrs`` (``pkg/registry/<group>/<resource>/strategy.go``), read from the v1 object.
_KIND_FIELDS: dict[tuple[str, str], _KindFields] = {
    ("", "Pod"): _KindFields(
        labels={**_accepting("metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
                             "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
                             "status.podIP", "status.podIPs", "status.nominatedNodeName"),
                "spec.host": "spec.nodeName"},  # what pre-1.0 clients sent
        unsupported=_field_label_not_supported,
        values={
            "spec.nodeName": _text("spec.nodeName"),
            "spec.restartPolicy": _text("spec.restartPolicy"),
            "spec.schedulerName": _text("spec.schedulerName"),
            "spec.serviceAccountName": _text("spec.serviceAccountName"),
            "spec.hostNetwork": _text("spec.hostNetwork", "false"),
            "status.phase": _text("status.phase"),
            "status.podIP": _first_of(_text("status.podIP"), _text("status.podIPs.0.ip")),
            "status.nominatedNodeName": _text("status.nominatedNodeName"),
        },
    ),
    ("", "Node"): _KindFields(
        labels=_accepting("metadata.name", "spec.unschedulable"),
        unsupported=_field_label_not_supported,
        values={"spec.unschedulable": _text("spec.unschedulable", "false")},
    ),
    ("", "ReplicationController"): _KindFields(
        labels=_accepting("metadata.name", "metadata.namespace", "status.replicas"),
        unsupported=_field_label_not_supported,
        values={"status.replicas": _text("status.replicas", "0")},
    ),
    ("", "Event"): _KindFields(
        labels=_accepting("metadata.name", "metadata.namespace", *_EVENT_VALUES),
        unsupported=_field_label_not_supported,
        values=_EVENT_VALUES,
    ),
    ("events.k8s.io", "Event"): _KindFields(
        # events.k8s.io names the core Event's fields differently; selectors use its names
        labels={**_accepting("metadata.name", "metadata.namespace", "reason", "source", "type"),
                **{f"regarding.{f}": f"involvedObject.{f}" for f in _REFERENCE_FIELDS},
                "reportingController": "reportingComponent"},
        unsupported=_field_label_not_supported,
        values={
            **{f"involvedObject.{f}": _text(f"regarding.{f}") for f in _REFERENCE_FIELDS},
            "reason": _text("reason"),
            "reportingComponent": _text("reportingController"),
            "source": _first_of(_text("deprecatedSource.component"), _text("reportingController")),
            "type": _text("type"),
        },
    ),
    ("", "Namespace"): _KindFields(
        labels=_accepting("metadata.name", "status.phase"),
        unsupported=_field_label_not_supported,
        values={"status.phase": _text("status.phase")},
    ),
    ("", "Secret"): _KindFields(
        labels=_accepting("metadata.name", "metadata.namespace", "type"),
        unsupported=_field_label_not_supported,
        values={"type": _text("type")},
    ),
    ("", "Service"): _KindFields(
        labels=_accepting("metadata.name", "metadata.namespace", "spec.clusterIP", "spec.type"),
        unsupported=_field_label_not_supported,
        values={"spec.clusterIP": _text("spec.clusterIP"), "spec.type": _text("spec.type")},
    ),
    ("batch", "Job"): _KindFields(
        labels=_accepting("metadata.name", "metadata.namespace", "status.successful"),
        unsupported=lambda label: f"field label {go_quote(label)} not supported for batchv1.Job",
        values={"status.successful": _text("status.succeeded", "0")},
    ),
    ("certificates.k8s.io", "CertificateSigningRequest"): _KindFields(
        labels=_accepting("metadata.name", "spec.signerName"),
        unsupported=_field_label_not_supported,
        values={"spec.signerName": _text("spec.signerName")},
    ),
    ("resource.k8s.io", "ResourceSlice"): _KindFields(
        labels=_accepting("metadata.name", "spec.nodeName", "spec.driver"),
        unsupported=lambda label: f"field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: {label}",
        values={"spec.nodeName": _text("spec.nodeName"), "spec.driver": _text("spec.driver")},
    ),
}


@cache
def _custom_fields(namespaced: bool, selectable: tuple[str, ...]) -> _KindFields:
    """A custom resource version's (``crConverter.ConvertFieldLabel``): ``metadata.name``,
    ``metadata.namespace`` of a namespaced one, and its selectable fields, each the value at its
    path as ``fmt.Sprint`` prints it, ``""`` where there is none (``customResourceStrategy``'s
    ``GetAttrs``)."""
    metadata = ("metadata.name", "metadata.namespace") if namespaced else ("metadata.name",)
    return _KindFields(labels=_accepting(*metadata, *selectable), unsupported=_field_label_not_supported,
                       values={name: _text(name) for name in selectable})


def _kind_fields(resource: SelectableKind) -> _KindFields:
    if getattr(resource, "custom", False):
        return _custom_fields(resource.namespaced, getattr(resource, "selectable_fields", ()))
    return _KIND_FIELDS.get((resource.group, resource.kind), _DEFAULT_FIELDS)


def selects_metadata_only(resource: SelectableKind) -> bool:
    """Whether every field ``resource``'s kind offers to selectors is in its metadata."""
    return not _kind_fields(resource).values


def validate_field_selector(resource: SelectableKind, selector: FieldSelector) -> FieldSelector:
    """The field label conversion kube applies to a parsed selector for ``resource``'s kind: the
    selector with each label replaced by the field it selects, or a 400 for the first label (in
    term order) the kind does not support."""
    fields = _kind_fields(resource)
    converted = []
    for requirement in selector.requirements:
        field = fields.labels.get(requirement.field)
        if field is None:
            raise bad_request(fields.unsupported(requirement.field))
        converted.append(replace(requirement, field=field))
    return FieldSelector(tuple(converted))


def parse_field_selector(resource: SelectableKind, text: str) -> FieldSelector:
    """A request's ``fieldSelector`` for ``resource``: parsed, then validated and converted."""
    return validate_field_selector(resource, FieldSelector.parse(text))


def selectable_fields(resource: SelectableKind, obj: Json) -> dict[str, str]:
    """``GetAttrs``: the fields ``obj`` (a stored object of ``resource``) offers to selectors."""
    metadata = obj.get("metadata") or {}
    fields = {"metadata.name": str(metadata.get("name", ""))}
    if resource.namespaced:
        fields["metadata.namespace"] = str(metadata.get("namespace", ""))
    for field, get in _kind_fields(resource).values.items():
        fields[field] = get(obj)
    return fields

