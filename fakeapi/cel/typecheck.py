"""The type errors cel-go's checker finds in an expression over variables of schema types, shown
as cel-go shows them: what kube's ValidatingAdmissionPolicy type checking
(``apiserver/pkg/admission/plugin/policy/validating/typechecking.go``) reports of a policy's
expressions once ``object``, ``oldObject`` and ``params`` have the types of the kinds the policy
matches, and what kube's compilers refuse when a policy, a webhook's match conditions or a
CRD's rules are written (``object`` and the like dyn there; a CRD rule's ``self`` of its node's
type). ``checked`` gives the expression's type with its errors (kube's ``must evaluate to bool
but got list(int)`` names it with ``output_type_name``).

``check(source, variables)`` is cel-go's ``Issues.String()`` for the expression: one
``ERROR: <input>:line:column: message`` per error with the source line and a caret under the
error's position, in source order, joined by newlines; "" when it finds none. The errors found
are cel-go's ``undefined field 'f'``, ``type 't' does not support field selection``,
``expected type 'bool' but found 't'`` (an operand of ``&&`` or ``||``, an ``all`` or
``exists`` predicate; ``expected type 'optional_type(int)' but found 'int'`` for an entry of a
list or map literal marked optional, ``[?x]``, ``{?k: x}``, that is no optional; ``expected
type 'int' but found 'string'`` for an element of a list or map literal of another type than
the first's, kube's literals being homogeneous: its validator's error, which cel-go reports
only where its checker found none) and ``found no matching overload for 'f' applied to '(t1,
t2)'`` (``'t.(t1)'`` for a member call), on the operators, ``size``, the string predicates,
the conversions, ``optional.of``/``none``/``unwrap``, ``hasValue``, ``value``, ``unwrapOpt``
and ``sortBy``'s sort (``@sortByAssociatedKeys``). The optional field and index (``x.?f``,
``x[?k]``) are optionals of their field's, element's or value's type (``optional_type(int)``).
An empty list or map literal's element types and ``optional.none()``'s value type are free,
bound by what they are joined with (``c ? [] : [1]`` is a list(int), ``[[], [1]]`` a
list(list(int))), and named dyn where none binds them (``list(dyn)``), as cel-go names them.
Of the errors cel-go finds in a macro's expansion, located at the macro's ``(``, those of its
conditional (a ``filter``, ``map``, ``exists_one`` or transform whose filter is no bool, an
``optFlatMap`` whose expression is no optional), of ``sortBy``'s sort and of
``transformMapEntry``'s insertion (``cel.@mapInsert``) are reported. A keyword field
(``namespace``, declared escaped) is selected by its name, as kube's type provider allows.

A node that fails to check gets cel-go's error type, which any overload accepts, so an error
does not cascade: ``object.foo.bar == 1`` reports ``foo`` only. Where an expression reaches
something this module does not type as cel-go would (another variable, a function it does not
know, an object type's name in a message, another error in a macro's expansion),
``check`` answers None rather than risk a warning kube would not give.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from .admission import NAMESPACE_OBJECT, NAMESPACE_SCHEMA, REQUEST, REQUEST_SCHEMA
from .syntax import ACCUMULATOR, Call, Comprehension, CreateList, CreateMap, Expr, Ident, Literal, NotParsed, Select, parse
from .types import (BOOL, BYTES, DOUBLE, DURATION, DYN, INT, NULL, STRING, TIMESTAMP, UINT, CelType, DeclType, decl_type,
                    field_type, type_of_decl)
from .values import escape

#: What a node that failed to check has: cel-go's error type, which every overload accepts.
ERROR = CelType("error")
#: The element type of an empty list literal, the key and value types of an empty map literal,
#: the value type of ``optional.none()``: a type parameter the expression around binds, which
#: every overload accepts meanwhile.
FREE = CelType("free")
#: The calls of a macro's expansion whose errors this module reports as cel-go does: a
#: conditional's (``filter``'s, ``map``'s, ``exists_one``'s, a transform's filter that is no
#: bool; an ``optFlatMap`` whose expression is no optional), ``sortBy``'s sort (keys of a
#: type that has no order, a receiver that is no list) and ``transformMapEntry``'s insertion
#: of an entry that is no map. Others are left unchecked.
_EXPANSION_FAILURES = frozenset(("_?_:_", "@sortByAssociatedKeys", "cel.@mapInsert"))
#: The functions of the ``optional`` namespace, called as ``optional.of(x)``, by how many
#: arguments they take.
_OPTIONAL_FUNCTIONS = {"of": 1, "ofNonZeroValue": 1, "none": 0, "unwrap": 1}
#: The variables of a policy's ``variables``: a select on it names one (``variables.name``).
VARIABLES = "variables"

_NUMBERS = frozenset(("int", "uint", "double"))
_ORDERED = frozenset(("int", "uint", "double", "string", "bytes", "bool", "timestamp", "duration"))

#: cel-go's arithmetic overloads: operand kinds and the result's.
_ARITHMETIC = {
    "_+_": (("int", "int", INT), ("uint", "uint", UINT), ("double", "double", DOUBLE), ("string", "string", STRING),
            ("bytes", "bytes", BYTES), ("timestamp", "duration", TIMESTAMP), ("duration", "timestamp", TIMESTAMP),
            ("duration", "duration", DURATION)),
    "_-_": (("int", "int", INT), ("uint", "uint", UINT), ("double", "double", DOUBLE),
            ("timestamp", "timestamp", DURATION), ("timestamp", "duration", TIMESTAMP), ("duration", "duration", DURATION)),
    "_*_": (("int", "int", INT), ("uint", "uint", UINT), ("double", "double", DOUBLE)),
    "_/_": (("int", "int", INT), ("uint", "uint", UINT), ("double", "double", DOUBLE)),
    "_%_": (("int", "int", INT), ("uint", "uint", UINT)),
}
#: Member functions of strings whose every overload is known here: the arguments' kinds and the
#: result (a dyn receiver keeps these: no other type has a function of these names).
_STRING_MEMBERS = {
    "startsWith": (("string",), BOOL), "endsWith": (("string",), BOOL), "contains": (("string",), BOOL),
    "matches": (("string",), BOOL), "lowerAscii": ((), STRING), "upperAscii": ((), STRING), "trim": ((), STRING),
}
#: Signatures of cel-go's ext strings on a string and ext lists' ``join`` on a list of strings
#: (receiver kind, argument kinds): their results. A call outside them is not checked (some
#: names have overloads on other types, or more than are listed here).
_EXTENSION_MEMBERS = {
    ("split", "string", ("string",)): CelType("list", (STRING,)),
    ("split", "string", ("string", "int")): CelType("list", (STRING,)),
    ("replace", "string", ("string", "string")): STRING, ("replace", "string", ("string", "string", "int")): STRING,
    ("substring", "string", ("int",)): STRING, ("substring", "string", ("int", "int")): STRING,
    ("charAt", "string", ("int",)): STRING, ("indexOf", "string", ("string",)): INT,
    ("lastIndexOf", "string", ("string",)): INT, ("join", "list", ()): STRING, ("join", "list", ("string",)): STRING,
}
#: The conversions, by the kinds of argument each has an overload for (``int`` of a duration
#: counted in, so that no error is claimed for one).
_CONVERSIONS = {
    "int": (frozenset(("int", "uint", "double", "string", "timestamp", "duration")), INT),
    "uint": (frozenset(("int", "uint", "double", "string")), UINT),
    "double": (frozenset(("int", "uint", "double", "string")), DOUBLE),
    "string": (frozenset(("int", "uint", "double", "bool", "bytes", "string", "timestamp", "duration")), STRING),
    "bool": (frozenset(("bool", "string")), BOOL),
    "bytes": (frozenset(("bytes", "string")), BYTES),
}


class NotChecked(ValueError):
    """An expression (or a part of it) outside what this module checks as cel-go does."""


@dataclass(frozen=True)
class _Issue:
    offset: int
    message: str


def _loose(kind: str) -> bool:
    """Whether a value of this kind is accepted by any overload (dyn, a failed node's, or the
    free element type of an empty literal, which binds to what the overload takes)."""
    return kind in ("dyn", "error", "free")


def _accepts(kind: str, wanted: str) -> bool:
    """Whether a value of this kind is accepted where a ``wanted`` is."""
    return kind == wanted or _loose(kind)


def type_name(value: CelType) -> str:
    """A type as cel-go's messages name it (``list(string)``, ``map(string, int)``)."""
    if value.kind == "list":
        return f"list({type_name(value.params[0])})"
    if value.kind == "map":
        return f"map({type_name(value.params[0])}, {type_name(value.params[1])})"
    if value.kind == "optional":
        return f"optional_type({type_name(value.params[0])})"
    if value.kind in ("object", "error"):
        raise NotChecked(f"the name of {value.kind}")  # kube names object types per check
    if value.kind == "free":
        return "dyn"  # cel-go names a type parameter left free so
    return value.kind


