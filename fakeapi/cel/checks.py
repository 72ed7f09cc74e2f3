"""Some of cel-go's type checking, where the declared variables' OpenAPI schemas tell without a
type checker (the engine has none): field selections on ``self``-like variables, comparisons of
operands whose types are known, and the type of expressions whose shape fixes it.

- ``undefined field 'b'``: ``self.b`` where the object's schema declares no ``b`` (an object's
  fields are its properties by their CEL names; ``apiVersion``, ``kind`` and ``metadata.name``/
  ``generateName`` at a resource root; a map's are any keys; an object that only preserves
  unknown fields has none), at the ``.`` (at ``has(``'s parenthesis for the field ``has`` tests);
- ``type 'int' does not support field selection``: a field of a scalar (``timestamp``,
  ``duration`` and ``bytes`` for the string formats kube types so, ``list(int)`` for a list of
  scalars);
- ``found no matching overload for 'lowerAscii' applied to 'int.()'``: a method of strings or
  lists called on a selection of another known type, with arguments whose types are known;
- ``found no matching overload for '_==_' applied to '(int, string)'``: a comparison of two
  operands that are each a selection or a literal, of types cel-go cannot compare (different
  types; numbers of different types compare by order, not by equality), at the operator;
- the type of the whole expression, when its top level is a comparison or logical operator
  (bool), arithmetic (a string with a string literal in a ``+``, else not a bool nor a string),
  a literal, or a selection whose schema is known: ``kind`` tells callers what a rule (``cel
  expression must evaluate to a bool``) or a message expression returns.

Anything else (calls, macros, indexing, ternaries) is left to evaluation, as ``engine`` says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .engine import (
    NUMBER_LITERAL,
    STRING_LITERAL,
    CompileError,
    Environment,
    UnsupportedSyntax,
    closing,
    issue,
    split_arguments,
    tokens,
)
from .values import escape

_SCALARS = {"integer": "int", "number": "double", "boolean": "bool", "string": "string"}
_FORMATTED = {"byte": "bytes", "date": "timestamp", "date-time": "timestamp", "duration": "duration"}
_RESOURCE_META_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}}
_RESOURCE_FIELDS = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": _RESOURCE_META_SCHEMA}
_COMPARISONS = {"==": "_==_", "!=": "_!=_", "<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_"}
_NUMBERS = frozenset(("int", "uint", "double"))
#: Tokens that may precede or follow an operand of a comparison (lower precedence or a delimiter).
_BEFORE_OPERAND = frozenset(("(", "&", "|", ",", "?", ":", "[", "{"))
_AFTER_OPERAND = frozenset((")", "&", "|", ",", "?", ":", "]", "}"))
_BOOL, _STRING, _OTHER = "bool", "string", "other"
#: Marks the schema of an object type kube declares itself (a ``DeclType``, as admission's
#: ``request``): its fields are named as they are, not as escaped property names
#: (``request.namespace``, where a CRD's ``namespace`` property is ``__namespace__``).
DECLARED_TYPE = "x-fakeapi-declared-type"


def _type_of(schema: Mapping[str, Any] | None) -> str | None:
    """The CEL type name of a schema whose values are not objects or maps (None: unknown here)."""
    if schema is None or schema.get("x-kubernetes-int-or-string"):
        return None
    kind = schema.get("type", "")
    if kind == "string" and schema.get("format") in _FORMATTED:
        return _FORMATTED[schema["format"]]
    if kind == "array":
        items = schema.get("items")
        element = _type_of(items) if isinstance(items, Mapping) else None
        return None if element is None else f"list({element})"
    return _SCALARS.get(kind)


def _select(schema: Mapping[str, Any] | None, name: str, resource_root: bool) -> tuple[str, Any]:
    """("field", (child schema, whether it is a resource root)), ("undefined", None),
    ("scalar", type name) or ("dynamic", None) for ``schema``'s field ``name``."""
    if schema is None or schema.get("x-kubernetes-int-or-string"):
        return "dynamic", None
    scalar = _type_of(schema)
    if scalar is not None:
        return "scalar", scalar
    if schema.get("type") not in (None, "object"):
        return "dynamic", None
    if resource_root and name in _RESOURCE_FIELDS:
        return "field", (_RESOURCE_FIELDS[name], False)
    properties = schema.get("properties") or {}
    declared = bool(schema.get(DECLARED_TYPE))
    for key, child in properties.items():
        if (key if declared else escape(key)) == name:
            return "field", (child, bool(child.get("x-kubernetes-embedded-resource")))
    additional = schema.get("additionalProperties")
    if not properties and isinstance(additional, Mapping):
        return "field", (additional, bool(additional.get("x-kubernetes-embedded-resource")))
    if additional is True or (not properties and schema.get("type") is None):
        return "dynamic", None
    return "undefined", None


