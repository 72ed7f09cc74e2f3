"""CEL's runtime cost limits as kube enforces them: cel-go's actual cost of one evaluation
(``interpreter/runtimecost.go``'s ``CostTracker`` with kube's ``library.CostEstimator.CallCost``
and ``PresenceTestHasCost(false)``), counted on ``syntax``'s tree of the expression over the
values it is evaluated with, and the budgets kube spends it from (``CostBudget``).

The engine evaluates an expression; this module only counts what cel-go's evaluation of it
would cost, and only when the count can matter. ``CostBudget.spend`` first bounds the cost
from above without evaluating anything: ``cost_bound``, a polynomial in the largest size (a
string's, a list's, a map's) the expression reads, worked out once per expression
(``_Bounder``: each node's cost as ``_Counter`` counts it, both branches of a short-circuit,
every element of a comprehension), taken at a size known beforehand (a CRD rule's: what its
schema declares) or measured on what it reads of its variables (``largest_size``: fields
followed, what is iterated bounded by its JSON length). While the bounds of what a budget has
waved through fit in what is left of it and each under the per-call limit, nothing is counted;
kube's errors need the exact cost only once the budget may run out, and the evaluations waved
through are then counted, in order. An expression whose bound does not depend on its values
(most: no comprehension, sizes compared only with literals) measures nothing. Counting is an
evaluation in Python, about 0.8 µs a unit of cost where cel-go spends 0.1 µs (kube's "roughly
0.1 second" for the per-call limit): an evaluation cancelled at the per-call limit takes ~0.8 s
here, a budget of 10 million spent by comprehensions up to ~8 s (spent by calls priced by their
arguments' sizes, ``matches`` on long strings, a fraction of that).

How cel-go counts (v0.26, kube 1.35's), which ``_Counter`` follows step by step:

- a variable, and each attribute of one (``self``, ``self.a.b``: the variable, then one per
  field or index selected): 1 each; a field of a computed value (``f(x).a``) one more (the
  relative attribute); an optional selection (``x.?a``, ``x[?k]``) only when present;
  ``has(x.a)`` costs its selections, not the variable (kube's ``PresenceTestHasCost(false)``);
  literals and the type names cost nothing;
- constants are folded (``OptOptimize``): list and map literals of constants and conversions of
  a constant (``int('1')``, ``duration('1s')``) cost nothing, otherwise a list costs 10 and a
  map 30 besides their elements; ``x in [constants]`` is a set lookup that costs nothing but
  ``x`` (``x in []`` nothing at all);
- ``&&``, ``||`` and ``?:`` cost only their operands, evaluated as cel-go does (``&&`` stops at
  a false operand, an error does not stop it);
- a call: its arguments (all evaluated, even past an error), then kube's cost of the function
  where it has one (``CallCost``), else cel-go's: a tenth of the smaller operand's size for
  ``==``, ``!=`` and string orderings, a tenth of both for string concatenation, the list's size
  for ``in``, ``matches`` and ``contains`` the product of their two traversals, 1 otherwise;
- a comprehension: its range, its accumulator's start, then per element its condition and its
  step until the condition is false, then its result.

Where the count may differ from cel-go's, and why: the order of cel-go's steps is followed, so
the cost at which an evaluation is cancelled (past the per-call limit, which kube then takes
from the budget) is cel-go's except within a step's own cost; a value computed here by Python
(a regex's match, a function of kube's library) that differs from cel-go's changes what follows
it, as it changes the engine's result. Not counted (``NotCounted``: the evaluation is then not
limited, as before this module): ext lists' and sets' functions (cel-go prices them by their
own trackers), ``containsIP``/``containsCIDR``, the format library's ``validate``, the
timestamp and duration accessors, the authorizer library (``admission`` counts its checks),
``sortBy`` and what ``syntax`` does not parse.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson

from .library import KUBE_LIBRARY, NAMESPACES, LibraryError
from .projection import Need
from .rust import interpreter
from .syntax import Call, Comprehension, CreateList, CreateMap, Expr, Ident, Literal, NotParsed, Select, parse

#: cel-go's cancellation, the error text kube matches (``EvalCancelledError``).
LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
#: ``celconfig``: one expression's limit, a CRD object's or a policy binding's budget, and the
#: budget of a webhook's matchConditions.
PER_CALL_LIMIT = 1_000_000
RUNTIME_BUDGET = 10_000_000
MATCH_CONDITIONS_BUDGET = 2_500_000
#: ``common.StringTraversalCostFactor``, ``RegexStringLengthCostFactor``.
_TRAVERSAL, _REGEX = 0.1, 0.25
_LIST_CREATE, _MAP_CREATE = 10, 30
_CONVERSIONS = frozenset(("bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint"))
_TYPE_NAMES = frozenset(("int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type"))
_ORDERINGS = frozenset(("_<_", "_<=_", "_>_", "_>=_"))
#: kube's functions of cost 1 (``CallCost``'s nominal cases).
_NOMINAL = frozenset((
    "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
    "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan",
    "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch", "getScheme", "getHostname", "getHost",
    "getPort", "getEscapedPath", "getQuery"))
#: kube's functions that cost a traversal of their first argument (a string's), and twice that.
_ONE_TRAVERSAL = frozenset(("url", "lowerAscii", "upperAscii", "substring", "trim", "cidr", "isIP", "isCIDR", "quantity",
                            "isQuantity", "semver", "isSemver", "ip"))
_TWO_TRAVERSALS = frozenset(("replace", "split", "ip.isCanonical"))
#: kube's functions that cost ``traversalCost`` of their receiver.
_WALKING = frozenset(("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"))
#: cel-go's functions that cost a traversal of their first argument.
_TRAVERSING = frozenset(("startsWith", "endsWith", "format", "strings.quote", "string", "bytes"))
_NOT_COUNTED = frozenset((
    "containsIP", "containsCIDR", "reverse", "sort", "distinct", "flatten", "slice", "first", "last", "lists.range",
    "sets.contains", "sets.equivalent", "sets.intersects", "check", "serviceAccount", "path", "group", "resource",
    "subresource", "namespace", "name", "allowed", "reason", "error", "errored", "fieldSelector", "labelSelector",
    "@sortByAssociatedKeys", "validate"))


#: kube's error when an evaluation's cost passes what is left of the budget.
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


class NotCounted(ValueError):
    """An expression (or a value) outside what this module counts."""


class CostLimitExceeded(Exception):
    """cel-go's cancellation past the per-call limit; ``cost`` is what it had counted then (what
    kube takes from the budget)."""

    def __init__(self, cost: int) -> None:
        super().__init__(LIMIT_EXCEEDED)
        self.cost = cost


class OutOfBudget(Exception):
    """An evaluation that cost more than was left of the budget (``OUT_OF_BUDGET``)."""

    def __init__(self) -> None:
        super().__init__(OUT_OF_BUDGET)


@dataclass(frozen=True)
class _Error:
    """A CEL error value: cel-go evaluates on past one (``a && b`` evaluates ``b`` when ``a``
    fails; a call's arguments are all evaluated, then priced, before it fails)."""

    message: str


def _is_kube_type(value: Any) -> bool:
    """A value of kube's library (a quantity, an IP...): fakeapi's single-key ``@kubernetes.`` maps."""
    return isinstance(value, dict) and len(value) == 1 and str(next(iter(value))).startswith("@kubernetes.")


def _size(value: Any) -> int:
    """``actualSize``: a string's code points, bytes', a list's or a map's entries; 1 otherwise
    (a scalar, an error, kube's types)."""
    if isinstance(value, (str, bytes, list)) or (isinstance(value, dict) and not _is_kube_type(value)):
        return len(value)
    return 1


def _traversal(value: Any, factor: float = _TRAVERSAL) -> int:
    return math.ceil(_size(value) * factor)


def _walk_cost(value: Any) -> int:
    """kube's ``traversalCost``: a string's bytes by a tenth (rounded down), a list's and a map's
    entries', 1 for anything else."""
    if isinstance(value, str):
        return int(len(value.encode()) * _TRAVERSAL)
    if isinstance(value, bytes):
        return int(len(value) * _TRAVERSAL)
    if isinstance(value, list):
        return sum(_walk_cost(item) for item in value)
    if isinstance(value, dict):
        return sum(_walk_cost(key) + _walk_cost(item) for key, item in value.items())
    return 1


def _is_constant(expr: Expr) -> bool:
    """What cel-go's ``OptOptimize`` folds into a constant (which then costs nothing)."""
    if isinstance(expr, Literal):
        return True
    if isinstance(expr, Ident):
        return expr.name in _TYPE_NAMES
    if isinstance(expr, CreateList):
        return all(_is_constant(element) for element in expr.elements)
    if isinstance(expr, CreateMap):
        return all(_is_constant(key) and _is_constant(value) for key, value in expr.entries)
    return (isinstance(expr, Call) and expr.target is None and expr.function in _CONVERSIONS and len(expr.args) == 1
            and _is_constant(expr.args[0]))


def _set_lookup(expr: Call) -> list[Any] | None:
    """The constants of ``x in [constants]`` (bool, int, uint, double, string), which cel-go
    plans as a lookup in a set costing nothing itself (``[]``: a constant false, ``x`` not even
    read); None for any other ``in``."""
    listed = expr.args[1]
    if isinstance(listed, CreateList) and all(
            isinstance(element, Literal) and element.kind in ("bool", "int", "uint", "double", "string")
            for element in listed.elements):
        return [element.value for element in listed.elements]  # type: ignore[attr-defined]
    return None


def _is_attribute(expr: Expr) -> bool:
    """Whether cel-go plans ``expr`` as an attribute a selection qualifies (a variable, or a
    selection or index of one); a selection of anything else makes a relative attribute."""
    while True:
        if isinstance(expr, Ident):
            return True
        if isinstance(expr, Select) and not expr.test_only:
            expr = expr.operand
        elif isinstance(expr, Call) and expr.function in ("_[_]", "_[?_]", "_?._") and expr.target is None:
            expr = expr.args[0]
        else:
            return False


def _optional() -> Any:
    return interpreter().OptionalValue


def _is_optional(value: Any) -> bool:
    return isinstance(value, interpreter().OptionalValue)


class _Counter:
    """One evaluation's cost, counted as cel-go's ``CostTracker`` counts it, cancelled past
    ``limit``; the expression's values are computed along (what the count depends on)."""

    def __init__(self, variables: Mapping[str, Any], limit: int) -> None:
        self.variables = variables
        self.limit = limit
        self.cost = 0
        self.locals: dict[str, list[Any]] = {}

    def charge(self, amount: int) -> None:
        self.cost += amount
        if self.cost > self.limit:
            raise CostLimitExceeded(self.cost)

    def value(self, expr: Expr, observed: bool = True) -> Any:
        """``expr``'s value, its cost counted; not ``observed``: an attribute resolved by what
        holds it (a ternary's branch, an index's key, ``has()``'s operand), which cel-go does
        not observe: its selections cost, not the attribute itself."""
        if isinstance(expr, Literal):
            return expr.value
        if isinstance(expr, Ident):
            return self.ident(expr, observed)
        if isinstance(expr, Select):
            return self.select(expr, observed)
        if isinstance(expr, Call):
            return self.call(expr, observed)
        if isinstance(expr, CreateList):
            elements = [self.value(element) for element in expr.elements]
            return self.create(expr, [element for index, element in enumerate(elements)
                                      for element in _entry(element, index in expr.optional_indices)], _LIST_CREATE)
        if isinstance(expr, CreateMap):
            entries = [(self.value(key), self.value(value)) for key, value in expr.entries]
            return self.create(expr, {key: value for index, (key, entry) in enumerate(entries)
                                      for value in _entry(entry, index in expr.optional_indices)}, _MAP_CREATE)
        if isinstance(expr, Comprehension):
            return self.comprehension(expr)
        raise NotCounted(type(expr).__name__)

    def create(self, expr: Expr, value: Any, cost: int) -> Any:
        if not _is_constant(expr):
            self.charge(cost)
        return value

    def ident(self, expr: Ident, observed: bool) -> Any:
        stack = self.locals.get(expr.name)
        if stack:
            value = stack[-1]
        elif expr.name in self.variables:
            value = self.variables[expr.name]
        elif expr.name in _TYPE_NAMES:
            return expr.name
        else:
            raise NotCounted(f"identifier {expr.name}")
        if observed:
            self.charge(1)
        return value

    def operand(self, expr: Expr, observed: bool) -> Any:
        """The value a selection or an index qualifies: an attribute's, or a computed one's
        (the relative attribute made of it is observed too, when ``observed``)."""
        if _is_attribute(expr):
            return self.value(expr, observed)
        value = self.value(expr)
        if observed:
            self.charge(1)
        return value

    def select(self, expr: Select, observed: bool) -> Any:
        if expr.test_only:
            # has(x.a): the presence test itself is free (kube), x.a's selections are not
            value = self.operand(expr.operand, observed=False)
            if isinstance(value, _Error):
                return value
            self.charge(1)
            return expr.field in value if isinstance(value, dict) else _Error("no such overload")
        value = self.operand(expr.operand, observed)
        if isinstance(value, _Error):
            return value  # an attribute stops at its first failing selection
        self.charge(1)
        return _field(value, expr.field)

    def call(self, expr: Call, observed: bool) -> Any:
        function = expr.function
        if function in _NOT_COUNTED:
            raise NotCounted(function)
        if function in ("_&&_", "_||_"):
            return self.logical(expr.args, function == "_||_")
        if function == "_?_:_":
            condition = self.value(expr.args[0])
            if condition is True or condition is False:
                return self.value(expr.args[1] if condition else expr.args[2], observed=False)
            return condition if isinstance(condition, _Error) else _Error("no such overload")
        if function in ("_[_]", "_[?_]", "_?._"):
            container = self.operand(expr.args[0], observed)
            key = self.value(expr.args[1], observed=False)
            if isinstance(container, _Error):
                return container
            found = _index(container, key, optional=function != "_[_]")
            if function == "_[_]" or (_is_optional(found) and found.has_value()):
                self.charge(1)  # (cel-go observes an optional selection only when present)
            return found
        if function in ("or", "orValue") and expr.target is not None and len(expr.args) == 1:
            # cel-go's optional library plans these as short-circuits, not calls: they cost
            # their receiver, and their argument only when the receiver holds no value
            receiver = self.value(expr.target)
            if not _is_optional(receiver):
                return receiver
            if receiver.has_value():
                return receiver if function == "or" else receiver.value()
            return self.value(expr.args[0])
        if _is_constant(expr):
            return _apply(function, [self.value(arg) for arg in expr.args])
        if function == "@in" and (constants := _set_lookup(expr)) is not None:
            return bool(constants) and _apply(function, [self.value(expr.args[0]), constants])
        target = expr.target
        if isinstance(target, Ident) and target.name in NAMESPACES and not self.locals.get(target.name) \
                and target.name not in self.variables:
            function, target = f"{target.name}.{function}", None
        receiver = [] if target is None else [self.value(target)]
        args = receiver + [self.value(arg) for arg in expr.args]
        result = _apply(function, args)
        self.charge(_call_cost(function, target is not None, args, result))
        return result

    def logical(self, terms: Sequence[Expr], is_or: bool) -> Any:
        """``&&``/``||``: each term until one decides (false for ``&&``, true for ``||``); an
        error is the result if no term decides."""
        error: Any = None
        for term in terms:
            value = self.value(term)
            if value is is_or:
                return is_or
            if value is not (not is_or):
                error = error or (value if isinstance(value, _Error) else _Error("no such overload"))
        return error if error is not None else (not is_or)

    def comprehension(self, expr: Comprehension) -> Any:
        iterated = self.value(expr.iter_range)
        if isinstance(iterated, _Error):
            return iterated
        if isinstance(iterated, dict):
            pairs = list(iterated.items())
        elif isinstance(iterated, list):
            pairs = list(enumerate(iterated))
        else:
            return _Error("no such overload")
        accumulator = self.value(expr.accu_init)
        names = [expr.accu_var, expr.iter_var] + ([expr.iter_var2] if expr.iter_var2 else [])
        for name in names:
            self.locals.setdefault(name, []).append(None)
        try:
            accu = self.locals[expr.accu_var]
            accu[-1] = accumulator
            for key, item in pairs:
                if expr.iter_var2:
                    self.locals[expr.iter_var][-1], self.locals[expr.iter_var2][-1] = key, item
                else:
                    self.locals[expr.iter_var][-1] = item if isinstance(iterated, list) else key
                if self.value(expr.loop_condition) is False:
                    break
                accu[-1] = self.value(expr.loop_step)
            # the iteration variables are out of scope in the result
            for name in names[1:]:
                self.locals[name].pop()
            names = names[:1]
            return self.value(expr.result)
        finally:
            for name in names:
                self.locals[name].pop()


def _entry(value: Any, optional: bool) -> list[Any]:
    """A literal's entry: ``value``, or for one marked optional (``[?x]``) its optional's value
    if it has one (a value not optional: cel-go's error)."""
    if not optional:
        return [value]
    if not _is_optional(value):
        raise NotCounted("an optional entry that is no optional")
    return [value.value()] if value.has_value() else []


def _field(value: Any, name: str) -> Any:
    if isinstance(value, _Error):
        return value
    if isinstance(value, dict):
        return value[name] if name in value else _Error(f"no such key: {name}")
    return _Error("no such overload")


def _index(container: Any, key: Any, optional: bool) -> Any:
    if isinstance(container, _Error):
        return container
    if isinstance(key, _Error):
        return key
    if _is_optional(container):
        if not container.has_value():
            return container
        container = container.value()
    if isinstance(container, list) and isinstance(key, (int, float)) and not isinstance(key, bool):
        found = 0 <= key < len(container) and int(key) == key
        item = container[int(key)] if found else _Error(f"index out of bounds: {key}")
    elif isinstance(container, dict):
        found = key in container
        item = container[key] if found else _Error(f"no such key: {key}")
    else:
        return _Error("no such overload")
    if optional:
        return _optional().of(item) if found else _optional().none()
    return item


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) != isinstance(right, bool):
        return False
    return bool(left == right)


