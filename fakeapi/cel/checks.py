"""Some of cel-go's type checking, where the declared variables' OpenAPI schemas tell without a
type checker (the engine has none): field selections on ``self``-like variables and the type of
expressions whose shape fixes it.

- ``undefined field 'b'``: ``self.b`` where the object's schema declares no ``b`` (an object's
  fields are its properties by their CEL names; ``apiVersion``, ``kind`` and ``metadata.name``/
  ``generateName`` at a resource root; a map's are any keys; an object that only preserves
  unknown fields has none), at the ``.`` (at ``has(``'s parenthesis for the field ``has`` tests);
- ``type 'int' does not support field selection``: a field of a scalar;
- the type of the whole expression, when its top level is a comparison or logical operator
  (bool), arithmetic (a string with a string literal in a ``+``, else not a bool nor a string),
  a literal, or a selection whose schema is known: ``kind`` tells callers what a rule (``cel
  expression must evaluate to a bool``) or a message expression returns;
- ``found no matching overload for '_==_' applied to '(int, string)'``: a top-level comparison
  of a selection with a literal of another kind (strings against numbers or bools).

Anything else (calls, macros, indexing, ternaries) is left to evaluation, as ``engine`` says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .engine import NUMBER_LITERAL, STRING_LITERAL, CompileError, Environment, UnsupportedSyntax, issue, tokens
from .values import escape

#: What a selection resolved to: a schema node, or the CEL name of a scalar type, or DYNAMIC.
DYNAMIC = "dyn"
_SCALARS = {"integer": "int", "number": "double", "boolean": "bool", "string": "string"}
_FORMATTED = frozenset(("byte", "date", "date-time", "duration"))
_RESOURCE_META_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}}
_RESOURCE_FIELDS = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": _RESOURCE_META_SCHEMA}
_COMPARISONS = {"==": "_==_", "!=": "_!=_", "<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_"}
_BOOL, _STRING, _OTHER = "bool", "string", "other"


def _type_of(schema: Mapping[str, Any] | None) -> str | None:
    """The CEL type name of a scalar schema (None: not a plain scalar)."""
    if schema is None or schema.get("x-kubernetes-int-or-string") or schema.get("format") in _FORMATTED:
        return None
    return _SCALARS.get(schema.get("type", ""))


def _select(schema: Mapping[str, Any] | None, name: str, resource_root: bool) -> tuple[str, Any]:
    """("field", child schema, and whether it is a resource root), ("undefined", None),
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
    for key, child in properties.items():
        if escape(key) == name:
            return "field", (child, bool(child.get("x-kubernetes-embedded-resource")))
    additional = schema.get("additionalProperties")
    if not properties and isinstance(additional, Mapping):
        return "field", (additional, bool(additional.get("x-kubernetes-embedded-resource")))
    if additional is True or (not properties and schema.get("type") is None):
        return "dynamic", None
    return "undefined", None


class _Selection:
    """A chain ``var.a.b`` in the token list: where it ends, and the schema it resolved to."""

    __slots__ = ("end", "schema", "known")

    def __init__(self, end: int, schema: Mapping[str, Any] | None, known: bool) -> None:
        self.end, self.schema, self.known = end, schema, known


def _walk(source: str, toks: list[tuple[int, str]], start: int, schema: Mapping[str, Any], resource_root: bool,
          issues: list[tuple[int, str]]) -> _Selection:
    """Resolve the selections after ``toks[start]`` (a variable), appending cel-go's issues."""
    in_has = start >= 2 and toks[start - 1][1] == "(" and toks[start - 2][1] == "has"
    index, current, root = start + 1, schema, resource_root
    while index + 1 < len(toks) and toks[index][1] == "." and toks[index + 1][1][:1].isidentifier():
        after = toks[index + 2][1] if index + 2 < len(toks) else ""
        if after == "(":
            return _Selection(index, None, False)  # a method call: its result is not resolved
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
    return _Selection(index, current, True)


