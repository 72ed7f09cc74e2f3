"""The static cost of a CRD validation rule, as kube-apiserver estimates it when a CRD is written:
cel-go's estimator (``checker/cost.go``) with kube's sizes and function costs
(``apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go``'s ``sizeEstimator``,
``apiserver/pkg/cel/library/cost.go``), over the types kube declares for the schema
(``apiserver/pkg/cel/common/schemas.go``'s ``SchemaDeclType``).

``types.decl_type(schema, resource_root)`` is the schema's type with kube's size bounds: a list's
``maxItems``, a map's ``maxProperties`` and a string's ``maxLength`` (times 4: a code point may
take 4 bytes), or, where the schema declares none, as many as the largest request (3 MiB) could
hold, given the smallest serialized size of each element (``estimateMaxArrayItemsFromMinSize``,
``estimateMaxAdditionalPropertiesFromMinSize``, ``estimateMaxStringLengthPerRequest``; an enum's
longest value bounds a string). ``max_cost(source, decl)`` is the largest cost cel-go estimates
for an expression over ``self``/``oldSelf`` of that type (``EstimateCost(...).Max``), or None
where this module does not cover the expression: the caller then accepts it, as before.
``types.max_cardinality(decl)`` is how many times a rule may run per request when its node's
ancestors do not bound it (``maxCardinality``).

The estimate follows cel-go's walk exactly, quirks included: each node's "path" from the
variable (``self.spec.items`` is ``[self, spec, items]``, an item of it ``[..., @items]``) is
what kube sizes by, so an element of a computed list (``self.l.map(x, x.s).all(y, ...)``'s
``y``) takes the size of the rule's own node, as in kube; a comprehension costs its range
times its step and condition; ``has`` costs nothing but its operand (kube's
``PresenceTestHasCost(false)``); an equality costs a tenth of its smaller operand's size.

Covered: literals, ``self``/``oldSelf`` (an optional with ``optionalOldSelf``), type names,
field selection, indexing, list and map literals (their optional entries, ``[?x]`` and
``{?k: v}``, sized as the optionals, typed as their values, as cel-go does), the operators,
``has``, the macros (``all``, ``exists``, ``exists_one``, ``map``, ``filter`` and the
two-variable comprehensions; a variable bound again inside a comprehension binding it is the
inner one there, each variable a stack of bindings, as cel-go's ``scopes``), ``size``,
the type conversions, ``dyn``, the string functions (``matches``, ``contains``, ``startsWith``,
``endsWith``, ``lowerAscii``, ``upperAscii``, ``trim``, ``substring``, ``replace``, ``split``,
``charAt``, ``indexOf``, ``lastIndexOf``), the list functions (``join``, ``isSorted``, ``sum``,
``min``, ``max``, ``indexOf``, ``lastIndexOf``), the regex library (``find``, ``findAll``), the
timestamp and duration accessors, optionals (``.?f``, ``[?i]``, ``hasValue``, ``value``,
``orValue``, ``or``, ``optional.of``/``none``, a list's ``first``/``last``, ``optional.unwrap``
and ``unwrapOpt``), ``x-kubernetes-int-or-string`` values (dyn: a
call keeps every overload the argument types allow, its cost their union, as cel-go's),
kube's quantity, URL, IP, CIDR, semver and format libraries, cel-go's ext lists (``sortBy``
included) and sets, ``optMap``/``optFlatMap``, string ``format`` and ``strings.quote``.
Not covered (None): indexing a dyn. cel-go's paths are Go slices that an ``append`` may share
between sibling nodes; this module keeps them apart, which differs from kube only in an index
whose key is a selection of the same comprehension variable (``x.a[x.b]``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .syntax import ACCUMULATOR, Call, Comprehension, CreateList, CreateMap, Expr, Ident, Literal, NotParsed, Select, parse
from .types import (BOOL, BYTES, DOUBLE, DURATION, DYN, INT, MAP_KEY, NULL, STRING, TIMESTAMP, TYPE, UINT, CelType,
                    DeclType, NotSelectable, field_type, type_of_decl)

_UINT64_MAX = 2**64 - 1
_TWO_TO_64 = float(2**64)
_STRING_TRAVERSAL = 0.1
_REGEX_LENGTH = 0.25
_LIST_CREATE, _MAP_CREATE = 10, 30
_UNKNOWN = (0, _UINT64_MAX)
class NotEstimated(ValueError):
    """An expression (or a part of it) outside what this module estimates."""


# kube's library types
_QUANTITY, _URL, _IP, _CIDR, _SEMVER, _FORMAT = (CelType("quantity"), CelType("url"), CelType("ip"), CelType("cidr"), CelType("semver"),
                                                 CelType("format"))
_NUMBERS = frozenset(("int", "uint", "double"))
_SCALARS = frozenset(("bool", "double", "duration", "int", "timestamp", "uint"))
_CONVERSIONS = {"int": INT, "uint": UINT, "double": DOUBLE, "string": STRING, "bool": BOOL, "bytes": BYTES,
                "duration": DURATION, "timestamp": TIMESTAMP, "type": TYPE}
_TIME_ACCESSORS = frozenset((
    "getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getHours", "getMinutes",
    "getSeconds", "getMilliseconds"))
#: The namespaces of global functions (``optional.of``, ``ip.isCanonical``, ``format.named``).
_NAMESPACES = frozenset(("optional", "ip", "format", "sets", "lists", "strings"))
#: kube's library functions: the arguments' kinds and the result, by function name (a member's
#: receiver first).
_LIBRARY_GLOBALS = {
    "quantity": _QUANTITY, "isQuantity": BOOL, "url": _URL, "isURL": BOOL, "ip": _IP, "isIP": BOOL,
    "ip.isCanonical": BOOL, "cidr": _CIDR, "isCIDR": BOOL, "semver": _SEMVER, "isSemver": BOOL,
    "format.named": CelType("optional", (_FORMAT,)),
}
_FORMAT_NAMES = frozenset(("dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
                           "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date",
                           "datetime"))
_LIBRARY_MEMBERS: dict[tuple[str, str], tuple[tuple[str, ...], CelType]] = {
    **{("quantity", name): ((), result) for name, result in (
        ("sign", INT), ("isInteger", BOOL), ("asInteger", INT), ("asApproximateFloat", DOUBLE))},
    **{("quantity", name): (("quantity",), result) for name, result in (
        ("isLessThan", BOOL), ("isGreaterThan", BOOL), ("compareTo", INT), ("add", _QUANTITY), ("sub", _QUANTITY))},
    ("quantity", "add_int"): (("int",), _QUANTITY), ("quantity", "sub_int"): (("int",), _QUANTITY),
    **{("url", name): ((), STRING) for name in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath")},
    ("url", "getQuery"): ((), CelType("map", (STRING, CelType("list", (STRING,))))),
    ("ip", "family"): ((), INT),
    **{("ip", name): ((), BOOL) for name in (
        "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast")},
    ("cidr", "ip"): ((), _IP), ("cidr", "masked"): ((), _CIDR), ("cidr", "prefixLength"): ((), INT),
    **{("semver", name): ((), INT) for name in ("major", "minor", "patch")},
    **{("semver", name): (("semver",), result) for name, result in (
        ("isLessThan", BOOL), ("isGreaterThan", BOOL), ("compareTo", INT))},
    ("format", "validate"): (("string",), CelType("optional", (CelType("list", (STRING,)),))),
}
#: The overloads kube's estimates tell apart.
_CONTAINS_OVERLOADS = {("containsIP", "string"): "cidr_contains_ip_string", ("containsIP", "ip"): "cidr_contains_ip_ip",
                       ("containsCIDR", "string"): "cidr_contains_cidr_string", ("containsCIDR", "cidr"): "cidr_contains_cidr"}
#: The identifiers that name types (``type(x) == int``).
_TYPE_NAMES = frozenset(("int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type"))
_ORDERINGS = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}


def _is_scalar(value: CelType) -> bool:
    """``isScalar``: the types whose values cel-go sizes 1 (an optional of one too)."""
    if value.kind == "optional":
        return _is_scalar(value.params[0])
    return value.kind in _SCALARS


def _add(left: int, right: int) -> int:
    return min(left + right, _UINT64_MAX)


def _multiply(left: int, right: int) -> int:
    return min(left * right, _UINT64_MAX)


def _by_factor(value: int, factor: float) -> int:
    """``multiplyByCostFactor``: Go's float arithmetic, saturating at 2^64-1."""
    product = float(value)
    if product > 0 and factor > 0 and product > _UINT64_MAX / factor:
        return _UINT64_MAX
    ceiling = math.ceil(product * factor)
    return _UINT64_MAX if ceiling >= _TWO_TO_64 else int(ceiling)