class _Selection:
    """A chain ``var.a.b`` in the token list: where it ends, the schema it resolved to, and
    the schema of the receiver of a method called on it (``var.a.f(...)``)."""

    __slots__ = ("end", "schema", "known", "receiver")

    def __init__(self, end: int, schema: Mapping[str, Any] | None, known: bool,
                 receiver: Mapping[str, Any] | None = None) -> None:
        self.end, self.schema, self.known, self.receiver = end, schema, known, receiver


#: The receivers kube's methods take, for the methods whose misuse the schema can tell.
_STRING_METHODS = frozenset(("charAt", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim",
                             "format", "matches", "startsWith", "endsWith", "contains", "find", "findAll"))
_LIST_METHODS = frozenset(("reverse", "sort", "distinct", "flatten", "slice", "first", "last", "isSorted",
                           "sum", "min", "max", "join"))


def _method_accepts(method: str, receiver: str) -> bool | None:
    """Whether ``method`` has an overload for a ``receiver`` of that CEL type (None: unknown here)."""
    is_list = receiver.startswith("list(")
    if method in _STRING_METHODS:
        return receiver == "string"
    if method in _LIST_METHODS:
        return is_list
    if method in ("indexOf", "lastIndexOf"):
        return receiver == "string" or is_list
    if method == "size":
        return receiver in ("string", "bytes") or is_list
    return None


def _walk(source: str, toks: list[tuple[int, str]], start: int, schema: Mapping[str, Any], resource_root: bool,
          issues: list[tuple[int, str]]) -> _Selection:
    """Resolve the selections after ``toks[start]`` (a variable), appending cel-go's issues."""
    in_has = start >= 2 and toks[start - 1][1] == "(" and toks[start - 2][1] == "has"
    index, current, root = start + 1, schema, resource_root
    while index + 1 < len(toks) and toks[index][1] == "." and toks[index + 1][1][:1].isidentifier():
        after = toks[index + 2][1] if index + 2 < len(toks) else ""
        if after == "(":
            return _Selection(index, None, False, current)  # a method call: its result is not resolved
        name = toks[index + 1][1]
        kind, found = _select(current, name, root)
        if kind == "undefined":
            offset = toks[start - 1][0] if in_has and after != "." else toks[index][0]
            issues.append(issue(source, offset, f"undefined field '{name}'"))
            return _Selection(index + 2, None, False)
        if kind == "scalar":
            issues.append(issue(source, toks[index][0], f"type '{found}' does not support field selection"))
            return _Selection(index + 2, None, False)
        if kind == "dynamic":
            return _Selection(index + 2, None, False)
        current, root = found
        index += 2
    if index < len(toks) and toks[index][1] in ("[", "("):
        return _Selection(index, None, False)  # indexed or called: not this schema's value
    return _Selection(index, current, True)


def selection_issues(source: str, schemas: Mapping[str, tuple[Mapping[str, Any], bool]]) -> tuple[list[tuple[int, str]], str | None]:
    """cel-go's issues about field selections and comparisons on the variables of ``schemas``
    (name to schema and whether it is a resource root), and the kind of the expression's value
    (``bool``, ``string``, ``other``; None: not known without a type checker)."""
    toks = list(tokens(source))
    issues: list[tuple[int, str]] = []
    selections = _selections(source, toks, schemas, issues)
    if issues:
        return issues, None
    operands = _operands(source, toks, selections)
    issues += _method_issues(source, toks, selections, operands)
    issues += _comparison_issues(source, toks, operands)
    return sorted(issues), None if issues else _kind(toks, operands)


