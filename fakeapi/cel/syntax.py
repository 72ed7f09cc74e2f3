"""CEL's syntax tree, as cel-go's parser builds it (``parser/parser.go``, ``parser/macro.go``),
for what needs an expression's structure: the cost estimator (``cost``) and the type checker
(``typecheck``), which reports errors where cel-go locates them (each node's ``offset``).

``parse`` reads an expression (CEL's grammar, cel-spec ``doc/langdef.md``) into ``Expr`` nodes
with cel-go's shapes: operators are calls of cel-go's operator functions (``_&&_``, ``_[_]``,
``@in``, ``_?._`` for ``.?f``...), ``-1`` is a negative literal, an even run of ``!`` or ``-`` cancels out, and the
macros are expanded as cel-go expands them (``has`` into a presence test; ``all``, ``exists``,
``exists_one``, ``map`` and ``filter``, and the two-variable ``all``, ``exists``,
``existsOne``, ``transformList``, ``transformMap`` and ``transformMapEntry``, into comprehensions
over the accumulator ``@result``; ``optMap``, ``optFlatMap`` and ``sortBy`` into comprehensions
that bind a variable).

List and map literals keep which of their entries are marked optional (``[?x]``, ``{?k: v}``:
cel-go's ``OptionalIndices``).

It parses expressions the engine has already accepted, so it does not reproduce cel-go's syntax
errors: what it cannot read raises ``NotParsed`` (and ``cost`` then estimates nothing). Not
read: message literals (``T{f: v}``), leading-dot names (``.x``) and ``cel.bind`` (not in
kube's environment).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

#: The accumulator variable cel-go's macros declare (``parser.AccumulatorName``).
ACCUMULATOR = "@result"


class NotParsed(ValueError):
    """An expression (or a part of it) outside what ``parse`` reads."""


@dataclass(eq=False)
class Expr:
    """One node; nodes compare by identity (the estimator keys its tables by node).

    ``offset`` is where cel-go locates the node in the source (in characters): an operator's
    token, a member call's or a macro's ``(``, a selection's ``.``, an index's ``[``, a name's
    or a literal's first character. The nodes a macro expands into are located at its ``(``,
    as cel-go locates them, and marked ``expansion``."""

    offset: int = field(default=-1, kw_only=True)
    expansion: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class Literal(Expr):
    value: Any
    #: ``int``, ``uint``, ``double``, ``string``, ``bytes``, ``bool`` or ``null``
    kind: str


@dataclass(eq=False)
class Ident(Expr):
    name: str


@dataclass(eq=False)
class Select(Expr):
    operand: Expr
    field: str
    test_only: bool = False


@dataclass(eq=False)
class Call(Expr):
    function: str
    args: list[Expr]
    target: Expr | None = None


@dataclass(eq=False)
class CreateList(Expr):
    elements: list[Expr]
    #: the indexes of the elements marked optional (``[?x]``: included only when the optional
    #: ``x`` has a value, as its value)
    optional_indices: frozenset[int] = frozenset()


@dataclass(eq=False)
class CreateMap(Expr):
    entries: list[tuple[Expr, Expr]]
    #: the indexes of the entries marked optional (``{?k: v}``: set only when the optional
    #: ``v`` has a value, to its value)
    optional_indices: frozenset[int] = frozenset()


@dataclass(eq=False)
class Comprehension(Expr):
    iter_range: Expr
    iter_var: str
    accu_var: str
    accu_init: Expr
    loop_condition: Expr
    loop_step: Expr
    result: Expr
    #: the second variable of a two-variable comprehension (a list's item, a map's value; the
    #: first is then the index or the key)
    iter_var2: str | None = None


_TOKEN = re.compile(r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<string>[rR]?[bB]?[rR]?('''|\"\"\"|'|"))
  | (?P<number>0[xX][0-9a-fA-F]+[uU]?|\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+[uU]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>==|!=|<=|>=|&&|\|\||\.\?|\[\?|[-+*/%!<>?:.,()\[\]{}])
""", re.VERBOSE)
_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                   "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?"}
_RELATIONS = {"<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_", "in": "@in"}
_ADDITIONS = {"+": "_+_", "-": "_-_"}
_MULTIPLICATIONS = {"*": "_*_", "/": "_/_", "%": "_%_"}
_KEYWORD_LITERALS = {"true": (True, "bool"), "false": (False, "bool"), "null": (None, "null")}
_MACROS = frozenset(("all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap",
                     "transformMapEntry", "optMap", "optFlatMap", "sortBy"))