def _apply(function: str, args: list[Any]) -> Any:
    """The value of a call (an error value when an argument is one, or when it fails)."""
    for arg in args:
        if isinstance(arg, _Error) and function != "@not_strictly_false":
            return arg
    try:
        return _APPLY[function](*args) if function in _APPLY else _library(function, args)
    except (LibraryError, TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError, re.error) as error:
        return _Error(str(error))


def _library(function: str, args: list[Any]) -> Any:
    implementation = KUBE_LIBRARY.get(function)
    if implementation is None:
        raise NotCounted(function)
    return implementation(*args)


def _call_cost(function: str, member: bool, args: list[Any], result: Any) -> int:
    """A call's own cost: kube's ``CallCost`` where it prices the function, else cel-go's
    ``costCall`` (``args``: the receiver first)."""
    if function in _NOMINAL or (function == "ip" and member):
        return 1
    if function in _ONE_TRAVERSAL:
        return _traversal(args[0])
    if function in _TWO_TRAVERSALS:
        return _traversal(args[0], 2 * _TRAVERSAL)
    if function == "join":
        return _traversal(result, 2 * _TRAVERSAL)
    if function in ("find", "findAll") or (function == "matches" and member and isinstance(args[0], str)):
        return math.ceil((1 + _size(args[0])) * _TRAVERSAL) * math.ceil(_size(args[1]) * _REGEX)
    if function in _WALKING:
        return _walk_cost(args[0])
    if function == "_==_" and _is_kube_type(args[0]):
        return 1
    if function in ("_==_", "_!=_") or (function in _ORDERINGS and isinstance(args[0], (str, bytes))):
        return math.ceil(min(_size(args[0]), _size(args[1])) * _TRAVERSAL)
    if function == "_+_" and isinstance(args[0], (str, bytes)):
        return math.ceil((_size(args[0]) + _size(args[1])) * _TRAVERSAL)
    if function == "@in" and isinstance(args[1], list):
        return _size(args[1])
    if function == "contains" and member and isinstance(args[0], str):
        return _traversal(args[0]) * _traversal(args[1])
    if function in ("string", "bytes"):
        # cel-go prices only the conversions between strings and bytes
        return _traversal(args[0]) if isinstance(args[0], bytes if function == "string" else str) else 1
    if function in _TRAVERSING:
        return _traversal(args[0])
    return 1