def _same(left: CelType, right: CelType) -> bool:
    """Whether the two bind one type parameter, as ``equals(A, A)`` needs."""
    if _loose(left.kind) or _loose(right.kind):
        return True
    if "null" in (left.kind, right.kind):
        other = right.kind if left.kind == "null" else left.kind
        if other == "duration":
            raise NotChecked("null against a duration")
        # cel-go takes null for an object or a timestamp, not for a scalar, a list or a map
        return other in ("null", "object", "timestamp")
    if left.kind != right.kind:
        return False
    if left.kind == "object":
        if left.decl is not right.decl:
            raise NotChecked("two object types")
        return True
    return all(_same(a, b) for a, b in zip(left.params, right.params))


def _joined(left: CelType, right: CelType) -> CelType | None:
    """The type of two branches or elements whose types differ at most where one has an empty
    literal's free element type, which the other binds (``c ? [] : [1]`` is a list(int)); None
    for types that differ otherwise."""
    if left.kind == "free" or right.kind == "free":
        return right if left.kind == "free" else left
    if left.kind != right.kind or len(left.params) != len(right.params):
        return None
    if left.kind == "object":
        return left if left.decl is right.decl else None
    joined = [_joined(a, b) for a, b in zip(left.params, right.params)]
    params = tuple(param for param in joined if param is not None)
    if len(params) != len(joined):
        return None
    # the side that binds every parameter, as it is (a schema's type keeps its declaration)
    return next((side for side in (left, right) if side.params == params), CelType(left.kind, params))