def _selections(source: str, toks: list[tuple[int, str]], schemas: Mapping[str, tuple[Mapping[str, Any], bool]],
                issues: list[tuple[int, str]]) -> dict[int, _Selection]:
    """The selections of each use of a variable of ``schemas``, by its token's index."""
    selections: dict[int, _Selection] = {}
    for index, (_offset, text) in enumerate(toks):
        if text in schemas and (index == 0 or toks[index - 1][1] != "."):
            schema, resource_root = schemas[text]
            selections[index] = _walk(source, toks, index, schema, resource_root, issues)
    return selections


def result_type(source: str, schemas: Mapping[str, tuple[Mapping[str, Any], bool]],
                dynamic: frozenset[str]) -> str | None:
    """The CEL type name cel-go's checker gives the whole expression, where its shape tells it
    without a checker: ``dyn`` for a field selection of a ``dynamic`` variable (``object.a.b``),
    the type of a selection of a variable of ``schemas`` whose schema is a scalar's, of a
    literal, ``bool`` for a comparison or logical operator at the top level, ``string`` for a
    concatenation with a string literal, a number type for arithmetic of literals of that
    type. None: not known here."""
    toks = list(tokens(source))
    if not toks:
        return None
    if toks[0][1] in dynamic and len(toks) % 2 == 1 and all(
            text == "." if i % 2 else text[:1].isidentifier() for i, (_offset, text) in enumerate(toks[1:], 1)):
        return "dyn"
    issues: list[tuple[int, str]] = []
    operands = _operands(source, toks, _selections(source, toks, schemas, issues))
    kind = _kind(toks, operands)
    if kind == _BOOL:
        return "bool"
    whole = operands.get(0)
    if whole is not None and whole[0] == len(toks) and whole[1] not in (None, "map"):
        return whole[1]
    if kind == _STRING:
        return "string"
    numbers = {literal_type(source, offset) for offset, text in toks if text == NUMBER_LITERAL}
    if len(numbers) == 1 and all(text == NUMBER_LITERAL or text in "+-*/%()" for _offset, text in toks):
        return numbers.pop()
    return None


def _method_issues(source: str, toks: list[tuple[int, str]], selections: dict[int, _Selection],
                   operands: dict[int, tuple[int, str | None]]) -> list[tuple[int, str]]:
    """``found no matching overload for 'm' applied to 'string.(int)'``: a method of another
    type's called on a selection whose type is known, with arguments whose types are known."""
    issues = []
    for selection in selections.values():
        receiver = _type_of(selection.receiver) if selection.receiver is not None else None
        if receiver is None:
            continue
        method, paren = toks[selection.end + 1][1], selection.end + 2
        if _method_accepts(method, receiver) is not False:
            continue
        close = next((i for i in range(paren, len(toks)) if toks[i][0] == closing(toks, paren)), None)
        if close is None:
            continue
        arguments = [] if close == paren + 1 else split_arguments(toks, paren + 1, close)
        types = [operands.get(argument[0], (None, None)) if argument else (None, None) for argument in arguments]
        if any(kind is None or end != argument[-1] + 1 for (end, kind), argument in zip(types, arguments)):
            continue
        names = ", ".join(kind for _end, kind in types)  # type: ignore[misc]
        issues.append(issue(source, toks[paren][0], f"found no matching overload for '{method}' applied to '{receiver}.({names})'"))
    return issues


def _operands(source: str, toks: list[tuple[int, str]], selections: dict[int, _Selection]) -> dict[int, tuple[int, str | None]]:
    """The operands whose type is known or literal, by first token: (end, CEL type name or
    None when only its being a value of unknown type is known)."""
    operands: dict[int, tuple[int, str | None]] = {}
    for index, (offset, text) in enumerate(toks):
        if text == STRING_LITERAL:
            operands[index] = (index + 1, "string")
        elif text == NUMBER_LITERAL:
            operands[index] = (index + 1, literal_type(source, offset))
        elif text in ("true", "false") and (index == 0 or toks[index - 1][1] != "."):
            operands[index] = (index + 1, "bool")
        elif index in selections:
            selection = selections[index]
            known = _type_of(selection.schema) if selection.known else None
            if known is None and selection.known and selection.schema is not None \
                    and selection.schema.get("type") == "object":
                known = "map"  # an object or a map: neither a bool nor a string
            operands[index] = (selection.end, known)
    return operands