def _arithmetic(operation: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def apply(left: Any, right: Any) -> Any:
        if isinstance(left, bool) or isinstance(right, bool):
            raise TypeError("no such overload")
        return operation(left, right)
    return apply


def _divide(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int):
        if right == 0:
            raise ZeroDivisionError("division by zero")
        quotient = abs(left) // abs(right)
        return quotient if (left >= 0) == (right >= 0) else -quotient
    return left / right


def _modulo(left: Any, right: Any) -> Any:
    if right == 0:
        raise ZeroDivisionError("modulus by zero")
    return int(math.fmod(left, right))


def _in(item: Any, container: Any) -> bool:
    if isinstance(container, list):
        return any(_equal(item, element) for element in container)
    if isinstance(container, dict):
        return item in container
    raise TypeError("no such overload")


def _convert_int(value: Any) -> int:
    if isinstance(value, datetime):
        return int(value.timestamp())
    return int(value)


def _convert_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes):
        return value.decode()
    return str(value)


def _type_of(value: Any) -> str:
    for python_type, name in ((bool, "bool"), (int, "int"), (float, "double"), (str, "string"), (bytes, "bytes"),
                              (list, "list"), (dict, "map"), (type(None), "null_type")):
        if isinstance(value, python_type):
            return name
    return type(value).__name__