Range = tuple[int, int]


def _add_ranges(left: Range, right: Range) -> Range:
    return _add(left[0], right[0]), _add(left[1], right[1])


def _multiply_ranges(left: Range, right: Range) -> Range:
    return _multiply(left[0], right[0]), _multiply(left[1], right[1])


def _range_by_factor(value: Range, factor: float) -> Range:
    return _by_factor(value[0], factor), _by_factor(value[1], factor)


def _union(left: Range, right: Range) -> Range:
    return min(left[0], right[0]), max(left[1], right[1])


@dataclass(frozen=True)
class _EntrySize:
    """cel-go's ``entrySizeEstimate``: the container kind and its keys' and values' sizes."""

    container: str
    key: Range
    value: Range


def _union_entries(left: _EntrySize | None, right: _EntrySize | None) -> _EntrySize | None:
    if left is None or right is None:
        return None
    return _EntrySize(left.container, _union(left.key, right.key), _union(left.value, right.value))


@dataclass
class _LocalVar:
    path: list[str] | None
    size: Range | None
    entry: _EntrySize | None
    type: CelType


@dataclass
class _Node:
    """cel-go's ``AstNode``: what a function's estimator sees of an argument."""

    path: list[str] | None
    type: CelType
    expr: Expr | None
    computed_size: Range | None


