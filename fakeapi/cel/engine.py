"""Compiling and evaluating CEL expressions as ``k8s.io/apiserver/pkg/cel`` does, on the Rust
CEL interpreter (PyPI ``common-expression-language``, module ``cel``; why this engine:
docs/dependencies.md).

``Environment(variables)`` declares the variables an expression may use (``self``, ``oldSelf``;
``object``, ``request``... for admission); ``compile`` parses an expression once (compiled
programs are cached by environment and text, so a rule is compiled once however many CRD
versions and requests use it) and refuses what cel-go refuses without types: syntax errors,
with cel-go's text (the engine's parser is ANTLR on CEL's grammar, so its messages are cel-go's
but for the margin, which is rewritten), and references to undeclared variables and functions,
with cel-go's ``undeclared reference to 'x' (in container '')`` at cel-go's position.
``Program.evaluate`` runs it with bindings; runtime errors carry cel-go's texts (``no such key:
x``, ``division by zero``, ``integer overflow``, ``no such overload``). Several expressions over
the same values (a request's policies, a schema node's rules) share an ``Activation``: the
engine converts a Python value into its own at about 4 µs a scalar, 250 µs for a small pod, on
each evaluation given a mapping, once for all evaluations given an activation.

Where this differs from cel-go, and why:

- no type checker: cel-go checks every expression against the declared types (``found no
  matching overload for '_==_' applied to '(int, string)'``, ``undefined field 'b'``, ``cel
  expression must evaluate to a bool``); ``checks`` finds what variables' schemas tell of
  these, the others compile here and fail (or yield a non-bool) at evaluation;
- no runtime cost accounting: cel-go counts each evaluation's cost and stops it past a limit;
  the engine counts none. ``runtime_cost`` counts cel-go's actual cost on ``syntax``'s parse
  of the expression and the values it is evaluated with, beside the engine, where kube's
  limits can matter (its callers enforce kube's per-call limit and budgets); the static
  estimate cel-go makes at compile time is ``cost``'s;
- the optional syntax does not parse in this engine (the optional field and index ``self.?x``,
  ``l[?0]``, the optional entries of list and map literals ``[?x]``, ``{?'k': v}``), nor do
  ``optMap``/``optFlatMap``, cel-go's ``sortBy`` and two-variable comprehensions: they are
  rewritten into calls of library functions before parsing (``_engine_source``, which also
  makes ``size`` count a string's code points as cel-go does, not its bytes). A
  comprehension's variable bound again inside it (``l.all(x, x.all(x, x > 0))``) is the inner
  one there, as in cel-go. The values these functions handle cross into Python and back: a
  uint comes back an int (``type()`` tells them apart, ``==`` does not);
- a ``sortBy`` whose key expression fails fails with that failure's text; cel-go's expansion
  then panics, and kube reports ``internal error: interface conversion: *types.Err is not
  traits.Lister: missing method Add`` (an error inside the engine's ``map`` cannot be caught);
- an optional entry of a list or map literal that is a dyn and no optional fails at evaluation
  with cel-go's runtime error; kube's validator of homogeneous literals fails on it at compile
  time (a Go panic), which the engine does not reproduce.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .library import KUBE_LIBRARY, NAMESPACES
from .projection import WHOLE, Need, project, reads, union
from .rust import interpreter
from .formatting import Shape, check_format
from .syntax import Call, CreateList, CreateMap, Expr, Literal, NotParsed, children, parse


# The engine logs each failing library call on the ``cel`` logger before raising it; the
# failure reaches the caller as an EvaluationError (kube's rule error), so the log is noise.
logging.getLogger("cel").propagate = False
logging.getLogger("cel").addHandler(logging.NullHandler())


class CompileError(ValueError):
    """An expression cel-go would refuse; ``str()`` is cel-go's issues text (``ERROR: <input>:...``),
    ``issues`` each issue with its offset in the expression (cel-go lists them by position)."""

    def __init__(self, issues: list[tuple[int, str]]) -> None:
        super().__init__("\n".join(text for _offset, text in issues))
        self.issues = issues


class UnsupportedSyntax(CompileError):
    """An expression the engine cannot parse, even rewritten (``_engine_source``), in syntax it
    calls unsupported: none of kube's syntax is known to end here; a caller accepts it (as kube
    might) without evaluating it."""


class EvaluationError(RuntimeError):
    """An evaluation that failed; ``str()`` is cel-go's error text (``no such key: x``)."""


#: What the engine provides natively: CEL's standard functions and macros, the timestamp and
#: duration accessors, and the optional type's functions (its ``optional.ofNonZeroValue`` takes
#: the Unix epoch for a timestamp's zero value, cel-go Go's zero time, year 1).
_NATIVE_FUNCTIONS = frozenset((
    "size", "contains", "startsWith", "endsWith", "matches", "int", "uint", "double", "string", "bytes",
    "bool", "timestamp", "duration", "dyn", "type", "has", "all", "exists", "exists_one", "map", "filter",
    "getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getHours",
    "getMinutes", "getSeconds", "getMilliseconds", "of", "ofNonZeroValue", "none", "hasValue", "value", "orValue", "or",
))
#: Identifiers every expression may use: the type names (``type(x) == int``).
_TYPE_NAMES = frozenset(("int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type"))
#: cel-go's two-variable comprehensions (``ext.TwoVarComprehensions``), which the engine lacks:
#: each is rewritten into a one-variable macro over the receiver's ``_entries()`` ([key or
#: index, value] pairs), then a library function making a map of pairs where cel-go makes one.
_TWO_VARIABLE = {"all": ("all", ""), "exists": ("exists", ""), "existsOne": ("exists_one", ""),
                 "exists_one": ("exists_one", ""), "transformList": ("map", ""),
                 "transformMap": ("map", "._pairsToMap()"), "transformMapEntry": ("map", "._mergeMaps()")}