#: The values of CEL's standard functions and macros' helpers (kube's library: ``KUBE_LIBRARY``).
_APPLY: dict[str, Callable[..., Any]] = {
    "_==_": _equal, "_!=_": lambda a, b: not _equal(a, b), "!_": lambda a: not a if isinstance(a, bool) else _Error("no such overload"),
    "-_": lambda a: -a, "_<_": lambda a, b: a < b, "_<=_": lambda a, b: a <= b, "_>_": lambda a, b: a > b,
    "_>=_": lambda a, b: a >= b, "_+_": _arithmetic(lambda a, b: a + b), "_-_": _arithmetic(lambda a, b: a - b),
    "_*_": _arithmetic(lambda a, b: a * b), "_/_": _divide, "_%_": _modulo, "@in": _in,
    "@not_strictly_false": lambda a: a is not False, "size": len, "contains": lambda s, t: t in s,
    "startsWith": lambda s, t: s.startswith(t), "endsWith": lambda s, t: s.endswith(t),
    "matches": lambda s, pattern: re.search(pattern, s) is not None, "int": _convert_int, "uint": _convert_int,
    "double": float, "string": _convert_string, "bool": lambda a: a if isinstance(a, bool) else a == "true",
    "bytes": lambda a: a.encode() if isinstance(a, str) else bytes(a), "dyn": lambda a: a, "type": _type_of,
    "duration": lambda a: a if isinstance(a, timedelta) else timedelta(), "timestamp": lambda a: a,
    "hasValue": lambda o: o.has_value(), "value": lambda o: o.value(), "optional.of": lambda a: _optional().of(a),
    "optional.none": lambda: _optional().none(),
    "optional.ofNonZeroValue": lambda a: _optional().of(a) if a not in (0, "", b"", [], {}, False, None, 0.0) else _optional().none(),
    "cel.@mapInsert": lambda m, *entry: {**m, **(entry[0] if len(entry) == 1 else {entry[0]: entry[1]})},
}


