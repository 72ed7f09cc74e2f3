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
- no runtime cost accounting: cel-go stops an evaluation past a runtime cost limit; the
  engine counts no cost, so that limit is not enforced (the static estimate cel-go makes at
  compile time is ``cost``'s, on ``syntax``'s parse);
- the optional field and index syntax (``self.?x``, ``l[?0]``) does not parse in this engine,
  nor do two-variable comprehensions: they are rewritten into calls of library functions before
  parsing (``_engine_source``, which also makes ``size`` count a string's code points as cel-go
  does, not its bytes); the optional entries of list and map literals (``[?x]``, ``{?'k': v}``),
  ``optMap``/``optFlatMap`` and comprehensions rebinding their variables inside remain
  ``UnsupportedSyntax`` (kube's valid expressions that use them are not evaluated).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .library import KUBE_LIBRARY, NAMESPACES
from .projection import WHOLE, Need, project, reads, union
from .rust import interpreter


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
    """An expression kube accepts in syntax this engine cannot parse (the optional ``.?``/``[?``)."""


class EvaluationError(RuntimeError):
    """An evaluation that failed; ``str()`` is cel-go's error text (``no such key: x``)."""


#: What the engine provides natively: CEL's standard functions and macros, the timestamp and
#: duration accessors, and the optional type's functions.
_NATIVE_FUNCTIONS = frozenset((
    "size", "contains", "startsWith", "endsWith", "matches", "int", "uint", "double", "string", "bytes",
    "bool", "timestamp", "duration", "dyn", "type", "has", "all", "exists", "exists_one", "map", "filter",
    "getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getHours",
    "getMinutes", "getSeconds", "getMilliseconds", "of", "none", "hasValue", "value", "orValue", "or",
))
#: Identifiers every expression may use: the type names (``type(x) == int``).
_TYPE_NAMES = frozenset(("int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type"))
_MACROS = ("all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap",
           "transformMapEntry")
#: cel-go's two-variable comprehensions (``ext.TwoVarComprehensions``), which the engine lacks:
#: each is rewritten into a one-variable macro over the receiver's ``_entries()`` ([key or
#: index, value] pairs), then a library function making a map of pairs where cel-go makes one.
_TWO_VARIABLE = {"all": ("all", ""), "exists": ("exists", ""), "existsOne": ("exists_one", ""),
                 "exists_one": ("exists_one", ""), "transformList": ("map", ""),
                 "transformMap": ("map", "._pairsToMap()"), "transformMapEntry": ("map", "._mergeMaps()")}
#: The variable the rewritten comprehensions bind to each [key, value] pair.
_ENTRY = "__entry__"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING_START = re.compile(r"""[rRbB]{0,2}('''|\"\"\"|'|")""")


#: The tokens ``tokens`` yields for a string (or bytes) literal and for a number literal.
STRING_LITERAL, NUMBER_LITERAL = "\x00string", "\x00number"


def tokens(source: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each identifier and punctuation character; a literal is one
    ``STRING_LITERAL`` or ``NUMBER_LITERAL`` token."""
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


def _engine_source(source: str, toks: list[tuple[int, str]]) -> str | None:
    """``source`` as the engine runs it, rewritten where the engine's CEL is not cel-go's by local
    rewrites into library calls (receiver-style calls need no receiver's extent): ``x.?f`` is
    ``x._optField('f')``, ``x[?k]`` is ``x._optIndex(k)`` (the engine cannot parse them),
    ``size(x)`` and ``x.size()`` are ``_sizeInCodePoints`` (the engine counts a string's bytes,
    cel-go its code points), two-variable comprehensions are one-variable ones over entries
    (``_TWO_VARIABLE``), ``existsOne`` is ``exists_one``. None: rewrites that overlap (a
    comprehension's variable rebound inside it), which this does not handle."""
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
    for index in range(len(toks) - 1):
        (offset, text), (next_offset, next_text) = toks[index], toks[index + 1]
        if text == "size" and next_text == "(":
            edits.append((offset, offset + len(text), "_sizeInCodePoints"))
        elif text == "." and next_text in _TWO_VARIABLE and index + 2 < len(toks) and toks[index + 2][1] == "(":
            found = _comprehension_edits(toks, index)
            if found is None:
                return None
            edits += found
        elif text == "." and next_text == "?" and index + 2 < len(toks) and toks[index + 2][1][:1].isidentifier():
            name_offset, name = toks[index + 2]
            edits.append((offset, name_offset + len(name), f"._optField('{name}')"))
        elif text == "[" and next_text == "?" and index > 0 and toks[index - 1][1] not in ("(", ",", "[", "{", ":"):
            close = closing(toks, index)
            if close is None:
                return None
            edits += [(offset, next_offset + 1, "._optIndex("), (close, close + 1, ")")]
    edits.sort()
    if any(earlier[1] > later[0] for earlier, later in zip(edits, edits[1:])):
        return None
    for start, end, replacement in reversed(edits):
        source = source[:start] + replacement + source[end:]
    return source


def _comprehension_edits(toks: list[tuple[int, str]], dot: int) -> list[tuple[int, int, str]] | None:
    """The edits of the comprehension whose ``.`` is ``toks[dot]``: ``existsOne(x, p)`` as
    ``exists_one``; ``R.all(k, v, p)`` as ``R._entries().all(__entry__, p')`` where ``p'`` reads
    ``__entry__[0]`` for ``k`` and ``__entry__[1]`` for ``v`` (``transformList``/``Map``/
    ``MapEntry`` with a filter: ``.filter(__entry__, f').map(...)``). None: not parseable here."""
    name = toks[dot + 1][1]
    macro, finish = _TWO_VARIABLE[name]
    open_index = dot + 2
    close = closing(toks, open_index)
    if close is None:
        return None
    end = next(i for i in range(open_index, len(toks)) if toks[i][0] == close)
    arguments = split_arguments(toks, open_index + 1, end)
    is_two_variable = len(arguments) >= 3 and all(
        len(arguments[i]) == 1 and toks[arguments[i][0]][1][:1].isidentifier() for i in (0, 1))
    if not is_two_variable:
        if name == "existsOne":
            return [(toks[dot + 1][0], toks[dot + 1][0] + len(name), "exists_one")]
        return [] if name in ("all", "exists", "exists_one") else None
    key, value = toks[arguments[0][0]][1], toks[arguments[1][0]][1]
    bodies = arguments[2:]
    if len(bodies) > (1 if name in ("all", "exists", "existsOne", "exists_one") else 2):
        return None
    edits = []
    head_end = toks[bodies[0][0]][0] if bodies[0] else close
    if len(bodies) == 2:  # a filter, then the transform
        filter_start = toks[bodies[0][0]][0]
        comma = toks[bodies[1][0] - 1][0]
        edits.append((toks[dot][0], filter_start, f"._entries().filter({_ENTRY}, "))
        edits.append((comma, toks[bodies[1][0]][0], f").{macro}({_ENTRY}, "))
    else:
        edits.append((toks[dot][0], head_end, f"._entries().{macro}({_ENTRY}, "))
    body = [i for part in bodies for i in part]
    for i in body:
        text = toks[i][1]
        if text in (key, value) and toks[i - 1][1] != ".":
            edits.append((toks[i][0], toks[i][0] + len(text), f"{_ENTRY}[{0 if text == key else 1}]"))
    if name == "transformMap":
        first, last = toks[bodies[-1][0]][0], close
        edits += [(first, first, f"[{_ENTRY}[0], "), (last, last, "]")]
    if finish:
        edits.append((close + 1, close + 1, finish))
    return edits


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


def closing(toks: list[tuple[int, str]], index: int) -> int | None:
    """The offset of the bracket closing the one at ``toks[index]``."""
    depth = 0
    for offset, text in toks[index:]:
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return offset
    return None


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
    rewritten = _engine_source(source, toks)
    if rewritten is None:
        raise UnsupportedSyntax([(0, "comprehension variables rebound inside their comprehension")])
    try:
        program = interpreter().compile(rewritten)
    except (ValueError, RuntimeError):
        raise _parse_error(source) from None
    used = set(program.variables())
    bound = _comprehension_variables(toks) | {_ENTRY}
    issues = []
    for name in sorted(used - variables - bound - _TYPE_NAMES - NAMESPACES):
        offset = _reference_offset(toks, name)
        issues.append(issue(source, offset, f"undeclared reference to '{name}' (in container '')"))
    functions = context.functions
    for name in sorted(set(program.functions()) - _NATIVE_FUNCTIONS - functions.keys()):
        if name.startswith(("_", "@", "!", "-")):
            continue  # operators (``-_`` is negation)
        if any(f"{namespace}.{name}" in functions for namespace in used & NAMESPACES):
            continue
        offset = _call_offset(toks, name)
        issues.append(issue(source, offset, f"undeclared reference to '{name}' (in container '')"))
    if issues:
        raise CompileError(sorted(issues))
    return Program(source, program, frozenset(used & variables), context)


def _comprehension_variables(toks: list[tuple[int, str]]) -> set[str]:
    """The variables the macros bind: ``x`` of ``l.all(x, ...)``, ``k, v`` of ``m.all(k, v, ...)``."""
    bound = set()
    for index in range(1, len(toks) - 3):
        if toks[index][1] in _MACROS and toks[index - 1][1] == "." and toks[index + 1][1] == "(":
            if toks[index + 3][1] == ",":
                bound.add(toks[index + 2][1])
                if index + 5 < len(toks) and toks[index + 5][1] == ",":
                    bound.add(toks[index + 4][1])
    return bound


def _reference_offset(toks: list[tuple[int, str]], name: str) -> int:
    """Where cel-go reports an undeclared variable: its first use not selected by a ``.``."""
    for index, (offset, text) in enumerate(toks):
        if text == name and (index == 0 or toks[index - 1][1] != "."):
            return offset
    return 0


def _call_offset(toks: list[tuple[int, str]], name: str) -> int:
    """Where cel-go reports an undeclared function: the ``(`` of its first call."""
    for index, (_offset, text) in enumerate(toks[:-1]):
        if text == name and toks[index + 1][1] == "(":
            return toks[index + 1][0]
    return 0