#: The macros kube's environment declares (cel-go's, ``ext.TwoVarComprehensions``, the optional
#: library's, ``ext.Lists``'s ``sortBy``; no one-variable ``existsOne``): for each count of
#: arguments a form of the macro takes, how many variables it binds, its first arguments. A
#: call with another count is no macro's, but a call of the undeclared function of that name.
_MACRO_FORMS = {"all": {2: 1, 3: 2}, "exists": {2: 1, 3: 2}, "exists_one": {2: 1, 3: 2}, "existsOne": {3: 2},
                "map": {2: 1, 3: 1}, "filter": {2: 1}, "transformList": {3: 2, 4: 2}, "transformMap": {3: 2, 4: 2},
                "transformMapEntry": {3: 2, 4: 2}, "optMap": {2: 1}, "optFlatMap": {2: 1}, "sortBy": {2: 1}}
#: How the variable a rewritten two-variable comprehension binds to each [key, value] pair
#: begins; it ends with the comprehension's token index, so one inside another has its own.
_ENTRY_PREFIX = "__entry"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING_START = re.compile(r"""[rRbB]{0,2}('''|\"\"\"|'|")""")


#: The tokens ``tokens`` yields for a string (or bytes) literal and for a number literal.
STRING_LITERAL, NUMBER_LITERAL = "\x00string", "\x00number"