#: A polynomial in the largest size an expression reads (its coefficients, from degree 0);
#: None: no bound (the expression's cost is counted).
Polynomial = tuple[float, ...]
_ZERO: Polynomial = (0.0,)
_SIZE: Polynomial = (0.0, 1.0)


def _constant(value: float) -> Polynomial:
    return (float(value),)


def _plus(*terms: Polynomial) -> Polynomial:
    width = max((len(term) for term in terms), default=1)
    return tuple(sum(term[index] for term in terms if index < len(term)) for index in range(width))


def _times(left: Polynomial, right: Polynomial) -> Polynomial:
    product = [0.0] * (len(left) + len(right) - 1)
    for i, a in enumerate(left):
        for j, b in enumerate(right):
            product[i + j] += a * b
    return tuple(product)


def _most(*terms: Polynomial) -> Polynomial:
    """A bound of the largest of ``terms`` (each coefficient's largest: sizes are at least 1)."""
    width = max(len(term) for term in terms)
    return tuple(max(term[index] if index < len(term) else 0.0 for term in terms) for index in range(width))


def _least(left: Polynomial, right: Polynomial) -> Polynomial:
    """A bound of the smaller of two: the one of lower degree."""
    return left if len(left) <= len(right) else right


def _scaled(size: Polynomial, factor: float) -> Polynomial:
    """A bound of ``ceil(size * factor)``."""
    return _plus(_times(size, _constant(factor)), _constant(1))


@dataclass(frozen=True)
class _Bounds:
    """An expression's cost and the largest size of its value or of anything in it, as
    polynomials in the largest size (a string's, a list's or a map's) of what it reads."""

    cost: Polynomial | None
    size: Polynomial | None


_UNBOUNDED = _Bounds(None, None)


def _sum(*costs: Polynomial | None) -> Polynomial | None:
    return None if any(cost is None for cost in costs) else _plus(*costs)  # type: ignore[arg-type]