_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+[uU]?|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?[uU]?")


def literal_type(source: str, offset: int) -> str:
    """``int``, ``uint`` or ``double``: the type of the number literal at ``offset``."""
    match = _NUMBER.match(source, offset)
    text = match.group() if match else ""
    if text[-1:] in ("u", "U"):
        return "uint"
    return "double" if not text.lower().startswith("0x") and ("." in text or "e" in text.lower()) else "int"


def _comparison_issues(source: str, toks: list[tuple[int, str]], operands: dict[int, tuple[int, str | None]]) -> list[tuple[int, str]]:
    """Each ``a <op> b`` of two known operands whose types cel-go has no overload of ``op`` for."""
    ending = {end: (start, kind) for start, (end, kind) in operands.items()}
    issues = []
    index = 0
    while index < len(toks):
        text = toks[index][1]
        following = toks[index + 1][1] if index + 1 < len(toks) else ""
        operator = text + "=" if text in "=!<>" and text and following == "=" else text
        if operator not in _COMPARISONS or (operator == "=" and following != "="):
            index += 1
            continue
        left = ending.get(index)
        right_start = index + len(operator)
        right = operands.get(right_start)
        if left is not None and right is not None and left[1] and right[1] \
                and (left[0] == 0 or toks[left[0] - 1][1] in _BEFORE_OPERAND) \
                and (right[0] == len(toks) or toks[right[0]][1] in _AFTER_OPERAND):
            types = (left[1], right[1])
            comparable = types[0] == types[1] or (set(types) <= _NUMBERS and operator not in ("==", "!="))
            if not comparable and "map" not in types:
                issues.append(issue(source, toks[index][0],
                                    f"found no matching overload for '{_COMPARISONS[operator]}' applied to '({types[0]}, {types[1]})'"))
        index = right_start
    return issues


def _top_level(toks: list[tuple[int, str]]) -> list[int]:
    """Indexes of the tokens outside any parentheses, brackets or braces."""
    depth, out = 0, []
    for index, (_offset, text) in enumerate(toks):
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        elif depth == 0:
            out.append(index)
    return out


def _kind(toks: list[tuple[int, str]], operands: dict[int, tuple[int, str | None]]) -> str | None:
    if not toks:
        return None
    top = _top_level(toks)
    texts = [toks[i][1] for i in top]
    if "?" in texts:
        return None
    if any(t in ("<", ">", "&", "|", "!", "=", "in") for t in texts):
        return _BOOL
    arithmetic = [t for t in texts if t in ("+", "-", "*", "/", "%")]
    if arithmetic:
        if "+" in arithmetic and STRING_LITERAL in texts:
            return _STRING
        return _OTHER if NUMBER_LITERAL in texts or set(arithmetic) - {"+"} else None
    whole = operands.get(0)
    if whole is None or whole[0] != len(toks) or top != list(range(len(toks))) or whole[1] is None:
        return None
    return {"bool": _BOOL, "string": _STRING}.get(whole[1], _OTHER)


def check(environment: Environment, source: str,
          schemas: Mapping[str, tuple[Mapping[str, Any], bool]]) -> tuple[str | None, str | None]:
    """cel-go's issues text for ``source`` in ``environment`` whose variables have ``schemas``
    (None: it compiles), and the kind of its value (see ``selection_issues``). An expression in
    syntax the engine cannot parse passes: kube accepts what it cannot be checked against here."""
    try:
        environment.compile(source)
        found: list[tuple[int, str]] = []
    except UnsupportedSyntax:
        return None, None
    except CompileError as error:
        if error.issues[0][1].startswith("ERROR: <input>") and "Syntax error" in error.issues[0][1]:
            return str(error), None
        found = error.issues
    selections, kind = selection_issues(source, schemas)
    issues = sorted(found + selections)
    if issues:
        return "\n".join(text for _offset, text in issues), None
    return None, kind