class _Coster:
    """cel-go's ``coster`` with kube's size estimator and function costs, typing each node as
    it goes (cel-go's checker has typed them before)."""

    def __init__(self, root: DeclType, variables: Mapping[str, CelType]) -> None:
        self.root = root
        self.variables = variables
        self.paths: dict[Expr, list[str]] = {}
        self.types: dict[Expr, CelType] = {}
        self.sizes: dict[Expr, Range] = {}
        self.entry_sizes: dict[Expr, _EntrySize] = {}
        self.locals: dict[str, list[_LocalVar]] = {}

    # -- kube's sizeEstimator.EstimateSize: the size bound of the declared type at a path
    def estimate_size(self, path: Sequence[str] | None) -> Range | None:
        if not path:
            return None
        current = self.root
        for name in path[1:]:
            if name in ("@items", "@values"):
                if current.elem is None:
                    return None
                current = current.elem
            elif name == "@keys":
                if current.kind != "map":
                    return None
                current = MAP_KEY
            else:
                if current.kind != "object" or name not in current.fields:
                    return None
                current = current.fields[name]
        return 0, current.max_elements

    def cost(self, expr: Expr) -> Range:
        if isinstance(expr, Literal):
            self.types[expr] = {"int": INT, "uint": UINT, "double": DOUBLE, "string": STRING, "bytes": BYTES,
                                "bool": BOOL, "null": NULL}[expr.kind]
            return 0, 0
        if isinstance(expr, Ident):
            return self.cost_ident(expr)
        if isinstance(expr, Select):
            return self.cost_select(expr)
        if isinstance(expr, Call):
            return self.cost_call(expr)
        if isinstance(expr, CreateList):
            return self.cost_create_list(expr)
        if isinstance(expr, CreateMap):
            return self.cost_create_map(expr)
        if isinstance(expr, Comprehension):
            return self.cost_comprehension(expr)
        raise NotEstimated(type(expr).__name__)

    def peek(self, name: str) -> _LocalVar | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def path_of(self, expr: Expr) -> list[str] | None:
        if isinstance(expr, Ident) and (local := self.peek(expr.name)) is not None:
            return local.path
        return self.paths.get(expr)

    def cost_ident(self, expr: Ident) -> Range:
        local = self.peek(expr.name)
        if local is not None:
            if local.path is not None:
                self.paths[expr] = local.path
            self.types[expr] = local.type
        elif expr.name in self.variables or expr.name in _TYPE_NAMES:
            self.paths[expr] = [expr.name]
            self.types[expr] = self.variables.get(expr.name, TYPE)
        else:
            raise NotEstimated(f"identifier {expr.name}")
        return 1, 1

    def cost_select(self, expr: Select) -> Range:
        total = self.cost(expr.operand)
        operand = self.types[expr.operand]
        selected = field_type(operand, expr.field)
        if expr.test_only:  # kube: PresenceTestHasCost(false)
            self.types[expr] = BOOL
            return total
        self.types[expr] = selected
        self.paths[expr] = (self.path_of(expr.operand) or []) + [expr.field]
        # cel-go counts the selection of a map's or an object's field, not of a dyn's or an
        # optional's (whose field is optional)
        return _add_ranges(total, (1, 1)) if operand.kind in ("object", "map") else total

    def node(self, expr: Expr) -> _Node:
        path = self.path_of(expr)
        if path and path[0] == ACCUMULATOR:
            path = None
        return _Node(path, self.types[expr], expr, self.compute_size(expr))

    def cost_call(self, expr: Call) -> Range:
        if expr.function == "dyn" and expr.target is None and len(expr.args) == 1:
            argument = self.cost(expr.args[0])
            self.types[expr] = DYN
            self.copy_sizes(expr, expr.args[0])
            return _add_ranges((1, 1), argument)
        function, target_expr = expr.function, expr.target
        if isinstance(target_expr, Ident) and target_expr.name in _NAMESPACES and self.peek(target_expr.name) is None:
            # optional.of(x), ip.isCanonical(s): the checker resolves a qualified name to a global function
            function, target_expr = f"{target_expr.name}.{function}", None
        arg_costs = [self.cost(arg) for arg in expr.args]
        args = [self.node(arg) for arg in expr.args]
        total = (0, 0)
        target: _Node | None = None
        if target_expr is not None:
            total = self.cost(target_expr)
            target = self.node(target_expr)
        if function == "_?._":  # .?f: the field is the second argument, a string literal
            assert isinstance(expr.args[1], Literal)
            overloads, result_type = ("select_optional_field",), CelType("optional", (field_type(_unwrapped(args[0].type), expr.args[1].value),))
        else:
            overloads, result_type = _overloads(function, target.type if target else None, [a.type for a in args])
        self.types[expr] = result_type
        # each overload the checker kept (several where an argument is dyn), as cel-go unions them
        function_cost: Range = (_UINT64_MAX, 0)
        result_size: Range | None = None
        for overload in overloads:
            overload_cost, overload_size = self.function_cost(expr, function, overload, target, args, arg_costs)
            function_cost = _union(function_cost, overload_cost)
            if overload_size is not None:
                result_size = overload_size if result_size is None else _union(result_size, overload_size)
            if overload == "index_list" or overload == "index_map":
                entry = self.entry_size(expr.args[0])
                result_size = entry.value if entry is not None else None
                self.paths[expr] = (self.path_of(expr.args[0]) or []) + ["@items" if overload == "index_list" else "@values"]
            if result_size is None:
                result_size = self.compute_size(expr)
        if result_size is not None:
            self.sizes[expr] = result_size
        return _add_ranges(total, function_cost)

    def cost_create_list(self, expr: CreateList) -> Range:
        total = (0, 0)
        item_size = (0 if not expr.elements else _UINT64_MAX, 0)
        element_types = []
        for index, element in enumerate(expr.elements):
            total = _add_ranges(total, self.cost(element))
            # an optional element is sized as the optional, typed as its value
            item_size = _union(item_size, self.size_or_unknown(element))
            element_type = self.types[element]
            element_types.append(_unwrapped(element_type) if index in expr.optional_indices else element_type)
        self.types[expr] = CelType("list", (_common_type(element_types),))
        self.entry_sizes[expr] = _EntrySize("list", (1, 1), item_size)
        return _add_ranges(total, (_LIST_CREATE, _LIST_CREATE))

    def cost_create_map(self, expr: CreateMap) -> Range:
        total = (0, 0)
        empty = 0 if not expr.entries else _UINT64_MAX
        key_size, value_size = (empty, 0), (empty, 0)
        key_types, value_types = [], []
        for index, (key, value) in enumerate(expr.entries):
            total = _add_ranges(total, self.cost(key))
            total = _add_ranges(total, self.cost(value))
            key_size = _union(key_size, self.size_or_unknown(key))
            # an optional entry's value is sized as the optional, typed as its value
            value_size = _union(value_size, self.size_or_unknown(value))
            key_types.append(self.types[key])
            value_type = self.types[value]
            value_types.append(_unwrapped(value_type) if index in expr.optional_indices else value_type)
        self.types[expr] = CelType("map", (_common_type(key_types), _common_type(value_types)))
        self.entry_sizes[expr] = _EntrySize("map", key_size, value_size)
        return _add_ranges(total, (_MAP_CREATE, _MAP_CREATE))

    def cost_comprehension(self, expr: Comprehension) -> Range:
        if (isinstance(expr.iter_range, CreateList) and not expr.iter_range.elements and isinstance(expr.loop_condition, Literal)
                and expr.loop_condition.value is False and expr.accu_var != ACCUMULATOR):
            return self.cost_bind(expr)
        variables = [name for name in (expr.iter_var, expr.iter_var2) if name is not None]
        total = self.cost(expr.iter_range)
        total = _add_ranges(total, self.cost(expr.accu_init))
        range_type = self.types[expr.iter_range]
        if range_type.kind == "list":
            key_type, value_type = INT, range_type.params[0]
        elif range_type.kind == "map":
            key_type, value_type = range_type.params
        elif range_type.kind == "dyn":
            key_type, value_type = DYN, DYN
        else:
            raise NotEstimated(f"comprehension over {range_type.kind}")
        accumulator_type = self.types[expr.accu_init]
        self.push(expr.accu_var, expr.accu_init, accumulator_type)
        if expr.iter_var2 is None:
            self.push_iteration(expr.iter_var, expr.iter_range, value_type if range_type.kind == "list" else key_type)
        else:
            self.push_entry(expr.iter_var, expr.iter_range, key_type, key=True)
            self.push_entry(expr.iter_var2, expr.iter_range, value_type, key=False)
        loop = self.cost(expr.loop_condition)
        step = self.cost(expr.loop_step)
        for name in variables:
            self.locals[name].pop()
        total = _add_ranges(total, self.cost(expr.result))
        self.locals[expr.accu_var].pop()
        count = self.size_or_unknown(expr.iter_range)
        total = _add_ranges(total, _multiply_ranges(count, _add_ranges(step, loop)))
        # map, filter and the transforms accumulate a list or a map (the step's type); the
        # quantifiers yield their result
        accumulates = isinstance(expr.accu_init, (CreateList, CreateMap))
        self.types[expr] = self.types[expr.loop_step] if accumulates else self.types[expr.result]
        if isinstance(expr.accu_init, Literal):
            if (size := self.compute_size(expr.accu_init)) is not None:
                self.sizes[expr] = size
        elif isinstance(expr.accu_init, (CreateList, CreateMap)):
            self.sizes[expr] = count
            if (step_entry := self.entry_size(expr.loop_step)) is not None:
                self.entry_sizes[expr] = step_entry
        return total

    def cost_bind(self, expr: Comprehension) -> Range:
        """``costBind``: a variable bound to a value for the result (no iteration)."""
        total = _add_ranges(self.cost(expr.iter_range), self.cost(expr.accu_init))
        self.push(expr.accu_var, expr.accu_init, self.types[expr.accu_init])
        total = _add_ranges(total, self.cost(expr.result))
        self.locals[expr.accu_var].pop()
        self.types[expr] = self.types[expr.result]
        self.copy_sizes(expr, expr.result)
        return total

    def push(self, name: str, expr: Expr, value_type: CelType) -> None:
        local = _LocalVar(self.path_of(expr), self.compute_size(expr), self.entry_size(expr), value_type)
        self.locals.setdefault(name, []).append(local)

    def push_iteration(self, name: str, range_expr: Expr, element_type: CelType) -> None:
        """``pushIterSingle``: a list's items (``@items``) or a map's keys (``@keys``)."""
        entry = self.entry_size(range_expr)
        container = entry.container if entry is not None else self.types[range_expr].kind
        if container == "list":
            size, subpath = (entry.value if entry is not None else None), "@items"
        else:
            size, subpath = (entry.key if entry is not None else None), "@keys"
        path = (self.path_of(range_expr) or []) + [subpath]
        self.locals.setdefault(name, []).append(_LocalVar(path, size, None, element_type))

    def push_entry(self, name: str, range_expr: Expr, variable_type: CelType, key: bool) -> None:
        """``pushIterKey``/``pushIterValue``: a list's indices (``@indices``) and items, or a
        map's keys and values (``@values``)."""
        entry = self.entry_size(range_expr)
        container = entry.container if entry is not None else self.types[range_expr].kind
        size = (entry.key if key else entry.value) if entry is not None else None
        if container == "list":
            subpath = "@indices" if key else "@items"
        else:
            subpath = "@keys" if key else "@values"
        path = (self.path_of(range_expr) or []) + [subpath]
        self.locals.setdefault(name, []).append(_LocalVar(path, size, None, variable_type))

    def compute_size(self, expr: Expr) -> Range | None:
        if expr in self.sizes:
            return self.sizes[expr]
        if (size := _expr_size(expr)) is not None:
            return size
        if (size := self.estimate_size(self.path_of(expr))) is not None:
            self.sizes[expr] = size
            return size
        if _is_scalar(self.types[expr]):
            return 1, 1
        if isinstance(expr, Ident) and (local := self.peek(expr.name)) is not None and local.size is not None:
            return local.size
        return None

    def entry_size(self, expr: Expr) -> _EntrySize | None:
        if expr in self.entry_sizes:
            return self.entry_sizes[expr]
        if isinstance(expr, Ident) and (local := self.peek(expr.name)) is not None:
            return local.entry
        return None

    def copy_sizes(self, destination: Expr, source: Expr) -> None:
        if (size := self.compute_size(source)) is not None:
            self.sizes[destination] = size
        if (entry := self.entry_size(source)) is not None:
            self.entry_sizes[destination] = entry

    def size_or_unknown(self, value: Expr | _Node) -> Range:
        size = value.computed_size if isinstance(value, _Node) else self.compute_size(value)
        return size if size is not None else _UNKNOWN

    # -- kube's CostEstimator.sizeEstimate and listElementNode
    def kube_size(self, value: _Node) -> Range:
        if value.computed_size is not None:
            return value.computed_size
        size = self.estimate_size(value.path)
        return size if size is not None else _UNKNOWN

    def list_element(self, value: _Node) -> _Node | None:
        if value.type.kind != "list" or not value.type.params:
            return None
        path = value.path + ["@items"] if value.path else None
        return _Node(path, value.type.params[0], None, None)

    def function_cost(self, expr: Call, function: str, overload: str, target: _Node | None, args: list[_Node],
                      arg_costs: list[Range]) -> tuple[Range, Range | None]:
        argument_sum = (0, 0)
        for cost in arg_costs:
            argument_sum = _add_ranges(argument_sum, cost)
        # cel-go asks the libraries' overload estimators first, then kube's estimator
        estimate = self.extension_call_cost(overload, target, args)
        if estimate is None:
            estimate = self.kube_call_cost(function, overload, target, args)
        if estimate is not None:
            return _add_ranges(estimate[0], argument_sum), estimate[1]
        if overload in ("string_to_bytes", "bytes_to_string"):
            size = self.size_or_unknown(args[0])
            result = (size[0], _multiply(size[1], 4)) if overload == "string_to_bytes" else (size[0] // 4, size[1])
            return _add_ranges(_range_by_factor(size, _STRING_TRAVERSAL), argument_sum), result
        if overload == "string_format" and target is not None:
            return _add_ranges(_range_by_factor(self.size_or_unknown(target), _STRING_TRAVERSAL), argument_sum), None
        if overload == "strings_quote" and len(args) == 1:
            size = self.size_or_unknown(args[0])
            result = _add(size[0], 2), _add(_multiply(size[1], 2), 2)
            return _add_ranges(_range_by_factor(size, _STRING_TRAVERSAL), argument_sum), result
        if overload in ("starts_with_string", "ends_with_string"):
            return _add_ranges(_range_by_factor(self.size_or_unknown(args[0]), _STRING_TRAVERSAL), argument_sum), None
        if overload == "in_list":
            return _add_ranges(_range_by_factor(self.size_or_unknown(args[1]), 1), argument_sum), None
        if overload == "matches_string":
            assert target is not None
            string_cost = _range_by_factor(_add_ranges(self.size_or_unknown(target), (1, 1)), _STRING_TRAVERSAL)
            regex_cost = _range_by_factor(self.size_or_unknown(args[0]), _REGEX_LENGTH)
            return _add_ranges(_multiply_ranges(string_cost, regex_cost), argument_sum), None
        if overload == "contains_string":
            assert target is not None
            string_cost = _range_by_factor(self.size_or_unknown(target), _STRING_TRAVERSAL)
            substring_cost = _range_by_factor(self.size_or_unknown(args[0]), _STRING_TRAVERSAL)
            return _add_ranges(_multiply_ranges(string_cost, substring_cost), argument_sum), None
        if overload in ("logical_or", "logical_and"):
            return (arg_costs[0][0], _add(arg_costs[0][1], arg_costs[1][1])), None
        if overload == "conditional":
            size = _union(self.size_or_unknown(args[1]), self.size_or_unknown(args[2]))
            entry = _union_entries(self.entry_size(expr.args[1]), self.entry_size(expr.args[2]))
            if entry is not None:
                self.entry_sizes[expr] = entry
            return _add_ranges(arg_costs[0], _union(arg_costs[1], arg_costs[2])), size
        if overload in ("add_string", "add_bytes", "add_list"):
            size = _add_ranges(self.size_or_unknown(args[0]), self.size_or_unknown(args[1]))
            entry = _union_entries(self.entry_size(expr.args[0]), self.entry_size(expr.args[1]))
            if entry is not None:
                self.entry_sizes[expr] = entry
            if overload == "add_list":
                return _add_ranges((1, 1), argument_sum), size
            return _add_ranges(_range_by_factor(size, _STRING_TRAVERSAL), argument_sum), size
        if overload in _SIZED_COMPARISONS:
            left, right = self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
            smallest_max = min(left[1], right[1])
            cost = _range_by_factor((1 if smallest_max > 0 else 0, smallest_max), _STRING_TRAVERSAL)
            return _add_ranges(cost, argument_sum), None
        return _add_ranges((1, 1), argument_sum), None

    def extension_call_cost(self, overload: str, target: _Node | None, args: list[_Node]) -> tuple[Range, Range | None] | None:
        """cel-go's ext lists' and sets' estimators (``ext/lists.go``, ``ext/sets.go``), by overload."""
        if overload.startswith("list_sets_") and len(args) == 2:
            factor = 2 if overload == "list_sets_equivalent_list" else 1
            return _add_ranges(_range_by_factor(_multiply_ranges(self.kube_size(args[0]), self.kube_size(args[1])), factor), (1, 1)), None
        if overload == "lists_range" and target is None and len(args) == 1:
            return _allocating_list_call(1, _fixed(_int_literal(args[0], _UINT64_MAX)))
        if target is None:
            return None
        size = self.kube_size(target)
        if overload == "list_slice" and len(args) == 2:
            start, end = _int_literal(args[0], 0), _int_literal(args[1], size[1])
            return _allocating_list_call(1, _fixed((end - start) % 2**64))
        if overload == "list_reverse" and not args:
            return _allocating_list_call(1, size)
        if overload in ("list_flatten", "list_flatten_int") and len(args) <= 1:
            return _allocating_list_call(float(_int_literal(args[0], _UINT64_MAX) if args else 1), size)
        if overload == "list_distinct" and not args:
            return _allocating_list_call(2, _multiply_ranges(size, size))
        if overload.endswith("_sort") and not args:
            return _sort_call(overload, size)
        if overload.endswith("_sortByAssociatedKeys") and len(args) == 1:
            return _sort_call(overload, self.kube_size(args[0]))
        return None

    def kube_call_cost(self, function: str, overload: str, target: _Node | None,
                       args: list[_Node]) -> tuple[Range, Range | None] | None:
        """kube's ``EstimateCallCost`` for the functions covered (None: cel-go's own)."""
        if function in _UNIT_COST_FUNCTIONS or (function == "ip" and overload == "cidr_ip"):
            return (1, 1), None
        if function in ("quantity", "isQuantity", "semver", "isSemver", "cidr", "isIP", "isCIDR", "ip") and args:
            return _range_by_factor(self.kube_size(args[0]), _STRING_TRAVERSAL), None
        if function == "url" and len(args) == 1:
            size = self.kube_size(args[0])
            return _range_by_factor(size, _STRING_TRAVERSAL), size
        if function == "ip.isCanonical" and args:
            return _range_by_factor(self.kube_size(args[0]), 2 * _STRING_TRAVERSAL), None
        if function in ("containsIP", "containsCIDR") and args:
            return self.contains_address_cost(function, overload, args[0]), None
        if function == "validate" and args:
            return _range_by_factor(_range_by_factor(self.kube_size(args[0]), _STRING_TRAVERSAL),
                                    _MAX_NAME_FORMAT_REGEX * _REGEX_LENGTH), None
        if function == "_==_" and len(args) == 2 and args[0].type == args[1].type:
            kind = args[0].type.kind
            if kind in ("quantity", "semver", "ip", "cidr"):
                return (1, 1), None
            if kind == "format":
                return _range_by_factor((1, _MAX_FORMAT), _STRING_TRAVERSAL), None
            if kind == "url":  # kube unions the right operand's size with itself
                size = args[1].computed_size if args[1].computed_size is not None else (1, 1)
                return _range_by_factor((1, size[1]), _STRING_TRAVERSAL), None
        if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf") and target is not None:
            element = self.list_element(target)
            if element is None:
                return _range_by_factor(self.kube_size(target), _STRING_TRAVERSAL), None
            element_cost = (1, 1)
            if element.type.kind in ("string", "bytes"):
                element_cost = _add_ranges(element_cost, _range_by_factor(self.kube_size(element), _STRING_TRAVERSAL))
            return _multiply_ranges(self.kube_size(target), element_cost), None
        if function in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            size = self.kube_size(target)
            return _range_by_factor(size, _STRING_TRAVERSAL), size
        if function == "replace" and target is not None and len(args) >= 2:
            return self.replace_cost(target, args)
        if function == "split" and target is not None:
            size = self.kube_size(target)
            most = size[1]
            if len(args) > 1 and isinstance(args[1].expr, Literal) and args[1].expr.kind == "int":
                most = args[1].expr.value % 2**64
            return _range_by_factor(size, 2 * _STRING_TRAVERSAL), (0, most)
        if function == "join" and target is not None:
            list_size = self.kube_size(target)
            size = (0, 0)
            if (element := self.list_element(target)) is not None:
                size = _multiply_ranges(list_size, self.kube_size(element))
            if args:
                separators = (list_size[0] - 1 if list_size[0] > 0 else 0, list_size[1] - 1 if list_size[1] > 0 else 0)
                size = _add_ranges(size, _multiply_ranges(self.kube_size(args[0]), separators))
            return _range_by_factor(size, _STRING_TRAVERSAL), size
        if function in ("find", "findAll") and target is not None and args:
            size = self.kube_size(target)
            string_cost = _range_by_factor(_add_ranges(size, (1, 1)), _STRING_TRAVERSAL)
            regex_cost = _range_by_factor(self.kube_size(args[0]), _REGEX_LENGTH)
            return _multiply_ranges(string_cost, regex_cost), (0, size[1])
        return None

    def contains_address_cost(self, function: str, overload: str, other: _Node) -> Range:
        """``containsIP``/``containsCIDR``: comparing addresses of 4 to 16 bytes, and parsing a
        string argument."""
        address = (4, 16)
        cost = _range_by_factor(_add_ranges(address, address), _STRING_TRAVERSAL)
        if function == "containsCIDR":
            cost = _add_ranges(_add_ranges(cost, _range_by_factor(address, _STRING_TRAVERSAL)), (1, 1))
        if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost = _add_ranges(cost, _range_by_factor(self.kube_size(other), _STRING_TRAVERSAL))
        return cost

    def replace_cost(self, target: _Node, args: list[_Node]) -> tuple[Range, Range]:
        """``replace``: two traversals of the string; the result's size from how many
        replacements of how long a string it may take."""
        size = self.kube_size(target)
        to_replace, replace_with = self.kube_size(args[0]), self.kube_size(args[1])
        most, most_kept = _replace_bound(size[1], to_replace[0], replace_with[1] <= to_replace[0])
        least, least_kept = _replace_bound(size[0], to_replace[1], to_replace[1] <= replace_with[0])
        result = _add_ranges(_multiply_ranges((least, most), replace_with), (least_kept, most_kept))
        return _range_by_factor(size, 2 * _STRING_TRAVERSAL), result


#: kube's functions of a constant cost.
_UNIT_COST_FUNCTIONS = frozenset((
    "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
    "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan",
    "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch", "getScheme", "getHostname", "getHost", "getPort",
    "getEscapedPath", "getQuery"))
#: ``MaxFormatSize`` and ``MaxNameFormatRegexSize`` (apiserver/pkg/cel/limits.go).
_MAX_FORMAT, _MAX_NAME_FORMAT_REGEX = 64, 128
def _fixed(size: int) -> Range:
    return size, size


def _int_literal(value: _Node, default: int) -> int:
    """``nodeAsIntValue``: an int literal argument's value (a negative one 0), else ``default``."""
    if isinstance(value.expr, Literal) and value.expr.kind == "int":
        return max(value.expr.value, 0)
    return default


def _sort_call(overload: str, size: Range) -> tuple[Range, Range]:
    """``estimateListSortCost``: comparing each pair, strings and bytes at a tenth more."""
    factor = 2 + _STRING_TRAVERSAL if overload.startswith(("list_string_", "list_bytes_")) else 2
    return _allocating_list_call(factor, _multiply_ranges(size, size))


def _allocating_list_call(factor: float, size: Range) -> tuple[Range, Range]:
    """``estimateAllocatingListCall``: a call that makes a list of ``size`` at ``factor`` a
    value."""
    return _add_ranges(_add_ranges(_range_by_factor(size, factor), (1, 1)), (_LIST_CREATE, _LIST_CREATE)), size


def _replace_bound(size: int, to_replace: int, no_growth: bool) -> tuple[int, int]:
    """One bound of ``replace``'s estimate: how many replacements, and how much of the string is
    kept (an empty string to replace is replaced between every character)."""
    if to_replace == 0:
        return (size + 1 if size < _UINT64_MAX else size), size
    if no_growth:
        return 0, size
    return min(math.ceil(float(size) / float(to_replace)), _UINT64_MAX), 0


_SIZED_COMPARISONS = frozenset((
    "equals", "not_equals", "less_string", "greater_string", "less_equals_string", "greater_equals_string",
    "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes"))


def _expr_size(expr: Expr) -> Range | None:
    """``computeExprSize``: a literal's, list literal's or map literal's own size."""
    if isinstance(expr, Literal):
        if expr.kind == "string":
            return len(expr.value), len(expr.value)
        if expr.kind == "bytes":
            return len(expr.value), len(expr.value)
        return 1, 1
    if isinstance(expr, CreateList):
        return len(expr.elements), len(expr.elements)
    if isinstance(expr, CreateMap):
        return len(expr.entries), len(expr.entries)
    return None


def _common_type(types: list[CelType]) -> CelType:
    """An aggregate literal's element type (kube requires homogeneous literals)."""
    if not types:
        return DYN
    first = types[0]
    return first if all(t == first for t in types) else DYN


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise NotEstimated(what)


def _overloads(function: str, target: CelType | None, args: list[CelType]) -> tuple[tuple[str, ...], CelType]:
    """The overloads the checker keeps for a call (one, or several where an argument is dyn)
    and the call's type (``NotEstimated`` where this module does not know them)."""
    kinds = [arg.kind for arg in args]
    if target is None:
        return _global_overloads(function, args, kinds)
    return _member_overloads(function, target, args)


def _accepts(kinds: Sequence[str], *accepted: str) -> bool:
    """Whether each argument may be of the kinds ``accepted`` (a dyn one may be of any)."""
    return all(kind == "dyn" or kind in accepted for kind in kinds)


def _global_overloads(function: str, args: list[CelType], kinds: list[str]) -> tuple[tuple[str, ...], CelType]:
    if function in ("_&&_", "_||_", "!_", "@not_strictly_false"):
        return ({"_&&_": "logical_and", "_||_": "logical_or", "!_": "logical_not",
                 "@not_strictly_false": "not_strictly_false"}[function],), BOOL
    if function == "_?_:_":
        result = args[1] if args[1].kind != "null" else args[2]
        if args[1].kind != args[2].kind and "dyn" in (args[1].kind, args[2].kind):
            result = DYN
        return ("conditional",), result
    if function in ("_==_", "_!=_"):
        return ("equals" if function == "_==_" else "not_equals",), BOOL
    if function in _ORDERINGS:
        candidates = tuple(f"{_ORDERINGS[function]}_{kind}" for kind in ("string", "bytes") if _accepts(kinds, kind))
        if any(_accepts(kinds, *group) for group in (_NUMBERS, ("bool",), ("timestamp",), ("duration",))):
            candidates += (f"{_ORDERINGS[function]}_other",)
        _require(bool(candidates), f"{function} on {kinds}")
        return candidates, BOOL
    if function == "@in":
        _require(kinds[1] in ("list", "map", "dyn"), "in")
        return tuple(f"in_{kind}" for kind in ("list", "map") if _accepts(kinds[1:], kind)), BOOL
    if function == "_[_]":
        # cel-go gives an index of a dyn the path of whichever of its overloads comes last
        _require(kinds[0] in ("list", "map"), "index of dyn")
        if kinds[0] == "list":
            return ("index_list",), args[0].params[0]
        return ("index_map",), args[0].params[1]
    if function in ("_+_", "_-_", "_*_", "_/_", "_%_"):
        return _arithmetic(function, args, kinds)
    if function == "-_":
        _require(kinds[0] in _NUMBERS or kinds[0] in ("duration", "dyn"), "negation")
        return ("negate",), args[0]
    if function == "size" and len(args) == 1:
        _require(_accepts(kinds, "string", "bytes", "list", "map"), "size")
        return ("size",), INT
    if function in _CONVERSIONS and len(args) == 1:
        candidates = (f"{function}_from_other",)
        if function == "bytes" and _accepts(kinds, "string"):
            candidates = ("string_to_bytes",) + (candidates if kinds[0] == "dyn" else ())
        if function == "string" and _accepts(kinds, "bytes"):
            candidates = ("bytes_to_string",) + (candidates if kinds[0] == "dyn" else ())
        return candidates, _CONVERSIONS[function]
    if function == "matches" and _accepts(kinds, "string"):
        return ("matches",), BOOL
    if function == "_[?_]":
        container = _unwrapped(args[0])
        _require(container.kind in ("list", "map"), "optional index")
        return (f"{container.kind}_optindex_optional",), CelType("optional", (container.params[-1],))
    if function in _SETS_FUNCTIONS and kinds == ["list", "list"]:
        return (f"list_sets_{function[len('sets.'):]}_list",), BOOL
    if function == "strings.quote" and _accepts(kinds, "string"):
        return ("strings_quote",), STRING
    if function == "lists.range" and kinds == ["int"]:
        return ("lists_range",), CelType("list", (INT,))
    if function == "cel.@mapInsert" and len(args) == 3:
        return ("@mapInsert_map_key_value",), CelType("map", (args[1], args[2]))
    if function == "cel.@mapInsert" and len(args) == 2:
        return ("@mapInsert_map_map",), args[1]
    if function in _LIBRARY_GLOBALS and args and kinds[0] == "string" and _accepts(kinds[1:], "bool"):
        return (f"library_{function}",), _LIBRARY_GLOBALS[function]
    if function.startswith("format.") and function[len("format."):] in _FORMAT_NAMES and not args:
        return (function,), _FORMAT
    if function == "sign" and kinds == ["quantity"]:
        return ("quantity_sign",), INT
    if function in ("optional.of", "optional.ofNonZeroValue") and len(args) == 1:
        return (function,), CelType("optional", (args[0],))
    if function == "optional.none" and not args:
        return (function,), CelType("optional", (DYN,))
    if function == "optional.unwrap" and len(args) == 1:
        return ("optional_unwrap",), _unwrapped_list(args[0])
    raise NotEstimated(f"function {function}")


def _arithmetic(function: str, args: list[CelType], kinds: list[str]) -> tuple[tuple[str, ...], CelType]:
    candidates: list[tuple[str, CelType]] = []
    if function == "_+_":
        for kind in ("string", "bytes", "list"):
            if _accepts(kinds, kind):
                candidates.append((f"add_{kind}", _added_list(args) if kind == "list" else CelType(kind)))
    for kind in _NUMBERS:
        if _accepts(kinds, kind):
            candidates.append(("arithmetic", CelType(kind)))
    if function in ("_+_", "_-_"):
        for pair, result in ((("timestamp", "duration"), TIMESTAMP), (("duration", "timestamp"), TIMESTAMP),
                             (("duration", "duration"), DURATION), (("timestamp", "timestamp"), DURATION)):
            if all(kind in ("dyn", wanted) for kind, wanted in zip(kinds, pair)):
                if function == "_-_" and pair == ("duration", "timestamp"):
                    continue
                if function == "_+_" and pair == ("timestamp", "timestamp"):
                    continue
                candidates.append(("time_arithmetic", result))
    _require(bool(candidates), f"{function} on {kinds}")
    results = {result for _overload, result in candidates}
    return tuple(overload for overload, _result in candidates), results.pop() if len(results) == 1 else DYN


def _added_list(args: list[CelType]) -> CelType:
    """The type of a list concatenation: its operands' element type (the macros' accumulator
    starts as a list of dyn)."""
    elements = [arg.params[0] for arg in args if arg.params and arg.params[0] != DYN]
    return CelType("list", (elements[0] if elements else DYN,))


_STRING_FUNCTIONS = {"lowerAscii": STRING, "upperAscii": STRING, "trim": STRING, "substring": STRING,
                     "replace": STRING, "split": CelType("list", (STRING,)), "charAt": STRING,
                     "indexOf": INT, "lastIndexOf": INT, "find": STRING, "findAll": CelType("list", (STRING,))}
_STRING_PREDICATES = {"matches": "matches_string", "contains": "contains_string", "startsWith": "starts_with_string",
                      "endsWith": "ends_with_string"}


_SETS_FUNCTIONS = frozenset(("sets.contains", "sets.equivalent", "sets.intersects"))
_LIST_FUNCTIONS = frozenset(("slice", "flatten", "reverse", "distinct", "sort", "@sortByAssociatedKeys"))
#: cel-go's names of the types ``sort`` orders.
_SORTABLE = {"int": "int", "uint": "uint", "double": "double", "bool": "bool", "duration": "google.protobuf.Duration",
             "timestamp": "google.protobuf.Timestamp", "string": "string", "bytes": "bytes"}


def _sort_overloads(element: CelType, name: str) -> tuple[str, ...]:
    """The overloads of a sort by values of ``element`` (the checker keeps every sortable
    type's for a dyn)."""
    if element.kind == "dyn":
        return tuple(f"list_{type_name}_{name}" for type_name in _SORTABLE.values())
    _require(element.kind in _SORTABLE, f"sort of {element.kind}")
    return (f"list_{_SORTABLE[element.kind]}_{name}",)


def _list_overloads(function: str, target: CelType, arguments: list[CelType]) -> tuple[tuple[str, ...], CelType]:
    """cel-go's ext lists on a list ``target``."""
    element = target.params[0]
    kinds = [argument.kind for argument in arguments]
    if function == "slice" and kinds == ["int", "int"]:
        return ("list_slice",), target
    if function in ("reverse", "distinct") and not kinds:
        return (f"list_{function}",), target
    if function == "flatten" and not kinds and element.kind in ("list", "dyn"):
        return ("list_flatten",), element if element.kind == "list" else CelType("list", (DYN,))
    if function == "flatten" and kinds == ["int"]:
        return ("list_flatten_int",), CelType("list", (DYN,))
    if function == "sort" and not kinds:
        return _sort_overloads(element, "sort"), target
    if function == "@sortByAssociatedKeys" and kinds in (["list"], ["dyn"]):
        return _sort_overloads(arguments[0].params[0] if arguments[0].params else DYN, "sortByAssociatedKeys"), target
    raise NotEstimated(f"list.{function}")


def _unwrapped(value: CelType) -> CelType:
    return value.params[0] if value.kind == "optional" else value


def _unwrapped_list(value: CelType) -> CelType:
    """The type of ``optional.unwrap`` of a list of optionals (of a dyn: a list of dyns)."""
    if value.kind == "dyn":
        return CelType("list", (DYN,))
    _require(value.kind == "list" and value.params[0].kind in ("optional", "dyn"), f"optional.unwrap of {value.kind}")
    return CelType("list", (_unwrapped(value.params[0]),))


def _member_overloads(function: str, target: CelType, arguments: list[CelType]) -> tuple[tuple[str, ...], CelType]:
    kind = target.kind
    kinds = [argument.kind for argument in arguments]
    if kind == "optional":
        results = {"hasValue": BOOL, "value": target.params[0], "orValue": target.params[0], "or": target}
        _require(function in results, f"optional.{function}")
        return (f"optional_{function}",), results[function]
    if function == "size" and not kinds:
        _require(_accepts([kind], "string", "bytes", "list", "map"), "size")
        return ("size",), INT
    if kind in ("string", "dyn"):
        # a dyn receiver of a string function: the checker keeps the string overload (kube's
        # estimates go by the function's name)
        if function in _STRING_PREDICATES and _accepts(kinds, "string"):
            return (_STRING_PREDICATES[function],), BOOL
        if function in _STRING_FUNCTIONS:
            return (f"string_{function}",), _STRING_FUNCTIONS[function]
        if function == "format" and kinds in (["list"], ["dyn"]):
            return ("string_format",), STRING
    if kind == "list" and function in _LIST_FUNCTIONS:
        return _list_overloads(function, target, arguments)
    # the optional library's list functions: cel-go estimates them at a call's cost, their
    # result of an unknown size
    if kind == "list" and function in ("first", "last") and not kinds:
        return (f"list_{function}",), CelType("optional", (target.params[0],))
    if kind == "list" and function == "unwrapOpt" and not kinds:
        return ("optional_unwrapOpt",), _unwrapped_list(target)
    if kind == "list" and function in ("join", "isSorted", "sum", "min", "max", "indexOf", "lastIndexOf"):
        element = target.params[0]
        results = {"join": STRING, "isSorted": BOOL, "indexOf": INT, "lastIndexOf": INT}
        return (f"list_{function}",), results.get(function, element)
    if kind in ("timestamp", "duration") and function in _TIME_ACCESSORS:
        return (f"{kind}_{function}",), INT
    if kind == "cidr" and (function, *kinds) in _CONTAINS_OVERLOADS:
        return (_CONTAINS_OVERLOADS[(function, *kinds)],), BOOL  # type: ignore[index]
    if kind == "quantity" and function in ("add", "sub") and kinds == ["int"]:
        function = f"{function}_int"
    if (kind, function) in _LIBRARY_MEMBERS:
        parameters, result = _LIBRARY_MEMBERS[(kind, function)]
        _require(tuple(kinds) == parameters, f"{kind}.{function}{kinds}")
        return (f"{kind}_{function}" if (kind, function) != ("cidr", "ip") else "cidr_ip",), result
    raise NotEstimated(f"{kind}.{function}")


def max_cost(source: str, decl: DeclType, optional_old_self: bool = False) -> int | None:
    """The largest cost cel-go estimates for ``source`` with ``self`` and ``oldSelf`` of type
    ``decl`` (``oldSelf`` an optional of it with ``optional_old_self``), or None where this
    module does not cover ``source``."""
    self_type = type_of_decl(decl)
    old_self_type = CelType("optional", (self_type,)) if optional_old_self else self_type
    try:
        return _Coster(decl, {"self": self_type, "oldSelf": old_self_type}).cost(parse(source))[1]
    except (NotParsed, NotEstimated, NotSelectable, RecursionError):
        return None