class _Bounder:
    """``_Bounds`` of each node: a cost at least cel-go's whatever the values (each node's cost
    as ``_Counter`` counts it, sizes at their largest, both branches of ``&&``, ``||``, ``?:``,
    every element of a comprehension)."""

    def __init__(self) -> None:
        self.locals: dict[str, list[Polynomial | None]] = {}

    def bounds(self, expr: Expr) -> _Bounds:
        if _is_constant(expr):
            return _Bounds(_ZERO, _constant(_literal_size(expr)))
        if isinstance(expr, Ident):
            stack = self.locals.get(expr.name)
            return _Bounds(_constant(1), stack[-1] if stack else _SIZE)
        if isinstance(expr, Select):
            operand = self.bounds(expr.operand)
            return _Bounds(_sum(operand.cost, _constant(2)), _constant(1) if expr.test_only else operand.size)
        if isinstance(expr, (CreateList, CreateMap)):
            parts = [self.bounds(part) for part in _parts(expr)]
            created = _constant(_LIST_CREATE if isinstance(expr, CreateList) else _MAP_CREATE)
            sizes = [part.size for part in parts]
            size = None if None in sizes else _most(_constant(len(parts)), *sizes)  # type: ignore[arg-type]
            return _Bounds(_sum(created, *(part.cost for part in parts)), size)
        if isinstance(expr, Comprehension):
            return self.comprehension(expr)
        assert isinstance(expr, Call)
        return self.call(expr)

    def call(self, expr: Call) -> _Bounds:
        function = expr.function
        if function in _NOT_COUNTED:
            return _UNBOUNDED
        if function == "@in" and _set_lookup(expr) is not None:
            return _Bounds(self.bounds(expr.args[0]).cost, _constant(1))
        operands = [self.bounds(arg) for arg in ([expr.target] if expr.target is not None else []) + expr.args]
        costs = _sum(*(operand.cost for operand in operands))
        sizes = [operand.size for operand in operands]
        if function in ("_&&_", "_||_", "_?_:_", "or", "orValue", "_[_]", "_[?_]", "_?._"):
            size = sizes[0] if function in ("_[_]", "_[?_]", "_?._") else sizes[-1]
            if function in ("_?_:_", "or", "orValue") and None not in sizes[-2:]:
                size = _most(*sizes[-2:])  # type: ignore[arg-type]
            return _Bounds(_sum(costs, _constant(2)), size)
        own = _call_cost_bound(function, sizes)
        return _Bounds(_sum(costs, own), _result_size(function, sizes))

    def comprehension(self, expr: Comprehension) -> _Bounds:
        iterated = self.bounds(expr.iter_range)
        start = self.bounds(expr.accu_init)
        count = iterated.size
        if count is None or start.size is None:
            return _UNBOUNDED
        variables = [name for name in (expr.iter_var, expr.iter_var2) if name]
        for name in variables:
            self.locals.setdefault(name, []).append(count)
        # the accumulator grows by an element a step at most (what a macro's step adds reads
        # the iteration variables, never the accumulator)
        added = self.added_sizes(expr.loop_step, expr.accu_var)
        if added is None:
            for name in variables:
                self.locals[name].pop()
            return _UNBOUNDED
        accumulated = _most(start.size, count, *added)
        self.locals.setdefault(expr.accu_var, []).append(accumulated)
        try:
            condition, step = self.bounds(expr.loop_condition), self.bounds(expr.loop_step)
            for name in variables:
                self.locals[name].pop()
            result = self.bounds(expr.result)
        finally:
            self.locals[expr.accu_var].pop()
        steps = _sum(condition.cost, step.cost)
        cost = _sum(iterated.cost, start.cost, None if steps is None else _times(count, steps), result.cost)
        return _Bounds(cost, None if result.size is None else _most(result.size, accumulated))

    def added_sizes(self, step: Expr, accumulator: str) -> list[Polynomial] | None:
        """The sizes of what a macro's step adds to its accumulator (``@result + [e]``, a map's
        insertion, either under a filter's ``?:``; a scalar for the quantifiers); None if
        unbounded."""
        if isinstance(step, Call) and step.function == "_?_:_":
            branches = [self.added_sizes(branch, accumulator) for branch in step.args[1:]]
            return None if None in branches else [size for branch in branches for size in branch]  # type: ignore[union-attr]
        if isinstance(step, Ident) and step.name == accumulator:
            return []
        if isinstance(step, Call) and isinstance(step.args[0], Ident) and step.args[0].name == accumulator:
            if step.function == "_+_" and isinstance(step.args[1], CreateList):
                parts = step.args[1].elements
            elif step.function == "cel.@mapInsert":
                parts = step.args[1:]
            else:
                return [_constant(1)]  # an int's or a bool's step
            sizes = [self.bounds(part).size for part in parts]
            return None if None in sizes else sizes  # type: ignore[return-value]
        return [_constant(1)]


def _parts(expr: CreateList | CreateMap) -> list[Expr]:
    if isinstance(expr, CreateList):
        return expr.elements
    return [part for entry in expr.entries for part in entry]


def _literal_size(expr: Expr) -> int:
    """The largest size in a constant (a literal's, a list's or map's, or one of theirs)."""
    if isinstance(expr, Literal):
        return _size(expr.value)
    if isinstance(expr, (CreateList, CreateMap)):
        parts = _parts(expr)
        return max([len(parts)] + [_literal_size(part) for part in parts])
    if isinstance(expr, Call):
        return max([32] + [_literal_size(arg) for arg in expr.args])  # a conversion: a number's digits at most
    return 1


#: Functions whose value may be larger than any of their operands, by how much the operands'
#: sizes do not tell (any other's is no larger than its largest operand, or a scalar).
_GROWING = frozenset(("replace", "join", "format", "strings.quote"))