def selection_issues(source: str, schemas: Mapping[str, tuple[Mapping[str, Any], bool]]) -> tuple[list[tuple[int, str]], str | None]:
    """cel-go's issues about field selections on the variables of ``schemas`` (name to schema
    and whether it is a resource root), and the kind of the expression's value (``bool``,
    ``string``, ``other``; None: not known without a type checker)."""
    toks = list(tokens(source))
    issues: list[tuple[int, str]] = []
    selections: dict[int, _Selection] = {}
    for index, (_offset, text) in enumerate(toks):
        if text in schemas and (index == 0 or toks[index - 1][1] != "."):
            schema, resource_root = schemas[text]
            selections[index] = _walk(source, toks, index, schema, resource_root, issues)
    kind = _kind(source, toks, selections, issues) if not issues else None
    return issues, kind


def _top_level(toks: list[tuple[int, str]]) -> list[int]:
    """Indexes of the tokens outside any parentheses, brackets or braces."""
    depth, out = 0, []
    for index, (_offset, text) in enumerate(toks):
        if text in "([{" and text:
            depth += 1
        elif text in ")]}" and text:
            depth -= 1
        elif depth == 0:
            out.append(index)
    return out


def _operand_kind(toks: list[tuple[int, str]], index: int, selections: dict[int, _Selection]) -> tuple[str | None, int]:
    """The kind of the operand starting at ``index`` and where it ends."""
    text = toks[index][1]
    if text == STRING_LITERAL:
        return _STRING, index + 1
    if text == NUMBER_LITERAL:
        return "number", index + 1
    if text in ("true", "false"):
        return _BOOL, index + 1
    selection = selections.get(index)
    if selection is None or not selection.known:
        return None, index + 1
    scalar = _type_of(selection.schema)
    if scalar is None:
        plain = selection.schema is not None and selection.schema.get("type") in ("object", "array") \
            and not selection.schema.get("x-kubernetes-int-or-string")
        return (_OTHER if plain else None), selection.end
    return {"bool": _BOOL, "string": _STRING}.get(scalar, scalar), selection.end


_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+[uU]?|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?[uU]?")


def _literal_type(source: str, offset: int) -> str:
    """``int``, ``uint`` or ``double``: the type of the number literal at ``offset``."""
    match = _NUMBER.match(source, offset)
    text = match.group() if match else ""
    if text[-1:] in ("u", "U"):
        return "uint"
    return "double" if not text.lower().startswith("0x") and ("." in text or "e" in text.lower()) else "int"


def _kind(source: str, toks: list[tuple[int, str]], selections: dict[int, _Selection], issues: list[tuple[int, str]]) -> str | None:
    if not toks:
        return None
    top = _top_level(toks)
    texts = [toks[i][1] for i in top]
    if "?" in texts:
        return None
    if any(t in ("<", ">", "&", "|", "!", "in") or t == "=" for t in texts):
        _comparison_issue(source, toks, top, selections, issues)
        return _BOOL
    arithmetic = [t for t in texts if t in ("+", "-", "*", "/", "%")]
    if arithmetic:
        if "+" in arithmetic and STRING_LITERAL in texts:
            return _STRING
        return _OTHER if any(t == NUMBER_LITERAL for t in texts) or set(arithmetic) - {"+"} else None
    if top != list(range(len(toks))):
        return None  # calls, indexing
    kind, end = _operand_kind(toks, 0, selections)
    if end != len(toks):
        return None
    return _OTHER if kind in ("number", "int", "double") else kind


def _comparison_issue(source: str, toks: list[tuple[int, str]], top: list[int], selections: dict[int, _Selection],
                      issues: list[tuple[int, str]]) -> None:
    """``operand <op> literal`` (or the reverse) at the top level, of kinds cel-go cannot compare."""
    if top != list(range(len(toks))):
        return
    left, end = _operand_kind(toks, 0, selections)
    operator = "".join(text for _offset, text in toks[end:end + 2] if text in "=!<>")
    if operator not in _COMPARISONS or end + len(operator) >= len(toks):
        return
    right, right_end = _operand_kind(toks, end + len(operator), selections)
    if right_end != len(toks) or left is None or right is None:
        return
    kinds = {left, right}
    numeric = {"number", "int", "double"}
    if kinds & {_STRING} and kinds & (numeric | {_BOOL}) or kinds & {_BOOL} and kinds & numeric:
        names = tuple(_literal_type(source, toks[i][0]) if k == "number" else k
                      for k, i in ((left, 0), (right, end + len(operator))))
        issues.append(issue(source, toks[end][0], f"found no matching overload for '{_COMPARISONS[operator]}' applied to '({names[0]}, {names[1]})'"))


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