def _nested(value: CelType, kinds: tuple[str, ...]) -> bool:
    """Whether the type is of one of ``kinds`` or has one among its parameters, at any depth."""
    return value.kind in kinds or any(_nested(param, kinds) for param in value.params)


def _bound(left: CelType, right: CelType) -> CelType:
    """The type two matching types bind (the more specific of a dyn and another; a free type
    the other)."""
    if left.kind == "free":
        return right
    if _loose(left.kind):
        return right if not _loose(right.kind) else DYN
    if left.kind == right.kind and left.kind in ("list", "map"):
        return CelType(left.kind, tuple(_bound(a, b) for a, b in zip(left.params, right.params)))
    return left


class _Checker:
    def __init__(self, variables: Mapping[str, CelType], composited: Mapping[str, CelType],
                 undeclared: frozenset[str]) -> None:
        self.variables = variables
        self.composited = composited
        self.undeclared = undeclared
        self.locals: dict[str, list[CelType]] = {}
        self.issues: list[_Issue] = []
        #: the errors of kube's homogeneous aggregate literal validator, which cel-go runs (and
        #: reports) only on an expression its checker found no error in
        self.validator_issues: list[_Issue] = []

    def fail(self, expr: Expr, message: str, issues: list[_Issue] | None = None) -> CelType:
        if expr.expansion and not (isinstance(expr, Call) and expr.function in _EXPANSION_FAILURES):
            raise NotChecked("an error in a macro's expansion")
        (self.issues if issues is None else issues).append(_Issue(expr.offset, message))
        return ERROR

    def no_overload(self, expr: Call, args: list[CelType], target: CelType | None = None,
                    function: str | None = None) -> CelType:
        """cel-go's error for a call of ``function`` (the call's own by default) whose overloads
        take none of its argument types."""
        names = ", ".join(type_name(arg) for arg in args)
        applied = f"{type_name(target)}.({names})" if target is not None else f"({names})"
        return self.fail(expr, f"found no matching overload for '{function or expr.function}' applied to '{applied}'")

    def check(self, expr: Expr) -> CelType:
        if isinstance(expr, Literal):
            return {"int": INT, "uint": UINT, "double": DOUBLE, "string": STRING, "bytes": BYTES, "bool": BOOL,
                    "null": NULL}[expr.kind]
        if isinstance(expr, Ident):
            if stack := self.locals.get(expr.name):
                return stack[-1]
            if expr.name in self.variables:
                return self.variables[expr.name]
            if expr.name in self.undeclared:
                return self.fail(expr, f"undeclared reference to '{expr.name}' (in container '')")
            raise NotChecked(f"identifier {expr.name}")
        if isinstance(expr, Select):
            return self.check_select(expr)
        if isinstance(expr, Call):
            return self.check_call(expr)
        if isinstance(expr, CreateList):
            return CelType("list", (self.common(expr.elements, expr.optional_indices),))
        if isinstance(expr, CreateMap):
            keys = self.common([key for key, _value in expr.entries], every_mismatch=True)
            values = self.common([value for _key, value in expr.entries], expr.optional_indices, every_mismatch=True)
            return CelType("map", (keys, values))
        if isinstance(expr, Comprehension):
            return self.check_comprehension(expr)
        raise NotChecked(type(expr).__name__)

    def common(self, elements: list[Expr], optional_indices: frozenset[int] = frozenset(),
               every_mismatch: bool = False) -> CelType:
        """An aggregate literal's element type (its keys' or its values'): kube's literals are
        homogeneous, so the first element of another type than the first's (a dyn a type of its
        own) is the validator's error, and each such element of a map (``every_mismatch``).
        Aggregates whose element types differ only where one has a dyn are left unchecked: an
        empty literal's element type is free, bound by the elements around it (``[[], [1]]`` is a
        list(list(int))). The elements at ``optional_indices`` (``[?x]``, ``{?k: x}``) are
        optionals of their type."""
        types = [self.entry_type(element, index in optional_indices) for index, element in enumerate(elements)]
        if not types:
            return FREE
        if all(_loose(value.kind) for value in types):
            return DYN
        if any(value.kind == "error" for value in types) or _nested(types[0], ("object",)):
            raise NotChecked("a literal of an element that failed, or of objects")
        first = types[0]
        common = first
        failed = False
        for element, value in zip(elements[1:], types[1:]):
            if _nested(first, ("free",)) or _nested(value, ("free",)):
                # an empty literal's free types, bound by the elements after it: the validator
                # expects the first's type as the elements before bound it
                joined = None if failed else _joined(common, value)
                if joined is not None:
                    common = joined
                    continue
                if failed or value.kind == common.kind and (_nested(common, ("dyn",)) or _nested(value, ("dyn",))):
                    raise NotChecked("aggregate elements of types an empty literal and a dyn may join")
                expected = common
            elif value.kind == first.kind and (value == first or _nested(first, ("dyn",)) or _nested(value, ("dyn",))):
                if value != first:
                    raise NotChecked("aggregate elements of element types a dyn may join")
                continue
            else:
                expected = first
            # an element of another type than the first's: the literal's type is then a dyn, as
            # cel-go's checker joins the types of kube's literals; an object type's name is not
            # known here (type_name declines it)
            self.fail(element, f"expected type '{type_name(expected)}' but found '{type_name(value)}'", self.validator_issues)
            common, failed = DYN, True
            if not every_mismatch:
                break
        return common

    def entry_type(self, element: Expr, optional: bool) -> CelType:
        """The type an element of an aggregate literal is of: an optional one's value's; one
        marked optional that is no optional is cel-go's error, and of its own type."""
        value = self.check(element)
        if not optional or value.kind == "error":
            return value
        if value.kind == "dyn":
            # cel-go's checker passes it; kube's homogeneous aggregate literal validator then
            # takes it for an optional and fails (a Go panic)
            raise NotChecked("a dyn marked optional")
        if value.kind == "optional":
            return value.params[0]
        self.fail(element, f"expected type '{type_name(CelType('optional', (value,)))}' but found '{type_name(value)}'")
        return value

    def check_select(self, expr: Select) -> CelType:
        if isinstance(expr.operand, Ident) and expr.operand.name == VARIABLES and VARIABLES not in self.locals:
            if expr.test_only or expr.field not in self.composited:
                raise NotChecked(f"variable {expr.field}")
            return self.composited[expr.field]
        operand = self.check(expr.operand)
        if _loose(operand.kind):
            selected = DYN
        elif operand.kind in ("object", "map"):
            try:
                selected = field_type(operand, _declared_name(operand, expr.field))
            except ValueError:
                return self.fail(expr, f"undefined field '{expr.field}'")
        elif operand.kind == "optional":
            raise NotChecked("a field of an optional")
        else:
            return self.fail(expr, f"type '{type_name(operand)}' does not support field selection")
        return BOOL if expr.test_only else selected

    def check_call(self, expr: Call) -> CelType:
        function = expr.function
        if self.names_optional(expr.target) or function.startswith("optional."):
            # read as a call on the namespace, or built so by a macro's expansion
            name = function.removeprefix("optional.")
            args = [self.check(arg) for arg in expr.args]
            if _OPTIONAL_FUNCTIONS.get(name) != len(args):
                raise NotChecked(function)
            if name == "unwrap":
                return self.check_unwrap(expr, args, None, f"optional.{name}")
            # optional.none()'s value is of a free type
            return CelType("optional", (args[0] if args else FREE,))
        target = self.check(expr.target) if expr.target is not None else None
        args = [self.check(arg) for arg in expr.args]
        if target is not None:
            return self.check_member(expr, target, args)
        kinds = [arg.kind for arg in args]
        if function in ("_&&_", "_||_"):
            # cel-go checks each operand of a logical operator for a bool, not their overload
            for arg, arg_type in zip(expr.args, args):
                if not _accepts(arg_type.kind, "bool"):
                    self.fail(arg, f"expected type 'bool' but found '{type_name(arg_type)}'")
            return BOOL
        if function in ("!_", "@not_strictly_false"):
            return BOOL if _accepts(kinds[0], "bool") else self.no_overload(expr, args)
        if function in ("_==_", "_!=_"):
            return BOOL if _same(*args) else self.no_overload(expr, args)
        if function in ("_<_", "_<=_", "_>_", "_>=_"):
            # kube's environment compares numbers of different kinds (CrossTypeNumericComparisons)
            if any(_loose(kind) for kind in kinds) or set(kinds) <= _NUMBERS or (kinds[0] == kinds[1] and kinds[0] in _ORDERED):
                return BOOL
            return self.no_overload(expr, args)
        if function in _ARITHMETIC:
            return self.check_arithmetic(expr, args)
        if function == "-_":
            if kinds[0] in ("int", "double"):
                return args[0]
            return DYN if _loose(kinds[0]) else self.no_overload(expr, args)
        if function == "_[_]":
            return self.check_index(expr, args)
        if function in ("_?._", "_[?_]"):
            return self.check_optional_access(expr, args)
        if function == "@in":
            container = args[1]
            if _loose(container.kind):
                return BOOL
            if container.kind in ("list", "map") and _same(args[0], container.params[0]):
                return BOOL
            return self.no_overload(expr, args)
        if function == "_?_:_":
            if not _accepts(kinds[0], "bool"):
                if expr.expansion and kinds[1] == kinds[2] and kinds[1] in ("list", "map"):
                    # filter's, map's and the transforms' accumulator, begun as an empty list
                    # or map of free types, has the step's type in cel-go's message: the
                    # overload bound it
                    args = [args[0], *[_bound(args[1], args[2])] * 2]
                return self.no_overload(expr, args)
            if _loose(kinds[1]) or _loose(kinds[2]):
                return DYN  # a dyn branch makes the conditional a dyn, whichever branch it is
            if not _same(args[1], args[2]):
                return self.no_overload(expr, args)
            if expr.expansion:
                # filter's and map's expansion: the accumulator, begun as an empty list whose
                # element type is free, binds it to the step's
                return _bound(args[1], args[2])
            joined = _joined(args[1], args[2])
            if joined is None or _nested(joined, ("object",)):
                # cel-go's is the more general (list(dyn) of list(int) and list(dyn))
                raise NotChecked("a conditional of aggregates of different element types")
            return joined
        if function == "cel.@mapInsert":
            return self.check_map_insert(expr, args)
        if function == "size" and len(args) == 1:
            return self.check_size(expr, args)
        if function == "matches" and len(args) == 2:
            return BOOL if all(_accepts(kind, "string") for kind in kinds) else self.no_overload(expr, args)
        if function in _CONVERSIONS and len(args) == 1:
            accepted, result = _CONVERSIONS[function]
            return result if kinds[0] in accepted or _loose(kinds[0]) else self.no_overload(expr, args)
        if function == "dyn" and len(args) == 1:
            return DYN
        raise NotChecked(f"function {function}")

    def check_arithmetic(self, expr: Call, args: list[CelType]) -> CelType:
        left, right = args
        if expr.function == "_+_" and left.kind == "list" and right.kind == "list":
            return CelType("list", (_bound(left.params[0], right.params[0]),)) if _same(left, right) else \
                self.no_overload(expr, args)
        if "list" in (left.kind, right.kind) and expr.function == "_+_":
            if _loose(left.kind) or _loose(right.kind):
                raise NotChecked("a dyn added to a list")
        results = {result for first, second, result in _ARITHMETIC[expr.function]
                   if (left.kind == first or _loose(left.kind)) and (right.kind == second or _loose(right.kind))}
        if not results:
            return self.no_overload(expr, args)
        return results.pop() if len(results) == 1 else DYN

    def check_index(self, expr: Call, args: list[CelType]) -> CelType:
        container, index = args
        if _loose(container.kind):
            return DYN
        if container.kind == "list" and _accepts(index.kind, "int"):
            return container.params[0]
        if container.kind == "map" and _same(index, container.params[0]):
            return container.params[1]
        if container.kind in ("list", "map", "string", "bytes", "int", "uint", "double", "bool"):
            return self.no_overload(expr, args)
        raise NotChecked(f"an index of {container.kind}")

    def check_optional_access(self, expr: Call, args: list[CelType]) -> CelType:
        """``x.?f`` and ``x[?k]``: an optional of the field's, element's or value's type (of an
        optional ``x``, of its value's), cel-go's ``select_optional_field`` and ``optindex``."""
        container, key = args
        of_optional = container.kind == "optional"
        if of_optional:
            container = container.params[0]
        if _loose(container.kind):
            if expr.function == "_?._":
                return CelType("optional", (DYN,))
            if of_optional:
                # cel-go's is an optional of a type parameter that the expression around may
                # bind (``{?'a': o[?'k'], 'b': 'x'}`` to string), which this module does not do
                raise NotChecked("an optional index of an optional dyn")
            return DYN  # every index overload matches a dyn: cel-go types their call a dyn
        if expr.function == "_?._" and container.kind in ("object", "map"):
            field = expr.args[1]
            assert isinstance(field, Literal)
            try:
                return CelType("optional", (field_type(container, _declared_name(container, field.value)),))
            except ValueError:
                raise NotChecked("an optional selection of an undefined field") from None
        if expr.function == "_?._":
            # of an optional's value too, as cel-go's select_optional_field
            return self.fail(expr, f"type '{type_name(container)}' does not support field selection")
        if expr.function == "_[?_]" and container.kind == "list" and _accepts(key.kind, "int"):
            return CelType("optional", (container.params[0],))
        if expr.function == "_[?_]" and container.kind == "map" and _same(key, container.params[0]):
            return CelType("optional", (container.params[1],))
        raise NotChecked(f"an optional access of {container.kind}")

    def check_size(self, expr: Call, args: list[CelType], target: CelType | None = None) -> CelType:
        sized = target if target is not None else args[0]
        if sized.kind in ("string", "bytes", "list", "map") or _loose(sized.kind):
            return INT
        return self.no_overload(expr, args, target)

    def names_optional(self, target: Expr | None) -> bool:
        """Whether a call's receiver is the ``optional`` namespace (``optional.of(x)``), not a
        variable of that name."""
        return isinstance(target, Ident) and target.name == "optional" and not self.locals.get("optional") \
            and "optional" not in self.variables

    def check_member(self, expr: Call, target: CelType, args: list[CelType]) -> CelType:
        if expr.function == "size" and not args:
            return self.check_size(expr, args, target)
        if expr.function in ("hasValue", "value"):
            # only optionals have these members: a dyn receiver binds to them
            if args or not _accepts(target.kind, "optional"):
                return self.no_overload(expr, args, target)
            return BOOL if expr.function == "hasValue" else _unwrapped(target)
        if expr.function == "@sortByAssociatedKeys":
            return self.check_sort_by(expr, target, args)
        if expr.function == "unwrapOpt" and not args:
            return self.check_unwrap(expr, [], target, "unwrapOpt")
        if expr.function in _STRING_MEMBERS:
            parameters, result = _STRING_MEMBERS[expr.function]
            if len(parameters) != len(args):
                raise NotChecked(f"{expr.function} with {len(args)} arguments")
            if (target.kind == "string" or _loose(target.kind)) and all(
                    arg.kind == parameter or _loose(arg.kind) for arg, parameter in zip(args, parameters)):
                return result
            # only strings have these members: a dyn receiver binds to them, and cel-go then
            # refuses arguments of other kinds ('dyn.(int)')
            if target.kind in ("string", "bytes", "int", "uint", "double", "bool", "list", "map", "dyn"):
                return self.no_overload(expr, args, target)
        signature = (expr.function, target.kind, tuple(arg.kind for arg in args))
        if signature in _EXTENSION_MEMBERS and (target.kind != "list" or target.params[0].kind == "string"):
            return _EXTENSION_MEMBERS[signature]
        raise NotChecked(f"member {expr.function}")

    def check_unwrap(self, expr: Call, args: list[CelType], target: CelType | None, function: str) -> CelType:
        """``optional.unwrap(l)`` and ``l.unwrapOpt()``: a list of optionals' values (a dyn
        binds to the list, a list of dyns to its optionals)."""
        unwrapped = target if target is not None else args[0]
        if _loose(unwrapped.kind):
            return CelType("list", (DYN,))
        if unwrapped.kind == "list" and (unwrapped.params[0].kind == "optional" or _loose(unwrapped.params[0].kind)):
            return CelType("list", (_unwrapped(unwrapped.params[0]),))
        return self.no_overload(expr, args, target, function)

    def check_map_insert(self, expr: Call, args: list[CelType]) -> CelType:
        """transformMap's and transformMapEntry's step: the accumulated map with an entry (a key
        and a value) or a map's entries added (cel-go's ``@mapInsert`` overloads)."""
        accumulator = args[0]
        added = CelType("map", (args[1], args[2])) if len(args) == 3 else args[1]
        if _loose(added.kind):
            return accumulator
        if added.kind != "map":
            # the accumulator's types are still free: cel-go's message names them dyn
            return self.no_overload(expr, args)
        if not _same(accumulator, added):
            raise NotChecked("entries of two types")
        return _bound(accumulator, added)

    def check_sort_by(self, expr: Call, target: CelType, args: list[CelType]) -> CelType:
        """``sortBy``'s sort of its receiver by the list of keys its expansion maps it to: cel-go's
        overloads take a list (a dyn binds to one) and keys of a type that has an order, and
        give the receiver's type."""
        keys = args[0]
        orderable = _loose(keys.kind) or keys.kind == "list" and (
            keys.params[0].kind in _ORDERED or _loose(keys.params[0].kind))
        if not orderable or not _accepts(target.kind, "list"):
            return self.no_overload(expr, args, target)
        return target if target.kind == "list" else DYN

    def check_comprehension(self, expr: Comprehension) -> CelType:
        range_type = self.check(expr.iter_range)
        if _loose(range_type.kind):
            first = second = DYN
        elif range_type.kind == "list":
            first, second = (INT, range_type.params[0]) if expr.iter_var2 else (range_type.params[0], DYN)
        elif range_type.kind == "map":
            first, second = range_type.params
        else:
            raise NotChecked(f"a comprehension over {range_type.kind}")
        accumulator = self.check(expr.accu_init)
        scope = [(expr.accu_var, accumulator), (expr.iter_var, first)]
        if expr.iter_var2:
            scope.append((expr.iter_var2, second))
        for name, value in scope:
            self.locals.setdefault(name, []).append(value)
        try:
            self.check(expr.loop_condition)
            step = self.check(expr.loop_step)
        finally:
            for name, _value in scope:
                self.locals[name].pop()
        if expr.accu_var == ACCUMULATOR and accumulator.kind == step.kind and step.kind in ("list", "map"):
            # map's and filter's [] takes its items' type, transformMap's {} its entries'
            accumulator = _bound(accumulator, step)
        self.locals.setdefault(expr.accu_var, []).append(accumulator)
        try:
            return self.check(expr.result)
        finally:
            self.locals[expr.accu_var].pop()