def _result_size(function: str, sizes: list[Polynomial | None]) -> Polynomial | None:
    if None in sizes:
        return None
    if function in ("_+_", "cel.@mapInsert"):
        return _plus(*sizes, _constant(1))  # type: ignore[arg-type]
    if function == "string":  # a number's or a timestamp's digits, or a string's (bytes') own
        return _most(_constant(32), *sizes)  # type: ignore[arg-type]
    if function == "bytes":  # a code point takes 4 bytes at most
        return _most(_constant(32), *(_times(size, _constant(4)) for size in sizes))  # type: ignore[arg-type]
    if function in _GROWING:
        return None
    return _most(_constant(1), *sizes)  # type: ignore[arg-type]


def _call_cost_bound(function: str, sizes: list[Polynomial | None]) -> Polynomial | None:
    """A bound of ``_call_cost`` given its operands' sizes (the receiver's first)."""
    if function in _WALKING or function == "join":
        return None
    first = sizes[0] if sizes else _constant(1)
    second = sizes[1] if len(sizes) > 1 else _constant(1)
    if function in ("_==_", "_!=_") or function in _ORDERINGS:
        if first is None and second is None:
            return None
        return _scaled(first if second is None else second if first is None else _least(first, second), _TRAVERSAL)
    if first is None or second is None:
        return None
    if function in ("find", "findAll", "matches"):
        return _times(_scaled(_plus(first, _constant(1)), _TRAVERSAL), _scaled(second, _REGEX))
    if function == "contains":
        return _times(_scaled(first, _TRAVERSAL), _scaled(second, _TRAVERSAL))
    if function == "_+_":
        return _scaled(_plus(first, second), _TRAVERSAL)
    if function == "@in":
        return _plus(second, _constant(1))
    if function in _ONE_TRAVERSAL or function in _TWO_TRAVERSALS or function in _TRAVERSING:
        return _scaled(first, 2 * _TRAVERSAL)
    return _constant(1)


_BOUNDS: dict[str, Polynomial | None] = {}


def cost_bound(source: str) -> Polynomial | None:
    """A polynomial bounding the cost of ``source`` in the largest size it reads (None: none)."""
    if source not in _BOUNDS:
        try:
            _BOUNDS[source] = _Bounder().bounds(_tree(source)).cost
        except (NotCounted, RecursionError):
            _BOUNDS[source] = None
        if len(_BOUNDS) > 4096:
            _BOUNDS.clear()
    return _BOUNDS[source]


def largest_size(value: Any, need: Need, measured: dict[int, int] | None = None) -> int:
    """A bound of the largest size (a string's, a list's, a map's, a key's) in what ``need``
    reads of ``value`` (a variable's value: an optional's is its value's): the selected fields
    and a list's iterated items are followed, a value read whole (or a map iterated) is bounded
    by the length of its JSON (which holds each of its strings, keys and items at least once:
    serialized in C, not walked).
    ``measured``: those lengths by the value's id, kept while the values are (several
    expressions read the same values)."""
    if _is_optional(value):
        value = value.value() if value.has_value() else None
    return _largest_read(value, need, {} if measured is None else measured)


def _largest_read(value: Any, need: Need, measured: dict[int, int]) -> int:
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, dict) and not need.whole and need.items is None:
        largest = len(value)
        for name, child in need.fields.items():
            if name in value:
                largest = max(largest, _largest_read(value[name], child, measured))
        return largest
    if isinstance(value, list) and not need.whole and need.items is not None:
        # a list iterated: its length and what is read of each item (its JSON's length would
        # bound an item's strings by the whole list's, and a comprehension's bound is a product)
        largest = len(value)
        for item in value:
            largest = max(largest, _largest_read(item, need.items, measured))
        return largest
    if isinstance(value, (dict, list)):
        found = measured.get(id(value))
        if found is None:
            try:
                found = measured[id(value)] = len(orjson.dumps(value))
            except TypeError:  # (bytes in it: a CRD's format: byte)
                found = measured[id(value)] = _largest(value)
        return found
    return 1


def _largest(value: Any) -> int:
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, list):
        return max(len(value), max((_largest(item) for item in value), default=0))
    if isinstance(value, dict):
        return max(len(value), max((max(_largest(key), _largest(item)) for key, item in value.items()), default=0))
    return 1


def evaluate_bound(bound: Polynomial, size: int) -> float:
    value = 0.0
    for coefficient in reversed(bound):
        value = value * size + coefficient
    return value


@functools.lru_cache(maxsize=8192)
def _known_bound(source: str, size: int | None) -> float | None:
    """``cost_bound(source)`` where no size need be measured for it: a constant bound, or one
    at a ``size`` known beforehand (each evaluation of a CRD rule is bounded by the same one);
    None otherwise (not countable, unbounded, or to be taken at a measured size). One lookup
    for what most evaluations need."""
    bound = cost_bound(source) if countable(source) else None
    if bound is None or (len(bound) > 1 and size is None):
        return None
    return evaluate_bound(bound, size or 1)


