"""What of its variables' values an expression can read, so that the engine is handed only that.

The engine converts every value it is given into its own, field by field (about 4 µs a string,
1 ms for a 3 KB pod), before the expression reads any of it. A policy's
``object.spec.containers.all(c, c.image.startsWith('registry.example/'))`` reads the images
of the containers and nothing else of the pod: given ``{"spec": {"containers": [{"image":
...}, ...]}}``, it answers as given the whole pod, for a fraction of the conversion.

``reads(source, variables)`` walks the syntax tree (``syntax.parse``) and tells, per variable, a
``Need``: the fields a chain of selections from the variable reaches (``object.spec.containers``,
``has(object.spec.x)``, ``object.metadata.labels['app']``, ``x.?f``), and, for a list a
comprehension iterates, what its loop variable reads of each item (and of a list ``size``
counts, nothing). Wherever a value is used otherwise (compared, passed to a function, indexed by
a computed key, returned, iterated as a map), the whole value from there down is needed. ``project(value, need)`` keeps that of a
value: the fields needed that it has (a missing one stays missing, so ``has`` and ``no such key``
answer as on the whole value), every item of a list, a map iterated whole, anything not a map or
a list as it is. An expression ``syntax`` cannot read needs all of every variable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .syntax import Call, Comprehension, CreateList, CreateMap, Expr, Ident, Literal, NotParsed, Select, parse

#: A path's step into every item of a list (or every value of a map) a comprehension iterates.
_ITEMS = object()


@dataclass(slots=True)
class Need:
    """What is read of a value: all of it (``whole``), else the ``fields`` named and what of
    each, and what of each item (``items``) when it is iterated."""

    whole: bool = False
    fields: dict[str, Need] = field(default_factory=dict)
    items: Need | None = None

    def at(self, steps: tuple[Any, ...]) -> Need | None:
        """The need of the value at the end of ``steps`` from this one (made, if none was
        recorded); None where one of them is needed whole already."""
        need = self
        for step in steps:
            if need.whole:
                return None
            if step is _ITEMS:
                if need.items is None:
                    need.items = Need()
                need = need.items
            else:
                need = need.fields.setdefault(step, Need())
        return None if need.whole else need

    def key(self) -> Any:
        """A hashable form: two needs with the same key keep the same of any value."""
        if self.whole:
            return True
        return (tuple(sorted((name, need.key()) for name, need in self.fields.items())),
                None if self.items is None else self.items.key())


#: All of a value.
WHOLE = Need(whole=True)


def reads(source: str, variables: Iterable[str]) -> dict[str, Need]:
    """The ``Need`` of each of ``variables`` that ``source`` reads (absent: not read)."""
    roots = frozenset(variables)
    try:
        tree = parse(source)
    except (NotParsed, RecursionError):
        return {name: WHOLE for name in roots}
    walk = _Walk(roots)
    walk.visit(tree, {})
    return walk.needs


def union(first: Need, second: Need) -> Need:
    """A need that keeps of any value at least what each of the two keeps: an expression given
    more of a value than it reads answers as given what it reads. Where one iterates a value and
    the other does not, the value is kept whole: iterated, a list keeps its items' needs and a
    map all of itself, not iterated a list all of itself and a map its fields."""
    if first.whole or second.whole or (first.items is None) != (second.items is None):
        return WHOLE
    fields = dict(first.fields)
    for name, need in second.fields.items():
        fields[name] = need if name not in fields else union(fields[name], need)
    items = None if first.items is None or second.items is None else union(first.items, second.items)
    return Need(False, fields, items)


def project(value: Any, need: Need) -> Any:
    """What of ``value`` an expression with ``need`` of it reads (see the module's docstring)."""
    if need.whole:
        return value
    if isinstance(value, list):
        return value if need.items is None else [project(item, need.items) for item in value]
    if isinstance(value, Mapping):
        if need.items is not None:  # a map iterated: its keys are read, its values through them
            return value
        return {name: project(value[name], child) for name, child in need.fields.items() if name in value}
    return value


#: What a name in scope stands for: a path (its root variable and steps) or None (not a path).
_Path = tuple[str, tuple[Any, ...]]


class _Walk:
    def __init__(self, roots: frozenset[str]) -> None:
        self._roots = roots
        self.needs: dict[str, Need] = {}

    def _use(self, path: _Path) -> None:
        """The whole value at ``path`` is read."""
        root, steps = path
        need = self.needs.setdefault(root, Need()).at(steps)
        if need is not None:
            need.whole, need.fields, need.items = True, {}, None

    def _path(self, expr: Expr, scope: Mapping[str, _Path | None]) -> _Path | None:
        """The path ``expr`` reads through selections alone, if it is one."""
        if isinstance(expr, Ident):
            if expr.name in scope:
                return scope[expr.name]
            return (expr.name, ()) if expr.name in self._roots else None
        if isinstance(expr, Select) and not expr.test_only:
            operand = self._path(expr.operand, scope)
            return None if operand is None else (operand[0], (*operand[1], expr.field))
        if isinstance(expr, Call) and expr.function in ("_[_]", "_[?_]", "_?._") and len(expr.args) == 2 \
                and isinstance(expr.args[1], Literal) and expr.args[1].kind == "string":
            operand = self._path(expr.args[0], scope)
            return None if operand is None else (operand[0], (*operand[1], expr.args[1].value))
        return None

    def visit(self, expr: Expr, scope: Mapping[str, _Path | None]) -> None:
        """Records what ``expr`` reads, its own value used whole."""
        path = self._path(expr, scope)
        if path is not None:
            self._use(path)
            return
        if isinstance(expr, Select):  # a presence test, or a selection from what is no path
            operand = self._path(expr.operand, scope)
            if operand is not None and expr.test_only:  # the field's presence alone
                self.needs.setdefault(operand[0], Need()).at((*operand[1], expr.field))
            else:
                self.visit(expr.operand, scope)
        elif isinstance(expr, Call):
            operands = ([] if expr.target is None else [expr.target]) + expr.args
            sized = self._path(operands[0], scope) if expr.function == "size" and len(operands) == 1 else None
            if sized is not None:  # a list's items are counted, not read (a string is read whole)
                self.needs.setdefault(sized[0], Need()).at((*sized[1], _ITEMS))
                return
            for arg in operands:
                self.visit(arg, scope)
        elif isinstance(expr, CreateList):
            for element in expr.elements:
                self.visit(element, scope)
        elif isinstance(expr, CreateMap):
            for key, value in expr.entries:
                self.visit(key, scope)
                self.visit(value, scope)
        elif isinstance(expr, Comprehension):
            self._comprehension(expr, scope)

    def _comprehension(self, expr: Comprehension, scope: Mapping[str, _Path | None]) -> None:
        iterated = self._path(expr.iter_range, scope)
        if iterated is None:
            self.visit(expr.iter_range, scope)
            item: _Path | None = None
        else:
            item = (iterated[0], (*iterated[1], _ITEMS))
            self.needs.setdefault(item[0], Need()).at(item[1])  # every item is kept
        inner = dict(scope)
        if expr.iter_var2 is None:
            inner[expr.iter_var] = item
        else:  # (index or key, item or value)
            inner[expr.iter_var], inner[expr.iter_var2] = None, item
        self.visit(expr.accu_init, scope)
        inner[expr.accu_var] = None
        for part in (expr.loop_condition, expr.loop_step, expr.result):
            self.visit(part, inner)