def _unwrapped(value: CelType) -> CelType:
    """An optional's value's type; a dyn's (or a failed node's) a dyn."""
    return value.params[0] if value.kind == "optional" else DYN


def _declared_name(operand: CelType, name: str) -> str:
    """The field ``name`` selects: a keyword (``namespace``) names its escaped field
    (``__namespace__``) too, as kube's type provider lets it (``recognizeKeywordAsFieldName``)."""
    if operand.kind == "object" and operand.decl is not None and name not in operand.decl.fields:
        escaped = escape(name)
        if escaped == f"__{name}__" and escaped in operand.decl.fields:
            return escaped
    return name


def _display(source: str, issue: _Issue) -> str:
    """cel-go's ``Error.ToDisplayString``: the message, its line and a caret under its column
    (full-width where the characters are wider than a byte)."""
    line_number = source.count("\n", 0, issue.offset) + 1
    column = issue.offset - (source.rfind("\n", 0, issue.offset) + 1)
    snippet = source.split("\n")[line_number - 1].replace("\t", " ")
    indicator = "".join("\uff0e" if len(char.encode()) > 1 else "." for char in snippet[:column])
    indicator += "\uff3e" if column < len(snippet) and len(snippet[column].encode()) > 1 else "^"
    return f"ERROR: <input>:{line_number}:{column + 1}: {issue.message}\n | {snippet}\n | {indicator}"