def actual_cost(source: str, variables: Mapping[str, Any], limit: int = PER_CALL_LIMIT) -> int:
    """cel-go's actual cost of evaluating ``source`` with ``variables``; ``CostLimitExceeded``
    once past ``limit``, ``NotCounted`` for what this module does not count."""
    counter = _Counter(variables, limit)
    try:
        counter.value(_tree(source))
    except (CostLimitExceeded, NotCounted):
        raise
    except Exception as error:  # noqa: BLE001 - a value Python computes otherwise than cel-go: never the request's failure
        raise NotCounted(f"{type(error).__name__}: {error}") from error
    return counter.cost


@functools.lru_cache(maxsize=4096)
def countable(source: str) -> bool:
    """Whether ``source`` parses and calls only functions this module counts (those it does not
    are known without evaluating: the expression is then never counted)."""
    try:
        tree = _tree(source)
    except NotCounted:
        return False
    pending = [tree]
    while pending:
        expr = pending.pop()
        if isinstance(expr, Call):
            function = expr.function
            if isinstance(expr.target, Ident) and expr.target.name in NAMESPACES:
                function = f"{expr.target.name}.{function}"
            if function in _NOT_COUNTED or not (function in _APPLY or function in KUBE_LIBRARY or function in _PLANNED):
                return False
            pending += expr.args + ([expr.target] if expr.target is not None else [])
        elif isinstance(expr, Select):
            pending.append(expr.operand)
        elif isinstance(expr, CreateList):
            pending += expr.elements
        elif isinstance(expr, CreateMap):
            pending += [part for entry in expr.entries for part in entry]
        elif isinstance(expr, Comprehension):
            pending += [expr.iter_range, expr.accu_init, expr.loop_condition, expr.loop_step, expr.result]
    return True


#: What cel-go plans as something else than a call of a function (``_Counter.call``).
_PLANNED = frozenset(("_&&_", "_||_", "_?_:_", "_[_]", "_[?_]", "_?._", "or", "orValue"))
_TREES: dict[str, Expr | NotParsed] = {}


def _tree(source: str) -> Expr:
    tree = _TREES.get(source)
    if tree is None:
        try:
            tree = parse(source)
        except (NotParsed, RecursionError):
            tree = NotParsed(source)
        if len(_TREES) > 4096:
            _TREES.clear()
        _TREES[source] = tree
    if isinstance(tree, NotParsed):
        raise NotCounted("not parsed")
    return tree


class CostBudget:
    """kube's ``remainingBudget``: what the expressions evaluated under it (a CRD object's rules,
    a policy binding's validations) have left to spend, each its actual cost, in order.

    ``spend`` takes an evaluation's cost, raising as kube fails: ``OutOfBudget`` when it is more
    than is left (nothing is left then), ``CostLimitExceeded`` past the per-call limit (its cost
    taken first). It counts no cost while the evaluations' bounds (``cost_bound`` at the largest
    size they read) fit in what is left: they are kept, and counted exactly (in order, each
    under its bound) only when a bound no longer fits, where kube's errors depend on the exact
    cost. Invariant: ``remaining`` minus the kept evaluations' actual costs is kube's remaining
    budget, and those costs sum to at most ``_kept_bound`` (<= ``remaining``)."""

    __slots__ = ("remaining", "_kept", "_kept_bound", "_measured")

    def __init__(self, budget: int = RUNTIME_BUDGET) -> None:
        self.remaining = budget
        self._kept: list[tuple[str, Mapping[str, Any]]] = []
        self._kept_bound = 0.0
        #: ``largest_size``'s lengths, by value (kept alive by ``_kept`` or the caller)
        self._measured: dict[int, int] = {}

    def exhausted(self) -> bool:
        """Whether nothing is left (kube runs no further rule then: ``remainingBudget <= 0``)."""
        if self._kept and self._kept_bound >= self.remaining:
            self._settle()
        return self.remaining <= 0

    def spend(self, source: str, variables: Mapping[str, Any], needs: Mapping[str, Need],
              largest: int | None = None) -> None:
        """Take the cost of evaluating ``source`` with ``variables`` (of which it reads ``needs``);
        ``largest``: a bound of the sizes it reads known beforehand (a schema's declared
        bounds), else they are measured (only when its cost bound depends on them)."""
        estimate = _known_bound(source, largest)
        if estimate is None:
            if not countable(source):
                return  # not limited (see the module's docstring)
            bound = cost_bound(source)
            if bound is not None:
                largest = 1
                for name, need in needs.items():
                    if name in variables:
                        largest = max(largest, largest_size(variables[name], need, self._measured))
                estimate = evaluate_bound(bound, largest)
        if estimate is not None and estimate <= PER_CALL_LIMIT and self._kept_bound + estimate <= self.remaining:
            self._kept.append((source, variables))
            self._kept_bound += estimate
            return
        self._settle()
        try:
            cost = actual_cost(source, variables)
        except CostLimitExceeded as exceeded:
            self._take(exceeded.cost)
            raise
        except NotCounted:
            return  # not limited (see the module's docstring)
        self._take(cost)

    def _settle(self) -> None:
        """Count the kept evaluations (each under the per-call limit and the budget: their
        bounds are)."""
        for source, variables in self._kept:
            try:
                self.remaining -= actual_cost(source, variables)
            except NotCounted:
                pass
        self._kept.clear()
        self._kept_bound = 0.0

    def _take(self, cost: int) -> None:
        if cost > self.remaining:
            self.remaining = -1
            raise OutOfBudget()
        self.remaining -= cost