#: The variable ``sortBy`` binds its list to.
_SORT_BY_INPUT = "@__sortBy_input__"


def _tokens(source: str) -> tuple[list[tuple[str, Any]], list[int]]:
    """(kind, value): ``op``, ``ident``, or a literal's (kind, (value, literal kind)); and each
    token's offset in ``source``."""
    out: list[tuple[str, Any]] = []
    offsets: list[int] = []
    index = 0
    while index < len(source):
        match = _TOKEN.match(source, index)
        if match is None:
            raise NotParsed(f"unexpected {source[index]!r}")
        kind = match.lastgroup
        if kind == "string":
            prefix, quote = match.group("string")[:-len(match.group(3))], match.group(3)
            end = _string_end(source, match.end(), quote, "r" in prefix.lower())
            body = source[match.end():end]
            index = end + len(quote)
            out.append(("literal", _string_literal(body, prefix.lower())))
            offsets.append(match.start())
            continue
        text = match.group()
        index = match.end()
        if kind == "number":
            out.append(("literal", _number_literal(text)))
        elif kind in ("ident", "op"):
            out.append((kind, text))
        else:
            continue
        offsets.append(match.start())
    return out, offsets


def _string_end(source: str, start: int, quote: str, raw: bool) -> int:
    index = start
    while index < len(source):
        if source.startswith(quote, index):
            return index
        index += 2 if source[index] == "\\" and not raw else 1
    raise NotParsed("unterminated string")


def _string_literal(body: str, prefix: str) -> tuple[Any, str]:
    text = body if "r" in prefix else _unescape(body)
    if "b" in prefix:
        return text.encode("utf-8", "surrogatepass"), "bytes"
    return text, "string"