def tokens(source: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each identifier and punctuation character; a literal is one
    ``STRING_LITERAL`` or ``NUMBER_LITERAL`` token; a comment (``//`` to the end of its line)
    none."""
    index, length = 0, len(source)
    while index < length:
        char = source[index]
        literal = _STRING_START.match(source, index) if char in "'\"rRbB" else None
        if literal is not None:
            yield index, STRING_LITERAL
            quote = literal.group(1)
            index = literal.end()
            while index < length and not source.startswith(quote, index):
                index += 2 if source[index] == "\\" else 1
            index += len(quote)
            continue
        identifier = _IDENTIFIER.match(source, index)
        if identifier is not None:
            yield index, identifier.group()
            index = identifier.end()
        elif char.isspace():
            index += 1
        elif source.startswith("//", index):
            end = source.find("\n", index)
            index = length if end < 0 else end
        elif char.isdigit():
            yield index, NUMBER_LITERAL
            index += 1
            while index < length and (source[index].isalnum() or source[index] == "."):
                index += 1
        else:
            yield index, char
            index += 1


def issue(source: str, offset: int, message: str) -> tuple[int, str]:
    """cel-go's rendering of one issue: ``ERROR: <input>:line:col: message``, the line, a caret."""
    line_start = source.rfind("\n", 0, offset) + 1
    line_end = source.find("\n", offset)
    line = source[line_start:] if line_end < 0 else source[line_start:line_end]
    column = offset - line_start
    caret = "." * column + "^"
    return offset, f"ERROR: <input>:{source.count(chr(10), 0, offset) + 1}:{column + 1}: {message}\n | {line}\n | {caret}"


def _engine_parse_error(error: Exception) -> str:
    """The engine's parse error with cel-go's margin (`` | `` where the engine prints ``| ``)."""
    text = str(error)
    text = text[text.find("ERROR: "):] if "ERROR: " in text else text
    return re.sub(r"(?m)^\| ", " | ", text)


class Program:
    """A compiled expression: evaluated with ``evaluate``; ``references`` tells whether it uses a
    variable (kube runs a CRD rule that reads ``oldSelf`` only on updates)."""

    __slots__ = ("source", "compiled", "variables", "library", "functions", "functions_key", "_reads")

    def __init__(self, source: str, compiled: Any, variables: frozenset[str], library: _Context) -> None:
        self.source = source
        #: The engine's program.
        self.compiled = compiled
        #: The declared variables it reads.
        self.variables = variables
        self.library = library
        #: The library functions it calls (by their name or, namespaced, by their last part),
        #: and the few that the engine's rewrites call (``_sizeInCodePoints``...): most programs
        #: then need the same ones and share an activation's context.
        called = set(compiled.functions())
        self.functions = {name: function for name, function in library.functions.items()
                          if name in called or name.rpartition(".")[2] in called or name.startswith("_")}
        #: ``functions`` as a key of an activation's contexts.
        self.functions_key = frozenset(self.functions)
        self._reads: tuple[dict[str, Need], Any] | None = None

    def reads(self) -> tuple[dict[str, Need], Any]:
        """What it reads of each variable (``projection``), and a hashable form of that; worked
        out at the first evaluation that asks."""
        if self._reads is None:
            needs = reads(self.source, self.variables)
            self._reads = needs, tuple(sorted((name, need.key()) for name, need in needs.items()))
        return self._reads

    def references(self, name: str) -> bool:
        return name in self.variables

    def evaluate(self, bindings: Mapping[str, Any] | Activation, varying: Mapping[str, Any] | None = None) -> Any:
        """The expression's value with ``bindings`` (variable name to CEL value, see ``values``),
        or an activation's values and ``varying``, values that change between evaluations."""
        try:
            if isinstance(bindings, Activation):
                return bindings.execute(self, varying or {})
            return self.library.execute(self.compiled, bindings)
        except KeyError as error:
            raise EvaluationError(f"no such key: {error.args[0] if error.args else ''}") from None
        except ZeroDivisionError:
            raise EvaluationError("division by zero") from None
        except OverflowError:
            raise EvaluationError("integer overflow") from None
        except IndexError as error:
            raise EvaluationError(str(error)) from None
        except TypeError:
            raise EvaluationError("no such overload") from None
        except (RuntimeError, ValueError) as error:
            raise EvaluationError(_runtime_message(str(error))) from None


_LIBRARY_FAILURE = re.compile(r"Python function call failed: \w+: (.*)\. Check function arguments", re.S)
_UNDEFINED = re.compile(r"Undefined variable or function: '([^']*)'")


def _runtime_message(text: str) -> str:
    """cel-go's text for an engine error the engine reports as a RuntimeError."""
    failure = _LIBRARY_FAILURE.search(text)
    if failure:
        return failure.group(1)
    undefined = _UNDEFINED.search(text)
    if undefined:
        return f"no such attribute(s): {undefined.group(1)}"
    if "overload" in text.lower() or "Unsupported operation" in text:
        return "no such overload"
    return text


def optional(value: Any, present: bool) -> Any:
    """A CEL ``optional``: of ``value`` when ``present``, else ``optional.none()``."""
    return interpreter().OptionalValue.of(value) if present else interpreter().OptionalValue.none()


class _Context:
    """The engine's evaluation context of one function library, built once: the functions are
    wrapped for the engine when a context is built, which costs 40 µs a time against 6 µs for
    evaluating a simple rule. Variables are resolved from the bindings of the evaluation under
    way (evaluations do not nest: library functions evaluate nothing); a binding to ``null``,
    which the engine's resolver cannot tell from an unbound name, takes a context of its own."""

    __slots__ = ("functions", "_shared", "_bindings")

    def __init__(self, functions: Mapping[str, Callable[..., Any]]) -> None:
        self.functions = dict(functions)
        self._shared = interpreter().Context(None, self.functions)
        self._shared.set_variable_resolver(self._resolve)
        self._bindings: Mapping[str, Any] = {}

    def _resolve(self, name: str) -> Any:
        return self._bindings.get(name)

    def execute(self, program: Any, bindings: Mapping[str, Any]) -> Any:
        if any(value is None for value in bindings.values()):
            return program.execute(interpreter().Context(dict(bindings), self.functions))
        self._bindings = bindings
        try:
            return program.execute(self._shared)
        finally:
            self._bindings = {}


def _reads_of(programs: Iterable[Program]) -> tuple[dict[str, Need], dict[str, Callable[..., Any]]]:
    """What ``programs`` read of each variable they use, merged, and the functions they call."""
    needs: dict[str, Need] = {}
    functions: dict[str, Callable[..., Any]] = {}
    for program in programs:
        read = program.reads()[0]
        for name in program.variables:
            need = read.get(name, WHOLE)
            needs[name] = need if name not in needs else union(needs[name], need)
        functions.update(program.functions)
    return needs, functions


class ProgramGroup:
    """Programs each of which is evaluated under one activation (a policy's validations), and
    per function library what those of it read of each variable, merged (``projection.union``:
    a program given more of a value than it reads answers the same), and the functions they
    call: worked out at the first activation that asks, kept for the next."""

    __slots__ = ("programs", "_shared")

    def __init__(self, programs: Iterable[Program]) -> None:
        self.programs = tuple(programs)
        # by the library's id: each is alive while a program of this group holds it
        self._shared: dict[int, tuple[tuple[Program, ...], dict[str, Need], dict[str, Callable[..., Any]]]] = {}

    def shared_with(self, program: Program) -> tuple[tuple[Program, ...], dict[str, Need],
                                                     dict[str, Callable[..., Any]]] | None:
        """The programs of ``program``'s library, their merged reads and their functions; None
        when it is not of the group."""
        if not any(program is member for member in self.programs):
            return None
        shared = self._shared.get(id(program.library))
        if shared is None:
            sharing = tuple(member for member in self.programs if member.library is program.library)
            shared = self._shared[id(program.library)] = (sharing, *_reads_of(sharing))
        return shared


class Activation:
    """Values bound once for several evaluations (cel-go's activation). The engine converts a
    value at each evaluation that reads it when given a mapping; an activation hands the engine
    a context of its own holding the values, converted at its first evaluation and kept for the
    next. A context holds the values and library functions its programs read (wrapping a
    function costs about 2.5 µs, converting a value about 4 µs a scalar): programs reading the
    same ones share it. Values that differ between evaluations (a policy's ``variables``) are
    ``varying``: each is converted when read, and may not be null (the engine's resolver cannot
    tell null from unbound: a null one is bound for that evaluation alone).

    The bound values must not change while the activation is in use: the engine's copies would
    not follow.

    ``together``: programs the caller evaluates each of under this activation (a policy's
    validations): the first of them evaluated builds one context for all of them that share its
    function library, where each would build its own (a context costs its conversion and its
    functions' wrapping: two thirds of evaluating a policy's validation of a pod)."""

    __slots__ = ("_values", "_contexts", "_varying", "_together")

    def __init__(self, values: Mapping[str, Any], together: ProgramGroup | None = None) -> None:
        self._values = dict(values)
        self._contexts: dict[tuple[Any, frozenset[str]], Any] = {}
        self._varying: Mapping[str, Any] = {}
        self._together = together

    def _resolve(self, name: str) -> Any:
        # None falls through to the values bound in the engine's context
        return self._varying.get(name)

    def _context(self, needs: Mapping[str, Need], functions: Mapping[str, Callable[..., Any]]) -> Any:
        """A context holding ``needs`` of the values and ``functions``."""
        values = {name: project(self._values[name], need) for name, need in needs.items() if name in self._values}
        context = interpreter().Context(values, functions)
        context.set_variable_resolver(self._resolve)
        return context

    def _shared_context(self, program: Program) -> Any:
        """The context of the programs evaluated together with ``program``, registered for each
        of them; None when it is not one of them or their values cannot all be converted (each
        program then converts its own, and only one that reads what fails fails)."""
        shared = None if self._together is None else self._together.shared_with(program)
        if shared is None:
            return None
        sharing, needs, functions = shared
        try:
            context = self._context(needs, functions)
        except Exception:  # noqa: BLE001 - the engine's conversion error, met again by the program that reads it
            return None
        for other in sharing:
            self._contexts[(other.reads()[1], other.functions_key)] = context
        return context

    def execute(self, program: Program, varying: Mapping[str, Any]) -> Any:
        if any(value is None for value in varying.values()):
            return program.library.execute(program.compiled, {**self._values, **varying})
        key = (program.reads()[1], program.functions_key)
        context = self._contexts.get(key)
        if context is None:
            context = self._shared_context(program)
            if context is None:
                context = self._contexts[key] = self._context(*_reads_of((program,)))
        self._varying = varying
        try:
            return program.compiled.execute(context)
        finally:
            self._varying = {}


class Environment:
    """The declared variables and functions expressions compile against (kube's ``EnvSet``)."""

    __slots__ = ("variables", "functions", "_context")

    def __init__(self, variables: Iterable[str], functions: Mapping[str, Callable[..., Any]] = KUBE_LIBRARY) -> None:
        self.variables = frozenset(variables)
        self.functions = functions
        self._context: _Context | None = None  # made at the first compile (it imports the interpreter)

    def compile(self, source: str) -> Program:
        """``source`` compiled, or ``CompileError`` with cel-go's text."""
        if self._context is None:
            self._context = _Context(self.functions)
        return _compile(source, self.variables, self._context)


#: Compiled programs (and compile errors) by (text, declared variables, function library): an
#: expression is compiled once, whatever CRD, version or request uses it. Bounded: cleared
#: when full (CRDs are few; their rules are recompiled on next use).
_PROGRAMS: dict[tuple[str, frozenset[str], int], Program | CompileError] = {}
_MAX_PROGRAMS = 8192


def _compile(source: str, variables: frozenset[str], context: _Context) -> Program:
    key = (source, variables, id(context))
    found = _PROGRAMS.get(key)
    if found is None:
        try:
            found = _build(source, variables, context)
        except CompileError as error:
            found = error
        if len(_PROGRAMS) >= _MAX_PROGRAMS:
            _PROGRAMS.clear()
        _PROGRAMS[key] = found
    if isinstance(found, CompileError):
        raise found
    return found


#: A macro call that binds variables: their names, and the token indexes its arguments span
#: (``start`` to ``end``, exclusive), where the names are bound (a comprehension's range is its
#: receiver, outside them).
_Binding = tuple[tuple[str, ...], int, int]


def _bindings(toks: list[tuple[int, str]]) -> list[_Binding]:
    """Every macro call of the expression that binds variables, in source order (an enclosing
    call before the calls it encloses)."""
    found = []
    for dot in range(len(toks) - 2):
        if toks[dot][1] == "." and toks[dot + 1][1] in _MACRO_FORMS and toks[dot + 2][1] == "(":
            close = _closing_index(toks, dot + 2)
            if close is None:
                continue
            names = _bound_names(toks[dot + 1][1], toks, split_arguments(toks, dot + 3, close))
            if names:
                found.append((names, dot + 3, close))
    return found


def _bound_names(macro: str, toks: list[tuple[int, str]], arguments: list[list[int]]) -> tuple[str, ...]:
    """The variables a call of ``macro`` with ``arguments`` binds: the first two arguments of a
    two-variable comprehension, the first of a one-variable macro; none when the arguments are
    not a macro's."""
    count = _MACRO_FORMS[macro].get(len(arguments), 0)
    variables = arguments[:count]
    if not all(_is_name(toks, variable) for variable in variables):
        return ()
    return tuple(toks[variable[0]][1] for variable in variables)


def _ends_operand(text: str) -> bool:
    """Whether a token ends an operand: a ``[`` after it is an index (else a list literal), a
    ``{`` a message literal's (else a map literal)."""
    return text in (")", "]", "}", STRING_LITERAL, NUMBER_LITERAL) or (text[:1].isidentifier() and text != "in")


def _engine_source(source: str, toks: list[tuple[int, str]], bindings: list[_Binding]) -> tuple[str, frozenset[str]] | None:
    """``source`` as the engine runs it, and the variables the rewriting binds: ``source``
    rewritten where the engine's CEL is not cel-go's by local rewrites into library calls
    (receiver-style calls need no receiver's extent): ``x.?f`` is ``x._optField('f')``, ``x[?k]``
    is ``x._optIndex(k)``, a list or map literal with entries marked optional is
    ``_optionalElements``/``_optionalEntries`` of its entries (``_literal_edits``), ``optMap``
    and ``optFlatMap`` are ``map`` over the optional's value (``_optional_map_edits``; the
    engine parses none of these), ``sortBy`` is a ``map`` to [element, key] pairs sorted by a
    library function (``_sort_by_edits``), ``size(x)`` and ``x.size()`` are
    ``_sizeInCodePoints`` (the engine counts a string's bytes, cel-go its code points),
    two-variable comprehensions are one-variable ones over entries (``_TWO_VARIABLE``;
    ``existsOne`` is ``exists_one``). None:
    what this cannot rewrite (brackets that do not balance: a syntax error the engine reports).
    ``bindings`` are the expression's (``_bindings``)."""
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
    entries: set[str] = set()
    for index in range(len(toks) - 1):
        (offset, text), (next_offset, next_text) = toks[index], toks[index + 1]
        is_call = index + 2 < len(toks) and toks[index + 2][1] == "("
        follows_operand = index > 0 and _ends_operand(toks[index - 1][1])
        found: list[tuple[int, int, str]] | None = []
        if text == "size" and next_text == "(":
            found = [(offset, offset + len(text), "_sizeInCodePoints")]
        elif text == "." and next_text in _TWO_VARIABLE and is_call:
            entry = f"{_ENTRY_PREFIX}{index}__"
            entries.add(entry)
            found = _comprehension_edits(source, toks, index, bindings, entry)
        elif text == "." and next_text in ("optMap", "optFlatMap") and is_call:
            found = _optional_map_edits(source, toks, index)
        elif text == "." and next_text == "sortBy" and is_call:
            found = _sort_by_edits(source, toks, index)
        elif text == "." and next_text in ("map", "filter") and is_call:
            # the engine's parser words cel-go's error of another macro for these
            counts = (2, 3) if next_text == "map" else (2,)
            found = None if _variable_and_body(source, toks, index, "argument is not an identifier", counts) is None else []
        elif text == "." and next_text == "?" and index + 2 < len(toks) and toks[index + 2][1][:1].isidentifier():
            name_offset, name = toks[index + 2]
            found = [(offset, name_offset + len(name), f"._optField('{name}')")]
        elif text == "[" and next_text == "?" and follows_operand:
            close = closing(toks, index)
            found = None if close is None else [(offset, next_offset + 1, "._optIndex("), (close, close + 1, ")")]
        elif text in ("[", "{") and not follows_operand:
            found = _literal_edits(toks, index)
        if found is None:
            return None
        edits += found
    # Each construct's edits replace tokens no other construct's do (a closing bracket is its
    # own construct's), so they do not overlap; the only insertion (``transformMap``'s) sorts
    # before a replacement starting where it is, and so lands before it.
    edits.sort()
    if any(earlier[1] > later[0] for earlier, later in zip(edits, edits[1:])):
        return None
    for start, end, replacement in reversed(edits):
        source = source[:start] + replacement + source[end:]
    return source, frozenset(entries)


def _is_field_name(toks: list[tuple[int, str]], index: int) -> bool:
    """Whether the identifier ``toks[index]`` names a field (``x.f``, ``x.?f``) or a function
    (``f(x)``, ``x.f()``) rather than a variable."""
    before = toks[index - 1][1] if index > 0 else ""
    return before == "." or (before == "?" and index > 1 and toks[index - 2][1] == ".") or (
        index + 1 < len(toks) and toks[index + 1][1] == "(")


def _comprehension_edits(source: str, toks: list[tuple[int, str]], dot: int, bindings: list[_Binding],
                         entry: str) -> list[tuple[int, int, str]] | None:
    """The edits of the two-variable comprehension whose ``.`` is ``toks[dot]`` (none for a
    one-variable macro's or no macro's call): ``R.all(k, v, p)`` as ``R._entries().all(entry,
    p')`` where ``p'`` reads ``entry[0]`` for ``k`` and ``entry[1]`` for ``v``
    (``transformList``/``Map``/``MapEntry`` with a filter: ``.filter(entry, f').map(...)``) but
    where a macro inside ``p`` binds the name again (its own variable there). ``entry`` is this comprehension's alone: a comprehension
    inside ``p`` has its own, so ``p`` reads this one's pair there too. None: not parseable
    here. Raises cel-go's ``CompileError`` for variables that are no names or one name twice."""
    name = toks[dot + 1][1]
    macro, finish = _TWO_VARIABLE[name]
    open_index = dot + 2
    end = _closing_index(toks, open_index)
    if end is None:
        return None
    close = toks[end][0]
    arguments = split_arguments(toks, open_index + 1, end)
    if _MACRO_FORMS[name].get(len(arguments)) != 2:
        return []  # a one-variable macro's, or no macro's
    _check_iteration_variables(source, toks, arguments[:2])
    names = _bound_names(name, toks, arguments)
    if len(names) != 2:
        return None  # an empty argument: a syntax error
    key, value = names
    bodies = arguments[2:]
    edits = []
    head_end = toks[bodies[0][0]][0] if bodies[0] else close
    if len(bodies) == 2:  # a filter, then the transform
        filter_start = toks[bodies[0][0]][0]
        comma = toks[bodies[1][0] - 1][0]
        edits.append((toks[dot][0], filter_start, f"._entries().filter({entry}, "))
        edits.append((comma, toks[bodies[1][0]][0], f").{macro}({entry}, "))
    else:
        edits.append((toks[dot][0], head_end, f"._entries().{macro}({entry}, "))
    nested = [binding for binding in bindings if open_index + 1 < binding[1] and binding[2] <= end]
    for i in (i for part in bodies for i in part):
        text = toks[i][1]
        if text in names and not _is_field_name(toks, i) and not any(
                text in bound and start <= i < stop for bound, start, stop in nested):
            edits.append((toks[i][0], toks[i][0] + len(text), f"{entry}[{0 if text == key else 1}]"))
    if name == "transformMap":
        first = toks[bodies[-1][0]][0]
        edits.append((first, first, f"[{entry}[0], "))
    edits.append((close, close + 1, ("]" if name == "transformMap" else "") + ")" + finish))
    return edits


def _is_name(toks: list[tuple[int, str]], argument: list[int]) -> bool:
    return len(argument) == 1 and toks[argument[0]][1][:1].isidentifier()


def _argument_error(source: str, toks: list[tuple[int, str]], argument: list[int], message: str) -> CompileError:
    """cel-go's error ``message`` of a macro's argument (its tokens' indexes), located where the
    argument's syntax tree's root is (a selection at its '.')."""
    start, end = toks[argument[0]][0], toks[argument[-1] + 1][0]
    try:
        offset = start + parse(source[start:end]).offset
    except (NotParsed, RecursionError):
        offset = start
    return CompileError([issue(source, offset, message)])


def _check_iteration_variables(source: str, toks: list[tuple[int, str]], variables: list[list[int]]) -> None:
    """Raises cel-go's ``CompileError`` for the two variables of a two-variable comprehension
    (their tokens' indexes) when one is no name or both are one."""
    for variable in variables:
        if variable and not _is_name(toks, variable):
            raise _argument_error(source, toks, variable, "argument must be a simple name")
    first, second = variables
    if first and second and toks[first[0]][1] == toks[second[0]][1]:
        raise _argument_error(source, toks, second, f"duplicate variable name: {toks[first[0]][1]}")


def _variable_and_body(source: str, toks: list[tuple[int, str]], dot: int, message: str,
                       counts: tuple[int, ...] = (2,)) -> tuple[list[list[int]], int] | None:
    """The arguments of the macro call whose ``.`` is ``toks[dot]`` and that takes ``counts``
    arguments, a variable first (``o.optMap(v, e)``, ``l.sortBy(v, e)``: each argument's token
    indexes) and the index of its closing parenthesis; [] for the arguments when the call is no
    macro's (the engine then refuses the name as the undeclared function cel-go refuses); None:
    not parseable. Raises cel-go's ``CompileError`` ``message`` when ``v`` is no name."""
    end = _closing_index(toks, dot + 2)
    if end is None:
        return None
    arguments = split_arguments(toks, dot + 3, end)
    if len(arguments) not in counts or not arguments[0]:
        return [], end
    if not _is_name(toks, arguments[0]):
        raise _argument_error(source, toks, arguments[0], message)
    return arguments, end


def _optional_map_edits(source: str, toks: list[tuple[int, str]], dot: int) -> list[tuple[int, int, str]] | None:
    """The edits of ``o.optMap(v, e)`` (``toks[dot]`` its ``.``): ``o._optionalValues().map(v,
    e)._optMapResult()``, ``e`` evaluated with ``v`` bound to the optional's value if it has one
    (cel-go's ``cel.bind`` of ``v``, which shadows an outer ``v`` as a comprehension's does);
    ``optFlatMap`` ends in ``_optFlatMapResult()``. [] when the call is no macro's; None: not
    parseable (``_variable_and_body``)."""
    name = toks[dot + 1][1]
    found = _variable_and_body(source, toks, dot, f"{name}() variable name must be a simple identifier")
    if not found or not found[0]:
        return None if found is None else []
    close = toks[found[1]][0]
    return [(toks[dot][0], toks[dot + 2][0] + 1, "._optionalValues().map("), (close, close + 1, f")._{name}Result()")]


#: The tokens that end a receiver ``sortBy`` refuses (cel-go's macro takes a list, a name, a
#: comprehension, a call or a selection): a literal other than a list's, or a map's ``}``.
_NOT_SORTABLE_RECEIVER_ENDS = frozenset((STRING_LITERAL, NUMBER_LITERAL, "true", "false", "null", "}"))


def _sort_by_edits(source: str, toks: list[tuple[int, str]], dot: int) -> list[tuple[int, int, str]] | None:
    """The edits of ``l.sortBy(v, e)`` (``toks[dot]`` its ``.``): ``l._sortByReceiver().map(v, [v,
    e])._sortByKeys()``, each element paired with its key, which cel-go's expansion computes as
    ``l.map(v, e)`` over ``l`` bound once, then sorted by them (``library._sort_by_keys``).
    [] when the call is no macro's; None: not parseable (``_variable_and_body``). Raises
    cel-go's ``CompileError`` for a receiver that is a literal other than a list (at its
    start; one in parentheses is not seen)."""
    found = _variable_and_body(source, toks, dot, "argument is not an identifier")
    if not found or not found[0]:
        return None if found is None else []
    (variable, body), end = found
    if dot > 0 and toks[dot - 1][1] in _NOT_SORTABLE_RECEIVER_ENDS:
        start = _opening_offset(toks, dot - 1) if toks[dot - 1][1] == "}" else toks[dot - 1][0]
        raise CompileError([issue(source, start, "sortBy can only be applied to a list, identifier, comprehension, "
                                                 "call or select expression")])
    name, comma, close = toks[variable[0]][1], toks[body[0] - 1][0], toks[end][0]
    macro = toks[dot + 1][0]
    return [(macro, macro + len("sortBy"), "_sortByReceiver().map"), (comma, comma + 1, f", [{name}, "),
            (close, close + 1, "])._sortByKeys()")]


def _literal_edits(toks: list[tuple[int, str]], open_index: int) -> list[tuple[int, int, str]] | None:
    """The edits of the list or map literal opened at ``toks[open_index]`` whose entries some are
    marked optional: ``[a, ?b]`` as ``_optionalElements([a, b], [1])``, ``{k: v, ?q: w}`` as
    ``_optionalEntries([k, v, q, w], [1])`` (the keys and values in the order cel-go evaluates
    them), the indexes of the marked entries last; [] when none is marked. None: not parseable
    here."""
    end = _closing_index(toks, open_index)
    if end is None:
        return None
    entries = [entry for entry in split_arguments(toks, open_index + 1, end) if entry]
    optional_indices = [index for index, entry in enumerate(entries) if toks[entry[0]][1] == "?"]
    if not optional_indices:
        return []
    is_map = toks[open_index][1] == "{"
    start, close = toks[open_index][0], toks[end][0]
    edits = [(start, start + 1, "_optionalEntries([" if is_map else "_optionalElements(["),
             (close, close + 1, f"], {optional_indices})")]
    edits += [(toks[entries[index][0]][0], toks[entries[index][0]][0] + 1, "") for index in optional_indices]
    if is_map:
        for entry in entries:
            colon = _key_value_separator(toks, entry)
            if colon is None:
                return None
            edits.append((toks[colon][0], toks[colon][0] + 1, ","))
    return edits


def _key_value_separator(toks: list[tuple[int, str]], entry: list[int]) -> int | None:
    """The index of the ``:`` between a map entry's key and value (``entry``: its tokens'
    indexes, a ``?`` marking it optional first): the first at its top level that closes no
    conditional (``{c ? 'a' : 'b': v}``)."""
    depth = conditionals = 0
    for position, index in enumerate(entry):
        text = toks[index][1]
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and text == "?" and position > 0 and toks[index - 1][1] != ".":
            conditionals += 1
        elif depth == 0 and text == ":":
            if not conditionals:
                return index
            conditionals -= 1
    return None


def split_arguments(toks: list[tuple[int, str]], start: int, end: int) -> list[list[int]]:
    """The token indexes of each top-level argument between ``start`` and ``end`` (exclusive)."""
    arguments: list[list[int]] = [[]]
    depth = 0
    for index in range(start, end):
        text = toks[index][1]
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        if text == "," and depth == 0:
            arguments.append([])
        else:
            arguments[-1].append(index)
    return arguments


def _matching_index(toks: list[tuple[int, str]], index: int, step: int) -> int | None:
    """The index of the bracket matching the one at ``toks[index]``: scanning forward from an
    opening one (``step`` 1), back from a closing one (-1)."""
    deeper, shallower = ("(", "[", "{"), (")", "]", "}")
    if step < 0:
        deeper, shallower = shallower, deeper
    depth = 0
    for position in range(index, len(toks) if step > 0 else -1, step):
        text = toks[position][1]
        if text in deeper:
            depth += 1
        elif text in shallower:
            depth -= 1
            if depth == 0:
                return position
    return None


def _closing_index(toks: list[tuple[int, str]], index: int) -> int | None:
    """The index of the bracket closing the one at ``toks[index]``."""
    return _matching_index(toks, index, 1)


def closing(toks: list[tuple[int, str]], index: int) -> int | None:
    """The offset of the bracket closing the one at ``toks[index]``."""
    position = _closing_index(toks, index)
    return None if position is None else toks[position][0]


def _opening_offset(toks: list[tuple[int, str]], index: int) -> int:
    """The offset of the bracket that the one at ``toks[index]`` closes (balanced: the source
    parsed)."""
    position = _matching_index(toks, index, -1)
    return toks[index if position is None else position][0]


def _parse_error(source: str) -> CompileError:
    """What cel-go says of ``source``, which does not parse (``UnsupportedSyntax`` for syntax
    kube parses and the engine cannot)."""
    try:
        interpreter().compile(source)
    except (ValueError, RuntimeError) as error:
        message = _engine_parse_error(error)
        if "unsupported syntax" in message:
            return UnsupportedSyntax([(0, message)])
        return CompileError([(0, message)])
    return UnsupportedSyntax([(0, "the engine cannot parse the expression's rewriting")])


def _build(source: str, variables: frozenset[str], context: _Context) -> Program:
    toks = list(tokens(source))
    bindings = _bindings(toks)
    engine_source = _engine_source(source, toks, bindings)
    if engine_source is None:
        raise _parse_error(source)
    rewritten, entries = engine_source
    try:
        program = interpreter().compile(rewritten)
    except (ValueError, RuntimeError):
        raise _parse_error(source) from None
    used = set(program.variables())
    issues = []
    for name in sorted(used - variables - entries - _TYPE_NAMES - NAMESPACES):
        issues += [issue(source, offset, f"undeclared reference to '{name}' (in container '')")
                   for offset in _free_references(toks, bindings, name)]
    issues += _not_macro_calls(source, toks)
    functions = context.functions
    for name in sorted(set(program.functions()) - _NATIVE_FUNCTIONS - functions.keys()):
        if name.startswith(("_", "@", "!", "-")):
            continue  # operators (``-_`` is negation)
        if any(f"{namespace}.{name}" in functions for namespace in used & NAMESPACES):
            continue
        issues += [issue(source, offset, f"undeclared reference to '{name}' (in container '')")
                   for offset in _call_offsets(toks, name)]
    # cel-go's validators run on an expression its checker found no error in
    issues = issues or _format_issues(source)
    if issues:
        raise CompileError(sorted(set(issues)))
    return Program(source, program, frozenset(used & variables), context)


#: cel-go's type names of the literals a format's arguments may be.
_LITERAL_KINDS = {"int": "int", "uint": "uint", "double": "double", "string": "string", "bytes": "bytes",
                  "bool": "bool", "null": "null_type"}


def _format_issues(source: str) -> list[tuple[int, str]]:
    """cel-go's compile-time check of each ``'...'.format([...])``, a constant format string
    and a list literal (``formatting.check_format``): a format that does not parse, more
    arguments than clauses, a literal argument of a type its clause refuses (what is no literal
    is taken for a dyn, which every clause takes, so only some of cel-go's errors are found)."""
    try:
        pending = [parse(source)]
    except (NotParsed, RecursionError):
        return []
    found = []
    while pending:
        node = pending.pop()
        pending += children(node)
        if (isinstance(node, Call) and node.function == "format" and isinstance(node.target, Literal)
                and node.target.kind == "string" and len(node.args) == 1 and isinstance(node.args[0], CreateList)
                and not node.args[0].optional_indices):
            checked = check_format(node.target.value, [_shape(element) for element in node.args[0].elements])
            if checked is not None:
                message, offset = checked
                found.append(issue(source, node.offset if offset is None else offset, message))
    return found


def _shape(expr: Expr) -> Shape:
    """A format argument as cel-go's check sees it: a literal's type, a dyn for what else."""
    if isinstance(expr, Literal):
        return Shape(_LITERAL_KINDS[expr.kind], expr.offset)
    if isinstance(expr, CreateList):
        return Shape("list", expr.offset, tuple(_shape(element) for element in expr.elements))
    if isinstance(expr, CreateMap):
        return Shape("map", expr.offset, tuple(_shape(part) for entry in expr.entries for part in entry))
    return Shape("dyn", expr.offset)


def _not_macro_calls(source: str, toks: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """cel-go's errors for the calls of a macro's name with a count of arguments no form of the
    macro takes (``l.all(x)``, ``l.existsOne(x, p)``): an undeclared function (the engine
    parses these as its macros, or as calls of functions it has)."""
    found = []
    for dot in range(len(toks) - 2):
        name = toks[dot + 1][1]
        if toks[dot][1] == "." and name in _MACRO_FORMS and toks[dot + 2][1] == "(":
            close = _closing_index(toks, dot + 2)
            arguments = [] if close is None else [argument for argument in split_arguments(toks, dot + 3, close) if argument]
            if close is not None and len(arguments) not in _MACRO_FORMS[name]:
                found.append(issue(source, toks[dot + 2][0], f"undeclared reference to '{name}' (in container '')"))
    return found


def _free_references(toks: list[tuple[int, str]], bindings: list[_Binding], name: str) -> list[int]:
    """Where cel-go reports the variable ``name`` undeclared: each use outside the macros
    binding it."""
    return [offset for index, (offset, text) in enumerate(toks)
            if text == name and not _is_field_name(toks, index) and not any(
                name in names and start <= index < end for names, start, end in bindings)]


def _call_offsets(toks: list[tuple[int, str]], name: str) -> list[int]:
    """Where cel-go reports an undeclared function: the ``(`` of each call (the start when
    none is seen, as a call the engine's rewriting made)."""
    return [toks[index + 1][0] for index, (_offset, text) in enumerate(toks[:-1])
            if text == name and toks[index + 1][1] == "("] or [0]