def _run(source: str, variables: Mapping[str, CelType], composited: Mapping[str, CelType],
         undeclared: frozenset[str]) -> tuple[CelType, list[_Issue]] | None:
    checker = _Checker(variables, composited, undeclared)
    try:
        return checker.check(parse(source)), checker.issues or checker.validator_issues
    except (NotParsed, NotChecked, RecursionError):
        return None


@dataclass(frozen=True)
class Checked:
    """What cel-go's checker makes of an expression: its errors as ``Issues.String()`` shows
    them ("" for none) and its type (dyn where it has errors, as kube declares a policy's
    variable that does not compile)."""

    issues: str
    result: CelType


def checked(source: str, variables: Mapping[str, CelType], composited: Mapping[str, CelType],
            undeclared: frozenset[str] = frozenset()) -> Checked | None:
    """``source`` checked over ``variables`` (and a policy's ``variables.name`` of the types in
    ``composited``); None where this module does not check the expression. A name in
    ``undeclared`` is one the environment leaves out (``params`` when its kind has no schema):
    a reference to it is an error."""
    run = _run(source, variables, composited, undeclared)
    if run is None:
        return None
    result, found = run
    issues = "\n".join(_display(source, issue) for issue in sorted(found, key=lambda issue: issue.offset))
    return Checked(issues, DYN if found else result)