def _unescape(body: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        code = body[index + 1:index + 2]
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
            index += 2
        elif code in ("x", "X", "u", "U"):
            width = {"x": 2, "X": 2, "u": 4, "U": 8}[code]
            out.append(chr(int(body[index + 2:index + 2 + width], 16)))
            index += 2 + width
        elif code.isdigit():
            out.append(chr(int(body[index + 1:index + 4], 8)))
            index += 4
        else:
            raise NotParsed(f"invalid escape \\{code}")
    return "".join(out)


def _number_literal(text: str) -> tuple[Any, str]:
    if text[-1] in "uU":
        return int(text[:-1], 0), "uint"
    if text.lower().startswith("0x"):
        return int(text, 16), "int"
    if any(char in text for char in ".eE"):
        return float(text), "double"
    return int(text), "int"


class _Parser:
    def __init__(self, source: str) -> None:
        self.tokens, self.offsets = _tokens(source)
        self.index = 0

    def last_offset(self) -> int:
        """The offset of the token just read."""
        return self.offsets[self.index - 1]

    def peek(self, offset: int = 0) -> tuple[str, Any] | None:
        index = self.index + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def accept(self, op: str) -> bool:
        token = self.peek()
        if token is not None and token[0] in ("op", "ident") and token[1] == op:
            self.index += 1
            return True
        return False

    def expect(self, op: str) -> None:
        if not self.accept(op):
            raise NotParsed(f"expected {op!r}")

    def expression(self) -> Expr:
        condition = self.logical("||", "_||_", lambda: self.logical("&&", "_&&_", self.relation))
        if self.accept("?"):
            offset = self.last_offset()
            if_true = self.logical("||", "_||_", lambda: self.logical("&&", "_&&_", self.relation))
            self.expect(":")
            return Call("_?_:_", [condition, if_true, self.expression()], offset=offset)
        return condition

    def logical(self, op: str, function: str, operand: Any) -> Expr:
        # cel-go balances a run of && (||) into a tree; a cost is the same on any shape of it
        expr = operand()
        while self.accept(op):
            offset = self.last_offset()
            expr = Call(function, [expr, operand()], offset=offset)
        return expr

    def binary(self, operators: dict[str, str], operand: Any) -> Expr:
        expr = operand()
        while (token := self.peek()) is not None and token[0] in ("op", "ident") and token[1] in operators:
            self.index += 1
            offset = self.last_offset()
            expr = Call(operators[token[1]], [expr, operand()], offset=offset)
        return expr

    def relation(self) -> Expr:
        return self.binary(_RELATIONS, lambda: self.binary(_ADDITIONS, lambda: self.binary(_MULTIPLICATIONS, self.unary)))

    def unary(self) -> Expr:
        for op, function in (("!", "!_"), ("-", "-_")):
            count, offset = 0, self.offsets[self.index] if self.index < len(self.offsets) else -1
            while self.accept(op):
                count += 1
            if count:
                token = self.peek()
                if op == "-" and count == 1 and token is not None and token[0] == "literal" and token[1][1] in ("int", "double"):
                    self.index += 1
                    return self.member(Literal(-token[1][0], token[1][1], offset=offset))
                operand = self.member(self.primary())
                # cel-go locates a run of them at its first
                return operand if count % 2 == 0 else Call(function, [operand], offset=offset)
        return self.member(self.primary())

    def member(self, expr: Expr) -> Expr:
        while True:
            if self.accept("."):
                offset = self.last_offset()
                token = self.peek()
                if token is None or token[0] != "ident":
                    raise NotParsed("expected a field name")
                self.index += 1
                name = token[1]
                if self.accept("("):
                    call_offset = self.last_offset()
                    expr = _located(_member_call(expr, name, self.arguments(")"), call_offset), call_offset)
                else:
                    expr = Select(expr, name, offset=offset)
            elif self.accept("["):
                offset = self.last_offset()
                index = self.expression()
                self.expect("]")
                expr = Call("_[_]", [expr, index], offset=offset)
            elif self.accept(".?"):
                offset = self.last_offset()
                token = self.peek()
                if token is None or token[0] != "ident":
                    raise NotParsed("expected a field name")
                self.index += 1
                expr = Call("_?._", [expr, Literal(token[1], "string", offset=self.last_offset())], offset=offset)
            elif self.accept("[?"):
                offset = self.last_offset()
                index = self.expression()
                self.expect("]")
                expr = Call("_[?_]", [expr, index], offset=offset)
            else:
                return expr

    def arguments(self, closing: str) -> list[Expr]:
        """The arguments up to ``closing``, its opening token just read."""
        args: list[Expr] = []
        while not self.accept(closing):
            if args:
                self.expect(",")
                if self.accept(closing):
                    break
            args.append(self.expression())
        return args

    def primary(self) -> Expr:
        token = self.peek()
        if token is None:
            raise NotParsed("unexpected end")
        self.index += 1
        kind, value = token
        offset = self.last_offset()
        if kind == "literal":
            return Literal(*value, offset=offset)
        if kind == "ident":
            if value in _KEYWORD_LITERALS:
                return Literal(*_KEYWORD_LITERALS[value], offset=offset)
            if self.accept("("):
                call_offset = self.last_offset()
                return _global_call(value, self.arguments(")"), call_offset)
            if (following := self.peek()) is not None and following == ("op", "{"):
                raise NotParsed("message literal")
            return Ident(value, offset=offset)
        if value == "(":
            expr = self.expression()
            self.expect(")")
            return expr
        if value in ("[", "[?"):
            return self.list_literal(offset, first_optional=value == "[?")
        if value == "{":
            return self.map_literal(offset)
        raise NotParsed(f"unexpected {value!r}")

    def list_literal(self, offset: int, first_optional: bool) -> Expr:
        """The list literal whose ``[`` was just read (``[?``, one token, when its first element
        is marked optional)."""
        elements: list[Expr] = []
        optional_indices: set[int] = set()
        if first_optional:
            optional_indices.add(0)
            elements.append(self.expression())
        while not self.accept("]"):
            if elements:
                self.expect(",")
                if self.accept("]"):
                    break
            if self.accept("?"):
                optional_indices.add(len(elements))
            elements.append(self.expression())
        return CreateList(elements, frozenset(optional_indices), offset=offset)

    def map_literal(self, offset: int) -> Expr:
        entries: list[tuple[Expr, Expr]] = []
        optional_indices: set[int] = set()
        while not self.accept("}"):
            if entries:
                self.expect(",")
                if self.accept("}"):
                    break
            if self.accept("?"):
                optional_indices.add(len(entries))
            key = self.expression()
            self.expect(":")
            entries.append((key, self.expression()))
        return CreateMap(entries, frozenset(optional_indices), offset=offset)


def _global_call(function: str, args: list[Expr], offset: int) -> Expr:
    if function == "has":
        if len(args) != 1 or not isinstance(args[0], Select):
            raise NotParsed("invalid argument to has() macro")
        return Select(args[0].operand, args[0].field, test_only=True, offset=offset)
    return Call(function, args, offset=offset)


def _member_call(target: Expr, function: str, args: list[Expr], offset: int) -> Expr:
    if function not in _MACROS or not args or not isinstance(args[0], Ident) or function == "existsOne" and len(args) != 3:
        # (kube's environment has no one-variable existsOne)
        return Call(function, args, target, offset=offset)
    if function in ("optMap", "optFlatMap", "sortBy"):
        return _binding_macro(target, function, args, offset)
    variables = [arg.name for arg in args[:2] if isinstance(arg, Ident)]
    two_variables = function in ("all", "exists", "exists_one", "existsOne") and len(args) == 3 or (
        function.startswith("transform") and len(args) in (3, 4))
    if two_variables and (len(variables) != 2 or variables[0] == variables[1]):
        raise NotParsed("iteration variables must be two distinct names")
    if ACCUMULATOR in variables:
        raise NotParsed("iteration variable overwrites accumulator variable")
    body = args[2:] if two_variables else args[1:]
    if function in ("all", "exists", "exists_one", "existsOne") and len(body) == 1:
        init, condition, step, result = _quantifier(function, body[0])
    elif function == "map" and len(body) in (1, 2) or function == "transformList" and two_variables:
        init, condition, result = CreateList([]), Literal(True, "bool"), Ident(ACCUMULATOR)
        step = Call("_+_", [Ident(ACCUMULATOR), CreateList([body[-1]])])
    elif function == "filter" and len(body) == 1:
        init, condition, result = CreateList([]), Literal(True, "bool"), Ident(ACCUMULATOR)
        body = [body[0], Ident(variables[0])]
        step = Call("_+_", [Ident(ACCUMULATOR), CreateList([body[-1]])])
    elif function in ("transformMap", "transformMapEntry") and two_variables:
        init, condition, result = CreateMap([]), Literal(True, "bool"), Ident(ACCUMULATOR)
        inserted = [Ident(variables[0]), body[-1]] if function == "transformMap" else [body[-1]]
        step = Call("cel.@mapInsert", [Ident(ACCUMULATOR), *inserted])
    else:
        raise NotParsed(f"{function} with {len(args)} arguments")
    if function not in ("all", "exists", "exists_one", "existsOne") and len(body) == 2:
        step = Call("_?_:_", [body[0], step, Ident(ACCUMULATOR)])  # the filter
    return Comprehension(target, variables[0], ACCUMULATOR, init, condition, step, result,
                         variables[1] if two_variables else None, offset=offset)


def children(expr: Expr) -> list[Expr]:
    """The nodes directly under ``expr``, in a new list."""
    if isinstance(expr, Select):
        return [expr.operand]
    if isinstance(expr, Call):
        return [*expr.args] if expr.target is None else [expr.target, *expr.args]
    if isinstance(expr, CreateList):
        return [*expr.elements]
    if isinstance(expr, CreateMap):
        return [part for entry in expr.entries for part in entry]
    if isinstance(expr, Comprehension):
        return [expr.iter_range, expr.accu_init, expr.loop_condition, expr.loop_step, expr.result]
    return []


def _located(expr: Expr, offset: int) -> Expr:
    """A member call's node, the nodes a macro expanded it into (those built here, not read:
    no offset yet; its root among them) located at the macro's ``(`` and marked ``expansion``;
    the nodes read from the source (and a macro inside, already located) are left as they
    are."""
    if expr.offset < 0:
        expr.offset, expr.expansion = offset, True
    pending = children(expr)
    while pending:
        node = pending.pop()
        if node.offset < 0:
            node.offset, node.expansion = offset, True
            pending += children(node)
    return expr


def _binding_macro(target: Expr, function: str, args: list[Expr], offset: int) -> Expr:
    """``optMap``, ``optFlatMap`` and ``sortBy``, which bind a variable (cel-go's comprehension
    over an empty list that only computes its result)."""
    if len(args) != 2:
        raise NotParsed(f"{function} with {len(args)} arguments")
    if function == "sortBy":
        if isinstance(target, (Literal, CreateMap)):
            raise NotParsed("sortBy can only be applied to a list, identifier, comprehension, call or select expression")
        keys = _member_call(Ident(_SORT_BY_INPUT), "map", args, offset)
        return _bind(_SORT_BY_INPUT, target, Call("@sortByAssociatedKeys", [keys], Ident(_SORT_BY_INPUT)))
    assert isinstance(args[0], Ident)
    mapped = _bind(args[0].name, Call("value", [], copy.deepcopy(target)), args[1])
    if function == "optMap":
        mapped = Call("optional.of", [mapped])
    return Call("_?_:_", [Call("hasValue", [], target), mapped, Call("optional.none", [])])


def _bind(variable: str, value: Expr, result: Expr) -> Comprehension:
    return Comprehension(CreateList([]), "#unused", variable, value, Literal(False, "bool"), Ident(variable), result)


def _quantifier(function: str, predicate: Expr) -> tuple[Expr, Expr, Expr, Expr]:
    """The accumulator's start, the loop's condition, its step and the result of ``all``,
    ``exists`` and ``exists_one``."""
    if function == "all":
        return (Literal(True, "bool"), Call("@not_strictly_false", [Ident(ACCUMULATOR)]),
                Call("_&&_", [Ident(ACCUMULATOR), predicate]), Ident(ACCUMULATOR))
    if function == "exists":
        return (Literal(False, "bool"), Call("@not_strictly_false", [Call("!_", [Ident(ACCUMULATOR)])]),
                Call("_||_", [Ident(ACCUMULATOR), predicate]), Ident(ACCUMULATOR))
    return (Literal(0, "int"), Literal(True, "bool"),
            Call("_?_:_", [predicate, Call("_+_", [Ident(ACCUMULATOR), Literal(1, "int")]), Ident(ACCUMULATOR)]),
            Call("_==_", [Ident(ACCUMULATOR), Literal(1, "int")]))


def parse(source: str) -> Expr:
    """The syntax tree of ``source`` (raises ``NotParsed``)."""
    parser = _Parser(source)
    expr = parser.expression()
    if parser.peek() is not None:
        raise NotParsed("trailing input")
    return expr