def infer(source: str, variables: Mapping[str, CelType], composited: Mapping[str, CelType],
          undeclared: frozenset[str] = frozenset()) -> CelType | None:
    """The type of a policy's variable (``variables.name`` has it); None where this module
    cannot tell."""
    result = checked(source, variables, composited, undeclared)
    return result.result if result is not None else None


def check(source: str, variables: Mapping[str, CelType], composited: Mapping[str, CelType],
          undeclared: frozenset[str] = frozenset()) -> str | None:
    """cel-go's display of the type errors of ``source`` (see ``checked``): "" for none, None
    where this module does not check the expression."""
    result = checked(source, variables, composited, undeclared)
    return result.issues if result is not None else None


def output_type_name(value: CelType) -> str | None:
    """An expression's type as kube's ``must evaluate to bool but got int`` names it; None for
    a type this module does not name as cel-go does (an object type's)."""
    if value.kind == "null":
        return "null_type"  # cel-go's Type.String(), where its messages name the type "null"
    try:
        return type_name(value)
    except NotChecked:
        return None


@cache
def admission_types() -> dict[str, CelType]:
    """``request`` and ``namespaceObject`` as kube declares them (``BuildRequestType``,
    ``BuildNamespaceType``): objects of fixed fields; a request's ``options`` is a dyn."""
    request, namespace = decl_type(REQUEST_SCHEMA, False), decl_type(NAMESPACE_SCHEMA, False)
    assert request is not None and namespace is not None
    request.fields["options"] = DeclType("dyn")
    return {REQUEST: type_of_decl(request), NAMESPACE_OBJECT: type_of_decl(namespace)}
